#!/usr/bin/env python3
"""Nodes and CPU seconds to finish each depth from the start position: the search's depth for its
nodes, independent of the machine's speed (docs/search-depth.md).

Deterministic for a given build (one thread, a fresh table, the node cap as the only limit), so two
builds compare by their node counts; the CPU seconds (process time, so a busy machine matters less)
give the nodes per second. Run a variant's copy (scripts/build-variant) by its own path: this script
imports the tree it sits in.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import Board, Limit, Searcher, SearchInfo
from engine.evaluators import by_name


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=8_000_000, help="node cap (default: %(default)s)")
    ap.add_argument("--eval", default="default", help="evaluator (default: %(default)s)")
    ap.add_argument("--hash", type=int, default=64, help="table size in MB (default: %(default)s)")
    ap.add_argument("--from-depth", type=int, default=10, help="first depth printed (default: %(default)s)")
    args = ap.parse_args()
    searcher = Searcher(by_name(args.eval), hash_mb=args.hash)
    searcher.new_game()
    done: dict[int, tuple[int, float]] = {}
    start = time.process_time()

    def on_info(info: SearchInfo) -> None:
        done[info.depth] = (info.nodes, time.process_time() - start)

    searcher.search(Board(), Limit(nodes=args.nodes), on_info=on_info)
    for depth, (nodes, cpu) in sorted(done.items()):
        if depth >= args.from_depth:
            print(f"d{depth:<3} {nodes:>12,} nodes  {cpu:7.2f} s CPU")
    nodes, cpu = done[max(done)]
    print(f"{nodes / max(cpu, 1e-9) / 1e6:.2f} M nodes per CPU second")


if __name__ == "__main__":
    main()
