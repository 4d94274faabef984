"""Our HubEngine client against ``samuel hub``, and against fake engines that misbehave."""

from __future__ import annotations

import asyncio
import sys
import textwrap
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from engine.board import Board
from engine.errors import GameOverError
from engine.limits import Limit
from engine.move import Move
from protocol.client.errors import (
    EngineProtocolError,
    EngineTerminatedError,
    EngineTimeoutError,
    IllegalEngineMoveError,
)
from protocol.client.hub import HubEngine, popen_hub

ROOT = Path(__file__).resolve().parent.parent
SAMUEL = [sys.executable, "-m", "samuel.cli", "hub", "--book", "none"]
"""Without the opening book: these tests need searches (pondering, info lines) from the start."""


HANG = 600.0
"""Seconds for anything that must succeed: only a hang gets there (a busy machine must not fail a test)."""


def run(fn: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(asyncio.wait_for(fn(), HANG))  # type: ignore[arg-type]


async def samuel(**kwargs: Any) -> HubEngine:
    kwargs.setdefault("grace", HANG)  # a move answered late on a busy machine is not a hang
    return await popen_hub(SAMUEL, cwd=str(ROOT), **kwargs)


def test_handshake_and_a_whole_game_both_sides() -> None:
    async def main() -> None:
        engine = await samuel()
        try:
            assert engine.id["name"] == "samuel"
            assert engine.params["variant"]["values"] == "english"
            assert set(engine.params) >= {"evaluator", "mode", "hash", "backend", "frame"}
            await engine.ping()
            await engine.new_game()
            board = Board()
            while board.outcome() is None and len(board.move_stack) < 150:
                result = await engine.play(board, Limit(movetime=0.02))
                assert board.is_legal(result.move)
                board.push(result.move)
            assert board.move_stack
        finally:
            await engine.quit()
        assert engine.returncode == 0

    run(main)


def test_analyse_streams_info() -> None:
    async def main() -> None:
        engine = await samuel()
        try:
            board = Board()
            board.push_many(["11-15", "23-19"])
            seen: list[dict[str, Any]] = []
            info = await engine.analyse(board, Limit(depth=6), on_info=seen.append)
            # The engine thins its info lines (one per 0.1 s); the final depth always comes.
            depths = [i["depth"] for i in seen]
            assert depths == sorted(set(depths)) and depths[-1] == 6
            for i in seen:
                assert isinstance(i["score"], float)
                assert i["pv"] and all(isinstance(m, Move) for m in i["pv"])
                b = board.copy()
                for m in i["pv"]:
                    b.push(m)  # the PV replays legally
            assert info["depth"] == 6 and board.is_legal(info["move"])
        finally:
            await engine.quit()

    run(main)


def test_configure_options_and_rejections() -> None:
    async def main() -> None:
        engine = await samuel()
        try:
            await engine.configure({"hash": 8, "mode": "samuel", "evaluator": "material", "frame": "literal"})
            result = await engine.play(Board(), Limit(depth=3))
            assert Board().is_legal(result.move)
            with pytest.raises(EngineProtocolError, match="is not a whole number"):
                await engine.configure({"hash": "lots"})
            await engine.ping()
            with pytest.raises(GameOverError):  # checked before asking the engine
                await engine.analyse(Board("B:W5,6,10:B1"), Limit(depth=2))
        except Exception:
            await engine.quit()
            raise
        await engine.ping()
        await engine.quit()

    run(main)


def test_pondering_hits_and_misses() -> None:
    """A reply that is the pondered move turns the ponder search into the move (``ponder-hit``); any
    other reply stops it and a new search starts.  Every move played is legal either way."""
    sent: list[str] = []
    hits = misses = 0

    async def main() -> None:
        nonlocal hits, misses
        engine = await samuel()
        original = engine._send

        async def recording_send(text: str) -> None:
            sent.append(text)
            await original(text)

        engine._send = recording_send  # type: ignore[method-assign]
        try:
            board = Board()
            expected = None
            # The game depends on the clock (and a forced reply is a hit whatever was meant; a loaded
            # machine's short searches may name no reply at all), so play on, a new game whenever one
            # ends, until both have happened twice.
            for ply in range(120):
                if hits >= 2 and misses >= 2:
                    break
                before = len(sent)
                result = await engine.play(board, Limit(movetime=0.03), ponder=True)
                commands = sent[before:]
                if expected is not None:  # the last call left a ponder search running
                    if board.move_stack[-1] == expected:  # its search becomes the move: no new one
                        assert commands[0] == "ponder-hit" and "go think" not in commands, commands
                        hits += 1
                    else:
                        assert commands[0] == "stop" and "go think" in commands, commands
                        misses += 1
                assert result.move in board.legal_moves
                board.push(result.move)
                if board.outcome() is not None:
                    board, expected = Board(), None
                    continue
                assert result.ponder is None or result.ponder in board.legal_moves
                expected = result.ponder
                # Alternate: reply with the expected move (a ponder hit) or another one (a miss).
                if ply % 2 == 0 and result.ponder:
                    reply = result.ponder
                else:
                    reply = next((m for m in board.legal_moves if m != result.ponder), board.legal_moves[0])
                board.push(reply)
                if board.outcome() is not None:
                    board, expected = Board(), None
        finally:
            await engine.quit()

    run(main)
    assert hits >= 2 and misses >= 2, (hits, misses)


def test_sync_wrapper() -> None:
    from protocol.client.simple import SimpleEngine

    with SimpleEngine.popen_hub(SAMUEL, cwd=str(ROOT), timeout=HANG) as engine:
        assert engine.play(Board(), Limit(nodes=500)).move in Board().legal_moves


# ---- fake engines


FAKE = '''
import sys
mode = sys.argv[1]
def out(s):
    sys.stdout.write(s + "\\n"); sys.stdout.flush()
for line in sys.stdin:
    cmd = line.split()[0] if line.split() else ""
    if cmd == "hub":
        out("id name=fake version=1"); out("param name=variant value=english type=enum values=english")
        out("wait")
    elif cmd == "init":
        out("ready")
    elif cmd == "ping":
        out("pong")
    elif cmd == "go":
        if mode == "crash":
            sys.exit(3)
        if mode == "illegal":
            out("info depth=1 score=0.00 pv=\\"1-32\\"")
            out("done move=1-32")
        if mode == "error":
            out("error message=\\"cannot think today\\"")
        # "hang": say nothing, ever
    elif cmd == "quit" and mode != "hang":
        break
'''


async def fake(tmp_path: Path, mode: str) -> HubEngine:
    script = tmp_path / "fake_hub.py"
    script.write_text(textwrap.dedent(FAKE))
    # Only the hang is for the client's grace to find; the others must not race it when busy.
    engine = await popen_hub([sys.executable, str(script), mode], grace=0.5 if mode == "hang" else HANG)
    assert engine.name == "fake"
    return engine


@pytest.mark.parametrize("mode, error", [
    ("crash", EngineTerminatedError),
    ("illegal", IllegalEngineMoveError),
    ("hang", EngineTimeoutError),
    ("error", EngineProtocolError),
])
def test_misbehaving_engines_raise_typed_errors(tmp_path: Path, mode: str, error: type[Exception]) -> None:
    async def main() -> None:
        engine = await fake(tmp_path, mode)
        try:
            board = Board()
            board.push_pdn("11-15")
            with pytest.raises(error):
                await engine.play(board, Limit(movetime=0.05))
        finally:
            await engine.quit()
        assert engine.channel.process is not None and engine.channel.process.returncode is not None

    run(main)
