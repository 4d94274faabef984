"""EngineSession: one client's engine, with searches run off the event loop.

Every connection (or the stdin session) owns one.  Its searches run either on threads
of this process (``LocalEngine``; the C search releases the GIL, so the event loop keeps
answering while it thinks) or, in a server started with search processes, in one of
those (``RemoteEngine``): then nothing of a search holds this process's GIL, and ``ping``
is answered at once however many games search.  The protocol sessions see the same
object either way.  Progress comes back to the loop as ``on_info`` calls: the search
itself never touches a stream.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from engine import egdb, timeman
from engine.board import Board
from engine.errors import SamuelError
from engine.limits import Limit
from engine.search import Searcher, SearchInfo, SearchResult
from protocol.host_pool import RemoteEngine, Reply, SearchHostError
from protocol.local_engine import (
    LocalEngine,
    SearchBusyError,
    SessionClosedError,
    SessionDefaults,
    TableMemoryError,
)
from protocol.options import SPECS, EngineOptions

__all__ = ["EngineSession", "SearchBusyError", "SessionClosedError", "SessionDefaults",
           "TableMemoryError"]


class EngineSession:
    """The engine of one client: options, and the search it runs (here or in a search process)."""

    def __init__(self, defaults: SessionDefaults | None = None) -> None:
        d = defaults or SessionDefaults()
        self.options = EngineOptions()
        self.options.set("evaluator", d.evaluator)
        self.options.set("mode", d.mode)
        self.options.set("hash", str(d.hash_mb))
        self.options.set("backend", d.backend)
        self.options.set("egdb", d.egdb)
        self.options.set("book", d.book)
        self.options.set("book-variety", str(d.book_variety))
        self.options.set("contempt", str(d.contempt))
        self.budget = d.hash_budget
        self._local: LocalEngine | None = None
        self._remote: RemoteEngine | None = None
        if d.search_hosts is not None:
            self._remote = RemoteEngine(d.search_hosts, d)
            self._remote.on_hash_restored = lambda value: self.options.values.__setitem__("hash", value)
        else:
            self._local = LocalEngine(d, self.options, reserve=self._reserve, release=self._release)
        self._table_mb: int | None = None
        """The remote table's size, as the search process last reported it."""
        self._closed = False
        self._task: asyncio.Future[SearchResult] | None = None
        self._stop_early = False
        """A stop came while a remote search was being sent."""
        self._deadline: asyncio.TimerHandle | None = None

    @property
    def in_process(self) -> bool:
        """True when this session's searches run on threads of this process."""
        return self._local is not None

    # ---- configuration ----

    def set_option(self, name: str, value: str) -> str:
        """Validate and store an option; the searcher picks it up before the next search.

        A hash size the server's budget cannot hold is refused here (HashBudgetError),
        before anything is allocated.
        """
        if self.searching:
            raise SearchBusyError(f"cannot change option {name!r} while searching; stop first")
        spec = SPECS.get(name.strip().lower())
        if spec is not None and spec.name == "egdb":
            egdb.check_setting(value)  # a wrong directory is named now; loading waits for the search
        if spec is not None and spec.name == "hash" and self.budget is not None:
            self.budget.check(self, int(spec.validate(value)))
        return self.options.set(name, value)

    @property
    def hash_mb(self) -> int:
        """The table's real size when built, else the size it will have."""
        table = self._local.table_mb if self._local is not None else self._table_mb
        return table if table is not None else self.options.hash_mb

    def searcher(self) -> Searcher:
        """The in-process searcher for the current options, built or resized now (blocking:
        not on the loop).  See ``LocalEngine.searcher``; a session whose searches run in a
        search process has none here (SamuelError)."""
        if self._local is None:
            raise SessionClosedError("the session is closed") if self._closed else \
                SamuelError("this session searches in a search process")
        return self._local.searcher()

    def _reserve(self, mb: int) -> None:
        if self.budget is not None:
            self.budget.reserve(self, mb)

    def _release(self) -> None:
        if self.budget is not None:
            self.budget.release(self)

    def _reserve_for_remote(self) -> None:
        """Hold the table the search process is about to build (it cannot ask the budget itself)."""
        if self.options.values["backend"] == "704":
            return
        self._reserve(self.options.hash_mb)

    def _settle_remote(self, table_mb: int | None) -> None:
        """Hold what the search process really has."""
        self._table_mb = table_mb
        if table_mb is None:
            if self.options.values["backend"] == "704":
                self._release()
            return
        if self.budget is not None:
            with contextlib.suppress(SamuelError):  # a smaller table than was reserved always fits
                self.budget.reserve(self, table_mb)

    async def prepare(self) -> int:
        """Build or resize the table now, off the event loop; returns its size in MB.

        Raises what ``searcher()`` raises.  While a search runs the table is in
        use: nothing changes until it ends.
        """
        if self.searching:
            return self.hash_mb
        if self._local is not None:
            await asyncio.to_thread(self._local.searcher)
        else:
            self._check_open()
            assert self._remote is not None
            self._reserve_for_remote()
            try:
                self._settle_remote(await self._remote.prepare(self.options.values))
            except SamuelError:
                self._settle_remote(self._table_mb)
                raise
        return self.hash_mb

    def new_game(self) -> None:
        """Forget the last game: the table is cleared before the next search (off the loop)."""
        if self._local is not None:
            self._local.new_game()
        elif self._remote is not None:
            self._remote.new_game()

    def _check_open(self) -> None:
        if self._closed:
            raise SessionClosedError("the session is closed")

    # ---- searching ----

    @property
    def searching(self) -> bool:
        return self._task is not None and not self._task.done()

    async def search(
        self,
        board: Board,
        limit: Limit,
        on_info: Callable[[SearchInfo], None] | None = None,
        *,
        info_interval: float = 0.0,
        use_book: bool = True,
    ) -> SearchResult:
        """Search a copy of ``board`` off the loop; ``on_info`` runs on the event loop.

        ``info_interval`` thins the reports (see ``Searcher.search``).  ``use_book`` False
        searches even a position of the opening book (pondering, analysis).
        Raises GameOverError when the side to move has no move, SearchBusyError
        when a search already runs, HashBudgetError or TableMemoryError when the
        table cannot be had, SearchHostError when its search process died.
        ``stop()`` ends it early with the best move so far.
        """
        if self.searching:
            raise SearchBusyError("a search is already running; send stop first")
        board.require_a_move()
        loop = asyncio.get_running_loop()
        if self._local is not None:
            def report(info: SearchInfo) -> None:
                if on_info is not None and not loop.is_closed():
                    loop.call_soon_threadsafe(on_info, info)

            run = self._local.start_search(board.copy(), limit, report, info_interval=info_interval,
                                           use_book=use_book)
            # Settled on the loop (not the moment the thread ends), so ``searching`` holds until the
            # caller has seen the result.
            self._task = task = asyncio.wrap_future(run.future)
        else:
            self._check_open()
            assert self._remote is not None
            self._reserve_for_remote()
            # Searching from now: a stop that comes while the request is on its way is kept.
            self._task = task = loop.create_future()
            self._stop_early = False
            try:
                reply = await self._remote.search(board.trimmed(), limit, on_info, info_interval, use_book,
                                                  self.options.values)
            except BaseException:
                self._task = None
                raise
            reply.add_done_callback(self._remote_done)
            if self._stop_early:
                self._remote.stop()
        try:
            # Shielded: cancelling the caller stops the search rather than orphaning it.
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            self.stop()
            raise
        finally:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

    def _remote_done(self, reply: asyncio.Future[Reply]) -> None:
        task = self._task
        assert task is not None
        if reply.cancelled():
            task.cancel()
            return
        exc = reply.exception()
        if exc is not None:
            self._settle_remote(None if isinstance(exc, SearchHostError) else self._table_mb)
            task.set_exception(exc)
            return
        r = reply.result()
        self._settle_remote(r.table_mb)
        task.set_result(r.value)

    def stop(self) -> None:
        """Ask the running search to finish now (harmless when idle).

        The stop goes to the searcher directly (no watcher thread polling an event, which
        would contend for the GIL with the event loop).  The search is armed before it looks
        at its flag, so a stop is never lost between the two, and never ends a later search.
        """
        if self._local is not None:
            self._local.stop()
        elif self._remote is not None:
            self._stop_early = True
            self._remote.stop()

    def stop_after(self, limit: Limit) -> None:
        """Turn an open-ended (ponder) search into a timed one, counting from now.

        Used on a ponder hit: the search keeps its tree and stops when the move's
        time budget, computed from ``limit``, has run out.
        """
        if not self.searching:
            return
        soft_ms, hard_ms = timeman.budgets(limit)
        budget_ms = soft_ms or hard_ms
        if budget_ms <= 0:
            return  # no clock: the search goes on until stopped
        loop = asyncio.get_running_loop()
        if self._deadline is not None:
            self._deadline.cancel()
        self._deadline = loop.call_later(budget_ms / 1000.0, self.stop)

    async def wait_idle(self) -> None:
        """Wait for the running search (if any) to finish, ignoring its result."""
        task = self._task
        if task is not None and not task.done():
            with contextlib.suppress(Exception):  # its owner reports the error
                await asyncio.shield(task)

    async def close(self) -> None:
        """Stop any search, save the learners' work, free the table and return its budget."""
        self.stop()
        await self.wait_idle()
        self._closed = True
        if self._local is not None:
            await asyncio.to_thread(self._local.close)
        elif self._remote is not None:
            try:
                await self._remote.close()
            finally:
                self._release()
