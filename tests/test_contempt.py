"""Contempt: a draw costs the root's side ``contempt`` centi-men in the modern search, and the
option reaches the search from every way of configuring an engine."""

from __future__ import annotations

import asyncio
import random

import pytest

from engine import Board, Limit, OptionError, Searcher
from engine.options import OptionValues
from matches.engines import parse_engine
from protocol.session_engine import SessionDefaults, SessionEngine
from samuel.cli import main as samuel_main


def quiet_walk(plies: int, seed: int = 0) -> Board:
    """King against king for ``plies`` reversible plies, never repeating a position and never
    leaving a capture on: the 40-move rule is then ``80 - plies`` plies away on every line."""
    rng = random.Random(seed)
    board = Board("B:WK26:BK7")
    seen = {board.hash}

    def extend(left: int) -> bool:
        if left == 0:
            return True
        moves = board.legal_moves
        rng.shuffle(moves)
        for m in moves:
            board.push(m)
            if board.hash not in seen and not any(x.captures for x in board.legal_moves):
                seen.add(board.hash)
                if extend(left - 1):
                    return True
                seen.discard(board.hash)
            board.pop()
        return False

    assert extend(plies)
    return board


@pytest.mark.parametrize("contempt", [0, 25, -25, 100])
def test_a_draw_costs_the_roots_side_the_contempt(contempt: int) -> None:
    board = quiet_walk(79)  # every line ends by the 40-move rule at ply 1
    assert board.quiet_plies == 79 and not board.is_game_over()
    result = Searcher(contempt=contempt, hash_mb=4).search(board, Limit(depth=6))
    assert result.info.score.value == -contempt
    # Ten plies from the rule, a deep search sees every line drawn as well.
    deep = Searcher(contempt=contempt, hash_mb=4).search(quiet_walk(70), Limit(depth=14))
    assert deep.info.score.value == -contempt


def test_contempt_is_checked_everywhere() -> None:
    from engine.options import TABLE
    from engine.search import DEFAULT_CONTEMPT

    assert DEFAULT_CONTEMPT == TABLE["contempt"].default == 0  # one default, the table's
    with pytest.raises(OptionError, match=r"contempt=101 is out of range \(-100\.\.100\)"):
        Searcher(contempt=101, hash_mb=1)
    s = Searcher(hash_mb=1)
    assert s.contempt == 0
    s.contempt = -40
    assert s.contempt == -40
    o = OptionValues()
    assert o["contempt"] == 0 and o.set("contempt", "15") == 15 and o.contempt == 15
    with pytest.raises(OptionError, match="contempt"):
        o.set("contempt", "500")
    spec = parse_engine(["name=c", "contempt=20"])
    assert dict(spec.options)["contempt"] == "20"
    with pytest.raises(ValueError, match=r"contempt=300 is out of range \(-100..100\)"):
        parse_engine(["contempt=300"])
    with pytest.raises(ValueError, match="not a whole number"):
        parse_engine(["contempt=lots"])
    with pytest.raises(SystemExit):
        samuel_main(["analyse", "--contempt", "200", "--depth", "2"])


def test_a_session_passes_the_contempt_to_its_searcher() -> None:
    board = quiet_walk(79)

    async def main() -> None:
        session = SessionEngine(SessionDefaults(options=OptionValues(hash=1, contempt=30)))
        try:
            assert (await session.search(board, Limit(depth=4))).info.score.value == -30
            session.set_option("contempt", "-10")
            assert (await session.search(board, Limit(depth=4))).info.score.value == 10
        finally:
            await session.close()

    asyncio.run(main())
