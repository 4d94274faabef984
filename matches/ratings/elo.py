"""Match statistics for two players: score, Elo, 95% interval, LOS and normalized Elo.

Counts come in two shapes (the fishtest convention):

- trinomial ``(losses, draws, wins)`` per game, scored ``TRINOMIAL_SCORES`` = 0, ½, 1;
- pentanomial ``(LL, LD, WL+DD, WD, WW)`` per game pair (one opening, colours swapped), scored
  ``PENTANOMIAL_SCORES`` = 0, ¼, ½, ¾, 1 per game of the pair.

With outcome scores a_i, counts n_i, N = Σ n_i and p̂_i = n_i/N:

- score ``s = Σ p̂_i a_i`` (per game, since a pair's score is its mean per game);
- variance ``v = Σ p̂_i (a_i − s)²`` per observation (game or pair), ``se = sqrt(v/N)``;
- ``Elo(s) = −400·log10(1/s − 1)`` and the interval ``[Elo(s − z·se), Elo(s + z·se)]``, z = Φ⁻¹(0.975);
  scores are clamped to [1e-3, 1 − 1e-3] before the logarithm, as fishtest does (±1200 Elo at most);
- ``LOS = Φ((s − ½)/se)``: unlike cutechess's ``erf((W − L)/sqrt(2(W + L)))`` it counts draws;
- ``nElo = (s − ½)/σ_game · NELO``, NELO = 800/ln 10, with σ_game = sqrt(v) per game for trinomial counts
  and sqrt(2v) for pentanomial counts (a pair is two games); its half-width is z·NELO/sqrt(games).

Degenerate samples never divide by zero:

- no games: score ½, Elo 0, LOS ½, nElo 0; ``se``, ``margin`` and ``nelo_margin`` are ``inf`` and the
  interval is (−inf, inf): nothing is known;
- one outcome only (a sweep, all draws, all pairs 1½-½): ``v = 0`` so ``se = 0``, the interval collapses to
  the (clamped, finite) Elo, ``margin`` is 0, LOS is 0, ½ or 1, and nElo is ±inf (0 when s = ½), because
  the t-value of a sample without spread is unbounded; ``nelo_margin`` depends on the number of games only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from engine.errors import SamuelError

NELO: float = 800.0 / math.log(10.0)
"""Normalized-Elo scale: nElo = t-value × NELO (≈ 347.4356)."""
Z95: float = 1.959963984540054
"""Φ⁻¹(0.975): the two-sided 95% normal quantile."""
TRINOMIAL_SCORES: tuple[float, ...] = (0.0, 0.5, 1.0)
"""Per-game scores of the trinomial counts (losses, draws, wins)."""
PENTANOMIAL_SCORES: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0)
"""Per-game scores of the pentanomial pair counts (LL, LD, WL+DD, WD, WW)."""
SCORE_CLAMP: float = 1e-3
"""Scores are kept in [SCORE_CLAMP, 1 − SCORE_CLAMP] before they become Elo (fishtest's choice)."""


class RatingsError(SamuelError, ValueError):
    """Counts, results or test settings that make no sense (negative counts, a bad SPRT field...)."""


def clamp_score(s: float) -> float:
    """``s`` kept inside [SCORE_CLAMP, 1 − SCORE_CLAMP]."""
    return min(max(s, SCORE_CLAMP), 1.0 - SCORE_CLAMP)


def elo_from_score(s: float) -> float:
    """Elo difference of an expected score: ``−400·log10(1/s − 1)``, with s clamped (finite for any s)."""
    s = clamp_score(s)
    return -400.0 * math.log10(1.0 / s - 1.0) + 0.0  # + 0.0: no −0.0 at s = ½


def score_from_elo(e: float) -> float:
    """Expected score of an Elo difference: ``1/(1 + 10^(−e/400))``."""
    x = -e / 400.0
    if x > 300.0:  # 10**x would overflow; the score is 0 to double precision
        return 0.0
    return 1.0 / (1.0 + 10.0**x)


def normal_cdf(x: float) -> float:
    """Φ(x), the standard normal distribution function."""
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def check_counts(counts: Sequence[float], size: int, what: str) -> list[float]:
    """The counts as floats, or RatingsError if there are not ``size`` of them or one is negative."""
    values = [float(c) for c in counts]
    if len(values) != size:
        raise RatingsError(f"{what} needs {size} counts, got {len(values)}")
    if any(not math.isfinite(c) or c < 0 for c in values):
        raise RatingsError(f"{what} counts must be finite and non-negative, got {list(counts)}")
    return values


def mean_and_variance(counts: Sequence[float], scores: Sequence[float]) -> tuple[float, float, float]:
    """(N, s, v): total count, mean score and variance per observation; (0, ½, 0) when N = 0."""
    n = float(sum(counts))
    if n <= 0.0:
        return 0.0, 0.5, 0.0
    s = sum(c * a for c, a in zip(counts, scores, strict=True)) / n
    v = sum(c * (a - s) ** 2 for c, a in zip(counts, scores, strict=True)) / n
    return n, s, max(v, 0.0)


@dataclass(frozen=True)
class EloEstimate:
    """What a two-player match says about the first player (the one whose wins are counted)."""

    n: int
    """Observations: games (trinomial) or pairs (pentanomial)."""
    games: int
    """Games represented: n, or 2n for pairs."""
    score: float
    """Mean score per game, 0..1 (unclamped)."""
    elo: float
    """Elo(score), the score clamped to [1e-3, 1 − 1e-3]."""
    low: float
    """Lower end of the 95% interval (Elo)."""
    high: float
    """Upper end of the 95% interval (Elo)."""
    margin: float
    """Half-width (high − low)/2, the ``±`` that cutechess and fastchess print."""
    se: float
    """Standard error of the mean score."""
    los: float
    """Likelihood of superiority Φ((s − ½)/se), 0..1."""
    draw_ratio: float
    """Trinomial: draws/games.  Pentanomial: the share of pairs that scored exactly ½ (WL+DD), because the
    pair counts do not say how many single games were drawn."""
    nelo: float
    """Normalized Elo (s − ½)/σ_game · NELO."""
    nelo_margin: float
    """95% half-width of nElo, z·NELO/sqrt(games)."""

    def line(self) -> str:
        """One line for a report: ``+12.3 ± 8.1 (95%), nElo +20.1 ± 13.0, LOS 99.1%``."""
        return (
            f"{self.elo:+.1f} ± {self.margin:.1f} (95%), nElo {self.nelo:+.1f} ± {self.nelo_margin:.1f}, "
            f"LOS {100.0 * self.los:.1f}%"
        )


def estimate(counts: Sequence[float], scores: Sequence[float], games_per_count: int = 1) -> EloEstimate:
    """The estimate for any outcome distribution (``games_per_count`` is 2 for pairs); ``draw_ratio`` is
    the share of observations scoring exactly ½."""
    n, s, v = mean_and_variance(counts, scores)
    halves = sum(c for c, a in zip(counts, scores, strict=True) if a == 0.5)
    games = n * games_per_count
    if n == 0:
        inf = math.inf
        return EloEstimate(0, 0, 0.5, 0.0, -inf, inf, inf, inf, 0.5, 0.0, 0.0, inf)
    se = math.sqrt(v / n)
    elo = elo_from_score(s)
    low, high = elo_from_score(s - Z95 * se), elo_from_score(s + Z95 * se)
    if se > 0.0:
        los = normal_cdf((s - 0.5) / se)
        nelo = (s - 0.5) / math.sqrt(v * games_per_count) * NELO
    else:
        los = 0.5 if s == 0.5 else float(s > 0.5)
        nelo = 0.0 if s == 0.5 else math.copysign(math.inf, s - 0.5)
    return EloEstimate(
        n=round(n),
        games=round(games),
        score=s,
        elo=elo,
        low=low,
        high=high,
        margin=(high - low) / 2.0,
        se=se,
        los=los,
        draw_ratio=halves / n,
        nelo=nelo,
        nelo_margin=Z95 * NELO / math.sqrt(games),
    )


def trinomial(losses: int, draws: int, wins: int) -> EloEstimate:
    """The estimate from game counts (the fishtest order: losses, draws, wins)."""
    counts = check_counts((losses, draws, wins), 3, "trinomial")
    return estimate(counts, TRINOMIAL_SCORES, 1)


def pentanomial(counts: Sequence[int]) -> EloEstimate:
    """The estimate from pair counts (LL, LD, WL+DD, WD, WW)."""
    return estimate(check_counts(counts, 5, "pentanomial"), PENTANOMIAL_SCORES, 2)


def cutechess_margin(wins: int, losses: int, draws: int) -> float:
    """cutechess's printed ``±``: half the width of the Elo interval of μ ± z·σ/sqrt(N) (draws count in σ);
    ``inf`` without games."""
    est = trinomial(losses, draws, wins)
    return est.margin


def cutechess_los(wins: int, losses: int) -> float:
    """cutechess's LOS, which ignores draws: ``0.5 + 0.5·erf((W − L)/sqrt(2(W + L)))``.

    ½ without decisive games.
    """
    if wins < 0 or losses < 0:
        raise RatingsError(f"wins and losses must be non-negative, got {wins}, {losses}")
    if wins + losses == 0:
        return 0.5
    return 0.5 + 0.5 * math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses)))
