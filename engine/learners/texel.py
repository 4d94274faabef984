"""Texel tuning of the linear evaluation: game results regressed on quiet positions.

Every position of a game (where the side to move had a choice, ``book_data``) that
is *quiet* (the side to move has no capture, so the static score means what it
says) is a sample: its feature terms (``core.features``, side to move minus
opponent) and the game's result for the side to move (1 won, 1/2 drawn, 0
lost).  The model says the side to move scores ``sigmoid(K * eval / 100)`` with
``eval = sum w_i f_i`` in centi-men; the weights minimize the mean squared
error against the results (the Texel method), with a small ridge on the weights
relative to the start so features that rarely vary stay where they were.

The scale ``K`` is fitted first, with the starting weights, on the held-out
games (number % 10 == 0, ``book_data``), and then fixed: it anchors the weights'
unit (a man stays about 100).  The held-out loss is followed every iteration
and the weights of its lowest point are kept (early stopping).  The learning
curve (both losses by iteration) is returned for a plot.

Several sources (OCA, self-play games: ``Samples.source``) are fitted together,
each split the same way by game number in its own file and each with its own
``K``, fitted on its own held-out games: the same evaluation means surer results
in self-play at a few thousand nodes than between experts, and one scale for both
would bend the weights to reconcile them.  By default every source weighs the
same, in the fit and in the held-out loss that early stopping follows (the mean
of the sources' losses), so millions of self-play positions do not drown the
expert games; each source's held-out loss is recorded too.

Why on expert games: OCA's results are what strong play makes of a position.
Self-play (``selfplay.py``) adds positions the engine itself reaches.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engine import core
from engine.learners import book_data, choice_logit
from engine.named_evaluator import Evaluator
from engine.pdn import game_results

ProgressFn = Callable[[int, int], None]

RESULT_FOR_BLACK = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}
"""Black's score by result token; games with another token (``*``) are left out."""
RIDGE = 1e-7
"""Ridge on the change of each weight (per centi-man squared), against the mean squared error."""


@dataclass
class Samples:
    """Quiet positions with their game's result for the side to move."""

    features: np.ndarray
    """(N, F) float64 feature terms."""
    result: np.ndarray
    """(N,) 1, 0.5 or 0 for the side to move."""
    game: np.ndarray
    """(N,) the game's number in its file."""
    source: np.ndarray | None = None
    """(N,) which source (0, 1, ...: e.g. OCA, self-play) the position comes from; each source has its
    own scale K.  None: all from source 0."""

    def __post_init__(self) -> None:
        if self.source is None:
            self.source = np.zeros(len(self.result), dtype=np.int64)

    def __len__(self) -> int:
        return len(self.result)

    @property
    def sources(self) -> np.ndarray:
        assert self.source is not None
        return self.source

    def select(self, mask: np.ndarray) -> Samples:
        return Samples(self.features[mask], self.result[mask], self.game[mask], self.sources[mask])

    @staticmethod
    def concat(parts: Sequence[Samples]) -> Samples:
        """The samples of every part, part ``i`` as source ``i``."""
        return Samples(np.concatenate([p.features for p in parts]), np.concatenate([p.result for p in parts]),
                       np.concatenate([p.game for p in parts]),
                       np.concatenate([np.full(len(p), i, dtype=np.int64) for i, p in enumerate(parts)]))


def quiet_positions(positions: book_data.BookPositions,
                    results: dict[int, str]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(square-set rows, result for the side to move, game, features) of the quiet positions of
    games with a result (``pdn.game_results``): what every tuner here learns from."""
    rows = positions.pos.astype(np.uint32)
    black_score = np.array([RESULT_FOR_BLACK.get(results.get(int(g), "*"), np.nan) for g in positions.game])
    keep = ~book_data.has_capture(rows) & ~np.isnan(black_score)
    rows = np.ascontiguousarray(rows[keep])
    feats = np.empty((len(rows), len(core.feature_names())), dtype=np.int32)
    core.features_sets(rows, feats)
    mover_black = rows[:, 4] == 0
    score = np.where(mover_black, black_score[keep], 1.0 - black_score[keep])
    return rows, score, positions.game[keep].astype(np.int64), feats


def collect(positions: book_data.BookPositions, results: dict[int, str]) -> Samples:
    """The quiet positions of ``positions`` with their games' results (``pdn.game_results``)."""
    _, score, game, feats = quiet_positions(positions, results)
    return Samples(feats.astype(np.float64), score, game)


def load(pdn: str | Path, *, limit_games: int | None = None, cache_dir: str | Path | None = None,
         progress: ProgressFn | None = None) -> Samples:
    """Samples of every game of a PDN file (``book_data.load`` reads and caches the positions)."""
    positions = book_data.load(pdn, split="all", limit_games=limit_games, cache_dir=cache_dir,
                               progress=progress)
    return collect(positions, game_results(pdn))


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def loss(samples: Samples, weights: np.ndarray, k: float | np.ndarray) -> float:
    """Mean squared error of ``sigmoid(k * eval / 100)`` against the results (``k``: one scale, or
    one per source)."""
    if not len(samples):
        return 0.0
    return float(np.mean(_errors(samples, weights, k)))


def _errors(samples: Samples, weights: np.ndarray, k: float | np.ndarray) -> np.ndarray:
    scale = k[samples.sources] if isinstance(k, np.ndarray) else k
    p = _sigmoid(scale * (samples.features @ weights) / 100.0)
    return np.asarray((p - samples.result) ** 2)


def losses_by_source(samples: Samples, weights: np.ndarray, k: np.ndarray) -> list[float]:
    """The loss on the positions of each source (0.0 for a source without any)."""
    n = len(k)
    err = _errors(samples, weights, k)
    total = np.bincount(samples.sources, weights=err, minlength=n)[:n]
    count = np.bincount(samples.sources, minlength=n)[:n]
    return [float(t / c) if c else 0.0 for t, c in zip(total, count, strict=True)]


def fit_scale(samples: Samples, weights: np.ndarray) -> float:
    """The K minimizing the loss for fixed weights (golden-section search on log K)."""
    lo, hi = math.log(1e-3), math.log(10.0)
    g = (math.sqrt(5) - 1) / 2
    a, b = hi - g * (hi - lo), lo + g * (hi - lo)
    fa, fb = loss(samples, weights, math.exp(a)), loss(samples, weights, math.exp(b))
    for _ in range(60):
        if fa < fb:
            hi, b, fb = b, a, fa
            a = hi - g * (hi - lo)
            fa = loss(samples, weights, math.exp(a))
        else:
            lo, a, fa = a, b, fb
            b = lo + g * (hi - lo)
            fb = loss(samples, weights, math.exp(b))
    return math.exp((lo + hi) / 2)


@dataclass
class Tuning:
    """A tuning run's outcome."""

    weights: np.ndarray
    """Centi-men per unit of each feature (the held-out minimum)."""
    k: float
    """The scale of source 0 (``scales`` has every source's)."""
    start_loss: tuple[float, float]
    """(training, held-out) loss of the starting weights."""
    curve: list[tuple[int, float, float]] = field(default_factory=list)
    """(iteration, training loss, held-out loss)."""
    best_iteration: int = 0
    train_samples: int = 0
    held_out_samples: int = 0
    scales: list[float] = field(default_factory=list)
    """K of each source, fitted on its held-out positions with the starting weights."""
    held_out_by_source: list[list[float]] = field(default_factory=list)
    """Per curve point, the held-out loss of each source."""
    source_names: list[str] = field(default_factory=list)
    held_out_counts: list[int] = field(default_factory=list)
    """Held-out positions of each source."""
    balanced: bool = False
    """Whether every source weighed the same (the held-out loss is then the mean of theirs)."""

    @property
    def best_held_out(self) -> list[float]:
        """Each source's held-out loss at the kept weights."""
        return self.held_out_by_source[self.best_iteration_index]

    @property
    def best_iteration_index(self) -> int:
        return next(i for i, c in enumerate(self.curve) if c[0] == self.best_iteration)


def tune(train: Samples, held_out: Samples, start: Sequence[float] | np.ndarray, *, iterations: int = 200,
         ridge: float = RIDGE, progress: ProgressFn | None = None,
         source_names: Sequence[str] = (), balance: bool = True) -> Tuning:
    """Fit the weights on ``train`` from ``start``; each source's K and the stopping point come
    from ``held_out``.  With ``balance`` every source weighs the same in the fit and in the
    stopping point (the mean of the sources' mean squared errors), however many positions it
    has; without, every position weighs the same."""
    w0 = np.asarray(start, dtype=np.float64)
    if len(train) == 0 or len(held_out) == 0:
        raise ValueError("tuning needs positions with results in both the training and the held-out games")
    nsrc = int(max(train.sources.max(), held_out.sources.max())) + 1
    names = list(source_names) or [f"source {i}" for i in range(nsrc)]
    scales = []
    for s in range(nsrc):
        part = held_out.select(held_out.sources == s)
        if len(part) == 0 or not np.any(train.sources == s):
            raise ValueError(f"tuning needs positions with results in both the training and the held-out "
                             f"games of {names[s]}")
        scales.append(fit_scale(part, w0))
    kv = np.asarray(scales)
    x, y, kx = train.features, train.result, kv[train.sources]
    train_counts = np.bincount(train.sources, minlength=nsrc)
    # per-position weights summing to 1: each source 1/nsrc, or each position 1/N
    pw = (1.0 / (nsrc * train_counts))[train.sources] if balance else np.full(len(y), 1.0 / len(y))
    counts = np.bincount(held_out.sources, minlength=nsrc)
    mix = np.full(nsrc, 1.0 / nsrc) if balance else counts / counts.sum()

    def objective(w: np.ndarray) -> tuple[float, np.ndarray]:
        p = _sigmoid(kx * (x @ w) / 100.0)
        err = p - y
        d = w - w0
        value = float(pw @ (err * err)) + ridge * float(d @ d)
        grad = (2.0 / 100.0) * (x.T @ (pw * kx * err * p * (1.0 - p))) + 2.0 * ridge * d
        return value, grad

    def train_loss(w: np.ndarray) -> float:
        return float(pw @ _errors(train, w, kv))

    out = Tuning(w0.copy(), scales[0], (train_loss(w0), float(mix @ losses_by_source(held_out, w0, kv))),
                 train_samples=len(train), held_out_samples=len(held_out), scales=scales,
                 source_names=names, held_out_counts=[int(c) for c in counts], balanced=balance and nsrc > 1)

    def point(it: int, w: np.ndarray) -> float:
        by = losses_by_source(held_out, w, kv)
        ho = float(mix @ by)
        out.curve.append((it, train_loss(w), ho))
        out.held_out_by_source.append(by)
        return ho

    best = point(0, w0)

    def after(it: int, w: np.ndarray) -> None:
        nonlocal best
        ho = point(it, w)
        if ho < best:
            best = ho
            out.weights = w.copy()
            out.best_iteration = it

    choice_logit.minimize(objective, w0.copy(), iterations, progress, on_iterate=after)
    return out


def evaluator(t: Tuning, name: str = "tuned", source: str = "") -> Evaluator:
    """The tuned weights as a linear evaluator (``CKR_EVAL_LINEAR``), with how they were found."""
    from engine.evaluators import FEATURE_NAMES, linear

    ev = linear(list(t.weights), name=name)
    meta = {
        "learner": "texel",
        "source": source,
        "k": t.k,
        "scales": dict(zip(t.source_names, t.scales, strict=False)),
        "weights": dict(zip(FEATURE_NAMES, (round(float(w), 3) for w in t.weights), strict=False)),
        "train_samples": t.train_samples,
        "held_out_samples": t.held_out_samples,
        "start_loss": list(t.start_loss),
        "best_iteration": t.best_iteration,
        "best_held_out_loss": min(c[2] for c in t.curve),
        "balanced": t.balanced,
        "held_out_loss_by_source": {
            n: {"start": t.held_out_by_source[0][i], "best": t.best_held_out[i]}
            for i, n in enumerate(t.source_names)},
    }
    return Evaluator(ev.name, ev.spec, meta)


def plot(t: Tuning, path: str | Path) -> None:
    """Training and held-out loss by iteration as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    its, tr, ho = zip(*t.curve, strict=True)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    each = ", every source the same" if t.balanced else ""
    ax.plot(its, tr, label=f"training ({t.train_samples} positions{each})")
    ax.plot(its, ho, label=f"held out ({t.held_out_samples} positions{each})")
    if len(t.scales) > 1:
        for i, name in enumerate(t.source_names):
            ax.plot(its, [h[i] for h in t.held_out_by_source], linestyle="--",
                    label=f"held out, {name} ({t.held_out_counts[i]}; K {t.scales[i]:.3f})")
    ax.axvline(t.best_iteration, color="grey", linestyle=":", linewidth=1)
    ax.set_xlabel("L-BFGS iteration")
    ks = "K" if len(t.scales) > 1 else f"{t.k:.3f}"
    ax.set_ylabel(f"mean squared error of sigmoid({ks} * eval / 100)")
    ax.set_title("Texel tuning of the linear evaluation")
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
