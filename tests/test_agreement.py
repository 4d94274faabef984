"""The agreement indices on hand-made cases with known L, H and ties, and on a small PDN."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine import core
from engine.evaluators import DEFAULT, MATERIAL
from engine.learners import agreement, book_data

SMALL = Path(__file__).resolve().parent / "data" / "book_small.pdn"


def synthetic(counts: list[int], book: list[int], games: list[int] | None = None) -> book_data.BookPositions:
    """Book positions with only the move counts and book indices filled in (for scores given by hand)."""
    n = len(counts)
    start = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=start[1:])
    m = int(start[-1])
    return book_data.BookPositions(
        pos=np.zeros((n, 5), np.uint32), parent=np.zeros((n, 5), np.uint32),
        has_parent=np.zeros(n, bool), ply=np.zeros(n, np.int32),
        game=np.asarray(games or list(range(1, n + 1)), np.int32), book=np.asarray(book, np.int32),
        start=start, move_from=np.ones(m, np.uint8), move_to=np.full(m, 5, np.uint8),
        move_caps=np.zeros(m, np.uint32), move_flags=np.zeros(m, np.uint8),
    )


def test_known_counts_both_tie_rules_d_and_ranks() -> None:
    # Position A: book scores 5; alternatives 3 (lower), 5 (tie), 7 (higher).
    # Position B: book scores 9; alternatives 1 and 2 (both lower).
    pos = synthetic([4, 3], [0, 2])
    scores = np.array([5, 3, 5, 7, 1, 2, 9], dtype=float)
    per = agreement.compare(scores, pos)
    assert per.lower.tolist() == [1, 2] and per.higher.tolist() == [1, 0] and per.ties.tolist() == [1, 0]
    a = agreement.measure_scores(scores, pos, bootstrap=0)
    assert (a.L, a.H, a.T) == (3, 1, 1)
    assert a.c_samuel == pytest.approx((3 - 1) / (3 + 1))  # ties count for neither
    assert a.c_griffith == pytest.approx((3 - 2) / (3 + 2))  # a tie counts as higher
    assert a.d == pytest.approx(0.5)  # only B has the book move strictly above all
    assert a.d_weak == pytest.approx(0.5)  # A has one alternative above
    assert a.top1 == pytest.approx(0.5)
    assert a.mean_rank == pytest.approx((2.5 + 1) / 2)  # A: 1 + 1 higher + half of 1 tie
    assert a.percentile == pytest.approx(((1 + 0.5) / 3 + 0) / 2)
    assert a.tie_rate == pytest.approx(1 / 5)


def test_all_ties() -> None:
    pos = synthetic([3, 5], [1, 4])
    a = agreement.measure_scores(np.zeros(8), pos, bootstrap=0)
    assert a.c_samuel == 0.0 and a.c_griffith == -1.0
    assert a.d == 0.0 and a.d_weak == 1.0
    assert a.top1 == pytest.approx((1 / 3 + 1 / 5) / 2)
    assert a.mean_rank == pytest.approx((2 + 3) / 2)
    assert a.tie_rate == 1.0


def test_perfect_and_worst() -> None:
    pos = synthetic([3, 2], [2, 0])
    best = agreement.measure_scores(np.array([0, 1, 5, 9, 1.0]), pos, bootstrap=0)
    assert best.c_samuel == best.c_griffith == 1.0 and best.d == 1.0 and best.mean_rank == 1.0
    worst = agreement.measure_scores(np.array([4, 3, 1, 0, 1.0]), pos, bootstrap=0)
    assert worst.c_samuel == worst.c_griffith == -1.0 and worst.d == 0.0 and worst.percentile == 1.0


def test_random_tie_break_is_seeded_and_keeps_orders() -> None:
    pos = synthetic([4] * 50, [0] * 50, games=[k // 5 + 1 for k in range(50)])
    rng = np.random.default_rng(3)
    scores = rng.integers(0, 3, size=200).astype(float)
    r1 = agreement.measure_scores(scores, pos, tie_break="random", seed=7, bootstrap=200)
    r2 = agreement.measure_scores(scores, pos, tie_break="random", seed=7, bootstrap=200)
    assert r1 == r2 and r1.T == 0 and r1.c_samuel == r1.c_griffith
    plain = agreement.compare(scores, pos)
    jittered = agreement.compare(agreement.jitter(scores, 7), pos)
    # strict orders survive; each tie becomes lower or higher
    assert (jittered.lower >= plain.lower).all() and (jittered.higher >= plain.higher).all()
    assert (jittered.lower + jittered.higher == plain.lower + plain.higher + plain.ties).all()
    assert r1.c_samuel_ci[0] <= r1.c_samuel <= r1.c_samuel_ci[1]


@pytest.fixture(scope="module")
def small() -> book_data.BookPositions:
    return book_data.extract(SMALL)


def test_static_scores_are_minus_the_childs_score(small: book_data.BookPositions) -> None:
    s = agreement.static_scores(DEFAULT, small)
    for j in range(0, small.num_moves, 7):
        i = int(small.owner[j])
        assert s[j] == -core.evaluate(small.child_raw(j), DEFAULT.spec, small.raw(i), int(small.ply[i]) + 1)


def test_static_scores_build_one_evaluator_buffer_a_chunk(
    small: book_data.BookPositions, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine.core import evaluation

    builds = []
    real = evaluation._new_eval
    monkeypatch.setattr(evaluation, "_new_eval", lambda spec: builds.append(1) or real(spec))
    monkeypatch.setattr(agreement, "STATIC_CHUNK", 10)
    s = agreement.static_scores(DEFAULT, small)
    assert len(builds) == -(-len(small) // 10)  # not one a child: a network's buffer costs ms
    for j in range(small.num_moves):
        i = int(small.owner[j])
        assert s[j] == -core.evaluate(small.child_raw(j), DEFAULT.spec, small.raw(i), int(small.ply[i]) + 1)


def test_material_on_book_games_is_mostly_ties(small: book_data.BookPositions) -> None:
    a = agreement.measure(MATERIAL, small, seed=1, bootstrap=100)
    assert a.tie_rate > 0.8 and a.c_griffith < -0.5
    assert a.positions == len(small) and a.games == 9


def test_search_scores_at_depth_one(small: book_data.BookPositions) -> None:
    few = small.head(4)
    s = agreement.scores(MATERIAL, few, depth=1)
    assert s.shape == (few.num_moves,)
    a = agreement.measure_scores(s, few, depth=1, bootstrap=0)
    assert a.depth == 1 and a.positions == 4
    with pytest.raises(ValueError):
        agreement.scores(MATERIAL, few, depth=-1)


def test_held_out_positions_seen_in_training_are_told_apart() -> None:
    data = book_data.load(Path(__file__).resolve().parent / "data" / "oca_first60.pdn")
    train, test = data.split("train"), data.split("test")
    seen = book_data.seen_in(test, train)
    assert 0 < seen.sum() < len(test)  # the openings repeat; the rest does not
    train_keys = {tuple(row) for row in train.pos.tolist()}
    assert all((tuple(row) in train_keys) == bool(s) for row, s in zip(test.pos.tolist(), seen, strict=True))
    s = agreement.scores(DEFAULT, test)
    parts = agreement.breakdown(s, test, seen, bootstrap=0)
    assert parts["seen"].positions + parts["unseen"].positions == parts["all"].positions == len(test)
    assert parts["seen"].L + parts["unseen"].L == parts["all"].L
    whole = agreement.measure_scores(s, test, bootstrap=0)
    assert whole.c_samuel == parts["all"].c_samuel
