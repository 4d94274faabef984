"""Chellapilla and Fogel's evolved network as an evaluator (csrc/network_eval.c, csrc/ckr_network.h)."""

from __future__ import annotations

import time
from collections.abc import Sequence

from engine.core._ffi import ffi, lib
from engine.core.evaluation import EvalSpec, _new_eval
from engine.core.position import RawPosition, _new_pos

NETWORK_HEADER: int = lib.CKR_NETWORK_HEADER
NETWORK_SCALE: int = lib.CKR_NETWORK_SCALE
NETWORK_EXACT: int = lib.CKR_NETWORK_EXACT


def network_size(preset: int) -> int:
    """How many numbers a network preset has (0 for an unknown one)."""
    return int(lib.ckr_network_size(int(preset)))


def network_check(data: Sequence[int]) -> int:
    """0 when ``data`` (header and float32 bits) is a network the core can read, else its code."""
    buf = ffi.new("int32_t[]", list(data)) if data else ffi.NULL
    return int(lib.ckr_network_check(buf, len(data)))


def network_output(raw: RawPosition, spec: EvalSpec, side: int) -> float:
    """The network's output in [-1, 1] for ``side`` (0 Black, 1 White)."""
    buffers = _new_eval(spec)
    return float(lib.ckr_network_output(buffers.ev, _new_pos(raw), int(side)))


def network_sum(raw: RawPosition, spec: EvalSpec, side: int) -> float:
    """The output node's sum before its tanh, for ``side`` (what an exact-score network scores)."""
    buffers = _new_eval(spec)
    return float(lib.ckr_network_sum(buffers.ev, _new_pos(raw), int(side)))


def network_bench(spec: EvalSpec, positions: Sequence[RawPosition], rounds: int) -> tuple[int, float]:
    """Evaluate every position ``rounds`` times in one C loop: (sum of scores, seconds)."""
    buffers = _new_eval(spec)
    arr = ffi.new("ckr_pos[]", len(positions))
    for i, raw in enumerate(positions):
        arr[i] = _new_pos(raw)[0]
    start = time.perf_counter()
    total = int(lib.ckr_network_bench(buffers.ev, arr, len(positions), int(rounds)))
    return total, time.perf_counter() - start
