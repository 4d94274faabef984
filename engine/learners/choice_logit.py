"""A conditional logit over the legal moves of book positions, fitted by L-BFGS in numpy.

Every book position is a choice among its legal moves; a move's score is the
sum of the weights of the *cells* it falls in (one cell per table: the
signature tables are such cells) plus a fixed per-move offset, and the model
says the expert picks move j with probability ``exp(s_j) / sum_k exp(s_k)``
over the position's moves.  Fitting maximizes the likelihood of the book moves
with a ridge penalty ``lam/2 * |w|^2`` per weight group: a cell seen a few
times stays near 0 (the average), which is what smoothing sparse cells means
here, and a cell never seen is exactly 0.

Why this and not Samuel's ``(A - D) / (A + D)`` counts: the counts rate each
cell on its own, so a cell that is common among the book's alternatives in
positions where the book move is decided by something else is still rated; the
likelihood rates a cell only by what it adds to the other cells in the same
position, the comparison that the agreement indices make.  On OCA the fitted
tables generalize to unseen positions where the counted ones do not
(docs/learners/book.md).

No scipy: the optimizer is a plain limited-memory BFGS with a backtracking
(Armijo) line search, enough for a smooth convex objective.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

ProgressFn = Callable[[int, int], None]


@dataclass(frozen=True)
class Choices:
    """The grouping of moves into positions: moves of position i are ``start[i]:start[i+1]``,
    the book move of position i is ``start[i] + book[i]``."""

    start: np.ndarray
    book: np.ndarray

    @property
    def n(self) -> int:
        return len(self.start) - 1

    def owner(self) -> np.ndarray:
        return np.repeat(np.arange(self.n, dtype=np.int64), np.diff(self.start))

    def book_moves(self) -> np.ndarray:
        return self.start[:-1].astype(np.int64) + self.book


def fit(
    cells: np.ndarray,
    size: int,
    choices: Choices,
    *,
    offset: np.ndarray | None = None,
    lam: float | np.ndarray = 1.0,
    iterations: int = 150,
    progress: ProgressFn | None = None,
) -> np.ndarray:
    """Weights (``size``,) maximizing the book moves' likelihood.

    ``cells`` (M, K) int: the K cells each move falls in (-1: none); ``offset``
    (M,): a fixed score added to every move (the levels already fitted);
    ``lam``: the ridge penalty, one value or one per weight.
    """
    m, k = cells.shape
    if m != int(choices.start[-1]):
        raise ValueError(f"{m} moves of cells for {int(choices.start[-1])} moves of choices")
    idx = np.where(cells >= 0, cells, size).astype(np.int64)  # -1 -> a dummy weight fixed at 0
    flat = idx.ravel()
    owner = choices.owner()
    book = choices.book_moves()
    firsts = choices.start[:-1].astype(np.int64)
    base = np.zeros(m) if offset is None else np.asarray(offset, dtype=np.float64)
    penalty = np.broadcast_to(np.asarray(lam, dtype=np.float64), (size,))

    def objective(w: np.ndarray) -> tuple[float, np.ndarray]:
        s = np.append(w, 0.0)[idx].sum(axis=1) + base
        top = np.maximum.reduceat(s, firsts)
        e = np.exp(s - top[owner])
        z = np.add.reduceat(e, firsts)
        loss = float(-(s[book] - top - np.log(z)).sum() + 0.5 * (penalty * w * w).sum())
        r = e / z[owner]
        r[book] -= 1.0
        grad = np.bincount(flat, weights=np.repeat(r, k), minlength=size + 1)[:size] + penalty * w
        return loss, grad

    return minimize(objective, np.zeros(size), iterations, progress)


def minimize(
    objective: Callable[[np.ndarray], tuple[float, np.ndarray]],
    x: np.ndarray,
    iterations: int,
    progress: ProgressFn | None = None,
    memory: int = 10,
    on_iterate: Callable[[int, np.ndarray], None] | None = None,
) -> np.ndarray:
    """Limited-memory BFGS (two-loop recursion) with an Armijo backtracking line search.
    ``on_iterate(iteration, x)`` sees every iterate (for early stopping on held-out data)."""
    f, g = objective(x)
    s_hist: list[np.ndarray] = []
    y_hist: list[np.ndarray] = []
    for it in range(iterations):
        if not np.any(g):
            break
        d = -_two_loop(g, s_hist, y_hist)
        slope = float(g @ d)
        if slope >= 0:  # not a descent direction: restart from steepest descent
            s_hist.clear()
            y_hist.clear()
            d = -g
            slope = float(g @ d)
        step = 1.0 if s_hist else 1.0 / max(1e-12, float(np.abs(g).max()))
        while True:
            x_new = x + step * d
            f_new, g_new = objective(x_new)
            if f_new <= f + 1e-4 * step * slope or step < 1e-12:
                break
            step *= 0.5
        s, y = x_new - x, g_new - g
        if float(s @ y) > 1e-10:
            s_hist.append(s)
            y_hist.append(y)
            if len(s_hist) > memory:
                s_hist.pop(0)
                y_hist.pop(0)
        converged = f - f_new <= 1e-9 * max(1.0, abs(f))
        x, f, g = x_new, f_new, g_new
        if on_iterate is not None:
            on_iterate(it + 1, x)
        if progress is not None:
            progress(it + 1, iterations)
        if converged:
            break
    return x


def _two_loop(g: np.ndarray, s_hist: Sequence[np.ndarray], y_hist: Sequence[np.ndarray]) -> np.ndarray:
    q = g.copy()
    alphas = []
    for s, y in zip(reversed(s_hist), reversed(y_hist), strict=True):
        a = float(s @ q) / float(y @ s)
        alphas.append(a)
        q -= a * y
    if s_hist:
        s, y = s_hist[-1], y_hist[-1]
        q *= float(s @ y) / float(y @ y)
    for (s, y), a in zip(zip(s_hist, y_hist, strict=True), reversed(alphas), strict=True):
        b = float(y @ q) / float(y @ s)
        q += s * (a - b)
    return q
