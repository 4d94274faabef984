"""Limits and time budgets."""

from __future__ import annotations

import pytest

from engine import Limit, LimitError
from engine.timeman import budgets


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
