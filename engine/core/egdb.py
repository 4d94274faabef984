"""The endgame database (csrc/egdb.c, csrc/ckr_egdb.h)."""

from __future__ import annotations

from typing import Any

from engine.core._ffi import ffi, lib
from engine.core.position import RawPosition, _new_pos
from engine.types import Color

DB_WIN: int = lib.CKR_DB_WIN
"""A win the endgame database knows (its distance unknown); scores beyond DB_BOUND are such wins."""
DB_BOUND: int = lib.CKR_DB_BOUND

EGDB_DRAW: int = lib.CKR_EGDB_DRAW
EGDB_WIN: int = lib.CKR_EGDB_WIN
EGDB_LOSS: int = lib.CKR_EGDB_LOSS
EGDB_NONE: int = lib.CKR_EGDB_NONE
EGDB_MAX_SIDE: int = lib.CKR_EGDB_MAX_SIDE
EGDB_MAX_THREADS: int = lib.CKR_EGDB_MAX_THREADS
"""The most threads a build uses (more count as this many)."""


def egdb_size(bm: int, bk: int, wm: int, wk: int) -> int:
    """Index slots of a signature's table (-1: no such signature)."""
    return int(lib.ckr_egdb_size(bm, bk, wm, wk))


def egdb_index(raw: RawPosition) -> int:
    """The slot of a position in its signature's table."""
    return int(lib.ckr_egdb_index(_new_pos(raw)))


def egdb_position(bm: int, bk: int, wm: int, wk: int, side: int, index: int) -> RawPosition | None:
    """The position in a slot, or None for a slot that holds none."""
    pos = ffi.new("ckr_pos *")
    if not lib.ckr_egdb_position(bm, bk, wm, wk, side, index, pos):
        return None
    out = ffi.new("uint32_t[4]")
    lib.ckr_pos_get(pos, out)
    return RawPosition(out[0], out[1], out[2], out[3], Color(pos.side))


def _check_threads(threads: int) -> None:
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ValueError(f"threads must be a whole number, 1 or more, got {threads!r}")


class EgdbTables:
    """The C endgame tables held in memory: build, copy in and out, probe, check."""

    def __init__(self) -> None:
        ptr = lib.ckr_egdb_new()
        if ptr == ffi.NULL:
            raise MemoryError("cannot allocate an endgame database")
        self._ptr = ffi.gc(ptr, lib.ckr_egdb_free)
        self._views: dict[tuple[int, int, int, int, int, bool], Any] = {}
        """The buffers the C tables point into (put_view), kept alive as long as this object."""

    @property
    def pointer(self) -> Any:
        """The ``ckr_egdb *`` (for the engine); valid while this object lives."""
        return self._ptr

    def build(self, bm: int, bk: int, wm: int, wk: int, threads: int = 1) -> int:
        """Solve a signature for both sides to move on ``threads`` threads; returns the passes it
        took (the values are the same for any number of threads, the passes may not be)."""
        _check_threads(threads)
        r = int(lib.ckr_egdb_build_threads(self._ptr, bm, bk, wm, wk, threads))
        if r == -1:
            raise ValueError(f"signature {bm}{bk}{wm}{wk} needs smaller signatures that are not loaded")
        if r == -2:
            raise MemoryError(f"cannot build signature {bm}{bk}{wm}{wk}")
        if r < 0:
            raise ValueError(f"bad signature {bm}{bk}{wm}{wk}")
        return r

    def has(self, bm: int, bk: int, wm: int, wk: int, side: int) -> bool:
        return bool(lib.ckr_egdb_has(self._ptr, bm, bk, wm, wk, side))

    def get_data(self, bm: int, bk: int, wm: int, wk: int, side: int) -> bytes:
        """The packed values of a table (2 bits a slot)."""
        n = (egdb_size(bm, bk, wm, wk) + 3) // 4
        buf = ffi.new("uint8_t[]", max(n, 1))
        if lib.ckr_egdb_get_data(self._ptr, bm, bk, wm, wk, side, buf, n) != 0:
            raise KeyError(f"no table {bm}{bk}{wm}{wk} side {side}")
        return bytes(ffi.buffer(buf, n))

    def put_data(self, bm: int, bk: int, wm: int, wk: int, side: int, data: bytes) -> None:
        r = int(lib.ckr_egdb_put_data(self._ptr, bm, bk, wm, wk, side, data, len(data)))
        if r == -2:
            raise MemoryError(f"cannot hold table {bm}{bk}{wm}{wk}")
        if r != 0:
            raise ValueError(f"table {bm}{bk}{wm}{wk}: {len(data)} bytes do not fit the signature")

    def put_view(self, bm: int, bk: int, wm: int, wk: int, side: int, data: Any, *,
                 distance: bool = False) -> None:
        """Use a buffer (a read-only file mapping) as a table without copying it; it is kept alive
        as long as this object, and must not change."""
        view = ffi.from_buffer("uint8_t[]", data)
        r = int(lib.ckr_egdb_put_view(self._ptr, bm, bk, wm, wk, side, int(distance), view, len(view)))
        if r != 0:
            what = "distance table" if distance else "table"
            raise ValueError(f"{what} {bm}{bk}{wm}{wk}: {len(view)} bytes do not fit the signature")
        # Kept after the C side points into it; what it replaces is no longer pointed to.
        self._views[(bm, bk, wm, wk, side, distance)] = view

    def value_at(self, bm: int, bk: int, wm: int, wk: int, side: int, index: int) -> int:
        return int(lib.ckr_egdb_value_at(self._ptr, bm, bk, wm, wk, side, index))

    def probe(self, raw: RawPosition) -> int:
        """EGDB_WIN/LOSS/DRAW for the side to move, or -1 when not covered."""
        return int(lib.ckr_egdb_probe(self._ptr, _new_pos(raw)))

    def check(self, bm: int, bk: int, wm: int, wk: int, side: int, threads: int = 1) -> tuple[int, list[int]]:
        """(inconsistent positions, slots valued [draw, win, loss, none]); -1 when tables are missing."""
        _check_threads(threads)
        counts = ffi.new("int64_t[4]")
        bad = int(lib.ckr_egdb_check_threads(self._ptr, bm, bk, wm, wk, side, counts, threads))
        return bad, [int(c) for c in counts]

    # Distance to conversion (optional, a byte a slot): see csrc/ckr_egdb.h.

    def build_distance(self, bm: int, bk: int, wm: int, wk: int, threads: int = 1) -> int:
        """Solve a signature's distances (its values must be held) on ``threads`` threads;
        returns the greatest."""
        _check_threads(threads)
        r = int(lib.ckr_egdb_build_distance_threads(self._ptr, bm, bk, wm, wk, threads))
        if r == -1:
            raise ValueError(f"signature {bm}{bk}{wm}{wk}: its values or those it leads to are not loaded")
        if r == -2:
            raise MemoryError(f"cannot solve the distances of {bm}{bk}{wm}{wk}")
        if r < 0:
            raise ValueError(f"bad signature {bm}{bk}{wm}{wk}")
        return r

    def has_distance(self, bm: int, bk: int, wm: int, wk: int, side: int) -> bool:
        return bool(lib.ckr_egdb_has_distance(self._ptr, bm, bk, wm, wk, side))

    def get_distance(self, bm: int, bk: int, wm: int, wk: int, side: int) -> bytes:
        n = egdb_size(bm, bk, wm, wk)
        buf = ffi.new("uint8_t[]", max(n, 1))
        if lib.ckr_egdb_get_distance(self._ptr, bm, bk, wm, wk, side, buf, n) != 0:
            raise KeyError(f"no distance table {bm}{bk}{wm}{wk} side {side}")
        return bytes(ffi.buffer(buf, n))

    def put_distance(self, bm: int, bk: int, wm: int, wk: int, side: int, data: bytes) -> None:
        r = int(lib.ckr_egdb_put_distance(self._ptr, bm, bk, wm, wk, side, data, len(data)))
        if r == -2:
            raise MemoryError(f"cannot hold distance table {bm}{bk}{wm}{wk}")
        if r != 0:
            raise ValueError(f"distance table {bm}{bk}{wm}{wk}: {len(data)} bytes do not fit the signature")

    def distance(self, raw: RawPosition) -> int:
        """Plies to the next capture or crowning under best play, or -1 when not held."""
        return int(lib.ckr_egdb_distance(self._ptr, _new_pos(raw)))

    def check_distance(self, bm: int, bk: int, wm: int, wk: int, side: int, threads: int = 1) -> int:
        """Positions whose distance breaks the rule against their successors; -1: tables missing."""
        _check_threads(threads)
        return int(lib.ckr_egdb_check_distance_threads(self._ptr, bm, bk, wm, wk, side, threads))
