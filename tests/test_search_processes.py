"""Searches in search processes (``samuel serve --search-processes``): the protocols behave as
with threads, a killed search process costs only its searches, and the pipe between them
refuses what is not a frame."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import os
import signal
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from serving import running
from test_contempt import quiet_walk

from engine import evaluators
from engine.board import Board
from engine.errors import SamuelError
from engine.limits import Limit
from engine.options import OptionValues
from protocol import dxp_grammar, host_wire, hub_grammar
from protocol.context import ServerSettings
from protocol.host_pool import HostPool, SearchHostError
from protocol.memory_budget import HashBudget, HashBudgetError
from protocol.server import Server
from protocol.session_engine import SessionDefaults, SessionEngine

pytestmark = pytest.mark.timeout(120)


def settings(**defaults: object) -> ServerSettings:
    d = SessionDefaults(**{"options": OptionValues(hash=1), "search_processes": 1, **defaults})  # type: ignore[arg-type]
    return ServerSettings(dxp_port=0, cb_port=0, defaults=d, dxp_movetime=0.02)


class Lines:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    async def send(self, line: str) -> None:
        self.writer.write(line.encode() + b"\n")
        await self.writer.drain()

    async def until(self, prefix: str, timeout: float = 30.0) -> str:
        while True:
            raw = await asyncio.wait_for(self.reader.readline(), timeout)
            assert raw, f"connection closed while waiting for {prefix!r}"
            text = raw.decode().strip()
            if text.startswith(prefix):
                return text


async def hub(server: Server) -> Lines:
    c = Lines(*await asyncio.open_connection("127.0.0.1", server.ports["hub"]))
    await c.send("hub")
    await c.until("wait")
    await c.send("init")
    await c.until("ready")
    await c.send(f"pos pos={hub_grammar.format_position(Board())}")
    return c


def test_the_server_searches_in_its_processes_and_stops_them_at_close() -> None:
    async def main() -> None:
        async with running(settings()) as server:
            assert server.pool is not None
            pids = server.pool.pids
            assert len(pids) == 1 and pids[0] != os.getpid()
            c = await hub(server)
            await c.send("level move-time=0.05")
            await c.send("go think")
            assert (await c.until("done")).startswith("done move=")
            # A search without limit runs in the host; ping is answered meanwhile and stop ends it.
            await c.send("level infinite")  # analysis keeps a move-time: this one must run until stopped
            await c.send("go analyze")
            await c.until("info")
            await c.send("ping")
            await c.until("pong")
            await c.send("stop")
            assert (await c.until("done")).startswith("done move=")
            cb = Lines(*await asyncio.open_connection("127.0.0.1", server.ports["cb"]))
            await cb.send(f"getmove fen={Board().fen()} depth=3 info=1")
            assert (await cb.until("move ")).startswith("move ")
            c.writer.close()
            cb.writer.close()
        with pytest.raises(ProcessLookupError):  # the search process quit with the server
            os.kill(pids[0], 0)

    asyncio.run(main())


def _kill(server: Server, victim: int) -> None:
    os.kill(victim, signal.SIGKILL)


def _spoil_replies(server: Server, victim: int) -> None:
    """Write what is not a frame into the host's end of its replies (found through /proc)."""
    assert server.pool is not None
    frames = server.pool._hosts[0].frames
    assert frames is not None and frames.transport is not None
    ours = os.readlink(f"/proc/self/fd/{frames.transport.get_extra_info('pipe').fileno()}")
    theirs = next(f for f in Path(f"/proc/{victim}/fd").iterdir() if os.readlink(f) == ours)
    with open(theirs, "wb") as pipe:
        pipe.write(b"\xff\xff\xff\xff not a frame")


@pytest.mark.parametrize(("breaking", "said", "logged"), [
    (_kill, "SIGKILL", "was killed by SIGKILL"),
    pytest.param(_spoil_replies, "search process", "out of step",
                 marks=pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="Linux's /proc")),
])
def test_a_broken_search_process_fails_its_search_clearly_and_a_new_one_takes_over(
    breaking: Callable[[Server, int], None], said: str, logged: str,
    error_logs_expected: None, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, logger="protocol.host_pool")  # whatever an earlier test left on root

    async def main() -> None:
        async with running(settings()) as server:
            assert server.pool is not None
            c = await hub(server)
            await c.send("level infinite")
            await c.send("go analyze")
            await c.until("info")
            victim = server.pool.pids[0]
            breaking(server, victim)
            error = await c.until("error")
            assert "search process" in error and said in error, error
            assert (await c.until("done")).startswith("done move=")  # the client still gets a move
            await c.send("level depth=3")
            await c.send("go think")
            assert (await c.until("done")).startswith("done move=")
            assert server.pool.deaths == 1
            assert server.pool.pids and server.pool.pids[0] != victim
            await c.send("ping")
            await c.until("pong")
            c.writer.close()

    asyncio.run(main())
    assert any(logged in r.getMessage() and r.levelno == logging.ERROR for r in caplog.records)


def test_sessions_keep_their_options_contempt_and_books_across_the_pipe(tmp_path: Path) -> None:
    async def main() -> None:
        d = SessionDefaults(options=OptionValues(hash=1, contempt=30))
        pool = HostPool(1, d)
        await pool.start()
        try:
            session = SessionEngine(replace(d, search_hosts=pool))
            assert not session.in_process
            board = quiet_walk(79)  # 79 quiet plies: every line is a 40-move draw, scored by contempt
            assert (await session.search(board, Limit(depth=4))).info.score.value == -30
            session.set_option("contempt", "-10")
            assert (await session.search(board, Limit(depth=4))).info.score.value == 10
            result = await session.search(Board(), Limit(depth=4))  # no book: off in these defaults
            assert not result.info.book
            session.set_option("book", "default")
            assert (await session.search(Board(), Limit(depth=4))).info.book
            assert not (await session.search(Board(), Limit(depth=4), use_book=False)).info.book
            seen: list[int] = []
            await session.search(Board(), Limit(depth=5), lambda info: seen.append(info.depth),
                                 use_book=False)
            assert seen and max(seen) == 5
            await session.close()
            with pytest.raises(SamuelError):
                await session.search(Board(), Limit(depth=2))
        finally:
            await pool.close()

    asyncio.run(main())


def test_an_operators_evaluator_reaches_the_search_processes(tmp_path: Path) -> None:
    path = tmp_path / "mine.json"
    evaluators.save(evaluators.linear({"men": 100, "kings": 130}, name="my-own-eval"), path)
    name = evaluators.register(evaluators.load(path))

    async def main() -> None:
        d = SessionDefaults(options=OptionValues(hash=1, evaluator=name))
        pool = HostPool(1, d)
        await pool.start()
        try:
            session = SessionEngine(replace(d, search_hosts=pool))
            assert (await session.search(Board(), Limit(depth=3))).best is not None
            await session.close()
        finally:
            await pool.close()

    asyncio.run(main())


def test_the_table_budget_holds_for_tables_in_search_processes() -> None:
    async def main() -> None:
        budget = HashBudget(8)
        d = SessionDefaults(options=OptionValues(hash=4), hash_budget=budget)
        pool = HostPool(1, d)
        await pool.start()
        try:
            a = SessionEngine(replace(d, search_hosts=pool))
            b = SessionEngine(replace(d, search_hosts=pool))
            assert await a.prepare() == 4 and await b.prepare() == 4
            assert budget.used_mb == 8
            with pytest.raises(HashBudgetError):
                a.set_option("hash", "8")
            b.set_option("hash", "2")
            assert await b.prepare() == 2 and budget.used_mb == 6
            await a.close()
            await b.close()
            assert budget.used_mb == 0
        finally:
            await pool.close()

    asyncio.run(main())


def test_a_dead_pool_says_so() -> None:
    async def main() -> None:
        d = SessionDefaults(options=OptionValues(hash=1))
        pool = HostPool(1, d)
        await pool.start()
        session = SessionEngine(replace(d, search_hosts=pool))
        await pool.close()
        with pytest.raises(SearchHostError, match="shutting down"):
            await session.search(Board(), Limit(depth=2))

    asyncio.run(main())


def test_the_wire_refuses_what_is_not_a_frame() -> None:
    def first(data: bytes) -> object:
        return next(host_wire.messages(io.BytesIO(data)), None)

    frame = host_wire.encode(("ping", 1))
    assert first(frame) == ("ping", 1)
    assert list(host_wire.messages(io.BytesIO(frame * 3))) == [("ping", 1)] * 3
    assert first(b"") is None
    with pytest.raises(host_wire.WireError, match="inside a frame"):
        first(frame[:-1])
    with pytest.raises(host_wire.WireError, match="out of step"):
        first(b"\xff\xff\xff\xff" + b"x" * 10)
    with pytest.raises(host_wire.WireError, match="unreadable"):
        first(b"\x00\x00\x00\x03abc")
    with pytest.raises(host_wire.WireError, match="not a message"):
        first(host_wire.encode([1, 2]))  # type: ignore[arg-type]  # a list, not a tuple


def test_frames_come_out_whole_however_the_stream_is_cut() -> None:
    messages = [("info", 1, k, "x" * k) for k in (0, 5, 300, 70_000)]
    stream = b"".join(host_wire.encode(m) for m in messages)
    for cut in (1, 3, 4, 7, 1000, len(stream)):  # a byte at a time, inside headers, several at once
        frames = host_wire.FrameBuffer()
        got = [m for at in range(0, len(stream), cut) for m in frames.feed(stream[at:at + cut])]
        assert got == messages
        frames.at_end()
    frames = host_wire.FrameBuffer()
    assert frames.feed(stream[:-1]) == messages[:-1]
    with pytest.raises(host_wire.WireError, match="inside a frame"):
        frames.at_end()
    with pytest.raises(host_wire.WireError, match="out of step"):
        host_wire.FrameBuffer().feed(b"\xff\xff\xff\xff" + b"x" * 10)
    with pytest.raises(host_wire.WireError, match="unreadable"):
        host_wire.FrameBuffer().feed(b"\x00\x00\x00\x03abc")


class _Unpicklable(Exception):
    def __init__(self, a: int, b: int) -> None:  # pickle calls it with one argument: fails
        super().__init__(f"{a} and {b}")


def test_errors_cross_the_pipe_as_they_are_or_by_name() -> None:
    plain = SamuelError("no legal moves")
    assert host_wire.portable_error(plain) is plain
    odd = host_wire.portable_error(_Unpicklable(1, 2))
    assert isinstance(odd, SamuelError) and str(odd) == "_Unpicklable: 1 and 2"


def test_learners_in_search_processes_save_every_game(tmp_path: Path) -> None:
    """Alpha and the rote memory live in the search processes: two games in two processes both
    reach the polynomial's file (merged under its file lock) and the shared rote memory."""
    from test_generalize_host import _play

    from engine.learners.rote_store import RoteStore

    rote = tmp_path / "rote.sqlite"

    async def main() -> None:
        d = SessionDefaults(options=OptionValues(mode="samuel", hash=1), alpha="club",
                            alpha_dir=str(tmp_path), rote=str(rote), rote_merge_every=5)
        pool = HostPool(2, d)
        await pool.start()
        try:
            a = SessionEngine(replace(d, search_hosts=pool))
            b = SessionEngine(replace(d, search_hosts=pool))
            await asyncio.gather(_play(a, 12), _play(b, 12))
            assert len(pool.pids) == 2 and a._remote is not None and b._remote is not None
            assert a._remote._host is not b._remote._host  # spread over both processes
            await asyncio.gather(a.close(), b.close())
        finally:
            await pool.close()

    asyncio.run(main())
    saved = json.loads((tmp_path / "club.json").read_text())
    assert saved["games"] == 2
    assert len(RoteStore(rote)) >= 6  # both games' searched positions, flushed at close


@pytest.mark.skipif(not hasattr(os, "SCHED_IDLE"), reason="Linux's idle class")
def test_idle_priority_puts_searches_below_the_reader_and_hurry_lifts_a_stopped_one() -> None:
    import threading

    from protocol import search_priority

    seen: dict[str, object] = {}
    release = threading.Event()
    started = threading.Event()

    def reader() -> None:  # a search process's reading thread, on a thread of its own here
        seen["setup"] = search_priority.apply_to_process("idle")
        me = threading.get_native_id()
        seen["reader"] = (os.sched_getscheduler(0), os.getpriority(os.PRIO_PROCESS, me))

    def search(setup: object) -> None:
        assert callable(setup)
        setup()
        seen["search"] = os.sched_getscheduler(0)
        seen["tid"] = threading.get_native_id()
        started.set()
        release.wait(10)
        seen["hurried"] = os.sched_getscheduler(0)
        setup()  # the next search: back in the idle class
        seen["back"] = os.sched_getscheduler(0)
        os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
        setup()  # placed once per thread, not again before every search (no system call)
        seen["kept"] = os.sched_getscheduler(0)

    t = threading.Thread(target=reader)
    t.start()
    t.join()
    assert seen["reader"] == (os.SCHED_OTHER, 19)
    s = threading.Thread(target=search, args=(seen["setup"],))
    s.start()
    assert started.wait(10)
    assert seen["search"] == os.SCHED_IDLE
    search_priority.hurry(int(seen["tid"]))  # type: ignore[call-overload]
    release.set()
    s.join()
    assert seen["hurried"] == os.SCHED_OTHER
    assert (seen["back"], seen["kept"]) == (os.SCHED_IDLE, os.SCHED_OTHER)
    with pytest.raises(ValueError, match="choose from"):
        search_priority.apply_to_process("urgent")


@pytest.mark.skipif(not hasattr(os, "SCHED_BATCH"), reason="Linux's batch class")
def test_batch_priority_puts_searches_in_the_batch_class() -> None:
    import threading

    from protocol import search_priority

    seen: dict[str, object] = {}

    def reader() -> None:
        seen["setup"] = search_priority.apply_to_process("batch")

    def search() -> None:
        setup = seen["setup"]
        assert callable(setup)
        setup()
        seen["class"] = os.sched_getscheduler(0)
        seen["nice"] = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    for target in (reader, search):
        t = threading.Thread(target=target)
        t.start()
        t.join()
    assert (seen["class"], seen["nice"]) == (os.SCHED_BATCH, 19)


class Frames:
    """A DXP client: messages end with a NUL."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.chats: list[str] = []

    async def send(self, msg: dxp_grammar.Message) -> None:
        self.writer.write(dxp_grammar.format_message(msg).encode() + b"\0")
        await self.writer.drain()

    async def until(self, kind: type[dxp_grammar.Message], timeout: float = 60.0) -> dxp_grammar.Message:
        """The next message of ``kind``; chats on the way are kept, anything else fails the test."""
        while True:
            raw = await asyncio.wait_for(self.reader.readuntil(b"\0"), timeout)
            msg = dxp_grammar.parse_message(raw[:-1].decode())
            if isinstance(msg, kind):
                return msg
            assert isinstance(msg, dxp_grammar.Chat), f"expected {kind.__name__}, got {msg}"
            self.chats.append(msg.text)


async def _searching(pool: HostPool) -> None:
    """Until a search process holds a search request (not the table readied at a new game)."""
    while not any(rid == p.engine._search_rid
                  for h in pool._hosts if h.alive for rid, p in h.pending.items()):
        await asyncio.sleep(0.01)


def test_dxp_answers_a_legal_move_when_its_search_process_dies_and_the_game_goes_on(
    monkeypatch: pytest.MonkeyPatch, error_logs_expected: None
) -> None:
    from protocol import dxp_session

    monkeypatch.setattr(dxp_session, "MESSAGE_GAP", 0.005)
    long_search = [True]
    short = dxp_session.DxpFollower._limit

    def limit(self: dxp_session.DxpFollower, game: object) -> Limit:
        # The first search runs until the process is killed; the later ones are short.
        return Limit(movetime=3600) if long_search[0] else short(self, game)  # type: ignore[arg-type]

    monkeypatch.setattr(dxp_session.DxpFollower, "_limit", limit)

    async def main() -> None:
        async with running(settings()) as server:
            assert server.pool is not None
            c = Frames(*await asyncio.open_connection("127.0.0.1", server.ports["dxp"]))
            board = Board()
            await c.send(dxp_grammar.GameReq("tester", board.turn, 0, 0, None))
            assert (await c.until(dxp_grammar.GameAcc)).code == dxp_grammar.ACCEPT  # type: ignore[union-attr]
            await asyncio.wait_for(_searching(server.pool), 60)
            victim = server.pool.pids[0]
            long_search[0] = False
            os.kill(victim, signal.SIGKILL)
            reply = await c.until(dxp_grammar.MoveMsg)
            assert isinstance(reply, dxp_grammar.MoveMsg)
            board.push(dxp_grammar.find_move(board, reply))  # legal, or this raises
            for _ in range(2):  # the game goes on, on a new search process
                await c.send(dxp_grammar.move_message(board.legal_moves[0]))
                board.push(board.legal_moves[0])
                reply = await c.until(dxp_grammar.MoveMsg)
                assert isinstance(reply, dxp_grammar.MoveMsg)
                board.push(dxp_grammar.find_move(board, reply))
            assert any("search process" in text and "SIGKILL" in text for text in c.chats), c.chats
            assert server.pool.pids and server.pool.pids[0] != victim
            c.writer.close()

    asyncio.run(main())


def test_a_killed_search_process_is_replaced_at_once_not_at_the_next_search(
    error_logs_expected: None
) -> None:
    async def main() -> None:
        pool = HostPool(2, SessionDefaults(options=OptionValues(hash=1)))
        await pool.start()
        try:
            first = set(pool.pids)
            victim = min(first)
            os.kill(victim, signal.SIGKILL)

            async def replaced() -> None:  # nothing asks the pool for a host meanwhile
                while not (pool.deaths == 1 and len(pool.pids) == 2 and victim not in pool.pids):
                    await asyncio.sleep(0.02)

            await asyncio.wait_for(replaced(), 60)  # a bound only a hang reaches
            assert len(set(pool.pids) - first) == 1
            for pid in pool.pids:
                os.kill(pid, 0)  # alive
            session = SessionEngine(replace(SessionDefaults(options=OptionValues(hash=1)), search_hosts=pool))
            assert (await session.search(Board(), Limit(depth=2))).best is not None
            await session.close()
            assert len(pool.pids) == 2  # and no third one was started
        finally:
            await pool.close()

    asyncio.run(main())
