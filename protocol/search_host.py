"""A search process: hosts the engines of many server sessions and searches for them.

    python -m protocol.search_host LOG_LEVEL    (a number or a name)

(the pool starts it with ``python -c`` so that it imports the server's own copy of the package).

Started by ``protocol.host_pool``.  Messages come in on stdin and go out on stdout
(``protocol.host_wire``); the process's own standard output is pointed at stderr first, so
nothing printed by accident can break a frame.  Each session is a ``LocalEngine``: its
searches run on this process's worker threads, and the C search releases the GIL, so all of
the GIL traffic of searching (building reports, learning, the book) stays here, away from
the server's event loop.  This process's log records go to the server's log.

The main thread reads.  ``stop`` and ``new_game`` act at once; a search starts on a worker
thread; ``prepare`` and ``close`` (which may build or free a big table, or merge a rote
memory) run on a worker thread and answer when done.  When stdin ends (the server has gone)
or ``quit`` comes, every search is stopped, the learners' work is saved and the process exits;
SIGINT and SIGTERM are ignored (the server, which gets them too, ends it that way).
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
from typing import Any, BinaryIO

from engine import egdb, evaluators
from engine.errors import SamuelError
from engine.learners.rote import shared_memory
from engine.learners.rote_file import is_reel, shared_reel
from protocol import host_wire, search_priority
from protocol.local_engine import WORKERS, LocalEngine, SessionDefaults, warm_up_704

log = logging.getLogger("protocol.search_host")


class _WireLog(logging.Handler):
    """Sends this process's log records to the server, which logs them as its own."""

    def __init__(self, host: SearchHost) -> None:
        super().__init__()
        self.host = host

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = record.getMessage()
            if record.exc_info:
                text += "\n" + logging.Formatter().formatException(record.exc_info)
            self.host.send(("log", record.levelno, record.name, text))
        except Exception:  # a log record must never take the process down
            pass


class SearchHost:
    def __init__(self, out: BinaryIO) -> None:
        self._out = out
        self._out_lock = threading.Lock()
        self._engines: dict[int, LocalEngine] = {}
        self._broken = False

    def send(self, message: tuple[Any, ...]) -> None:
        frame = host_wire.encode(message)
        with self._out_lock:
            if self._broken:
                return
            try:
                self._out.write(frame)
                self._out.flush()
            except (BrokenPipeError, OSError, ValueError):
                self._broken = True  # the server has gone: the reader sees the end of stdin

    def _fail(self, engine_id: int, rid: int, exc: BaseException, engine: LocalEngine | None) -> None:
        if not isinstance(exc, SamuelError):  # a bug, not a refusal: keep its trace in the log
            log.error("engine %d: request %d failed", engine_id, rid, exc_info=exc)
        hash_value = engine.options.hash_mb if engine is not None else None
        self.send(("failed", engine_id, rid, host_wire.portable_error(exc), hash_value))

    def _in_background(self, engine_id: int, rid: int, engine: LocalEngine, job: Any) -> None:
        def run() -> None:
            try:
                job()
            except BaseException as exc:
                self._fail(engine_id, rid, exc, engine)
                return
            self.send(("done", engine_id, rid, engine.table_mb))
        WORKERS.submit(run)

    # ---- the messages ----

    def handle(self, message: tuple[Any, ...]) -> bool:
        """Act on one message; False when the process should end."""
        kind = message[0]
        if kind == "quit":
            return False
        engine_id = int(message[1])
        engine = self._engines.get(engine_id)
        if kind == "open":
            defaults: SessionDefaults = message[2]
            self._engines[engine_id] = LocalEngine(defaults, defaults.options.copy())
            return True
        if kind == "stop":
            if engine is not None:
                engine.stop()
            return True
        if kind == "new_game":
            if engine is not None:
                engine.new_game()
            return True
        rid = int(message[2])
        if engine is None:
            missing = host_wire.WireError(f"no engine {engine_id} in this process")
            self.send(("failed", engine_id, rid, missing, None))
            return True
        if kind == "search":
            _, _, _, board, limit, info_interval, use_book, values, reports = message
            engine.options.adopt(values)
            self._search(engine_id, rid, engine, board, limit, info_interval, use_book, reports)
        elif kind == "prepare":
            engine.options.adopt(message[3])
            self._in_background(engine_id, rid, engine, engine.searcher)
        elif kind == "close":
            del self._engines[engine_id]
            self._in_background(engine_id, rid, engine, engine.close)
        else:
            self.send(("failed", engine_id, rid, host_wire.WireError(f"unknown message {kind!r}"), None))
        return True

    def _search(self, engine_id: int, rid: int, engine: LocalEngine, board: Any, limit: Any,
                info_interval: float, use_book: bool, reports: bool) -> None:
        def on_info(info: Any) -> None:
            self.send(("info", engine_id, rid, info))

        def finished(future: Any) -> None:
            exc = future.exception()
            if exc is not None:
                self._fail(engine_id, rid, exc, engine)
            else:
                self.send(("result", engine_id, rid, future.result(), engine.table_mb))

        try:
            run = engine.start_search(board, limit, on_info if reports else None, info_interval=info_interval,
                                      use_book=use_book)
        except BaseException as exc:
            self._fail(engine_id, rid, exc, engine)
            return
        run.future.add_done_callback(finished)

    def shut_down(self) -> None:
        """Stop every search, save the learners' work and free the tables."""
        engines = list(self._engines.values())
        self._engines.clear()
        for e in engines:
            e.stop()
        for e in engines:
            try:
                e.close()
            except Exception:
                log.exception("closing a session at exit failed")
        for e in engines:  # the memory is shared: flush once more after every session closed
            if e.rote is not None:
                e.rote.flush()


def main(argv: list[str]) -> int:
    # Ctrl-C in the server's terminal (and a service manager's SIGTERM to the whole group) reaches
    # this process too; the server decides when it ends: by ``quit``, or by its pipe closing when it
    # is gone.  Either way the learners' work is saved first.
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_IGN)
    wire_in = os.fdopen(os.dup(0), "rb", buffering=0)
    wire_out = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)  # a stray print goes to stderr, never into a frame
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    host = SearchHost(wire_out)
    root = logging.getLogger()
    root.handlers[:] = [_WireLog(host)]
    level = argv[0] if argv else "WARNING"  # what the server's root logger lets through
    root.setLevel(int(level) if level.isdigit() else level.upper())
    incoming = host_wire.messages(wire_in)
    first = next(incoming, None)
    if first is None:
        return 0
    if first[0] != "setup":
        raise host_wire.WireError(f"expected setup first, got {first[0]!r}")
    defaults: SessionDefaults = first[1]
    # All of this process runs below the server, this reader too (a message wakes it, and it would
    # take the server's core); set before any worker thread exists.
    WORKERS.before_job = search_priority.apply_to_process(defaults.search_priority)
    if defaults.search_priority in ("idle", "batch"):
        WORKERS.hurry = search_priority.hurry
    for ev in first[2]:  # the operator's own evaluators, known by name in the server
        evaluators.register(ev)
    # Loaded now, so the first game does not wait: the rote memory and the endgame database.
    if defaults.rote and is_reel(defaults.rote):
        shared_reel(defaults.rote)
    elif defaults.rote:
        shared_memory(defaults.rote, merge_every=defaults.rote_merge_every)
    options = defaults.options
    if options.backend != "704":
        try:
            egdb.resolve(str(options["egdb"]))
        except Exception:
            log.exception("endgame database %s", options["egdb"])
    else:  # the 704 program is assembled and set up now, not in the first move's time
        try:
            warm_up_704(str(options["deck704"]))
        except SamuelError:
            log.exception("the 704 program %s", options["deck704"] or "(the package's)")
    log.debug("search process %d ready, priority %s", os.getpid(), defaults.search_priority)
    host.send(("ready", os.getpid()))
    try:
        for message in incoming:
            if not host.handle(message):
                break
    finally:
        host.shut_down()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
