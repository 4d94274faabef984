"""Samuel's four-term rote polynomial (engine/samuel_rote_terms.py): the evaluator against
a Python computation from the slow reference's parameters, and the fit's bookkeeping."""

from __future__ import annotations

from pathlib import Path

import pytest
import samuel_terms_reference as ref
from shared_data import OCA_FIRST_60

from engine import core, evaluators
from engine import samuel_rote_terms as srt
from engine import samuel_terms as st
from engine.board import Board
from engine.learners import agreement, book_data
from engine.learners import samuel_rote_fit as srf
from samuel.cli import main as samuel_main


def _ref_board(raw: core.RawPosition) -> tuple[ref.Board, str]:
    return ref.board_of_raw(raw)


def _by_hand(raw: core.RawPosition, parent: core.RawPosition, deny: int, mob: int, hybrid: int) -> int:
    """The four-term score from the reference's parameters, written out term by term."""
    board, turn = _ref_board(raw)
    now = ref.params(board, turn)
    before = ref.params(*_ref_board(parent))
    # Each term for the side to move: param(parent) - param(position) (docs/learners/terms.md).
    t = {n: before[n] - now[n] for n in ("DENY", "MOB", "CENT", "ADV")}
    padv = ref.material(board, turn) - ref.material(board, ref.other(turn))
    total = (st.PADV_WEIGHT * padv + deny * t["DENY"] + mob * t["MOB"]
             + hybrid * (t["CENT"] + t["ADV"]))
    score = total // 2**13  # floor, as the C evaluator shifts
    mu, mt = ref.material(board, turn), ref.material(board, ref.other(turn))
    if mu + mt:
        diff = 100 * (mu - mt)  # Samuel's trade-down bonus, truncated toward zero
        score += diff // (mu + mt) if diff >= 0 else -(-diff // (mu + mt))
    return max(-28999, min(28999, score))


def _line(moves: str) -> list[tuple[core.RawPosition, core.RawPosition]]:
    board = Board()
    out = []
    for m in moves.split():
        parent = board.raw
        board.push_many([m])
        out.append((board.raw, parent))
    return out


LINE = ("11-15 24-20 8-11 28-24 9-13 22-18 15x22 25x18 4-8 26-22 10-14 18x9 5x14 22-18 1-5 18x9 5x14 "
        "29-25 11-15 24-19 15x24 25-22 24-28 22-18 6-9 27-24 8-11 24-19 7-10 20-16 11x20 18-15 2-6 "
        "15-11 12-16 19x12 10-15 11-8 15-18 21-17 13x22 30-26 18x27 26x17x10x1")
"""OCA's first game (Manchester 1841): captures, a king, material up and down."""


def test_weights_are_the_four_terms() -> None:
    ev = evaluators.by_name("samuel-rote")
    assert ev is srt.SAMUEL_ROTE and "samuel-rote" in evaluators.available()
    w = dict(zip(st.TERM_NAMES, ev.spec.weights, strict=True))
    deny, mob, hybrid = srt.SAMUEL_ROTE_FITTED
    assert w.pop("PADV") == st.PADV_WEIGHT
    assert (w.pop("DENY"), w.pop("MOB"), w.pop("CENT"), w.pop("ADV")) == (deny, mob, hybrid, hybrid)
    assert not any(w.values())  # nothing else
    assert ev.meta["rote"] == {"DENY": deny, "MOB": mob, "CENT+ADV": hybrid}


def test_score_equals_python_computation() -> None:
    sets = [srt.SAMUEL_ROTE_FITTED, (2**18, -(2**17), 2**16), (1, 2**13, -(2**12)), (0, 0, 2**15)]
    for raw, parent in _line(LINE):
        for deny, mob, hybrid in sets:
            ev = srt.rote_polynomial(deny, mob, hybrid, name="x")
            assert core.evaluate(raw, ev.spec, parent) == _by_hand(raw, parent, deny, mob, hybrid)


def test_hybrid_is_one_coefficient_on_cent_plus_adv() -> None:
    # After 11-15 and 23-19 no material has changed, so each score is the floor of the weighted
    # terms alone; the hybrid's coefficient multiplies CENT and ADV once each.
    (_, _), (raw, parent) = _line("11-15 23-19")
    t = dict(zip(st.TERM_NAMES, st.terms(raw, parent), strict=True))
    assert t["PADV"] == 0
    for deny, mob, hybrid in ((0, 0, 2**13), (0, 0, -(2**13)), (2**18, 2**17, -(2**14))):
        ev = srt.rote_polynomial(deny, mob, hybrid, name="x")
        total = deny * t["DENY"] + mob * t["MOB"] + hybrid * (t["CENT"] + t["ADV"])
        assert core.evaluate(raw, ev.spec, parent) == total // 2**13


def test_fit_counts_agree_with_samuel_agree() -> None:
    data = book_data.extract(OCA_FIRST_60, limit_games=20)
    fit = srf.fit(data, exponents=range(10, 19, 2), restarts=1)
    zero = srf.measure(data, 0, 0, 0)
    assert fit.best.c_random >= zero.c_random
    assert fit.positions == len(data) and fit.games == data.num_games
    # The fit's counts are the agreement measure's counts for the same evaluator.
    ev = srt.rote_polynomial(*fit.best.key, name="fitted")
    a = agreement.measure(ev, data, bootstrap=0)
    assert (a.L, a.H, a.T) == (fit.best.L, fit.best.H, fit.best.T)
    assert abs(a.c_samuel - fit.best.c_samuel) < 1e-12


def test_cli_fit_prints_train_and_held_out(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "fitted.json"
    assert samuel_main(["learn", "rote", "fit", "--pdn", str(OCA_FIRST_60), "--restarts", "0",
                        "--depth", "0", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "static choice: DENY" in text and "train, static" in text and "held out:" in text
    ev = evaluators.load(out)
    assert ev.name == "fitted" and ev.meta["rote"].keys() == {"DENY", "MOB", "CENT+ADV"}
    assert samuel_main(["learn", "rote", "fit", "--pdn", str(tmp_path / "none.pdn")]) == 2
    assert "no PDN file" in capsys.readouterr().err


def test_searched_fit_counts_are_the_searched_agreement() -> None:
    data = book_data.extract(OCA_FIRST_60, limit_games=3)
    start = (2**16, 2**15, -(2**12))
    fit = srf.fit_searched(data, start, depth=1, span=0, sweeps=1, scales=(-2, 0))
    assert fit.best.c_random >= srf.searched_counts(data, *start, 1).c_random
    keys = {c.key for c in fit.tried}
    assert start in keys and (2**14, 2**13, -(2**10)) in keys  # the set scaled by 2**-2
    ev = srt.rote_polynomial(*fit.best.key, name="x")
    a = agreement.measure(ev, data, depth=1, bootstrap=0)
    assert (a.L, a.H, a.T) == (fit.best.L, fit.best.H, fit.best.T)
