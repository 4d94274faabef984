"""Time management: turns a Limit into the core's budgets (ms).

soft: no new iteration starts after it; hard: the search is aborted.  A clocked search
(``Limit.time``) also gets an optimum and a maximum: the core stops starting iterations
at the optimum times a factor that grows while the best move changes or the score falls
and shrinks while the best move holds, never past the maximum, and never begins an
iteration it estimates could not end before the maximum (csrc/search.c).  A fixed time a
move (``movetime``) has soft = hard, so the search uses nearly all of it.

Everything here is arithmetic on the Limit (no clock is read), so tests/test_timeman.py
checks it over many clock states.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.limits import Limit

DEFAULT_MOVES_TO_GO = 30
"""Moves a sudden-death clock is shared over: each move plans 1/30 of what is left (plus its
increments), so the clock shrinks geometrically and never runs out."""
HORIZON_CAP = 50
"""A longer period (moves=100) is planned as 50 moves: the game is rarely that long."""
OPTIMUM_SHARE = 0.2
"""The optimum never plans more than this share of the clock (a period's last move too)."""
MAXIMUM_RATIO = 4.0
"""The maximum is at most this many optimums (the core's factor reaches about 4)."""
MAXIMUM_SHARE = 0.33
"""...and at most this share of the clock (plus half an increment)."""
RESERVE = 1.0
"""Seconds of clock the plan leaves alone (half the clock below two seconds)."""
INC_SHARE = 0.9
"""The share of each later increment planned for, with two seconds or more on the clock..."""
INC_SHARE_LOW = 0.4
"""...falling to this on an empty clock."""


@dataclass(frozen=True)
class Budget:
    """The core's time limits for one search, in ms (0: none)."""

    soft_ms: int = 0
    hard_ms: int = 0
    optimum_ms: int = 0
    maximum_ms: int = 0


def _ms(seconds: float) -> int:
    """Whole ms, at least 1 for a positive time (0 would mean "no limit" to the core)."""
    return int(seconds * 1000) or (1 if seconds > 0 else 0)


def clock_budget(time: float, inc: float, moves_to_go: int | None, margin: float) -> tuple[float, float]:
    """(optimum, maximum) seconds for a move with ``time`` on the clock (this move's
    increment included, as every protocol here gives it), ``inc`` after each later move,
    ``moves_to_go`` in the period (None: sudden death) and ``margin`` seconds of overhead
    (protocol, transport, process) that every move pays outside the search.

    The maximum never reaches the clock less the margin, so the flag cannot fall while a
    move is searched; with under a second left the budgets shrink with the clock (a few ms
    at the end: the core then answers with its first iteration's move, or its first move).
    """
    left = max(0.0, time - margin)  # all this move may ever spend
    mtg = moves_to_go if moves_to_go is not None else DEFAULT_MOVES_TO_GO
    horizon = max(1, min(mtg, HORIZON_CAP))
    # A second (half a low clock) is kept out of the plan: a loaded machine's lag comes out
    # of it, not out of the flag (moves there answered 0.1-0.2 s past their budget).
    usable = left - min(RESERVE, 0.5 * left)
    # The later moves of the horizon each pay the margin too; keep that back, but never
    # more than half of what is usable (a low clock still has to move).
    usable -= min(margin * (horizon - 1), 0.5 * usable)
    # Later increments count less as the clock runs low, so a clock worn down by lag grows
    # back: each move then spends less than its increment.
    inc_share = INC_SHARE_LOW + (INC_SHARE - INC_SHARE_LOW) * min(1.0, left / (2 * RESERVE))
    pool = usable + inc_share * inc * (horizon - 1)
    optimum = min(pool / horizon, OPTIMUM_SHARE * left)
    maximum = min(optimum * MAXIMUM_RATIO, MAXIMUM_SHARE * left + 0.5 * inc, left)
    optimum = max(0.001, optimum)
    return optimum, max(optimum, maximum)


def plan(limit: Limit) -> Budget:
    """The core's budgets for ``limit``; all 0 when it has no time (depth/nodes only)."""
    soft = hard = 0.0
    optimum = maximum = 0.0
    if limit.movetime is not None:
        t = max(0.001, limit.movetime - limit.margin * 0.5)
        soft, hard = t, t
    if limit.time is not None:
        o, m = clock_budget(limit.time, limit.inc or 0.0, limit.moves_to_go, limit.margin)
        if soft == 0:
            optimum, maximum = o, m
            soft, hard = o, m  # for searchers without the clock's logic (704, Samuel's modes)
        else:
            # A move time caps the clock (CheckerBoard's average time): the cap rules.
            soft, hard = min(soft, o), min(hard, m)
            optimum, maximum = soft, hard
    return Budget(_ms(soft), _ms(hard), _ms(optimum), _ms(maximum))


def budgets(limit: Limit) -> tuple[int, int]:
    """(soft_ms, hard_ms); 0 means unbounded."""
    b = plan(limit)
    return b.soft_ms, b.hard_ms
