"""``samuel match`` engines that ponder (cutechess-cli's ``ponder``): a Hub engine through
``go ponder``/``ponder-hit``, an in-process one through a background search; a hit turns the ponder
search into the move, a miss stops it and a new search starts.  Waits are on events and results,
with a timeout only a hang reaches."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from engine.board import Board
from engine.limits import Limit
from engine.move import Move
from matches.engines import ClientPlayer, EngineSpec, InProcessPlayer, make_player, parse_engine
from matches.player import Player
from protocol.client.hub import clock_after_move

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
HANG = 600.0

pytestmark = pytest.mark.timeout(int(HANG) + 60)


def run(fn: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(asyncio.wait_for(fn(), HANG))  # type: ignore[arg-type]


def test_ponder_is_an_engine_setting() -> None:
    assert parse_engine(["proto=hub", "cmd=x", "ponder"]).ponder
    assert parse_engine(["proto=hub", "cmd=x", "ponder=true"]).ponder
    assert not parse_engine(["proto=hub", "cmd=x", "ponder=off"]).ponder
    assert not parse_engine(["proto=hub", "cmd=x"]).ponder
    spec = parse_engine(["hash=1", "ponder"])
    assert spec.ponder and EngineSpec.from_dict(spec.to_dict()) == spec
    with pytest.raises(ValueError, match="a cb engine cannot ponder"):
        parse_engine(["proto=cb", "cmd=x", "ponder"])
    with pytest.raises(ValueError, match="a dxp engine cannot ponder"):
        parse_engine(["proto=dxp", "tcp=127.0.0.1:27531", "ponder"])
    with pytest.raises(ValueError, match="ponder= must be true or false, got 'sometimes'"):
        parse_engine(["proto=hub", "cmd=x", "ponder=sometimes"])


def test_the_ponder_level_is_the_clock_after_the_move() -> None:
    limit = Limit(time=10.0, inc=0.1)
    assert clock_after_move(limit, 0.4) == Limit(time=9.7, inc=0.1)
    assert clock_after_move(Limit(time=0.2, inc=0.1), 0.5) == Limit(time=0.1, inc=0.1)
    assert clock_after_move(Limit(time=60.0, moves_to_go=40), 1.0) == Limit(time=59.0, moves_to_go=39)
    # a period's last move: its refill is unknown here, so the engine plans on less
    assert clock_after_move(Limit(time=5.0, moves_to_go=1), 1.0) == Limit(time=4.0)
    assert clock_after_move(Limit(movetime=0.1), 0.1) == Limit(movetime=0.1)


async def _hits_and_misses(player: Player, limit: Limit,
                           pondering: Callable[[], Board | None]) -> tuple[int, int]:
    """Play both sides' moves through ``player`` as a referee would, answering the expected reply
    (a hit) and another move (a miss) in turn, until each has happened at least twice."""
    hits = misses = 0
    board = Board()
    await player.new_game()
    for ply in range(40):
        played = await player.play(board.copy(), limit, None)  # a hit or miss is settled here
        if hits >= 2 and misses >= 2:
            break
        assert board.is_legal(played.move)
        board.push(played.move)
        if board.outcome() is not None:
            break
        expected = pondering()
        if expected is None:
            reply: Move = board.legal_moves[0]
        else:  # the position pondered on is the one after the expected reply
            assert expected.move_stack[:-1] == board.move_stack
            predicted = expected.move_stack[-1]
            others = [m for m in board.legal_moves if m != predicted]
            if ply % 2 == 0 or not others:
                reply = predicted
                hits += 1
            else:
                reply = others[0]
                misses += 1
        board.push(reply)
        if board.outcome() is not None:
            break
    return hits, misses


def test_hub_engine_ponders_hit_and_miss() -> None:
    sent: list[str] = []

    async def main() -> None:
        spec = parse_engine(["proto=hub", f"cmd={PY} -m samuel hub --hash 1 --book none --egdb none",
                             f"dir={ROOT}", "ponder"])
        player = make_player(spec)
        assert isinstance(player, ClientPlayer)
        await player.start()
        proto = player.protocol
        assert proto is not None
        original = proto._send  # type: ignore[attr-defined]

        async def recording_send(text: str) -> None:
            sent.append(text)
            await original(text)

        proto._send = recording_send  # type: ignore[attr-defined]

        def pondering() -> Board | None:
            running = proto._ponder  # type: ignore[attr-defined]
            return running[0] if running is not None else None

        try:
            hits, misses = await _hits_and_misses(player, Limit(time=30.0, inc=0.1), pondering)
        finally:
            await player.close()
        assert hits >= 2 and misses >= 2, (hits, misses)

    run(main)
    # each hit was a ponder-hit with no new search; each miss a stop and a new search
    assert sent.count("ponder-hit") >= 2 and sent.count("stop") >= 2
    for i, line in enumerate(sent):
        if line == "ponder-hit":
            assert not sent[i + 1].startswith("go"), sent[i:i + 3]
        if line == "go ponder":  # its level: the clock after the move, below the move's own
            level = sent[i - 1]
            assert level.startswith("level") and "time=" in level
            assert float(level.split("time=")[1].split()[0]) < 30.0


def test_in_process_engine_ponders_hit_and_miss() -> None:
    async def main() -> None:
        player = make_player(parse_engine(["name=p", "hash=1", "book=none", "ponder"]))
        assert isinstance(player, InProcessPlayer)
        await player.start()

        def pondering() -> Board | None:
            running = player._ponder
            if running is None:
                return None
            assert not running[1].done()  # searching while the opponent thinks
            return running[0]

        try:
            hits, misses = await _hits_and_misses(player, Limit(time=30.0, inc=0.1), pondering)
        finally:  # an endless ponder search left running would keep the interpreter from exiting
            await player.close()
        assert not player.alive and player._ponder is None
        assert (player.ponder_hits, player.ponder_misses) == (hits, misses)
        assert hits >= 2 and misses >= 2, (hits, misses)

    run(main)
