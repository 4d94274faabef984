"""Time management: turns a Limit into the core's soft and hard budgets (ms).

soft: no new iteration starts after it; hard: the search is aborted.
"""

from __future__ import annotations

from engine.limits import Limit

DEFAULT_MOVES_TO_GO = 30


def budgets(limit: Limit) -> tuple[int, int]:
    """(soft_ms, hard_ms); 0 means unbounded."""
    soft = hard = 0.0
    if limit.movetime is not None:
        t = max(0.001, limit.movetime - limit.margin * 0.5)
        soft, hard = t, t
    if limit.time is not None:
        left = max(0.0, limit.time - limit.margin)
        inc = limit.inc or 0.0
        mtg = limit.moves_to_go or DEFAULT_MOVES_TO_GO
        base = left / max(1, mtg) + 0.8 * inc
        # Never plan to spend more than a fifth of the clock on one move, and
        # abort before a third of it is gone.
        s = min(base, left * 0.2)
        h = min(base * 3.0, left * 0.33 + 0.5 * inc, left)
        s, h = max(0.001, s), max(0.001, h)
        soft = s if soft == 0 else min(soft, s)
        hard = h if hard == 0 else min(hard, h)
    return int(soft * 1000) or (1 if soft else 0), int(hard * 1000) or (1 if hard else 0)
