"""Griffith's move-phase tables (1974, section 7): learner and scorer.

Every legal move of every book position is counted in the table of its game
phase: *strong* if it is the book move, *weak* otherwise.  A table entry is
``strong / (strong + weak)``: how often the move, when it was available, was the
one the expert chose.  A position is then scored by the entry of the move that
brought it about, in the phase of that move.

* Phases: moves 1-10, 11-20, 21-30, 31-40, 41-50, 51 on, where a *move* is one
  player's move (a ply).  That is the reading Griffith's Table 1 supports:
  e.g. Black's 22-25 and 22-26 never occur in his phase 1 and are 1.00 (a
  single sighting) in phase 2, which fits plies 11-20 but not full moves 11-20
  (by then such moves are common); and his phases 5 and 6 are well populated
  although Lees' Guide lines rarely run past 80 plies.  The phase of a move
  made at game ply p (0-based) is ``min(p // 10, 5)``.
* Moves are keyed by the mover's relative squares (Black's as they are,
  White's s -> 33 - s), so both colours share the tables.  Griffith's 98
  entries are the single steps; jumps get entries by their start and final
  landing square.  A king's capture that ends where it started has no entry
  (it is not counted, and scores 0 positional).
* Never-seen entries (and the shrinkage of rare ones): an entry is
  ``(strong + k * p0) / (strong + weak + k)`` where ``p0`` is the phase's
  overall strong fraction (about 1/7) and ``k = prior_weight`` (default 1).
  An entry never seen is therefore ``p0``, neither good nor bad; ``k = 0``
  gives Griffith's raw quotients for the entries that were seen.
* The evaluator (``CKR_EVAL_PHASE``, csrc/phase_tables.c) returns, for the side
  to move, material (Samuel's piece advantage, unless ``material=False``)
  minus ``entry * scale``; ``scale`` defaults to 100 centi-men, one man for an
  entry of 1.0.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from engine import core
from engine.evaluators import Evaluator
from engine.learners.book_data import BookPositions, material, relative

PHASES = 6
PLIES_PER_PHASE = 10
SQUARES = 32
ONE = 10000
"""Entries are stored in units of 1/10000."""
HEADER = 8
VERSION = 1

ProgressFn = Callable[[int, int], None]


def phase_of_ply(ply: np.ndarray | int) -> np.ndarray:
    """Phase (0..5) of a move made at 0-based game ply ``ply``."""
    return np.minimum(np.asarray(ply) // PLIES_PER_PHASE, PHASES - 1)


def move_keys(positions: BookPositions) -> np.ndarray:
    """Table index (phase * 1024 + (from-1) * 32 + to-1) of every legal move; -1 if it has none."""
    owner = positions.owner
    mover = positions.pos[owner, 4]
    rf = relative(positions.move_from, mover)
    rt = relative(positions.move_to, mover)
    phase = phase_of_ply(positions.ply[owner]).astype(np.int64)
    key = (phase * SQUARES + (rf - 1)) * SQUARES + (rt - 1)
    return np.where(rf == rt, -1, key)


def counts(positions: BookPositions) -> tuple[np.ndarray, np.ndarray]:
    """(strong, weak) counts per table entry, each of shape (6, 32, 32) [phase, from-1, to-1]."""
    keys = move_keys(positions)
    valid = keys >= 0
    size = PHASES * SQUARES * SQUARES
    book = positions.is_book
    strong = np.bincount(keys[valid & book], minlength=size)
    weak = np.bincount(keys[valid & ~book], minlength=size)
    shape = (PHASES, SQUARES, SQUARES)
    return strong.reshape(shape), weak.reshape(shape)


def tables(strong: np.ndarray, weak: np.ndarray, prior_weight: float = 1.0) -> np.ndarray:
    """Entries (6, 32, 32) as fractions, with the documented prior for rare and unseen moves."""
    s = strong.astype(np.float64)
    n = s + weak
    per_phase_s = s.sum(axis=(1, 2))
    per_phase_n = n.sum(axis=(1, 2))
    p0 = np.where(per_phase_n > 0, per_phase_s / np.maximum(per_phase_n, 1), 1.0 / 7.0)[:, None, None]
    k = float(prior_weight)
    with np.errstate(invalid="ignore", divide="ignore"):
        value = np.where(n + k > 0, (s + k * p0) / (n + k), p0)
    return np.where(n > 0, value, p0 * np.ones_like(value))


def train(
    positions: BookPositions,
    *,
    progress: ProgressFn | None = None,
    name: str = "griffith-phase",
    scale: int = 100,
    material: bool = True,
    prior_weight: float = 1.0,
    **_opts: Any,
) -> Evaluator:
    """Count strong and weak moves per phase and build the ``CKR_EVAL_PHASE`` evaluator."""
    strong, weak = counts(positions)
    if progress is not None:
        progress(len(positions), len(positions))
    value = tables(strong, weak, prior_weight)
    return evaluator_from_tables(value, name=name, scale=scale, material=material, meta={
        "learner": "move_phase",
        "positions": len(positions),
        "games": positions.num_games,
        "source": positions.source,
        "prior_weight": prior_weight,
        "seen_entries": int(((strong + weak) > 0).sum()),
    })


def evaluator_from_tables(
    value: np.ndarray,
    *,
    name: str = "griffith-phase",
    scale: int = 100,
    material: bool = True,
    meta: dict[str, Any] | None = None,
) -> Evaluator:
    entries = np.clip(np.rint(value * ONE), 0, ONE).astype(np.int64).ravel()
    header = [VERSION, int(scale), 1 if material else 0, PHASES, PLIES_PER_PHASE, 0, 0, 0]
    data = tuple(header + [int(v) for v in entries])
    return Evaluator(name, core.EvalSpec(core.EVAL_PHASE, data=data), dict(meta or {}))


def entries(evaluator: Evaluator) -> np.ndarray:
    """The stored entries (6, 32, 32) of a move-phase evaluator, in 1/10000."""
    data = np.asarray(evaluator.spec.data, dtype=np.int64)
    return data[HEADER:HEADER + PHASES * SQUARES * SQUARES].reshape(PHASES, SQUARES, SQUARES)


def table_value(evaluator: Evaluator, phase: int, from_sq: int, to_sq: int) -> float:
    """The entry for a move in relative squares, as a fraction (Griffith's Table 1 numbers)."""
    return float(entries(evaluator)[phase, from_sq - 1, to_sq - 1]) / ONE


def batch_scores(evaluator: Evaluator, positions: BookPositions) -> np.ndarray:
    """Exactly ``-evaluate(child)`` for every legal move (what csrc/phase_tables.c computes)."""
    data = evaluator.spec.data
    scale, mat_w = int(data[1]), int(data[2])
    table = entries(evaluator).ravel()
    keys = move_keys(positions)
    positional = np.where(keys >= 0, table[np.maximum(keys, 0)] * scale // ONE, 0)
    mat = mat_w * material(positions.children()) if mat_w else 0
    return (positional - mat).astype(np.float64)
