"""Speed of Chellapilla and Fogel's network in the C core, and of their search with it.

    .venv/bin/python scripts/bench_network.py [--positions 200] [--rounds 2000] [--eval evolved-blondie]

Prints network evaluations per second on one core for both presets (the C loop of
``ckr_network_bench``: no Python per evaluation), and nodes, time and evaluations per move of
their depth-4 search (``Mode.FOGEL``) from positions of random play.  Then a shipped network
(``--eval``, default evolved-blondie) searched from the same positions by their search
(``--fogel-depth``) and by the modern PVS (``--pvs-depth``): node totals (fixed for a given core)
and nodes per second, the figures of issue 31's evaluator table.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from engine import core, evaluators
from engine.bench import random_positions
from engine.learners.network import Network
from engine.limits import Limit
from engine.search import Mode, Searcher


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    p.add_argument("--positions", type=int, default=200)
    p.add_argument("--rounds", type=int, default=2000)
    p.add_argument("--searches", type=int, default=100)
    p.add_argument("--eval", default="evolved-blondie", help="a shipped network evaluator")
    p.add_argument("--fogel-depth", type=int, default=6)
    p.add_argument("--pvs-depth", type=int, default=7)
    args = p.parse_args()
    boards = random_positions(args.positions, 1999)
    for preset in ("blondie", "spatial"):
        net = Network.random(preset, np.random.default_rng(1))
        ev = net.evaluator()
        rounds = args.rounds if preset == "blondie" else max(1, args.rounds // 5)
        _, seconds = core.network_bench(ev.spec, [b.raw for b in boards], rounds)
        evals = len(boards) * rounds
        rate = evals / seconds / 1e6
        print(f"{preset:8} network ({len(net.weights):,} weights): {rate:.2f} M evaluations/s "
              f"on one core ({evals:,} in {seconds:.2f} s)")
        searcher = Searcher(ev, mode=Mode.FOGEL, hash_mb=1)
        nodes, start = 0, time.perf_counter()
        for board in boards[: args.searches]:
            nodes += searcher.search(board, Limit(depth=4)).info.nodes
        wall = time.perf_counter() - start
        n = min(args.searches, len(boards))
        print(f"{preset:8} search, depth 4 with their extensions: {nodes / n:,.0f} nodes and "
              f"{wall / n * 1000:.2f} ms a move ({nodes / wall / 1e6:.2f} M nodes/s)")
    shipped = evaluators.by_name(args.eval)
    for mode, depth in ((Mode.FOGEL, args.fogel_depth), (Mode.PVS, args.pvs_depth)):
        searcher = Searcher(shipped, mode=mode, hash_mb=16)
        nodes, start = 0, time.perf_counter()
        for board in boards[: args.searches]:
            searcher.new_game()
            nodes += searcher.search(board, Limit(depth=depth)).info.nodes
        wall = time.perf_counter() - start
        print(f"{args.eval} {mode.name.lower()} depth {depth}, {min(args.searches, len(boards))} positions: "
              f"{nodes:,} nodes in {wall:.2f} s ({nodes / wall / 1e6:.2f} M nodes/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
