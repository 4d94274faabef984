"""``samuel tournament``: rating tournaments between engines (and the options ``samuel match`` shares).

Engines are declared cutechess-style, ``--engine name=A proto=hub cmd="samuel hub"
option.evaluator=material``, or in a TOML file (``--config``).  Every game is
logged as it ends in the output directory (events.jsonl, games.pdn), so an
interrupted run continues with ``--resume DIR``.  The runner itself is in
``samuel.tournament_run``, imported only when a tournament runs, so that every
other command (engines started by GUIs above all) starts quickly.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from matches.defaults import DEFAULT_MAXMOVES, DEFAULT_TC
from samuel.argtypes import bounded_int, positive_float, positive_int
from samuel.outputs import output_dir

FORMATS = ("round-robin", "gauntlet", "swiss")
"""As ``matches.schedule.FORMATS`` without "match" (a test keeps the two in step)."""
EXECUTORS = ("local", "ray")


def add_arguments(p: argparse.ArgumentParser, *, match: bool) -> None:
    g = p.add_argument_group("engines")
    g.add_argument("--engine", action="append", nargs="+", default=[], metavar="KEY=VALUE",
                   help="an engine: name=, proto=inproc|hub|cb|dxp, cmd=, host=/port= or tcp=HOST:PORT, "
                        "option.NAME=VALUE, eval=, mode=, hash=, book=FILE|default|none, book-variety=N, "
                        "weights=FILE.json, ponder (think on the opponent's time: Hub, in-process), "
                        "and its own "
                        "st=/tc=/depth=/nodes=/timemargin= (repeat --engine for each engine)")
    g.add_argument("--each", nargs="+", default=[], metavar="KEY=VALUE",
                   help="settings applied to every engine (each --engine's own settings win)")
    g.add_argument("--config", type=Path, metavar="TOML",
                   help="engines as [[engine]] tables, and any of these options as top-level keys")
    if not match:
        g.add_argument("--format", choices=FORMATS, default=None,
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
    r.add_argument("--out", type=output_dir, default=None, metavar="DIR",
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
    w = p.add_argument_group("spectating")
    w.add_argument("--web-port", type=bounded_int(0, 65535), default=None, metavar="PORT",
                   help="watch in a browser: serve a page with the games in progress, move by move, and "
                        "the standings on PORT while the run lasts (0: any free port; the URL goes to "
                        "stderr; with --executor ray, standings and finished games only)")
    w.add_argument("--web-host", default="127.0.0.1", metavar="HOST",
                   help="the address the page is served on (default %(default)s: this machine only)")
    if match:
        r.add_argument("--sprt", default=None, metavar="SPEC",
                       help="stop when a GSPRT decides: elo0=E0 elo1=E1 [alpha=0.05 beta=0.05 "
                            "model=normalized|logistic|bayeselo] (normalized: bounds in nElo)")


def run(args: argparse.Namespace, *, match: bool) -> int:
    from samuel.tournament_run import run_tournament

    return run_tournament(args, match=match)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("tournament", help="a rating tournament: round-robin, gauntlet or Swiss",
                       description=__doc__.split("\n\n")[0] if __doc__ else None)
    add_arguments(p, match=False)
    p.set_defaults(func=lambda args: run(args, match=False))
