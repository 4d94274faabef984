"""Our DXP initiator (DxpEngine, ``samuel dxp connect``) against our follower and fakes."""

from __future__ import annotations

import asyncio
import contextlib
import random
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from engine.board import Board
from engine.limits import Limit
from engine.options import OptionValues
from engine.pdn import read_games
from engine.types import BLACK, WHITE
from protocol import dxp_grammar as g
from protocol import dxp_session
from protocol.client import dxp as client_dxp
from protocol.client.dxp import DxpEngine, EngineGameEndError, connect_dxp
from protocol.client.errors import (
    EngineError,
    EngineProtocolError,
    EngineTerminatedError,
    EngineTimeoutError,
    IllegalEngineMoveError,
)
from protocol.context import ServerSettings
from protocol.dxp_session import end_reason, serve_dxp
from protocol.framing import stream_limit
from protocol.session_engine import SessionDefaults
from samuel.cli import main as cli_main

pytestmark = pytest.mark.timeout(120)

FAST = Limit(movetime=0.02)
Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


@pytest.fixture(autouse=True)
def fast_gaps(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dxp_session, "MESSAGE_GAP", 0.005)
    monkeypatch.setattr(client_dxp, "MESSAGE_GAP", 0.005)


def server_settings() -> ServerSettings:
    return ServerSettings(dxp_movetime=0.02, defaults=SessionDefaults(options=OptionValues(hash=1)),
                          idle_timeout=60.0)


@contextlib.asynccontextmanager
async def listening(handler: Handler) -> AsyncIterator[int]:
    """``handler`` on an ephemeral loopback port in this loop; yields the port."""
    tasks: set[asyncio.Task[Any]] = set()

    async def wrapped(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        tasks.add(task)
        try:
            await handler(r, w)
        except asyncio.CancelledError:
            pass
        finally:
            tasks.discard(task)
            w.close()

    srv = await asyncio.start_server(wrapped, "127.0.0.1", 0, limit=stream_limit(127))
    try:
        yield srv.sockets[0].getsockname()[1]
    finally:
        srv.close()
        if tasks:
            await asyncio.wait(list(tasks), timeout=2)
        for t in list(tasks):
            t.cancel()
        if tasks:
            await asyncio.wait(list(tasks), timeout=10)


def follower() -> Handler:
    st = server_settings()
    return lambda r, w: serve_dxp(r, w, st)


async def connect(port: int) -> DxpEngine:
    engine = await connect_dxp("127.0.0.1", port, minutes=0)
    engine.grace = 5.0
    return engine


# ---- against our own follower ----


async def play_one(engine: DxpEngine, board: Board, follower_color: int, rng: random.Random,
                   cap: int = 120) -> str:
    """Drive a game; the initiator's side plays at random.  Returns how it ended."""
    while len(board.move_stack) < cap:
        if board.turn == follower_color:
            try:
                board.push((await engine.play(board, FAST)).move)
            except EngineGameEndError as exc:
                assert board.outcome() is not None
                return f"follower ended: reason {exc.reason}"
        else:
            reason = end_reason(board)
            if reason is not None:
                await engine.end_game(reason)
                return f"we ended: reason {reason}"
            board.push(rng.choice(board.legal_moves))
    await engine.end_game()
    return "cap"


def test_full_game_both_colours() -> None:
    async def main() -> None:
        async with listening(follower()) as port:
            engine = await connect(port)
            for follower_color in (BLACK, WHITE):
                board = Board()
                how = await play_one(engine, board, follower_color, random.Random(follower_color))
                assert how != "cap" or len(board.move_stack) == 120
                assert engine.game is None  # the GAMEEND exchange is over
            assert engine.name == "samuel"
            await engine.quit()

    asyncio.run(main())


def test_board_that_does_not_continue_starts_a_new_game() -> None:
    async def main() -> None:
        async with listening(follower()) as port:
            engine = await connect(port)
            a = Board()
            a.push_pdn("11-15")
            a.push((await engine.play(a, FAST)).move)
            # An unrelated board: GAMEEND for the old game, a fresh GAMEREQ for this one.
            b = Board("W:W17,22,23,24,25,26,27,28,29,30,31,32:B1,10,11,12,13,2,3,4,6,7,8,9")
            b.push((await engine.play(b, FAST)).move)
            # A history with moves of both sides: started just before its last move.
            c = Board()
            c.push_many(["9-13", "22-18", "10-15"])
            c.push((await engine.play(c, FAST)).move)
            c.push(c.legal_moves[0])
            c.push((await engine.play(c, FAST)).move)  # and it goes on from there
            assert len(c.move_stack) == 6
            await engine.quit()

    asyncio.run(main())


def test_no_options_no_analysis() -> None:
    async def main() -> None:
        async with listening(follower()) as port:
            engine = await connect(port)
            await engine.configure({})
            with pytest.raises(EngineError, match="no engine options"):
                await engine.configure({"hash": 16})
            with pytest.raises(EngineError, match="no analysis"):
                await engine.analyse(Board(), FAST)
            await engine.ping()
            await engine.quit()

    asyncio.run(main())


def test_cli_connect(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ready = threading.Event()
    box: dict[str, Any] = {}
    loop = asyncio.new_event_loop()

    async def serve() -> None:
        srv = await asyncio.start_server(follower(), "127.0.0.1", 0, limit=stream_limit(127))
        box["port"] = srv.sockets[0].getsockname()[1]
        box["srv"] = srv
        ready.set()

    t = threading.Thread(target=loop.run_forever, daemon=True)
    t.start()
    asyncio.run_coroutine_threadsafe(serve(), loop).result(10)
    try:
        out = tmp_path / "games.pdn"
        rc = cli_main(["dxp", "connect", "127.0.0.1", "--port", str(box["port"]), "--games", "2",
                       "--movetime", "0.01", "--max-plies", "30", "--hash", "1", "--pdn", str(out)])
        assert rc == 0
        lines = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith(("game ", "score:"))]
        opponent = f"127.0.0.1:{box['port']}"
        assert lines[0].startswith(f"game 1: samuel (black) vs {opponent}: ")
        assert lines[1].startswith(f"game 2: samuel (white) vs {opponent}: ")
        assert lines[2].startswith("score: samuel ")
        games = read_games(out.read_text())
        assert len(games) == 2 and all(g.ply_count <= 30 for g in games)

        # From a file of openings: each one in a colour-reversed pair, from that position.
        fen = "W:W17,22,23,24,25,26,27,28,29,30,31,32:B1,10,11,12,13,2,3,4,6,7,8,9"
        deck = tmp_path / "openings.fen"
        deck.write_text(f"# one opening\n{fen}\n")
        rc = cli_main(["dxp", "connect", "127.0.0.1", "--port", str(box["port"]), "--games", "2",
                       "--movetime", "0.01", "--max-plies", "20", "--hash", "1", "--openings", str(deck),
                       "--pdn", str(out)])
        assert rc == 0
        games = read_games(out.read_text())
        assert len(games) == 2 and all(Board(g.initial_fen).fen() == Board(fen).fen() for g in games)
    finally:
        async def stop() -> None:
            box["srv"].close()
            await asyncio.sleep(0.2)  # the sessions see the client's end of stream

        asyncio.run_coroutine_threadsafe(stop(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        t.join(10)
        loop.close()


# ---- fake followers: typed errors ----


async def read_msg(r: asyncio.StreamReader) -> str:
    return (await r.readuntil(b"\0"))[:-1].decode()


async def send_msg(w: asyncio.StreamWriter, text: str) -> None:
    w.write(text.encode() + b"\0")
    await w.drain()


def fake(after_accept: Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]],
         code: int = 0) -> Handler:
    async def handler(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        assert (await read_msg(r)).startswith("R01")
        await send_msg(w, g.format_message(g.GameAcc("Fake", code)))
        await after_accept(r, w)

    return handler


def run_fake(after_accept: Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]],
             error: type[Exception], match: str, code: int = 0, grace: float = 5.0) -> None:
    async def main() -> None:
        async with listening(fake(after_accept, code)) as port:
            engine = await connect(port)
            engine.grace = grace
            with pytest.raises(error, match=match):
                await engine.play(Board(), FAST)  # the follower plays Black, first
            await engine.close()

    asyncio.run(main())


def test_illegal_move_from_follower() -> None:
    async def illegal(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        await send_msg(w, "CI am about to cheat")
        await send_msg(w, "M0000111800")
        await r.read()

    run_fake(illegal, IllegalEngineMoveError, "illegal move 11-18")


def test_follower_closes_the_socket() -> None:
    async def hang_up(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        w.close()

    run_fake(hang_up, EngineTerminatedError, "closed")


def test_follower_hangs() -> None:
    async def silent(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        await r.read()

    run_fake(silent, EngineTimeoutError, "no answer", grace=0.2)


def test_follower_declines() -> None:
    async def nothing(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        await r.read()

    run_fake(nothing, EngineProtocolError, "declined the game .code 2", code=2)


def test_follower_sends_garbage() -> None:
    async def garbage(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        await send_msg(w, "M12")
        await r.read()

    run_fake(garbage, EngineProtocolError, "bad DXP message")


def test_follower_resigns() -> None:
    async def resign(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        await send_msg(w, "E10")
        assert await read_msg(r) == "E00"  # confirmed by the client
        await r.read()

    async def main() -> None:
        async with listening(fake(resign)) as port:
            engine = await connect(port)
            with pytest.raises(EngineGameEndError) as info:
                await engine.play(Board(), FAST)
            assert info.value.reason == g.REASON_I_LOSE
            assert engine.game is None
            await engine.quit()

    asyncio.run(main())
