"""Samuel's 1967 signature-table hierarchy (``CKR_EVAL_SIGNATURE``).

Structure (learners.md 2.1, Samuel's own 1973 description): 27 input terms,
quantized to 7, 5 and 3 levels; 9 first-level tables of 7 * 5 * 3 = 105
entries, each taking one 7-, one 5- and one 3-level term; their outputs
quantized to 5 levels feed 3 second-level tables of 5**3 = 125 entries; the
three second-level outputs, quantized to ``Q3`` levels (our choice, default
5: 125 entries), feed one third-level table whose entry is the score.

Training (learners.md 2.2), level by level on the training positions: every
legal move's resulting position (the *child*, terms computed with the book
position as parent) is a signature; the book move's child adds A += 1, each
alternative's D += 1, in every table it reaches.  An entry is

    (A - D + k * c0) / (A + D + k)

with ``k = prior_weight`` (default 2) and ``c0`` the table's overall
``(sum A - sum D) / (sum A + sum D)`` (about -0.7, since one move in seven is
the book's): Samuel's coefficient ``(A - D) / (A + D)`` shrunk toward the
table's average, so a never-seen signature is average rather than the
"neutral" 0 of ``(A - D) / (A + D + k)``, which would rank it above most
seen ones.  Entries are stored as ``round(10000 * entry)``; the next level's
quantization thresholds are empirical quantiles (20/40/60/80%, or 1/Q3 steps)
of the stored integers over the training children, and a value ``x`` has the
level ``#{thresholds < x}``.

The 27 terms (``engine.samuel_terms`` names only; each seen by the player who
made the move, ``v = -term``, Samuel's own difference convention):

* 7 levels: PADV, MOB, MOBIL, DENY, EXCH, THRET, CNTR, DIAV, GAP
* 5 levels: KCENT, CENT, NODE, EXPOS, POLE, HOLE, ADV, DIA, DYKE
* 3 levels: MOVE, DDMM, FORK, CORN, CRAMP, APEX, BACK, OREO, GUARD

i.e. PADV, the 26 simple parameters less RECAP (which is EXCH by definition)
and the connective DDMM (the one with the largest single-term |C| in our
data).  The widest-ranging terms get 7 levels, the two-valued ones 3.
Quantization of a term with ``2m + 1`` levels: 0 stays the middle level, and
``|v|`` goes to steps 1..m by thresholds ``t1 (, t2)`` that are the 1/m
quantiles of ``|v|`` over the nonzero training values (a 3-level term is the
sign).  Grouping (first-level tables, in order, each 7/5/3):

1. PADV KCENT MOVE (material)    4. DENY EXPOS CORN      7. CNTR ADV BACK
2. MOB CENT DDMM (mobility)      5. EXCH POLE CRAMP      8. DIAV DIA OREO
3. MOBIL NODE FORK               6. THRET HOLE APEX      9. GAP DYKE GUARD

and second-level tables (1,2,3), (4,5,6), (7,8,9): material and mobility;
exchanges and threats; structure and the back rank.

Score: the evaluator gives the side to move minus the third-level entry of
the position (which rates it for the player who just moved), in 1/10000;
with ``tiebreak`` (default on) the first- and second-level entries are added
in at 1/64 weight, so positions with equal third-level entries are still
ordered (a documented addition to Samuel's scheme: without it most
alternatives tie).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from engine import core
from engine.evaluators import Evaluator
from engine.learners.book_data import BookPositions
from engine.learners.book_polynomial import TERM_NAMES, child_terms

ProgressFn = Callable[[int, int], None]

ONE = 10000
VERSION = 1
HEADER = 8
N1, N2 = 9, 3
L1_SIZE = 105
Q1 = 5
L2_SIZE = Q1**3
TIEBREAK_SHIFT = 6
"""With tiebreak, the lower levels' entries count 1/64."""

GROUPS: tuple[tuple[str, str, str], ...] = (
    ("DENY", "MOB", "APEX"),
    ("MOBIL", "CENT", "DDMM"),
    ("PADV", "KCENT", "MOVE"),
    ("EXCH", "EXPOS", "CORN"),
    ("THRET", "FORK", "CRAMP"),
    ("CNTR", "ADV", "BACK"),
    ("DIAV", "DIA", "OREO"),
    ("GAP", "DYKE", "GUARD"),
    ("POLE", "NODE", "HOLE"),
)
LEVELS = (7, 5, 3)
SLOTS: tuple[int, ...] = tuple(TERM_NAMES.index(n) for g in GROUPS for n in g)
"""Term index of each of the 27 inputs, table by table (7-, 5-, 3-level)."""


def term_thresholds(values: np.ndarray, levels: int) -> tuple[int, int]:
    """(t1, t2) of a term with ``levels`` levels from its training values (mover's view)."""
    a = np.abs(values[values != 0]).astype(np.float64)
    m = (levels - 1) // 2
    if m <= 1 or len(a) == 0:
        return 1, 1
    qs = [int(np.floor(np.quantile(a, j / m))) for j in range(1, m)]
    t1 = max(1, qs[0])
    t2 = max(t1 + 1, qs[1]) if m == 3 else t1
    return t1, t2


def quantize_term(v: np.ndarray, levels: int, t1: int, t2: int) -> np.ndarray:
    """Level 0..levels-1 of mover's-view values ``v``; the middle level is 0."""
    a = np.abs(v)
    m = (levels - 1) // 2
    step = np.where(a == 0, 0, 1)
    if m >= 2:
        step = step + (a > t1)
    if m >= 3:
        step = step + (a > t2)
    return (m + np.sign(v) * step).astype(np.int64)


def quantize_value(x: np.ndarray, thresholds: Sequence[int] | np.ndarray) -> np.ndarray:
    """Level = number of thresholds strictly below ``x``."""
    th = np.asarray(thresholds, dtype=np.int64)
    return (x[:, None] > th[None, :]).sum(axis=1).astype(np.int64)


def value_thresholds(x: np.ndarray, levels: int) -> list[int]:
    """Empirical quantiles (1/levels steps) of integer outputs, as thresholds of ``quantize_value``."""
    if len(x) == 0:
        return [0] * (levels - 1)
    return [int(np.floor(np.quantile(x, j / levels))) for j in range(1, levels)]


def coefficient(a: np.ndarray, d: np.ndarray, prior_weight: float) -> np.ndarray:
    """Stored entries ``round(ONE * (A - D + k c0) / (A + D + k))`` of one table."""
    a = a.astype(np.float64)
    d = d.astype(np.float64)
    tot = a.sum() + d.sum()
    c0 = (a.sum() - d.sum()) / tot if tot else 0.0
    k = float(prior_weight)
    with np.errstate(invalid="ignore", divide="ignore"):
        v = np.where(a + d + k > 0, (a - d + k * c0) / (a + d + k), c0)
    return np.rint(v * ONE).astype(np.int64)


def count(idx: np.ndarray, is_book: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """(A, D) per entry: book-move signatures and alternatives' signatures."""
    return (np.bincount(idx[is_book], minlength=size), np.bincount(idx[~is_book], minlength=size))


def level1_indices(terms: np.ndarray, slot_q: np.ndarray) -> np.ndarray:
    """(M, 9) first-level indices ((q7 * 5) + q5) * 3 + q3 from terms (side-to-move view)."""
    v = -terms[:, SLOTS].astype(np.int64)
    q = np.empty_like(v)
    for s in range(len(SLOTS)):
        q[:, s] = quantize_term(v[:, s], LEVELS[s % 3], int(slot_q[s, 0]), int(slot_q[s, 1]))
    return (q[:, 0::3] * 5 + q[:, 1::3]) * 3 + q[:, 2::3]


def train(
    positions: BookPositions,
    *,
    progress: ProgressFn | None = None,
    name: str = "samuel-signature",
    prior_weight: float = 2.0,
    q3: int = 5,
    tiebreak: bool = True,
    **_opts: Any,
) -> Evaluator:
    """Quantize, then count A/D level by level; returns the ``CKR_EVAL_SIGNATURE`` evaluator."""
    terms = child_terms(positions, progress)
    book = positions.is_book
    v = -terms[:, SLOTS].astype(np.int64)
    slot_q = np.array([term_thresholds(v[:, s], LEVELS[s % 3]) for s in range(len(SLOTS))], dtype=np.int64)
    idx1 = level1_indices(terms, slot_q)
    t1 = np.zeros((N1, L1_SIZE), dtype=np.int64)
    out1 = np.empty_like(idx1)
    th1 = np.zeros((N1, Q1 - 1), dtype=np.int64)
    lev1 = np.empty_like(idx1)
    for j in range(N1):
        a, d = count(idx1[:, j], book, L1_SIZE)
        t1[j] = coefficient(a, d, prior_weight)
        out1[:, j] = t1[j][idx1[:, j]]
        th1[j] = value_thresholds(out1[:, j], Q1)
        lev1[:, j] = quantize_value(out1[:, j], th1[j])
    idx2 = (lev1[:, 0::3] * Q1 + lev1[:, 1::3]) * Q1 + lev1[:, 2::3]
    t2 = np.zeros((N2, L2_SIZE), dtype=np.int64)
    out2 = np.empty_like(idx2)
    th2 = np.zeros((N2, q3 - 1), dtype=np.int64)
    lev2 = np.empty_like(idx2)
    for g in range(N2):
        a, d = count(idx2[:, g], book, L2_SIZE)
        t2[g] = coefficient(a, d, prior_weight)
        out2[:, g] = t2[g][idx2[:, g]]
        th2[g] = value_thresholds(out2[:, g], q3)
        lev2[:, g] = quantize_value(out2[:, g], th2[g])
    idx3 = (lev2[:, 0] * q3 + lev2[:, 1]) * q3 + lev2[:, 2]
    a, d = count(idx3, book, q3**3)
    t3 = coefficient(a, d, prior_weight)
    header = [VERSION, len(SLOTS), N1, N2, Q1, q3, 1 if tiebreak else 0, TIEBREAK_SHIFT]
    data: list[int] = list(header)
    for s in range(len(SLOTS)):
        data += [SLOTS[s], LEVELS[s % 3], int(slot_q[s, 0]), int(slot_q[s, 1])]
    data += th1.ravel().tolist() + t1.ravel().tolist()
    data += th2.ravel().tolist() + t2.ravel().tolist()
    data += t3.tolist()
    meta = {
        "learner": "signature_tables",
        "positions": len(positions),
        "games": positions.num_games,
        "source": positions.source,
        "prior_weight": prior_weight,
        "q3": q3,
        "tiebreak": tiebreak,
        "groups": [list(g) for g in GROUPS],
        "term_thresholds": {TERM_NAMES[SLOTS[s]]: [int(x) for x in slot_q[s]] for s in range(len(SLOTS))},
    }
    return Evaluator(name, core.EvalSpec(core.EVAL_SIGNATURE, data=tuple(int(x) for x in data)), meta)


class Tables:
    """A signature evaluator's data unpacked (the layout csrc/signature_tables.c reads)."""

    def __init__(self, evaluator: Evaluator) -> None:
        d = np.asarray(evaluator.spec.data, dtype=np.int64)
        self.q3 = int(d[5])
        self.tiebreak = bool(d[6])
        self.shift = int(d[7])
        p = HEADER
        slots = d[p:p + 4 * len(SLOTS)].reshape(-1, 4)
        p += 4 * len(SLOTS)
        self.slot_q = slots[:, 2:4]
        self.th1 = d[p:p + N1 * (Q1 - 1)].reshape(N1, Q1 - 1)
        p += N1 * (Q1 - 1)
        self.t1 = d[p:p + N1 * L1_SIZE].reshape(N1, L1_SIZE)
        p += N1 * L1_SIZE
        self.th2 = d[p:p + N2 * (self.q3 - 1)].reshape(N2, self.q3 - 1)
        p += N2 * (self.q3 - 1)
        self.t2 = d[p:p + N2 * L2_SIZE].reshape(N2, L2_SIZE)
        p += N2 * L2_SIZE
        self.t3 = d[p:p + self.q3**3]


def score_terms(evaluator: Evaluator, terms: np.ndarray) -> np.ndarray:
    """The evaluator's score for the side to move of positions with these terms (as the C code)."""
    tb = Tables(evaluator)
    idx1 = level1_indices(terms, tb.slot_q)
    out1 = np.stack([tb.t1[j][idx1[:, j]] for j in range(N1)], axis=1)
    lev1 = np.stack([quantize_value(out1[:, j], tb.th1[j]) for j in range(N1)], axis=1)
    idx2 = (lev1[:, 0::3] * Q1 + lev1[:, 1::3]) * Q1 + lev1[:, 2::3]
    out2 = np.stack([tb.t2[g][idx2[:, g]] for g in range(N2)], axis=1)
    lev2 = np.stack([quantize_value(out2[:, g], tb.th2[g]) for g in range(N2)], axis=1)
    idx3 = (lev2[:, 0] * tb.q3 + lev2[:, 1]) * tb.q3 + lev2[:, 2]
    score = tb.t3[idx3].astype(np.int64)
    if tb.tiebreak:
        score = score + ((out1.sum(axis=1) + out2.sum(axis=1)) >> tb.shift)
    return -np.clip(score, -core.WIN_BOUND + 1, core.WIN_BOUND - 1)


def batch_scores(evaluator: Evaluator, positions: BookPositions) -> np.ndarray:
    """Exactly ``-evaluate(child, parent=book position)`` for every legal move."""
    return -score_terms(evaluator, child_terms(positions)).astype(np.float64)


def _register() -> None:
    from engine import agreement

    agreement.BATCH_SCORERS[core.EVAL_SIGNATURE] = batch_scores


_register()
