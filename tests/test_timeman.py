"""Limits and time budgets."""

from __future__ import annotations

import pytest

from engine import Limit, LimitError
from engine.timeman import Budget, budgets, plan


def test_movetime_is_both_budgets() -> None:
    soft, hard = budgets(Limit(movetime=0.5))
    assert soft == hard and 450 <= soft <= 500


def test_no_time_means_unbounded() -> None:
    assert budgets(Limit(depth=5)) == (0, 0)
    assert Limit().infinite and not Limit(depth=3).infinite


def test_clock_budget_is_a_share_of_the_clock() -> None:
    soft, hard = budgets(Limit(time=60.0, inc=1.0))
    assert 0 < soft < hard <= 60_000 * 0.34
    # more increment, more time; fewer moves to go, more time
    assert budgets(Limit(time=60.0, inc=5.0))[0] > soft
    assert budgets(Limit(time=60.0, moves_to_go=5))[0] > budgets(Limit(time=60.0, moves_to_go=40))[0]


def test_low_clock_never_overspends() -> None:
    soft, hard = budgets(Limit(time=0.05))
    assert 1 <= soft <= hard <= 50


@pytest.mark.parametrize(
    "kwargs", [{"depth": 0}, {"nodes": 0}, {"movetime": 0}, {"time": -1.0}, {"inc": -0.5}]
)
def test_nonsense_limits_are_rejected(kwargs: dict[str, float]) -> None:
    with pytest.raises(LimitError):
        Limit(**kwargs)  # type: ignore[arg-type]


# ---- the clock's budget over many clock states (pure arithmetic, no wall clock) ----

CLOCKS = [0.0, 0.005, 0.02, 0.03, 0.05, 0.1, 0.3, 0.6, 0.99, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 180.0, 600.0,
          5400.0]
INCS = [0.0, 0.01, 0.1, 0.5, 2.0, 10.0]
MOVES = [None, 1, 2, 5, 10, 20, 40, 60, 100]
MARGINS = [0.0, 0.02, 0.05, 0.2]


@pytest.mark.parametrize("margin", MARGINS)
def test_clock_budget_never_loses_on_time(margin: float) -> None:
    for time in CLOCKS:
        for inc in INCS:
            if inc > time:  # every protocol gives the clock with this move's increment in it
                continue
            for mtg in MOVES:
                b = plan(Limit(time=time, inc=inc, moves_to_go=mtg, margin=margin))
                what = f"time={time} inc={inc} moves={mtg} margin={margin}: {b}"
                # a search is always allowed to start (and so always returns a move) ...
                assert b.optimum_ms >= 1 and b.maximum_ms >= b.optimum_ms, what
                assert b.soft_ms == b.optimum_ms and b.hard_ms == b.maximum_ms, what
                # ... and its abort comes before the clock less the margin runs out (1 ms
                # floor apart, which only a clock already within the margin can reach).
                assert b.maximum_ms <= max(1, (time - margin) * 1000), what
                # never more than a third of the clock (plus half an increment) on one move
                assert b.maximum_ms <= max(1, (0.33 * max(0.0, time - margin) + 0.5 * inc) * 1000) + 1, what
                assert b.optimum_ms <= max(1, 0.2 * (time - margin) * 1000) + 1, what


def test_clock_budget_grows_with_clock_and_increment_and_fewer_moves() -> None:
    for mtg in MOVES:
        last = 0
        for time in CLOCKS:
            opt = plan(Limit(time=time, moves_to_go=mtg)).optimum_ms
            assert opt >= last, (time, mtg)
            last = opt
    for time in (5.0, 60.0):
        opts = [plan(Limit(time=time + inc, inc=inc)).optimum_ms for inc in INCS]
        assert opts == sorted(opts)
        by_moves = [plan(Limit(time=time, moves_to_go=m)).optimum_ms for m in (40, 20, 10, 5)]
        assert by_moves == sorted(by_moves)


def test_clock_budget_figures() -> None:
    # 10 s + 0.1 s: about 1/30 of the clock less a second, plus most increments; 4 optimums at most.
    b = plan(Limit(time=10.1, inc=0.1))
    assert 350 <= b.optimum_ms <= 400 and b.maximum_ms == pytest.approx(4 * b.optimum_ms, abs=2)
    # 40 moves in 60 s, 40 to go: 1.5 s less the reserve and the margins of the other moves.
    b = plan(Limit(time=60.0, moves_to_go=40))
    assert 1420 <= b.optimum_ms <= 1500
    # the last move of a period: at most a fifth of the clock, the rest carries over
    b = plan(Limit(time=10.0, moves_to_go=1))
    assert b.optimum_ms == pytest.approx(0.2 * 9980, abs=1) and b.maximum_ms <= 0.33 * 9980 + 1


def test_low_clock_keeps_the_margin() -> None:
    # under a second: a small share of what is left; within the margin: the 1 ms floor
    b = plan(Limit(time=0.5))
    assert 1 <= b.optimum_ms <= 20 and b.maximum_ms <= 0.33 * 480 + 1
    assert plan(Limit(time=0.01)) == plan(Limit(time=0.0)) == Budget(1, 1, 1, 1)


def test_move_time_caps_a_clock_and_has_no_optimum_alone() -> None:
    assert plan(Limit(movetime=0.1)) == Budget(90, 90, 0, 0)
    assert plan(Limit(depth=6, nodes=1000)) == Budget()
    b = plan(Limit(time=600.0, movetime=0.5))
    assert b.soft_ms == b.hard_ms == b.optimum_ms == b.maximum_ms == 490


@pytest.mark.parametrize("tc", [(10.0, 0.1, None), (3.0, 0.05, None), (60.0, 0.0, None), (1.0, 0.02, None),
                                (60.0, 0.6, 40), (20.0, 0.0, 60), (5.0, 0.0, None), (0.5, 0.05, None)])
@pytest.mark.parametrize("lag", [0.0, 0.01, 0.025])
def test_a_game_with_lag_never_flags(tc: tuple[float, float, int | None], lag: float) -> None:
    """A simulated 150-move game: each move searches its optimum, every seventh its whole maximum,
    and pays ``lag`` outside the search; the clock as samuel match keeps it (increment after the
    move, a period's time at its end) never falls when the increment or the clock can pay the lag.
    (Wall-clock behaviour is the match's to show: docs/time.md.)"""
    base, inc, period = tc
    if inc < 2 * lag and period is None:
        pytest.skip("sudden death planned over 30 moves cannot pay a lag 150 times")
    clock = base
    for move in range(150):
        mtg = None if period is None else period - move % period
        b = plan(Limit(time=clock, inc=inc, moves_to_go=mtg))
        spent = (b.maximum_ms if move % 7 == 6 else b.optimum_ms) / 1000 + lag
        assert spent <= clock + 0.05, (move, clock, b)  # samuel match allows 0.05 s over
        clock -= spent
        if period is not None and (move + 1) % period == 0:
            clock += base
        clock += inc
    if inc >= 2 * lag:
        assert clock >= 0.05, clock
