"""Board: a checkers position with its game history, legal moves and draw rules."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from engine import core
from engine.errors import AmbiguousMoveError, GameOverError, IllegalMoveError
from engine.fen import START_FEN, FenPosition, format_fen, parse_fen
from engine.move import Move, parse_move_text
from engine.termination import Termination
from engine.types import BLACK, WHITE, Color, Square, row_col

FORTY_MOVE_PLIES = 80
"""The 40-move rule: 40 moves by each side with no man move and no capture."""


@dataclass(frozen=True)
class Outcome:
    termination: Termination
    winner: Color | None

    def result(self) -> str:
        """PDN result: ``1-0`` when Black (the first player) wins, as English PDN writes it."""
        if self.winner is None:
            return "1/2-1/2"
        return "1-0" if self.winner == BLACK else "0-1"


@dataclass(frozen=True)
class Piece:
    color: Color
    king: bool

    def symbol(self) -> str:
        s = "b" if self.color == BLACK else "w"
        return s.upper() if self.king else s


@dataclass(frozen=True)
class _State:
    raw: core.RawPosition
    hash: int
    quiet_plies: int
    irreversible_at: int


class Board:
    """A position plus the moves that led to it.

    ``Board()`` is the start position; ``Board(fen)`` sets up any position.
    Moves are pushed and popped; the board keeps what it needs for the draw
    rules (repetition and the 40-move rule) and for the search's repetition
    detection.
    """

    _ply_base = 0  # boards pickled before it existed read as untrimmed

    def __init__(self, fen: str | None = START_FEN) -> None:
        self.move_stack: list[Move] = []
        self._stack: list[_State] = []
        self._hashes: list[int] = []
        self._moves_cache: list[Move] | None = None
        self._ply_base = 0
        """Plies of the game before ``initial_fen`` (a ``trimmed`` board's forgotten ones)."""
        self.set_fen(START_FEN if fen is None else fen)

    # ---- set-up and copying ----

    def set_fen(self, fen: str) -> None:
        p = parse_fen(fen)
        raw = core.RawPosition(p.black_men, p.black_kings, p.white_men, p.white_kings, p.turn)
        self.initial_fen = format_fen(p)
        self._state = _State(raw, core.position_hash(raw), 0, 0)
        self.move_stack.clear()
        self._stack.clear()
        self._hashes = [self._state.hash]
        self._moves_cache = None
        self._ply_base = 0

    def copy(self) -> Board:
        b = Board.__new__(Board)
        b.initial_fen = self.initial_fen
        b._ply_base = self._ply_base
        b.move_stack = list(self.move_stack)
        b._stack = list(self._stack)
        b._hashes = list(self._hashes)
        b._state = self._state
        b._moves_cache = self._moves_cache
        return b

    def __getstate__(self) -> dict[str, object]:
        state = dict(self.__dict__)
        state["_moves_cache"] = None  # a cache: rebuilt on demand, not worth its bytes
        return state

    def trimmed(self) -> Board:
        """This position with only the history a search or the draw rules look at: the plies
        since the last irreversible move (and the one before, whose position some evaluators
        read).  ``ply``, the repetition count and the 40-move count stay the same; what is
        gone is the older history, so the board is small to copy and to send elsewhere."""
        n = len(self._stack)
        start = min(self._state.irreversible_at, max(n - 1, 0))
        if start == 0:
            return self.copy()
        b = Board.__new__(Board)
        base = self._stack[start]
        r = base.raw
        b.initial_fen = format_fen(FenPosition(r.turn, r.black_men, r.black_kings,
                                               r.white_men, r.white_kings))
        b._ply_base = self._ply_base + start
        b.move_stack = self.move_stack[start:]
        b._stack = [replace(st, irreversible_at=max(st.irreversible_at - start, 0))
                    for st in self._stack[start:]]
        b._hashes = self._hashes[start:]
        b._state = replace(self._state, irreversible_at=self._state.irreversible_at - start)
        b._moves_cache = None
        return b

    # ---- reading the position ----

    @property
    def turn(self) -> Color:
        return self._state.raw.turn

    @property
    def raw(self) -> core.RawPosition:
        return self._state.raw

    @property
    def previous_raw(self) -> core.RawPosition | None:
        """The position before the last move, if the board knows it."""
        return self._stack[-1].raw if self._stack else None

    @property
    def ply(self) -> int:
        """Plies pushed since the board was set up (for a ``trimmed`` board: since the game began)."""
        return self._ply_base + len(self._stack)

    @property
    def hash(self) -> int:
        return self._state.hash

    @property
    def quiet_plies(self) -> int:
        """Plies since the last man move or capture (for the 40-move rule)."""
        return self._state.quiet_plies

    def fen(self) -> str:
        r = self._state.raw
        return format_fen(FenPosition(r.turn, r.black_men, r.black_kings, r.white_men, r.white_kings))

    def piece_at(self, square: Square) -> Piece | None:
        bit = 1 << (square - 1)
        r = self._state.raw
        if r.black_men & bit:
            return Piece(BLACK, False)
        if r.black_kings & bit:
            return Piece(BLACK, True)
        if r.white_men & bit:
            return Piece(WHITE, False)
        if r.white_kings & bit:
            return Piece(WHITE, True)
        return None

    def piece_count(self, color: Color) -> int:
        r = self._state.raw
        men, kings = (r.black_men, r.black_kings) if color == BLACK else (r.white_men, r.white_kings)
        return (men | kings).bit_count()

    # ---- moves ----

    @property
    def legal_moves(self) -> list[Move]:
        if self._moves_cache is None:
            self._moves_cache = [Move(m.path, m.captures) for m in core.legal_moves(self._state.raw)]
        return list(self._moves_cache)

    def is_legal(self, move: Move) -> bool:
        return move in self.legal_moves

    def legal_prefix(self, moves: Sequence[Move]) -> int:
        """How many of ``moves`` are legal one after another from here (the board is not changed):
        checks a whole principal variation in one call to the core."""
        return core.legal_prefix(self._state.raw, [m.path for m in moves])

    def parse_move(self, text: str) -> Move:
        """Match PDN move text against the legal moves.

        ``11-15`` and ``15x31`` match by start and end; a full path
        ``15x24x31`` must match the landing squares in order.  Text that fits
        several moves taking the same pieces (a king's round trip in two
        directions) picks the first; text that fits moves taking different
        pieces raises AmbiguousMoveError.
        """
        mt = parse_move_text(text)
        legal = self.legal_moves
        if len(mt.squares) == 2:
            cands = [m for m in legal if m.path[0] == mt.squares[0] and m.path[-1] == mt.squares[1]]
        else:
            cands = [m for m in legal if m.path == mt.squares]
            if not cands:
                cands = [m for m in legal if _is_subpath(mt.squares, m.path)]
        if not cands:
            if legal and legal[0].is_capture and not mt.capture:
                hint = f"; a capture is compulsory ({', '.join(self.notation(m) for m in legal)})"
            elif not legal:
                hint = "; the game is over, there is no legal move"
            else:
                hint = ""
            raise IllegalMoveError(f"illegal move {text.strip()!r} in position {self.fen()}{hint}")
        if len({frozenset(m.captures) for m in cands}) > 1:
            options = ", ".join(m.long for m in cands)
            raise AmbiguousMoveError(f"move {text.strip()!r} is ambiguous in {self.fen()}: {options}")
        return cands[0]

    def notation(self, move: Move) -> str:
        """The shortest PDN text that names ``move`` here: short form unless ambiguous."""
        same_ends = [
            m for m in self.legal_moves if m.path[0] == move.path[0] and m.path[-1] == move.path[-1]
        ]
        if len({frozenset(m.captures) for m in same_ends}) > 1:
            return move.long
        return move.short

    def push(self, move: Move) -> None:
        legal = self._moves_cache if self._moves_cache is not None else self.legal_moves
        try:
            index = legal.index(move)
        except ValueError:
            raise IllegalMoveError(f"illegal move {move.long} in position {self.fen()}") from None
        raw, h = core.apply_move(self._state.raw, index)
        old = self._state.raw
        mover_kings = old.black_kings if old.turn == BLACK else old.white_kings
        man_move = not (mover_kings >> (move.path[0] - 1) & 1)
        irreversible = man_move or move.is_capture
        self._stack.append(self._state)
        self.move_stack.append(move)
        self._hashes.append(h)
        quiet = 0 if irreversible else self._state.quiet_plies + 1
        irr_at = len(self._hashes) - 1 if irreversible else self._state.irreversible_at
        self._state = _State(raw, h, quiet, irr_at)
        self._moves_cache = None

    def push_pdn(self, text: str) -> Move:
        move = self.parse_move(text)
        self.push(move)
        return move

    def pop(self) -> Move:
        if not self.move_stack:
            raise IndexError("pop from a board with no moves played")
        self._state = self._stack.pop()
        self._hashes.pop()
        self._moves_cache = None
        return self.move_stack.pop()

    def push_many(self, moves: Iterable[str | Move]) -> None:
        for m in moves:
            if isinstance(m, Move):
                self.push(m)
            else:
                self.push_pdn(m)

    # ---- game end and draws ----

    def repetition_count(self) -> int:
        """How many times the current position has occurred (same side to move)."""
        h = self._state.hash
        window = self._hashes[self._state.irreversible_at :]
        return sum(1 for x in window if x == h)

    def is_repetition(self, count: int = 3) -> bool:
        return self.repetition_count() >= count

    def is_forty_move_draw(self) -> bool:
        return self._state.quiet_plies >= FORTY_MOVE_PLIES

    def outcome(self) -> Outcome | None:
        """How the game ended, or None while it goes on.  No legal move loses."""
        if not self.legal_moves:
            return Outcome(Termination.NO_MOVES, self.turn ^ 1)
        if self.is_repetition(3):
            return Outcome(Termination.REPETITION, None)
        if self.is_forty_move_draw():
            return Outcome(Termination.FORTY_MOVES, None)
        return None

    def is_game_over(self) -> bool:
        return self.outcome() is not None

    def result(self) -> str:
        o = self.outcome()
        return o.result() if o else "*"

    def search_history(self) -> list[int]:
        """Hashes of earlier positions back to the last irreversible move (oldest first)."""
        return self._hashes[self._state.irreversible_at : -1]

    def require_moves(self) -> list[Move]:
        moves = self.legal_moves
        if not moves:
            raise GameOverError(f"no legal moves in {self.fen()}")
        return moves

    @property
    def has_moves(self) -> bool:
        """Whether the side to move has a move; counted in C without building the moves, which
        a server checking every position it is sent would otherwise pay for."""
        cached = self._moves_cache
        return (len(cached) if cached is not None else core.move_count(self._state.raw)) > 0

    def require_a_move(self) -> None:
        """GameOverError when the side to move has no move (``require_moves`` without the list)."""
        if not self.has_moves:
            raise GameOverError(f"no legal moves in {self.fen()}")

    # ---- display ----

    def __str__(self) -> str:
        rows = []
        for r in range(8):
            line = []
            for c in range(8):
                sq = _square_at(r, c)
                if sq is None:
                    line.append(" ")
                else:
                    p = self.piece_at(sq)
                    line.append(p.symbol() if p else ".")
            rows.append(" ".join(line))
        return "\n".join(rows)

    def __repr__(self) -> str:
        return f"Board({self.fen()!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Board) and self._state.raw == other._state.raw

    def __hash__(self) -> int:
        return self._state.hash


def _is_subpath(given: tuple[int, ...], path: tuple[int, ...]) -> bool:
    """Whether ``given`` names ``path``'s ends and some of its landings, in order."""
    if given[0] != path[0] or given[-1] != path[-1]:
        return False
    it = iter(path[1:])
    return all(any(s == p for p in it) for s in given[1:])


_SQUARE_GRID: dict[tuple[int, int], int] = {row_col(s): s for s in range(1, 33)}


def _square_at(row: int, col: int) -> int | None:
    return _SQUARE_GRID.get((row, col))
