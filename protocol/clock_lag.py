"""The lag a GUI's clock charges beyond the engine's search: learnt from successive clocks.

A Hub GUI (or ``samuel match``) charges a move from when it sent ``go`` to when it read ``done``:
the search plus everything around it (the pipe, the session, a starved process waiting for a
core).  On a loaded machine that outside part reached 0.1-0.2 s a move, more than the default
margin (0.02 s), and at a low clock it is what makes the flag fall.  The next ``level`` tells
how much was charged (the clock before, less the clock now, plus the increment); less the
search's own time, that is the lag.  The margin for the next searches is the default plus the
largest lag of the last few moves.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, replace

from engine.limits import Limit

WINDOW = 8
"""Moves whose lags are remembered: the margin follows the largest of them."""
MAX_LAG = 2.0
"""A larger "lag" is no lag (a clock changed by hand, a take-back): not learnt."""


@dataclass(frozen=True)
class _Move:
    clock: float
    inc: float
    moves_to_go: int | None
    searched: float


class LagMeter:
    """One session's lag; ``reset`` at a new game."""

    def __init__(self) -> None:
        self._lags: deque[float] = deque(maxlen=WINDOW)
        self._last: _Move | None = None

    def reset(self) -> None:
        self._lags.clear()
        self._last = None

    @property
    def lag(self) -> float:
        """The largest lag of the last moves (0 before any is known)."""
        return max(self._lags, default=0.0)

    def limit(self, level: Limit) -> Limit:
        """``level`` with its margin raised by the lag, learnt from its clock and the last move's."""
        if level.time is None:
            self._last = None
            return level
        last, self._last = self._last, None
        inc = level.inc or 0.0
        same_period = last is not None and (
            (last.moves_to_go is None and level.moves_to_go is None)
            or (last.moves_to_go is not None and level.moves_to_go == last.moves_to_go - 1))
        if last is not None and same_period and inc == last.inc:
            charged = last.clock - level.time + inc
            lag = charged - last.searched
            if -0.05 <= lag <= MAX_LAG:
                self._lags.append(max(0.0, lag))
        return replace(level, margin=level.margin + self.lag) if self._lags else level

    def searched(self, level: Limit, seconds: float) -> None:
        """The search for ``level`` (clocked, timed from go) took ``seconds`` in the search itself."""
        if level.time is not None:
            self._last = _Move(level.time, level.inc or 0.0, level.moves_to_go, seconds)
