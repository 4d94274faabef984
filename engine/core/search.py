"""The C search engine: limits, progress reports, stop tickets (csrc/ckr_api.h, search)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.core._ffi import ffi, lib
from engine.core.egdb import EgdbTables
from engine.core.evaluation import EvalSpec, _EvalBuffers, _new_eval
from engine.core.position import RawMove, RawPosition, _new_pos, _raw_move
from engine.core.rote import RoteTable

MODE_PVS: int = lib.CKR_MODE_PVS
MODE_SAMUEL: int = lib.CKR_MODE_SAMUEL
MODE_SHANNON_A: int = lib.CKR_MODE_SHANNON_A
MODE_FOGEL: int = lib.CKR_MODE_FOGEL
MODE_SHANNON_B: int = lib.CKR_MODE_SHANNON_B
DRIVER_PVS: int = lib.CKR_DRIVER_PVS
DRIVER_MTDF: int = lib.CKR_DRIVER_MTDF


@dataclass(frozen=True)
class PvsStats:
    """How the modern search spent its re-searches and table stores over a whole search
    (``ckr_pvs_stats``; all 0 in the other modes)."""

    zw_searches: int = 0
    """Zero-window searches of the moves after the first."""
    zw_researches: int = 0
    """Of them: failed high inside the window and searched again with it."""
    lmr_searches: int = 0
    """Reduced searches (a subset of ``zw_searches``)."""
    lmr_researches: int = 0
    """Of them: failed high and searched again at full depth."""
    asp_searches: int = 0
    """Root searches inside an aspiration window."""
    asp_fails: int = 0
    """Of them: failed low or high and searched again wider."""
    tt_stores: int = 0
    tt_evictions: int = 0
    """Stores that replaced another position's entry."""
    tt_evict_deep: int = 0
    """Of those: an entry of this search as deep as the new one or deeper."""
    pruned: int = 0
    """Moves skipped and nodes cut by the candidate prunings (docs/search-depth.md; 0 by default)."""
    qs_threats: int = 0
    """Quiescence leaves looked one quiet ply further for a threat (a candidate; 0 by default)."""

    def __add__(self, other: PvsStats) -> PvsStats:
        return PvsStats(*(a + b for a, b in zip(_pvs_values(self), _pvs_values(other), strict=True)))


def _pvs_values(s: PvsStats) -> tuple[int, ...]:
    return tuple(getattr(s, f) for f in PVS_STAT_FIELDS)


PVS_STAT_FIELDS: tuple[str, ...] = tuple(PvsStats.__dataclass_fields__)


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
    pvs: PvsStats = field(default_factory=PvsStats)
    """Re-search and table figures of the modern search."""


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
        pvs=PvsStats(*(getattr(i.pvs, f) for f in PVS_STAT_FIELDS)),
    )


@ffi.def_extern()
def ckr_py_on_info(userdata: object, info: object) -> None:
    callback = ffi.from_handle(userdata)
    try:
        callback(_info_from_c(info))
    except Exception:  # a failing listener must not unwind through C
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
    fogel_draws: bool = False
    """Chellapilla and Fogel's search: score a repetition or the 40-move rule as a draw (theirs
    was blind to both; ours, for games under real rules)."""
    optimum_ms: int = 0
    """A clocked search's planned time (0: none): no new iteration after it times a factor
    that grows while the best move changes or the score falls (csrc/search.c)."""
    maximum_ms: int = 0
    """A clocked search's most time (0: none): no iteration begins that could not end before it."""


class CoreEngine:
    """One C search engine: its transposition table, history and evaluator.

    ``search`` blocks (with the GIL released); ``stop`` may be called from any thread,
    and reaches a search armed with ``arm`` even before it has begun.
    """

    def __init__(self, hash_mb: int) -> None:
        # No default here: the one default table size is engine.options' (the option table).
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

    def prepare(self) -> None:
        """Fault the whole table into memory now (keeping its contents), so that the next search
        does not pay for it on its clock."""
        with self._lock:
            lib.ckr_engine_prepare(self._live())

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
            lim.fogel_draws = int(limits.fogel_draws)
            lim.optimum_ms = limits.optimum_ms
            lim.maximum_ms = limits.maximum_ms
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
