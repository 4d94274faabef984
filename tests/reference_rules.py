"""An independent, deliberately slow reference move generator for English checkers.

Written from the ACF rules alone, with its own (row, col) board, so that it can
serve as an oracle for the C core.  It imports nothing from ``engine``.

Rules implemented
-----------------
* 8x8 board, 32 dark squares numbered 1..32.  Squares 1-4 are row 0 (Black's
  back rank), 5-8 row 1, ..., 29-32 row 7.  In even rows the squares are in
  columns 1, 3, 5, 7; in odd rows in columns 0, 2, 4, 6.
* Black moves first; Black's men move towards higher rows, White's men towards
  lower rows, kings both ways, one diagonal step at a time.
* Captures are compulsory, but any capture may be chosen (not necessarily the
  longest).  A jump continues while the same piece can jump again.
* A man that reaches the far row is crowned and the move ends there, even in
  the middle of a capture sequence.
* Captured pieces stay on the board until the move ends: they cannot be jumped
  twice and they block landing squares.  The moving piece's start square is
  empty during its own jump.
* Moves are distinct by jump path (start square, then each landing square).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

EMPTY = "."
BLACK_MAN = "b"
BLACK_KING = "B"
WHITE_MAN = "w"
WHITE_KING = "W"

Coord = tuple[int, int]
Grid = tuple[tuple[str, ...], ...]


def square_to_coord(square: int) -> Coord:
    """(row, col) of a square 1..32."""
    if not 1 <= square <= 32:
        raise ValueError(f"square {square} out of range")
    row = (square - 1) // 4
    index_in_row = (square - 1) % 4
    col = 2 * index_in_row + (1 if row % 2 == 0 else 0)
    return row, col


def coord_to_square(coord: Coord) -> int | None:
    """The square number at (row, col), or None for a light square or off the board."""
    row, col = coord
    if not (0 <= row < 8 and 0 <= col < 8):
        return None
    if (row + col) % 2 == 0:  # light squares: (0,0), (0,2), (1,1), ...
        return None
    return row * 4 + col // 2 + 1


def colour_of(piece: str) -> str:
    """'B' or 'W' for a piece letter."""
    return "B" if piece in (BLACK_MAN, BLACK_KING) else "W"


def is_king(piece: str) -> bool:
    return piece in (BLACK_KING, WHITE_KING)


@dataclass(frozen=True)
class Position:
    """An 8x8 grid of piece letters ('.' empty) and the side to move ('B' or 'W')."""

    grid: Grid
    turn: str

    def at(self, coord: Coord) -> str:
        return self.grid[coord[0]][coord[1]]

    def pieces(self) -> Iterator[tuple[Coord, str]]:
        for r in range(8):
            for c in range(8):
                if self.grid[r][c] != EMPTY:
                    yield (r, c), self.grid[r][c]

    def to_fen(self) -> str:
        groups: dict[str, list[str]] = {"W": [], "B": []}
        for square in range(1, 33):
            piece = self.at(square_to_coord(square))
            if piece != EMPTY:
                groups[colour_of(piece)].append(("K" if is_king(piece) else "") + str(square))
        return f"{self.turn}:W{','.join(groups['W'])}:B{','.join(groups['B'])}"


@dataclass(frozen=True)
class RefMove:
    """A move: the squares visited (start, then every landing) and the squares captured, in order."""

    path: tuple[int, ...]
    captures: tuple[int, ...]


def empty_grid() -> list[list[str]]:
    return [[EMPTY] * 8 for _ in range(8)]


def freeze(grid: list[list[str]]) -> Grid:
    return tuple(tuple(row) for row in grid)


def _parse_squares(item: str) -> list[int]:
    if "-" in item:
        lo, hi = item.split("-")
        return list(range(int(lo), int(hi) + 1))
    return [int(item)]


def parse_fen(fen: str) -> Position:
    """Read ``B:W21,22,...:B1,2,...,K5`` (colour groups in either order, ``K`` marks a king)."""
    fields = fen.strip().rstrip(".").replace(" ", "").split(":")
    turn = fields[0].upper()
    if turn not in ("B", "W"):
        raise ValueError(f"bad side to move in {fen!r}")
    grid = empty_grid()
    for field in fields[1:]:
        if not field:
            continue
        colour = field[0].upper()
        if colour not in ("B", "W"):
            raise ValueError(f"bad colour group {field!r} in {fen!r}")
        for item in field[1:].split(","):
            if not item:
                continue
            king = item[0] in "Kk"
            body = item[1:] if king else item
            for square in _parse_squares(body):
                r, c = square_to_coord(square)
                if grid[r][c] != EMPTY:
                    raise ValueError(f"square {square} given twice in {fen!r}")
                if colour == "B":
                    grid[r][c] = BLACK_KING if king else BLACK_MAN
                else:
                    grid[r][c] = WHITE_KING if king else WHITE_MAN
    return Position(freeze(grid), turn)


START_FEN = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"


def crowning_row(colour: str) -> int:
    """The row on which a man of this colour is crowned."""
    return 7 if colour == "B" else 0


def directions(piece: str) -> list[Coord]:
    """Diagonal (drow, dcol) steps the piece may take."""
    if is_king(piece):
        return [(1, -1), (1, 1), (-1, -1), (-1, 1)]
    if colour_of(piece) == "B":
        return [(1, -1), (1, 1)]  # Black's men go down the board
    return [(-1, -1), (-1, 1)]  # White's men go up


def _on_board(coord: Coord) -> bool:
    return 0 <= coord[0] < 8 and 0 <= coord[1] < 8


def _jumps_from(
    pos: Position,
    start: Coord,
    piece: str,
    here: Coord,
    path: list[Coord],
    captured: list[Coord],
) -> list[RefMove]:
    """All complete jump sequences continuing from ``here`` (``path``/``captured`` so far)."""
    mover = colour_of(piece)
    found: list[RefMove] = []
    for dr, dc in directions(piece):
        over = (here[0] + dr, here[1] + dc)
        land = (here[0] + 2 * dr, here[1] + 2 * dc)
        if not _on_board(land):
            continue
        victim = pos.at(over)
        if victim == EMPTY or colour_of(victim) == mover:
            continue
        if over in captured:  # a piece cannot be jumped twice
            continue
        # The landing square must be empty; the mover's own start square counts
        # as empty, captured pieces still block.
        if pos.at(land) != EMPTY and land != start:
            continue
        new_path = [*path, land]
        new_captured = [*captured, over]
        if not is_king(piece) and land[0] == crowning_row(mover):
            # Crowned: the move ends here, whatever else could be jumped.
            found.append(_make_move(new_path, new_captured))
            continue
        longer = _jumps_from(pos, start, piece, land, new_path, new_captured)
        if longer:
            found.extend(longer)
        else:
            found.append(_make_move(new_path, new_captured))
    return found


def _make_move(path: list[Coord], captured: list[Coord]) -> RefMove:
    def sq(c: Coord) -> int:
        s = coord_to_square(c)
        assert s is not None
        return s

    return RefMove(tuple(sq(c) for c in path), tuple(sq(c) for c in captured))


def legal_moves(pos: Position) -> list[RefMove]:
    """Every legal move of the side to move: the captures if there are any, else the quiet moves."""
    captures: list[RefMove] = []
    quiet: list[RefMove] = []
    for coord, piece in pos.pieces():
        if colour_of(piece) != pos.turn:
            continue
        captures.extend(_jumps_from(pos, coord, piece, coord, [coord], []))
        for dr, dc in directions(piece):
            to = (coord[0] + dr, coord[1] + dc)
            if _on_board(to) and pos.at(to) == EMPTY:
                quiet.append(_make_move([coord, to], []))
    return captures if captures else quiet


def apply(pos: Position, move: RefMove) -> Position:
    """The position after ``move`` (assumed legal): piece moved, captures removed, crowning, turn passed."""
    grid = [list(row) for row in pos.grid]
    start = square_to_coord(move.path[0])
    end = square_to_coord(move.path[-1])
    piece = grid[start[0]][start[1]]
    if piece == EMPTY or colour_of(piece) != pos.turn:
        raise ValueError(f"no piece of the side to move on {move.path[0]}")
    for square in move.captures:
        r, c = square_to_coord(square)
        grid[r][c] = EMPTY
    grid[start[0]][start[1]] = EMPTY
    if not is_king(piece) and end[0] == crowning_row(colour_of(piece)):
        piece = piece.upper()
    grid[end[0]][end[1]] = piece
    return Position(freeze(grid), "W" if pos.turn == "B" else "B")


def perft(pos: Position, depth: int) -> int:
    """Number of move sequences of exactly ``depth`` plies (leaf nodes)."""
    if depth == 0:
        return 1
    moves = legal_moves(pos)
    if depth == 1:
        return len(moves)
    return sum(perft(apply(pos, m), depth - 1) for m in moves)


def divide(pos: Position, depth: int) -> dict[RefMove, int]:
    """Perft below each root move."""
    return {m: perft(apply(pos, m), depth - 1) for m in legal_moves(pos)}


if __name__ == "__main__":
    # python tests/reference_rules.py [FEN] DEPTH -- prints perft 1..DEPTH (how the .perft counts were made)
    import sys

    fen_arg = sys.argv[1] if len(sys.argv) > 2 else START_FEN
    position = parse_fen(fen_arg)
    for d in range(1, int(sys.argv[-1]) + 1):
        print(f"perft {d} {perft(position, d)}")
