"""Positions, move generation and perft (csrc/ckr_api.h: position, move generation, perft)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.core._ffi import ffi, lib
from engine.types import Color, Square, SquareSet

MAX_MOVES: int = lib.CKR_MAX_MOVES
WIN: int = lib.CKR_WIN
WIN_BOUND: int = lib.CKR_WIN_BOUND

_BIT_TO_SQUARE: list[int] = [lib.ckr_bit_to_square(b) for b in range(64)]


@dataclass(frozen=True)
class RawPosition:
    """A position as four square sets and the side to move."""

    black_men: SquareSet
    black_kings: SquareSet
    white_men: SquareSet
    white_kings: SquareSet
    turn: Color


@dataclass(frozen=True)
class RawMove:
    """A move as the C generator sees it: the squares visited and those captured."""

    path: tuple[Square, ...]
    captures: tuple[Square, ...]
    crowns: bool


def _new_pos(raw: RawPosition) -> Any:  # a cffi ckr_pos *
    pos = ffi.new("ckr_pos *")
    if lib.ckr_pos_set(pos, raw.black_men, raw.black_kings, raw.white_men, raw.white_kings, raw.turn) != 0:
        raise ValueError("a square holds more than one piece")
    return pos


def _raw_move(m: Any) -> RawMove:  # a cffi ckr_move
    frm = getattr(m, "from")
    if m.ncaps == 0:
        path = (_BIT_TO_SQUARE[frm], _BIT_TO_SQUARE[m.to])
        caps: tuple[int, ...] = ()
    else:
        bits = [frm] + [m.path[i] for i in range(m.ncaps)]
        path = tuple(_BIT_TO_SQUARE[b] for b in bits)
        caps = tuple(_BIT_TO_SQUARE[(a + b) // 2] for a, b in itertools.pairwise(bits))
    return RawMove(path, caps, bool(m.flags & lib.CKR_MOVE_CROWN))


def legal_moves(raw: RawPosition) -> list[RawMove]:
    """All legal moves, in the generator's deterministic order."""
    pos = _new_pos(raw)
    buf = ffi.new("ckr_move[]", MAX_MOVES)
    n = lib.ckr_gen_moves(pos, buf)
    return [_raw_move(buf[i]) for i in range(n)]


def move_count(raw: RawPosition) -> int:
    """How many legal moves there are, counted without building them (perft's bulk count)."""
    return int(lib.ckr_count_moves(_new_pos(raw)))


def legal_prefix(raw: RawPosition, paths: Sequence[Sequence[Square]]) -> int:
    """How many of the moves, each given by its path of squares, are legal in sequence from ``raw``
    (one C call, however long the line)."""
    if not paths:
        return 0
    flat = [s for p in paths for s in p]
    if any(not 1 <= s <= 32 for s in flat) or any(not 2 <= len(p) <= 13 for p in paths):
        raise ValueError("a move's path is 2 to 13 squares, each 1..32")
    return int(lib.ckr_legal_prefix(_new_pos(raw), ffi.new("uint8_t[]", flat),
                                     ffi.new("uint8_t[]", [len(p) for p in paths]), len(paths)))


def apply_move(raw: RawPosition, index: int) -> tuple[RawPosition, int]:
    """The position after the ``index``-th move of ``legal_moves(raw)``, and its hash."""
    pos = _new_pos(raw)
    buf = ffi.new("ckr_move[]", MAX_MOVES)
    n = lib.ckr_gen_moves(pos, buf)
    if not 0 <= index < n:
        raise IndexError(f"move index {index} out of range 0..{n - 1}")
    lib.ckr_make(pos, ffi.addressof(buf, index))
    return _read_pos(pos), pos.hash


def _read_pos(pos: Any) -> RawPosition:  # a cffi ckr_pos *
    out = ffi.new("uint32_t[4]")
    lib.ckr_pos_get(pos, out)
    return RawPosition(out[0], out[1], out[2], out[3], pos.side)


def position_hash(raw: RawPosition) -> int:
    return int(lib.ckr_pos_hash(_new_pos(raw)))


def perft(raw: RawPosition, depth: int, *, bulk: bool = True) -> int:
    """Leaf count at ``depth``; the C call releases the GIL."""
    if depth < 0:
        raise ValueError("perft depth must be >= 0")
    return int(lib.ckr_perft(_new_pos(raw), depth, 1 if bulk else 0))
