"""How deep the 704 program searches at Samuel's pace: the minimum ply finished at 30 s and 60 s of
704 time a move (``pace=704-clock``), by evaluator, on 40 positions of seeded random play (6-40 plies
in), with and without a rote memory.

    .venv/bin/python scripts/depth_704_pace.py [--rote FILE]    # FILE: a store or a 704 reel
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.board import Board
from engine.learners.rote_file import open_rote
from engine.limits import Limit
from engine.search import RoteSource
from engine.searchers import build_searcher


def boards(n: int = 40, seed: int = 35) -> list[Board]:
    rng = random.Random(seed)
    out: list[Board] = []
    while len(out) < n:
        board = Board()
        for _ in range(rng.randint(6, 40)):
            if not board.legal_moves:
                break
            board.push(rng.choice(board.legal_moves))
        if board.legal_moves:
            out.append(board)
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rote", default="", help="a rote memory for the last row (samuel-alpha with it)")
    args = p.parse_args()
    rote = open_rote(args.rote) if args.rote else None
    rows: list[tuple[str, str, RoteSource | None]] = [
        ("default", "default", None), ("samuel-1959", "samuel-1959", None),
        ("samuel-alpha", "samuel-alpha", None)]
    if rote is not None:
        rows.append(("samuel-alpha + rote", "samuel-alpha", rote))
    positions = boards()
    for seconds in (30, 60):
        for name, evaluator, memory in rows:
            searcher = build_searcher({"backend": "704", "evaluator": evaluator, "pace": "704-clock"},
                                      rote=memory)
            depths, nodes, hits = [], [], []
            for board in positions:
                info = searcher.search(board.copy(), Limit(movetime=seconds)).info
                depths.append(info.depth)
                nodes.append(info.nodes)
                hits.append(info.rote_hits)
            print(f"{seconds:3d} s  {name:22} minimum ply mean {statistics.fmean(depths):.2f} median "
                  f"{statistics.median(depths)} (no root move searched whole in {depths.count(0)}), "
                  f"nodes {statistics.fmean(nodes):,.0f}, rote hits {statistics.fmean(hits):.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
