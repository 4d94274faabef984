"""Faulting the transposition table in before the clock starts (``Searcher.prepare_table``, done by
``new_game`` and ``set_hash``) keeps what the table holds and changes no search."""

from __future__ import annotations

from engine import Board, Limit, Searcher


def _nodes(searcher: Searcher, depth: int = 9) -> int:
    return searcher.search(Board(), Limit(depth=depth)).info.nodes


def test_prepare_keeps_the_tables_contents() -> None:
    plain, prepared = Searcher(hash_mb=4), Searcher(hash_mb=4)
    first = _nodes(plain)
    assert _nodes(prepared) == first
    prepared.prepare_table()
    again = _nodes(plain)
    assert again < first  # the table's entries cut the repeated search short ...
    assert _nodes(prepared) == again  # ... and preparing lost none of them


def test_new_game_still_forgets_and_a_new_table_searches_the_same() -> None:
    s = Searcher(hash_mb=4)
    first = _nodes(s)
    s.new_game()
    assert _nodes(s) == first
    s.set_hash(8)  # a new, prepared table (history and killers stay until a new game)
    s.new_game()
    fresh = Searcher(hash_mb=8)
    assert _nodes(s) == _nodes(fresh)
