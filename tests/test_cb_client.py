"""The cb client (CbEngine) against ``samuel cb``, against run_cb over TCP, and against fake engines."""

from __future__ import annotations

import asyncio
import sys
import textwrap
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from engine.board import Board
from engine.limits import Limit
from engine.options import OptionValues
from protocol.cb_session import run_cb
from protocol.client import SimpleEngine
from protocol.client.base import InfoDict
from protocol.client.cb import CbEngine, connect_cb, gamehist_of, popen_cb
from protocol.client.errors import (
    EngineProtocolError,
    EngineTerminatedError,
    EngineTimeoutError,
    IllegalEngineMoveError,
)
from protocol.context import ServerSettings
from protocol.session_engine import SessionDefaults

HANG = 600.0
"""Seconds for anything that must succeed: only a hang gets there.  Starting ``samuel cb`` took
more than the client's 10 s default on a busy machine, which failed a test that passed alone."""

pytestmark = pytest.mark.timeout(HANG)

SAMUEL_CB = [sys.executable, "-m", "samuel", "cb", "--hash", "1"]
SETTINGS = ServerSettings(idle_timeout=None, defaults=SessionDefaults(options=OptionValues(hash=1)))


@asynccontextmanager
async def tcp_engine() -> AsyncIterator[CbEngine]:
    sessions: list[asyncio.Task[None]] = []

    async def session(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        sessions.append(asyncio.current_task())  # type: ignore[arg-type]
        await run_cb(r, w, SETTINGS)

    server = await asyncio.start_server(session, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    engine = await connect_cb("127.0.0.1", port, setup_timeout=HANG, grace=HANG)
    try:
        yield engine
    finally:
        await engine.quit()
        server.close()
        await server.wait_closed()
        # Python 3.11's wait_closed does not wait for the sessions: the one that saw quit may
        # still be freeing its table, and the loop ending now would cancel it.
        await asyncio.wait_for(asyncio.gather(*sessions), HANG)


@asynccontextmanager
async def process_engine(
    argv: list[str] | None = None, grace: float | None = None
) -> AsyncIterator[CbEngine]:
    engine = await popen_cb(argv or SAMUEL_CB, grace=HANG if grace is None else grace, setup_timeout=HANG)
    try:
        yield engine
    finally:
        await engine.close()


def run(coro: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(coro())  # type: ignore[arg-type]


def test_handshake_ping_configure_and_quit() -> None:
    async def main() -> None:
        engine = await popen_cb(SAMUEL_CB, setup_timeout=HANG, grace=HANG)
        assert engine.id["name"].startswith("samuel ")
        assert engine.id["protocolversion"] == "2"
        await engine.ping()
        await engine.configure({"evaluator": "material", "hashsize": 4, "mode": "pvs"})
        assert engine.options == {"evaluator": "material", "hashsize": "4", "mode": "pvs"}
        with pytest.raises(EngineProtocolError, match="refused option evaluator"):
            await engine.configure({"evaluator": "psychic"})
        with pytest.raises(EngineProtocolError):
            await engine.configure({"colour": "red"})
        await engine.ping()
        await engine.quit()
        assert engine.returncode == 0

    run(main)


def test_full_game_subprocess_against_tcp() -> None:
    """Black is ``samuel cb`` in a subprocess, White is run_cb over TCP; every move is checked."""

    async def main() -> None:
        async with process_engine() as black, tcp_engine() as white:
            board = Board()
            for engine in (black, white):
                await engine.new_game()
            limits = [Limit(depth=3), Limit(movetime=0.02), Limit(time=2.0, inc=0.01), Limit(nodes=3000)]
            ply = 0
            while board.outcome() is None and ply < 120:
                engine = black if ply % 2 == 0 else white
                result = await engine.play(board, limits[ply % len(limits)])
                assert board.is_legal(result.move)
                assert result.result in ("WIN", "LOSS", "DRAW", "UNKNOWN")
                board.push(result.move)
                if result.result == "DRAW":
                    assert board.is_game_over()
                ply += 1
            assert ply >= 20

    run(main)


def test_analyse_streams_status_as_info() -> None:
    async def main() -> None:
        async with tcp_engine() as engine:
            board = Board()
            board.push_pdn("11-15")
            seen: list[InfoDict] = []
            info = await engine.analyse(board, Limit(depth=6), on_info=seen.append)
            depths = [i["depth"] for i in seen]  # thinned to one per 0.1 s, the last always sent
            assert depths == sorted(set(depths)) and depths[-1] == 6
            last = seen[-1]
            assert {"status", "depth", "seldepth", "score", "nodes", "nps", "time", "pv"} <= set(last)
            assert isinstance(last["score"], float) and last["pv"] and board.is_legal(last["pv"][0])
            assert info["move"] == last["pv"][0] and info["result"] == "UNKNOWN"

    run(main)


def test_gamehist_is_sent_from_the_last_irreversible_move() -> None:
    board = Board("B:WK1:BK4,12")
    assert gamehist_of(board) == f"set gamehist {board.fen()}"
    board.push_many(["4-8", "1-5", "12-16", "5-1", "8-4"])
    assert gamehist_of(board) == f"set gamehist {_fen_after(['4-8', '1-5', '12-16'])} 5-1 8-4"


def _fen_after(moves: list[str]) -> str:
    b = Board("B:WK1:BK4,12")
    b.push_many(moves)
    return b.fen()


def test_repetition_draw_is_reported_through_the_client() -> None:
    async def main() -> None:
        async with tcp_engine() as engine:
            board = Board("B:WK1:BK4")
            board.push_many(["4-8", "1-5", "8-4", "5-1"] * 2)
            result = await engine.play(board, Limit(movetime=0.05))
            assert (result.move.long, result.result) == ("4-8", "DRAW")

    run(main)


def test_simple_engine_wrapper() -> None:
    with SimpleEngine.popen_cb(SAMUEL_CB, timeout=HANG, setup_timeout=HANG, grace=HANG) as engine:
        engine.ping()
        result = engine.play(Board(), Limit(movetime=0.05))
        assert Board().is_legal(result.move)


# ---- misbehaving engines ----

FAKE = textwrap.dedent('''
    import sys, time
    MODE = sys.argv[1]
    def say(text):
        sys.stdout.write(text + "\\n")
        sys.stdout.flush()
    for line in sys.stdin:
        cmd = line.strip()
        if cmd == "name":
            say("reply 1 fake " + MODE)
        elif cmd == "get protocolversion":
            say("reply 1 2")
        elif cmd == "ping":
            say("pong")
        elif cmd.startswith("set gamehist"):
            say("reply 1 ok")
        elif cmd.startswith("getmove"):
            if MODE == "crash":
                sys.exit(3)
            if MODE == "hang":
                time.sleep(30)
                sys.exit(0)
            if MODE == "illegal":
                say("status depth 1/1 score +0.00 time 0.000 nodes 1 nps 1 pv 11-20")
                say("move 11-20 UNKNOWN W:W21-32:B1-10,12,20")
            if MODE == "wrongfen":
                say("move 11-15 UNKNOWN W:W21-32:B1-10,12,16")
            if MODE == "error":
                say('error message="cannot think today"')
            if MODE == "garbage":
                say("bestmove 11-15")
        elif cmd == "quit":
            break
        else:
            say("reply 0 ?")
''')


@pytest.fixture
def fake(tmp_path: Path) -> Callable[[str], list[str]]:
    script = tmp_path / "fake_cb.py"
    script.write_text(FAKE)
    return lambda mode: [sys.executable, str(script), mode]


@pytest.mark.parametrize(("mode", "error", "match"), [
    ("crash", EngineTerminatedError, "exited with status 3|closed by the engine"),
    ("illegal", IllegalEngineMoveError, "11-20"),
    ("wrongfen", IllegalEngineMoveError, "not the position after it"),
    ("hang", EngineTimeoutError, "no move within"),
    ("error", EngineProtocolError, "cannot think today"),
    ("garbage", EngineProtocolError, "not a cb engine line"),
])
def test_typed_errors(
    fake: Callable[[str], list[str]], mode: str, error: type[Exception], match: str
) -> None:
    async def main() -> None:
        # Only the hang is for the client's grace to find; the others must not race it when busy.
        async with process_engine(fake(mode), grace=0.3 if mode == "hang" else None) as engine:
            assert engine.id["name"] == f"fake {mode}"
            with pytest.raises(error, match=match):
                await engine.play(Board(), Limit(movetime=0.1))

    run(main)


def test_engine_gone_before_the_handshake(tmp_path: Path) -> None:
    async def main() -> None:
        with pytest.raises(EngineTerminatedError):
            await popen_cb([sys.executable, "-c", "import sys; sys.exit(5)"])
        with pytest.raises(EngineTerminatedError):
            await popen_cb([str(tmp_path / "no-such-engine")])
        with pytest.raises(EngineTerminatedError):
            await connect_cb("127.0.0.1", _closed_port())

    run(main)


def _closed_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
