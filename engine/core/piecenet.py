"""The piece-square network (csrc/piece_net.c, csrc/piece_net_fast.c, csrc/ckr_piecenet.h)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.core._ffi import ffi, lib
from engine.core.evaluation import EVAL_PIECENET, EvalSpec, _new_eval

PIECENET_VERSION: int = lib.CKR_PIECENET_VERSION
PIECENET_HEADER: int = lib.CKR_PIECENET_HEADER
PIECENET_INPUTS: int = lib.CKR_PIECENET_INPUTS
PIECENET_H1: int = lib.CKR_PIECENET_H1
PIECENET_H2: int = lib.CKR_PIECENET_H2
PIECENET_MAX_PHASES: int = lib.CKR_PIECENET_MAX_PHASES
PIECENET_ONE: int = lib.CKR_PIECENET_ONE


def piecenet_size(phases: int) -> int:
    """How many numbers follow the piece network's header for ``phases`` phases (0 when out of range)."""
    return int(lib.ckr_piecenet_size(int(phases)))


def piecenet_check(data: Sequence[int]) -> int:
    """0 when ``data`` is a piece network the core can read (csrc/ckr_piecenet.h), else its code."""
    buf = ffi.new("int32_t[]", list(data)) if data else ffi.NULL
    return int(lib.ckr_piecenet_check(buf, len(data)))


def piecenet_packed_build() -> bool:
    """Whether this build has the search's packed int16 path for piece networks (it needs AVX2)."""
    return bool(lib.ckr_piecenet_packed_build())


def piecenet_sets(spec: EvalSpec, sets: Any, out: Any, packed: bool = False) -> None:  # any buffers
    """The piece network's scores of positions given as square sets (``sets``: n * 5 native uint32,
    as ``features_sets`` takes them) into ``out`` (n native int32).

    ``packed`` runs the search's int16 path (csrc/piece_net_fast.c) instead of the reference; it
    raises ValueError when that path cannot take this network (or this build has no AVX2)."""
    if spec.kind != EVAL_PIECENET or piecenet_check(spec.data) != 0:
        raise ValueError("not a usable piece network")
    n = len(memoryview(sets).cast("B")) // 20
    if len(memoryview(out).cast("B")) < 4 * n:
        raise ValueError("output buffer too small")
    if n == 0:
        return
    buffers = _new_eval(spec)
    batch = lib.ckr_piecenet_batch_packed if packed else lib.ckr_piecenet_batch
    bad = batch(buffers.ev, ffi.from_buffer("uint32_t[]", sets), n,
                ffi.from_buffer("int32_t[]", out, require_writable=True))
    if bad == -2:
        raise ValueError("the packed int16 path cannot take this network"
                         " (a first-layer sum could leave int16) or this build has no AVX2")
    if bad >= 0:
        raise ValueError(f"position {bad}: a square holds more than one piece")
