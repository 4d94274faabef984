"""Square-by-square position strings and the pydraughts frame.

Hub and DXP both send a position as one character per playable square, in
square order 1..32.  pydraughts (the only English client of either in the
wild) keeps English checkers internally rotated, so its strings put square
``s`` at index ``33 - s`` with the colours swapped.  ``to_frame``/``from_frame``
convert between that and the literal reading; the dialects decide separately
what happens to the side-to-move letter (Hub swaps it too, DXP does not).
"""

from __future__ import annotations

from engine.board import Board
from engine.errors import FenError
from engine.types import BLACK, WHITE, Color

Pieces = tuple[str, ...]
"""32 entries, square 1 first: ``b`` black man, ``w`` white man, ``B``/``W`` kings, ``e`` empty."""

FRAMES = ("literal", "pydraughts")

_SWAP = {"b": "w", "w": "b", "B": "W", "W": "B", "e": "e"}


def pieces_of(board: Board) -> Pieces:
    out = []
    for s in range(1, 33):
        p = board.piece_at(s)
        if p is None:
            out.append("e")
        else:
            c = "b" if p.color == BLACK else "w"
            out.append(c.upper() if p.king else c)
    return tuple(out)


def board_from(turn: Color, pieces: Pieces) -> Board:
    """A Board (FenError when the position cannot exist, e.g. a man on its crowning row)."""
    if len(pieces) != 32:
        raise FenError(f"a position needs 32 squares, got {len(pieces)}")
    groups: dict[str, list[str]] = {"b": [], "w": []}
    for s, ch in enumerate(pieces, start=1):
        if ch == "e":
            continue
        if ch not in _SWAP:
            raise FenError(f"unknown piece {ch!r} on square {s}")
        groups[ch.lower()].append(f"K{s}" if ch.isupper() else str(s))
    fen = f"{'B' if turn == BLACK else 'W'}:W{','.join(groups['w'])}:B{','.join(groups['b'])}"
    return Board(fen)


def to_frame(pieces: Pieces, frame: str) -> Pieces:
    """Literal pieces as ``frame`` writes them."""
    if frame == "literal":
        return tuple(pieces)
    if frame == "pydraughts":
        return tuple(_SWAP[pieces[32 - i]] for i in range(1, 33))
    raise ValueError(f"unknown frame {frame!r}; choose from {', '.join(FRAMES)}")


def from_frame(pieces: Pieces, frame: str) -> Pieces:
    """Pieces written in ``frame`` read back literally (the mapping is its own inverse)."""
    return to_frame(pieces, frame)


def swap_color(turn: Color) -> Color:
    return WHITE if turn == BLACK else BLACK
