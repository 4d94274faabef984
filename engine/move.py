"""Move: a value type for a checkers move, with PDN text in and out."""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.errors import InvalidMoveError
from engine.types import Square

_MOVE_RE = re.compile(r"^\s*(\d{1,2})(?:\s*([-xX:])\s*(\d{1,2}))+\s*$")
_SEP_RE = re.compile(r"[-xX:]")


@dataclass(frozen=True)
class Move:
    """A move by its path of squares: the start, then each landing square.

    A quiet move has a path of two squares and no captures.  A jump lists every
    landing square, so two jumps that take the same men in different orders are
    different moves (as perft counts them).
    """

    path: tuple[Square, ...]
    """Start square, then every square the piece lands on."""
    captures: tuple[Square, ...] = ()
    """Captured squares, in the order they are jumped."""

    @property
    def from_square(self) -> Square:
        return self.path[0]

    @property
    def to_square(self) -> Square:
        return self.path[-1]

    @property
    def is_capture(self) -> bool:
        return bool(self.captures)

    @property
    def short(self) -> str:
        """PDN short form: ``11-15`` or ``15x31`` (start and end only)."""
        sep = "x" if self.captures else "-"
        return f"{self.path[0]}{sep}{self.path[-1]}"

    @property
    def long(self) -> str:
        """PDN long form: every landing square, ``15x24x31``."""
        sep = "x" if self.captures else "-"
        return sep.join(str(s) for s in self.path)

    def __str__(self) -> str:
        return self.long

    def __repr__(self) -> str:
        return f"Move.from_path({self.path!r}, captures={self.captures!r})"

    @classmethod
    def from_path(cls, path: tuple[Square, ...], captures: tuple[Square, ...] = ()) -> Move:
        return cls(tuple(path), tuple(captures))


@dataclass(frozen=True)
class MoveText:
    """Parsed PDN move text, not yet matched against a position."""

    squares: tuple[Square, ...]
    capture: bool


def parse_move_text(text: str) -> MoveText:
    """Read ``11-15``, ``22x15``, ``15x24x31`` (also ``:`` as used in some files).

    Raises InvalidMoveError naming the text when it is not move syntax or a
    square is outside 1..32.
    """
    if not isinstance(text, str) or not _MOVE_RE.match(text):
        raise InvalidMoveError(f"not a PDN move: {text!r} (expected e.g. 11-15, 22x15 or 15x24x31)")
    parts = [p.strip() for p in _SEP_RE.split(text.strip())]
    squares = tuple(int(p) for p in parts)
    for s in squares:
        if not 1 <= s <= 32:
            raise InvalidMoveError(f"square {s} out of range 1..32 in move {text!r}")
    capture = "x" in text.lower() or ":" in text
    return MoveText(squares, capture)
