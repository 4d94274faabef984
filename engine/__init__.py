"""samuel's engine: the Python face of the C checkers core.

This package never imports ``protocol`` and never prints.  Its names load on first use
(PEP 562), so importing a light module such as ``engine.options`` or ``engine.errors``
does not load the C core.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from engine.errors import (
    AmbiguousMoveError,
    FenError,
    GameOverError,
    IllegalMoveError,
    InvalidMoveError,
    LimitError,
    OptionError,
    PdnError,
    SamuelError,
)

if TYPE_CHECKING:
    from engine.board import Board, Outcome, Piece, Termination
    from engine.evaluators import DEFAULT, MATERIAL, Evaluator
    from engine.fen import START_FEN
    from engine.limits import Limit
    from engine.move import Move
    from engine.search import Mode, Score, Searcher, SearchInfo, SearchResult
    from engine.types import BLACK, WHITE, Color, Square

_LAZY: dict[str, str] = {
    name: module
    for module, names in {
        "engine.board": ("Board", "Outcome", "Piece", "Termination"),
        "engine.evaluators": ("DEFAULT", "MATERIAL", "Evaluator"),
        "engine.fen": ("START_FEN",),
        "engine.limits": ("Limit",),
        "engine.move": ("Move",),
        "engine.search": ("Mode", "Score", "Searcher", "SearchInfo", "SearchResult"),
        "engine.types": ("BLACK", "WHITE", "Color", "Square"),
    }.items()
    for name in names
}
"""Where each lazily loaded name lives."""


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'engine' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "BLACK", "DEFAULT", "MATERIAL", "START_FEN", "WHITE", "AmbiguousMoveError", "Board", "Color",
    "Evaluator", "FenError", "GameOverError", "IllegalMoveError", "InvalidMoveError", "Limit",
    "LimitError", "Mode", "Move", "OptionError", "Outcome", "PdnError", "Piece", "SamuelError", "Score",
    "SearchInfo", "SearchResult", "Searcher", "Square", "Termination",
]
