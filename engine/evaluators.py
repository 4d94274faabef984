"""Evaluators: named specifications the C search evaluates with.

An evaluator is data (a kind plus weights or tables), so learners can build
one in Python and the search still runs entirely in C.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engine import core
from engine.board import Board
from engine.errors import OptionError


@dataclass(frozen=True)
class Evaluator:
    """A named evaluator specification."""

    name: str
    spec: core.EvalSpec

    def evaluate(self, board: Board) -> int:
        """Static score of ``board`` for the side to move (100 = one man)."""
        return core.evaluate(board.raw, self.spec, board.previous_raw, board.ply)


MATERIAL = Evaluator("material", core.EvalSpec(core.EVAL_MATERIAL))
"""Samuel's piece advantage: kings 3 to men 2, preferring trades when ahead."""

DEFAULT = Evaluator("default", core.EvalSpec(core.EVAL_DEFAULT))
"""The hand-crafted modern evaluator."""

FEATURE_NAMES: tuple[str, ...] = tuple(core.feature_names())


def linear(weights: Mapping[str, float] | Sequence[float], name: str = "linear") -> Evaluator:
    """A weighted sum of the core's features; weights in centi-men per unit of feature."""
    if isinstance(weights, Mapping):
        unknown = set(weights) - set(FEATURE_NAMES)
        if unknown:
            raise ValueError(f"unknown features {sorted(unknown)}; known: {', '.join(FEATURE_NAMES)}")
        values = [float(weights.get(n, 0.0)) for n in FEATURE_NAMES]
    else:
        values = [float(w) for w in weights]
        if len(values) > len(FEATURE_NAMES):
            raise ValueError(f"{len(values)} weights for {len(FEATURE_NAMES)} features")
    scaled = tuple(round(w * core.WEIGHT_ONE) for w in values)
    return Evaluator(name, core.EvalSpec(core.EVAL_LINEAR, weights=scaled))


def tables(man: Sequence[int], king: Sequence[int], name: str = "tables") -> Evaluator:
    """Piece-square tables (32 entries each, indexed by the owner's relative square - 1)."""
    return Evaluator(name, core.EvalSpec(core.EVAL_TABLE, man_table=tuple(man), king_table=tuple(king)))


def features(board: Board) -> dict[str, int]:
    """The feature terms of a position (side to move minus opponent)."""
    return dict(zip(FEATURE_NAMES, core.features(board.raw), strict=False))


BUILTIN: dict[str, Evaluator] = {e.name: e for e in (MATERIAL, DEFAULT)}


def by_name(name: str) -> Evaluator:
    try:
        return BUILTIN[name]
    except KeyError:
        raise OptionError(f"unknown evaluator {name!r}; choose from {', '.join(BUILTIN)}") from None
