"""The engine's vocabulary: colours, squares and square sets.

Squares use the standard 1..32 numbering; Black's men start on 1-12 and move
first.  A ``SquareSet`` is an int with bit ``s-1`` set for square ``s``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeAlias

Color: TypeAlias = int
Square: TypeAlias = int
SquareSet: TypeAlias = int

BLACK: Color = 0
WHITE: Color = 1
COLOR_NAMES: tuple[str, str] = ("black", "white")

SQUARES: range = range(1, 33)
BLACK_START: SquareSet = 0x0000_0FFF
WHITE_START: SquareSet = 0xFFF0_0000
BLACK_CROWN_ROW: SquareSet = 0xF000_0000
WHITE_CROWN_ROW: SquareSet = 0x0000_000F


def square_set(squares: Iterable[int]) -> SquareSet:
    """Build a square set from an iterable of square numbers."""
    result = 0
    for s in squares:
        result |= 1 << (int(s) - 1)
    return result


def squares_of(mask: SquareSet) -> list[Square]:
    """The squares of a set, ascending."""
    return [s for s in SQUARES if mask >> (s - 1) & 1]


def row_col(square: Square) -> tuple[int, int]:
    """Row 0 (Black's back rank) to 7, and column 0..7 as drawn from Black's side."""
    row = (square - 1) // 4
    col = 2 * ((square - 1) % 4) + (1 if row % 2 == 0 else 0)
    return row, col
