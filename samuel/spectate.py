"""Watching a match or a tournament from a browser (``--web-port``).

The tournament's game events and standings feed ``protocol.spectator_feed``, which a
``protocol.web_server.WebServer`` serves with the live page (``protocol/web/live.html``) on the
tournament's own event loop, for as long as it runs.  The page shows the games in progress move
by move (when the executor reports moves: the local pool does, Ray does not) and the standings
the terminal's live view shows.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from engine.errors import SamuelError
from matches.game_events import GameEvent, GameFinished, GameStarted, MoveEvent
from matches.live import STANDINGS_COLUMNS, progress_line, sprt_head, standings_cells
from matches.standings import Standings
from matches.tournament import Progress, Tournament
from protocol.spectator_feed import INBOUND_PER_SECOND, MAX_INBOUND, SpectatorFeed

PAGES = {"/": "live.html", "/live.js": "live.js", "/live.css": "live.css"}
"""URL path -> file in ``protocol/web/``."""
SOCKET = "/live"
FLUSH_SECONDS = 2.0
"""How long the last messages (the final standings) may take to reach the spectators at the end."""


class SpectatingError(SamuelError):
    """The spectators' page cannot be served (its port is taken, say)."""


def standings_parts(standings: Standings) -> tuple[list[str], list[list[str]], list[str]]:
    """The standings as the page shows them: the columns, a row per engine, and the lines under
    them (progress, and the SPRT's when there is one) — the figures of the terminal's live view."""
    columns = [header for header, _ in STANDINGS_COLUMNS]
    rows = [standings_cells(rank, s) for rank, s in enumerate(standings.engines, 1)]
    lines = [progress_line(standings).plain]
    sprt = sprt_head(standings)
    if sprt is not None:
        lines.append(sprt.plain)
    return columns, rows, lines


class Spectating:
    """Tells ``feed`` what the tournament tells: its ``on_game`` and ``on_progress``."""

    def __init__(self, feed: SpectatorFeed) -> None:
        self.feed = feed
        self._standings: Standings | None = None

    def on_game(self, event: GameEvent) -> None:
        feed = self.feed
        if isinstance(event, MoveEvent):
            feed.move(event.game_id, move=event.move_pdn, path=event.move.path, fen=event.fen_after,
                      ply=event.plies, clocks=event.clocks, seconds=event.seconds)
        elif isinstance(event, GameStarted):
            if feed.live:  # without its moves, a board would stand still at the opening
                s = event.spec
                feed.start_game(event.game_id, black=s.black, white=s.white, opening=s.opening_label,
                                start_fen=event.start_fen, book=event.opening_moves, fen=event.fen,
                                clocks=event.clocks)
        elif isinstance(event, GameFinished):
            s = event.spec
            feed.end_game(event.game_id, result=event.result, reason=event.reason, black=s.black,
                          white=s.white, opening=s.opening_label, plies=event.plies)

    def on_progress(self, progress: Progress) -> None:
        if progress.standings is not self._standings:  # new standings come only when a game ends
            self._standings = progress.standings
            self.feed.set_standings(*standings_parts(progress.standings))
        if progress.finished is not None:
            self.feed.set_status(progress.finished)


async def run_watched(tournament: Tournament, host: str, port: int, announce: Callable[[str], None]) -> str:
    """``tournament.run()`` with its games and standings served to browsers at ``host:port``
    (0: a free port); ``announce(url)`` once the page is up.  Returns why the tournament ended."""
    from protocol.web_server import WebServer

    feed = SpectatorFeed(tournament.config.name, live=tournament.reports_moves,
                         loop=asyncio.get_running_loop())
    spectating = Spectating(feed)
    shown = tournament.on_progress

    def on_progress(progress: Progress) -> None:
        if shown is not None:
            shown(progress)
        spectating.on_progress(progress)

    tournament.on_progress = on_progress
    tournament.on_game = spectating.on_game
    spectating.on_progress(Progress(tournament.records, [], tournament.total, 0.0, tournament.standings))
    server = WebServer(host, port, pages=PAGES, sockets={SOCKET: feed.serve}, max_message=MAX_INBOUND,
                       flood_burst=2 * INBOUND_PER_SECOND, flood_rate=INBOUND_PER_SECOND)
    try:
        await server.start()
    except OSError as exc:
        raise SpectatingError(f"--web-port {port}: {exc.strerror or exc}") from None
    announce(server.url)
    try:
        return await tournament.run()
    finally:
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.shield(feed.flush()), FLUSH_SECONDS)
        await server.close()
