"""Samuel's generalization bookkeeping, rule by rule, on synthetic numbers."""

from __future__ import annotations

import pytest

from engine.learners import generalize_state as gs
from engine.learners.generalize_state import PolynomialState, Referee, TermRecord

# Appendix C: the polynomial after 42 games (term, correlation, sign, power of 2).
PUBLISHED = [
    ("MOC2", 0.45, "-", 18), ("KCENT", 0.40, "+", 16), ("MOC4", 0.35, "-", 14),
    ("MODE3", 0.33, "-", 13), ("DEMMO", 0.27, "-", 11), ("MOVE", 0.19, "+", 8),
    ("ADV", 0.19, "-", 8), ("MODE2", 0.19, "-", 8), ("BACK", 0.14, "-", 6),
    ("CNTR", 0.13, "+", 5), ("THRET", 0.13, "+", 5), ("MOC3", 0.10, "+", 4),
]


def test_n_schedule_powers_of_two_from_16_to_256() -> None:
    assert [gs.times_used_n(u) for u in (1, 15, 16, 31)] == [16] * 4
    assert [gs.times_used_n(u) for u in (32, 63, 64, 127, 128, 255)] == [32, 32, 64, 64, 128, 128]
    assert [gs.times_used_n(u) for u in (256, 257, 10_000)] == [256] * 3


def test_correlation_update_formula() -> None:
    # C_N = C_{N-1} - (C_{N-1} ± 1)/N: agreement moves toward +1, disagreement toward -1.
    assert gs.correlation_step(0.0, True, 1) == pytest.approx(1 / 16)
    assert gs.correlation_step(0.0, False, 1) == pytest.approx(-1 / 16)
    assert gs.correlation_step(0.5, True, 40) == pytest.approx(0.5 - (0.5 - 1) / 32)
    assert gs.correlation_step(0.5, False, 300) == pytest.approx(0.5 - (0.5 + 1) / 256)


def test_new_term_counts_as_sixteen_zero_uses() -> None:
    # After one agreeing use, a fresh term is at 1/16, not at 1 ("violent fluctuations").
    c = 0.0
    c = gs.correlation_step(c, True, 1)
    assert c == pytest.approx(1 / 16)
    c = gs.correlation_step(c, False, 2)
    assert abs(c) < 0.01


def test_doubling_and_quadrupling() -> None:
    assert gs.correction_weight(False, False) == 1
    assert gs.correction_weight(True, False) == 2
    assert gs.correction_weight(False, True) == 4
    assert gs.correction_weight(True, True) == 4
    base = gs.correlation_step(0.2, True, 5) - 0.2
    assert gs.correlation_step(0.2, True, 5, 2) - 0.2 == pytest.approx(2 * base)
    assert gs.correlation_step(0.2, True, 5, 4) - 0.2 == pytest.approx(4 * base)


def test_coefficients_reproduce_the_published_table() -> None:
    correlations = {name: (c if s == "+" else -c) for name, c, s, _ in PUBLISHED}
    coefs = gs.coefficients_from(correlations)
    for name, _c, s, power in PUBLISHED:
        assert coefs[name] == (1 if s == "+" else -1) * 2**power, name


def test_sign_reversal_follows_the_correlation() -> None:
    p = PolynomialState([TermRecord("A", 0.02), TermRecord("B", 0.3)], [])
    assert p.coefficients()["A"] > 0
    # A term that keeps disagreeing with delta crosses zero and its coefficient changes sign.
    rec = p.record("A")
    for _ in range(3):
        rec.uses += 1
        rec.correlation = gs.correlation_step(rec.correlation, False, rec.uses)
    assert rec.correlation < 0 and rec.sign == "-"
    assert p.coefficients()["A"] < 0
    assert p.coefficients()["B"] == 2**18


def test_zero_correlation_gives_zero_coefficient() -> None:
    assert gs.coefficients_from({"A": 0.0, "B": 0.1}) == {"A": 0, "B": 2**18}
    assert gs.coefficients_from({"A": 0.0}) == {"A": 0}


def test_minimum_delta_is_the_average_coefficient() -> None:
    assert gs.minimum_delta([2**18, -(2**16), 0, 2**4]) == pytest.approx((2**18 + 2**16 + 2**4) / 4)
    assert gs.zeroed(5.0, 6.0) == 0.0
    assert gs.zeroed(-7.0, 6.0) == -7.0


def test_second_series_positive_delta_rule() -> None:
    contributions = {"P": 1, "N": -1, "Z": 0}
    # Negative delta: every contributing term.
    assert sorted(gs.terms_to_correct(-5, 10, contributions)) == ["N", "P"]
    # Positive delta, polynomial positive: the negatively contributing terms only.
    assert gs.terms_to_correct(5, 10, contributions) == ["N"]
    # Positive delta, polynomial negative: the positively contributing ones.
    assert gs.terms_to_correct(5, -10, contributions) == ["P"]
    # Positive delta on a polynomial assumed zero: neither case, no change.
    assert gs.terms_to_correct(5, 0, contributions) == []


def test_correct_moves_correlations_by_contribution() -> None:
    p = PolynomialState([TermRecord("A", 0.1), TermRecord("B", -0.1), TermRecord("C", 0.1)], [])
    # delta < 0: all nonzero terms; A's value is negative (agrees with delta), B's positive.
    done = p.correct(-10, 3, {"A": -2, "B": 1, "C": 0}, weight=1)
    assert sorted(done.terms) == ["A", "B"]
    assert p.record("A").correlation == pytest.approx(0.1 - (0.1 - 1) / 16)
    assert p.record("B").correlation == pytest.approx(-0.1 - (-0.1 + 1) / 16)
    assert p.record("C").correlation == 0.1 and p.record("C").uses == 0
    assert p.record("A").uses == 1 and p.corrections == 1


def test_low_term_tally_and_replacement_every_32_moves() -> None:
    names = [f"T{i}" for i in range(gs.ACTIVE_TERMS + gs.RESERVE_TERMS)]
    p = PolynomialState.start(names)
    assert len(p.active) == 16 and len(p.reserve) == 22
    assert all(t.correlation == gs.INITIAL_CORRELATION for t in p.active)
    p.record("T5").correlation = 0.001  # the lowest: charged every move
    swaps = []
    for _ in range(31):
        assert p.tally_move() is None
    assert p.record("T5").tally == 31
    swaps.append(p.tally_move())  # the 32nd move: one new term
    assert swaps == [("T5", "T16")]
    assert p.reserve[-1] == "T5" and p.reserve[0] == "T17"
    new = p.active[-1]
    assert (new.name, new.correlation, new.uses, new.tally) == ("T16", 0.0, 0, 0)
    assert p.discards[-1].name == "T5" and p.discards[-1].uses == 0
    # The new term (correlation 0) is now the low term; it goes after its 8 tallies once 32
    # more moves have passed.
    for _ in range(31):
        assert p.tally_move() is None
    assert p.tally_move() == ("T16", "T17")


def test_tally_limit_must_be_reached() -> None:
    p = PolynomialState.start([f"T{i}" for i in range(20)])
    for i, t in enumerate(p.active):
        t.correlation = 0.01 * (i + 1)
    p.moves_since_new_term = 100
    # The low term has tally 7 after this move: no replacement yet.
    p.active[0].tally = 6
    assert p.tally_move() is None and p.active[0].tally == 7
    assert p.tally_move() == ("T0", "T16")


def test_black_marks_and_penalty() -> None:
    r = Referee()
    assert r.record(-1) == (False, False)
    assert r.record(0) == (False, False)
    assert r.record(-1) == (False, False)
    assert r.record(-1) == (False, True)  # third black mark
    assert r.black_marks == 0
    p = PolynomialState([TermRecord("A", 0.2), TermRecord("B", -0.5)], [])
    assert p.zero_leading() == "B"
    assert p.coefficients() == {"A": 2**18, "B": 0}


def test_majority_of_wins_for_adoption() -> None:
    r = Referee()
    assert r.record(1) == (False, False)  # a single win is not a majority of wins
    assert r.record(1) == (True, False)
    r = Referee()
    assert [r.record(x)[0] for x in (1, -1, 0, 1, 1)] == [False, False, False, False, True]
    # After an adoption the count starts again.
    assert r.games_since_adoption == 0 and r.wins_since_adoption == 0


def test_state_round_trip() -> None:
    p = PolynomialState.start([f"T{i}" for i in range(38)])
    p.correct(-3, 0, {"T0": 1, "T1": -1}, 2)
    for _ in range(40):
        p.tally_move()
    q = PolynomialState.from_dict(p.to_dict())
    assert q == p
    r = Referee(2, 3, 1)
    assert Referee.from_dict(r.to_dict()) == r


# ---------------------------------------------------------------------------
# The switchable readings (issue 15).


def test_ratio_exponent_reads_the_text_literally() -> None:
    # C_max / |C| in [n, n+1) gives 2^(18-n); the leader keeps 2^18.
    assert gs.ratio_exponent(0.45, 0.45) == 18
    assert gs.ratio_exponent(0.40, 0.45) == 17  # ratio 1.125: n = 1 (the table has 16)
    assert gs.ratio_exponent(0.20, 0.45) == 16  # ratio 2.25
    assert gs.ratio_exponent(0.01, 0.45) == 0  # ratio 45: never below 2^0
    got = gs.coefficients_from({"A": 0.45, "B": -0.10, "C": 0.0}, "ratio")
    assert got == {"A": 2**18, "B": -(2**14), "C": 0}
    assert gs.coefficients_from({"A": 0.45, "B": -0.10}, "round") == {"A": 2**18, "B": -(2**4)}


def test_rules_reach_the_polynomial() -> None:
    p = PolynomialState([TermRecord("A", 0.45), TermRecord("B", 0.10)], [])
    assert p.coefficients() == {"A": 2**18, "B": 2**4}
    p.rules = gs.LearningRules(exponent_rule="ratio", min_delta_scale=0.5)
    assert p.coefficients() == {"A": 2**18, "B": 2**14}
    assert p.minimum_delta() == 0.5 * (2**18 + 2**14) / 2


def test_tally_limit_32_without_a_separate_clock() -> None:
    p = PolynomialState.start([f"T{i}" for i in range(38)])
    p.rules = gs.LearningRules(tally_limit=32, new_term_interval=0)
    p.record("T5").correlation = 0.001
    for _ in range(31):
        assert p.tally_move() is None
    assert p.tally_move() == ("T5", "T16")
    # The new term (C = 0) is the low term at once: 32 more moves, then it goes.
    for _ in range(31):
        assert p.tally_move() is None
    assert p.tally_move() == ("T16", "T17")


def test_tally_8_without_a_clock_is_one_term_every_8_moves() -> None:
    p = PolynomialState.start([f"T{i}" for i in range(38)])
    p.rules = gs.LearningRules(new_term_interval=0)
    p.record("T5").correlation = 0.001
    swaps = [p.tally_move() for _ in range(16)]
    assert [i for i, s in enumerate(swaps) if s] == [7, 15]


def test_tallies_reset_on_replacement() -> None:
    for reset, expected in (("never", 5), ("replacement", 0)):
        p = PolynomialState.start([f"T{i}" for i in range(38)])
        p.rules = gs.LearningRules(tally_reset=reset)
        p.record("T5").correlation = 0.001
        p.record("T9").tally = 5
        for _ in range(32):
            p.tally_move()
        assert "T5" not in p.names
        assert p.record("T9").tally == expected


def test_first_series_positive_delta_corrects_every_contributing_term() -> None:
    contributions = {"A": 1, "B": -1, "C": 0}
    assert gs.terms_to_correct(5, 10, contributions) == ["B"]
    assert gs.terms_to_correct(5, 0, contributions) == []
    assert gs.terms_to_correct(5, 10, contributions, "all") == ["A", "B"]
    assert gs.terms_to_correct(-5, 10, contributions, "all") == ["A", "B"]


def test_first_series_adoption_after_any_win() -> None:
    r = Referee(adoption="win")
    assert [r.record(x)[0] for x in (1, -1, 0, 1)] == [True, False, False, True]
    r = Referee(adoption="never")
    assert [r.record(x)[0] for x in (1, 1, 1, 1)] == [False] * 4


def test_rules_are_checked() -> None:
    for bad in ({"tally_limit": 0}, {"new_term_interval": -1}, {"tally_reset": "often"},
                {"exponent_rule": "floor"}, {"min_delta_scale": -1.0}, {"padv_scale": 0.0},
                {"span": "two"}, {"initial_eval": "deep"}, {"positive_delta": "some"},
                {"correction_weights": "double"}, {"times_used": "plays"}):
        with pytest.raises(ValueError):
            gs.LearningRules(**bad)  # type: ignore[arg-type]


def test_times_used_by_moves_counts_nonzero_moves() -> None:
    p = PolynomialState([TermRecord("A", 0.0), TermRecord("B", 0.0)], [])
    for _ in range(40):
        p.count_nonzero({"A": 1, "B": 0})
    assert (p.record("A").nonzero, p.record("B").nonzero) == (40, 0)
    p.rules = gs.LearningRules(times_used="moves")
    p.correct(-5, 0, {"A": -1, "B": 0}, 1)
    assert p.record("A").correlation == pytest.approx(1 / 32)  # N = 32 at 40 nonzero moves
    q = PolynomialState([TermRecord("A", 0.0)], [])
    q.correct(-5, 0, {"A": -1}, 1)
    assert q.record("A").correlation == pytest.approx(1 / 16)  # by corrections: the first, N = 16
    assert PolynomialState.from_dict(p.to_dict()).record("A").nonzero == 40
