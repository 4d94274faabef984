"""samuel ratings: the standings of a stored tournament, as a report or a plot.

    samuel ratings show DIR|events.jsonl [--markdown FILE]
    samuel ratings plot DIR|events.jsonl [-o PNG] [--bootstrap N] [--seed S]

DIR is what ``samuel tournament``/``samuel match`` wrote (its ``events.jsonl`` is
the record); the report and the plot are computed afresh from the finished games.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.errors import SamuelError
from samuel.outputs import check_output_file, output_file, output_file_in_new_folders, replacing

if TYPE_CHECKING:
    from matches.record import MatchGame
    from matches.standings import Standings


class RatingsSourceError(SamuelError):
    """The path given holds no tournament, or one without finished games."""


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("ratings", help="the standings of a stored tournament: report or plot")
    actions = p.add_subparsers(dest="ratings_command", metavar="ACTION", required=True)

    show = actions.add_parser("show", help="print the final report (rating list, pairings, SPRT)")
    show.add_argument("source", type=Path, help="tournament directory or its events.jsonl")
    show.add_argument("--markdown", type=output_file, metavar="FILE",
                      help="also write the report as Markdown")
    _fit_options(show)

    plot = actions.add_parser("plot", help="draw each engine's Elo and interval (and the SPRT's LLR) as PNG")
    plot.add_argument("source", type=Path, help="tournament directory or its events.jsonl")
    plot.add_argument("-o", "--out", type=output_file_in_new_folders, metavar="PNG",
                      help="output (default DIR/ratings.png)")
    _fit_options(plot)

    p.set_defaults(func=run)


def _fit_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--bootstrap", type=int, default=200, metavar="N",
                   help="bootstrap samples for the rating list's intervals (default 200)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="bootstrap seed (default 0)")


def load(source: Path, *, bootstrap: int = 200,
         seed: int = 0) -> tuple[Standings, dict[str, Any], list[MatchGame], Path]:
    """The standings, config and finished games of the tournament at ``source``, and its event log."""
    # Here, not at the top: matches and numpy are only needed to run the command, not to build the parser.
    from matches.standings import standings_from_events
    from matches.store import events_path, read_events

    if not source.exists():
        raise RatingsSourceError(f"{source}: no such file or directory")
    path = events_path(source)
    events = read_events(path)
    if not events:
        raise RatingsSourceError(f"{path}: no events (the tournament never started)")
    standings, config, records = standings_from_events(events, bootstrap=bootstrap, seed=seed)
    if not records:
        raise RatingsSourceError(f"{path}: no finished games yet")
    return standings, config, records, path


def run(args: argparse.Namespace) -> int:
    if args.bootstrap < 0:
        raise RatingsSourceError(f"--bootstrap: {args.bootstrap} is out of range (0 or more)")
    if args.ratings_command == "plot" and args.out is None and args.source.is_dir():
        check_output_file(args.source / "ratings.png", "--out")  # before the bootstrap, not after
    standings, config, records, path = load(args.source, bootstrap=args.bootstrap, seed=args.seed)
    from matches.report import tournament_title

    title = tournament_title(config)
    if args.ratings_command == "plot":
        from matches.plot import plot_ratings
        from matches.standings import engine_names, llr_history, sprt_config

        test = sprt_config(config)
        llr = llr_history(records, engine_names(config), test) if test is not None else None
        out = (Path(args.out) if args.out is not None
               else check_output_file(path.parent / "ratings.png", "--out"))
        print(plot_ratings(standings, out, llr=llr, title=title))
        return 0

    from rich.console import Console

    from matches.report import render_markdown, render_text

    width = None if sys.stdout.isatty() else 120  # a file or pipe gets room for the tables
    Console(file=sys.stdout, width=width).print(render_text(standings, title=title, config=config))
    if args.markdown is not None:
        with replacing(args.markdown) as tmp:
            tmp.write_text(render_markdown(standings, config, title=title), encoding="utf-8")
        print(f"wrote {args.markdown}", file=sys.stderr)
    return 0
