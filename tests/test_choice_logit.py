"""The conditional logit over legal moves: gradient, optimum, ridge, offsets."""

from __future__ import annotations

import numpy as np
import pytest

from engine.learners import choice_logit as cl


def _toy(seed: int = 0, positions: int = 400, cells: int = 12) -> tuple[np.ndarray, cl.Choices, np.ndarray]:
    """Positions of 2-5 moves, each move in 2 cells; the book move drawn from a known logit model."""
    rng = np.random.default_rng(seed)
    counts = rng.integers(2, 6, positions)
    start = np.zeros(positions + 1, dtype=np.int64)
    np.cumsum(counts, out=start[1:])
    m = int(start[-1])
    feats = rng.integers(0, cells, (m, 2))
    true_w = rng.normal(0, 1.5, cells)
    s = true_w[feats].sum(axis=1)
    book = np.empty(positions, dtype=np.int64)
    for i in range(positions):
        p = np.exp(s[start[i]:start[i + 1]] - s[start[i]:start[i + 1]].max())
        book[i] = rng.choice(counts[i], p=p / p.sum())
    return feats, cl.Choices(start, book), true_w


def _loss(w: np.ndarray, feats: np.ndarray, ch: cl.Choices, lam: float,
          offset: np.ndarray | None = None) -> float:
    s = w[feats].sum(axis=1) + (0 if offset is None else offset)
    total = 0.0
    for i in range(ch.n):
        seg = s[ch.start[i]:ch.start[i + 1]]
        total -= seg[ch.book[i]] - np.log(np.exp(seg).sum())
    return total + 0.5 * lam * float(w @ w)


def test_fit_is_the_penalized_optimum() -> None:
    feats, ch, _ = _toy()
    w = cl.fit(feats, 12, ch, lam=1.0, iterations=300)
    base = _loss(w, feats, ch, 1.0)
    rng = np.random.default_rng(1)
    for _ in range(20):  # no nearby point is better
        assert _loss(w + rng.normal(0, 1e-3, 12), feats, ch, 1.0) >= base - 1e-6
    # a finite-difference check of the gradient the optimizer used, through the optimum's condition
    eps = 1e-5
    for j in range(12):
        e = np.zeros(12)
        e[j] = eps
        g = (_loss(w + e, feats, ch, 1.0) - _loss(w - e, feats, ch, 1.0)) / (2 * eps)
        assert abs(g) < 1e-2


def test_recovers_the_generating_weights_up_to_a_constant() -> None:
    feats, ch, true_w = _toy(positions=6000)
    w = cl.fit(feats, 12, ch, lam=1e-3, iterations=300)
    # a constant added to every cell changes no choice (each move has 2 cells): compare centred
    assert np.allclose(w - w.mean(), true_w - true_w.mean(), atol=0.25)


def test_ridge_shrinks_and_unused_cells_stay_zero() -> None:
    feats, ch, _ = _toy()
    loose = cl.fit(feats, 14, ch, lam=0.1, iterations=200)  # cells 12, 13 never occur
    tight = cl.fit(feats, 14, ch, lam=100.0, iterations=200)
    assert loose[12] == loose[13] == 0 == tight[12]
    assert np.abs(tight).sum() < np.abs(loose).sum()
    per_weight = np.full(14, 0.1)
    per_weight[:6] = 1e4  # a per-weight ridge pins those cells
    w = cl.fit(feats, 14, ch, lam=per_weight, iterations=200)
    assert np.abs(w[:6]).max() < 0.01 < np.abs(w[6:12]).max()


def test_offset_and_missing_cells() -> None:
    feats, ch, true_w = _toy()
    offset = true_w[feats].sum(axis=1)  # the truth as a fixed offset: nothing is left to learn
    w = cl.fit(feats, 12, ch, offset=offset, lam=10.0, iterations=200)
    alone = cl.fit(feats, 12, ch, lam=10.0, iterations=200)
    assert np.abs(w).mean() < 0.25 * np.abs(alone).mean()  # only the sampling noise is left
    assert _loss(w, feats, ch, 10.0, offset) <= _loss(np.zeros(12), feats, ch, 10.0, offset)
    none = np.full_like(feats, -1)  # -1: the move is in no cell
    assert not np.any(cl.fit(none, 12, ch, iterations=10))
    with pytest.raises(ValueError, match="moves"):
        cl.fit(feats[:-1], 12, ch)
