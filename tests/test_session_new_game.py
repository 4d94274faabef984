"""A new game readies the session's table off the event loop, before the game's clock starts: the
searcher is built and the table cleared and faulted in at ``new_game``, not in the first move's time."""

from __future__ import annotations

import asyncio

import pytest

from engine.board import Board
from engine.limits import Limit
from engine.options import OptionValues
from engine.search import Searcher
from protocol.session_engine import SessionDefaults, SessionEngine


def test_new_game_readies_the_table_before_the_first_move(monkeypatch: pytest.MonkeyPatch) -> None:
    prepared: list[int] = []
    real = Searcher.new_game

    def counting(self: Searcher) -> None:
        real(self)
        prepared.append(self.table_mb)

    monkeypatch.setattr(Searcher, "new_game", counting)

    async def main() -> None:
        s = SessionEngine(SessionDefaults(options=OptionValues(hash=2)))
        try:
            await s.search(Board(), Limit(depth=3))
            assert prepared == []  # a first search builds a fresh table: nothing to clear
            s.new_game()
            await s.warmed()  # the background readying, awaited as the next search would
            assert prepared == [2]  # cleared and faulted in at new_game, before any move
            await s.search(Board(), Limit(depth=3))
            assert prepared == [2]  # and not again on the move's clock
        finally:
            await s.close()

    asyncio.run(main())


def test_new_game_with_search_processes_still_clears_the_hosted_table() -> None:
    from protocol.host_pool import HostPool

    async def main() -> None:
        pool = HostPool(1, SessionDefaults(options=OptionValues(hash=2)))
        defaults = SessionDefaults(options=OptionValues(hash=2), search_processes=1, search_hosts=pool)
        s = SessionEngine(defaults)
        try:
            first = await s.search(Board(), Limit(depth=6))
            s.new_game()
            await s.warmed()
            again = await s.search(Board(), Limit(depth=6))
            assert again.info.nodes == first.info.nodes  # the table was cleared: the same search again
        finally:
            await s.close()
            await pool.close()

    asyncio.run(main())


def test_close_waits_for_a_table_being_readied(monkeypatch: pytest.MonkeyPatch) -> None:
    # A client that connects (cb) or starts a game and goes away at once: the readying still under
    # way is waited for by close, so the table is not freed under it (nor built after the close)
    # and the task is not left pending ("Task was destroyed but it is pending").
    import threading

    from protocol.local_engine import LocalEngine

    release = threading.Event()
    entered = threading.Event()
    readied: list[bool] = []
    real_searcher, real_close = LocalEngine.searcher, LocalEngine.close

    def slow(self: LocalEngine) -> object:
        entered.set()
        release.wait(30)
        return real_searcher(self)

    def close(self: LocalEngine) -> None:
        readied.append(warming is not None and warming.done())
        real_close(self)

    monkeypatch.setattr(LocalEngine, "searcher", slow)
    monkeypatch.setattr(LocalEngine, "close", close)
    warming: asyncio.Future[int] | None = None

    async def main() -> None:
        nonlocal warming
        s = SessionEngine(SessionDefaults(options=OptionValues(hash=1)))
        s.warm_up()
        warming = s._warming
        await asyncio.to_thread(entered.wait, 30)
        # Without the wait, close frees the table at once; a busy machine can only delay that.
        threading.Timer(0.5, release.set).start()
        await s.close()
        assert readied == [True]

    asyncio.run(main())
