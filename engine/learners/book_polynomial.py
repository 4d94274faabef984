"""Samuel's linear polynomial fitted to book games by his correlation method.

For every book position each legal move's resulting position (the *child*) is
described by Samuel's terms (``engine.samuel_terms``: PADV, the 26 simple
difference terms, the 12 connectives), computed with the book position as the
child's parent.  Terms are for the side to move in the child, so the player
who chose the move sees ``v = -term``.  For each term ``i``, over all book
positions:

* ``L_i``: alternatives whose ``v_i`` is *lower* than the book move's;
* ``H_i``: alternatives whose ``v_i`` is *higher*;

and Samuel's correlation coefficient is ``C_i = (L_i - H_i) / (L_i + H_i)``
(learners.md 2.2; the same counting as his 1959 footnote 16, with ties in
neither count).  The evaluator scores the child for its side to move
(``sum w_i * term_i``) and the move is ranked by minus that, ``sum w_i * v_i``,
so ``w_i`` takes the sign of ``C_i``.

Conversion to Samuel's power-of-two coefficients: the 16 terms with the
largest ``|C_i|`` (Samuel's playing polynomial held 16 terms at a time) get
``sign(C_i) * 2**round(18 * |C_i| / max|C|)``.  That is the relation his
published polynomial obeys exactly (learners.md 1.5: exponent =
round(18 * C / 0.45) with 0.45 his largest C), with the largest of ours in
place of 0.45.  RECAP is left out: it is EXCH again (Samuel added it only to
test a random term).  PADV is not fitted: it keeps the engine's fixed weight
(``samuel_terms.PADV_WEIGHT``), as in Samuel's program where piece advantage
was never adjusted.

The result is an ``EVAL_SAMUEL`` evaluator (``samuel_terms.polynomial``).  This
module also registers a vectorized scorer for ``EVAL_SAMUEL`` that reproduces
``ckr_samuel_eval`` exactly (same floor shift, trade-down bonus and clamp), and
the ``child_terms`` helper the other Samuel-term learners share.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from engine import core, samuel_terms
from engine.evaluators import Evaluator
from engine.learners.book_data import BookPositions

ProgressFn = Callable[[int, int], None]

NTERMS = samuel_terms.NTERMS
TERM_NAMES = samuel_terms.TERM_NAMES
MAX_TERMS = 16
"""Terms kept in the polynomial (Samuel's 16 at a time)."""
TOP_EXPONENT = 18
"""Power of two of the term with the largest |C| (Samuel's MOC2, C 0.45 -> 2**18)."""
EXCLUDED: tuple[str, ...] = ("PADV", "RECAP")

_CHUNK = 1 << 18


def child_terms(positions: BookPositions, progress: ProgressFn | None = None) -> np.ndarray:
    """(M, 39) int32: Samuel's terms of every legal move's position, parent = the book position.

    Exactly what ``ckr_samuel_terms`` gives the C evaluators at a leaf whose
    parent is the book position (one C call per chunk, no Python per move).
    """
    children = positions.children()
    owner = positions.owner
    m = len(children)
    out = np.empty((m, NTERMS), dtype=np.int32)
    for lo in range(0, m, _CHUNK):
        hi = min(m, lo + _CHUNK)
        sets = np.empty((hi - lo, 10), dtype=np.uint32)
        sets[:, :5] = children[lo:hi]
        sets[:, 5:] = positions.pos[owner[lo:hi]]
        core.samuel_terms_sets(np.ascontiguousarray(sets), out[lo:hi])
        if progress is not None:
            progress(hi, m)
    return out


def lower_higher(values: np.ndarray, positions: BookPositions) -> tuple[np.ndarray, np.ndarray]:
    """(L, H) per column of ``values`` (M, k): alternatives below / above the book move's value."""
    owner = positions.owner
    alt = ~positions.is_book
    book = values[positions.book_move][owner]
    lower = ((values < book) & alt[:, None]).sum(axis=0, dtype=np.int64)
    higher = ((values > book) & alt[:, None]).sum(axis=0, dtype=np.int64)
    return lower, higher


def correlations(lower: np.ndarray, higher: np.ndarray) -> np.ndarray:
    """Samuel's ``(L - H) / (L + H)`` per term; 0 where a term never differs."""
    lo = np.asarray(lower, dtype=np.float64)
    hi = np.asarray(higher, dtype=np.float64)
    total = lo + hi
    return np.where(total > 0, (lo - hi) / np.maximum(total, 1.0), 0.0)


def term_counts(positions: BookPositions, terms: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(L_i, H_i) of the 39 terms, seen by the player who moved (``v = -term``)."""
    t = child_terms(positions) if terms is None else terms
    return lower_higher(-t.astype(np.int64), positions)


def coefficients_from_counts(
    lower: Sequence[int] | np.ndarray,
    higher: Sequence[int] | np.ndarray,
    *,
    max_terms: int = MAX_TERMS,
    top_exponent: int = TOP_EXPONENT,
    excluded: Sequence[str] = EXCLUDED,
) -> dict[str, int]:
    """Samuel's signed power-of-two coefficients (by term name) from L/H counts in TERM_NAMES order."""
    c = correlations(np.asarray(lower), np.asarray(higher))
    candidates = [i for i, name in enumerate(TERM_NAMES) if name not in excluded and c[i] != 0.0]
    # largest |C| first; equal |C| in term order, so the choice is reproducible
    candidates.sort(key=lambda i: (-abs(c[i]), i))
    chosen = candidates[:max_terms]
    if not chosen:
        return {}
    top = abs(c[chosen[0]])
    out: dict[str, int] = {}
    for i in chosen:
        exponent = int(np.rint(top_exponent * abs(c[i]) / top))
        out[TERM_NAMES[i]] = int(np.sign(c[i])) * (1 << exponent)
    return out


def train(
    positions: BookPositions,
    *,
    progress: ProgressFn | None = None,
    name: str = "samuel-book-polynomial",
    max_terms: int = MAX_TERMS,
    **_opts: Any,
) -> Evaluator:
    """Count L/H per term on ``positions`` and build the ``EVAL_SAMUEL`` polynomial."""
    terms = child_terms(positions, progress)
    lower, higher = term_counts(positions, terms)
    coefs = coefficients_from_counts(lower, higher, max_terms=max_terms)
    ev = samuel_terms.polynomial(coefs, name=name)
    c = correlations(lower, higher)
    meta = dict(ev.meta)
    meta.update({
        "learner": "book_polynomial",
        "positions": len(positions),
        "games": positions.num_games,
        "source": positions.source,
        "correlations": {n: round(float(c[i]), 4) for i, n in enumerate(TERM_NAMES) if n != "PADV"},
    })
    return Evaluator(name, ev.spec, meta)


# ---------------------------------------------------------------------------
# Vectorized EVAL_SAMUEL scorer (mirrors ckr_samuel_eval in csrc/samuel_terms.c).


def _material_units(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Samuel material (men 2, kings 3) of the side to move and of the other side."""
    black = rows[:, 4] == 0
    bm, bk, wm, wk = (np.bitwise_count(rows[:, k].astype(np.uint32)).astype(np.int64) for k in range(4))
    b = 2 * bm + 3 * bk
    w = 2 * wm + 3 * wk
    return np.where(black, b, w), np.where(black, w, b)


def evaluate_terms(weights: Sequence[int], terms: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``ckr_samuel_eval`` of positions ``rows`` whose terms are ``terms`` (int64 scores)."""
    n = min(len(weights), NTERMS)
    w = np.asarray(weights[:n], dtype=np.int64)
    total = terms[:, :n].astype(np.int64) @ w
    score = total >> core.SAMUEL_SHIFT  # arithmetic shift = floor, as the C code rounds
    if n > 0 and w[0] != 0:
        mu, mt = _material_units(rows)
        s = mu + mt
        diff = 100 * (mu - mt)
        bonus = np.where(s > 0, np.sign(diff) * (np.abs(diff) // np.maximum(s, 1)), 0)
        score = score + bonus
    return np.clip(score, -core.WIN_BOUND + 1, core.WIN_BOUND - 1)


def batch_scores(evaluator: Evaluator, positions: BookPositions) -> np.ndarray:
    """Exactly ``-evaluate(child, parent=book position)`` for every legal move."""
    terms = child_terms(positions)
    return -evaluate_terms(evaluator.spec.weights, terms, positions.children()).astype(np.float64)
