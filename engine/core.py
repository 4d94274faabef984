"""Thin typed wrappers over the C core (``engine._core``); the only module that imports it.

Wrappers validate, own the cffi buffers, call C and return plain Python values,
so cdata never escapes this module.
"""

from __future__ import annotations

import array
import itertools
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from engine._core import ffi, lib
from engine.types import Color, Square, SquareSet

lib.ckr_init()

MAX_MOVES: int = lib.CKR_MAX_MOVES
WIN: int = lib.CKR_WIN
WIN_BOUND: int = lib.CKR_WIN_BOUND
DB_WIN: int = lib.CKR_DB_WIN
"""A win the endgame database knows (its distance unknown); scores beyond DB_BOUND are such wins."""
DB_BOUND: int = lib.CKR_DB_BOUND
MODE_PVS: int = lib.CKR_MODE_PVS
MODE_SAMUEL: int = lib.CKR_MODE_SAMUEL
MODE_SHANNON_A: int = lib.CKR_MODE_SHANNON_A
MODE_FOGEL: int = lib.CKR_MODE_FOGEL
MODE_SHANNON_B: int = lib.CKR_MODE_SHANNON_B
DRIVER_PVS: int = lib.CKR_DRIVER_PVS
DRIVER_MTDF: int = lib.CKR_DRIVER_MTDF
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
NETWORK_HEADER: int = lib.CKR_NETWORK_HEADER
NETWORK_SCALE: int = lib.CKR_NETWORK_SCALE
WEIGHT_ONE: int = lib.CKR_WEIGHT_ONE
MAX_FEATURES: int = lib.CKR_MAX_FEATURES

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
    """The table kinds' numbers (int32), laid out as csrc/book_eval.c documents."""


class _EvalBuffers:
    """A ``ckr_eval`` and the data buffer it points into, kept alive together."""

    def __init__(self, spec: EvalSpec) -> None:
        if spec.kind == EVAL_PIECENET and piecenet_check(spec.data) != 0:
            # The other table kinds are checked where they are built; this one is read unchecked in C.
            code = piecenet_check(spec.data)
            raise ValueError(f"not a usable piece network (csrc/ckr_piecenet.h; code {code})")
        self.data = ffi.new("int32_t[]", list(spec.data)) if spec.data else ffi.NULL
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


# ---- Samuel's rote memory (csrc/rote.c, csrc/ckr_rote.h) ----

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


@dataclass(frozen=True)
class CoreInfo:
    """One progress report of the C search."""

    depth: int
    seldepth: int
    score: int
    nodes: int
    nps: int
    time_ms: int
    tt_hits: int
    pv: tuple[RawMove, ...]
    rote_hits: int = 0
    """Search leaves scored from the rote memory (``CoreEngine.set_rote``)."""
    rote_depth: int = 0
    """Effective ply of the PV's stored position: its stored ply plus its distance from
    the root (Samuel's Figure 3); 0 when the PV does not end in the memory."""
    tt_probes: int = 0
    """Transposition-table probes of the modern search (``tt_hits`` of them found the position)."""
    cutoffs: int = 0
    """Beta cutoffs of the modern search."""
    first_cutoffs: int = 0
    """Cutoffs made by the first move tried: their share of ``cutoffs`` measures move ordering."""
    egdb_hits: int = 0
    """Positions scored from the endgame database (``CoreEngine.set_egdb``)."""
    egdb_root: int = -1
    """The root's value in the endgame database (EGDB_WIN/DRAW/LOSS), -1 when not held."""


def _info_from_c(info: Any) -> CoreInfo:  # a cffi ckr_info *
    i = info
    return CoreInfo(
        depth=i.depth,
        seldepth=i.seldepth,
        score=i.score,
        nodes=i.nodes,
        nps=i.nps,
        time_ms=i.time_ms,
        tt_hits=i.tt_hits,
        pv=tuple(_raw_move(i.pv[k]) for k in range(i.pvlen)),
        rote_hits=i.rote_hits,
        rote_depth=i.rote_depth,
        tt_probes=i.tt_probes,
        cutoffs=i.cutoffs,
        first_cutoffs=i.first_cutoffs,
        egdb_hits=i.egdb_hits,
        egdb_root=i.egdb_root,
    )


@ffi.def_extern()
def ckr_py_on_info(userdata: object, info: object) -> None:
    callback = ffi.from_handle(userdata)
    try:
        callback(_info_from_c(info))
    except Exception:  # a failing listener must not unwind through C
        import logging

        logging.getLogger(__name__).exception("search info callback failed")


@dataclass(frozen=True)
class CoreLimits:
    mode: int = MODE_PVS
    depth: int = 0
    nodes: int = 0
    soft_ms: int = 0
    hard_ms: int = 0
    samuel_breaks: tuple[int, int, int, int] = (4, 5, 11, 20)
    driver: int = DRIVER_PVS
    info_ms: int = 0
    """Least milliseconds between two reports to ``on_info`` (0: every iteration)."""
    game_ply: int = 0
    """Plies played in the game before the root (the move-phase evaluators read it)."""
    parent: RawPosition | None = None
    """The position before the root's last move (Samuel's difference terms read it)."""
    contempt: int = 0
    """Centi-men a draw costs the side to move at the root (the modern search's draws)."""


class CoreEngine:
    """One C search engine: its transposition table, history and evaluator.

    ``search`` blocks (with the GIL released); ``stop`` may be called from any thread,
    and reaches a search armed with ``arm`` even before it has begun.
    """

    def __init__(self, hash_mb: int = 64) -> None:
        self._lock = threading.Lock()
        self._stop_lock = threading.Lock()
        self._ptr = ffi.gc(lib.ckr_engine_new(int(hash_mb)), lib.ckr_engine_free)
        self._eval: _EvalBuffers | None = None  # the engine points into its data buffer
        self._rote: RoteTable | None = None  # kept alive while the engine points into it
        self._egdb: EgdbTables | None = None  # likewise
        if self._ptr == ffi.NULL:
            raise MemoryError(f"cannot allocate a {hash_mb} MB transposition table")
        self.hash_mb = int(hash_mb)

    @property
    def table_mb(self) -> int:
        """The table really allocated: ``ckr_engine_set_hash`` takes the largest power of two of
        64-byte buckets (4 entries of 16 bytes) that fits in ``hash_mb``, so a power of two MB."""
        return 1 << (max(1, self.hash_mb).bit_length() - 1)

    def set_hash(self, hash_mb: int) -> None:
        if hash_mb < 1:
            raise ValueError("hash size must be at least 1 MB")
        with self._lock:
            if lib.ckr_engine_set_hash(self._live(), int(hash_mb)) != 0:
                raise MemoryError(f"cannot allocate a {hash_mb} MB transposition table")
            self.hash_mb = int(hash_mb)

    def clear(self) -> None:
        with self._lock:
            lib.ckr_engine_clear(self._live())

    def _live(self) -> object:
        if self._ptr is None:
            raise RuntimeError("this search engine was closed")
        return self._ptr

    def close(self) -> None:
        """Free the table now (waits for a running search); the engine cannot be used after."""
        with self._lock, self._stop_lock:
            if self._ptr is not None:
                ffi.release(self._ptr)  # runs ckr_engine_free at once, not at garbage collection
                self._ptr = None
                self._eval = None
                self._rote = None
                self._egdb = None

    def set_eval(self, spec: EvalSpec) -> None:
        buffers = _new_eval(spec)
        with self._lock:
            lib.ckr_engine_set_eval(self._live(), buffers.ev)
            self._eval = buffers

    def search_scores(self, sets: Any, depth: int, out: Any) -> None:  # any buffers
        """Training labels: each position of ``sets`` (n * 5 native uint32, as ``piecenet_sets``
        takes them) searched to ``depth`` with this engine's evaluator and no game history, its score
        for the side to move (centi-men, clipped to +-2000) into ``out`` (n native int32).  The table
        is cleared first."""
        if not 1 <= depth <= 64:
            raise ValueError(f"depth must be 1..64, got {depth}")
        n = len(memoryview(sets).cast("B")) // 20
        if len(memoryview(out).cast("B")) < 4 * n:
            raise ValueError("output buffer too small")
        if n == 0:
            return
        with self._lock:
            bad = lib.ckr_search_scores(self._live(), ffi.from_buffer("uint32_t[]", sets), n, int(depth),
                                        ffi.from_buffer("int32_t[]", out, require_writable=True))
        if bad >= 0:
            raise ValueError(f"position {bad}: a square holds more than one piece")

    def set_rote(self, table: RoteTable | None) -> None:
        """Probe ``table`` at the search leaves (None: off).  Waits for a running search."""
        with self._lock:
            if table is not self._rote:
                lib.ckr_engine_set_rote(self._live(), table._ptr if table is not None else ffi.NULL)
                self._rote = table

    def set_egdb(self, tables: EgdbTables | None, max_pieces: int = 0) -> None:
        """Probe the endgame ``tables`` (of up to ``max_pieces`` pieces) in the search; None: off."""
        with self._lock:
            ptr = tables.pointer if tables is not None and max_pieces >= 2 else ffi.NULL
            lib.ckr_engine_set_egdb(self._live(), ptr, int(max_pieces) if ptr != ffi.NULL else 0)
            self._egdb = tables if ptr != ffi.NULL else None

    def arm(self) -> int:
        """Arm this engine's next search and return its ticket.

        A ``stop()`` from now on ends that search even when it arrives before ``search``
        has begun (the search then returns at once with the first legal move).  The same
        ticket comes back until that search begins; ``search`` arms by itself when nobody did.
        """
        with self._stop_lock:
            return int(lib.ckr_engine_arm(self._live()))

    def stop(self, ticket: int | None = None) -> None:
        """Stop the running search and the armed one; with ``ticket``, only that search.

        A stop while nothing runs or is armed is forgotten: it never ends a later search.
        """
        # Not the search lock (a stop must reach a running search); this one only
        # keeps ``close`` from freeing the engine under us.
        with self._stop_lock:
            if self._ptr is not None:
                if ticket is None:
                    lib.ckr_engine_stop(self._ptr)
                else:
                    lib.ckr_engine_stop_search(self._ptr, int(ticket))

    def search(
        self,
        raw: RawPosition,
        history: Sequence[int],
        limits: CoreLimits,
        on_info: Callable[[CoreInfo], None] | None = None,
    ) -> tuple[int, CoreInfo]:
        """Returns (number of legal root moves, final info)."""
        with self._lock:
            engine = self._live()
            pos = _new_pos(raw)
            hist = ffi.new("uint64_t[]", list(history) or [0])
            lim = ffi.new("ckr_limits *")
            lim.mode = limits.mode
            lim.depth = limits.depth
            lim.nodes = limits.nodes
            lim.soft_ms = limits.soft_ms
            lim.hard_ms = limits.hard_ms
            for i, b in enumerate(limits.samuel_breaks):
                lim.samuel_breaks[i] = b
            lim.driver = limits.driver
            lim.info_ms = limits.info_ms
            lim.game_ply = limits.game_ply
            lim.contempt = limits.contempt
            if limits.parent is not None:
                lim.has_parent = 1
                lim.parent = _new_pos(limits.parent)[0]
            result = ffi.new("ckr_info *")
            handle = ffi.new_handle(on_info) if on_info else ffi.NULL
            lib.ckr_engine_set_callback(engine, lib.ckr_py_on_info if on_info else ffi.NULL, handle)
            try:
                n = lib.ckr_search(engine, pos, hist, len(history), lim, result)
            finally:
                lib.ckr_engine_set_callback(engine, ffi.NULL, ffi.NULL)
            return int(n), _info_from_c(result)


# ---- Samuel's 1959 terms (csrc/samuel_terms.c, csrc/ckr_terms.h) ----

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


def network_bench(spec: EvalSpec, positions: Sequence[RawPosition], rounds: int) -> tuple[int, float]:
    """Evaluate every position ``rounds`` times in one C loop: (sum of scores, seconds)."""
    import time

    buffers = _new_eval(spec)
    arr = ffi.new("ckr_pos[]", len(positions))
    for i, raw in enumerate(positions):
        arr[i] = _new_pos(raw)[0]
    start = time.perf_counter()
    total = int(lib.ckr_network_bench(buffers.ev, arr, len(positions), int(rounds)))
    return total, time.perf_counter() - start


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


# ---- the endgame database (csrc/egdb.c, csrc/ckr_egdb.h) ----

EGDB_DRAW: int = lib.CKR_EGDB_DRAW
EGDB_WIN: int = lib.CKR_EGDB_WIN
EGDB_LOSS: int = lib.CKR_EGDB_LOSS
EGDB_NONE: int = lib.CKR_EGDB_NONE
EGDB_MAX_SIDE: int = lib.CKR_EGDB_MAX_SIDE


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


class EgdbTables:
    """The C endgame tables held in memory: build, copy in and out, probe, check."""

    def __init__(self) -> None:
        ptr = lib.ckr_egdb_new()
        if ptr == ffi.NULL:
            raise MemoryError("cannot allocate an endgame database")
        self._ptr = ffi.gc(ptr, lib.ckr_egdb_free)

    @property
    def pointer(self) -> Any:
        """The ``ckr_egdb *`` (for the engine); valid while this object lives."""
        return self._ptr

    def build(self, bm: int, bk: int, wm: int, wk: int) -> int:
        """Solve a signature for both sides to move; returns the passes it took."""
        r = int(lib.ckr_egdb_build(self._ptr, bm, bk, wm, wk))
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

    def value_at(self, bm: int, bk: int, wm: int, wk: int, side: int, index: int) -> int:
        return int(lib.ckr_egdb_value_at(self._ptr, bm, bk, wm, wk, side, index))

    def probe(self, raw: RawPosition) -> int:
        """EGDB_WIN/LOSS/DRAW for the side to move, or -1 when not covered."""
        return int(lib.ckr_egdb_probe(self._ptr, _new_pos(raw)))

    def check(self, bm: int, bk: int, wm: int, wk: int, side: int) -> tuple[int, list[int]]:
        """(inconsistent positions, slots valued [draw, win, loss, none]); -1 when tables are missing."""
        counts = ffi.new("int64_t[4]")
        bad = int(lib.ckr_egdb_check(self._ptr, bm, bk, wm, wk, side, counts))
        return bad, [int(c) for c in counts]

    # Distance to conversion (optional, a byte a slot): see csrc/ckr_egdb.h.

    def build_distance(self, bm: int, bk: int, wm: int, wk: int) -> int:
        """Solve a signature's distances (its values must be held); returns the greatest."""
        r = int(lib.ckr_egdb_build_distance(self._ptr, bm, bk, wm, wk))
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

    def check_distance(self, bm: int, bk: int, wm: int, wk: int, side: int) -> int:
        """Positions whose distance breaks the rule against their successors; -1: tables missing."""
        return int(lib.ckr_egdb_check_distance(self._ptr, bm, bk, wm, wk, side))
