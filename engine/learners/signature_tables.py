"""Samuel's 1967 signature-table hierarchy (``CKR_EVAL_SIGNATURE``).

Structure (learners.md 2.1, Samuel's own 1973 description): 27 input terms,
quantized to 7, 5 and 3 levels; 9 first-level tables of 7 * 5 * 3 = 105
entries, each taking one 7-, one 5- and one 3-level term; their outputs
quantized to 5 levels feed 3 second-level tables of 5**3 = 125 entries; the
three second-level outputs, quantized to ``Q3`` levels (our choice: 21, so
the third-level table has 21**3 = 9261 entries; learners.md lists 5, 7 and
15 as possible readings, and finer was better on validation), feed one
third-level table whose entry is the score.  A separate set
of tables is kept for each game phase by the number of pieces on the board
(learners.md 2.1 recalls phase-separate tables by piece count; the count is
not known): 8 phases, every three pieces (23-24, 20-22, 17-19, 14-16,
11-13, 8-10, 5-7, at most 4).

Training, level by level.  Two methods:

* ``method="likelihood"`` (the default; ours): the same tables, fitted to the
  book moves' likelihood (``engine.learners.choice_logit``): a move's score is
  the sum of its entries, the expert is modelled as picking the move with
  probability proportional to exp(score), and the entries maximize the book
  moves' probability under a ridge penalty.  First-level entries are a part
  shared by all phases plus a part of their phase (phase sharing: a phase with
  few positions borrows from the others), their inputs' thresholds common to
  all phases; second- and third-level entries are fitted on top of the levels
  below, indexed by the quantized outputs below as in the hierarchy.  The
  ridge smooths sparse cells toward the average (0), and an unreached
  signature scores by its lower levels (the tiebreak, unshifted: the levels
  add up).  Entries are log-odds in 1/1000.  Why: Samuel's counts rate each
  cell on its own and generalize poorly to positions the training never held
  (docs/learners/book.md has the figures).
* ``method="counts"``: Samuel's counting (learners.md 2.2), below.

Counting, level by level and phase by phase on the training
positions: every legal move's resulting position (the *child*, terms
computed with the book position as parent; its phase by its own piece count)
is a signature; the book move's child adds A += 1, each alternative's D += 1,
in every table it reaches.  An entry is

    (A - D + k * c0) / (A + D + k)

with ``k = prior_weight`` (default 2) and ``c0`` the table's overall
``(sum A - sum D) / (sum A + sum D)`` (about -0.7, since one move in seven is
the book's): Samuel's coefficient ``(A - D) / (A + D)`` shrunk toward the
table's average, so a never-seen signature is average rather than the
"neutral" 0 of ``(A - D) / (A + D + k)``, which would rank it above most
seen ones.  Entries are stored as ``round(10000 * entry)``; the next level's
quantization thresholds are empirical quantiles (1/5 or 1/Q3 steps) of the
stored integers over the phase's training children, and a value ``x`` has
the level ``#{thresholds < x}``.

The 27 terms (``engine.samuel_terms`` names only; each seen by the player who
made the move, ``v = -term``, Samuel's own difference convention):

* 7 levels: DENY, MOBIL, PADV, EXCH, THRET, CNTR, DIAV, GAP, POLE
* 5 levels: MOB, CENT, KCENT, EXPOS, FORK, ADV, DIA, DYKE, NODE
* 3 levels: APEX, DEMO, MOVE, MODE3, MODE2, BACK, OREO, GUARD, HOLE

i.e. PADV, the simple parameters less RECAP (which is EXCH by definition) and
less CORN and CRAMP (non-zero at under 1% of the training children), and the
three connectives with the largest single-term |C| on the training split
(DEMO, MODE3, MODE2).  The widest-ranging terms get 7 levels, the two-valued ones
3.  Quantization of a term with ``2m + 1`` levels: 0 stays the middle level,
and ``|v|`` goes to steps 1..m by thresholds ``t1 (, t2)``, the 1/m quantiles
of ``|v|`` over the nonzero training values of the phase (a 3-level term is
the sign).  Grouping (first-level tables, in order, each 7/5/3):

1. DENY MOB APEX       4. EXCH EXPOS MODE3     7. DIAV DIA OREO
2. MOBIL CENT DEMO     5. THRET FORK MODE2     8. GAP DYKE GUARD
3. PADV KCENT MOVE     6. CNTR ADV BACK        9. POLE NODE HOLE

and second-level tables (1,2,3), (4,5,6), (7,8,9): mobility and material;
exchanges, threats and the centre; structure and the back rank.  DENY and
MOB share a table because Samuel's connectives (DEMO ... DDMM) show that
their interaction matters; MOBIL (= MOB - DENY) goes with CENT, the pair of
his MOC connectives (DEMO joins them: it is DENY and MOB again).  The choices
of grouping, Q3, the phases and the lower-level weight were made on a validation part of the training split
(games whose number ends in 1, fitted on the others), never on the held-out
games.

Score: the evaluator gives the side to move minus the third-level entry of
the position (which rates it for the player who just moved), in 1/10000.
With ``tiebreak`` (default on; our addition to Samuel's scheme) the sum of
the 9 first- and 3 second-level entries is added in at 1/8 weight (floor):
positions sharing a third-level entry are then still ordered, and the lower
levels' finer information is not all lost to the 5- and 21-level
quantizations (on validation: C 0.43 against 0.41 for the third level alone,
which ties 1.4% of the pairs).  ``tiebreak=False`` is Samuel's pure
hierarchy.

Material (our addition, as Samuel kept the piece advantage fixed and outside
the learned part: 1959, "its sign is fixed ... the program never alters
it"): the score is ``W * material - floor(x / 2**S)``, where ``material`` is
the engine's material score (``book_data.material``: Samuel's piece advantage,
kings 3 : men 2, at least 100 for a man), ``x`` the table value above and
``W = material_weight`` (default 10; 0 leaves material out, Samuel's tables
alone).  ``S`` is the smallest shift that makes the table part's whole
possible range (the largest minus the smallest value any position can get)
smaller than one man, ``100 * W``; on OCA that is ``S = 6``.  The tables rate
how book-like the last move was, and the A/D counts compare a book move with
its alternatives, which rarely differ in material one ply on: without the
fixed term a search follows lines that lose pieces (held-out C with each
alternative searched 2 plies was -0.30 without it).  Statically the material
term is nearly constant among a position's alternatives and the shift costs
little resolution, so the static C barely moves.
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

ONE = 10000
VERSION = 2
HEADER = 10
"""Header words: version, 27, 9, 3, Q1, Q3, tiebreak, tiebreak shift, material weight, table shift."""
HEADER_V1 = 8
"""Version 1 had no material weight and table shift (read as 0 and 0)."""
N1, N2 = 9, 3
L1_SIZE = 105
Q1 = 5
L2_SIZE = Q1**3
TIEBREAK_SHIFT = 3
"""With ``tiebreak``, the 12 lower-level entries are added in at 1/8."""
Q3 = 21
"""Levels of each second-level output at the third-level table (21**3 = 9261 entries)."""
PHASE_BOUNDS: tuple[int, ...] = (22, 19, 16, 13, 10, 7, 4)
"""Game phases by pieces on the board: 23-24, 20-22, 17-19, 14-16, 11-13, 8-10, 5-7, at most 4."""

GROUPS: tuple[tuple[str, str, str], ...] = (
    ("DENY", "MOB", "APEX"),
    ("MOBIL", "CENT", "DEMO"),
    ("PADV", "KCENT", "MOVE"),
    ("EXCH", "EXPOS", "MODE3"),
    ("THRET", "FORK", "MODE2"),
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


def pieces(rows: np.ndarray) -> np.ndarray:
    """Pieces on the board (both sides, men and kings) of position rows."""
    return np.bitwise_count(rows[:, :4].astype(np.uint32)).sum(axis=1).astype(np.int64)


def phase_of(n_pieces: np.ndarray, bounds: Sequence[int]) -> np.ndarray:
    """Phase index: the number of (descending) bounds at or above the piece count."""
    b = np.asarray(bounds, dtype=np.int64)
    return (n_pieces[:, None] <= b[None, :]).sum(axis=1).astype(np.int64) if len(b) else np.zeros(
        len(n_pieces), dtype=np.int64)


def _fit_table(
    idx: np.ndarray, book: np.ndarray, size: int, levels: int, prior_weight: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One table counted from its inputs: (entries, thresholds of its output, its quantized output)."""
    a, d = count(idx, book, size)
    entries = coefficient(a, d, prior_weight)
    out = entries[idx]
    thresholds = value_thresholds(out, levels)
    return entries, np.asarray(thresholds, dtype=np.int64), quantize_value(out, thresholds)


def _fit_block(terms: np.ndarray, book: np.ndarray, prior_weight: float, q3: int) -> tuple[list[int], dict]:
    """One phase's tables (layout of a data block) from its children's terms and book flags."""
    v = -terms[:, SLOTS].astype(np.int64)
    slot_q = np.array([term_thresholds(v[:, s], LEVELS[s % 3]) for s in range(len(SLOTS))], dtype=np.int64)
    idx1 = level1_indices(terms, slot_q)
    t1 = np.zeros((N1, L1_SIZE), dtype=np.int64)
    th1 = np.zeros((N1, Q1 - 1), dtype=np.int64)
    lev1 = np.empty_like(idx1)
    for j in range(N1):
        t1[j], th1[j], lev1[:, j] = _fit_table(idx1[:, j], book, L1_SIZE, Q1, prior_weight)
    idx2 = (lev1[:, 0::3] * Q1 + lev1[:, 1::3]) * Q1 + lev1[:, 2::3]
    t2 = np.zeros((N2, L2_SIZE), dtype=np.int64)
    th2 = np.zeros((N2, q3 - 1), dtype=np.int64)
    lev2 = np.empty_like(idx2)
    for g in range(N2):
        t2[g], th2[g], lev2[:, g] = _fit_table(idx2[:, g], book, L2_SIZE, q3, prior_weight)
    idx3 = (lev2[:, 0] * q3 + lev2[:, 1]) * q3 + lev2[:, 2]
    a, d = count(idx3, book, q3**3)
    t3 = coefficient(a, d, prior_weight)
    block: list[int] = []
    for s in range(len(SLOTS)):
        block += [SLOTS[s], LEVELS[s % 3], int(slot_q[s, 0]), int(slot_q[s, 1])]
    block += th1.ravel().tolist() + t1.ravel().tolist()
    block += th2.ravel().tolist() + t2.ravel().tolist()
    block += t3.tolist()
    info = {
        "children": len(terms),
        "term_thresholds": {TERM_NAMES[SLOTS[s]]: [int(x) for x in slot_q[s]] for s in range(len(SLOTS))},
    }
    return block, info


def block_size(q3: int) -> int:
    return 4 * len(SLOTS) + N1 * (Q1 - 1) + N1 * L1_SIZE + N2 * (q3 - 1) + N2 * L2_SIZE + q3**3


METHODS = ("likelihood", "counts")
"""How the entries are learned: fitted to the book moves' likelihood (default) or Samuel's A/D counts."""
LIKELIHOOD_UNIT = 1000
"""Stored entries of the likelihood method are log-odds in 1/1000."""
RIDGE = (1.0, 10.0, 100.0, 1000.0)
"""Ridge penalties of the likelihood fit: first-level tables shared by all phases, the same per phase,
second level, third level.  Chosen on ``book_data.validation`` (OCA): with (1, 10, 10, 30) the
validation positions no other training game holds scored C 0.450 and the others 0.558; with these
0.454 and 0.472 -- the upper levels, free, mostly memorize openings."""


def train(
    positions: BookPositions,
    *,
    progress: ProgressFn | None = None,
    name: str = "samuel-signature",
    method: str = "likelihood",
    prior_weight: float = 2.0,
    q3: int = Q3,
    tiebreak: bool = True,
    phase_bounds: Sequence[int] = PHASE_BOUNDS,
    material_weight: int = MATERIAL_WEIGHT,
    ridge: Sequence[float] = RIDGE,
    iterations: int = 150,
    **_opts: Any,
) -> Evaluator:
    """Quantize, then learn the tables level by level per phase; returns the ``CKR_EVAL_SIGNATURE``
    evaluator.  ``method="counts"`` is Samuel's A/D counting; ``"likelihood"`` (default) fits the
    same tables to the book moves' likelihood (``engine.learners.choice_logit``)."""
    material_weight = int(material_weight)
    if material_weight < 0:
        raise ValueError("material_weight must be >= 0")
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose from {', '.join(METHODS)}")
    bounds = sorted((int(b) for b in phase_bounds), reverse=True)
    terms = child_terms(positions, progress)
    book = positions.is_book
    phase = phase_of(pieces(positions.children()), bounds)
    nph = len(bounds) + 1
    infos: list[dict[str, Any]] = []
    if method == "counts":
        blocks: list[int] = []
        for p in range(nph):
            sel = phase == p
            block, info = _fit_block(terms[sel], book[sel], prior_weight, q3)
            blocks += block
            infos.append(info)
        lower_shift = TIEBREAK_SHIFT
    else:
        blocks = _fit_likelihood(terms, positions, phase, nph, q3, tuple(float(x) for x in ridge),
                                 iterations, progress, infos)
        lower_shift = 0  # the fitted levels add up: third-level entry + every lower entry, unshifted
        tiebreak = True
    flat = np.asarray(blocks, dtype=np.int64).reshape(nph, block_size(q3))
    lo, hi = table_range([Tables(b, q3) for b in flat], tiebreak, lower_shift)
    shift = table_shift(lo, hi, material_weight)
    header = [VERSION, len(SLOTS), N1, N2, Q1, q3, 1 if tiebreak else 0, lower_shift,
              material_weight, shift]
    data: list[int] = [*header, nph, *bounds, *blocks]
    meta: dict[str, Any] = {
        "learner": "signature_tables",
        "method": method,
        "positions": len(positions),
        "games": positions.num_games,
        "source": positions.source,
        "q3": q3,
        "tiebreak": tiebreak,
        "phase_bounds": bounds,
        "material_weight": material_weight,
        "table_shift": shift,
        "table_range": [lo, hi],
        "groups": [list(g) for g in GROUPS],
        "phases": infos,
    }
    if method == "counts":
        meta["prior_weight"] = prior_weight
    else:
        meta.update({"ridge": list(ridge), "iterations": iterations, "unit": LIKELIHOOD_UNIT})
    return Evaluator(name, core.EvalSpec(core.EVAL_SIGNATURE, data=tuple(int(x) for x in data)), meta)


def _fit_likelihood(
    terms: np.ndarray, positions: BookPositions, phase: np.ndarray, nph: int, q3: int,
    ridge: tuple[float, ...], iterations: int, progress: ProgressFn | None, infos: list[dict[str, Any]],
) -> list[int]:
    """The tables of every phase fitted to the book moves' likelihood, level by level.

    First level: each entry is a weight shared by all phases plus a weight of its phase (ridge
    ``ridge[0]`` on the shared part, ``ridge[1]`` on the phase's), so a phase with few positions
    borrows from the others and a sparse cell stays near the average.  The input thresholds are
    therefore common to all phases.  Second and third levels: their entries are fitted on top of the
    levels below (their fitted scores are a fixed offset), indexed by the quantized outputs below as
    in Samuel's hierarchy; a signature the training never reached keeps 0 and the position is
    scored by its lower levels.  Entries are log-odds in 1/``LIKELIHOOD_UNIT``.
    """
    from engine.learners import choice_logit

    if len(ridge) != 4:
        raise ValueError("ridge needs 4 values: shared first level, first level, second, third")
    choices = choice_logit.Choices(positions.start.astype(np.int64), positions.book.astype(np.int64))
    v = -terms[:, SLOTS].astype(np.int64)
    slot_q = np.array([term_thresholds(v[:, s], LEVELS[s % 3]) for s in range(len(SLOTS))], dtype=np.int64)
    idx1 = level1_indices(terms, slot_q)
    stages = 3
    step = [0]

    def stage_progress(done: int, total: int) -> None:
        if progress is not None:
            progress(step[0] * iterations + done, stages * iterations)

    # level 1: phase part (nph * 9 * 105 weights), then the shared part (9 * 105)
    tables = np.arange(N1, dtype=np.int64)[None, :]
    own = (phase[:, None] * N1 + tables) * L1_SIZE + idx1
    shared = nph * N1 * L1_SIZE + tables * L1_SIZE + idx1
    size1 = (nph + 1) * N1 * L1_SIZE
    lam1 = np.full(size1, ridge[1])
    lam1[nph * N1 * L1_SIZE:] = ridge[0]
    w1 = choice_logit.fit(np.concatenate([own, shared], axis=1), size1, choices, lam=lam1,
                          iterations=iterations, progress=stage_progress)
    t1_all = np.rint(LIKELIHOOD_UNIT * (w1[:nph * N1 * L1_SIZE].reshape(nph, N1, L1_SIZE)
                                        + w1[nph * N1 * L1_SIZE:].reshape(1, N1, L1_SIZE))).astype(np.int64)
    out1 = t1_all[phase[:, None], tables, idx1]
    th1, lev1 = _phase_levels(out1, phase, nph, Q1)
    # level 2, on top of level 1
    step[0] = 1
    idx2 = (lev1[:, 0::3] * Q1 + lev1[:, 1::3]) * Q1 + lev1[:, 2::3]
    groups = np.arange(N2, dtype=np.int64)[None, :]
    cells2 = (phase[:, None] * N2 + groups) * L2_SIZE + idx2
    w2 = choice_logit.fit(cells2, nph * N2 * L2_SIZE, choices, offset=out1.sum(axis=1) / LIKELIHOOD_UNIT,
                          lam=ridge[2], iterations=iterations, progress=stage_progress)
    t2_all = np.rint(LIKELIHOOD_UNIT * w2.reshape(nph, N2, L2_SIZE)).astype(np.int64)
    out2 = t2_all[phase[:, None], groups, idx2]
    th2, lev2 = _phase_levels(out2, phase, nph, q3)
    # level 3, on top of both
    step[0] = 2
    idx3 = (lev2[:, 0] * q3 + lev2[:, 1]) * q3 + lev2[:, 2]
    lower = (out1.sum(axis=1) + out2.sum(axis=1)) / LIKELIHOOD_UNIT
    w3 = choice_logit.fit((phase * q3**3 + idx3)[:, None], nph * q3**3, choices, offset=lower,
                          lam=ridge[3], iterations=iterations, progress=stage_progress)
    t3_all = np.rint(LIKELIHOOD_UNIT * w3.reshape(nph, q3**3)).astype(np.int64)
    blocks: list[int] = []
    for p in range(nph):
        for s in range(len(SLOTS)):
            blocks += [SLOTS[s], LEVELS[s % 3], int(slot_q[s, 0]), int(slot_q[s, 1])]
        blocks += th1[p].ravel().tolist() + t1_all[p].ravel().tolist()
        blocks += th2[p].ravel().tolist() + t2_all[p].ravel().tolist()
        blocks += t3_all[p].tolist()
        infos.append({
            "children": int((phase == p).sum()),
            "term_thresholds": {TERM_NAMES[SLOTS[s]]: [int(x) for x in slot_q[s]] for s in range(len(SLOTS))},
        })
    return blocks


def _phase_levels(out: np.ndarray, phase: np.ndarray, nph: int, levels: int) -> tuple[np.ndarray, np.ndarray]:
    """(thresholds (nph, tables, levels - 1), levels (M, tables)) of table outputs ``out`` (M, tables):
    each table's outputs quantized by their quantiles within each phase."""
    th = np.zeros((nph, out.shape[1], levels - 1), dtype=np.int64)
    lev = np.zeros(out.shape, dtype=np.int64)
    for p in range(nph):
        sel = phase == p
        for j in range(out.shape[1]):
            th[p, j] = value_thresholds(out[sel, j], levels)
            lev[sel, j] = quantize_value(out[sel, j], th[p, j])
    return th, lev


class Tables:
    """One phase's tables of a signature evaluator (the layout csrc/signature_tables.c reads)."""

    def __init__(self, data: np.ndarray, q3: int) -> None:
        self.q3 = q3
        p = 0
        slots = data[p:p + 4 * len(SLOTS)].reshape(-1, 4)
        p += 4 * len(SLOTS)
        self.slot_q = slots[:, 2:4]
        self.th1 = data[p:p + N1 * (Q1 - 1)].reshape(N1, Q1 - 1)
        p += N1 * (Q1 - 1)
        self.t1 = data[p:p + N1 * L1_SIZE].reshape(N1, L1_SIZE)
        p += N1 * L1_SIZE
        self.th2 = data[p:p + N2 * (q3 - 1)].reshape(N2, q3 - 1)
        p += N2 * (q3 - 1)
        self.t2 = data[p:p + N2 * L2_SIZE].reshape(N2, L2_SIZE)
        p += N2 * L2_SIZE
        self.t3 = data[p:p + q3**3]


def table_range(tables: Sequence[Tables], tiebreak: bool, shift: int) -> tuple[int, int]:
    """(lowest, highest) table value any position can get (bounds: each table at its extreme)."""
    lo, hi = [], []
    for tb in tables:
        x_lo, x_hi = int(tb.t3.min()), int(tb.t3.max())
        if tiebreak:
            x_lo += (int(tb.t1.min(axis=1).sum()) + int(tb.t2.min(axis=1).sum())) >> shift
            x_hi += (int(tb.t1.max(axis=1).sum()) + int(tb.t2.max(axis=1).sum())) >> shift
        lo.append(x_lo)
        hi.append(x_hi)
    return min(lo), max(hi)


def unpack(evaluator: Evaluator) -> tuple[int, bool, int, list[int], list[Tables]]:
    """(q3, tiebreak, shift, phase bounds, tables per phase) of a signature evaluator."""
    d = np.asarray(evaluator.spec.data, dtype=np.int64)
    q3, tiebreak, shift = int(d[5]), bool(d[6]), int(d[7])
    header = header_size(evaluator)
    nph = int(d[header])
    bounds = [int(x) for x in d[header + 1:header + nph]]
    start = header + nph
    size = block_size(q3)
    tables = [Tables(d[start + k * size:start + (k + 1) * size], q3) for k in range(nph)]
    return q3, tiebreak, shift, bounds, tables


def header_size(evaluator: Evaluator) -> int:
    return HEADER_V1 if int(evaluator.spec.data[0]) == 1 else HEADER


def material_part(evaluator: Evaluator) -> tuple[int, int]:
    """(material weight, table shift); (0, 0) for version-1 data."""
    d = evaluator.spec.data
    return (0, 0) if header_size(evaluator) == HEADER_V1 else (int(d[8]), int(d[9]))


def _score_block(tb: Tables, terms: np.ndarray, tiebreak: bool, shift: int) -> np.ndarray:
    idx1 = level1_indices(terms, tb.slot_q)
    out1 = np.stack([tb.t1[j][idx1[:, j]] for j in range(N1)], axis=1)
    lev1 = np.stack([quantize_value(out1[:, j], tb.th1[j]) for j in range(N1)], axis=1)
    idx2 = (lev1[:, 0::3] * Q1 + lev1[:, 1::3]) * Q1 + lev1[:, 2::3]
    out2 = np.stack([tb.t2[g][idx2[:, g]] for g in range(N2)], axis=1)
    lev2 = np.stack([quantize_value(out2[:, g], tb.th2[g]) for g in range(N2)], axis=1)
    idx3 = (lev2[:, 0] * tb.q3 + lev2[:, 1]) * tb.q3 + lev2[:, 2]
    score = tb.t3[idx3].astype(np.int64)
    if tiebreak:
        score = score + ((out1.sum(axis=1) + out2.sum(axis=1)) >> shift)
    return score


def score_terms(evaluator: Evaluator, terms: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The evaluator's score for the side to move of positions ``rows`` with these terms (as the C code)."""
    _q3, tiebreak, shift, bounds, tables = unpack(evaluator)
    weight, table_sh = material_part(evaluator)
    phase = phase_of(pieces(rows), bounds)
    x = np.zeros(len(terms), dtype=np.int64)
    for p, tb in enumerate(tables):
        sel = phase == p
        if sel.any():
            x[sel] = _score_block(tb, terms[sel], tiebreak, shift)
    return with_material(-(x >> table_sh), weight, rows)


def batch_scores(evaluator: Evaluator, positions: BookPositions) -> np.ndarray:
    """Exactly ``-evaluate(child, parent=book position)`` for every legal move."""
    return -score_terms(evaluator, child_terms(positions), positions.children()).astype(np.float64)
