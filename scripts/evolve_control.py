"""The control for the panel's choice: what choosing the best of N by the panel gives without evolution.

    .venv/bin/python scripts/evolve_control.py --seed 1 [--candidates 10] [--scores exact]
                     [--search-draws] --out DIR

A run's champion is the best of its panel points (10 in a 100-generation run).  Random networks
differ in strength too, so picking the best of 10 by the panel would find a player above
``material`` even if evolution had taught nothing.  This plays generation 0's players
``4 .. 3 + N`` of ``--seed`` (the panel holds players 1-3) against the fixed panel, exactly as a
run's panel point does, chooses the best the same way and writes it to ``DIR/control-seedS.json``;
``scripts/evolve_vs_material.py`` then measures it on the yardstick.  An evolved champion must beat
this control to show that evolution, not the choosing, made it strong.  ``--search-draws``: the
panel's search sees repetition and 40-move draws, as in a run with that option (the control's file
says so in its meta, and the yardstick plays it so).
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from engine import evaluators
from engine.learners.evolve import Evolution, EvolveConfig
from engine.learners.evolve_panel import Panel, fixed_score, generation_zero
from matches.openings import ballot_deck


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--candidates", type=int, default=10)
    p.add_argument("--scores", default="exact", choices=("rounded", "exact"))
    p.add_argument("--panel-pairs", type=int, default=24)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--search-draws", action="store_true", help="the panel's search sees draws")
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args()
    config = EvolveConfig(preset="modern" if args.search_draws else "paper", seed=args.seed,
                          scores=args.scores, parents=max(15, 3 + args.candidates),
                          panel_pairs=args.panel_pairs, search_draws=args.search_draws)
    players = generation_zero(config)
    ballots = [o.fen for o in ballot_deck("crossboard")]
    panel = Panel()
    with ThreadPoolExecutor(args.workers) as pool:
        for i, candidate in enumerate(players[3:3 + args.candidates], start=4):
            stand_in = Evolution(config, [candidate], np.random.default_rng(0), generation=i)
            found = panel.measure(stand_in, ballots, pool)
            panel.frozen = []  # only the fixed panel, as the choice uses
            line = ", ".join(f"{r.opponent} +{r.wins} ={r.draws} -{r.losses}" for r in found)
            print(f"player {i}: fixed panel {fixed_score(found):.3f}   {line}", flush=True)
    assert panel.champion is not None
    args.out.mkdir(parents=True, exist_ok=True)
    name = f"control-seed{args.seed}{'-sees-draws' if args.search_draws else ''}"
    path = args.out / f"{name}.json"
    meta = {"learner": "control", "seed": args.seed, "search draws": args.search_draws,
            "chosen by": f"panel (player {panel.champion_generation})"}
    evaluators.save(panel.champion.evaluator(name, meta), path)
    print(f"chosen: player {panel.champion_generation} (fixed panel {panel.champion_score:.3f}) -> {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
