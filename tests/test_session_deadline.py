"""A timed search that cannot run (starved of the CPU, or stuck) is answered by its session at
its deadline: the best move it reported, or the first legal move; the next search waits for it.

The starved search is made two ways: a searcher held on an event before it may look at its
stop flag (threads of this process), and a search process frozen with SIGSTOP.  Neither test
depends on how fast the machine is: without the deadline both hang until the event or the
SIGCONT, and the generous bounds below are only there to turn a hang into a failure.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import threading
from collections.abc import Callable
from typing import Any

import pytest

from engine.board import Board
from engine.limits import Limit
from engine.options import OptionValues
from engine.search import Score, Searcher, SearchInfo
from protocol.host_pool import HostPool
from protocol.session_engine import SessionDefaults, SessionEngine, fallback_result
from samuel.session_args import add_session_arguments, session_defaults

pytestmark = pytest.mark.timeout(120)

HANG = 60.0
"""Only a hang takes this long."""


class Held:
    """Patches Searcher.search so that each search first reports ``report`` (if any), then
    waits for ``release`` before it really searches (and so before it sees a stop)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, report: Callable[[Board], SearchInfo] | None = None):
        self.release = threading.Event()
        self.entered = threading.Event()
        real = Searcher.search

        def held(searcher: Searcher, board: Board, limit: Limit, **kw: Any) -> Any:
            on_info = kw.get("on_info")
            if report is not None and on_info is not None:
                on_info(report(board))
            self.entered.set()
            self.release.wait(HANG)
            return real(searcher, board, limit, **kw)

        monkeypatch.setattr(Searcher, "search", held)


def a_report(board: Board) -> SearchInfo:
    last = board.legal_moves[-1]  # not the first legal move: the fallback must be the report's
    return SearchInfo(depth=3, seldepth=3, score=Score(12), nodes=100, nps=1000, time=0.01, pv=(last,))


def test_a_held_search_is_answered_at_its_deadline_with_the_first_legal_move(
        monkeypatch: pytest.MonkeyPatch) -> None:
    held = Held(monkeypatch)

    async def main() -> None:
        s = SessionEngine(SessionDefaults(options=OptionValues(hash=1), deadline_margin=0.05))
        board = Board()
        result = await asyncio.wait_for(s.search(board, Limit(movetime=0.05)), HANG)
        assert result.best == board.legal_moves[0] and result.info.depth == 0
        assert not s.searching and s.busy  # answered for; the search itself has not ended
        held.release.set()
        # The next search waits for the stopped one to end, then searches for real.
        again = await asyncio.wait_for(s.search(board, Limit(depth=3)), HANG)
        assert again.info.depth == 3 and again.best in board.legal_moves
        await s.close()

    asyncio.run(main())


def test_the_next_move_is_answered_in_time_while_a_stopped_search_still_holds_on(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The clock of the next move runs while it waits for the last search to end (a search process
    in the idle class beside a busy program): its deadline answers it too."""
    held = Held(monkeypatch)

    async def main() -> None:
        s = SessionEngine(SessionDefaults(options=OptionValues(hash=1)))
        board = Board()
        first = await asyncio.wait_for(s.search(board, Limit(movetime=0.05)), HANG)
        second = await asyncio.wait_for(s.search(board, Limit(movetime=0.05)), HANG)
        assert first.info.depth == second.info.depth == 0 and s.busy
        held.release.set()
        again = await asyncio.wait_for(s.search(board, Limit(depth=3)), HANG)
        assert again.info.depth == 3
        await s.close()

    asyncio.run(main())


def test_a_held_search_is_answered_with_the_move_it_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    held = Held(monkeypatch, report=a_report)
    seen: list[SearchInfo] = []
    real_overdue = SessionEngine._answer_overdue

    def overdue_once_reported(session: SessionEngine) -> None:
        # The report comes from the search's thread, which a loaded machine may start after the
        # deadline: the deadline waits for that report (an event, not a longer move time), then
        # answers as it would have.
        if not seen:
            session._overdue = asyncio.get_running_loop().call_later(0.01, overdue_once_reported, session)
            return
        real_overdue(session)

    monkeypatch.setattr(SessionEngine, "_answer_overdue", overdue_once_reported)

    async def main() -> None:
        s = SessionEngine(SessionDefaults(options=OptionValues(hash=1)))
        board = Board()
        result = await asyncio.wait_for(s.search(board, Limit(movetime=0.05), seen.append), HANG)
        assert result.best == board.legal_moves[-1] and result.info.depth == 3
        assert seen and seen[0].pv == (board.legal_moves[-1],)
        held.release.set()
        await s.close()

    asyncio.run(main())


def test_an_untimed_search_has_no_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    held = Held(monkeypatch)

    async def main() -> None:
        s = SessionEngine(SessionDefaults(options=OptionValues(hash=1), deadline_margin=0.0))
        search = asyncio.ensure_future(s.search(Board(), Limit(depth=2)))
        await asyncio.to_thread(held.entered.wait, HANG)
        await asyncio.sleep(0.3)  # far past any deadline a timed search would have had
        assert not search.done()
        held.release.set()
        assert (await asyncio.wait_for(search, HANG)).info.depth >= 1
        await s.close()

    asyncio.run(main())


def test_a_negative_margin_turns_the_deadline_off(monkeypatch: pytest.MonkeyPatch) -> None:
    held = Held(monkeypatch)

    async def main() -> None:
        s = SessionEngine(SessionDefaults(options=OptionValues(hash=1), deadline_margin=-1.0))
        search = asyncio.ensure_future(s.search(Board(), Limit(movetime=0.01)))
        await asyncio.to_thread(held.entered.wait, HANG)
        await asyncio.sleep(0.3)
        assert not search.done()
        held.release.set()
        assert (await asyncio.wait_for(search, HANG)).best is not None
        await s.close()

    asyncio.run(main())


def test_the_fallback_skips_a_reported_move_that_is_not_legal_here() -> None:
    board = Board()
    other = Board()
    other.push(other.legal_moves[0])
    info = a_report(other)  # a White move: not legal for Black at the start
    result = fallback_result(board, info, 0.1)
    assert result.best == board.legal_moves[0] and result.info.depth == 0
    assert fallback_result(board, a_report(board), 0.1).best == board.legal_moves[-1]


def test_a_frozen_search_process_is_answered_at_its_deadline() -> None:
    """The real thing: the search process gets no CPU at all (SIGSTOP), as in the idle class
    beside busy programs; the session still answers, then the process goes on."""
    async def main() -> None:
        pool = HostPool(1, SessionDefaults(options=OptionValues(hash=1), search_priority="normal"))
        await pool.start()
        try:
            s = SessionEngine(SessionDefaults(options=OptionValues(hash=1), search_priority="normal",
                                              search_hosts=pool))
            board = Board()
            warm = await asyncio.wait_for(s.search(board, Limit(depth=2)), HANG)  # the host is up
            assert warm.best is not None
            pids = pool.pids
            assert pids
            for pid in pids:
                os.kill(pid, signal.SIGSTOP)
            try:
                result = await asyncio.wait_for(s.search(board, Limit(movetime=0.05)), HANG)
                assert result.best == board.legal_moves[0] and result.info.depth == 0
            finally:
                for pid in pids:
                    os.kill(pid, signal.SIGCONT)
            again = await asyncio.wait_for(s.search(board, Limit(depth=3)), HANG)
            assert again.info.depth == 3
            await s.close()
        finally:
            await pool.close()

    asyncio.run(main())


def test_the_command_line_sets_the_margin() -> None:
    p = argparse.ArgumentParser()
    add_session_arguments(p)
    def margin(*argv: str) -> float:
        return session_defaults(p.parse_args([*argv, "--egdb", "none"])).deadline_margin

    assert margin("--deadline-margin", "0.5") == 0.5
    assert margin() == 0.02
    assert margin("--deadline-margin", "-1") == -1
    with pytest.raises(SystemExit):
        p.parse_args(["--deadline-margin", "-0.5"])
