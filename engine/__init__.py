"""samuel's engine: the Python face of the C checkers core.

This package never imports ``protocol`` and never prints.
"""

from engine.board import Board, Outcome, Piece, Termination
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
from engine.evaluators import DEFAULT, MATERIAL, Evaluator
from engine.fen import START_FEN
from engine.limits import Limit
from engine.move import Move
from engine.search import Mode, Score, Searcher, SearchInfo, SearchResult
from engine.types import BLACK, WHITE, Color, Square

__all__ = [
    "BLACK",
    "DEFAULT",
    "MATERIAL",
    "START_FEN",
    "WHITE",
    "AmbiguousMoveError",
    "Board",
    "Color",
    "Evaluator",
    "FenError",
    "GameOverError",
    "IllegalMoveError",
    "InvalidMoveError",
    "Limit",
    "LimitError",
    "Mode",
    "Move",
    "OptionError",
    "Outcome",
    "PdnError",
    "Piece",
    "SamuelError",
    "Score",
    "SearchInfo",
    "SearchResult",
    "Searcher",
    "Square",
    "Termination",
]
