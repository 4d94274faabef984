"""Samuel's rote memory (csrc/rote.c, csrc/ckr_rote.h)."""

from __future__ import annotations

import array
from collections.abc import Sequence

from engine.core._ffi import ffi, lib
from engine.core.position import RawPosition

RoteKey = tuple[int, int, int]
"""A standardized position: the side to move's pieces, the other side's, the kings
(square sets, bit s-1 for square s), as if Black were to move."""

ROTE_DECAY: int = lib.CKR_ROTE_DECAY
ROTE_MAX_PLY: int = lib.CKR_ROTE_MAX_PLY


def rote_key(raw: RawPosition) -> RoteKey:
    """The standardized key: colours reversed when White is to move, kings-only positions
    reflected about the diagonals to the least of their four variants."""
    out = ffi.new("ckr_rote_key *")
    if lib.ckr_rote_key_sets(raw.black_men, raw.black_kings, raw.white_men, raw.white_kings,
                             raw.turn, out) < 0:
        raise ValueError("a square holds more than one piece")
    return (out.black, out.white, out.kings)


def rote_decay(score: int, plies: int) -> int:
    """A stored score after backing it up over ``plies`` plies (Samuel's sense of direction)."""
    return int(lib.ckr_rote_decay(int(score), int(plies)))


def _rote_keys(keys: Sequence[RoteKey]) -> tuple[object, object]:
    flat = array.array("I", [v for k in keys for v in k])
    return flat, ffi.from_buffer("ckr_rote_key[]", flat)


class RoteKeyArray:
    """Keys packed for C once, so a benchmark times the lookups and not the packing."""

    def __init__(self, keys: Sequence[RoteKey]) -> None:
        self._flat, self._c = _rote_keys(keys)
        self._n = len(keys)

    def __len__(self) -> int:
        return self._n


class RoteTable:
    """A C hash table of standardized positions -> (score, ply), for the search to probe.

    Edit a table only before handing it to engines (``CoreEngine.set_rote``); to change
    a published one, ``clone`` it, edit the clone and publish that.
    """

    def __init__(self, capacity: int = 0, *, _ptr: object = None) -> None:
        ptr = _ptr if _ptr is not None else lib.ckr_rote_new(int(capacity))
        if ptr == ffi.NULL:
            raise MemoryError(f"cannot allocate a rote table for {capacity} positions")
        self._ptr = ffi.gc(ptr, lib.ckr_rote_free)

    def __len__(self) -> int:
        return int(lib.ckr_rote_count(self._ptr))

    @property
    def nbytes(self) -> int:
        return int(lib.ckr_rote_bytes(self._ptr))

    def put(self, key: RoteKey, score: int, ply: int) -> None:
        k = ffi.new("ckr_rote_key *", key)
        if lib.ckr_rote_put(self._ptr, k, int(score), int(ply)) != 0:
            raise MemoryError("rote table full")

    def put_many(self, keys: Sequence[RoteKey], scores: Sequence[int], plies: Sequence[int]) -> None:
        if not len(keys) == len(scores) == len(plies):
            raise ValueError("keys, scores and plies differ in length")
        if not keys:
            return
        flat, ks = _rote_keys(keys)
        sc = array.array("i", scores)
        pl = array.array("i", plies)
        if lib.ckr_rote_put_many(self._ptr, ks, ffi.from_buffer("int32_t[]", sc),
                                 ffi.from_buffer("int32_t[]", pl), len(keys)) != 0:
            raise MemoryError("rote table full")
        del flat

    def delete(self, key: RoteKey) -> bool:
        return bool(lib.ckr_rote_del(self._ptr, ffi.new("ckr_rote_key *", key)))

    def get(self, key: RoteKey) -> tuple[int, int] | None:
        """(score, ply) stored under ``key``, or None."""
        score, ply = ffi.new("int *"), ffi.new("int *")
        if lib.ckr_rote_get(self._ptr, ffi.new("ckr_rote_key *", key), score, ply):
            return int(score[0]), int(ply[0])
        return None

    def mark_used(self, key: RoteKey) -> bool:
        """Mark ``key`` used, as a search's look-up does (a search elsewhere took its score: the 704
        program's); whether it is stored."""
        return bool(lib.ckr_rote_mark(self._ptr, ffi.new("ckr_rote_key *", key)))

    def lookup(self, raw: RawPosition) -> tuple[int, int] | None:
        """(score for the side to move, ply) of a position, or None."""
        return self.get(rote_key(raw))

    def clone(self, capacity: int = 0) -> RoteTable:
        ptr = lib.ckr_rote_clone(self._ptr, int(capacity))
        if ptr == ffi.NULL:
            raise MemoryError("cannot copy the rote table")
        return RoteTable(_ptr=ptr)

    def used(self) -> list[RoteKey]:
        """Keys whose scores searches took at a leaf since this table was made."""
        n = int(lib.ckr_rote_used(self._ptr, ffi.NULL, 0))
        buf = ffi.new("ckr_rote_key[]", max(n, 1))
        n = min(n, int(lib.ckr_rote_used(self._ptr, buf, n)))
        return [(buf[i].black, buf[i].white, buf[i].kings) for i in range(n)]

    def items(self) -> list[tuple[RoteKey, int, int]]:
        n = len(self)
        keys = ffi.new("ckr_rote_key[]", max(n, 1))
        scores = ffi.new("int32_t[]", max(n, 1))
        plies = ffi.new("int32_t[]", max(n, 1))
        n = int(lib.ckr_rote_dump(self._ptr, keys, scores, plies, n))
        return [((keys[i].black, keys[i].white, keys[i].kings), scores[i], plies[i]) for i in range(n)]

    def count_found(self, keys: Sequence[RoteKey] | RoteKeyArray) -> int:
        """How many of ``keys`` are stored: one C call (the lookup benchmark)."""
        packed = keys if isinstance(keys, RoteKeyArray) else RoteKeyArray(keys)
        if not len(packed):
            return 0
        return int(lib.ckr_rote_lookup_many(self._ptr, packed._c, len(packed)))
