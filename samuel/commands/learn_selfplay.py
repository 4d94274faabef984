"""samuel learn selfplay: games of the engine against itself, as Texel-tuning data.

    samuel learn selfplay --games 30000 --out out/selfplay.pdn [--nodes 3000 | --depth D]
                          [--jobs 2] [--seed 0] [--random-plies 4] [--eval default]

Game i starts from ACF ballot i mod 144 (the crossboard deck shipped with the package, or
$SAMUEL_BALLOTS) and a few random plies drawn from (seed, i), then one engine plays both sides
within the fixed budget; the project's rules end the game (no move, threefold repetition, the
40-move rule, a draw at 300 plies), and a lead of two pieces held for ten plies after ply 100 is
adjudicated a win (engine/learners/selfplay.py).  The games are PDN with results, appended as they
finish: a rerun with the same options keeps them and plays the rest, and a finished file is the
same bytes for the same seed whatever --jobs.  Feed it to `samuel learn tune --selfplay FILE`.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from engine.errors import OptionError
from samuel.argtypes import evaluator_type, nonnegative_int, positive_int
from samuel.commands.agree import progress_bar
from samuel.outputs import output_file


def register(learners: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = learners.add_parser("selfplay", help="self-play games (PDN with results) for Texel tuning",
                            description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", required=True, type=positive_int, help="games the file is to hold")
    p.add_argument("--out", required=True, type=output_file, help="PDN file to write or continue")
    budget = p.add_mutually_exclusive_group()
    budget.add_argument("--nodes", type=positive_int, default=None, help="nodes a move (default 3000)")
    budget.add_argument("--depth", type=positive_int, default=None, help="plies a move (instead of --nodes)")
    p.add_argument("--jobs", type=positive_int, default=1, help="processes playing games (default 1)")
    p.add_argument("--seed", type=nonnegative_int, default=0, help="random plies seed (default 0)")
    p.add_argument("--random-plies", type=nonnegative_int, default=4,
                   help="random legal plies after the ballot (default 4)")
    p.add_argument("--eval", type=evaluator_type, default="default", help="evaluator (default: %(default)s)")
    p.add_argument("--ballots", default=None, help="ballots CSV (default: the shipped crossboard deck)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from engine.learners import selfplay
    from matches.openings import ballot_deck

    out = Path(args.out)
    nodes = args.nodes if args.nodes is not None or args.depth is not None else 3000
    try:
        settings = selfplay.Settings(nodes=nodes, depth=args.depth, seed=args.seed,
                                     random_plies=args.random_plies, evaluator=args.eval)
    except ValueError as exc:
        raise OptionError(str(exc)) from exc
    openings = [(o.label, o.moves) for o in ballot_deck("crossboard", args.ballots)]
    t0 = time.monotonic()
    with progress_bar() as task:
        report = selfplay.generate(out, args.games, openings, settings, jobs=args.jobs,
                                   progress=task(f"self-play ({settings.tag()})"))
    took = time.monotonic() - t0
    rate = f", {report.played / took:.1f} games/s" if report.played and took > 0 else ""
    res = report.results
    print(f"{out}: {report.games} games (kept {report.kept}, played {report.played} in {took:.0f} s{rate}); "
          f"Black {res.get('1-0', 0)}, White {res.get('0-1', 0)}, drawn {res.get('1/2-1/2', 0)}")
    return 0
