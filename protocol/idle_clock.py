"""IdleClock: closes a session whose client has been silent for too long.

A session task reads its client's lines one after another; the clock is a timer, re-armed
after every line, that cancels the task when it fires while the task waits for a line (a
reading task plus an ``asyncio.wait`` per line cost the event loop more than the rest of a
short line's work).  The task then sees ``CancelledError`` with ``expired`` set, says why it
closes, and ends.  Elsewhere (handling a line, draining a write) it is never cancelled: the
next read re-arms the clock.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


class IdleClock:
    """The idle timeout of the current task; ``None`` never fires (a GUI on stdin may idle for hours)."""

    def __init__(self, timeout: float | None) -> None:
        self.timeout = timeout
        self.expired = False
        """The clock fired: the task's CancelledError is the idle timeout, not a shutdown."""
        self._task = asyncio.current_task()
        self._timer: asyncio.TimerHandle | None = None
        self._reading = False
        self._stopped = False

    def arm(self, extra: float = 0.0) -> None:
        """Start the clock afresh (stopping it first if it runs), ``extra`` seconds longer than the
        timeout (the time a running search may still take); nothing once ``stop``ped."""
        self.disarm()
        if self.timeout is not None and not self._stopped and self._task is not None:
            self._timer = asyncio.get_running_loop().call_later(self.timeout + max(0.0, extra), self._fire)

    def disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def stop(self) -> None:
        """The session ends: disarm for good (a search that ends later must not re-arm a timer
        that would hold the session for the whole timeout)."""
        self._stopped = True
        self.disarm()

    async def read(self, line: Awaitable[T]) -> T:
        """Await ``line`` (the read of the next line); the only wait the clock may cut short."""
        self._reading = True
        try:
            return await line
        finally:
            self._reading = False

    def _fire(self) -> None:
        self._timer = None
        if self._task is not None and self._reading:
            self.expired = True
            self._task.cancel()
