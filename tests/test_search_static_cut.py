"""The static-score cut of quiet nodes (RFP_DEPTH in csrc/search_pvs.c, issue 32) never scores a side
without a move statically: that side has lost, whatever its material says."""

from __future__ import annotations

import pytest

from engine.board import Board
from engine.evaluators import by_name
from engine.limits import Limit
from engine.search import Mode, Searcher

# Found by comparing builds with and without the guard over random positions: without it, the
# cut scored a blocked side by its material at depth 8, and the win (or loss) was missed.  They were
# found with the network of 2026-11-28, so they are searched with it (frozen as default-2026-12): the
# later default orders the second differently, and a late-move reduction then puts the loss at
# depth 10 instead of 8 (a search's horizon, not the guard).
BLOCKED = [
    ("B:W27,18:B4,16,1,15,28", 1),  # Black wins in 7 plies (15x22 first)
    ("B:W30,32,17,21,13:B20,1", -1),  # Black loses in 8 plies
]


@pytest.mark.parametrize(("fen", "sign"), BLOCKED)
def test_a_blocked_side_is_lost_not_scored(fen: str, sign: int) -> None:
    searcher = Searcher(by_name("default-2026-12"), mode=Mode.PVS, hash_mb=16)
    searcher.new_game()
    score = searcher.search(Board(fen), Limit(depth=8)).info.score
    assert (score.is_win if sign > 0 else score.is_loss), score


def test_the_cut_is_on_by_default() -> None:
    searcher = Searcher(by_name("default"), mode=Mode.PVS, hash_mb=16)
    assert searcher.search(Board(), Limit(depth=8)).info.pvs.pruned > 0
