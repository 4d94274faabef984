"""An evaluator's words go to C once per evaluator and are shared (issue 32: a pattern network has
3.8 M of them); the shared copy never leaks into a pickled evaluator or changes a score."""

from __future__ import annotations

import pickle

from engine import Board, Limit, Searcher, core, evaluators


def test_the_c_words_are_made_once_and_shared() -> None:
    ev = evaluators.by_name("piece-net-t6-m75")
    first = ev.spec.c_data
    assert ev.spec.c_data is first and ev.spec.piecenet_code == 0
    a, b = Searcher(ev, hash_mb=1), Searcher(ev, hash_mb=1)
    assert ev.spec.c_data is first  # two engines, one copy
    board = Board("B:W18,24,27,28,K10,K15:B12,16,20,K22,K25,K29")
    score = core.evaluate(board.raw, ev.spec)
    assert ev.spec.c_data is first and core.evaluate(board.raw, ev.spec) == score
    ra, rb = (s.search(board, Limit(depth=7)) for s in (a, b))
    assert (ra.best, ra.info.nodes, ra.info.score) == (rb.best, rb.info.nodes, rb.info.score)


def test_a_pickled_spec_carries_no_c_words_and_scores_the_same() -> None:
    ev = evaluators.by_name("piece-net-t6-m75")
    _ = ev.spec.c_data, ev.spec.piecenet_code  # made, then sent (as to a worker process)
    copy = pickle.loads(pickle.dumps(ev.spec))
    assert copy == ev.spec and "c_data" not in vars(copy)
    board = Board()
    assert core.evaluate(board.raw, copy) == core.evaluate(board.raw, ev.spec)
    assert copy.c_data is not ev.spec.c_data


def test_a_packed_network_shares_one_object_per_value() -> None:
    """The default's 3.8 M words read from ``data_zlib``: one int object per distinct value."""
    data = evaluators.by_name("piece-net-r8-pat").spec.data
    assert len(data) > 3_000_000
    assert len({id(v) for v in data}) == len(set(data)) < 70_000
