"""Typed bindings of the C core (``engine._core``), one module per C header.

Wrappers validate, own the cffi buffers, call C and return plain Python values, so cdata never
escapes the package; ``engine.core._ffi`` is the one module that imports the compiled core.

    position    csrc/ckr_api.h: positions, move generation, perft
    evaluation  csrc/ckr_api.h and csrc/eval_kind.h: evaluator kinds, features, static scores
    search      csrc/ckr_api.h: the search engine (CoreEngine), its limits and reports
    rote        csrc/ckr_rote.h: Samuel's rote memory
    terms       csrc/ckr_terms.h: Samuel's 1959 parameters and terms
    network     csrc/ckr_network.h: Chellapilla and Fogel's evolved network
    piecenet    csrc/ckr_piecenet.h: the piece-square network
    egdb        csrc/ckr_egdb.h: the endgame database

(csrc/ckr_book.h declares only C evaluators that the table of kinds calls: nothing to bind.)
Every name stays importable as ``engine.core.X``; new code may import the module it needs.
"""

from __future__ import annotations

from engine.core._ffi import (
    ffi,
    lib,
)
from engine.core.egdb import (
    DB_BOUND,
    DB_WIN,
    EGDB_DRAW,
    EGDB_LOSS,
    EGDB_MAX_SIDE,
    EGDB_MAX_THREADS,
    EGDB_NONE,
    EGDB_WIN,
    EgdbTables,
    egdb_index,
    egdb_position,
    egdb_size,
)
from engine.core.evaluation import (
    EVAL_DEFAULT,
    EVAL_HEURISTIC,
    EVAL_LINEAR,
    EVAL_MATERIAL,
    EVAL_NEEDS_PARENT,
    EVAL_NEEDS_PLY,
    EVAL_NETWORK,
    EVAL_ONE_SIDED,
    EVAL_PACKED,
    EVAL_PHASE,
    EVAL_PIECENET,
    EVAL_SAMUEL,
    EVAL_SIGNATURE,
    EVAL_TABLE,
    EVAL_TABULATED,
    MAX_FEATURES,
    WEIGHT_ONE,
    EvalSpec,
    default_weights,
    eval_kind_flags,
    evaluate,
    evaluate_many,
    feature_names,
    features,
    features_sets,
)
from engine.core.evaluation import (
    _EvalBuffers as _EvalBuffers,
)
from engine.core.evaluation import (
    _fill_eval as _fill_eval,
)
from engine.core.evaluation import (
    _new_eval as _new_eval,
)
from engine.core.network import (
    NETWORK_EXACT,
    NETWORK_HEADER,
    NETWORK_SCALE,
    network_bench,
    network_check,
    network_output,
    network_size,
    network_sum,
)
from engine.core.piecenet import (
    PIECENET_H1,
    PIECENET_H2,
    PIECENET_HEADER,
    PIECENET_INPUTS,
    PIECENET_MAX_PHASES,
    PIECENET_ONE,
    PIECENET_PATHS,
    PIECENET_PATTERN_ROWS,
    PIECENET_VERSION,
    PIECENET_VERSION_PATTERNS,
    PIECENET_WIDTHS,
    piecenet_acc_check,
    piecenet_check,
    piecenet_packed_build,
    piecenet_path,
    piecenet_sets,
    piecenet_size,
)
from engine.core.position import (
    _BIT_TO_SQUARE as _BIT_TO_SQUARE,
)
from engine.core.position import (
    MAX_MOVES,
    WIN,
    WIN_BOUND,
    RawMove,
    RawPosition,
    apply_move,
    legal_moves,
    legal_prefix,
    move_count,
    perft,
    position_hash,
)
from engine.core.position import (
    _new_pos as _new_pos,
)
from engine.core.position import (
    _raw_move as _raw_move,
)
from engine.core.position import (
    _read_pos as _read_pos,
)
from engine.core.rote import (
    ROTE_DECAY,
    ROTE_MAX_PLY,
    RoteKey,
    RoteKeyArray,
    RoteTable,
    rote_decay,
    rote_key,
)
from engine.core.rote import (
    _rote_keys as _rote_keys,
)
from engine.core.search import (
    DRIVER_MTDF,
    DRIVER_PVS,
    MODE_FOGEL,
    MODE_PVS,
    MODE_SAMUEL,
    MODE_SHANNON_A,
    MODE_SHANNON_B,
    PVS_STAT_FIELDS,
    CoreEngine,
    CoreInfo,
    CoreLimits,
    PvsStats,
    ckr_py_on_info,
)
from engine.core.search import (
    _info_from_c as _info_from_c,
)
from engine.core.terms import (
    SAMUEL_NPARAMS,
    SAMUEL_NTERMS,
    SAMUEL_PADV_WEIGHT,
    SAMUEL_SHIFT,
    samuel_param_names,
    samuel_params,
    samuel_term_names,
    samuel_terms,
    samuel_terms_batch,
    samuel_terms_sets,
)

__all__ = [
    "DB_BOUND",
    "DB_WIN",
    "DRIVER_MTDF",
    "DRIVER_PVS",
    "EGDB_DRAW",
    "EGDB_LOSS",
    "EGDB_MAX_SIDE",
    "EGDB_MAX_THREADS",
    "EGDB_NONE",
    "EGDB_WIN",
    "EVAL_DEFAULT",
    "EVAL_HEURISTIC",
    "EVAL_LINEAR",
    "EVAL_MATERIAL",
    "EVAL_NEEDS_PARENT",
    "EVAL_NEEDS_PLY",
    "EVAL_NETWORK",
    "EVAL_ONE_SIDED",
    "EVAL_PACKED",
    "EVAL_PHASE",
    "EVAL_PIECENET",
    "EVAL_SAMUEL",
    "EVAL_SIGNATURE",
    "EVAL_TABLE",
    "EVAL_TABULATED",
    "MAX_FEATURES",
    "MAX_MOVES",
    "MODE_FOGEL",
    "MODE_PVS",
    "MODE_SAMUEL",
    "MODE_SHANNON_A",
    "MODE_SHANNON_B",
    "NETWORK_EXACT",
    "NETWORK_HEADER",
    "NETWORK_SCALE",
    "PIECENET_H1",
    "PIECENET_H2",
    "PIECENET_HEADER",
    "PIECENET_INPUTS",
    "PIECENET_MAX_PHASES",
    "PIECENET_ONE",
    "PIECENET_PATHS",
    "PIECENET_PATTERN_ROWS",
    "PIECENET_VERSION",
    "PIECENET_VERSION_PATTERNS",
    "PIECENET_WIDTHS",
    "PVS_STAT_FIELDS",
    "ROTE_DECAY",
    "ROTE_MAX_PLY",
    "SAMUEL_NPARAMS",
    "SAMUEL_NTERMS",
    "SAMUEL_PADV_WEIGHT",
    "SAMUEL_SHIFT",
    "WEIGHT_ONE",
    "WIN",
    "WIN_BOUND",
    "CoreEngine",
    "CoreInfo",
    "CoreLimits",
    "EgdbTables",
    "EvalSpec",
    "PvsStats",
    "RawMove",
    "RawPosition",
    "RoteKey",
    "RoteKeyArray",
    "RoteTable",
    "apply_move",
    "ckr_py_on_info",
    "default_weights",
    "egdb_index",
    "egdb_position",
    "egdb_size",
    "eval_kind_flags",
    "evaluate",
    "evaluate_many",
    "feature_names",
    "features",
    "features_sets",
    "ffi",
    "legal_moves",
    "legal_prefix",
    "lib",
    "move_count",
    "network_bench",
    "network_check",
    "network_output",
    "network_size",
    "network_sum",
    "perft",
    "piecenet_acc_check",
    "piecenet_check",
    "piecenet_packed_build",
    "piecenet_path",
    "piecenet_sets",
    "piecenet_size",
    "position_hash",
    "rote_decay",
    "rote_key",
    "samuel_param_names",
    "samuel_params",
    "samuel_term_names",
    "samuel_terms",
    "samuel_terms_batch",
    "samuel_terms_sets",
]
