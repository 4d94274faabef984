"""The engine's exceptions: each names what was wrong with the input."""

from __future__ import annotations


class SamuelError(Exception):
    """Base class of every error the engine raises on purpose."""


class FenError(SamuelError, ValueError):
    """A FEN string that cannot be read, with the reason and the offending text."""


class InvalidMoveError(SamuelError, ValueError):
    """Move text that is not PDN move syntax (``11-15``, ``22x15``, ``15x24x31``)."""


class IllegalMoveError(SamuelError, ValueError):
    """A well-formed move that is not legal in the position."""


class AmbiguousMoveError(SamuelError, ValueError):
    """Move text that matches several legal moves with different effects."""


class PdnError(SamuelError, ValueError):
    """PDN text that cannot be read, with the game and line where it failed."""


class GameOverError(SamuelError):
    """An operation that needs a move, asked of a finished game."""


class LimitError(SamuelError, ValueError):
    """A search limit that makes no sense (negative time, zero depth...)."""


class OptionError(SamuelError, ValueError):
    """An unknown evaluator, search mode or other engine option value."""
