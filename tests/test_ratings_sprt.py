"""Sequential tests: GSPRT (logistic, normalized), cutechess's BayesElo SPRT, status (matches.ratings)."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import pytest

from matches.ratings import (
    NELO,
    PENTANOMIAL_SCORES,
    TRINOMIAL_SCORES,
    RatingsError,
    SprtConfig,
    llr_bayeselo,
    llr_logistic,
    llr_normalized,
    score_from_elo,
    sprt,
    sprt_status,
)
from matches.ratings.sprt import expected_remaining

# The reference's "Verified" table (matches-and-ratings.md §2.2): counts, bounds, logistic and normalized LLR.
# Trinomial counts are [L, D, W]; pentanomial [LL, LD, WL+DD, WD, WW].
VERIFIED = [
    ([10789, 19328, 33806, 19402, 10543], (-3.0, 1.0), 2.1311, 0.3009),  # fishtest docstring
    ([39, 8843, 26675, 9240, 44], (0.5, 2.5), 0.5555, 2.9417),  # OpenBench example
    ([5026, 15699, 5019], (0.0, 5.0), -7.0883, -2.8271),  # trinomial
    ([0, 12, 170, 18, 0], (0.0, 10.0), 0.1071, 0.4663),  # checkers-like pairs, ≈90% draws
]


def _scores(counts: Sequence[int]) -> tuple[float, ...]:
    return PENTANOMIAL_SCORES if len(counts) == 5 else TRINOMIAL_SCORES


@pytest.mark.parametrize(("counts", "bounds", "logistic", "normalized"), VERIFIED)
def test_verified_vectors(
    counts: list[int], bounds: tuple[float, float], logistic: float, normalized: float
) -> None:
    assert llr_logistic(counts, _scores(counts), *bounds) == pytest.approx(logistic, abs=1e-3)
    assert llr_normalized(counts, _scores(counts), *bounds) == pytest.approx(normalized, abs=1e-3)


@pytest.mark.parametrize(("counts", "bounds", "logistic", "normalized"), VERIFIED)
def test_status_reproduces_verified_vectors(
    counts: list[int], bounds: tuple[float, float], logistic: float, normalized: float
) -> None:
    shape = "pentanomial" if len(counts) == 5 else "trinomial"
    for model, expected in (("logistic", logistic), ("normalized", normalized)):
        status = sprt_status(SprtConfig(*bounds, model=model), **{shape: counts})
        assert status.llr == pytest.approx(expected, abs=1e-3)
        assert status.games == (2 if shape == "pentanomial" else 1) * sum(counts)


def test_logistic_llr_matches_the_quick_approximation() -> None:
    # fishtest's LLR_alt2: LLR ≈ N·(s1 − s0)(2s − s0 − s1)/(2v), good for small bounds and many games.
    counts = [10789, 19328, 33806, 19402, 10543]
    n = sum(counts)
    s = sum(c * a for c, a in zip(counts, PENTANOMIAL_SCORES, strict=True)) / n
    v = sum(c * (a - s) ** 2 for c, a in zip(counts, PENTANOMIAL_SCORES, strict=True)) / n
    s0, s1 = score_from_elo(-3.0), score_from_elo(1.0)
    quick = n * (s1 - s0) * (2 * s - s0 - s1) / (2 * v)
    assert llr_logistic(counts, PENTANOMIAL_SCORES, -3.0, 1.0) == pytest.approx(quick, rel=2e-3)


@pytest.mark.parametrize("model", ["logistic", "normalized", "bayeselo"])
def test_llr_is_antisymmetric_under_swapping_players(model: str) -> None:
    # Swapping the players turns (L, D, W) into (W, D, L) and the hypotheses e into −e.
    losses, draws, wins = 130, 300, 160

    def llr(tri: tuple[int, int, int], e0: float, e1: float) -> float:
        if model == "bayeselo":
            return llr_bayeselo(*tri, e0, e1)
        if model == "logistic":
            return llr_logistic(tri, TRINOMIAL_SCORES, e0, e1)
        return llr_normalized(tri, TRINOMIAL_SCORES, e0, e1)

    forward = llr((losses, draws, wins), 0.0, 10.0)
    assert forward > 0.0
    assert llr((wins, draws, losses), -10.0, 0.0) == pytest.approx(-forward, abs=1e-9)


def test_bayeselo_worked_by_hand() -> None:
    # 20 losses, 40 draws, 40 wins, elo0 = 0, elo1 = 10 (cutechess's model):
    #   Jeffreys prior: pW = 40.5/101.5 = 0.399015, pL = 20.5/101.5 = 0.201970
    #   drawElo = 200·log10((1 − pL)/pL · (1 − pW)/pW) = 200·log10(3.95122 × 1.50617) = 154.921
    #   x = 10^(−154.921/400) = 0.409918, scale = 4x/(1 + x)² = 0.824839
    #   H0: BayesElo 0       -> P(W) = P(L) = 1/(1 + 10^(154.921/400)) = 0.290739, P(D) = 0.418522
    #   H1: BayesElo 12.1236 -> P(W) = 1/(1 + 10^(142.797/400)) = 0.305337,
    #                           P(L) = 1/(1 + 10^(167.045/400)) = 0.276561, P(D) = 0.418102
    #   LLR = 40·ln(0.305337/0.290739) + 20·ln(0.276561/0.290739) + 40·ln(0.418102/0.418522)
    #       = 40 × 0.048990 − 20 × 0.049995 − 40 × 0.001004 = 0.91958
    assert llr_bayeselo(20, 40, 40, 0.0, 10.0) == pytest.approx(0.91958, abs=1e-4)
    status = sprt_status(SprtConfig(0.0, 10.0, model="bayeselo"), trinomial=(20, 40, 40))
    assert status.llr == pytest.approx(0.91958, abs=1e-4)
    assert status.decision is None and status.games == 100


def test_bayeselo_agrees_roughly_with_logistic() -> None:
    counts = (5026, 15699, 5019)
    legacy = llr_bayeselo(*counts, 0.0, 5.0)
    assert legacy < -2.944  # H0, like the GSPRT's −7.09
    assert legacy == pytest.approx(llr_logistic(counts, TRINOMIAL_SCORES, 0.0, 5.0), rel=0.15)


def test_wald_bounds() -> None:
    lower, upper = SprtConfig(0.0, 10.0).bounds()
    assert lower == pytest.approx(-2.944, abs=1e-3) and upper == pytest.approx(2.944, abs=1e-3)
    assert lower == pytest.approx(math.log(0.05 / 0.95)) and upper == pytest.approx(math.log(0.95 / 0.05))
    lower, upper = SprtConfig(0.0, 10.0, alpha=0.1, beta=0.2).bounds()
    assert lower == pytest.approx(math.log(0.2 / 0.9)) and upper == pytest.approx(math.log(0.8 / 0.1))


def test_zero_counts_give_a_finite_llr() -> None:
    for counts in ([0, 0, 10, 0, 0], [0, 0, 0, 0, 3], [0, 0, 7]):
        for llr in (llr_logistic, llr_normalized):
            assert math.isfinite(llr(counts, _scores(counts), 0.0, 10.0))
    assert llr_logistic([0, 0, 0], TRINOMIAL_SCORES, 0.0, 5.0) == 0.0
    assert llr_normalized([0, 0, 0, 0, 0], PENTANOMIAL_SCORES, 0.0, 5.0) == 0.0
    assert math.isfinite(llr_bayeselo(0, 0, 12, 0.0, 5.0))


def test_normalized_model_survives_extreme_bounds() -> None:
    # Bounds far outside any sensible test, where the plain fixed-point iteration does not settle:
    # the fallback still returns a finite LLR of the right sign.
    counts = [2, 1, 0, 46662, 50]  # nearly every pair 1½-½: nElo is huge
    llr = llr_normalized(counts, PENTANOMIAL_SCORES, 180.0, 240.0)
    assert math.isfinite(llr) and llr > 0.0
    # The distribution found for nElo 240 (t = 240·√2/NELO) meets the constraint (μ − ½)/σ = t.
    _, pdf = sprt._regularize(counts)
    t = 240.0 * math.sqrt(2.0) / NELO
    assert sprt._t_error(sprt._mle_t_value(pdf, PENTANOMIAL_SCORES, t), PENTANOMIAL_SCORES, t) < 1e-9
    assert math.isfinite(llr_normalized([87932, 1000, 0], TRINOMIAL_SCORES, -124.0, -30.0))


def test_games_per_count_sets_the_root_two_factor() -> None:
    # Five outcomes are pairs by default (t = nElo/NELO·√2); saying one game per count drops the √2.
    counts = [39, 8843, 26675, 9240, 44]
    pairs = llr_normalized(counts, PENTANOMIAL_SCORES, 0.5, 2.5)
    assert llr_normalized(counts, PENTANOMIAL_SCORES, 0.5, 2.5, games_per_count=2) == pairs
    single = llr_normalized(counts, PENTANOMIAL_SCORES, 0.5, 2.5, games_per_count=1)
    assert single != pytest.approx(pairs, abs=1e-3)


def test_status_decisions_and_preference() -> None:
    fishtest = [10789, 19328, 33806, 19402, 10543]
    status = sprt_status(SprtConfig(-3.0, 1.0, model="logistic"), pentanomial=fishtest)
    assert status.decision is None and status.expected_remaining is not None
    wide = sprt_status(SprtConfig(-3.0, 1.0, alpha=0.2, beta=0.2, model="logistic"), pentanomial=fishtest)
    assert wide.decision == "H1" and wide.expected_remaining == 0.0  # 2.13 ≥ ln(0.8/0.2) = 1.386
    tri = sprt_status(SprtConfig(0.0, 5.0, model="logistic"), trinomial=[5026, 15699, 5019])
    assert tri.decision == "H0" and tri.games == 25744
    # Pentanomial counts win when both are given (the trinomial here would say H0).
    both = sprt_status(
        SprtConfig(-3.0, 1.0, model="logistic"), pentanomial=fishtest, trinomial=[5026, 15699, 5019]
    )
    assert both.llr == status.llr
    empty = sprt_status(SprtConfig(0.0, 5.0), trinomial=[0, 0, 0])
    assert (empty.llr, empty.decision, empty.games, empty.expected_remaining) == (0.0, None, 0, None)


def test_status_errors() -> None:
    with pytest.raises(RatingsError, match="trinomial"):
        sprt_status(SprtConfig(0.0, 5.0, model="bayeselo"), pentanomial=[1, 2, 3, 2, 1])
    with pytest.raises(RatingsError, match="needs pentanomial or trinomial"):
        sprt_status(SprtConfig(0.0, 5.0))
    with pytest.raises(RatingsError, match="5 counts"):
        sprt_status(SprtConfig(0.0, 5.0), pentanomial=[1, 2, 3])


def test_expected_remaining_brownian_formula() -> None:
    a, b = SprtConfig(0.0, 5.0).bounds()
    # No drift: (x − A)(B − x)/σ²
    assert expected_remaining(0.0, a, b, 0.0, 0.01) == pytest.approx(b * b / 0.01)
    assert expected_remaining(1.0, a, b, 1e-15, 0.01) == pytest.approx((1.0 - a) * (b - 1.0) / 0.01, rel=1e-6)
    # Strong drift, little noise: the straight-line time (B − x)/μ, or (A − x)/μ downwards.
    assert expected_remaining(0.5, a, b, 0.01, 1e-6) == pytest.approx((b - 0.5) / 0.01, rel=1e-6)
    assert expected_remaining(0.5, a, b, -0.01, 1e-6) == pytest.approx((a - 0.5) / -0.01, rel=1e-6)
    # Worked example with x = 0, A = −B, μ = 0.001, σ² = 0.002: k = 2μ/σ² = 1,
    # P_B = (1 − e^(−B))/(1 − e^(−2B)) = 1/(1 + e^(−B)) = 0.95, E = (0.95·B − 0.05·B)/0.001 = 900·B = 2649.99
    assert expected_remaining(0.0, a, b, 0.001, 0.002) == pytest.approx(900.0 * b, rel=1e-9)
    # Outside the bounds: nothing left; no movement at all: unknown.
    assert expected_remaining(3.0, a, b, 0.001, 0.002) == 0.0
    assert expected_remaining(0.0, a, b, 0.0, 0.0) is None


def test_expected_remaining_near_a_decision() -> None:
    # The OpenBench vector's normalized LLR (2.9417) is a hair under B = 2.9444: only a few dozen games left.
    status = sprt_status(SprtConfig(0.5, 2.5), pentanomial=[39, 8843, 26675, 9240, 44])
    assert status.decision is None
    assert status.expected_remaining is not None and 0.0 < status.expected_remaining < 500.0


def _simulate(probabilities: Sequence[float], config: SprtConfig, seed: int) -> tuple[str | None, int]:
    """Play pairs drawn from a pentanomial distribution until the SPRT decides (checking every 20 pairs)."""
    rng = random.Random(seed)
    counts = [0] * 5
    status = sprt_status(config, pentanomial=counts)
    while sum(counts) < 20_000:
        for outcome in rng.choices(range(5), probabilities, k=20):
            counts[outcome] += 1
        status = sprt_status(config, pentanomial=counts)
        if status.decision is not None:
            break
    return status.decision, status.games


STRONGER = (0.05, 0.2, 0.45, 0.22, 0.08)  # mean score 0.52 per game: about +14 Elo, +22 nElo
EQUAL = (0.06, 0.2, 0.48, 0.2, 0.06)


@pytest.mark.parametrize("model", ["normalized", "logistic"])
def test_simulated_stronger_player_reaches_h1(model: str) -> None:
    config = SprtConfig(0.0, 10.0, model=model)
    for seed in range(3):
        assert _simulate(STRONGER, config, seed)[0] == "H1"


@pytest.mark.parametrize("model", ["normalized", "logistic"])
def test_simulated_equal_players_reach_h0(model: str) -> None:
    config = SprtConfig(0.0, 10.0, model=model)
    for seed in range(3):
        assert _simulate(EQUAL, config, seed)[0] == "H0"


def test_config_parse() -> None:
    assert SprtConfig.parse("elo0=0 elo1=10 alpha=0.05 beta=0.05 model=normalized") == SprtConfig(0.0, 10.0)
    assert SprtConfig.parse("elo0=-1.5, elo1=2.5, alpha=0.1,beta=0.2, model=logistic") == SprtConfig(
        -1.5, 2.5, 0.1, 0.2, "logistic"
    )
    assert SprtConfig.parse("elo1=5 elo0=0 model=bayeselo").model == "bayeselo"


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("elo1=10", "elo0"),
        ("elo0=0", "elo1"),
        ("elo0=x elo1=10", "elo0"),
        ("elo0=0 elo1=10 alpha=1.5", "alpha"),
        ("elo0=0 elo1=10 beta=0", "beta"),
        ("elo0=0 elo1=10 model=gaussian", "model"),
        ("elo0=0 elo1=10 gamma=3", "gamma"),
        ("elo0=0 elo1=10 elo0=1", "elo0"),
        ("elo0=10 elo1=0", "elo1"),
        ("elo0=0 elo1", "elo1"),
    ],
)
def test_config_parse_errors_name_the_field(text: str, field: str) -> None:
    with pytest.raises(ValueError, match=field):
        SprtConfig.parse(text)
