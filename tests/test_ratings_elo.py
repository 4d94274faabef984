"""Two-player match statistics: score, Elo interval, LOS, nElo (matches.ratings.elo)."""

from __future__ import annotations

import math
from statistics import NormalDist

import pytest

from matches.ratings import (
    NELO,
    PENTANOMIAL_SCORES,
    TRINOMIAL_SCORES,
    Z95,
    RatingsError,
    cutechess_los,
    cutechess_margin,
    elo_from_score,
    pentanomial,
    score_from_elo,
    trinomial,
)

FISHTEST_PENTA = [10789, 19328, 33806, 19402, 10543]
OPENBENCH_PENTA = [39, 8843, 26675, 9240, 44]


def test_constants() -> None:
    assert abs(NELO - 347.4356) < 1e-4
    assert abs(Z95 - NormalDist().inv_cdf(0.975)) < 1e-12
    assert TRINOMIAL_SCORES == (0.0, 0.5, 1.0)
    assert PENTANOMIAL_SCORES == (0.0, 0.25, 0.5, 0.75, 1.0)


def test_elo_and_score_are_inverse() -> None:
    # 0.75 = 1/(1 + 10^(-e/400)) -> 10^(e/400) = 3 -> e = 400·log10(3) = 190.8485
    assert elo_from_score(0.75) == pytest.approx(190.8485, abs=1e-4)
    assert score_from_elo(190.8485) == pytest.approx(0.75, abs=1e-6)
    assert elo_from_score(0.5) == 0.0 and math.copysign(1.0, elo_from_score(0.5)) == 1.0
    for e in (-800.0, -35.5, 0.0, 12.0, 400.0):
        assert elo_from_score(score_from_elo(e)) == pytest.approx(e, abs=1e-9)
    assert score_from_elo(-1e6) == 0.0 and score_from_elo(1e6) == 1.0


def test_scores_are_clamped_like_fishtest() -> None:
    # s in [1e-3, 1 - 1e-3]: Elo(0.999) = 400·log10(999) = 1199.83
    assert elo_from_score(1.0) == elo_from_score(0.999) == pytest.approx(1199.826, abs=1e-3)
    assert elo_from_score(0.0) == pytest.approx(-1199.826, abs=1e-3)
    assert elo_from_score(-3.0) == elo_from_score(0.0)


def test_trinomial_worked_by_hand() -> None:
    # 20 losses, 40 draws, 40 wins (N = 100):
    #   s  = (40 + 40/2)/100 = 0.6
    #   v  = 0.4·(1 − 0.6)² + 0.4·(0.5 − 0.6)² + 0.2·(0 − 0.6)² = 0.064 + 0.004 + 0.072 = 0.14
    #   se = sqrt(0.14/100) = 0.0374166
    #   Elo(0.6) = −400·log10(1/0.6 − 1) = 400·log10(1.5) = 70.4365
    #   z·se = 1.959964 × 0.0374166 = 0.0733351
    #   low  = Elo(0.5266649) = −400·log10(0.898741) = 18.5462
    #   high = Elo(0.6733351) = −400·log10(0.485145) = 125.6515;  margin = (125.6515 − 18.5462)/2 = 53.5527
    #   LOS  = Φ(0.1/0.0374166) = Φ(2.672612) = 0.996237
    #   nElo = 0.1/sqrt(0.14) × 347.4356 = 0.267261 × 347.4356 = 92.8561, ± 1.959964 × 347.4356/10 = 68.0961
    e = trinomial(20, 40, 40)
    assert (e.n, e.games) == (100, 100)
    assert e.score == pytest.approx(0.6, abs=1e-12)
    assert e.se == pytest.approx(0.0374166, abs=1e-7)
    assert e.elo == pytest.approx(70.4365, abs=1e-4)
    assert e.low == pytest.approx(18.5462, abs=1e-4)
    assert e.high == pytest.approx(125.6515, abs=1e-4)
    assert e.margin == pytest.approx(53.5527, abs=1e-4)
    assert e.los == pytest.approx(0.996237, abs=1e-6)
    assert e.draw_ratio == pytest.approx(0.4)
    assert e.nelo == pytest.approx(92.8561, abs=1e-4)
    assert e.nelo_margin == pytest.approx(68.0961, abs=1e-4)
    assert e.line() == "+70.4 ± 53.6 (95%), nElo +92.9 ± 68.1, LOS 99.6%"


def test_cutechess_margin_and_los_worked_by_hand() -> None:
    # cutechess's margin is the same interval as above (draws count in its σ): 53.5527.
    assert cutechess_margin(40, 20, 40) == pytest.approx(53.5527, abs=1e-4)
    # cutechess's LOS ignores draws: 0.5 + 0.5·erf(20/sqrt(120)) = 0.5 + 0.5·erf(1.825742) = 0.995088
    assert cutechess_los(40, 20) == pytest.approx(0.995088, abs=1e-6)
    assert cutechess_los(20, 40) == pytest.approx(1.0 - 0.995088, abs=1e-6)
    assert cutechess_los(0, 0) == 0.5
    assert cutechess_margin(0, 0, 0) == math.inf


def test_fishtest_pentanomial_vector() -> None:
    # The reference's "Verified" table: Elo −0.77 ± 1.28, LOS 0.1177 (the pentanomial estimate).
    e = pentanomial(FISHTEST_PENTA)
    assert (e.n, e.games) == (93868, 187736)
    assert e.elo == pytest.approx(-0.77, abs=5e-3)
    assert e.margin == pytest.approx(1.28, abs=5e-3)
    assert e.los == pytest.approx(0.1177, abs=5e-5)
    # The interval is [Elo(s − z·se), Elo(s + z·se)], nearly symmetric this close to 0.
    assert e.low < e.elo < e.high
    assert e.margin == pytest.approx((e.high - e.low) / 2)


def test_openbench_pentanomial_vector() -> None:
    # The reference's "Verified" table: Elo 1.58 ± 1.03.
    e = pentanomial(OPENBENCH_PENTA)
    assert e.elo == pytest.approx(1.58, abs=5e-3)
    assert e.margin == pytest.approx(1.03, abs=5e-3)


def test_pentanomial_definitions() -> None:
    e = pentanomial(FISHTEST_PENTA)
    pairs = sum(FISHTEST_PENTA)
    # draw_ratio for pairs: the share of pairs that scored exactly ½ (WL+DD).
    assert e.draw_ratio == pytest.approx(33806 / pairs)
    # nElo's half-width depends only on the number of games: z·NELO/sqrt(2·pairs).
    assert e.nelo_margin == pytest.approx(Z95 * NELO / math.sqrt(2 * pairs))
    # nElo = (s − ½)/sqrt(2·v_pair) × NELO
    s = sum(c * a for c, a in zip(FISHTEST_PENTA, PENTANOMIAL_SCORES, strict=True)) / pairs
    v = sum(c * (a - s) ** 2 for c, a in zip(FISHTEST_PENTA, PENTANOMIAL_SCORES, strict=True)) / pairs
    assert e.nelo == pytest.approx((s - 0.5) / math.sqrt(2 * v) * NELO, rel=1e-12)
    assert e.se == pytest.approx(math.sqrt(v / pairs), rel=1e-12)


def test_pentanomial_counts_pair_correlation() -> None:
    # 140 pairs LL 5, LD 10, WL+DD 100 (all WL: each opening won by the side that had it), WD 20, WW 5 are,
    # counted per game, 2·5 + 10 + 100 = 120 losses, 10 + 20 = 30 draws, 100 + 20 + 2·5 = 130 wins.
    # Same games, same score, but the pairs' spread shows the colour-swapped games cancel out, so the
    # pentanomial interval is much narrower (v_pair = 0.0331 per pair vs v_game = 0.2388).
    tri = trinomial(120, 30, 130)
    penta = pentanomial([5, 10, 100, 20, 5])
    assert tri.games == penta.games == 280
    assert tri.score == pytest.approx(penta.score)
    assert tri.elo == pytest.approx(penta.elo)
    assert penta.margin < 0.6 * tri.margin


def test_no_games() -> None:
    for e in (trinomial(0, 0, 0), pentanomial([0, 0, 0, 0, 0])):
        assert (e.n, e.games, e.score, e.elo, e.los, e.nelo) == (0, 0, 0.5, 0.0, 0.5, 0.0)
        assert e.margin == e.se == e.nelo_margin == math.inf
        assert (e.low, e.high) == (-math.inf, math.inf)
        assert "LOS 50.0%" in e.line()


def test_one_outcome_only() -> None:
    sweep = trinomial(0, 0, 10)
    assert sweep.score == 1.0
    assert sweep.elo == pytest.approx(1199.826, abs=1e-3)  # clamped, finite
    assert sweep.se == 0.0 and sweep.margin == 0.0 and sweep.low == sweep.high == sweep.elo
    assert sweep.los == 1.0 and sweep.nelo == math.inf
    assert sweep.nelo_margin == pytest.approx(Z95 * NELO / math.sqrt(10))

    lost = trinomial(10, 0, 0)
    assert lost.elo == pytest.approx(-1199.826, abs=1e-3) and lost.los == 0.0 and lost.nelo == -math.inf

    draws = trinomial(0, 10, 0)
    assert (draws.elo, draws.margin, draws.los, draws.nelo, draws.draw_ratio) == (0.0, 0.0, 0.5, 0.0, 1.0)

    pairs = pentanomial([0, 0, 0, 7, 0])  # every pair 1½-½
    assert pairs.games == 14 and pairs.score == 0.75
    assert pairs.elo == pytest.approx(190.8485, abs=1e-4) and pairs.margin == 0.0 and pairs.los == 1.0


def test_bad_counts() -> None:
    with pytest.raises(RatingsError, match="non-negative"):
        trinomial(-1, 0, 3)
    with pytest.raises(RatingsError, match="5 counts"):
        pentanomial([1, 2, 3])
    with pytest.raises(ValueError):  # RatingsError is a ValueError
        cutechess_los(-1, 2)
