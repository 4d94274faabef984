"""Limit: how long or how deep a search may go."""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.errors import LimitError

MAX_DEPTH = 10_000
"""Deepest depth accepted (the core stops iterating at its own ply cap, 124, long before)."""
MAX_NODES = 2**63 - 1
"""The core counts nodes in a signed 64-bit integer."""
MAX_MOVES_TO_GO = 10_000
MAX_SECONDS = 1e7
"""About 115 days: longer than any game, short enough to stay exact in milliseconds."""


@dataclass(frozen=True)
class Limit:
    """Search limits; any combination may be given, the first one reached stops the search.

    Times are in seconds.  ``time``/``inc`` are the clock of the side to move.
    With nothing set, the search runs until stopped (or to the depth cap).
    """

    depth: int | None = None
    """Maximum depth in plies (for the Samuel mode: the minimum ply)."""
    nodes: int | None = None
    """Maximum number of nodes."""
    movetime: float | None = None
    """Exact time for this move."""
    time: float | None = None
    """Remaining time on the clock of the side to move."""
    inc: float | None = None
    """Increment per move."""
    moves_to_go: int | None = None
    """Moves until the next time control, if any."""
    margin: float = 0.02
    """Seconds kept back for overhead, so the clock never runs out."""

    def __post_init__(self) -> None:
        # Zero depth, nodes or move time would silently mean "no limit" in the core, and a
        # value past the core's integer types would fail deep inside it: refuse both here,
        # so every caller (command line, protocols, matches) gets the same named error.
        for name, high in (("depth", MAX_DEPTH), ("nodes", MAX_NODES), ("moves_to_go", MAX_MOVES_TO_GO)):
            v = getattr(self, name)
            if v is None:
                continue
            if isinstance(v, bool) or not isinstance(v, int):
                raise LimitError(f"Limit.{name} must be a whole number, got {v!r}")
            if not 1 <= v <= high:
                raise LimitError(f"Limit.{name}: {v} is out of range (1..{high})")
        for name in ("movetime", "time", "inc", "margin"):
            v = getattr(self, name)
            if v is None:
                continue
            if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v):
                raise LimitError(f"Limit.{name} must be a finite number of seconds, got {v!r}")
            if name == "movetime" and v <= 0:
                raise LimitError(f"Limit.movetime: {v:g} is out of range (more than 0 s)")
            if v < 0:
                raise LimitError(f"Limit.{name}: {v:g} is out of range (0 s or more)")
            if v > MAX_SECONDS:
                raise LimitError(f"Limit.{name}: {v:g} is out of range (0..{MAX_SECONDS:g} s)")

    @property
    def infinite(self) -> bool:
        return all(
            getattr(self, n) is None for n in ("depth", "nodes", "movetime", "time")
        )
