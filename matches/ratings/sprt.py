"""Sequential probability ratio tests for two-player matches.

Three models, all giving a log-likelihood ratio (LLR) compared with Wald's bounds
``A = ln(β/(1−α))`` (accept H0 at or below) and ``B = ln((1−β)/α)`` (accept H1 at or above):

- **logistic** GSPRT (bounds in Elo).  H_k says the mean score per game is ``s_k = L(elo_k)``.
  Each hypothesis is represented by the distribution over the outcomes that is most likely given
  the sample and has mean s_k: with x_i = a_i − s_k it is ``p_i = p̂_i/(1 + θ x_i)``, θ the root of
  the secular equation ``Σ p̂_i x_i/(1 + θ x_i) = 0`` (one root in (−1/max x, −1/min x), found by
  bisection).  Then ``LLR = N·Σ p̂_i ln(p1_i/p0_i)``.
- **normalized** GSPRT (bounds in normalized Elo).  H_k says ``(μ − ½)/σ = t_k`` with
  ``t_k = nElo_k/NELO`` per game, ``× √2`` when the observations are pairs (σ is then a pair's
  spread, √2 smaller than a game's).  The constrained maximum-likelihood distribution is the fixed
  point of: take μ and σ of the current p, put ``x_i = a_i − ½ − t·σ·(1 + ((μ − a_i)/σ)²)/2``
  (the constraint linearized at p: Σ p_i x_i = μ − ½ − tσ), solve the secular equation for x,
  repeat.  A fixed point is the constrained optimum's KKT condition.  The iteration is capped
  (100 steps from the uniform distribution, which is plenty for any sensible bounds); if it has
  not settled, the fixed point is found as a root in σ instead (at μ = ½ + tσ, the σ for which one
  step returns a distribution with that σ; bracketed on a grid and bisected), and as a last resort
  the iterate that comes closest to the constraint is used.
- **bayeselo**: cutechess's legacy trinomial test.  drawElo is estimated from the sample with a
  Jeffreys (½, ½, ½) prior on the counts, the Elo bounds are divided by ``scale = 4x/(1+x)²``
  (x = 10^(−drawElo/400)) to become BayesElo differences, each hypothesis becomes win/draw/loss
  probabilities, and ``LLR = Σ n_i ln(P1_i/P0_i)`` over the raw counts.

For the two GSPRT models, zero counts are replaced by 1e-3 (as fishtest does), so the LLR is always
finite.

The expected number of games still needed treats the LLR as a Brownian motion: per observation its
drift μ and variance σ² are the sample mean and variance of the increments ``ln(p1_i/p0_i)`` (to
first order these are the reference's ``(s − (s0+s1)/2)(s1 − s0)/v`` and ``(s1 − s0)²/v``).  From
the current LLR x between A and B, with ``P_B = (1 − e^(−2μ(x−A)/σ²))/(1 − e^(−2μ(B−A)/σ²))`` the
chance of reaching B first, the expected further run length is
``(P_B·(B − x) + (1 − P_B)·(A − x))/μ`` observations, or ``(x − A)(B − x)/σ²`` when μ = 0.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from matches.ratings.elo import (
    NELO,
    PENTANOMIAL_SCORES,
    TRINOMIAL_SCORES,
    RatingsError,
    check_counts,
    score_from_elo,
)

MODELS: tuple[str, ...] = ("normalized", "logistic", "bayeselo")
"""The SPRT models SprtConfig accepts."""
ZERO_COUNT: float = 1e-3
"""What a zero count becomes in the GSPRT models (fishtest's regularization)."""
_FIXED_POINT_TOL = 1e-9
_FIXED_POINT_ITERATIONS = 100
_T_ERROR_TOL = 1e-8


@dataclass(frozen=True)
class SprtConfig:
    """An SPRT: H0 says the difference is ``elo0``, H1 says ``elo1`` (nElo for the normalized model)."""

    elo0: float
    """The difference under H0 (Elo, or nElo for the normalized model)."""
    elo1: float
    """The difference under H1; greater than elo0."""
    alpha: float = 0.05
    """Chance of accepting H1 when H0 holds."""
    beta: float = 0.05
    """Chance of accepting H0 when H1 holds."""
    model: str = "normalized"
    """``normalized`` (nElo bounds), ``logistic`` (Elo bounds) or ``bayeselo`` (cutechess's legacy
    test, trinomial counts only)."""

    def __post_init__(self) -> None:
        for name in ("elo0", "elo1", "alpha", "beta"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise RatingsError(f"SPRT {name} must be a finite number, got {value!r}")
        for name in ("alpha", "beta"):
            if not 0.0 < getattr(self, name) < 1.0:
                raise RatingsError(f"SPRT {name} must be between 0 and 1, got {getattr(self, name)}")
        if self.alpha + self.beta >= 1.0:
            raise RatingsError(f"SPRT alpha + beta must be below 1, got {self.alpha} + {self.beta}")
        if not self.elo0 < self.elo1:
            raise RatingsError(f"SPRT elo1 must be greater than elo0, got elo0={self.elo0} elo1={self.elo1}")
        if self.model not in MODELS:
            raise RatingsError(f"SPRT model must be one of {', '.join(MODELS)}, got {self.model!r}")

    def bounds(self) -> tuple[float, float]:
        """Wald's (A, B) = (ln(β/(1−α)), ln((1−β)/α)); ±2.944 for α = β = 0.05."""
        return math.log(self.beta / (1.0 - self.alpha)), math.log((1.0 - self.beta) / self.alpha)

    @classmethod
    def parse(cls, text: str) -> SprtConfig:
        """``"elo0=0 elo1=10 alpha=0.05 beta=0.05 model=normalized"``; fields may also be separated by commas.

        elo0 and elo1 are required.  RatingsError (a ValueError) names the field that is wrong.
        """
        fields: dict[str, str] = {}
        for token in text.replace(",", " ").split():
            name, sep, value = token.partition("=")
            name = name.strip().lower()
            if not sep or not name or not value:
                raise RatingsError(f"SPRT field {token!r} is not name=value")
            if name not in ("elo0", "elo1", "alpha", "beta", "model"):
                raise RatingsError(f"SPRT field {name!r} is unknown (elo0, elo1, alpha, beta, model)")
            if name in fields:
                raise RatingsError(f"SPRT field {name!r} is given twice")
            fields[name] = value
        for name in ("elo0", "elo1"):
            if name not in fields:
                raise RatingsError(f"SPRT field {name!r} is missing")
        numbers: dict[str, float] = {}
        for name in ("elo0", "elo1", "alpha", "beta"):
            if name in fields:
                try:
                    numbers[name] = float(fields[name])
                except ValueError:
                    raise RatingsError(f"SPRT field {name!r} is not a number: {fields[name]!r}") from None
        model = fields.get("model", "normalized").lower()
        return cls(model=model, **numbers)


# The secular equation and the two GSPRT models.


def _regularize(counts: Sequence[float]) -> tuple[float, list[float]]:
    values = [ZERO_COUNT if c == 0 else float(c) for c in counts]
    n = sum(values)
    return n, [c / n for c in values]


def _secular(pdf: Sequence[float], x: Sequence[float]) -> list[float] | None:
    """The distribution ``pdf_i/(1 + θ x_i)`` with ``Σ pdf_i x_i/(1 + θ x_i) = 0``; None if no such θ exists
    (all x of one sign where pdf > 0)."""
    support = [xi for p, xi in zip(pdf, x, strict=True) if p > 0.0]
    hi_x, lo_x = max(support), min(support)
    if hi_x == 0.0 and lo_x == 0.0:
        return list(pdf)
    if hi_x <= 0.0 or lo_x >= 0.0:
        return None

    def f(theta: float) -> float:
        return sum(p * xi / (1.0 + theta * xi) for p, xi in zip(pdf, x, strict=True) if p > 0.0)

    # f decreases from +inf at lo to −inf at hi.
    lo, hi = -1.0 / hi_x, -1.0 / lo_x
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if f(mid) > 0.0:
            lo = mid
        else:
            hi = mid
    theta = 0.5 * (lo + hi)
    p = [pi / (1.0 + theta * xi) if pi > 0.0 else 0.0 for pi, xi in zip(pdf, x, strict=True)]
    total = sum(p)
    return [pi / total for pi in p]


def _mle_mean(pdf: Sequence[float], scores: Sequence[float], s: float) -> list[float]:
    """The most likely distribution (given the sample pdf) whose mean is s."""
    p = _secular(pdf, [a - s for a in scores])
    if p is None:  # s outside the outcome range: cannot happen for 0 < s < 1 and scores spanning 0..1
        raise RatingsError(f"score {s} is outside the outcomes {list(scores)}")
    return p


def _moments(p: Sequence[float], scores: Sequence[float]) -> tuple[float, float]:
    mu = sum(pi * a for pi, a in zip(p, scores, strict=True))
    var = sum(pi * (a - mu) ** 2 for pi, a in zip(p, scores, strict=True))
    return mu, math.sqrt(max(var, 0.0))


def _mle_t_value(pdf: Sequence[float], scores: Sequence[float], t: float) -> list[float]:
    """The most likely distribution (given the sample pdf) with ``(μ − ½)/σ = t``.

    Fixed-point iteration from the uniform distribution; if it has not settled after the cap, the fixed point
    is found as a root in σ instead (``_t_value_by_sigma``), and failing that the iterate closest to the
    constraint is used.
    """
    p: list[float] = [1.0 / len(pdf)] * len(pdf)
    best, best_error = p, _t_error(p, scores, t)
    for _ in range(_FIXED_POINT_ITERATIONS):
        q = _t_value_step(pdf, scores, t, *_moments(p, scores))
        if q is None:
            break
        change = max(abs(pi - qi) for pi, qi in zip(p, q, strict=True))
        p = q
        e = _t_error(p, scores, t)
        if e < best_error:
            best, best_error = p, e
        if change < _FIXED_POINT_TOL:
            return p
    if best_error < _T_ERROR_TOL:  # settled up to the secular solver's rounding (extreme counts)
        return best
    return _t_value_by_sigma(pdf, scores, t) or best


def _t_error(p: Sequence[float], scores: Sequence[float], t: float) -> float:
    mu, sigma = _moments(p, scores)
    return abs(mu - 0.5 - t * sigma)


def _t_value_step(
    pdf: Sequence[float], scores: Sequence[float], t: float, mu: float, sigma: float
) -> list[float] | None:
    """The constrained optimum with the constraint linearized at a distribution of moments (μ, σ)."""
    if sigma <= 0.0:
        return None
    x = [a - 0.5 - t * sigma * (1.0 + ((mu - a) / sigma) ** 2) / 2.0 for a in scores]
    return _secular(pdf, x)


def _t_value_by_sigma(pdf: Sequence[float], scores: Sequence[float], t: float) -> list[float] | None:
    """The fixed point as a root in σ: at μ = ½ + tσ the linearized step gives p(σ), and a fixed point is a σ
    with σ(p(σ)) = σ (the secular equation then makes μ(p) = ½ + tσ too).  Roots are bracketed on a grid and
    bisected; the most likely one that meets the constraint wins.  None if there is none."""
    span = min(0.5 * (max(scores) - min(scores)), 0.5 / abs(t) if t else math.inf)
    grid = 256

    def residual(sigma: float) -> tuple[float, list[float]] | None:
        q = _t_value_step(pdf, scores, t, 0.5 + t * sigma, sigma)
        return None if q is None else (_moments(q, scores)[1] - sigma, q)

    points = [(span * j / grid, residual(span * j / grid)) for j in range(1, grid)]
    roots: list[list[float]] = []
    for (s0, r0), (s1, r1) in itertools.pairwise(points):
        if r0 is None or r1 is None or (r0[0] > 0.0) == (r1[0] > 0.0):
            continue
        lo, hi, r_lo = s0, s1, r0[0]
        q = r1[1]
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            r = residual(mid)
            if r is None:
                break
            q = r[1]
            if (r[0] > 0.0) == (r_lo > 0.0):
                lo, r_lo = mid, r[0]
            else:
                hi = mid
        if _t_error(q, scores, t) < _T_ERROR_TOL:  # not a jump where the secular equation gives out
            roots.append(q)
    if not roots:
        return None
    return max(roots, key=lambda q: sum(p * math.log(qi) for p, qi in zip(pdf, q, strict=True) if p > 0.0))


def _llr(pdf: Sequence[float], n: float, p0: Sequence[float], p1: Sequence[float]) -> float:
    return n * sum(p * math.log(b / a) for p, a, b in zip(pdf, p0, p1, strict=True) if p > 0.0)


def _check(counts: Sequence[float], scores: Sequence[float]) -> list[float]:
    if len(scores) < 2:
        raise RatingsError(f"need at least two outcome scores, got {list(scores)}")
    if min(scores) > 0.0 or max(scores) < 1.0:
        raise RatingsError(f"outcome scores must span 0..1, got {list(scores)}")
    return check_counts(counts, len(scores), "SPRT")


def _logistic_pdfs(
    counts: Sequence[float], scores: Sequence[float], elo0: float, elo1: float
) -> tuple[float, list[float], list[float], list[float]]:
    n, pdf = _regularize(_check(counts, scores))
    p0 = _mle_mean(pdf, scores, score_from_elo(elo0))
    p1 = _mle_mean(pdf, scores, score_from_elo(elo1))
    return n, pdf, p0, p1


def _games_per_count(scores: Sequence[float], games_per_count: int | None) -> int:
    if games_per_count is not None:
        if games_per_count < 1:
            raise RatingsError(f"games_per_count must be at least 1, got {games_per_count}")
        return games_per_count
    return 2 if len(scores) == len(PENTANOMIAL_SCORES) else 1


def _normalized_pdfs(
    counts: Sequence[float], scores: Sequence[float], nelo0: float, nelo1: float, games_per_count: int | None
) -> tuple[float, list[float], list[float], list[float]]:
    n, pdf = _regularize(_check(counts, scores))
    factor = math.sqrt(_games_per_count(scores, games_per_count)) / NELO
    p0 = _mle_t_value(pdf, scores, nelo0 * factor)
    p1 = _mle_t_value(pdf, scores, nelo1 * factor)
    return n, pdf, p0, p1


def llr_logistic(counts: Sequence[int], scores: Sequence[float], elo0: float, elo1: float) -> float:
    """GSPRT LLR of H1: Elo = elo1 against H0: Elo = elo0 (logistic model)."""
    if sum(counts) == 0:
        return 0.0
    n, pdf, p0, p1 = _logistic_pdfs(counts, scores, elo0, elo1)
    return _llr(pdf, n, p0, p1)


def llr_normalized(
    counts: Sequence[int],
    scores: Sequence[float],
    nelo0: float,
    nelo1: float,
    *,
    games_per_count: int | None = None,
) -> float:
    """GSPRT LLR of H1: nElo = nelo1 against H0: nElo = nelo0.

    ``games_per_count`` is how many games one count stands for (default: 2 for five pentanomial outcomes,
    else 1); it sets the √games factor between a game's σ and an observation's.
    """
    if sum(counts) == 0:
        return 0.0
    n, pdf, p0, p1 = _normalized_pdfs(counts, scores, nelo0, nelo1, games_per_count)
    return _llr(pdf, n, p0, p1)


# cutechess's BayesElo test.


def _bayeselo_probabilities(bayes_elo: float, draw_elo: float) -> tuple[float, float, float]:
    """(P(loss), P(draw), P(win)) of a BayesElo difference and a drawElo."""
    p_win = 1.0 / (1.0 + 10.0 ** ((draw_elo - bayes_elo) / 400.0))
    p_loss = 1.0 / (1.0 + 10.0 ** ((draw_elo + bayes_elo) / 400.0))
    return p_loss, max(1.0 - p_win - p_loss, 0.0), p_win


def draw_elo(losses: float, draws: float, wins: float) -> float:
    """drawElo of a sample with a Jeffreys (½, ½, ½) prior: 200·log10((1−pL)/pL · (1−pW)/pW)."""
    n = losses + draws + wins + 1.5
    p_win, p_loss = (wins + 0.5) / n, (losses + 0.5) / n
    return 200.0 * math.log10((1.0 - p_loss) / p_loss * (1.0 - p_win) / p_win)


def bayeselo_scale(draw_elo_value: float) -> float:
    """``4x/(1+x)²`` with x = 10^(−drawElo/400): Elo = BayesElo × scale near 0."""
    x = 10.0 ** (-draw_elo_value / 400.0)
    return 4.0 * x / (1.0 + x) ** 2


def _bayeselo_pdfs(
    losses: int, draws: int, wins: int, elo0: float, elo1: float
) -> tuple[list[float], list[float]]:
    counts = check_counts((losses, draws, wins), 3, "trinomial")
    d = draw_elo(*counts)
    scale = bayeselo_scale(d)
    p0 = list(_bayeselo_probabilities(elo0 / scale, d))
    p1 = list(_bayeselo_probabilities(elo1 / scale, d))
    return p0, p1


def llr_bayeselo(losses: int, draws: int, wins: int, elo0: float, elo1: float) -> float:
    """cutechess's LLR of H1: Elo = elo1 against H0: Elo = elo0 (BayesElo model, trinomial counts)."""
    p0, p1 = _bayeselo_pdfs(losses, draws, wins, elo0, elo1)
    return sum(c * math.log(b / a) for c, a, b in zip((losses, draws, wins), p0, p1, strict=True) if c > 0)


# Status of a running test.


@dataclass(frozen=True)
class SprtStatus:
    """Where a running SPRT stands."""

    llr: float
    """The log-likelihood ratio so far."""
    lower: float
    """Wald's lower bound A (accept H0 at or below)."""
    upper: float
    """Wald's upper bound B (accept H1 at or above)."""
    decision: str | None
    """None while the test goes on, else ``"H0"`` or ``"H1"``."""
    games: int
    """Games played (pairs × 2 for pentanomial counts)."""
    expected_remaining: float | None
    """Brownian estimate of the games still needed (0 once decided); None when it cannot be told (no games,
    or an LLR that does not move)."""


def expected_remaining(llr: float, lower: float, upper: float, drift: float, variance: float) -> float | None:
    """Expected further steps of a Brownian motion (drift, variance per step) at ``llr`` until it leaves
    (lower, upper); 0 outside, None when it does not move."""
    if llr <= lower or llr >= upper:
        return 0.0
    if variance <= 0.0 or not math.isfinite(variance):
        if drift == 0.0:
            return None
        return (upper - llr) / drift if drift > 0 else (lower - llr) / drift
    k = 2.0 * drift / variance
    if abs(k * (upper - lower)) < 1e-9:
        return (llr - lower) * (upper - llr) / variance
    # P(reach upper first), written with expm1 to stay exact for small k and finite for large |k|.
    if k > 0:
        p_upper = math.expm1(-k * (llr - lower)) / math.expm1(-k * (upper - lower))
    else:
        p_upper = math.expm1(k * (upper - llr)) / math.expm1(k * (upper - lower))
        p_upper = 1.0 - p_upper
    return (p_upper * (upper - llr) + (1.0 - p_upper) * (lower - llr)) / drift


def _increments(pdf: Sequence[float], p0: Sequence[float], p1: Sequence[float]) -> tuple[float, float]:
    steps = [math.log(b / a) for a, b in zip(p0, p1, strict=True)]
    mean = sum(p * x for p, x in zip(pdf, steps, strict=True))
    var = sum(p * (x - mean) ** 2 for p, x in zip(pdf, steps, strict=True))
    return mean, var


def sprt_status(
    config: SprtConfig,
    *,
    pentanomial: Sequence[int] | None = None,
    trinomial: Sequence[int] | None = None,
) -> SprtStatus:
    """The test's state from pentanomial pair counts (preferred) or trinomial (losses, draws, wins) counts.

    The bayeselo model needs trinomial counts (pair counts cannot be split into games); RatingsError
    otherwise.
    """
    lower, upper = config.bounds()
    counts: list[float]
    scores: tuple[float, ...]
    if config.model == "bayeselo":
        if trinomial is None:
            raise RatingsError("the bayeselo SPRT needs trinomial counts (losses, draws, wins)")
        counts, scores, per_count = check_counts(trinomial, 3, "trinomial"), TRINOMIAL_SCORES, 1
    elif pentanomial is not None:
        counts, scores, per_count = check_counts(pentanomial, 5, "pentanomial"), PENTANOMIAL_SCORES, 2
    elif trinomial is not None:
        counts, scores, per_count = check_counts(trinomial, 3, "trinomial"), TRINOMIAL_SCORES, 1
    else:
        raise RatingsError("sprt_status needs pentanomial or trinomial counts")
    n_raw = sum(counts)
    games = round(n_raw * per_count)
    if n_raw == 0:
        return SprtStatus(0.0, lower, upper, None, 0, None)

    if config.model == "bayeselo":
        losses, draws, wins = (round(c) for c in counts)
        p0, p1 = _bayeselo_pdfs(losses, draws, wins, config.elo0, config.elo1)
        pdf = [c / n_raw for c in counts]
        llr = sum(c * math.log(b / a) for c, a, b in zip(counts, p0, p1, strict=True) if c > 0)
    else:
        if config.model == "logistic":
            n, pdf, p0, p1 = _logistic_pdfs(counts, scores, config.elo0, config.elo1)
        else:
            n, pdf, p0, p1 = _normalized_pdfs(counts, scores, config.elo0, config.elo1, None)
        llr = _llr(pdf, n, p0, p1)

    decision = "H1" if llr >= upper else "H0" if llr <= lower else None
    drift, variance = _increments(pdf, p0, p1)
    steps = expected_remaining(llr, lower, upper, drift, variance)
    remaining = None if steps is None else max(steps, 0.0) * per_count
    return SprtStatus(llr, lower, upper, decision, games, remaining)
