"""The server's memory budget for transposition tables, shared by all its sessions.

Each session may choose its own table size, but one process serves up to
``--max-sessions`` clients: without a common ceiling a handful of clients asking
for 4 GB each would exhaust the machine.  Sessions reserve their table's size
here before allocating it and give it back when they shrink or close.
"""

from __future__ import annotations

import os
import threading

from engine.errors import OptionError

MIN_BUDGET_MB = 64
BUDGET_FRACTION = 4
"""The default budget is one quarter of physical memory: room for the OS, the
search threads and other programs, and never enough for tables to swap."""


def physical_memory_mb() -> int | None:
    """Installed memory in MB (sysconf, else /proc/meminfo), or None where the platform does not say."""
    try:
        pages = os.sysconf("SC_PHYS_PAGES")
        size = os.sysconf("SC_PAGE_SIZE")
        if pages > 0 and size > 0:
            return int(pages * size) >> 20
    except (ValueError, OSError, AttributeError):
        pass
    return _meminfo_mb()


def _meminfo_mb(path: str = "/proc/meminfo") -> int | None:
    """MemTotal from /proc/meminfo in MB, or None."""
    try:
        with open(path, encoding="ascii") as fh:
            for line in fh:
                name, _, rest = line.partition(":")
                if name == "MemTotal":
                    kib = int(rest.split()[0])
                    return kib >> 10 if kib > 0 else None
    except (OSError, ValueError, IndexError):
        return None
    return None


def default_budget_mb() -> int:
    total = physical_memory_mb()
    if total is None:
        return 1024
    return max(MIN_BUDGET_MB, total // BUDGET_FRACTION)


class HashBudgetError(OptionError):
    """A table size the server's budget cannot hold; says what is left."""


class HashBudget:
    """Megabytes of table memory, reserved per owner (a session); thread-safe."""

    def __init__(self, total_mb: int) -> None:
        if total_mb < 1:
            raise ValueError(f"hash budget must be at least 1 MB, got {total_mb}")
        self.total_mb = int(total_mb)
        self._held: dict[int, int] = {}
        self._used = 0
        """The sum of ``_held``, kept as it changes: every search reserves (twice with search
        processes), and summing over every session each time grew with the sessions."""
        self._lock = threading.Lock()

    @property
    def used_mb(self) -> int:
        with self._lock:
            return self._used

    def free_for(self, owner: object) -> int:
        """MB that ``owner`` could hold in all (its own reservation counts as free)."""
        with self._lock:
            return self._free_for(id(owner))

    def _free_for(self, key: int) -> int:
        return self.total_mb - (self._used - self._held.get(key, 0))

    def check(self, owner: object, mb: int) -> None:
        """HashBudgetError when ``owner`` could not hold ``mb`` now."""
        with self._lock:
            self._require(id(owner), mb)

    def _require(self, key: int, mb: int) -> None:
        free = self._free_for(key)
        if mb > free:
            raise HashBudgetError(
                f"hash {mb} MB refused: {max(free, 0)} MB of the server's {self.total_mb} MB "
                f"table budget is free"
            )

    def reserve(self, owner: object, mb: int) -> None:
        """Set ``owner``'s reservation to ``mb``; HashBudgetError (nothing changed) when it does not fit."""
        with self._lock:
            key = id(owner)
            mb = int(mb)
            old = self._held.get(key, 0)
            if mb == old and key in self._held:
                return  # as held already (each search asks again)
            self._require(key, mb)
            self._held[key] = mb
            self._used += mb - old

    def release(self, owner: object) -> None:
        with self._lock:
            self._used -= self._held.pop(id(owner), 0)
