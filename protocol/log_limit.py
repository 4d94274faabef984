"""Rate-limited logging of bad input: the first few lines of a session in full, then counts.

A client that sends junk as fast as it can would otherwise put a log line (often
with raw bytes) on disk for every frame, and make the log useless for the others.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

FIRST = 5
"""Bad-input lines of one session logged in full."""
SUMMARY_EVERY = 60.0
"""Seconds between the summary lines that count what was not logged."""


class LogLimiter:
    """One session's bad-input log: ``FIRST`` lines, then a count at most every ``every`` seconds.

    ``close`` logs what is still uncounted, so the total is never lost.  At most
    ``first + 1 + duration / every`` lines reach the log, however much junk arrives.
    """

    def __init__(self, logger: logging.Logger, *, first: int = FIRST, every: float = SUMMARY_EVERY,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._logger = logger
        self._first = first
        self._every = every
        self._clock = clock
        self.seen = 0
        self._unlogged = 0
        self._level = logging.INFO
        self._last_summary = clock()

    def log(self, level: int, msg: str, *args: object) -> None:
        self.seen += 1
        if self.seen <= self._first:
            self._logger.log(level, msg, *args)
            if self.seen == self._first:
                self._last_summary = self._clock()
            return
        self._unlogged += 1
        self._level = max(self._level, level)
        if self._clock() - self._last_summary >= self._every:
            self._summary()

    def warning(self, msg: str, *args: object) -> None:
        self.log(logging.WARNING, msg, *args)

    def info(self, msg: str, *args: object) -> None:
        self.log(logging.INFO, msg, *args)

    def close(self) -> None:
        if self._unlogged:
            self._summary()

    def _summary(self) -> None:
        self._logger.log(self._level, "%d more bad-input lines from this session not logged (%d in all)",
                         self._unlogged, self.seen)
        self._unlogged = 0
        self._level = logging.INFO
        self._last_summary = self._clock()
