"""The book learners, one entry each: the one place that says which learner makes which evaluator kind.

``samuel learn book --method NAME`` trains with an entry's module (its ``train``), and the
agreement measure scores an evaluator of an entry's kind with that module's vectorized
``batch_scores`` (which must give exactly the C evaluator's numbers).  Adding a learner is one
entry here; nothing registers itself on import.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING

from engine import core
from engine.errors import OptionError

if TYPE_CHECKING:
    import numpy as np

    from engine.evaluators import Evaluator
    from engine.learners.book_data import BookPositions

    BatchScorer = Callable[[Evaluator, BookPositions], np.ndarray]


@dataclass(frozen=True)
class BookMethod:
    name: str
    """The ``--method`` name."""
    kind: int
    """The core evaluator kind its evaluators have."""
    module: str
    """The module with ``train(positions, *, progress=None, **opts)`` and ``batch_scores``."""
    description: str


BOOK_METHODS: tuple[BookMethod, ...] = (
    BookMethod("phase", core.EVAL_PHASE, "engine.learners.move_phase", "Griffith's move-phase tables (1974)"),
    BookMethod("heuristic", core.EVAL_HEURISTIC, "engine.learners.heuristic",
               "Griffith's four-rule heuristic (1974; picks among the paper's open readings)"),
    BookMethod("signature", core.EVAL_SIGNATURE, "engine.learners.signature_tables",
               "Samuel's signature tables (1967)"),
    BookMethod("tabulated", core.EVAL_TABULATED, "engine.learners.tabulated",
               "the refinement paper's 8 tabulated functions"),
    BookMethod("polynomial", core.EVAL_SAMUEL, "engine.learners.book_polynomial",
               "Samuel's linear polynomial, book-trained"),
)


def method(name: str) -> BookMethod:
    for m in BOOK_METHODS:
        if m.name == name:
            return m
    raise OptionError(f"unknown book-learning method {name!r}; choose from "
                      f"{', '.join(m.name for m in BOOK_METHODS)}")


def module_of(entry: BookMethod) -> ModuleType:
    return importlib.import_module(entry.module)


def batch_scorer(kind: int) -> BatchScorer | None:
    """The vectorized scorer for evaluators of ``kind``; None where only the C evaluator scores."""
    for m in BOOK_METHODS:
        if m.kind == kind:
            scorer: BatchScorer = module_of(m).batch_scores
            return scorer
    return None
