"""A rating list for many engines: one Bradley–Terry (logistic Elo) fit over all games at once.

Model: a game between ``black`` and ``white`` gives Black the expected score
``E = L(R_black − R_white + A)``, L(e) = 1/(1 + 10^(−e/400)), where A is the first-move (Black)
advantage in Elo (fitted when ``first_move``, else 0).  Draws count as half points, so the
log-likelihood is ``Σ_games s·ln E + (1 − s)·ln(1 − E)`` with s Black's score.  It is concave and is
maximized by Newton's method with step halving (games are grouped by (black, white) first, so the
cost does not grow with the number of games).

Prior: an engine that won (or lost) every game has no finite maximum-likelihood rating.  With
``prior = w > 0`` every engine also plays ``w`` virtual games, all drawn, against a virtual opponent
rated 0, and the first-move term gets ``w`` drawn virtual games between equal players: the fit is
the MAP estimate under that prior.  All estimates are then finite, and since the prior's pulls
cancel when the ratings average 0, the fit stays centred near 0.  The default ``w = 1`` pulls each
rating towards the middle by about one drawn game's worth of evidence.  With ``prior = 0`` the fit
is the plain maximum-likelihood estimate, and RatingsError is raised when that does not exist (some
group of engines scored nothing against the rest, or Black won or lost every point).

Ratings are then shifted to average 0, or so that ``anchor`` is at ``anchor_elo``.

Error bars (``rating_list``) come from a parametric bootstrap, as Ordo's ``-s``: every game is
replayed from the fitted model as a win, draw or loss, with the fitted expected score and the draw
rate observed in its pairing (both colour orders together; lowered where needed so that both
decisive results keep a probability ≥ 0).  Each replica is refitted with the same prior and gauge,
and the interval is the 2.5–97.5 percentile range of the replicas (so an anchor's interval is a
point).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from matches.ratings.elo import RatingsError

_C = math.log(10.0) / 400.0  # d(logit)/d(Elo)
_NEWTON_ITERATIONS = 100
_NEWTON_TOL = 1e-7  # Elo
_SCORES = (0.0, 0.5, 1.0)

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class GameResult:
    """One game: who had Black (moved first), who had White, and Black's score."""

    black: str
    """The player who moved first."""
    white: str
    """The other player."""
    score: float
    """Black's score: 1 (Black won), 0.5 (draw) or 0 (White won)."""

    def __post_init__(self) -> None:
        if self.score not in _SCORES:
            raise RatingsError(f"a game's score is 0, 0.5 or 1 for Black, got {self.score!r}")
        if self.black == self.white:
            raise RatingsError(f"{self.black!r} cannot play itself")


@dataclass(frozen=True)
class Rating:
    """One engine's line in a rating list."""

    name: str
    elo: float
    """Fitted rating (mean 0 over the list, or relative to the anchor)."""
    low: float
    """2.5th percentile of the bootstrap replicas (nan without bootstrap)."""
    high: float
    """97.5th percentile of the bootstrap replicas (nan without bootstrap)."""
    margin: float
    """Half-width (high − low)/2."""
    games: int
    """Games played."""
    points: float
    """Points scored (draws ½)."""
    score: float
    """points/games."""


@dataclass(frozen=True)
class RatingList:
    """A fitted rating list."""

    ratings: list[Rating]
    """Best first."""
    first_move_advantage: float
    """Fitted Black advantage in Elo (0 when not fitted)."""


@dataclass(frozen=True)
class _Cells:
    """Games grouped by (black, white): indices into names, game counts and outcome counts."""

    names: list[str]
    black: IntArray
    white: IntArray
    games: FloatArray
    wins: FloatArray  # Black wins
    draws: FloatArray

    @property
    def points(self) -> FloatArray:
        return self.wins + 0.5 * self.draws


def _cells(games: Sequence[GameResult]) -> _Cells:
    names = sorted({g.black for g in games} | {g.white for g in games})
    index = {name: i for i, name in enumerate(names)}
    table: dict[tuple[int, int], list[int]] = {}
    for g in games:
        counts = table.setdefault((index[g.black], index[g.white]), [0, 0, 0])
        counts[int(g.score * 2)] += 1
    keys = sorted(table)
    loss, draw, win = (np.array([table[k][j] for k in keys], dtype=np.float64) for j in range(3))
    return _Cells(
        names=names,
        black=np.array([k[0] for k in keys], dtype=np.int64),
        white=np.array([k[1] for k in keys], dtype=np.int64),
        games=loss + draw + win,
        wins=win,
        draws=draw,
    )


def _design(cells: _Cells, first_move: bool) -> FloatArray:
    """Rows map the parameters (ratings..., advantage) to each cell's Elo difference for Black."""
    m = len(cells.names)
    x = np.zeros((len(cells.games), m + 1))
    rows = np.arange(len(cells.games))
    x[rows, cells.black] += 1.0
    x[rows, cells.white] -= 1.0
    if first_move:
        x[:, m] = 1.0
    return x


def _log_sigmoid(z: FloatArray) -> FloatArray:
    return -np.logaddexp(0.0, -z)


def _newton(
    x: FloatArray,
    games: FloatArray,
    points: FloatArray,
    start: FloatArray,
    *,
    first_move: bool,
    prior: float,
) -> tuple[FloatArray, bool]:
    """Maximize the (penalized) log-likelihood for a batch of point vectors.

    ``points`` is (batch, cells); ``start`` (batch, params).  Returns the parameters (batch, params)
    and whether every row converged.
    """
    batch, params = start.shape
    m = params - 1
    # Prior: w drawn virtual games per rating against 0 and (if fitted) for the advantage against 0.
    prior_rows = np.full(params, prior)
    if not first_move:
        prior_rows[m] = 0.0
    # Gauge: without a prior the likelihood ignores a common shift of the ratings; fix it with a penalty on
    # their sum, which does not move the maximum otherwise.
    gauge = np.zeros((params, params))
    if prior == 0.0:
        gauge[:m, :m] = _C * _C
    if not first_move:
        gauge[m, m] = 1.0  # the advantage is held at 0

    def objective(theta: FloatArray) -> FloatArray:
        z = _C * theta @ x.T
        ll = (points * _log_sigmoid(z) + (games - points) * _log_sigmoid(-z)).sum(axis=1)
        zp = _C * theta
        ll += (0.5 * prior_rows * (_log_sigmoid(zp) + _log_sigmoid(-zp))).sum(axis=1)
        ll -= 0.5 * np.einsum("bi,ij,bj->b", theta, gauge, theta)
        return np.asarray(ll)

    theta = start.copy()
    current = objective(theta)
    converged = np.zeros(batch, dtype=bool)
    for _ in range(_NEWTON_ITERATIONS):
        z = _C * theta @ x.T
        e = 1.0 / (1.0 + np.exp(-z))
        grad = _C * (points - games * e) @ x
        h = _C * _C * games * e * (1.0 - e)
        hess = -np.einsum("ki,bk,kj->bij", x, h, x)
        ep = 1.0 / (1.0 + np.exp(-_C * theta))
        grad += _C * prior_rows * (0.5 - ep)
        hess -= (_C * _C * prior_rows * ep * (1.0 - ep))[:, :, None] * np.eye(params)
        grad -= theta @ gauge
        hess -= gauge
        step = -np.linalg.solve(hess, grad[:, :, None])[:, :, 0]
        step[converged] = 0.0
        scale = np.ones(batch)
        for _ in range(40):  # halve the step where it does not improve the objective
            candidate = theta + scale[:, None] * step
            value = objective(candidate)
            worse = value < current - 1e-12 * np.abs(current)
            if not worse.any():
                break
            scale[worse] *= 0.5
        theta = candidate
        current = value
        converged |= np.abs(scale[:, None] * step).max(axis=1) < _NEWTON_TOL
        if converged.all():
            break
    return theta, bool(converged.all())


def _check_mle_exists(cells: _Cells, first_move: bool) -> None:
    """Without a prior: every engine must be reachable from every other through 'scored against' links, and
    the first-move side must have both won and lost points."""
    m = len(cells.names)
    scored: list[set[int]] = [set() for _ in range(m)]  # i -> j: i scored against j
    for b, w, n, pts in zip(cells.black, cells.white, cells.games, cells.points, strict=True):
        if pts > 0:
            scored[int(b)].add(int(w))
        if pts < n:
            scored[int(w)].add(int(b))
    backward: list[set[int]] = [set() for _ in range(m)]
    for i, targets in enumerate(scored):
        for j in targets:
            backward[j].add(i)
    for graph, verb in ((scored, "won"), (backward, "lost")):
        seen, todo = {0}, [0]
        while todo:
            for j in graph[todo.pop()]:
                if j not in seen:
                    seen.add(j)
                    todo.append(j)
        if len(seen) < m:
            # Engines not reached from engine 0 won (or lost) every game they played against those reached.
            group = ", ".join(sorted(cells.names[i] for i in set(range(m)) - seen))
            rest = ", ".join(sorted(cells.names[i] for i in seen))
            raise RatingsError(
                f"no finite maximum-likelihood ratings: {group} {verb} every game against {rest} "
                "(or never played them); use a prior > 0"
            )
    total, points = float(cells.games.sum()), float(cells.points.sum())
    if first_move and (points == 0.0 or points == total):
        raise RatingsError("no finite first-move advantage: Black won or lost every point; use a prior > 0")


def _shift(theta: FloatArray, names: list[str], anchor: str | None, anchor_elo: float) -> FloatArray:
    """Ratings (batch, m) moved to mean 0, or with the anchor at anchor_elo."""
    ratings = theta[:, : len(names)]
    if anchor is None:
        return ratings - ratings.mean(axis=1, keepdims=True)
    i = names.index(anchor)
    return ratings - ratings[:, i : i + 1] + anchor_elo


def _check_options(names: list[str], anchor: str | None, prior: float) -> None:
    if anchor is not None and anchor not in names:
        raise RatingsError(f"anchor {anchor!r} played no game")
    if not (prior >= 0.0 and math.isfinite(prior)):
        raise RatingsError(f"prior must be a finite number >= 0, got {prior!r}")


def _fit_cells(cells: _Cells, first_move: bool, prior: float) -> FloatArray:
    if prior == 0.0:
        _check_mle_exists(cells, first_move)
    x = _design(cells, first_move)
    theta, converged = _newton(
        x,
        cells.games,
        cells.points[None, :],
        np.zeros((1, len(cells.names) + 1)),
        first_move=first_move,
        prior=prior,
    )
    if not converged:
        raise RatingsError("the rating fit did not converge")
    return np.asarray(theta[0])


def fit(
    games: Sequence[GameResult],
    *,
    first_move: bool = True,
    anchor: str | None = None,
    anchor_elo: float = 0.0,
    prior: float = 1.0,
) -> tuple[dict[str, float], float]:
    """Ratings by name (mean 0, or ``anchor`` at ``anchor_elo``) and the first-move advantage (Elo; 0 when
    ``first_move`` is False).  ``prior`` is the number of virtual drawn games per engine (see the module)."""
    if not games:
        if anchor is not None:
            raise RatingsError(f"anchor {anchor!r} played no game")
        return {}, 0.0
    cells = _cells(games)
    _check_options(cells.names, anchor, prior)
    theta = _fit_cells(cells, first_move, prior)
    ratings = _shift(theta[None, :], cells.names, anchor, anchor_elo)[0]
    advantage = float(theta[-1]) if first_move else 0.0
    return {name: float(r) for name, r in zip(cells.names, ratings, strict=True)}, advantage


def rating_list(
    games: Sequence[GameResult],
    *,
    bootstrap: int = 200,
    seed: int = 0,
    first_move: bool = True,
    anchor: str | None = None,
    anchor_elo: float = 0.0,
    prior: float = 1.0,
) -> RatingList:
    """The fitted list, best first, with 95% parametric-bootstrap intervals from ``bootstrap`` replicas
    (``numpy.random.default_rng(seed)``); ``bootstrap = 0`` leaves the intervals nan.

    The bootstrap needs ``prior > 0`` (a replica may hold a sweep that the data did not).
    """
    if bootstrap < 0:
        raise RatingsError(f"bootstrap must be >= 0, got {bootstrap}")
    if bootstrap and prior <= 0.0:
        raise RatingsError("the bootstrap needs prior > 0 (a replica may hold a sweep)")
    if not games:
        if anchor is not None:
            raise RatingsError(f"anchor {anchor!r} played no game")
        return RatingList([], 0.0)
    cells = _cells(games)
    names = cells.names
    _check_options(names, anchor, prior)
    theta = _fit_cells(cells, first_move, prior)
    estimate = _shift(theta[None, :], names, anchor, anchor_elo)[0]
    advantage = float(theta[-1]) if first_move else 0.0
    low = high = np.full(len(names), math.nan)
    if bootstrap:
        replicas = _bootstrap(cells, theta, bootstrap, seed, first_move, prior)
        low, high = np.percentile(_shift(replicas, names, anchor, anchor_elo), [2.5, 97.5], axis=0)

    games_played = np.zeros(len(names))
    points = np.zeros(len(names))
    np.add.at(games_played, cells.black, cells.games)
    np.add.at(games_played, cells.white, cells.games)
    np.add.at(points, cells.black, cells.points)
    np.add.at(points, cells.white, cells.games - cells.points)
    rows = [
        Rating(
            name=name,
            elo=float(estimate[i]),
            low=float(low[i]),
            high=float(high[i]),
            margin=float((high[i] - low[i]) / 2.0),
            games=int(games_played[i]),
            points=float(points[i]),
            score=float(points[i] / games_played[i]),
        )
        for i, name in enumerate(names)
    ]
    rows.sort(key=lambda r: (-r.elo, r.name))
    return RatingList(rows, advantage)


def _bootstrap(
    cells: _Cells, theta: FloatArray, samples: int, seed: int, first_move: bool, prior: float
) -> FloatArray:
    """Refitted parameters (samples, params) of games replayed from the model fitted as ``theta``."""
    x = _design(cells, first_move)
    expected = 1.0 / (1.0 + np.exp(-_C * (x @ theta)))
    # Draw rate per pairing, both colour orders together.
    pair = np.minimum(cells.black, cells.white) * len(cells.names) + np.maximum(cells.black, cells.white)
    _, group = np.unique(pair, return_inverse=True)
    draw_rate = np.bincount(group, cells.draws)[group] / np.bincount(group, cells.games)[group]
    draw_rate = np.minimum(draw_rate, 2.0 * np.minimum(expected, 1.0 - expected))
    win = np.clip(expected - draw_rate / 2.0, 0.0, 1.0)
    loss = np.clip(1.0 - win - draw_rate, 0.0, 1.0)
    probabilities = np.stack([loss, draw_rate, win], axis=1)
    probabilities /= probabilities.sum(axis=1, keepdims=True)
    rng = np.random.default_rng(seed)
    outcomes = rng.multinomial(cells.games.astype(np.int64), probabilities, size=(samples, len(cells.games)))
    points = outcomes[:, :, 2] + 0.5 * outcomes[:, :, 1]
    replicas, _ = _newton(
        x,
        cells.games,
        points.astype(np.float64),
        np.repeat(theta[None, :], samples, axis=0),
        first_move=first_move,
        prior=prior,
    )
    return replicas
