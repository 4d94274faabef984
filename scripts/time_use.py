#!/usr/bin/env python3
"""How much of a fixed time a move the search uses: ``--movetime`` searches of positions from random
play (engine.bench.random_positions), a new game before each, timed around ``Searcher.search``; the
mean is given apart for positions with one legal move (answered at once) and for the others."""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import Limit, Searcher
from engine.bench import random_positions


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--movetime", type=float, default=0.1)
    ap.add_argument("--positions", type=int, default=60)
    ap.add_argument("--seed", type=int, default=32)
    args = ap.parse_args()
    searcher = Searcher()
    used: dict[bool, list[float]] = {True: [], False: []}
    for board in random_positions(args.positions, args.seed):
        searcher.new_game()
        start = time.perf_counter()
        searcher.search(board, Limit(movetime=args.movetime))
        used[len(board.legal_moves) == 1].append(time.perf_counter() - start)
    everything = used[True] + used[False]
    for name, times in (("one legal move", used[True]), ("a choice", used[False]), ("all", everything)):
        if times:
            print(f"{name:15} {len(times):4} positions: mean {statistics.mean(times):.4f} s, "
                  f"min {min(times):.4f} s, max {max(times):.4f} s")


if __name__ == "__main__":
    main()
