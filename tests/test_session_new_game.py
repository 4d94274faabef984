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
