"""The refinement paper's tabulated scoring function (``CKR_EVAL_TABULATED``).

The paper (seeds/samuel-refinement-tabulated-scoring-functions.txt) scores a
position by 8 tabulated functions of 5 arguments each.  An argument is one of
Samuel's parameters reduced to 0 (negative), 1 (zero) or 2 (positive); the 5
arguments, read as a base-3 number with the first as the most significant
digit, index a table of 243 entries (1,0,1,0,2 -> 92).  An entry is the number
of *strong* positions (the book move's) over the number of *not-strong*
positions (the alternatives) that fell on it, and the score is the sum of the
8 entries.

Our choices (the paper leaves them open):

* **Parameters.**  Samuel's terms from ``engine.samuel_terms``, each seen by
  the player who made the move (``v = -term``: Samuel's own difference
  convention), reduced to 0/1/2 by the sign of ``v``.  The pool is PADV, the
  26 simple terms and the 12 connectives minus RECAP (EXCH again by
  definition): 38 terms, where the paper had Samuel's 31.
* **Argument sets** (the paper's "rather elaborate technique" is not
  described): greedy forward selection on the training positions only.
  The first ``SELECT_POSITIONS`` training positions are split by game
  (odd / even game number): counts come from the odd games, and a candidate
  is judged by the expected C with random tie-breaking,
  ``(L - H) / (L + H + T)``, of the whole function so far on the even games.
  Tables are filled one argument at a time (table 1's five, then table 2's,
  ...); a term may appear in several tables but only once per table.  Ties
  between candidates go to the lower term index, so the result is
  reproducible.
* **Smoothing.**  ``entry = (S + k * r0) / (W + k)`` with ``r0 = sum S /
  sum W`` over all entries of the table (about 1/6) and ``k = prior_weight``
  (default 2): a never-seen signature gets ``r0``, rare ones are pulled
  toward it; ``k = 0`` gives the paper's raw quotient (``S`` itself where
  nothing was not-strong).
* **Scale.**  Entries are stored as ``round(1000 * entry)``; ``x``, the sum
  of the 8 entries, rates the position for the player who just moved.
* **Material** (our addition, as Samuel kept the piece advantage fixed and
  outside the learned part).  The evaluator gives the side to move
  ``W * material - floor(x / 2**S)``: ``material`` is the engine's material
  score (``book_data.material``: Samuel's piece advantage, kings 3 : men 2,
  at least 100 for a man), ``W = material_weight`` (default 10; 0 gives the
  tables alone, ``-x``), and ``S`` the smallest shift that makes the tables'
  whole possible range (sum of the 8 largest entries minus the sum of the 8
  smallest) smaller than one man, ``100 * W``.  PADV's sign is still an
  argument like the others, but the tables rate how book-like the last move
  was and hardly see material, which rarely differs between a book move and
  its alternatives one ply on: without the fixed term a search follows lines
  that lose pieces (held-out C with every alternative searched 2 plies was
  -0.22 without it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from engine import core
from engine.evaluators import Evaluator
from engine.learners.book_data import BookPositions, with_material
from engine.learners.book_polynomial import TERM_NAMES, child_terms
from engine.learners.material_scale import MATERIAL_WEIGHT, table_shift

ProgressFn = Callable[[int, int], None]

TABLES = 8
ARGS = 5
ENTRIES = 3**ARGS  # 243
ONE = 1000
"""Entries are stored in units of 1/1000."""
HEADER = 8
"""Header: version, 8, 5, material weight, table shift, 3 reserved words (0)."""
VERSION = 1
SELECT_POSITIONS = 200000
POOL: tuple[int, ...] = tuple(i for i, n in enumerate(TERM_NAMES) if n != "RECAP")


def table_index(args: Sequence[int] | np.ndarray) -> Any:  # an int for one tuple, else an array
    """The paper's location of a five-tuple: base 3, first argument most significant."""
    a = np.asarray(args, dtype=np.int64)
    idx = np.zeros(a.shape[:-1], dtype=np.int64)
    for k in range(a.shape[-1]):
        idx = idx * 3 + a[..., k]
    return int(idx) if idx.ndim == 0 else idx


def reduce_terms(terms: np.ndarray) -> np.ndarray:
    """0/1/2 (negative / zero / positive) of every term seen by the player who moved (``-term``)."""
    return (1 - np.sign(terms.astype(np.int64))).astype(np.int8)


def counts(
    signs: np.ndarray, is_book: np.ndarray, arg_sets: Sequence[Sequence[int]]
) -> tuple[np.ndarray, np.ndarray]:
    """(strong, not-strong) counts, each (tables, 243), of the argument sets on reduced terms."""
    strong = np.zeros((len(arg_sets), ENTRIES), dtype=np.int64)
    weak = np.zeros((len(arg_sets), ENTRIES), dtype=np.int64)
    for t, args in enumerate(arg_sets):
        idx = table_index(signs[:, list(args)])
        strong[t] = np.bincount(idx[is_book], minlength=ENTRIES)
        weak[t] = np.bincount(idx[~is_book], minlength=ENTRIES)
    return strong, weak


def entries_from_counts(strong: np.ndarray, weak: np.ndarray, prior_weight: float = 2.0) -> np.ndarray:
    """Smoothed quotients strong / not-strong (float), per table; see the module docstring."""
    s = np.atleast_2d(strong).astype(np.float64)
    w = np.atleast_2d(weak).astype(np.float64)
    r0 = s.sum(axis=1, keepdims=True) / np.maximum(w.sum(axis=1, keepdims=True), 1.0)
    k = float(prior_weight)
    if k <= 0:
        return np.where(w > 0, s / np.maximum(w, 1.0), s)
    return (s + k * r0) / (w + k)


class _Judge:
    """Expected C (random tie-breaking) of per-move scores on a fixed set of positions."""

    def __init__(self, positions: BookPositions) -> None:
        self.owner = positions.owner
        self.alt = ~positions.is_book
        self.book_move = positions.book_move

    def __call__(self, scores: np.ndarray) -> float:
        book = scores[self.book_move][self.owner]
        a = scores[self.alt]
        b = book[self.alt]
        lower = int(np.count_nonzero(a < b))
        higher = int(np.count_nonzero(a > b))
        total = len(a)
        return (lower - higher) / total if total else 0.0


def select_arguments(
    positions: BookPositions,
    signs: np.ndarray,
    *,
    tables: int = TABLES,
    args: int = ARGS,
    prior_weight: float = 2.0,
    pool: Sequence[int] = POOL,
    progress: ProgressFn | None = None,
) -> list[list[int]]:
    """Greedy argument sets on ``positions`` (training data only; see the module docstring)."""
    n = min(len(positions), SELECT_POSITIONS)
    sub = positions.head(n)
    sig = signs[: int(sub.start[-1])]
    odd_pos = (sub.game % 2) == 1
    if odd_pos.all() or not odd_pos.any():  # one game only: split positions instead
        odd_pos = (np.arange(n) % 2) == 0
    fit, val = sub.select(odd_pos), sub.select(~odd_pos)
    fit_moves = np.repeat(odd_pos, sub.counts)
    fit_sig, val_sig = sig[fit_moves], sig[~fit_moves]
    fit_book = fit.is_book
    judge = _Judge(val)
    base = np.zeros(len(val_sig), dtype=np.float64)
    chosen: list[list[int]] = []
    done, total = 0, tables * args
    fit_sig64 = fit_sig.astype(np.int64)
    val_sig64 = val_sig.astype(np.int64)
    k = float(prior_weight)
    for _t in range(tables):
        current: list[int] = []
        part = np.zeros(len(val_sig), dtype=np.float64)
        fit_idx = np.zeros(len(fit_sig), dtype=np.int64)
        val_idx = np.zeros(len(val_sig), dtype=np.int64)
        for _a in range(args):
            best: tuple[float, int] | None = None
            best_part = part
            size = 3 ** (len(current) + 1)
            for term in pool:
                if term in current:
                    continue
                fi = fit_idx * 3 + fit_sig64[:, term]
                s = np.bincount(fi[fit_book], minlength=size)
                w = np.bincount(fi[~fit_book], minlength=size)
                e = entries_from_counts(s, w, k)[0]
                cand = e[val_idx * 3 + val_sig64[:, term]]
                value = judge(base + cand)
                if best is None or value > best[0]:
                    best = (value, term)
                    best_part = cand
            assert best is not None
            current.append(best[1])
            fit_idx = fit_idx * 3 + fit_sig64[:, best[1]]
            val_idx = val_idx * 3 + val_sig64[:, best[1]]
            part = best_part
            done += 1
            if progress is not None:
                progress(done, total)
        base = base + part
        chosen.append(current)
    return chosen


def train(
    positions: BookPositions,
    *,
    progress: ProgressFn | None = None,
    name: str = "samuel-tabulated",
    prior_weight: float = 2.0,
    arg_sets: Sequence[Sequence[int]] | None = None,
    material_weight: int = MATERIAL_WEIGHT,
    **_opts: Any,
) -> Evaluator:
    """Choose the argument sets (unless given), count strong / not-strong, build the evaluator."""
    terms = child_terms(positions)
    signs = reduce_terms(terms)
    if arg_sets is None:
        arg_sets = select_arguments(positions, signs, prior_weight=prior_weight, progress=progress)
    strong, weak = counts(signs, positions.is_book, arg_sets)
    value = entries_from_counts(strong, weak, prior_weight)
    return evaluator_from_tables(arg_sets, value, name=name, material_weight=material_weight, meta={
        "learner": "tabulated",
        "positions": len(positions),
        "games": positions.num_games,
        "source": positions.source,
        "prior_weight": prior_weight,
        "arguments": [[TERM_NAMES[i] for i in a] for a in arg_sets],
        "seen_entries": int(((strong + weak) > 0).sum()),
    })


def evaluator_from_tables(
    arg_sets: Sequence[Sequence[int]],
    value: np.ndarray,
    *,
    name: str = "samuel-tabulated",
    material_weight: int = 0,
    meta: dict[str, Any] | None = None,
) -> Evaluator:
    """Data: header, the 8 x 5 term indices, the 8 x 243 entries in 1/1000 (csrc/tabulated.c).

    ``material_weight`` W > 0 adds ``W * material`` and shifts the table part so that its
    whole range is below one man (see the module docstring); 0 gives the tables alone.
    """
    if len(arg_sets) != TABLES or any(len(a) != ARGS for a in arg_sets):
        raise ValueError(f"need {TABLES} argument sets of {ARGS} terms")
    material_weight = int(material_weight)
    if material_weight < 0:
        raise ValueError("material_weight must be >= 0")
    ints = np.clip(np.rint(np.asarray(value) * ONE), 0, 2**20).astype(np.int64).reshape(TABLES, ENTRIES)
    lo, hi = int(ints.min(axis=1).sum()), int(ints.max(axis=1).sum())
    shift = table_shift(lo, hi, material_weight)
    header = [VERSION, TABLES, ARGS, material_weight, shift, 0, 0, 0]
    data = tuple(header + [int(i) for a in arg_sets for i in a] + [int(v) for v in ints.ravel()])
    meta = dict(meta or {})
    meta.update({"material_weight": material_weight, "table_shift": shift, "table_range": [lo, hi]})
    return Evaluator(name, core.EvalSpec(core.EVAL_TABULATED, data=data), meta)


def unpack(evaluator: Evaluator) -> tuple[np.ndarray, np.ndarray]:
    """(argument term indices (8, 5), entries (8, 243) in 1/1000) of a tabulated evaluator."""
    data = np.asarray(evaluator.spec.data, dtype=np.int64)
    args = data[HEADER:HEADER + TABLES * ARGS].reshape(TABLES, ARGS)
    start = HEADER + TABLES * ARGS
    return args, data[start:start + TABLES * ENTRIES].reshape(TABLES, ENTRIES)


def score_terms(evaluator: Evaluator, terms: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
    """The evaluator's score for the side to move of positions ``rows`` with these terms (as the C code).

    ``rows`` (the positions, for the material part) may be left out when the material weight is 0.
    """
    args, table = unpack(evaluator)
    weight, shift = int(evaluator.spec.data[3]), int(evaluator.spec.data[4])
    signs = reduce_terms(terms)
    total = np.zeros(len(terms), dtype=np.int64)
    for t in range(TABLES):
        total += table[t][table_index(signs[:, args[t]])]
    return with_material(-(total >> shift), weight, rows)


def batch_scores(evaluator: Evaluator, positions: BookPositions) -> np.ndarray:
    """Exactly ``-evaluate(child, parent=book position)`` for every legal move."""
    return -score_terms(evaluator, child_terms(positions), positions.children()).astype(np.float64)
