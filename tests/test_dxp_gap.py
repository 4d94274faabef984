"""The gap DXP keeps between two messages is not charged to an engine's move.

Both ends keep ``MESSAGE_GAP`` between two messages of theirs that the other side may not
have read in between (pydraughts reads two messages that arrive together as one).  A
message that answers ours shows it was read, and the next goes at once: the time a match
measures for a move (a ``DxpEngine.play``) is the follower's thinking, not a gap.  The
gaps here are made long, so a move held back by one is unmistakable; without one, a move
takes a fraction of a second.
"""

from __future__ import annotations

import asyncio
import random

import pytest
from test_dxp_client import FAST, connect, follower, listening

from engine.board import Board
from protocol import dxp_session
from protocol.client import dxp as client_dxp

pytestmark = pytest.mark.timeout(300)

GAP = 3.0
"""Seconds: a hang-sized gap, which a move without one (a 0.02 s search) never takes."""


@pytest.fixture(autouse=True)
def long_gaps(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dxp_session, "MESSAGE_GAP", GAP)
    monkeypatch.setattr(client_dxp, "MESSAGE_GAP", GAP)
    # A GAMEEND of ours that crossed the follower's MOVE is confirmed after its gap (outside any move).
    monkeypatch.setattr(client_dxp, "ACK_TIMEOUT", 60.0)


def test_moves_answered_at_once_and_new_games_pay_no_gap() -> None:
    async def main() -> None:
        loop = asyncio.get_running_loop()
        async with listening(follower()) as port:
            engine = await connect(port)
            for game in range(2):  # the second GAMEREQ follows the first game's GAMEEND exchange
                rng = random.Random(game)
                board = Board()
                board.push(rng.choice(board.legal_moves))  # our first move, at once: the follower is second
                for ply in range(6):
                    t0 = loop.time()
                    # GAMEREQ, GAMEACC and our MOVE at first; then our MOVE right after the follower's
                    board.push((await engine.play(board, FAST)).move)
                    took = loop.time() - t0
                    assert took < GAP, f"game {game + 1}, follower move {ply + 1}: {took:.2f} s"
                    if board.outcome() is not None:
                        break
                    board.push(rng.choice(board.legal_moves))
                await engine.end_game()
            await engine.quit()

    asyncio.run(main())
