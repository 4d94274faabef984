"""The refinement paper's tabulated function: index arithmetic, counting, C = Python, search, CLI."""

from __future__ import annotations

import numpy as np
import pytest
from book_scoring import SMALL_PDN as SMALL
from book_scoring import c_scores

from engine import core
from engine.board import Board
from engine.learners import agreement, book_data, material_scale, tabulated
from engine.learners.book_polynomial import TERM_NAMES, child_terms


@pytest.fixture(scope="module")
def small() -> book_data.BookPositions:
    return book_data.extract(SMALL)





def test_paper_worked_examples() -> None:
    assert tabulated.table_index([1, 0, 1, 0, 2]) == 92
    # The OCR reads "00201 ... is 13 base ten", but the scheme that gives 92 and 172 gives
    # 2 * 9 + 1 = 19 (13 would be 00111): an OCR or typing slip in the transcript.
    assert tabulated.table_index([0, 0, 2, 0, 1]) == 19
    assert tabulated.table_index([2, 0, 1, 0, 1]) == 172
    rows = np.array([[1, 0, 1, 0, 2], [0, 0, 2, 0, 1], [2, 2, 2, 2, 2]])
    assert tabulated.table_index(rows).tolist() == [92, 19, 242]


def test_reduction_is_the_movers_sign() -> None:
    # terms are for the side to move; the mover sees -term: negative -> 0, zero -> 1, positive -> 2
    assert tabulated.reduce_terms(np.array([[3, 0, -2]])).tolist() == [[0, 1, 2]]


def test_counting_on_a_hand_made_set() -> None:
    # two positions: (book, alt, alt) and (book, alt); columns are already reduced arguments
    signs = np.array([
        [2, 1, 1, 1, 1],
        [0, 1, 1, 1, 1],
        [2, 1, 1, 1, 1],
        [1, 1, 1, 1, 1],
        [0, 1, 1, 1, 1],
    ], dtype=np.int8)
    is_book = np.array([True, False, False, True, False])
    strong, weak = tabulated.counts(signs, is_book, [[0, 1, 2, 3, 4]])
    a, b, c = (tabulated.table_index(r) for r in ([2, 1, 1, 1, 1], [0, 1, 1, 1, 1], [1, 1, 1, 1, 1]))
    assert strong[0, a] == 1 and weak[0, a] == 1
    assert strong[0, b] == 0 and weak[0, b] == 2
    assert strong[0, c] == 1 and weak[0, c] == 0
    assert strong.sum() == 2 and weak.sum() == 3
    raw = tabulated.entries_from_counts(strong, weak, prior_weight=0)[0]
    assert raw[a] == 1.0 and raw[b] == 0.0 and raw[c] == 1.0  # S / W, and S where W = 0
    r0 = 2 / 3
    smooth = tabulated.entries_from_counts(strong, weak, prior_weight=2)[0]
    assert smooth[a] == pytest.approx((1 + 2 * r0) / (1 + 2))
    assert smooth[0] == pytest.approx(r0)  # never seen: the table's overall quotient


def test_c_equals_python(oca_positions: book_data.BookPositions) -> None:
    ev = tabulated.train(oca_positions.select(oca_positions.game % 2 == 1))
    test = oca_positions.select(oca_positions.game % 2 == 0)
    assert test.num_moves > 2000
    fast = tabulated.batch_scores(ev, test)
    ref = c_scores(ev, test)
    assert np.array_equal(fast, ref)
    weight, shift = ev.spec.data[3], ev.spec.data[4]
    assert weight == tabulated.MATERIAL_WEIGHT and shift > 0
    lo, hi = ev.meta["table_range"]
    assert (hi >> shift) - (lo >> shift) < material_scale.MAN * weight
    args, table = tabulated.unpack(ev)
    # the same tables without material (as data written before the material words): -x exactly
    bare = tabulated.evaluator_from_tables(args.tolist(), table / tabulated.ONE)
    assert bare.spec.data[3:8] == (0, 0, 0, 0, 0) and bare.spec.data[8:] == ev.spec.data[8:]
    bare_ref = c_scores(bare, test)
    assert np.array_equal(tabulated.batch_scores(bare, test), bare_ref)
    mat = book_data.material(test.children())
    assert np.array_equal(ref, np.floor(bare_ref / 2**shift) - weight * mat)
    assert agreement.measure(bare, test, bootstrap=0).c_samuel > 0.1
    assert args.shape == (8, 5) and table.shape == (8, 243)
    assert all(TERM_NAMES[i] != "RECAP" for i in args.ravel())
    assert agreement.measure(ev, test, bootstrap=0).c_samuel > 0.1


def test_no_parent_and_short_data() -> None:
    ev = tabulated.evaluator_from_tables([[0, 1, 2, 3, 4]] * 8, np.ones((8, 243)))
    raw = Board().raw
    assert core.evaluate(raw, ev.spec) == -8000  # every entry 1.0, parent stand-in used
    bad = core.EvalSpec(core.EVAL_TABULATED, data=(1, 8, 5))
    assert core.evaluate(raw, bad) == 0
    t = np.array([core.samuel_terms(raw)])
    assert tabulated.score_terms(ev, t).tolist() == [-8000]
    bad_shift = core.EvalSpec(core.EVAL_TABULATED, data=(1, 8, 5, 10, -1, *ev.spec.data[5:]))
    assert core.evaluate(raw, bad_shift) == 0


def test_material_dominates() -> None:
    # every entry the largest possible except one: the table part spans its whole range
    value = np.zeros((8, 243))
    value[:, 121] = 50.0
    ev = tabulated.evaluator_from_tables([[0, 1, 2, 3, 4]] * 8, value, material_weight=10)
    lo, hi = ev.meta["table_range"]
    assert (lo, hi) == (0, 8 * 50000) and (hi >> ev.spec.data[4]) < 1000
    up = Board("B:W21,22,25:B9,10,11,12").raw     # Black to move, a man up
    down = Board("W:W21,22,25:B9,10,11,12").raw   # the same board, White (a man down) to move
    assert core.evaluate(up, ev.spec) > 0 > core.evaluate(down, ev.spec)
    rows = np.array([[r.black_men, r.black_kings, r.white_men, r.white_kings, r.turn] for r in (up, down)],
                    dtype=np.uint32)
    t = np.array([core.samuel_terms(up), core.samuel_terms(down)])
    assert tabulated.score_terms(ev, t, rows).tolist() == [core.evaluate(r, ev.spec) for r in (up, down)]


def test_child_terms_cover_every_move(small: book_data.BookPositions) -> None:
    assert child_terms(small.head(2)).shape == (small.head(2).num_moves, 39)
