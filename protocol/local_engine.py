"""LocalEngine: one session's engine in this process, its searches on worker threads.

It owns what a session searches with: the searcher (built, resized and cleared for the
current options), the running search, and the learners that learn from its moves (rote
memory, Alpha).  It is thread-based and knows nothing of asyncio: ``SessionEngine`` drives
one directly when searches run in the server's own process, and a search host
(``protocol.search_host``) drives one per session when they run in worker processes.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from engine.board import Board
from engine.errors import OptionError, SamuelError
from engine.learners.generalize_host import AlphaStore, HostedAlpha
from engine.learners.rote import RoteMemory, shared_memory
from engine.learners.rote_file import is_reel, shared_reel
from engine.limits import Limit
from engine.options import OptionValue, OptionValues
from engine.runner import SearchRun
from engine.search import EngineSearcher, RoteSource, Searcher, SearchInfo, SearchResult
from engine.searchers import apply_options, build_searcher
from protocol.memory_budget import HashBudget
from protocol.search_priority import DEFAULT_PRIORITY, thread_nice

if TYPE_CHECKING:
    from protocol.host_pool import HostPool

log = logging.getLogger(__name__)

DEADLINE_MARGIN = 0.02
"""The default ``deadline_margin``.  A move time's hard budget is the time less 0.01 s, so a
0.1 s move is answered by 0.11 s at the latest, inside the 0.05 s ``samuel match`` allows past
the time with room for the trip to the client; a search that runs normally answers within a
few milliseconds of its hard budget, before the deadline."""


@dataclass(frozen=True)
class SessionDefaults:
    """What a new session starts with (the server's command-line choices)."""

    options: OptionValues = field(default_factory=OptionValues, hash=False)
    """The engine options every session starts with (``engine.options``: the table's defaults,
    or the server's command line).  Each session takes a copy of its own."""
    rote: str = ""
    """Samuel's rote memory: an SQLite file every session reads and adds its games to
    (set by the server operator; empty: off)."""
    rote_merge_every: int = 20
    """Merge the memory once this many searched positions wait (and at every game's end)."""
    alpha: str = ""
    """Samuel's Alpha: the name of a polynomial the engine plays with and adjusts after each of its
    moves, saved between games in ``alpha_dir`` (set by the server operator; empty: off)."""
    alpha_dir: str = "alpha"
    search_processes: int = 0
    """Worker processes the server's searches run in (0: threads of the server's own process)."""
    search_priority: str = DEFAULT_PRIORITY
    """How those processes share the CPU (``protocol.search_priority``)."""
    deadline_margin: float = DEADLINE_MARGIN
    """Seconds past a timed search's hard budget before its session answers without it (a search
    starved of the CPU by other programs, or stuck); negative: never."""
    hash_budget: HashBudget | None = field(default=None, compare=False)
    """The server-wide ceiling on table memory every session reserves from (None: none)."""
    search_hosts: HostPool | None = field(default=None, compare=False)
    """The running worker processes (set by the server when ``search_processes`` > 0)."""

    def portable(self) -> SessionDefaults:
        """These defaults without the server's own objects, to hand to a worker process."""
        return SessionDefaults(**{k: v for k, v in self.__dict__.items()
                                  if k not in ("hash_budget", "search_hosts")})


class SearchBusyError(SamuelError):
    """A search was asked for while another one of the same session runs."""


class TableMemoryError(SamuelError):
    """The transposition table could not be allocated (the machine is out of memory)."""


class SessionClosedError(SamuelError):
    """The session was closed; its engine is gone."""


SEARCH_NICENESS = 10
"""Searches run this much nicer than the event loop, so with more searches than cores a
``ping`` or ``stop`` still gets the CPU at once instead of waiting its turn behind every
search (Linux schedules threads, and processes, by nice)."""


def lower_priority() -> None:
    """Make the calling search thread nicer than the event loop."""
    thread_nice(SEARCH_NICENESS)


class _Workers:
    """Daemon threads that run searches, reused from one search to the next.

    Starting a thread blocks the caller until the new thread first runs, which
    with every core busy searching can take tens of milliseconds: the event loop
    would stall on each move.  Idle workers wait on a queue instead; a new one
    is started only when all are busy, up to ``limit`` (beyond it, jobs wait
    for a worker to come free), and a worker idle for ``idle_exit`` seconds
    ends, so a load that has passed leaves no threads behind.  A worker drops
    its job once run: the job holds the session (and its table) alive.  Daemon
    threads, so a search still running at exit never holds the process.
    """

    def __init__(self, limit: int = 128, idle_exit: float = 30.0) -> None:
        self._jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._idle = 0
        """Workers waiting on the queue."""
        self._queued = 0
        """Jobs on the queue that no worker has taken yet."""
        self._threads = 0
        self._lock = threading.Lock()
        self.limit = limit
        self.idle_exit = idle_exit
        self.before_job: Callable[[], None] = lower_priority
        """What a worker runs before each job: sets its priority (a search process sets its own)."""
        self.hurry: Callable[[int], None] = lambda thread_id: None
        """Raises a stopped search's thread (by native id) so it ends before the others' turn."""

    @property
    def threads(self) -> int:
        return self._threads

    def submit(self, job: Callable[[], None]) -> None:
        with self._lock:
            self._queued += 1
            # Every waiting job already has an idle worker to take it, or a new one is needed.
            spawn = self._queued > self._idle and self._threads < self.limit
            if spawn:
                self._threads += 1
        self._jobs.put(job)
        if spawn:
            threading.Thread(target=self._work, name="samuel-search", daemon=True).start()

    def _work(self) -> None:
        while True:
            with self._lock:
                self._idle += 1
            try:
                job: Callable[[], None] | None = self._jobs.get(timeout=self.idle_exit)
            except queue.Empty:
                with self._lock:
                    if self._queued == 0:  # nothing was handed to us meanwhile: retire
                        self._idle -= 1
                        self._threads -= 1
                        return
                    self._idle -= 1
                continue  # a submit counted on us just now: its job is on the queue
            with self._lock:
                self._idle -= 1
                self._queued -= 1
            try:
                assert job is not None
                self.before_job()  # also undoes a ``hurry`` of the last job
                job()
            except BaseException:  # a job reports its own errors; the worker lives on
                log.exception("search worker job failed")
            job = None  # not kept alive while idle


WORKERS = _Workers()


class LocalEngine:
    """The engine state of one session: searcher, running search and learners.

    Building, resizing and clearing the transposition table can take seconds with a
    big table, so ``searcher()`` is only ever called off the event loop: on the
    search's worker thread before it searches, or by whoever calls ``prepare``.
    ``reserve(mb)``/``release()`` account for the table in a server-wide budget.
    """

    def __init__(self, defaults: SessionDefaults, options: OptionValues, *,
                 reserve: Callable[[int], None] | None = None,
                 release: Callable[[], None] | None = None) -> None:
        self.options = options
        """The session's option values (the session's own object: what it sets, this reads)."""
        self._reserve = reserve or (lambda mb: None)
        self._release = release or (lambda: None)
        self._searcher: EngineSearcher | None = None
        self._applied: dict[str, OptionValue] | None = None
        """The option values the searcher was last given."""
        self._start_mb = defaults.options.hash_mb
        """The session's first table size: what a refused new table puts the option back to."""
        """The session's first hash size, and the last one a table was built with."""
        self._config_lock = threading.Lock()
        """Held while the searcher is built, resized, cleared or freed (in worker threads)."""
        self._clear_pending = False
        self._closed = False
        self._run: SearchRun | None = None
        reel = bool(defaults.rote) and is_reel(defaults.rote)
        self.rote: RoteMemory | None = (
            shared_memory(defaults.rote, merge_every=defaults.rote_merge_every)
            if defaults.rote and not reel else None
        )
        """The memory the session learns into (an SQLite store)."""
        self.rote_reel: RoteSource | None = shared_reel(defaults.rote) if reel else None
        """A 704 reel the searches read and nobody writes (``--rote FILE.tap``)."""
        self.alpha: HostedAlpha | None = (
            HostedAlpha(AlphaStore(defaults.alpha_dir, defaults.alpha)) if defaults.alpha else None
        )
        self._alpha_version = -1

    # ---- the searcher ----

    @property
    def table_mb(self) -> int | None:
        """The size of the table allocated, when one is built (None before, and for the 704 backend)."""
        s = self._searcher
        return s.table_mb if isinstance(s, Searcher) else None

    def searcher(self) -> EngineSearcher:
        """The searcher for the current options, built or resized now (blocking: not on the loop).

        Raises HashBudgetError when the budget cannot hold the table and
        TableMemoryError when it cannot be allocated; either way the previous
        table (and hash option) stays.
        """
        with self._config_lock:
            if self._closed:
                raise SessionClosedError("the session is closed")
            o = self.options
            want = o.hash_mb
            if self._searcher is not None and self._searcher.backend != o.backend:  # a new searcher
                self._searcher.close()
                self._searcher = None
                self._release()
            if self._searcher is None:
                self._searcher = self._build(o, want)
            else:
                if isinstance(self._searcher, Searcher) and self._searcher.hash_mb != want:
                    self._resize(self._searcher, want)
                apply_options(self._searcher, o, self._applied)
            searcher = self._searcher
            self._applied = dict(o.current)
            if self._clear_pending:
                searcher.new_game()
                self._clear_pending = False
            return searcher

    def _build(self, o: OptionValues, want: int) -> EngineSearcher:
        """A new searcher for ``o``; the modern core's table reserved in the budget first."""
        if o.backend == "704" and self.alpha is not None:
            raise OptionError("backend 704 plays a fixed polynomial, so it cannot play as "
                              f"Samuel's Alpha ({self.alpha.store.name}, set by the server); "
                              "use backend modern")
        modern = o.backend != "704"
        if modern:
            try:
                self._reserve(want)
            except SamuelError:
                self._refused()
                raise
        try:
            searcher = build_searcher(o, rote=self.rote or self.rote_reel)
        except MemoryError:
            self._release()
            kept = self._refused()
            raise TableMemoryError(
                f"cannot allocate a {want} MB transposition table; hash stays {kept} MB") from None
        self._clear_pending = False  # a new table is empty
        if isinstance(searcher, Searcher):
            searcher.prepare_table()  # faulted in here (init, a new game), not by the search on its clock
        return searcher

    def _refused(self) -> int:
        """A new table could not be had (the session has none: a table it has is resized, and a
        refused resize keeps it, see ``_resize``): the option goes back to the session's start
        size, so the refused size never sticks.  Returns it."""
        self.options.restore("hash", self._start_mb)
        return self._start_mb

    def _resize(self, s: Searcher, want: int) -> None:
        old = s.hash_mb
        try:
            self._reserve(want)
        except SamuelError:
            self.options.restore("hash", old)
            raise
        try:
            s.set_hash(want)
        except MemoryError:
            self.options.restore("hash", old)
            self._reserve(old)
            raise TableMemoryError(
                f"cannot allocate a {want} MB transposition table; hash stays {old} MB"
            ) from None
        self._clear_pending = False  # the new table is empty

    def new_game(self) -> None:
        """Forget the last game: the table is cleared before the next search."""
        self._clear_pending = True
        self._end_alpha_game()
        if self.rote is not None and self.rote.pending:
            self.rote.merge_soon()  # the last game's positions, in the background

    # ---- searching ----

    def start_search(
        self,
        board: Board,
        limit: Limit,
        on_info: Callable[[SearchInfo], None] | None = None,
        *,
        info_interval: float = 0.0,
        use_book: bool = True,
    ) -> SearchRun:
        """Search ``board`` (the caller's copy) on a worker thread; ``on_info`` and the run's
        future are settled there.  The caller keeps one search at a time."""
        alpha = self.alpha
        alpha_eval = None
        if alpha is not None:  # Samuel's Alpha: its current polynomial; a fresh table once it changed
            alpha_eval = alpha.evaluator()
            if alpha.version != self._alpha_version:
                self._clear_pending = True
                self._alpha_version = alpha.version
        position = board

        def prepare() -> EngineSearcher:
            searcher = self.searcher()  # built, resized or cleared here, not on the loop
            if not use_book and isinstance(searcher, Searcher):
                searcher.book = None  # for this search only: ``searcher()`` sets it again each time
            if alpha_eval is not None:
                searcher.set_evaluator(alpha_eval)
            return searcher

        def learn(result: SearchResult) -> None:
            if result.info.book:  # no search to learn from
                log.info("book move %s in %s", result.best, position.fen())
                return
            if self.rote is not None:  # Samuel's rote learning: save the root and its score
                try:
                    self.rote.record_search(position, result)
                except Exception:
                    log.exception("rote memory: could not record %s", position.fen())
            if alpha is not None:  # Alpha adjusts its polynomial after each of its moves
                try:
                    alpha.learn(position, result.info.score.value, result.info.pv)
                except Exception:
                    log.exception("alpha %s: could not learn from %s", alpha.store.name, position.fen())

        run = SearchRun(position, limit, prepare=prepare, on_info=on_info, info_interval=info_interval,
                        after=learn, submit=WORKERS.submit)
        self._run = run
        return run

    def stop(self) -> None:
        """Ask the running search to finish now (harmless when idle).

        The searcher's stop is called directly (no watcher thread polling an event, which
        would contend for the GIL).  The worker arms the search before it looks at the
        run's flag, so a stop is never lost between the two.
        """
        run = self._run
        if run is not None:
            run.stop()
            if run.thread_id is not None and not run.done():
                WORKERS.hurry(run.thread_id)

    def _end_alpha_game(self) -> None:
        if self.alpha is not None:
            try:  # the game's learning is saved (merged if another game saved meanwhile)
                self.alpha.end_game()
            except Exception:
                log.exception("alpha %s: could not save the polynomial", self.alpha.store.name)

    def close(self) -> None:
        """Stop any search and wait for it, save the learners' work, free the table (blocking)."""
        self.stop()
        run = self._run
        if run is not None:
            with contextlib.suppress(BaseException):  # its owner reports the error
                run.future.result()
        self._end_alpha_game()
        if self.rote is not None:
            try:  # the game's positions go to the memory when the session ends
                self.rote.flush()
            except Exception:
                log.exception("rote memory: merge at session end failed")
        self.free()

    def free(self) -> None:
        with self._config_lock:
            self._closed = True
            if self._searcher is not None:
                self._searcher.close()
                self._searcher = None
            self._release()
        self._run = None
        trim_heap()


def warm_up_704(deck: str = "") -> None:
    """Assemble the 704 program (the package's, or ``deck``) and set it up now, so that no session's
    first move pays for it inside its time.  Program704Error (a SamuelError) when it cannot load."""
    from engine.backend704 import warm_up  # the emulator, only when asked for

    warm_up(deck or None)


def trim_heap() -> None:
    """Give freed heap pages back to the system (glibc keeps them in its per-thread arenas).

    Big tables are mapped on their own and go back when freed; this is for the
    many small blocks a session leaves behind, which otherwise keep an idle
    server's memory at its busiest level.  A no-op where glibc is not the C library.
    """
    trim = _MALLOC_TRIM
    if trim is not None:
        trim(0)


def _find_malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        return ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


_MALLOC_TRIM = _find_malloc_trim()
