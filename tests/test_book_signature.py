"""Samuel's signature tables: quantization, index arithmetic, A/D counting, C = Python, search, CLI."""

from __future__ import annotations

import numpy as np
import pytest
from book_scoring import c_scores

from engine import core, evaluators
from engine.board import Board
from engine.learners import agreement, book_data, material_scale
from engine.learners import signature_tables as sg
from engine.learners.book_polynomial import TERM_NAMES


def test_structure_uses_samuels_names_only() -> None:
    names = [n for g in sg.GROUPS for n in g]
    assert len(names) == 27 == len(set(names)) and len(sg.GROUPS) == 9
    assert all(n in TERM_NAMES for n in names) and "RECAP" not in names
    assert sg.L1_SIZE == 7 * 5 * 3 and sg.Q1**3 == sg.L2_SIZE


def test_term_quantization() -> None:
    v = np.array([-9, -3, -2, -1, 0, 1, 2, 3, 9])
    assert sg.quantize_term(v, 7, 1, 2).tolist() == [0, 0, 1, 2, 3, 4, 5, 6, 6]
    assert sg.quantize_term(v, 5, 2, 2).tolist() == [0, 0, 1, 1, 2, 3, 3, 4, 4]
    assert sg.quantize_term(v, 3, 1, 1).tolist() == [0, 0, 0, 0, 1, 2, 2, 2, 2]
    # thresholds: thirds of |v| over the nonzero values
    t1, t2 = sg.term_thresholds(np.array([0, 0, 1, -1, 1, 2, -2, 3, 4, -5, 6]), 7)
    assert (t1, t2) == (1, 3)
    assert sg.term_thresholds(np.array([1, 1, 1]), 7) == (1, 2)  # kept strictly increasing
    assert sg.quantize_value(np.array([-5, 0, 1, 7]), [0, 1, 5]).tolist() == [0, 0, 1, 3]


def test_ad_counting_and_entries() -> None:
    idx = np.array([4, 4, 7, 4, 9])
    book = np.array([True, False, False, True, False])
    a, d = sg.count(idx, book, 10)
    assert a[4] == 2 and d[4] == 1 and d[7] == 1 and d[9] == 1 and a.sum() == 2 and d.sum() == 3
    c0 = (2 - 3) / 5
    e = sg.coefficient(a, d, prior_weight=0)
    assert e[4] == round(sg.ONE * (2 - 1) / 3) and e[7] == -sg.ONE
    assert e[0] == round(sg.ONE * c0)  # never seen: the table's average
    e2 = sg.coefficient(a, d, prior_weight=2)
    assert e2[4] == round(sg.ONE * (2 - 1 + 2 * c0) / (3 + 2))


def test_first_level_index() -> None:
    terms = np.zeros((1, 39), dtype=np.int32)
    slot_q = np.ones((27, 2), dtype=np.int64)
    slot_q[:, 1] = 2
    terms[0, sg.SLOTS[0]] = -3  # mover's +3: top of 7 levels (6)
    terms[0, sg.SLOTS[1]] = 1   # mover's -1: level 1 of 5
    terms[0, sg.SLOTS[2]] = 0   # middle of 3
    idx = sg.level1_indices(terms, slot_q)
    assert idx[0, 0] == (6 * 5 + 1) * 3 + 1
    assert idx[0, 1] == (3 * 5 + 2) * 3 + 1  # all zero: the middle entry


def test_c_equals_python(oca_positions: book_data.BookPositions) -> None:
    train = oca_positions.select(oca_positions.game % 2 == 1)
    test = oca_positions.select(oca_positions.game % 2 == 0)
    assert test.num_moves > 2000
    for opts in ({}, {"method": "counts"},
                 {"method": "counts", "tiebreak": False, "q3": 7, "phase_bounds": ()},
                 {"phase_bounds": (22, 18, 12, 6)}, {"material_weight": 0}, {"material_weight": 1}):
        ev = sg.train(train, **opts)
        fast = sg.batch_scores(ev, test)
        ref = c_scores(ev, test)
        assert np.array_equal(fast, ref)
        assert agreement.measure(ev, test, bootstrap=0).c_samuel > 0.1
        weight, shift = sg.material_part(ev)
        assert weight == opts.get("material_weight", sg.MATERIAL_WEIGHT)
        lo, hi = ev.meta["table_range"]
        assert (hi >> shift) - (lo >> shift) < material_scale.MAN * weight or weight == 0 == shift


def test_version_1_data_reads_as_no_material(oca_positions: book_data.BookPositions) -> None:
    test = oca_positions.select(oca_positions.game % 2 == 0)
    ev = sg.train(oca_positions.select(oca_positions.game % 2 == 1), material_weight=0)
    d = ev.spec.data
    assert d[0] == sg.VERSION == 2 and d[8:10] == (0, 0)
    old = evaluators.Evaluator("v1", core.EvalSpec(core.EVAL_SIGNATURE, data=(1, *d[1:8], *d[10:])), {})
    assert sg.material_part(old) == (0, 0)
    ref = c_scores(ev, test)
    assert np.array_equal(c_scores(old, test), ref) and np.array_equal(sg.batch_scores(old, test), ref)
    # with material: exactly W * material more for the side to move, table part shifted
    on = sg.train(oca_positions.select(oca_positions.game % 2 == 1))
    weight, shift = sg.material_part(on)
    assert weight == 10 and shift > 0 and on.spec.data[10:] == d[10:]
    mat = book_data.material(test.children())
    assert np.array_equal(c_scores(on, test), np.floor(ref / 2**shift) - weight * mat)


def test_material_dominates(oca_positions: book_data.BookPositions) -> None:
    ev = sg.train(oca_positions.head(2000))
    weight, _shift = sg.material_part(ev)
    up = Board("B:W21,22,25:B9,10,11,12").raw     # Black to move, a man up
    down = Board("W:W21,22,25:B9,10,11,12").raw   # the same board, White (a man down) to move
    assert core.evaluate(up, ev.spec) > 0 > core.evaluate(down, ev.spec)
    # whatever the tables say: a man outweighs the table part's whole range
    lo, hi = ev.meta["table_range"]
    assert weight * 100 > (hi >> ev.spec.data[9]) - (lo >> ev.spec.data[9])


def test_searched_agreement_is_not_negative(oca_positions: book_data.BookPositions) -> None:
    """Searched 2 plies the tables (with material) still agree with the book (it was about -0.3)."""
    ev = sg.train(oca_positions.select(oca_positions.game % 2 == 1))
    test = oca_positions.select(np.isin(oca_positions.game, np.unique(oca_positions.game[
        oca_positions.game % 2 == 0])[:6]))
    a = agreement.measure(ev, test, depth=2, bootstrap=0, tie_break="random")
    assert a.c_samuel > 0.1


def test_no_parent_and_short_data(oca_positions: book_data.BookPositions) -> None:
    ev = sg.train(oca_positions.head(300))
    raw = Board().raw
    t = np.array([core.samuel_terms(raw)])  # parent None: the core's stand-in
    rows = np.array([[raw.black_men, raw.black_kings, raw.white_men, raw.white_kings, raw.turn]], np.uint32)
    assert core.evaluate(raw, ev.spec) == int(sg.score_terms(ev, t, rows)[0])
    assert core.evaluate(raw, core.EvalSpec(core.EVAL_SIGNATURE, data=ev.spec.data[:100])) == 0


def test_likelihood_tables_add_up_and_beat_counting_on_unseen_positions(
        oca_positions: book_data.BookPositions) -> None:
    """The default method fits the same tables to the book moves' likelihood: the levels add up
    (lower entries unshifted), and on positions the training never held it ranks the book move
    better than Samuel's counting."""
    train = oca_positions.select(oca_positions.game % 2 == 1)
    test = oca_positions.select(oca_positions.game % 2 == 0)
    unseen = test.select(~book_data.seen_in(test, train))
    fitted = sg.train(train)
    counted = sg.train(train, method="counts")
    assert fitted.meta["method"] == "likelihood" and counted.meta["method"] == "counts"
    assert fitted.spec.data[6:8] == (1, 0) and counted.spec.data[7] == sg.TIEBREAK_SHIFT
    c_fit = agreement.measure(fitted, unseen, bootstrap=0, tie_break="random").c_samuel
    c_count = agreement.measure(counted, unseen, bootstrap=0, tie_break="random").c_samuel
    assert c_fit > c_count + 0.05
    with pytest.raises(ValueError, match="method"):
        sg.train(train, method="guess")
