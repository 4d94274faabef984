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
"""The usual first-layer width (that of layout versions 1 and 2 once upgraded)."""
PIECENET_WIDTHS: tuple[int, ...] = (64, 128, 256)
"""The first-layer widths the core reads (layout version 3 names its own in the header)."""
PIECENET_VERSION_PATTERNS: int = lib.CKR_PIECENET_VERSION_PATTERNS
"""The layout version whose first layer also reads region patterns (csrc/ckr_piecenet.h)."""
PIECENET_PATTERN_ROWS: int = lib.CKR_PIECENET_PATTERN_ROWS
PIECENET_H2: int = lib.CKR_PIECENET_H2
PIECENET_MAX_PHASES: int = lib.CKR_PIECENET_MAX_PHASES
PIECENET_ONE: int = lib.CKR_PIECENET_ONE


def piecenet_size(phases: int, width: int = PIECENET_H1, patterns: bool = False) -> int:
    """How many numbers follow the piece network's header for ``phases`` phases and a first layer
    ``width`` wide, with or without region patterns (0 when either is out of range)."""
    size = int(lib.ckr_piecenet_size(int(phases), int(width)))
    return size + PIECENET_PATTERN_ROWS * int(width) if size and patterns else size


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


PIECENET_PATHS = {"accumulator": 0, "scratch": 1, "reference": 2}
"""How the search scores a piece network's leaves (``piecenet_path``); all give the same integers."""


def piecenet_acc_check(spec: EvalSpec, start: Sequence[int], plies: int, branch: int,
                       seed: int = 1) -> tuple[int, int, int, int]:
    """Random walks of ``plies`` plies from ``start`` (5 square-set words, as ``piecenet_sets``), up to
    ``branch`` moves at each node, every node scored through the search's accumulator stack and by
    the reference (csrc/piece_net_acc.c).  Returns (nodes compared, mismatches, moves taking two
    pieces or more, crowning moves); ValueError for a bad start or a network the packed path cannot
    take (or a build without AVX2)."""
    if spec.kind != EVAL_PIECENET or piecenet_check(spec.data) != 0:
        raise ValueError("not a usable piece network")
    buffers = _new_eval(spec)
    counts = ffi.new("int64_t[4]")
    code = lib.ckr_piecenet_acc_check(buffers.ev, ffi.new("uint32_t[5]", [int(v) for v in start]),
                                      int(plies), int(branch), int(seed), counts)
    if code == -1:
        raise ValueError("not a valid start position (5 words: square sets and a side to move 0 or 1),"
                         f" or plies outside 0..{lib.CKR_MAX_PLY}, or branch below 1")
    if code == -2:
        raise ValueError("the packed int16 path cannot take this network or this build has no AVX2")
    return int(counts[0]), int(counts[1]), int(counts[2]), int(counts[3])


def piecenet_path(engine: Any, path: str) -> str:  # a CoreEngine
    """Make ``engine`` (a ``CoreEngine``) score a piece network's leaves by ``path`` (a key of
    ``PIECENET_PATHS``), for checks and timing; returns the path in force (``reference`` when the
    network has no packed form)."""
    if path not in PIECENET_PATHS:
        raise ValueError(f"unknown piece network path {path!r}: one of {', '.join(PIECENET_PATHS)}")
    got = int(lib.ckr_engine_set_piecenet_path(engine._live(), PIECENET_PATHS[path]))
    return next(name for name, code in PIECENET_PATHS.items() if code == got)
