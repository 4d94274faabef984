"""SessionEngine: the engine one protocol session owns, with searches run off the event loop.

Every connection (or the stdin session) owns one.  Its searches run either on threads
of this process (``LocalEngine``; the C search releases the GIL, so the event loop keeps
answering while it thinks) or, in a server started with search processes, in one of
those (``RemoteEngine``): then nothing of a search holds this process's GIL, and ``ping``
is answered at once however many games search.  The protocol sessions see the same
object either way.  Progress comes back to the loop as ``on_info`` calls: the search
itself never touches a stream.

A timed search is also given a deadline of the session's own: its hard budget plus
``deadline_margin``.  A search that has not answered by then (starved of the CPU by other
programs, or stuck) is stopped and the caller gets the best move it reported so far, or the
first legal move: a user's clock never runs out because the search could not run.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import Awaitable, Callable

from engine import timeman
from engine.board import Board
from engine.errors import OptionError, SamuelError
from engine.limits import Limit
from engine.options import OptionValue, find
from engine.search import EngineSearcher, Score, SearchInfo, SearchResult
from protocol.host_pool import RemoteEngine, Reply, SearchHostError
from protocol.local_engine import (
    LocalEngine,
    SearchBusyError,
    SessionClosedError,
    SessionDefaults,
    TableMemoryError,
)

log = logging.getLogger(__name__)

__all__ = [
    "SearchBusyError",
    "SessionClosedError",
    "SessionDefaults",
    "SessionEngine",
    "TableMemoryError",
]


class SessionEngine:
    """The engine of one client: options, and the search it runs (here or in a search process)."""

    def __init__(self, defaults: SessionDefaults | None = None) -> None:
        d = defaults or SessionDefaults()
        self.options = d.options.copy()
        """This session's own values of the option table (the server's start-up values at first)."""
        self.budget = d.hash_budget
        self._local: LocalEngine | None = None
        self._remote: RemoteEngine | None = None
        if d.search_hosts is not None:
            self._remote = RemoteEngine(d.search_hosts, d)
            self._remote.on_hash_restored = lambda value: self.options.restore("hash", value)
        else:
            self._local = LocalEngine(d, self.options, reserve=self._reserve, release=self._release)
        self._table_mb: int | None = None
        """The remote table's size, as the search process last reported it."""
        self._closed = False
        self._task: asyncio.Future[SearchResult] | None = None
        self._stop_early = False
        """A stop came while the search was starting (or being sent to its search process)."""
        self._deadline: asyncio.TimerHandle | None = None
        """Stops a ponder search turned timed (``stop_after``)."""
        self.deadline_margin = d.deadline_margin
        """Seconds past a timed search's hard budget before the session answers on its own."""
        self._answer: asyncio.Future[SearchResult] | None = None
        """What the caller of ``search`` awaits: the search's result, or the deadline's."""
        self._overdue: asyncio.TimerHandle | None = None
        self._last_info: SearchInfo | None = None
        self._board: Board | None = None
        self._started = 0.0
        self._starting: asyncio.Future[None] | None = None
        self._warming: asyncio.Future[int] | None = None
        """The searcher being readied in the background: the 704 program after ``set backend 704``,
        or a new game's table cleared and faulted in (``warm_up``)."""

    @property
    def in_process(self) -> bool:
        """True when this session's searches run on threads of this process."""
        return self._local is not None

    # ---- configuration ----

    def set_option(self, name: str, value: OptionValue) -> OptionValue:
        """Check and store an option of the table (one a session may set); the searcher picks
        it up before the next search.  Returns the value, typed.

        A hash size the server's budget cannot hold is refused here (HashBudgetError),
        before anything is allocated.  A client names an evaluator; it cannot load a file.
        """
        if self.searching:
            raise SearchBusyError(f"cannot change option {name!r} while searching; stop first")
        option = find(name, per_session=True)
        if option.kind == "evaluator" and str(value).strip().endswith(".json"):
            raise OptionError(f"{option.name}={value}: a client names an evaluator, it cannot load a file "
                              "(the server's --eval FILE.json makes one known by its name)")
        if option.name == "hash" and self.budget is not None:
            self.budget.check(self, int(option.parse(value)))
        before = self.options.backend
        new = self.options.set(option.name, value)
        if option.name == "backend" and new == "704" and before != "704":
            self.warm_up()
        return new

    def warm_up(self) -> None:
        """Get the searcher ready now, in the background, so the next move does not pay for it in
        its time: the 704 program built, or a new game's table cleared and faulted in (the next
        search waits for this; a failure is named again by that search)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop (a caller outside the server): the first search builds it
        self._warming = asyncio.ensure_future(self.prepare())
        self._warming.add_done_callback(lambda f: f.cancelled() or f.exception())

    async def warmed(self) -> None:
        """Wait for the background readying (``set backend 704``, a new game), if any; raises its error."""
        warming = self._warming
        if warming is not None:
            await asyncio.shield(warming)

    @property
    def hash_mb(self) -> int:
        """The table's real size when built, else the size it will have."""
        table = self._local.table_mb if self._local is not None else self._table_mb
        return table if table is not None else self.options.hash_mb

    def searcher(self) -> EngineSearcher:
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
        if self.options.backend == "704":
            return
        self._reserve(self.options.hash_mb)

    def _settle_remote(self, table_mb: int | None) -> None:
        """Hold what the search process really has."""
        self._table_mb = table_mb
        if table_mb is None:
            if self.options.backend == "704":
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
        await self._drain()
        if self._local is not None:
            await asyncio.to_thread(self._local.searcher)
        else:
            self._check_open()
            assert self._remote is not None
            self._reserve_for_remote()
            try:
                self._settle_remote(await self._remote.prepare(self.options.current))
            except SamuelError:
                self._settle_remote(self._table_mb)
                raise
        return self.hash_mb

    def new_game(self) -> None:
        """Forget the last game: the table is cleared and faulted in now, off the loop and before
        the game's clock starts (the next search waits for that)."""
        if self._local is not None:
            self._local.new_game()
        elif self._remote is not None:
            self._remote.new_game()
        else:
            return
        self.warm_up()  # after a stopped search still running has ended (prepare drains it)

    def _check_open(self) -> None:
        if self._closed:
            raise SessionClosedError("the session is closed")

    # ---- searching ----

    @property
    def searching(self) -> bool:
        """A search's caller still waits for its move."""
        return self._answer is not None and not self._answer.done()

    @property
    def busy(self) -> bool:
        """A search still runs: its caller's, or one the deadline answered for that has yet to end."""
        return self._task is not None and not self._task.done()

    async def _drain(self) -> None:
        """Wait for a search the deadline answered for (stopped, but not yet ended) to end: the
        table and the searcher are its until then."""
        task = self._task
        if task is not None and not task.done():
            self._stop_running()
            with contextlib.suppress(Exception):  # its error was the abandoned caller's
                await asyncio.shield(task)

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
        self._last_info = None
        self._board = board  # read only by the deadline, while the caller waits for this search
        self._started = time.monotonic()
        answer: asyncio.Future[SearchResult] = loop.create_future()
        self._answer = answer
        self._stop_early = False
        # The clock runs from the request: waiting for a stopped search to end, or for the 704
        # program to be built, counts, and the deadline answers even then.
        self._arm_overdue(limit)

        try:
            start = functools.partial(self._start, board, limit, on_info, info_interval, use_book, answer)
            if self.busy or (self._warming is not None and not self._warming.done()):
                self._start_after_waiting(start, answer)
            else:  # the usual case: nothing to wait for, no task of its own
                self._warming = None
                await start()
            # Shielded: cancelling the caller stops the search rather than orphaning it.
            return await asyncio.shield(answer)
        except asyncio.CancelledError:
            self.stop()
            raise
        finally:
            if not answer.done():  # the search could not start: the caller has its error
                answer.cancel()
            for timer in (self._deadline, self._overdue):
                if timer is not None:
                    timer.cancel()
            self._deadline = self._overdue = None

    def _start_after_waiting(self, start_search: Callable[[], Awaitable[None]],
                             answer: asyncio.Future[SearchResult]) -> None:
        """Start the search once the stopped one has ended and the 704 program is built, in a task
        of its own, so that the caller's deadline can answer meanwhile."""
        async def start() -> None:
            await self._drain()
            warming, self._warming = self._warming, None
            if warming is not None and not warming.done():
                with contextlib.suppress(Exception):  # the search names the failure itself
                    await asyncio.shield(warming)
            if not answer.done():  # else the deadline (or the caller's cancel) came first
                await start_search()

        def started(t: asyncio.Future[None]) -> None:
            exc = None if t.cancelled() else t.exception()
            if exc is not None and not answer.done():
                answer.set_exception(exc)

        self._starting = asyncio.ensure_future(start())  # kept: the loop holds tasks weakly
        self._starting.add_done_callback(started)

    async def _start(self, board: Board, limit: Limit, on_info: Callable[[SearchInfo], None] | None,
                     info_interval: float, use_book: bool, answer: asyncio.Future[SearchResult]) -> None:
        """Start the search here or in a search process; its end settles ``answer``."""
        loop = asyncio.get_running_loop()

        def seen(info: SearchInfo) -> None:
            self._last_info = info
            if on_info is not None:
                on_info(info)

        if self._local is not None:
            def report(info: SearchInfo) -> None:
                if not loop.is_closed():
                    loop.call_soon_threadsafe(seen, info)

            run = self._local.start_search(board.copy(), limit, report, info_interval=info_interval,
                                           use_book=use_book)
            # Settled on the loop (not the moment the thread ends), so ``searching`` holds until the
            # caller has seen the result.
            self._task = task = asyncio.wrap_future(run.future)
            if self._stop_early:
                self._local.stop()
        else:
            self._check_open()
            assert self._remote is not None
            self._reserve_for_remote()
            # Searching from now: a stop that comes while the request is on its way is kept.
            self._task = task = loop.create_future()
            try:
                reply = await self._remote.search(board.trimmed(), limit, seen, info_interval, use_book,
                                                  self.options.current)
            except BaseException:
                self._task = None
                raise
            reply.add_done_callback(self._remote_done)
            if self._stop_early:
                self._remote.stop()
        task.add_done_callback(lambda t: _settle(answer, t))

    def _arm_overdue(self, limit: Limit, *, from_now: bool = False) -> None:
        """Answer on the session's own at the search's hard budget plus the margin."""
        hard_ms = timeman.budgets(limit)[1]
        if hard_ms <= 0 or self.deadline_margin < 0:
            return  # no clock: the search runs until stopped, as asked
        loop = asyncio.get_running_loop()
        if self._overdue is not None:
            self._overdue.cancel()
        spent = 0.0 if from_now else time.monotonic() - self._started
        delay = max(0.0, hard_ms / 1000.0 + self.deadline_margin - spent)
        self._overdue = loop.call_later(delay, self._answer_overdue)

    def _answer_overdue(self) -> None:
        """The deadline passed with no answer: stop the search and answer with its best so far."""
        self._overdue = None
        answer, board = self._answer, self._board
        if answer is None or answer.done() or board is None:
            return
        self.stop()
        result = fallback_result(board, self._last_info, time.monotonic() - self._started)
        log.warning("search of %s past its deadline by %.0f ms; answered %s from %s", board.fen(),
                    self.deadline_margin * 1000, result.best,
                    "its last report" if result.info.depth else "the legal moves")
        answer.set_result(result)

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
        if self.searching:
            self._stop_early = True  # kept for a search whose start is still on its way
        self._stop_running()

    def _stop_running(self) -> None:
        """Stop the search that runs now, if any (not one about to start)."""
        if self._local is not None:
            self._local.stop()
        elif self._remote is not None:
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
        if hard_ms > 0:
            self._arm_overdue(Limit(movetime=hard_ms / 1000.0, margin=0.0), from_now=True)

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
        # A table being readied in the background (a new game, a cb client just connected) is
        # waited for, so that it is not built again after the close, nor left pending.
        warming, self._warming = self._warming, None
        if warming is not None and not warming.done():
            await asyncio.wait([warming])  # its own error, if any, was named by its callback
        self._closed = True
        if self._local is not None:
            await asyncio.to_thread(self._local.close)
        elif self._remote is not None:
            try:
                await self._remote.close()
            finally:
                self._release()


def _settle(answer: asyncio.Future[SearchResult], task: asyncio.Future[SearchResult]) -> None:
    """Pass the search's end to its caller, unless the deadline answered already (then its
    result, or error, is only looked at so that asyncio does not call it unretrieved)."""
    if task.cancelled():
        if not answer.done():
            answer.cancel()
        return
    exc = task.exception()
    if answer.done():
        if exc is not None:
            log.info("a search answered for at its deadline ended with: %s", exc)
        return
    if exc is not None:
        answer.set_exception(exc)
    else:
        answer.set_result(task.result())


def fallback_result(board: Board, info: SearchInfo | None, elapsed: float) -> SearchResult:
    """The move to play when a search cannot answer in time: the first move of its last reported
    line when that is legal here, else the first legal move."""
    if info is not None and info.pv and board.is_legal(info.pv[0]):
        return SearchResult(info.pv[0], info.pv[1] if len(info.pv) > 1 else None, info)
    best = board.legal_moves[0]
    return SearchResult(best, None, SearchInfo(depth=0, seldepth=0, score=Score(0), nodes=0, nps=0,
                                               time=elapsed, pv=(best,)))
