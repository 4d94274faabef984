"""An evolved network against the piece-count player at the evolution's depth: the issue's yardstick.

    .venv/bin/python scripts/evolve_vs_material.py out/evolve [more runs or network .json files]
                     [--depth 4] [--max-moves 100] [--panel-pairs 24] [--search-draws auto|on|off]

Each network (a run folder means its champion.json) plays ``material`` on the same search (their
``fogel`` search at ``--depth``) over the 144 ACF ballots with colours reversed, under the rules of
a real game (repetition and the 40-move rule draw, a draw after ``--max-moves`` moves each): the
games ``samuel match --engine eval=NET mode=fogel --engine eval=material mode=fogel --tc depth=4
--maxmoves 100`` plays (with the search that sees draws, as a run with ``--search-draws`` played,
both engines also take ``fogel-draws=on``).  Prints W/D/L and the Elo difference with its 95%
interval from the pair counts, over all 144 pairs and over the pairs the panel never played (the
panel chose the champion on its own 24, so those are the honest part).
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import evaluators
from engine.learners.evolve_games import GameJob, outcome, play_all
from engine.learners.evolve_panel import MATERIAL, panel_openings
from matches.openings import ballot_deck
from matches.ratings.elo import pentanomial


def pair_score(first: str, second: str) -> int:
    """Index into the pentanomial counts (LL, LD, WL+DD, WD, WW) for the network's two games."""
    half = {"win": 2, "draw": 1, "loss": 0}
    return half[first] + half[second]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    p.add_argument("networks", nargs="+", help="run folders (their champion.json) or network .json files")
    p.add_argument("--depth", type=int, default=4)
    p.add_argument("--max-moves", type=int, default=100)
    p.add_argument("--panel-pairs", type=int, default=24, help="the panel's ballot pairs (set apart)")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--search-draws", choices=("auto", "on", "off"), default="auto",
                   help="the search scores a repetition or the 40-move rule as a draw (auto: as the "
                        "network's run did, from its champion's meta)")
    args = p.parse_args()
    ballots = [o.fen for o in ballot_deck("crossboard")]
    panel = set(panel_openings(ballots, args.panel_pairs))
    with ThreadPoolExecutor(args.workers) as pool:
        for name in args.networks:
            path = Path(name) / "champion.json" if Path(name).is_dir() else Path(name)
            net = str(path)
            sees = (args.search_draws == "on" if args.search_draws != "auto"
                    else bool(evaluators.load(path).meta.get("search draws", False)))
            jobs = []
            for fen in ballots:
                jobs += [GameJob(black, white, fen, args.depth, args.max_moves, draws=True, search_draws=sees)
                         for black, white in ((net, MATERIAL), (MATERIAL, net))]
            records = play_all(jobs, pool)
            off_panel = f"the {len(ballots) - len(panel)} pairs off the panel"
            for label, keep in (("all 144 pairs", lambda f: True), (off_panel, lambda f: f not in panel)):
                counts = [0] * 5
                wdl = {"win": 0, "draw": 0, "loss": 0}
                for i, fen in enumerate(ballots):
                    if not keep(fen):
                        continue
                    a = outcome(records[2 * i].result, True)
                    b = outcome(records[2 * i + 1].result, False)
                    wdl[a] += 1
                    wdl[b] += 1
                    counts[pair_score(a, b)] += 1
                est = pentanomial(counts)
                tag = " (search sees draws)" if sees else ""
                print(f"{name}{tag}: {label}: +{wdl['win']} ={wdl['draw']} -{wdl['loss']}, "
                      f"{est.elo:+.1f} ± {est.margin:.1f} Elo, pentanomial {counts}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
