"""Helpers shared by the book-learner tests: the small PDN fixture and the C evaluator, move by move."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from engine import core, evaluators
from engine.learners import book_data

SMALL_PDN = Path(__file__).resolve().parent / "data" / "book_small.pdn"


def c_scores(ev: evaluators.Evaluator, positions: book_data.BookPositions) -> np.ndarray:
    """-(C evaluator of each child, parent = the book position), one core call per child.

    The slow, independent path the vectorized batch scorers are checked against.
    """
    children = positions.children()
    owner = positions.owner
    raws = [core.RawPosition(*(int(x) for x in c)) for c in children]
    parents = [positions.raw(int(i)) for i in owner]
    plies = [int(positions.ply[i]) + 1 for i in owner]
    return -np.asarray(core.evaluate_many(ev.spec, raws, parents, plies), dtype=np.float64)
