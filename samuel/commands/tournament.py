"""``samuel tournament``: rating tournaments between engines (and the options ``samuel match`` shares).

Engines are declared cutechess-style, ``--engine name=A proto=hub cmd="samuel hub"
option.evaluator=material``, or in a TOML file (``--config``).  Every game is
logged as it ends in the output directory (events.jsonl, games.pdn), so an
interrupted run continues with ``--resume DIR``.
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

from matches.engines import EngineSpec, load_engines_toml, parse_engine
from rich.console import Console

from engine.errors import SamuelError
from engine.ratings import SprtConfig
from matches.live import LiveView, RunningGame
from matches.referee import Adjudication, GameRules
from matches.report import render_markdown, render_text
from matches.schedule import FORMATS
from matches.store import TournamentStore
from matches.timecontrol import TimeControl
from matches.tournament import EXECUTORS, Progress, Tournament, TournamentConfig
from samuel.commands.analyse import positive_int

DEFAULT_TC = "st=0.1"
DEFAULT_MAXMOVES = 200


class TournamentError(SamuelError):
    """The tournament's settings are wrong (named), or its directory cannot be used."""


def positive_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not v > 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {text}")
    return v


def add_arguments(p: argparse.ArgumentParser, *, match: bool) -> None:
    g = p.add_argument_group("engines")
    g.add_argument("--engine", action="append", nargs="+", default=[], metavar="KEY=VALUE",
                   help="an engine: name=, proto=inproc|hub|cb|dxp, cmd=, host=/port= or tcp=HOST:PORT, "
                        "option.NAME=VALUE, eval=, mode=, hash=, weights=FILE.json, and its own "
                        "st=/tc=/depth=/nodes=/timemargin= (repeat --engine for each engine)")
    g.add_argument("--each", nargs="+", default=[], metavar="KEY=VALUE",
                   help="settings applied to every engine (each --engine's own settings win)")
    g.add_argument("--config", type=Path, metavar="TOML",
                   help="engines as [[engine]] tables, and any of these options as top-level keys")
    if not match:
        g.add_argument("--format", choices=[f for f in FORMATS if f != "match"], default=None,
                       help="round-robin (default), gauntlet (the first --seeds engines against the rest) "
                            "or swiss")
        g.add_argument("--seeds", type=positive_int, default=None,
                       help="gauntlet: how many leading engines play all the others (default 1)")
    o = p.add_argument_group("openings")
    o.add_argument("--openings", default=None, metavar="DECK|FILE",
                   help="crossboard (the 144 ACF ballots, default), mailplay (156), barred (all 174), "
                        "or a PDN/FEN file of start positions; every opening is a colour-reversed pair")
    o.add_argument("--shuffle", type=int, default=None, metavar="SEED",
                   help="play the openings in an order shuffled with this seed (default: in order)")
    o.add_argument("--openings-start", type=positive_int, default=None, metavar="N",
                   help="start at the N-th opening (1-based)")
    o.add_argument("--openings-limit", type=positive_int, default=None, metavar="N", help="use N openings")
    o.add_argument("--rounds", type=positive_int, default=None,
                   help="times through the openings (Swiss: the number of rounds)")
    t = p.add_argument_group("limits and adjudication")
    t.add_argument("--tc", default=None, metavar="TC",
                   help=f"every engine's limit: st=SECONDS, tc=[MOVES/]SECONDS+INC, depth=N, nodes=N, "
                        f"timemargin=SECONDS, combined with commas (default {DEFAULT_TC})")
    t.add_argument("--maxmoves", type=positive_int, default=None,
                   help=f"a draw after this many full moves from the opening (default {DEFAULT_MAXMOVES})")
    t.add_argument("--draw", default=None, metavar="SPEC",
                   help="adjudicate a draw: movenumber=N movecount=C score=MEN (both engines within "
                        "±MEN for C moves each, from move N)")
    t.add_argument("--resign", default=None, metavar="SPEC",
                   help="adjudicate a resignation: movecount=C score=MEN [twosided=true]")
    t.add_argument("--stall-timeout", type=positive_float, default=None, metavar="SECONDS",
                   help="how long past its time an engine may stay silent before it is called stalled, "
                        "killed and restarted (default 5)")
    t.add_argument("--untimed-timeout", type=positive_float, default=None, metavar="SECONDS",
                   help="the same for depth or nodes limits (default 120)")
    r = p.add_argument_group("running")
    r.add_argument("--concurrency", type=positive_int, default=None, help="games at once (default 1)")
    r.add_argument("--executor", choices=EXECUTORS, default=None,
                   help="local (an asyncio pool owning the engine processes, default) or ray "
                        "(pip install 'samuel[ray]')")
    r.add_argument("--ray-address", default=None, help="an existing Ray cluster (default: start one here)")
    r.add_argument("--out", type=Path, default=None, metavar="DIR",
                   help="where events.jsonl, games.pdn and report.md go (default out/<format>-<time>)")
    r.add_argument("--resume", type=Path, default=None, metavar="DIR",
                   help="continue the interrupted tournament in DIR (its settings come from DIR; "
                        "--concurrency and --executor may change)")
    r.add_argument("--event", default=None, help="the PDN Event tag")
    r.add_argument("--bootstrap", type=positive_int, default=None,
                   help="bootstrap samples for the rating list's error bars (default 200)")
    r.add_argument("--rating-seed", type=int, default=None, help="seed of the bootstrap (default 0)")
    r.add_argument("--events-stdout", action="store_true",
                   help="also write the JSON-lines event stream to stdout (the report then goes to stderr)")
    r.add_argument("--no-live", action="store_true",
                   help="no live table: one line per finished game on stderr")
    if match:
        r.add_argument("--sprt", default=None, metavar="SPEC",
                       help="stop when a GSPRT decides: elo0=E0 elo1=E1 [alpha=0.05 beta=0.05 "
                            "model=normalized|logistic|bayeselo] (normalized: bounds in nElo)")


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
        engines += [parse_engine([*each, *tokens]) for tokens in args.engine]
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


def run(args: argparse.Namespace, *, match: bool) -> int:
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
    err_console = Console(stderr=True)
    if args.events_stdout:
        store.tee = lambda line: (sys.stdout.write(line + "\n"), sys.stdout.flush())
    try:
        tournament = Tournament(config, store, done)
    except ValueError as exc:
        raise TournamentError(str(exc)) from None
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
                reason = asyncio.run(tournament.run())
        else:
            tournament.on_progress = _LineLog(err_console).update
            reason = asyncio.run(tournament.run())
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


def _running(p: Progress) -> list[RunningGame]:
    return [RunningGame(r.spec.game_id, r.spec.black, r.spec.white, r.spec.opening_label, r.plies, r.started)
            for r in p.running]


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("tournament", help="a rating tournament: round-robin, gauntlet or Swiss",
                       description=__doc__.split("\n\n")[0] if __doc__ else None)
    add_arguments(p, match=False)
    p.set_defaults(func=lambda args: run(args, match=False))
