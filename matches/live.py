"""The live view of a running tournament: progress, standings, the SPRT and the games in play.

``LiveView`` wraps ``rich.live.Live`` around a console (usually stderr).  The
runner hands it new standings when a game ends and the games in progress when
they change; the view redraws a few times a second on its own, so the clocks
tick between updates.  On a console that is not a terminal (a CI log, a pipe)
rich draws nothing while the view runs and prints the final state once when it
closes, so logs are not flooded.

``render`` builds the same picture as one renderable, for tests and for
printing a snapshot.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import cast

from rich.console import Console, ConsoleOptions, Group, JustifyMethod, RenderableType, RenderResult
from rich.live import Live
from rich.table import Table
from rich.text import Text

from matches.standings import EngineStanding, Standings

MAX_RUNNING = 8
"""Games in progress listed at most (the rest are counted)."""
BAR_WIDTH = 40


@dataclass
class RunningGame:
    """A game being played, as the live view lists it."""

    game_id: str
    black: str
    white: str
    opening: str
    plies: int
    started: float
    """``time.monotonic()`` when it started."""


def format_duration(seconds: float | None) -> str:
    """``1:02:03``, ``2:03`` or ``-`` when unknown."""
    if seconds is None or math.isnan(seconds) or seconds < 0:
        return "-"
    s = round(seconds)
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def format_elo(s: EngineStanding) -> str:
    """``+12.3 ± 8.1``, or ``-`` while the engine is unrated."""
    if math.isnan(s.elo):
        return "-"
    margin = "" if math.isnan(s.margin) or math.isinf(s.margin) else f" ± {s.margin:.1f}"
    return f"{s.elo:+.1f}{margin}"


def format_nelo(value: float | None) -> str:
    return "-" if value is None or math.isnan(value) else f"{value:+.1f}"


def format_ptnml(counts: Sequence[int]) -> str:
    return "[" + ", ".join(str(c) for c in counts) + "]"


def sprt_percent(llr: float, lower: float, upper: float) -> float:
    """How far the LLR has gone towards the bound it is heading for (cutechess's percentage)."""
    if llr >= 0:
        return 100 * llr / upper if upper else 0.0
    return 100 * llr / lower if lower else 0.0


def progress_line(standings: Standings, *, elapsed: float | None = None,
                  eta: float | None = None) -> Text:
    """``games 12/100 (12%)  3.4 games/min  elapsed 3:32  ETA 25:53``."""
    done, total = standings.games_done, standings.games_total
    text = Text("games ", style="bold")
    if total:
        text.append(f"{done}/{total} ({100 * done / total:.0f}%)")
    else:
        text.append(str(done))
    text.append(f"  {standings.games_per_minute:.1f} games/min")
    text.append(f"  elapsed {format_duration(standings.elapsed if elapsed is None else elapsed)}")
    if total is not None:
        text.append(f"  ETA {format_duration(standings.eta_seconds if eta is None else eta)}")
    return text


STANDINGS_COLUMNS: tuple[tuple[str, str], ...] = (
    ("#", "right"), ("engine", "left"), ("games", "right"), ("points", "right"), ("score", "right"),
    ("W/D/L", "right"), ("draw", "right"), ("Elo ± (95%)", "right"), ("nElo", "right"),
    ("Ptnml(0-2)", "right"), ("T/O", "right"), ("crash/stall/illegal", "right"),
)
"""The standings table's columns: header and justification."""


def standings_cells(rank: int, s: EngineStanding) -> list[str]:
    """One engine's row of the standings table as text, a cell per ``STANDINGS_COLUMNS``
    (the figures every live view shows: the terminal's and the spectators' page)."""
    return [
        str(rank), s.name, str(s.games), f"{s.points:g}", f"{100 * s.score:.1f}%" if s.games else "-",
        f"{s.wins}/{s.draws}/{s.losses}", f"{100 * s.draw_ratio:.0f}%" if s.games else "-",
        format_elo(s), format_nelo(s.nelo), format_ptnml(s.pentanomial), str(s.time_forfeits),
        f"{s.crashes}/{s.stalls}/{s.illegal_moves + s.protocol_errors}",
    ]


def standings_table(standings: Standings) -> Table:
    """The ranked table: one row per engine."""
    table = Table(show_edge=False, pad_edge=False, header_style="bold")
    for header, justify in STANDINGS_COLUMNS:
        table.add_column(header, justify=cast(JustifyMethod, justify), no_wrap=True)
    for rank, s in enumerate(standings.engines, 1):
        cells: list[str | Text] = list(standings_cells(rank, s))
        cells[1] = Text(s.name, style="bold")
        cells[-2] = Text(str(cells[-2]), style="red" if s.time_forfeits else "")
        cells[-1] = Text(str(cells[-1]), style="red" if s.faults else "")
        table.add_row(*cells)
    return table


def llr_bar(llr: float, lower: float, upper: float, width: int = BAR_WIDTH) -> Text:
    """The LLR as a marker on a bar from the lower (H0) to the upper (H1) bound, 0 marked."""
    span = upper - lower
    def column(x: float) -> int:
        return min(max(round((x - lower) / span * (width - 1)), 0), width - 1) if span > 0 else 0
    cells = ["─"] * width
    cells[column(0.0)] = "┼"
    at = column(llr)
    text = Text(f"{lower:+.2f} ", style="red")
    for i, cell in enumerate(cells):
        if i == at:
            text.append("●", style="bold yellow")
        else:
            text.append(cell, style="red" if i < column(0.0) else "green")
    text.append(f" {upper:+.2f}", style="green")
    return text


def sprt_lines(standings: Standings) -> Group | None:
    """The SPRT's bar and numbers, or None when there is no SPRT."""
    st = standings.sprt
    head = sprt_head(standings)
    if st is None or head is None:
        return None
    return Group(head, llr_bar(st.llr, st.lower, st.upper))


def sprt_head(standings: Standings) -> Text | None:
    """``LLR +1.23 (42%)  bounds [-2.94, +2.94]  running, ...``, or None when there is no SPRT."""
    st = standings.sprt
    if st is None:
        return None
    head = Text("LLR ", style="bold")
    head.append(f"{st.llr:+.2f} ({sprt_percent(st.llr, st.lower, st.upper):.0f}%)  ")
    head.append(f"bounds [{st.lower:+.2f}, {st.upper:+.2f}]  ")
    if st.decision == "H1":
        head.append("H1 accepted", style="bold green")
    elif st.decision == "H0":
        head.append("H0 accepted", style="bold red")
    else:
        head.append("running")
        if st.expected_remaining is not None and math.isfinite(st.expected_remaining):
            head.append(f", about {st.expected_remaining:.0f} more games expected")
    return head


def running_table(running: Sequence[RunningGame], now: float) -> Table | None:
    """The games in progress (at most ``MAX_RUNNING``), longest-running first."""
    if not running:
        return None
    table = Table(show_edge=False, pad_edge=False, show_header=True, header_style="dim", box=None)
    for header in ("game", "black", "white", "opening", "ply", "time"):
        table.add_column(header, no_wrap=True, justify="right" if header in ("ply", "time") else "left")
    games = sorted(running, key=lambda g: g.started)
    for g in games[:MAX_RUNNING]:
        table.add_row(Text(g.game_id), Text(g.black), Text(g.white), Text(g.opening), str(g.plies),
                      format_duration(now - g.started))
    if len(games) > MAX_RUNNING:
        table.add_row(f"… {len(games) - MAX_RUNNING} more", "", "", "", "", "")
    return table


def render(standings: Standings, running: Sequence[RunningGame] = (), *, title: str = "",
           now: float | None = None, since_update: float = 0.0) -> RenderableType:
    """The whole live picture.  ``since_update`` seconds are added to the elapsed time (and taken off the
    ETA) so the clocks tick between two sets of standings; ``now`` is ``time.monotonic()`` by default."""
    now = time.monotonic() if now is None else now
    eta = standings.eta_seconds
    if eta is not None:
        eta = max(eta - since_update, 0.0)
    parts: list[RenderableType] = []
    if title:
        parts.append(Text(title, style="bold underline"))
    parts.append(progress_line(standings, elapsed=standings.elapsed + since_update, eta=eta))
    parts.append(standings_table(standings))
    sprt = sprt_lines(standings)
    if sprt is not None:
        parts.append(sprt)
    games = running_table(running, now)
    if games is not None:
        parts.append(Text(f"in progress: {len(running)}", style="bold"))
        parts.append(games)
    return Group(*parts)


class _Picture:
    """Rebuilt at every refresh from the view's latest state, so the clocks move."""

    def __init__(self, view: LiveView) -> None:
        self.view = view

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.view.renderable()


class LiveView:
    """A context manager showing a tournament live on ``console``.

    >>> with LiveView(Console(stderr=True), title="round-robin: a, b, c") as view:  # doctest: +SKIP
    ...     view.update(standings, running)
    """

    def __init__(self, console: Console, *, title: str = "", refresh_per_second: float = 4.0) -> None:
        self.console = console
        self.title = title
        self._standings: Standings | None = None
        self._running: list[RunningGame] = []
        self._updated = time.monotonic()
        terminal = console.is_terminal and not console.is_dumb_terminal
        self._live = Live(
            _Picture(self), console=console, refresh_per_second=refresh_per_second,
            auto_refresh=terminal, transient=False, redirect_stdout=terminal, redirect_stderr=terminal,
        )

    def __enter__(self) -> LiveView:
        self._live.start(refresh=self._standings is not None)
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._live.stop()

    def update(self, standings: Standings | None = None,
               running: Sequence[RunningGame] | None = None) -> None:
        """New standings (after a game ends) and/or the games now in progress."""
        if standings is not None:
            self._standings = standings
            self._updated = time.monotonic()
        if running is not None:
            self._running = list(running)

    def renderable(self) -> RenderableType:
        """What the view shows now."""
        if self._standings is None:
            return Text(f"{self.title}: starting…" if self.title else "starting…")
        # The clocks tick while games are in play; at the end the standings' own time stands.
        since = time.monotonic() - self._updated if self._running else 0.0
        return render(self._standings, self._running, title=self.title, since_update=since)
