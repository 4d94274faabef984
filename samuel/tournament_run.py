"""Running ``samuel match`` and ``samuel tournament``: settings, the live view, the report.

Kept out of ``samuel.commands.tournament`` so that parsing the command line of
any ``samuel`` command does not import the whole match runner.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as _dt
import math
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console

from engine.errors import SamuelError
from matches.defaults import DEFAULT_MAXMOVES, DEFAULT_TC
from matches.engines import EngineSpec, load_engines_toml, parse_engine
from matches.live import LiveView, RunningGame
from matches.player import EngineStartError
from matches.ratings import SprtConfig
from matches.referee import Adjudication, GameRules
from matches.report import render_markdown, render_text
from matches.store import TournamentStore
from matches.timecontrol import TimeControl
from matches.tournament import Progress, Tournament, TournamentConfig
from samuel.spectate import SpectatingError, run_watched


class TournamentError(SamuelError):
    """The tournament's settings are wrong (named), or its directory cannot be used."""


SETTING_KEYS = {
    "format", "seeds", "openings", "shuffle", "openings_start", "openings_limit", "rounds", "tc", "maxmoves",
    "draw", "resign", "stall_timeout", "untimed_timeout", "concurrency", "executor", "ray_address", "out",
    "event", "bootstrap", "rating_seed", "sprt", "each",
}


def _setting(args: argparse.Namespace, settings: dict[str, Any], key: str, default: Any) -> Any:
    value = getattr(args, key, None)
    if value is not None:
        return value
    return settings.get(key, default)


def build_config(args: argparse.Namespace, *, match: bool) -> TournamentConfig:
    """The tournament from the command line, on top of a --config TOML file."""
    engines: list[EngineSpec] = []
    settings: dict[str, Any] = {}
    if args.config is not None:
        try:
            engines, raw = load_engines_toml(args.config)
        except ValueError as exc:
            raise TournamentError(f"{args.config}: {exc}") from None
        settings = {k.replace("-", "_"): v for k, v in raw.items()}
        unknown = sorted(set(settings) - SETTING_KEYS)
        if unknown:
            raise TournamentError(f"{args.config}: unknown setting(s) {', '.join(unknown)}")
    each = list(args.each) or [str(x) for x in settings.get("each", [])]
    try:
        engines += [parse_engine(tokens, each=each) for tokens in args.engine]
    except ValueError as exc:
        raise TournamentError(f"--engine: {exc}") from None
    fmt = "match" if match else _setting(args, settings, "format", "round-robin")
    try:
        tc = TimeControl.parse(str(_setting(args, settings, "tc", DEFAULT_TC)))
        adjudication = Adjudication.parse(_setting(args, settings, "draw", None),
                                          _setting(args, settings, "resign", None))
        sprt_text = _setting(args, settings, "sprt", None) if match else None
        sprt = SprtConfig.parse(sprt_text) if sprt_text else None
    except ValueError as exc:
        raise TournamentError(str(exc)) from None
    n = max(len(engines), 2)
    default_rounds = max(1, math.ceil(math.log2(n))) if fmt == "swiss" else 1
    rules = GameRules(
        time_controls={e.name: tc.merged(e.tc) for e in engines if e.tc is not None},
        default_tc=tc,
        max_plies=2 * int(_setting(args, settings, "maxmoves", DEFAULT_MAXMOVES)),
        adjudication=adjudication,
        stall_grace=float(_setting(args, settings, "stall_timeout", 5.0)),
        untimed_timeout=float(_setting(args, settings, "untimed_timeout", 120.0)),
        event=str(_setting(args, settings, "event", "samuel " + ("match" if match else "tournament"))),
    )
    try:
        return TournamentConfig(
            engines=engines,
            format=fmt,
            openings=str(_setting(args, settings, "openings", "crossboard")),
            shuffle_seed=_setting(args, settings, "shuffle", None),
            openings_start=int(_setting(args, settings, "openings_start", 1)),
            openings_limit=_setting(args, settings, "openings_limit", None),
            rounds=int(_setting(args, settings, "rounds", default_rounds)),
            seeds=int(_setting(args, settings, "seeds", 1)),
            rules=rules,
            concurrency=int(_setting(args, settings, "concurrency", 1)),
            executor=str(_setting(args, settings, "executor", "local")),
            ray_address=_setting(args, settings, "ray_address", None),
            sprt=sprt,
            bootstrap=int(_setting(args, settings, "bootstrap", 200)),
            rating_seed=int(_setting(args, settings, "rating_seed", 0)),
            name=rules.event,
        )
    except ValueError as exc:
        raise TournamentError(str(exc)) from None


def _default_out(fmt: str) -> Path:
    return Path("out") / f"{fmt}-{_dt.datetime.now().strftime('%Y%m%d-%H%M%S')}"


class _LineLog:
    """Without a live table: cutechess-like lines, one per finished game."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.seen = 0

    def update(self, progress: Progress) -> None:
        for r in progress.records[self.seen:]:
            self.seen += 1
            total = f"/{progress.total}" if progress.total else ""
            self.console.print(f"Finished game {self.seen}{total} ({r.spec.black} vs {r.spec.white}, "
                               f"{r.spec.opening_label}): {r.result} {{{r.reason}}}", highlight=False)


def run_tournament(args: argparse.Namespace, *, match: bool) -> int:
    if args.resume is not None:
        try:
            store, stored, done = TournamentStore.reopen(args.resume)
        except OSError as exc:
            raise TournamentError(f"--resume {args.resume}: {exc}") from None
        if args.concurrency is not None:
            stored["concurrency"] = args.concurrency
        if args.executor is not None:
            stored["executor"] = args.executor
        config = TournamentConfig.from_dict(stored)
        store.append({"event": "tournament_resumed", "games_done": len(done),
                      "concurrency": config.concurrency, "executor": config.executor})
    else:
        if not args.engine and args.config is None:
            raise TournamentError("no engines: give --engine (twice or more) or --config FILE.toml")
        config = build_config(args, match=match)
        out = args.out or _default_out(config.format)
        store = TournamentStore.create(out)
        done = []
    out_console = Console(stderr=args.events_stdout, highlight=False)
    if not out_console.is_terminal:  # a log file or a pipe: wide enough for the rating table
        out_console = Console(stderr=args.events_stdout, highlight=False, width=132)
    err_console = Console(stderr=True)
    if args.events_stdout:
        store.tee = lambda line: (sys.stdout.write(line + "\n"), sys.stdout.flush())
    try:
        tournament = Tournament(config, store, done)
    except BaseException as exc:  # refused (a bad engine, a missing openings file): leave no directory
        if args.resume is None:
            store.abandon()
        if isinstance(exc, ValueError):
            raise TournamentError(str(exc)) from None
        raise
    if args.resume is None:
        store.append({"event": "tournament_started", "config": config.to_dict(),
                      "total_games": tournament.total})
    err_console.print(f"{config.name}: {', '.join(config.names)}; {tournament.total} games "
                      f"({len(tournament.openings)} openings x 2 colours), "
                      f"{config.rules.default_tc.describe()}, "
                      f"concurrency {config.concurrency}; writing to {store.directory}"
                      + (f"; {len(done)} games already played" if done else ""), highlight=False)
    live = not args.no_live and err_console.is_terminal
    reason = "interrupted"
    started = time.monotonic()
    try:
        if live:
            with LiveView(err_console, title=config.name) as view:
                def show(p: Progress) -> None:
                    view.update(p.standings, _running(p))

                tournament.on_progress = show
                reason = asyncio.run(_run(tournament, args, err_console))
        else:
            tournament.on_progress = _LineLog(err_console).update
            reason = asyncio.run(_run(tournament, args, err_console))
    except EngineStartError as exc:
        # Not a game lost: the engine's command or address is wrong.  A new tournament that
        # finished no game leaves nothing behind; one with games keeps them for --resume.
        if args.resume is None and not tournament.records:
            store.discard()
            raise
        raise TournamentError(f"{exc}; the games played so far are in {store.directory} "
                              f"(continue with --resume {store.directory})") from None
    except SpectatingError:  # the page could not be served: nothing was played
        if args.resume is None and not tournament.records:
            store.discard()
        raise
    except KeyboardInterrupt:
        err_console.print(f"interrupted after {len(tournament.records)} games; continue with "
                          f"samuel {'match' if match else 'tournament'} --resume {store.directory}")
        return 130
    standings = tournament.final_standings()
    took = time.monotonic() - started
    title = f"{config.name}: {reason} after {len(tournament.records)} games in {took:.0f} s"
    out_console.print(render_text(standings, title=title))
    store.write_report(render_markdown(standings, config.to_dict(), title=title))
    out_console.print(f"games   {store.games}\nevents  {store.events}\nreport  {store.report}",
                      highlight=False)
    for e in tournament.errors:
        err_console.print(f"[yellow]error:[/] {e}", highlight=False)
    return 0


async def _run(tournament: Tournament, args: argparse.Namespace, console: Console) -> str:
    """The tournament, watched in a browser too with ``--web-port``."""
    port = getattr(args, "web_port", None)
    if port is None:
        return await tournament.run()

    def announce(url: str) -> None:
        note = "" if tournament.reports_moves else " (standings and finished games: this executor " \
                                                   "reports no moves)"
        console.print(f"watch it live at {url}{note}", highlight=False, soft_wrap=True)

    return await run_watched(tournament, args.web_host, port, announce)


def _running(p: Progress) -> list[RunningGame]:
    return [RunningGame(r.spec.game_id, r.spec.black, r.spec.white, r.spec.opening_label, r.plies, r.started)
            for r in p.running]


