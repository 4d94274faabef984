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

Why on expert games: OCA's results are what strong play makes of a position.
Self-play games can be added the same way (any PDN file with results).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engine import core
from engine.evaluator import Evaluator
from engine.learners import book_data, choice_logit
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

    def __len__(self) -> int:
        return len(self.result)

    def select(self, mask: np.ndarray) -> Samples:
        return Samples(self.features[mask], self.result[mask], self.game[mask])


def collect(positions: book_data.BookPositions, results: dict[int, str]) -> Samples:
    """The quiet positions of ``positions`` with their games' results (``pdn.game_results``)."""
    rows = positions.pos.astype(np.uint32)
    black_score = np.array([RESULT_FOR_BLACK.get(results.get(int(g), "*"), np.nan) for g in positions.game])
    keep = ~book_data.has_capture(rows) & ~np.isnan(black_score)
    rows = np.ascontiguousarray(rows[keep])
    feats = np.empty((len(rows), len(core.feature_names())), dtype=np.int32)
    core.features_sets(rows, feats)
    mover_black = rows[:, 4] == 0
    score = np.where(mover_black, black_score[keep], 1.0 - black_score[keep])
    return Samples(feats.astype(np.float64), score, positions.game[keep].astype(np.int64))


def load(pdn: str | Path, *, limit_games: int | None = None, cache_dir: str | Path | None = None,
         progress: ProgressFn | None = None) -> Samples:
    """Samples of every game of a PDN file (``book_data.load`` reads and caches the positions)."""
    positions = book_data.load(pdn, split="all", limit_games=limit_games, cache_dir=cache_dir,
                               progress=progress)
    return collect(positions, game_results(pdn))


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def loss(samples: Samples, weights: np.ndarray, k: float) -> float:
    """Mean squared error of ``sigmoid(k * eval / 100)`` against the results."""
    if not len(samples):
        return 0.0
    p = _sigmoid(k * (samples.features @ weights) / 100.0)
    return float(np.mean((p - samples.result) ** 2))


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
    start_loss: tuple[float, float]
    """(training, held-out) loss of the starting weights."""
    curve: list[tuple[int, float, float]] = field(default_factory=list)
    """(iteration, training loss, held-out loss)."""
    best_iteration: int = 0
    train_samples: int = 0
    held_out_samples: int = 0


def tune(train: Samples, held_out: Samples, start: Sequence[float] | np.ndarray, *, iterations: int = 200,
         ridge: float = RIDGE, progress: ProgressFn | None = None) -> Tuning:
    """Fit the weights on ``train`` from ``start``; K and the stopping point come from ``held_out``."""
    w0 = np.asarray(start, dtype=np.float64)
    if len(train) == 0 or len(held_out) == 0:
        raise ValueError("tuning needs positions with results in both the training and the held-out games")
    k = fit_scale(held_out, w0)
    x, y = train.features, train.result

    def objective(w: np.ndarray) -> tuple[float, np.ndarray]:
        p = _sigmoid(k * (x @ w) / 100.0)
        err = p - y
        d = w - w0
        value = float(np.mean(err * err)) + ridge * float(d @ d)
        grad = (2.0 * k / 100.0 / len(y)) * (x.T @ (err * p * (1.0 - p))) + 2.0 * ridge * d
        return value, grad

    out = Tuning(w0.copy(), k, (loss(train, w0, k), loss(held_out, w0, k)),
                 train_samples=len(train), held_out_samples=len(held_out))
    best = out.start_loss[1]
    out.curve.append((0, out.start_loss[0], best))

    def after(it: int, w: np.ndarray) -> None:
        nonlocal best
        tr, ho = loss(train, w, k), loss(held_out, w, k)
        out.curve.append((it, tr, ho))
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
        "weights": dict(zip(FEATURE_NAMES, (round(float(w), 3) for w in t.weights), strict=False)),
        "train_samples": t.train_samples,
        "held_out_samples": t.held_out_samples,
        "start_loss": list(t.start_loss),
        "best_iteration": t.best_iteration,
        "best_held_out_loss": min(c[2] for c in t.curve),
    }
    return Evaluator(ev.name, ev.spec, meta)


def plot(t: Tuning, path: str | Path) -> None:
    """Training and held-out loss by iteration as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    its, tr, ho = zip(*t.curve, strict=True)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.plot(its, tr, label=f"training ({t.train_samples} positions)")
    ax.plot(its, ho, label=f"held out ({t.held_out_samples} positions)")
    ax.axvline(t.best_iteration, color="grey", linestyle=":", linewidth=1)
    ax.set_xlabel("L-BFGS iteration")
    ax.set_ylabel(f"mean squared error of sigmoid({t.k:.3f} * eval / 100)")
    ax.set_title("Texel tuning of the linear evaluation")
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
