"""The server's search processes, and the remote engine a session drives through them.

With every search in the server's own process, the search threads' Python work (starting a
search, building its reports, learning from it) holds the GIL while the event loop waits
for it: with 32 games searching, a ``ping`` waited up to 60 ms.  ``HostPool`` starts a few
worker processes (``protocol.search_host``) that own the C core, the tables and the
learners; the server process keeps only the event loop, reading the hosts' pipes like any
other stream.  Sessions are spread over the hosts; a host that dies (killed, crashed) fails
its sessions' requests with a clear error and is replaced at once; its sessions move to a
live host at their next request.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import signal
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from engine import evaluators
from engine.board import Board
from engine.errors import SamuelError
from engine.limits import Limit
from engine.options import OptionValue
from engine.search import SearchInfo
from protocol import host_wire
from protocol.local_engine import SessionDefaults

log = logging.getLogger(__name__)

START_TIMEOUT = 60.0
"""Seconds a new search process may take to import the engine and load its data."""
QUIT_TIMEOUT = 30.0
"""Seconds a host may take, once told to quit, to save the learners' work and exit."""


class SearchHostError(SamuelError):
    """A search process could not be started, or died while it held this session's engine."""


@dataclass
class Reply:
    """A host's answer to one request: ``value`` (a SearchResult or None) and the host's table size."""

    value: Any
    table_mb: int | None


@dataclass
class _Pending:
    future: asyncio.Future[Reply]
    on_info: Callable[[SearchInfo], None] | None
    engine: RemoteEngine


class _Host:
    """One search process and the requests waiting on it."""

    def __init__(self, proc: asyncio.subprocess.Process, number: int) -> None:
        self.proc = proc
        self.number = number
        self.pid = proc.pid
        self.engines: set[int] = set()
        self.pending: dict[int, _Pending] = {}
        self.alive = True
        self.reader: asyncio.Task[None] | None = None
        self.frames: _Replies | None = None

    def send(self, message: tuple[Any, ...]) -> None:
        if not self.alive or self.proc.stdin is None or self.proc.stdin.is_closing():
            raise SearchHostError(f"search process {self.pid} is gone")
        self.proc.stdin.write(host_wire.encode(message))

    def describe_exit(self) -> str:
        code = self.proc.returncode
        if code is None:
            return "its pipe broke"
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return f"it was killed by {name}"
        return f"it exited with status {code}"


class HostPool:
    """``processes`` search processes for one server; ``start`` before use, ``close`` at the end."""

    def __init__(self, processes: int, defaults: SessionDefaults) -> None:
        if processes < 1:
            raise ValueError(f"a pool needs at least one search process, got {processes}")
        self.processes = processes
        self.defaults = defaults.portable()
        self._hosts: list[_Host] = []
        self._numbers = itertools.count(1)
        self._spawning: asyncio.Task[_Host] | None = None
        self._closing = False
        self._started = False
        self.deaths = 0

    @property
    def pids(self) -> list[int]:
        return [h.pid for h in self._hosts if h.alive]

    async def start(self) -> None:
        hosts = await asyncio.gather(*(self._spawn() for _ in range(self.processes)),
                                     return_exceptions=True)
        errors = [h for h in hosts if isinstance(h, BaseException)]
        if errors:
            await self.close()
            raise errors[0]
        self._started = True

    async def _spawn(self) -> _Host:
        number = next(self._numbers)
        level = logging.getLogger().getEffectiveLevel()  # a number: any level, even one without a name
        loop = asyncio.get_running_loop()
        out_r, out_w = os.pipe()  # the host's replies: read by a protocol, not a StreamReader
        try:
            try:
                proc = await asyncio.create_subprocess_exec(
                    sys.executable, "-c", _BOOT, _PACKAGE_ROOT, str(level),
                    stdin=asyncio.subprocess.PIPE, stdout=out_w)
            finally:
                os.close(out_w)
        except OSError as exc:
            os.close(out_r)
            raise SearchHostError(f"cannot start a search process: {exc}") from None
        host = _Host(proc, number)
        first: asyncio.Future[tuple[Any, ...] | None] = loop.create_future()

        def on_message(message: tuple[Any, ...]) -> None:
            # Its log records before ``ready`` are logged; the first other word answers the start.
            if first.done() or message[0] == "log":
                self._dispatch(host, message)
            else:
                first.set_result(message)

        replies = os.fdopen(out_r, "rb", buffering=0)
        try:
            _, host.frames = await loop.connect_read_pipe(lambda: _Replies(on_message), replies)
        except OSError as exc:
            replies.close()
            proc.kill()
            await proc.wait()
            raise SearchHostError(f"cannot read a search process: {exc}") from None

        def pipe_ended(_: object) -> None:
            if not first.done():  # it ended before its first word
                first.set_result(None)

        host.frames.ended.add_done_callback(pipe_ended)
        registered = evaluators.registered()
        try:
            host.send(("setup", self.defaults, registered))
            answer = await asyncio.wait_for(asyncio.shield(first), START_TIMEOUT)
        except (asyncio.TimeoutError, SearchHostError, ConnectionError) as exc:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()
            host.frames.close()
            why = str(exc) or f"no answer within {START_TIMEOUT:g} s"
            raise SearchHostError(f"search process {proc.pid} did not start: {why}") from None
        if answer is None or answer[0] != "ready":
            host.alive = False
            await _end(proc, grace=0.0 if answer is not None else 2.0)
            host.frames.close()
            problem = host.frames.ended.result() if host.frames.ended.done() else ""
            said = f"it said {answer[0]!r}" if answer is not None else host.describe_exit() + problem
            raise SearchHostError(f"search process {proc.pid} did not start: {said}")
        host.reader = asyncio.ensure_future(self._watch(host))
        self._hosts.append(host)
        log.info("search process %d started (pid %d)", number, proc.pid)
        return host

    async def host(self) -> _Host:
        """The live host with the fewest engines, starting replacements for dead ones first."""
        if self._closing:
            raise SearchHostError("the server is shutting down")
        live = [h for h in self._hosts if h.alive]
        spawning = self._replenish()
        if not live:
            assert spawning is not None
            return await asyncio.shield(spawning)
        return min(live, key=lambda h: len(h.engines))

    def _replenish(self) -> asyncio.Task[_Host] | None:
        """The start of a replacement when the pool is short of live hosts (one at a time; the
        next follows when this one is up), else None."""
        if self._spawning is not None and not self._spawning.done():
            return self._spawning
        if self._closing or sum(h.alive for h in self._hosts) >= self.processes:
            return None
        self._spawning = asyncio.ensure_future(self._spawn())
        self._spawning.add_done_callback(self._spawned)
        return self._spawning

    def _spawned(self, task: asyncio.Task[_Host]) -> None:
        if task.cancelled():
            return
        if task.exception() is not None:
            # Whoever awaited it has the error too; this keeps it from going unread when nobody did.
            # No retry here (a pool that cannot start a process would spin): the next request tries.
            log.error("could not replace a search process: %s", task.exception())
            return
        self._replenish()

    async def _watch(self, host: _Host) -> None:
        """Wait for the end of the host's replies (its death, or its exit at close), then fail
        whatever it still owed."""
        assert host.frames is not None
        try:
            problem = await asyncio.shield(host.frames.ended)
        except asyncio.CancelledError:
            return
        host.alive = False
        if self._started:
            # Replaced now, not at the next search: that move would pay the process's start (the
            # engine imported, its data loaded: a second or more).
            self._replenish()
        await _end(host.proc)
        if not self._closing:
            self.deaths += 1
            log.error("search process %d (pid %d) ended: %s%s; %d sessions lose their engine",
                      host.number, host.pid, host.describe_exit(), problem, len(host.engines))
        error = SearchHostError(f"the search process (pid {host.pid}) ended: {host.describe_exit()}; "
                                "the search is lost (the next one starts afresh)")
        for pending in list(host.pending.values()):
            if not pending.future.done():
                pending.future.set_exception(error)
        host.pending.clear()
        host.engines.clear()
        if host in self._hosts:
            self._hosts.remove(host)

    def _dispatch(self, host: _Host, message: tuple[Any, ...]) -> None:
        kind = message[0]
        if kind == "log":
            _, level, name, text = message
            logging.getLogger(name).log(level, "[search process %d] %s", host.number, text)
            return
        if kind not in ("info", "result", "done", "failed"):
            log.warning("search process %d sent an unknown message %r", host.number, kind)
            return
        rid = int(message[2])
        pending = host.pending.get(rid)
        if pending is None:
            return  # a request whose session was closed meanwhile
        if kind == "info":
            if pending.on_info is not None:
                try:
                    pending.on_info(message[3])
                except Exception:
                    log.exception("search info callback failed")
            return
        del host.pending[rid]
        if pending.future.done():
            return
        if kind == "failed":
            _, _, _, exc, hash_value = message
            pending.engine.failed(hash_value)
            pending.future.set_exception(exc)
        elif kind == "result":
            pending.future.set_result(Reply(message[3], message[4]))
        else:
            pending.future.set_result(Reply(None, message[3]))

    async def close(self) -> None:
        """Tell every host to quit (they save the learners' work), and wait for them."""
        self._closing = True
        if self._spawning is not None and not self._spawning.done():
            # Waited for, not cancelled: a process cancelled half-started would be left behind.
            # It joins the hosts told to quit below (or failed, and its error is logged).
            with contextlib.suppress(Exception):
                await asyncio.shield(self._spawning)
        hosts = list(self._hosts)
        for h in hosts:
            with contextlib.suppress(Exception):
                h.send(("quit",))
                assert h.proc.stdin is not None
                h.proc.stdin.close()
        for h in hosts:
            try:
                await asyncio.wait_for(h.proc.wait(), QUIT_TIMEOUT)
            except asyncio.TimeoutError:
                log.error("search process %d (pid %d) did not quit; killing it", h.number, h.pid)
                with contextlib.suppress(ProcessLookupError):
                    h.proc.kill()
                await h.proc.wait()
            h.alive = False
            if h.reader is not None:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await asyncio.wait_for(h.reader, 5)
        self._hosts.clear()


async def _end(proc: asyncio.subprocess.Process, grace: float = 2.0) -> None:
    """Wait for a process whose pipe has closed, killing it if it lingers.  Not killed at once:
    killing polls the process first, which would reap it under the child watcher, and its
    exit status (the signal that killed it, for the log) would be lost."""
    try:
        await asyncio.wait_for(asyncio.shield(proc.wait()), grace)
    except asyncio.TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        await proc.wait()


class _Replies(asyncio.Protocol):
    """A host's replies, read as they arrive: every whole frame of a chunk is handed to
    ``on_message`` in the same turn of the loop (a StreamReader and a reading task cost the
    server two more turns a move, which the searches' CPU paid for).  ``ended`` is settled
    with "" when the pipe closes cleanly, or with the problem that broke it."""

    def __init__(self, on_message: Callable[[tuple[Any, ...]], None]) -> None:
        self.on_message = on_message
        self.buffer = host_wire.FrameBuffer()
        self.transport: asyncio.ReadTransport | None = None
        self.ended: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.ReadTransport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        if self.ended.done():
            return
        try:
            messages = self.buffer.feed(data)
        except host_wire.WireError as exc:
            self._end(f" ({exc})")
            self.close()
            return
        for message in messages:
            self.on_message(message)

    def eof_received(self) -> None:
        try:
            self.buffer.at_end()
        except host_wire.WireError as exc:
            self._end(f" ({exc})")
        self._end("")

    def connection_lost(self, exc: Exception | None) -> None:
        self._end(f" ({exc})" if exc is not None else "")

    def _end(self, problem: str) -> None:
        if not self.ended.done():
            self.ended.set_result(problem)

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()


_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
"""Where the server imported this package from: the search process imports the same copy,
ahead of anything in its working directory (which stays the server's, for relative paths)."""
_BOOT = ("import sys; sys.path.insert(0, sys.argv[1]); from protocol.search_host import main; "
         "sys.exit(main(sys.argv[2:]))")


_ENGINE_IDS = itertools.count(1)
_RIDS = itertools.count(1)
"""Request numbers, unique in the server: a host's replies are matched by them."""


class RemoteEngine:
    """One session's engine in a search process: the requests ``SessionEngine`` sends it.

    Bound to a host at its first request; a host that dies unbinds it, and the next request
    opens the session afresh on a live host (empty table, learners reloaded from their files).
    ``failed`` is the pool's call back.
    """

    def __init__(self, pool: HostPool, defaults: SessionDefaults) -> None:
        self.pool = pool
        self.defaults = defaults.portable()
        self.engine_id = next(_ENGINE_IDS)
        self._host: _Host | None = None
        self._search_rid: int | None = None
        self.on_hash_restored: Callable[[int], None] | None = None
        """Called with the hash option's value when the host had to keep the old table."""

    async def _bound(self) -> _Host:
        host = self._host
        if host is None or not host.alive:
            host = await self.pool.host()
            host.send(("open", self.engine_id, self.defaults))
            host.engines.add(self.engine_id)
            self._host = host
        return host

    async def _request(
        self, message: tuple[Any, ...], on_info: Callable[[SearchInfo], None] | None = None
    ) -> tuple[int, asyncio.Future[Reply]]:
        host = await self._bound()
        rid = next(_RIDS)
        future: asyncio.Future[Reply] = asyncio.get_running_loop().create_future()
        host.pending[rid] = _Pending(future, on_info, self)
        try:
            host.send((message[0], self.engine_id, rid, *message[1:]))
        except SearchHostError:
            del host.pending[rid]
            raise
        return rid, future

    async def search(self, board: Board, limit: Limit, on_info: Callable[[SearchInfo], None] | None,
                     info_interval: float, use_book: bool,
                     values: Mapping[str, OptionValue]) -> asyncio.Future[Reply]:
        """Send the search; the returned future settles with its Reply (or error)."""
        rid, future = await self._request(
            ("search", board, limit, info_interval, use_book, dict(values), on_info is not None), on_info)
        self._search_rid = rid
        return future

    async def prepare(self, values: Mapping[str, OptionValue]) -> int | None:
        _, future = await self._request(("prepare", dict(values)))
        return (await future).table_mb

    def stop(self) -> None:
        host = self._host
        if host is not None and host.alive and self._search_rid in host.pending:
            with contextlib.suppress(SearchHostError):
                host.send(("stop", self.engine_id))

    def new_game(self) -> None:
        host = self._host
        if host is not None and host.alive:
            with contextlib.suppress(SearchHostError):
                host.send(("new_game", self.engine_id))

    async def close(self) -> None:
        host = self._host
        if host is None or not host.alive:
            self._host = None
            return
        try:
            _, future = await self._request(("close",))
            await future
        except SearchHostError:
            pass  # the host died: nothing of this session is left to close
        finally:
            host.engines.discard(self.engine_id)
            self._host = None

    def failed(self, hash_value: int | None) -> None:
        if hash_value is not None and self.on_hash_restored is not None:
            self.on_hash_restored(hash_value)
