"""The core's clocked search (optimum and maximum, csrc/search.c) on what needs no wall clock: a
single legal reply answers after one iteration, and a clock too long to matter leaves the search's
nodes as a depth-limited search's (the clock only decides when iterations stop)."""

from __future__ import annotations

from engine import Limit, Searcher
from engine.bench import random_positions
from engine.timeman import plan


def test_a_single_reply_answers_at_once() -> None:
    searcher = Searcher(hash_mb=1)
    forced = [b for b in random_positions(60, 32) if len(b.legal_moves) == 1]
    assert forced
    for board in forced:
        searcher.new_game()
        result = searcher.search(board, Limit(time=600.0, inc=5.0))
        assert result.best == board.legal_moves[0] and result.info.depth == 1


def test_a_long_clock_leaves_depth_searches_alone() -> None:
    searcher = Searcher(hash_mb=1)
    boards = [b for b in random_positions(12, 5) if len(b.legal_moves) > 1][:4]
    clock = Limit(depth=6, time=86_400.0)
    assert plan(clock).optimum_ms > 0  # the clocked path is the one taken
    for board in boards:
        searcher.new_game()
        plain = searcher.search(board, Limit(depth=6)).info
        searcher.new_game()
        timed = searcher.search(board, clock).info
        assert (timed.depth, timed.nodes, timed.pv) == (plain.depth, plain.nodes, plain.pv)


def test_an_empty_clock_still_gets_a_legal_move() -> None:
    searcher = Searcher(hash_mb=1)
    for board in random_positions(20, 11):
        for limit in (Limit(time=0.0), Limit(time=0.001, inc=0.0), Limit(time=0.03, moves_to_go=1)):
            result = searcher.search(board, limit)
            assert result.best in board.legal_moves
