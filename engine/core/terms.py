"""Samuel's 1959 parameters and terms (csrc/samuel_terms.c, csrc/ckr_terms.h)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.core._ffi import ffi, lib
from engine.core.position import RawPosition, _new_pos

SAMUEL_NPARAMS: int = lib.CKR_SAMUEL_NPARAMS
SAMUEL_NTERMS: int = lib.CKR_SAMUEL_NTERMS
SAMUEL_SHIFT: int = lib.CKR_SAMUEL_SHIFT
SAMUEL_PADV_WEIGHT: int = lib.CKR_SAMUEL_PADV_WEIGHT


def samuel_param_names() -> list[str]:
    return [ffi.string(lib.ckr_samuel_param_name(i)).decode() for i in range(SAMUEL_NPARAMS)]


def samuel_term_names() -> list[str]:
    return [ffi.string(lib.ckr_samuel_term_name(i)).decode() for i in range(SAMUEL_NTERMS)]


def samuel_params(raw: RawPosition) -> list[int]:
    """Samuel's 26 parameters of ``raw`` (active = side to move)."""
    out = ffi.new("int32_t[]", SAMUEL_NPARAMS)
    lib.ckr_samuel_params(_new_pos(raw), out)
    return list(out)


def samuel_terms(raw: RawPosition, parent: RawPosition | None = None) -> list[int]:
    """Samuel's 39 terms of ``raw`` for the side to move, given the position before the last move."""
    out = ffi.new("int32_t[]", SAMUEL_NTERMS)
    lib.ckr_samuel_terms(_new_pos(raw), _new_pos(parent) if parent is not None else ffi.NULL, out)
    return list(out)


def samuel_terms_batch(
    positions: Sequence[RawPosition], parents: Sequence[RawPosition | None] | None = None
) -> bytes:
    """The terms of many positions in one C call: n * SAMUEL_NTERMS native int32, row-major."""
    n = len(positions)
    if parents is not None and len(parents) != n:
        raise ValueError(f"{len(parents)} parents for {n} positions")
    flat: list[int] = []
    extend = flat.extend
    for i, r in enumerate(positions):
        q = parents[i] if parents is not None else None
        if q is None:
            extend((r.black_men, r.black_kings, r.white_men, r.white_kings, r.turn, 0, 0, 0, 0, 2))
        else:
            extend((r.black_men, r.black_kings, r.white_men, r.white_kings, r.turn,
                    q.black_men, q.black_kings, q.white_men, q.white_kings, q.turn))
    sets = ffi.new("uint32_t[]", flat or [0])
    out = ffi.new("int32_t[]", max(1, n * SAMUEL_NTERMS))
    bad = lib.ckr_samuel_terms_batch(sets, n, out)
    if bad >= 0:
        raise ValueError(f"position {bad}: a square holds more than one piece")
    return bytes(ffi.buffer(out, 4 * n * SAMUEL_NTERMS))


def samuel_terms_sets(sets: Any, out: Any) -> None:  # any buffers: bytes, memoryview, NumPy arrays
    """``ckr_samuel_terms_batch`` on caller-owned buffers (no per-position Python objects).

    ``sets``: n * 10 native uint32 (a position's black men, black kings, white
    men, white kings, side, then the same five for its parent; parent side 2 =
    no parent).  ``out``: a writable buffer of n * SAMUEL_NTERMS native int32.
    For the book learners, which score millions of positions at once.
    """
    n = len(memoryview(sets).cast("B")) // 40
    if len(memoryview(out).cast("B")) < 4 * n * SAMUEL_NTERMS:
        raise ValueError("output buffer too small")
    if n == 0:
        return
    src = ffi.from_buffer("uint32_t[]", sets)
    dst = ffi.from_buffer("int32_t[]", out, require_writable=True)
    bad = lib.ckr_samuel_terms_batch(src, n, dst)
    if bad >= 0:
        raise ValueError(f"position {bad}: a square holds more than one piece")
