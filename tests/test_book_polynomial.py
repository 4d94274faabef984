"""Samuel's book-trained polynomial: L/H counting, power-of-two coefficients, exact batch scorer, CLI."""

from __future__ import annotations

import numpy as np
import pytest
from book_scoring import c_scores

from engine import core, samuel_terms
from engine.learners import agreement, book_data, book_polynomial
from engine.learners.book_polynomial import TERM_NAMES


def _counts(pairs: dict[str, tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    lower = np.zeros(len(TERM_NAMES), dtype=np.int64)
    higher = np.zeros(len(TERM_NAMES), dtype=np.int64)
    for name, (lo, hi) in pairs.items():
        i = TERM_NAMES.index(name)
        lower[i], higher[i] = lo, hi
    return lower, higher


def test_coefficients_from_hand_made_counts() -> None:
    lower, higher = _counts({
        "DENY": (90, 10),   # C = +0.8 -> the largest: 2**18
        "MOB": (30, 70),    # C = -0.4 -> -2**9
        "KCENT": (60, 40),  # C = +0.2 -> 2**round(4.5) = 2**4 (numpy rounds half to even)
        "CENT": (5, 5),     # C = 0 -> left out
        "RECAP": (100, 0),  # excluded (EXCH again)
        "PADV": (100, 0),   # never fitted
    })
    c = book_polynomial.correlations(lower, higher)
    assert c[TERM_NAMES.index("DENY")] == pytest.approx(0.8)
    coefs = book_polynomial.coefficients_from_counts(lower, higher)
    assert coefs == {"DENY": 2**18, "MOB": -(2**9), "KCENT": 2**4}
    assert book_polynomial.coefficients_from_counts(lower, higher, max_terms=1) == {"DENY": 2**18}
    assert book_polynomial.coefficients_from_counts(np.zeros(39), np.zeros(39)) == {}


def test_counting_on_a_hand_made_set() -> None:
    # terms are for the side to move in the child; the mover sees -term
    values = -np.array([[3, 1], [1, 1], [5, 0], [0, 2], [2, 2]])
    positions = book_data.BookPositions(
        pos=np.zeros((2, 5), np.uint32), parent=np.zeros((2, 5), np.uint32), has_parent=np.zeros(2, bool),
        ply=np.zeros(2, np.int32), game=np.ones(2, np.int32), book=np.array([0, 1], np.int32),
        start=np.array([0, 3, 5]), move_from=np.zeros(5, np.uint8), move_to=np.zeros(5, np.uint8),
        move_caps=np.zeros(5, np.uint32), move_flags=np.zeros(5, np.uint8))
    lower, higher = book_polynomial.lower_higher(values, positions)
    # position 0, book v = (-3, -1): alternatives (-1, -1) higher / equal, (-5, 0) lower / higher
    # position 1, book v = (-2, -2): alternative (0, -2) higher / equal
    assert lower.tolist() == [1, 0] and higher.tolist() == [2, 1]


def test_train_and_exact_batch_scorer(oca_positions: book_data.BookPositions) -> None:
    ev = book_polynomial.train(oca_positions.select(oca_positions.game % 2 == 1))
    assert ev.spec.kind == core.EVAL_SAMUEL
    assert ev.spec.weights[0] == samuel_terms.PADV_WEIGHT
    terms = ev.meta["terms"]
    assert 0 < len(terms) <= 16 and "RECAP" not in terms and "PADV" not in terms
    assert max(abs(v) for v in terms.values()) == 2**18
    assert all(abs(v) & (abs(v) - 1) == 0 for v in terms.values())  # powers of two
    test = oca_positions.select(oca_positions.game % 2 == 0)
    assert test.num_moves > 2000
    for e in (ev, samuel_terms.SAMUEL_1959):
        fast = book_polynomial.batch_scores(e, test)
        ref = c_scores(e, test)
        assert np.array_equal(fast, ref)
    assert agreement.measure(ev, test, bootstrap=0).c_samuel > 0.1
