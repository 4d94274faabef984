"""samuel perft: leaf counts from a position, optionally divided by root move."""

from __future__ import annotations

import argparse
import time

from samuel.argtypes import bounded_int

MAX_PERFT_DEPTH = 64
"""Far beyond any depth that finishes; what the core's counters and move stack hold."""


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("perft", help="count leaf nodes to a depth (move-generator check)")
    p.add_argument("--fen", default=None, help="position (default: the start position)")
    p.add_argument("--depth", type=bounded_int(0, MAX_PERFT_DEPTH), required=True,
                   help=f"depth in plies, 0..{MAX_PERFT_DEPTH}")
    p.add_argument("--divide", action="store_true", help="print the count under each root move")
    p.add_argument("--no-bulk", action="store_true", help="make every leaf move instead of counting them")
    p.add_argument("--stats", action="store_true", help="print time and leaves per second")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from engine import core  # here: loading the C core is the command's work, not the parser's
    from engine.board import Board

    board = Board(args.fen)
    bulk = not args.no_bulk
    start = time.perf_counter()
    if args.divide and args.depth >= 1:
        total = 0
        for move in board.legal_moves:
            child = board.copy()
            child.push(move)
            n = core.perft(child.raw, args.depth - 1, bulk=bulk)
            total += n
            print(f"{board.notation(move)}: {n}", flush=True)
    else:
        total = core.perft(board.raw, args.depth, bulk=bulk)
    elapsed = time.perf_counter() - start
    if args.stats:
        print(f"time {elapsed:.3f} s, {total / max(elapsed, 1e-9) / 1e6:.1f} M leaves/s")
    print(total)
    return 0
