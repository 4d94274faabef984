"""Static evaluation: the evaluator kinds and their table, feature terms, scores
(csrc/ckr_api.h, evaluation; csrc/eval_kind.h)."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.core._ffi import ffi, lib
from engine.core.position import RawPosition, _new_pos

EVAL_MATERIAL: int = lib.CKR_EVAL_MATERIAL
EVAL_DEFAULT: int = lib.CKR_EVAL_DEFAULT
EVAL_LINEAR: int = lib.CKR_EVAL_LINEAR
EVAL_TABLE: int = lib.CKR_EVAL_TABLE
EVAL_SAMUEL: int = lib.CKR_EVAL_SAMUEL
EVAL_SIGNATURE: int = lib.CKR_EVAL_SIGNATURE
EVAL_TABULATED: int = lib.CKR_EVAL_TABULATED
EVAL_PHASE: int = lib.CKR_EVAL_PHASE
EVAL_HEURISTIC: int = lib.CKR_EVAL_HEURISTIC
EVAL_NETWORK: int = lib.CKR_EVAL_NETWORK
EVAL_PIECENET: int = lib.CKR_EVAL_PIECENET
WEIGHT_ONE: int = lib.CKR_WEIGHT_ONE
MAX_FEATURES: int = lib.CKR_MAX_FEATURES


def feature_names() -> list[str]:
    return [ffi.string(lib.ckr_feature_name(i)).decode() for i in range(lib.ckr_num_features())]


def features(raw: RawPosition) -> list[int]:
    """Evaluation terms (side to move minus opponent) in ``feature_names()`` order."""
    out = ffi.new("int32_t[]", MAX_FEATURES)
    n = lib.ckr_features(_new_pos(raw), out)
    return [out[i] for i in range(n)]


def default_weights() -> list[int]:
    """The C core's built-in linear weights, texel-2026-11's (1/WEIGHT_ONE of a centi-man a unit)."""
    out = ffi.new("int32_t[]", MAX_FEATURES)
    n = lib.ckr_default_weights(out)
    return [out[i] for i in range(n)]


def features_sets(sets: Any, out: Any) -> None:  # any buffers: bytes, memoryview, NumPy arrays
    """``ckr_features_batch`` on caller-owned buffers: ``sets`` n * 5 native uint32 (black men,
    black kings, white men, white kings, side), ``out`` n * num_features() native int32."""
    n = len(memoryview(sets).cast("B")) // 20
    if len(memoryview(out).cast("B")) < 4 * n * int(lib.ckr_num_features()):
        raise ValueError("output buffer too small")
    if n == 0:
        return
    bad = lib.ckr_features_batch(ffi.from_buffer("uint32_t[]", sets), n,
                                 ffi.from_buffer("int32_t[]", out, require_writable=True))
    if bad >= 0:
        raise ValueError(f"position {bad}: a square holds more than one piece")


@dataclass(frozen=True)
class EvalSpec:
    """What the C evaluator needs: a kind and its weights or tables."""

    kind: int
    weights: tuple[int, ...] = ()
    man_table: tuple[int, ...] = ()
    king_table: tuple[int, ...] = ()
    data: tuple[int, ...] = ()
    """The table kinds' numbers (int32), laid out as their C files document (csrc/ckr_api.h)."""

    @functools.cached_property
    def c_data(self) -> Any:  # a cffi int32_t[] (or NULL), read-only in C
        """``data`` as C words, made once per spec: every engine and evaluation with this spec
        shares them (a pattern network's 3.8 M words took 0.15 s to copy at each set_eval)."""
        return ffi.new("int32_t[]", self.data) if self.data else ffi.NULL

    @functools.cached_property
    def piecenet_code(self) -> int:
        """``ckr_piecenet_check`` of ``data`` (0: usable), asked once per spec."""
        return int(lib.ckr_piecenet_check(self.c_data, len(self.data)))

    def __getstate__(self) -> dict[str, Any]:
        # The C words are this process's (and cannot be pickled): a copy sent to a worker makes its own.
        return {k: v for k, v in self.__dict__.items() if k not in ("c_data", "piecenet_code")}


class _EvalBuffers:
    """A ``ckr_eval`` and the data buffer it points into, kept alive together."""

    def __init__(self, spec: EvalSpec) -> None:
        if spec.kind == EVAL_PIECENET and (code := spec.piecenet_code) != 0:
            # The other table kinds are checked where they are built; this one is read unchecked in C.
            raise ValueError(f"not a usable piece network (csrc/ckr_piecenet.h; code {code})")
        self.data = spec.c_data
        self.ev = _fill_eval(spec)
        self.ev.data = self.data
        self.ev.ndata = len(spec.data)


def _new_eval(spec: EvalSpec) -> _EvalBuffers:
    return _EvalBuffers(spec)


def _fill_eval(spec: EvalSpec) -> Any:  # a cffi ckr_eval *
    ev = ffi.new("ckr_eval *")
    ev.kind = spec.kind
    if len(spec.weights) > MAX_FEATURES:
        raise ValueError(f"at most {MAX_FEATURES} weights")
    ev.nweights = len(spec.weights)
    for i, w in enumerate(spec.weights):
        ev.weights[i] = int(w)
    for name, table in (("man_table", spec.man_table), ("king_table", spec.king_table)):
        if table and len(table) != 32:
            raise ValueError(f"{name} needs 32 entries, got {len(table)}")
        for i, v in enumerate(table):
            getattr(ev, name)[i] = int(v)
    return ev


def evaluate(
    raw: RawPosition, spec: EvalSpec, parent: RawPosition | None = None, game_ply: int = 0
) -> int:
    """Static score for the side to move, 100 = one man.

    ``parent`` is the position before the last move and ``game_ply`` the plies
    played before ``raw``; only the learners' evaluators read them.
    """
    buffers = _new_eval(spec)
    parent_pos = _new_pos(parent) if parent is not None else ffi.NULL
    return int(lib.ckr_evaluate_ctx(buffers.ev, _new_pos(raw), parent_pos, int(game_ply)))


EVAL_NEEDS_PARENT: int = lib.CKR_EVAL_NEEDS_PARENT
EVAL_NEEDS_PLY: int = lib.CKR_EVAL_NEEDS_PLY
EVAL_PACKED: int = lib.CKR_EVAL_PACKED
EVAL_ONE_SIDED: int = lib.CKR_EVAL_ONE_SIDED


def eval_kind_flags(kind: int) -> int:
    """What evaluator ``kind`` reads, from the C table of kinds (``EVAL_NEEDS_PARENT`` and the others)."""
    flags = int(lib.ckr_eval_kind_flags(int(kind)))
    if flags < 0:
        raise ValueError(f"unknown evaluator kind {kind}")
    return flags


def evaluate_many(
    spec: EvalSpec,
    positions: Sequence[RawPosition],
    parents: Sequence[RawPosition | None],
    game_plies: Sequence[int],
) -> list[int]:
    """``evaluate`` of many positions with one evaluator buffer (for checks of large table evaluators)."""
    if not len(positions) == len(parents) == len(game_plies):
        raise ValueError("positions, parents and game_plies differ in length")
    buffers = _new_eval(spec)
    out: list[int] = []
    for raw, parent, ply in zip(positions, parents, game_plies, strict=True):
        parent_pos = _new_pos(parent) if parent is not None else ffi.NULL
        out.append(int(lib.ckr_evaluate_ctx(buffers.ev, _new_pos(raw), parent_pos, int(ply))))
    return out
