"""Time controls and game clocks, in cutechess-cli's terms.

    st=0.1            0.1 s per move
    tc=60+0.5         60 s per game, 0.5 s added after every move
    tc=40/60+0.6      60 s for every 40 moves (the clock is refilled at 40, 80...)
    tc=1:30+1         the time as m:ss
    tc=inf            no game clock (with depth= or nodes=)
    depth=6 nodes=20000 timemargin=0.1

Pieces are separated by commas or spaces; a piece without ``key=`` is a
``tc``.  Times are seconds (``100ms`` is also accepted: cutechess gives
``timemargin`` in milliseconds, and a bare ``timemargin=100`` here would be
100 s).  A ``Clock`` runs one side's time control in one game: it hands the
engine its ``Limit``, says how long a move may take before the flag falls,
and books each move.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, fields
from typing import Any

from engine.limits import Limit

DEFAULT_MARGIN = 0.05
"""Seconds an engine may run over its time before it loses on time."""

CLOCK_FIELDS = frozenset({"movetime", "base", "inc", "moves"})
"""One unit when merging: an engine's own ``st=`` or ``tc=`` replaces the whole default clock."""
_VALUE_FIELDS = ("movetime", "base", "inc", "moves", "depth", "nodes", "margin")

_TC_RE = re.compile(r"^(?:(?P<moves>[^/+]+)/)?(?P<base>[^/+]+)(?:\+(?P<inc>[^/+]+))?$")


@dataclass(frozen=True)
class TimeControl:
    """How long (or how deep) an engine may think, per move and per game."""

    movetime: float | None = None
    """``st=SECONDS``: a fixed time per move."""
    base: float | None = None
    """Seconds per game, or per period when ``moves`` is set."""
    inc: float = 0.0
    """Seconds added after each move (Fischer increment)."""
    moves: int | None = None
    """Moves per period (a repeating control such as 40/60)."""
    depth: int | None = None
    """``depth=PLIES``."""
    nodes: int | None = None
    """``nodes=N``."""
    margin: float = DEFAULT_MARGIN
    """``timemargin``: seconds an engine may run over before it loses on time."""
    given: frozenset[str] = field(default=frozenset(), compare=False, repr=False)
    """The fields this control states (``parse`` fills it), so ``merged`` can tell an explicit
    ``timemargin=0.05`` or ``tc=inf`` from an absent one.  Empty: every non-default field."""

    def __post_init__(self) -> None:
        problem = _problem({f: getattr(self, f) for f in _VALUE_FIELDS}) or _unknown(self.given)
        if problem:
            raise ValueError(f"time control {self.describe()!r}: {problem}")

    # ---- reading ----

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """A control from cutechess-style pieces; ValueError naming the bad piece."""
        pieces = [p for p in re.split(r"[,\s]+", text.strip()) if p]
        if not pieces:
            raise ValueError("empty time control; give st=S, tc=[MOVES/]TIME[+INC], depth=N or nodes=N")
        values: dict[str, Any] = {}
        for piece in pieces:
            try:
                _parse_piece(piece, values)
            except ValueError as exc:
                where = "" if piece == text.strip() else f" (in {text.strip()!r})"
                raise ValueError(f"time control {piece!r}{where}: {exc}") from None
        given = frozenset(values)
        if "movetime" in values or "base" in values:
            # A clock piece states the whole clock: tc=60 means no increment, st= means no game time.
            given |= CLOCK_FIELDS
        problem = _problem({**_DEFAULTS, **values})
        if problem:
            raise ValueError(f"time control {text.strip()!r}: {problem}")
        return cls(**values, given=given)

    # ---- combining and showing ----

    def _stated(self) -> frozenset[str]:
        if self.given:
            return self.given
        stated = {f for f in _VALUE_FIELDS if getattr(self, f) != _DEFAULTS[f]}
        if stated & CLOCK_FIELDS:
            stated |= CLOCK_FIELDS
        return frozenset(stated)

    def merged(self, other: TimeControl | None) -> TimeControl:
        """``other`` (an engine's own control) on top of this default: the fields it states win.

        The clock (``st``/``tc`` with its increment and period) is replaced as a unit, so an
        engine given ``st=0.5`` under a default ``tc=60+1`` has no game clock.
        """
        if other is None:
            return self
        mine, theirs = self._stated(), other._stated()
        values = {f: getattr(other if f in theirs else self, f) for f in _VALUE_FIELDS}
        return TimeControl(**values, given=mine | theirs)

    @property
    def bounded(self) -> bool:
        """Something ends each search: a move time, a clock, a depth or a node count."""
        return any(v is not None for v in (self.movetime, self.base, self.depth, self.nodes))

    def describe(self) -> str:
        """Short form for people and the PDN ``TimeControl`` tag: ``st=0.1``, ``40/60+0.5``, ``depth=6``."""
        parts: list[str] = []
        if self.movetime is not None:
            parts.append(f"st={_num(self.movetime)}")
        if self.base is not None:
            clock = f"{self.moves}/" if self.moves is not None else ""
            clock += _num(self.base)
            if self.inc:
                clock += f"+{_num(self.inc)}"
            parts.append(clock)
        if self.depth is not None:
            parts.append(f"depth={self.depth}")
        if self.nodes is not None:
            parts.append(f"nodes={self.nodes}")
        return ", ".join(parts) or "inf"

    def __str__(self) -> str:
        return self.describe()

    def to_dict(self) -> dict[str, Any]:
        """The stated fields only (so ``from_dict`` gives back a control that merges the same)."""
        return {f: getattr(self, f) for f in _VALUE_FIELDS if f in self._stated()}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TimeControl:
        unknown = set(d) - set(_VALUE_FIELDS)
        if unknown:
            raise ValueError(f"time control: unknown fields {sorted(unknown)}")
        return cls(**d, given=frozenset(d))


_DEFAULTS: dict[str, Any] = {f.name: f.default for f in fields(TimeControl)}


def _problem(v: dict[str, Any]) -> str | None:
    """What is wrong with these field values, or None."""
    for name in ("movetime", "base", "moves", "depth", "nodes"):
        x = v[name]
        if x is not None and not (x > 0 and math.isfinite(x)):
            return f"{name} {x} is out of range (more than 0)"
    for name in ("inc", "margin"):
        x = v[name]
        if not (x >= 0 and math.isfinite(x)):
            return f"{name} {x} is out of range (0 or more)"
    if v["movetime"] is not None and v["base"] is not None:
        return "st= (time per move) and tc= (time per game) cannot be combined"
    if v["base"] is None and (v["inc"] or v["moves"] is not None):
        return "an increment or moves per period need a game time (tc=[MOVES/]TIME+INC)"
    return None


def _unknown(given: frozenset[str]) -> str | None:
    extra = given - set(_VALUE_FIELDS)
    return f"unknown fields {sorted(extra)}" if extra else None


def _num(x: float) -> str:
    return f"{x:g}"


def _seconds(text: str, what: str) -> float:
    """Seconds from ``12.5``, ``1:30`` (m:ss), ``1:02:03`` or ``250ms``."""
    t = text.strip().lower()
    scale = 1.0
    if t.endswith("ms"):
        t, scale = t[:-2], 0.001
    elif t.endswith("s"):
        t = t[:-1]
    try:
        parts = [float(p) for p in t.split(":")]
    except ValueError:
        raise ValueError(f"{what} {text!r} is not a number of seconds") from None
    if len(parts) > 3 or any(not math.isfinite(p) for p in parts):
        raise ValueError(f"{what} {text!r} is not a number of seconds")
    value = 0.0
    for p in parts:
        value = value * 60 + p
    return value * scale


def _positive(value: float, what: str, text: str) -> float:
    if value <= 0:
        raise ValueError(f"{what} {text} is out of range (more than 0)")
    return value


def _count(text: str, what: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise ValueError(f"{what} {text!r} is not a whole number") from None
    if n <= 0:
        raise ValueError(f"{what} {text} is out of range (more than 0)")
    return n


def _parse_tc(text: str, values: dict[str, Any]) -> None:
    if text.strip().lower() in ("inf", "infinite"):
        values.update(base=None, inc=0.0, moves=None)
        return
    m = _TC_RE.match(text.strip())
    if not m:
        raise ValueError("expected [MOVES/]TIME[+INC] (e.g. 40/60+0.5, 1:30+1) or inf")
    values["base"] = _positive(_seconds(m["base"], "time"), "the game time", m["base"])
    values["inc"] = _seconds(m["inc"], "increment") if m["inc"] else 0.0
    if values["inc"] < 0:
        raise ValueError(f"the increment {m['inc']} is out of range (0 or more)")
    values["moves"] = _count(m["moves"], "moves per period") if m["moves"] else None


def _parse_piece(piece: str, values: dict[str, Any]) -> None:
    key, sep, value = piece.partition("=")
    if not sep:
        key, value = "tc", piece
    key = key.strip().lower()
    if not value.strip():
        raise ValueError(f"{key}= needs a value")
    if key in ("st", "movetime"):
        values["movetime"] = _positive(_seconds(value, "move time"), "the move time", value)
    elif key == "tc":
        _parse_tc(value, values)
    elif key == "depth":
        values["depth"] = _count(value, "depth")
    elif key == "nodes":
        values["nodes"] = _count(value, "nodes")
    elif key == "timemargin":
        margin = _seconds(value, "timemargin")
        if margin < 0:
            raise ValueError(f"timemargin={value} is out of range (0 or more)")
        values["margin"] = margin
    else:
        raise ValueError(f"unknown key {key!r}; use st=, tc=, depth=, nodes= or timemargin=")


class Clock:
    """One side's clock in one game."""

    def __init__(self, tc: TimeControl) -> None:
        self.tc = tc
        self.remaining: float | None = tc.base
        """Seconds left on the game clock; None when there is no game clock."""
        self.moves_made = 0
        self.used = 0.0
        """Seconds spent on all moves so far."""

    @property
    def moves_to_go(self) -> int | None:
        """Moves left in the current period (None without periods)."""
        if self.tc.moves is None or self.remaining is None:
            return None
        return self.tc.moves - self.moves_made % self.tc.moves

    def limit(self) -> Limit:
        """The engine's limit for this move: move time, or clock and increment, plus depth/nodes."""
        tc = self.tc
        clocked = self.remaining is not None
        return Limit(
            depth=tc.depth,
            nodes=tc.nodes,
            movetime=tc.movetime,
            time=max(0.0, self.remaining) if self.remaining is not None else None,
            inc=tc.inc if clocked else None,
            moves_to_go=self.moves_to_go,
        )

    def allowed(self) -> float | None:
        """Seconds this move may take before it is a time loss; None when untimed (depth/nodes only)."""
        if self.tc.movetime is not None:
            return self.tc.movetime + self.tc.margin
        if self.remaining is not None:
            return max(0.0, self.remaining) + self.tc.margin
        return None

    def charge(self, elapsed: float) -> bool:
        """Book a move that took ``elapsed`` seconds; False when the flag fell.

        The flag is judged before the increment is added (as cutechess does); a
        period's time is added when its last move is made.
        """
        allowed = self.allowed()
        ok = allowed is None or elapsed <= allowed
        self.moves_made += 1
        self.used += elapsed
        if self.remaining is not None:
            self.remaining -= elapsed
            if self.tc.moves is not None and self.moves_made % self.tc.moves == 0:
                assert self.tc.base is not None
                self.remaining += self.tc.base
            self.remaining += self.tc.inc
        return ok
