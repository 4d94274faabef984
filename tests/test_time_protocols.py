"""Each protocol's clock as the search's Limit (time, increment, moves to go), and the budget the
time manager makes of it never reaching that clock: Hub's ``level``, DXP's game request (minutes
and moves), CheckerBoard's packed increments, and ``samuel match``'s own clock sent over Hub."""

from __future__ import annotations

import math
from typing import Any

import pytest

from engine.board import Board
from engine.limits import Limit
from engine.timeman import plan
from matches.timecontrol import Clock, TimeControl
from protocol import cb_grammar as cb
from protocol import dxp_grammar as dxp
from protocol import dxp_session
from protocol import hub_grammar as hub

pytestmark = pytest.mark.timeout(120)


def fits(limit: Limit) -> None:
    """The search's abort comes before the clock this move has (less the margin) runs out."""
    assert limit.time is not None
    b = plan(limit)
    assert 1 <= b.optimum_ms <= b.maximum_ms <= max(1, (limit.time - limit.margin) * 1000), (limit, b)


# ---- Hub: level [moves=] time= [inc=]; the increment is added before the move ----

@pytest.mark.parametrize(("line", "time", "inc", "moves"), [
    ("level time=10", 10.0, None, None),
    ("level time=58 inc=2", 60.0, 2.0, None),
    ("level moves=9 time=291.587", 291.587, None, 9),
    ("level moves=40 time=60 inc=0.5", 60.5, 0.5, 40),
    ("level time=0.4 inc=0.1", 0.5, 0.1, None),
    ("level time=0", 0.0, None, None),
    ("level moves=1 time=0.05", 0.05, None, 1),
])
def test_hub_level_is_the_clock(line: str, time: float, inc: float | None, moves: int | None) -> None:
    limit = hub.parse_level(hub.tokenize(line))
    assert limit.time == pytest.approx(time) and limit.inc == inc and limit.moves_to_go == moves
    assert limit.movetime is None and limit.depth is None
    fits(limit)


def test_match_clock_over_hub_arrives_whole() -> None:
    """``samuel match`` writes its clock as Hub does (without this move's increment); the engine adds
    it back: the Limit the engine searches with is the referee's, in each state of a game."""
    for text in ("10+0.1", "40/60+0.6", "3", "0.5+0.05"):
        clock = Clock(TimeControl.parse(text))
        for elapsed in [0.3] * 45:
            sent = clock.limit()
            got = hub.parse_level(hub.tokenize(hub.format_level(sent)))
            assert got.time == pytest.approx(sent.time, abs=1e-3), text
            assert got.moves_to_go == sent.moves_to_go, text
            if sent.time >= (sent.inc or 0):
                assert got.inc == (sent.inc or None), text
            else:  # a clock that fell below the increment: a smaller increment keeps it whole
                assert (got.inc or 0) <= (sent.inc or 0), text
            fits(got)
            clock.charge(elapsed)


# ---- DXP: the game request's minutes for the game, and its moves ----

class _Settings:
    dxp_movetime = 0.25


def _follower_limit(game: Any) -> Limit:
    """The follower's limit for ``game`` (only its settings are read: no connection needed)."""
    follower = object.__new__(dxp_session.DxpFollower)
    follower.settings = _Settings()  # type: ignore[assignment]
    return follower._limit(game)


@pytest.mark.parametrize(("minutes", "moves"), [(3, 75), (10, 0), (1, 40), (999, 999)])
def test_dxp_game_request_is_the_clock(minutes: int, moves: int) -> None:
    text = dxp.format_message(dxp.GameReq("tester", 1, minutes, moves, None))
    req = dxp.parse_message(text)
    assert isinstance(req, dxp.GameReq) and (req.minutes, req.moves) == (minutes, moves)
    game = dxp_session._Game(Board(), req.follower, req.minutes * 60.0, req.moves)
    limit = _follower_limit(game)
    assert limit.time == minutes * 60.0 and limit.inc is None
    assert limit.moves_to_go == (moves or None)
    fits(limit)
    # each move made counts down the clock and the moves to go; past the moves, sudden death
    for made in range(1, 120):
        game.clock -= 0.9 * plan(_follower_limit(game)).maximum_ms / 1000
        game.our_moves = made
        limit = _follower_limit(game)
        assert limit.moves_to_go == (moves - made if 0 < made < moves else None)
        fits(limit)


def test_dxp_without_minutes_is_a_move_time() -> None:
    req = dxp.parse_message(dxp.format_message(dxp.GameReq("tester", 0, 0, 0, None)))
    assert isinstance(req, dxp.GameReq) and req.minutes == 0
    game = dxp_session._Game(Board(), req.follower, None, req.moves)
    assert _follower_limit(game) == Limit(movetime=0.25)


# ---- CheckerBoard: the remaining time and increment packed in moreinfo ----

@pytest.mark.parametrize(("remaining", "increment"), [
    (60.0, 1.0), (300.0, 0.0), (0.8, 0.2), (0.05, 0.0), (5000.0, 30.0), (12.34, 0.56),
])
def test_cb_increments_are_the_clock(remaining: float, increment: float) -> None:
    info, moreinfo = cb.encode_incremental(remaining, increment)
    unit = cb.INCR_UNITS[(info >> cb.CB_INCR_TIME_SHIFT) & 3]
    # the increment bits win over maxtime and CB_EXACT_TIME: maxtime is only a hint then
    limit = cb.decode_limit(1.0, info | cb.CB_EXACT_TIME, moreinfo)
    assert limit.movetime is None and limit.moves_to_go is None
    assert limit.time == pytest.approx(remaining, abs=unit / 2 + 1e-9)
    assert limit.inc == pytest.approx(increment, abs=unit / 2 + 1e-9)
    fits(limit)


def test_cb_average_time_is_about_maxtime() -> None:
    limit = cb.decode_limit(2.0, 0)
    b = plan(limit)
    assert b.optimum_ms == pytest.approx(2000, abs=5) and b.maximum_ms == pytest.approx(3300, abs=10)
    assert math.isclose(limit.time or 0, 10.0)
