"""Limit: how long or how deep a search may go."""

from __future__ import annotations

from dataclasses import dataclass

from engine.errors import LimitError


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
        # Zero depth, nodes or move time would silently mean "no limit" in the core.
        for name in ("depth", "nodes", "moves_to_go", "movetime"):
            v = getattr(self, name)
            if v is not None and v <= 0:
                raise LimitError(f"Limit.{name} must be > 0, got {v}")
        for name in ("time", "inc", "margin"):
            v = getattr(self, name)
            if v is not None and v < 0:
                raise LimitError(f"Limit.{name} must be >= 0, got {v}")

    @property
    def infinite(self) -> bool:
        return all(
            getattr(self, n) is None for n in ("depth", "nodes", "movetime", "time")
        )
