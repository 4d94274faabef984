"""The lag learnt from a Hub GUI's successive clocks (protocol/clock_lag.py) raises the margin, so
a loaded machine's lag comes out of the plan rather than out of the flag."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from test_hub_session import Hub

from engine.board import Board
from engine.limits import Limit
from engine.search import Score, SearchInfo, SearchResult
from engine.timeman import plan
from protocol import hub_grammar as g
from protocol.clock_lag import LagMeter
from protocol.session_engine import SessionEngine


def _game(meter: LagMeter, lag: float, moves: int, inc: float = 0.1, start: float = 10.0,
          period: int | None = None) -> list[Limit]:
    """The limits of ``moves`` moves, each searched for its optimum and charged that plus ``lag``."""
    clock, out = start, []
    for move in range(moves):
        mtg = None if period is None else period - move
        level = Limit(time=clock, inc=inc or None, moves_to_go=mtg)
        limit = meter.limit(level)
        out.append(limit)
        searched = plan(limit).optimum_ms / 1000
        meter.searched(level, searched)
        clock = clock - searched - lag + inc
    return out


@pytest.mark.parametrize("lag", [0.0, 0.05, 0.15])
def test_the_margin_follows_the_lag(lag: float) -> None:
    limits = _game(LagMeter(), lag, 12)
    assert limits[0].margin == Limit().margin  # nothing known yet
    for limit in limits[1:]:
        assert limit.margin == pytest.approx(Limit().margin + lag, abs=1e-6)


def test_periods_and_new_games_and_other_clocks() -> None:
    meter = LagMeter()
    limits = _game(meter, 0.1, 5, inc=0.0, start=60.0, period=40)
    assert limits[-1].margin == pytest.approx(0.12)
    meter.reset()
    assert meter.lag == 0.0 and meter.limit(Limit(time=5.0)).margin == Limit().margin
    # a move time or a depth forgets the last clock: no lag from a jump between unrelated clocks
    meter.searched(Limit(time=5.0), 0.1)
    assert meter.limit(Limit(movetime=0.1)) == Limit(movetime=0.1)
    assert meter.limit(Limit(time=1.0)).margin == Limit().margin
    # a clock set by hand far away is no lag
    meter.searched(Limit(time=1.0), 0.1)
    assert meter.limit(Limit(time=100.0)).margin == Limit().margin
    meter.searched(Limit(time=100.0), 0.1)
    assert meter.limit(Limit(time=50.0)).margin == Limit().margin


def test_the_lag_keeps_the_flag_up() -> None:
    """With 0.08 s lag a move at 10+0.1 (most of the increment), the clock never falls in 150 moves."""
    clock = 10.0
    meter = LagMeter()
    for _ in range(150):
        level = Limit(time=clock, inc=0.1)
        b = plan(meter.limit(level))
        searched = b.maximum_ms / 1000 if clock < 1 else b.optimum_ms / 1000  # the worst at a low clock
        meter.searched(level, searched)
        assert searched + 0.08 <= clock + 0.05, clock
        clock = clock - searched - 0.08 + 0.1



def test_a_hub_session_adds_the_lag_to_its_searches(monkeypatch: pytest.MonkeyPatch) -> None:
    """A clocked move whose next clock says 0.3 s more was charged than searched: the next search's
    margin holds that lag; a new game forgets it (the searches are stubbed: no wall clock in play)."""
    seen: list[Limit] = []

    async def search(self: SessionEngine, board: Board, limit: Limit, *args: Any,
                     **kwargs: Any) -> SearchResult:
        seen.append(limit)
        move = board.legal_moves[0]
        info = SearchInfo(depth=1, seldepth=1, score=Score(0), nodes=1, nps=0, time=0.1, pv=(move,))
        return SearchResult(move, None, info)

    monkeypatch.setattr(SessionEngine, "search", search)

    async def main() -> None:
        hub = Hub()
        try:
            for level in ("level time=10 inc=0.1", "level time=9.7 inc=0.1", "level time=9.4 inc=0.1"):
                hub.send(f"pos pos={g.PYDRAUGHTS_START}", level)
                await hub.ask("go think", "done")
            hub.send("new-game", f"pos pos={g.PYDRAUGHTS_START}", "level time=9 inc=0.1")
            await hub.ask("go think", "done")
        finally:
            await hub.close()

    asyncio.run(asyncio.wait_for(main(), 120))
    assert [round(x.margin, 6) for x in seen] == [0.02, 0.32, 0.32, 0.02]
