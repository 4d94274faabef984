"""A search on a thread of its own: the one way the engine's users start, stop and wait for one.

The command line (which must see Ctrl-C), the protocol sessions (whose event loop must keep
serving) and the match runner (which holds a clock over every move) all start their searches
here.  ``stop()`` always reaches the search it was meant for: the search is armed before it
begins, so a stop that comes first is kept (the search then answers at once from a one-ply
look), and a stop after it ended never touches a later one.
"""

from __future__ import annotations

import concurrent.futures
import threading
import time
from collections.abc import Callable
from typing import Protocol

from engine.board import Board
from engine.limits import Limit
from engine.move import Move
from engine.search import SearchInfo, SearchResult


class Stoppable(Protocol):
    """What a searcher must offer to be run here (``engine.search.Searcher`` and the 704 backend)."""

    def arm(self) -> None: ...

    def stop(self) -> None: ...

    def search(self, board: Board, limit: Limit, *, on_info: Callable[[SearchInfo], None] | None = None,
               info_interval: float = 0.0) -> SearchResult: ...


Submit = Callable[[Callable[[], None]], object]
"""Runs a job on some thread: a pool's ``submit``, or ``own_thread``."""


def own_thread(job: Callable[[], None]) -> None:
    threading.Thread(target=job, name="samuel-search", daemon=True).start()


class SearchRun:
    """One search running elsewhere.  Give it a searcher, or ``prepare``: a function run on the
    search's thread that returns the searcher (building or resizing a table is then not done on
    the caller's thread).  ``after(result)`` runs there too, once the search has ended."""

    def __init__(
        self,
        board: Board,
        limit: Limit,
        searcher: Stoppable | None = None,
        *,
        prepare: Callable[[], Stoppable] | None = None,
        on_info: Callable[[SearchInfo], None] | None = None,
        info_interval: float = 0.0,
        after: Callable[[SearchResult], None] | None = None,
        submit: Submit = own_thread,
    ) -> None:
        if (searcher is None) == (prepare is None):
            raise ValueError("give a searcher or prepare, not both")
        board.require_a_move()
        self.board = board.copy()  # the caller may move on while the search reads it
        self.limit = limit
        self._searcher = searcher
        self._prepare = prepare
        self._on_info = on_info
        self._info_interval = info_interval
        self._after = after
        self._stopped = threading.Event()
        self.thread_id: int | None = None
        """The native id of the thread the search runs on, once it has begun."""
        self.future: concurrent.futures.Future[SearchResult] = concurrent.futures.Future()
        """Done with the search's result or its error (``asyncio.wrap_future`` awaits it)."""
        submit(self._run)

    def _run(self) -> None:
        if not self.future.set_running_or_notify_cancel():
            return
        self.thread_id = threading.get_native_id()
        try:
            searcher = self._prepare() if self._prepare is not None else self._searcher
            assert searcher is not None  # the constructor took one or the other
            self._searcher = searcher
            searcher.arm()  # from here a stop reaches this search, even before it begins
            # Stopped before it began: answer at once, but with a move a one-ply look chose.
            limit = Limit(depth=1) if self._stopped.is_set() else self.limit
            result = searcher.search(self.board, limit, on_info=self._on_info,
                                     info_interval=self._info_interval)
            if self._after is not None:
                self._after(result)
        except BaseException as exc:  # handed to whoever waits, not lost on this thread
            self.future.set_exception(exc)
            return
        self.future.set_result(result)

    def stop(self) -> None:
        """End the search now; it still answers with the best move found so far."""
        self._stopped.set()
        searcher = self._searcher
        if searcher is not None:
            searcher.stop()

    @property
    def stopped(self) -> bool:
        return self._stopped.is_set()

    def done(self) -> bool:
        return self.future.done()

    def wait(self, timeout: float | None = None) -> SearchResult:
        """The result (or the search's error).  TimeoutError when ``timeout`` passes first (the
        search goes on: stop it or wait again).  The wait is sliced so Ctrl-C is seen at once."""
        end = None if timeout is None else time.monotonic() + timeout
        while True:
            step = 0.05 if end is None else max(0.0, min(0.05, end - time.monotonic()))
            try:
                return self.future.result(step)
            except concurrent.futures.TimeoutError:
                if end is not None and time.monotonic() >= end:
                    raise TimeoutError(f"the search did not end within {timeout} s") from None

    def wait_interruptibly(self, *, reraise: bool = False) -> SearchResult:
        """``wait`` for a person at a terminal: Ctrl-C stops the search and keeps its result
        (with ``reraise`` the KeyboardInterrupt is raised again once the search has ended)."""
        try:
            return self.wait()
        except KeyboardInterrupt:
            self.stop()
            result = self.future.result()
            if reraise:
                raise
            return result


def move_to_play(board: Board, result: SearchResult) -> Move:
    """The search's best move, or the first legal move when it has none that is legal here (a
    search stopped before it completed a ply)."""
    if result.best is not None and board.is_legal(result.best):
        return result.best
    return board.require_moves()[0]
