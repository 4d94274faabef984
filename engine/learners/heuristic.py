"""Griffith's four-rule heuristic evaluator (1974, section 8).

The rules, and our reading of each, are written out at the top of
csrc/heuristic_eval.c (the ``CKR_EVAL_HEURISTIC`` evaluator).  In short, the
move that led to a position gets a priority level:

* 4 -- rule 1: a king moved;
* 3 -- rule 2: along the long diagonal 4-8-11-15-18-22-25-29, or into the
  centre (by default 14, 15, 18, 19), or (by default) a man crowning;
* 2 -- rule 4: any other move;
* 1 -- rule 3: the opponent then has a capture, or the move leaves relative
  square 1 or 3 (the bridge: "third from the left and second from the right"
  of the first row, counted over all eight squares from the mover's side).

The evaluator is not trained.  ``train`` only picks, on the training
positions, which of the readings the paper leaves open fits the experts best
(the pair of "central two squares", whether crowning counts under rule 2, the
precedence when rules overlap), measuring C with Griffith's randomized
scores; ``train(..., choose=False)`` returns the default reading.

Ties: the evaluator returns the level; Griffith gave the moves of one level
random scores inside the level's band (0.9-1.0, 0.8-0.9, ...) because ties
bias C.  ``engine.learners.agreement.measure(..., tie_break="random", seed=S)`` does
exactly that, reproducibly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine import core
from engine.evaluators import Evaluator
from engine.learners.book_data import (
    FLAG_CROWN,
    FLAG_KING,
    BookPositions,
    has_capture,
    material,
    relative,
)

VERSION = 1
HEADER = 8
MAIN_DIAGONAL = frozenset({4, 8, 11, 15, 18, 22, 25, 29})
BRIDGE = frozenset({1, 3})
CENTRES: dict[str, frozenset[int]] = {
    "centre4": frozenset({14, 15, 18, 19}),
    "near2": frozenset({14, 15}),
    "far2": frozenset({18, 19}),
}
"""Readings of "the central two squares" (relative squares)."""
PRECEDENCES = {"listed": 0, "caution": 1, "caution-all": 2}

ProgressFn = Callable[[int, int], None]


@dataclass(frozen=True)
class Reading:
    """One reading of the rules the paper leaves open."""

    centre: str = "centre4"
    crowning: bool = True
    precedence: str = "listed"

    def label(self) -> str:
        return f"{self.centre}{'+crown' if self.crowning else ''}/{self.precedence}"


DEFAULT_READING = Reading()


def _mask(squares: frozenset[int]) -> int:
    m = 0
    for s in squares:
        m |= 1 << (s - 1)
    return m


def evaluator(
    reading: Reading = DEFAULT_READING,
    *,
    name: str = "griffith-heuristic",
    scale: int = 10,
    material: bool = True,
    meta: dict[str, Any] | None = None,
) -> Evaluator:
    data = (
        VERSION, int(scale), 1 if material else 0, PRECEDENCES[reading.precedence],
        _mask(CENTRES[reading.centre]), 1 if reading.crowning else 0, 0, 0,
    )
    m = {"learner": "heuristic", "reading": reading.label(), **(meta or {})}
    return Evaluator(name, core.EvalSpec(core.EVAL_HEURISTIC, data=data), m)


@dataclass(frozen=True)
class MoveTerms:
    """Per legal move: the facts the four rules read."""

    king: np.ndarray
    diagonal: np.ndarray
    to_rel: np.ndarray
    crowns: np.ndarray
    gives_jump: np.ndarray
    from_bridge: np.ndarray


def move_terms(positions: BookPositions) -> MoveTerms:
    owner = positions.owner
    mover = positions.pos[owner, 4]
    round_trip = positions.move_from == positions.move_to  # C cannot see its squares: none count
    rf = np.where(round_trip, 0, relative(positions.move_from, mover))
    rt = np.where(round_trip, 0, relative(positions.move_to, mover))
    diag = np.isin(rf, list(MAIN_DIAGONAL)) & np.isin(rt, list(MAIN_DIAGONAL))
    return MoveTerms(
        king=(positions.move_flags & FLAG_KING) != 0,
        diagonal=diag,
        to_rel=rt,
        crowns=(positions.move_flags & FLAG_CROWN) != 0,
        gives_jump=has_capture(positions.children()),
        from_bridge=np.isin(rf, list(BRIDGE)),
    )


def levels(terms: MoveTerms, reading: Reading = DEFAULT_READING) -> np.ndarray:
    """Priority level (4 best .. 1 worst) of every move under ``reading``."""
    good = terms.diagonal | np.isin(terms.to_rel, list(CENTRES[reading.centre]))
    if reading.crowning:
        good = good | terms.crowns
    bad = terms.gives_jump | terms.from_bridge
    level = np.where(good, 3, np.where(bad, 1, 2))
    p = PRECEDENCES[reading.precedence]
    if p == 1:
        level = np.where(bad, 1, level)
    level = np.where(terms.king, 4, level)
    if p == 2:
        level = np.where(bad, 1, level)
    return level


def batch_scores(ev: Evaluator, positions: BookPositions) -> np.ndarray:
    """Exactly ``-evaluate(child)`` for every legal move (what csrc/heuristic_eval.c computes)."""
    data = ev.spec.data
    reading = _reading_of(data)
    scale, mat_w = int(data[1]), int(data[2])
    level = levels(move_terms(positions), reading)
    mat = mat_w * material(positions.children()) if mat_w else 0
    return (level * scale - mat).astype(np.float64)


def _reading_of(data: tuple[int, ...]) -> Reading:
    centre = next((k for k, v in CENTRES.items() if _mask(v) == data[4]), None)
    if centre is None:
        raise ValueError(f"heuristic evaluator: centre mask {data[4]:#x} is not one of the known readings")
    precedence = next(k for k, v in PRECEDENCES.items() if v == data[3])
    return Reading(centre, bool(data[5] & 1), precedence)


def readings() -> list[Reading]:
    return [Reading(c, cr, p) for c in CENTRES for cr in (True, False) for p in PRECEDENCES]


def train(
    positions: BookPositions,
    *,
    progress: ProgressFn | None = None,
    name: str = "griffith-heuristic",
    choose: bool = True,
    seed: int = 0,
    max_positions: int = 50_000,
    scale: int = 10,
    material: bool = True,
    **_opts: Any,
) -> Evaluator:
    """The heuristic evaluator; with ``choose``, the reading with the best C on ``positions`` (sampled)."""
    from engine.learners import agreement

    if not choose or len(positions) == 0:
        return evaluator(name=name, scale=scale, material=material,
                         meta={"positions": 0, "chosen_by": "default reading"})
    sample = positions
    if len(positions) > max_positions:
        rng = np.random.default_rng(seed)
        sample = positions.take(np.sort(rng.choice(len(positions), max_positions, replace=False)))
    terms = move_terms(sample)
    results: dict[str, float] = {}
    best: tuple[float, Reading] | None = None
    options = readings()
    for k, reading in enumerate(options):
        # Levels only (no material): Griffith's evaluator ranks moves by priority alone.
        a = agreement.measure_scores(levels(terms, reading).astype(np.float64), sample,
                                     tie_break="random", seed=seed, bootstrap=0)
        results[reading.label()] = round(a.c_samuel, 4)
        if best is None or a.c_samuel > best[0]:
            best = (a.c_samuel, reading)
        if progress is not None:
            progress(k + 1, len(options))
    assert best is not None
    return evaluator(best[1], name=name, scale=scale, material=material, meta={
        "positions": len(sample),
        "games": sample.num_games,
        "source": positions.source,
        "chosen_by": "C (random ties) on the training positions",
        "train_C": results,
    })
