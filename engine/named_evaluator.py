"""The Evaluator type: a name and the specification the C search evaluates with (a kind plus weights
or tables), so learners can build one in Python and the search still runs entirely in C.

One evaluator is defined here; the catalogue that builds, stores and finds them by name is
``engine.evaluators``; the modules that define the evaluators it lists import the type from here."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine import core
from engine.board import Board


@dataclass(frozen=True)
class Evaluator:
    """A named evaluator specification."""

    name: str
    spec: core.EvalSpec
    meta: Mapping[str, Any] = field(default_factory=dict, compare=False)
    """Where it came from (training data, games, figures): saved with it, never read by the search."""

    def evaluate(self, board: Board) -> int:
        """Static score of ``board`` for the side to move (100 = one man)."""
        return core.evaluate(board.raw, self.spec, board.previous_raw, board.ply)


MATERIAL = Evaluator("material", core.EvalSpec(core.EVAL_MATERIAL))
"""Samuel's piece advantage: kings 3 to men 2, preferring trades when ahead."""

