"""samuel bench: perft speed, search speed and a node-count signature.

The signature is the total node count of fixed-depth searches from fixed
positions with a cleared table; it changes only when the search or the
evaluation changes, so it is recorded with commits that touch them.
"""

from __future__ import annotations

import argparse

from samuel.argtypes import bounded_int, positive_float, positive_int
from samuel.commands.perft import MAX_PERFT_DEPTH
from samuel.engine_args import add_option_flags

# The engine (C core, search) is imported where the bench runs (engine/bench.py), not to build the parser.


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("bench", help="measure perft and search speed; print the node signature")
    p.add_argument("--depth", type=positive_int, default=13,
                   help="search depth per bench position (default 13)")
    p.add_argument("--perft-depth", type=bounded_int(0, MAX_PERFT_DEPTH), default=12,
                   help="perft depth from the start (default 12)")
    add_option_flags(p, ("evaluator", "hash"))  # the engine's options, as analyse takes them
    p.add_argument("--think", type=positive_float, default=1.0, help="seconds for the depth-in-time figure")
    p.add_argument("--quick", action="store_true", help="signature only (skip the perft and timed parts)")
    p.add_argument("--mtdf", action="store_true", help="drive the search with MTD(f) instead of PVS windows")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from engine.bench import BENCH_POSITIONS, depth_times, perft_speed, profile, share

    if not args.quick:
        n, t = perft_speed(args.perft_depth)
        rate = n / t / 1e6
        print(f"perft   depth {args.perft_depth}: {n} leaves in {t:.3f} s = {rate:.1f} M leaves/s (bulk)")
    prof = profile(args.depth, args.evaluator, args.hash, args.mtdf)
    nodes, secs = prof.nodes, prof.seconds
    driver = "MTD(f)" if args.mtdf else "PVS"
    print(f"search  {len(BENCH_POSITIONS)} positions, depth {args.depth}, eval {args.evaluator}, {driver}: "
          f"{nodes} nodes in {secs:.3f} s = {nodes / max(secs, 1e-9) / 1e6:.2f} M nodes/s")
    print(f"stats   effective branching factor {prof.branching_factor():.2f} (last 4 iterations), "
          f"first-move cutoffs {prof.first_cut_rate:.1%} of {prof.cutoffs}, "
          f"TT hits {prof.tt_hit_rate:.1%} of {prof.tt_probes} probes")
    s = prof.pvs
    print(f"re-search zero-window fails re-searched {share(s.zw_researches, s.zw_searches):.2%} "
          f"of {s.zw_searches}, reduced searches re-searched {share(s.lmr_researches, s.lmr_searches):.1%} "
          f"of {s.lmr_searches}, aspiration windows failed {share(s.asp_fails, s.asp_searches):.1%} "
          f"of {s.asp_searches}")
    print(f"table   {s.tt_stores} stores, {share(s.tt_evictions, s.tt_stores):.1%} evicted another "
          f"position, {share(s.tt_evict_deep, s.tt_stores):.2%} one of this search as deep or deeper"
          + (f"; pruned {s.pruned}" if s.pruned else "")
          + (f"; threat plies in quiescence {s.qs_threats}" if s.qs_threats else ""))
    print("start   nodes per iteration from the start position: "
          + ", ".join(f"d{d} {n}" for d, n in enumerate(prof.start_iterations, 1)))
    if not args.quick:
        rows = depth_times(args.think, args.evaluator, args.hash, args.mtdf)
        reached = max((r[0] for r in rows), default=0)
        last = rows[-1] if rows else (0, 0.0, 0)
        speed = f", {last[2] / last[1] / 1e6:.2f} M nodes/s" if last[1] > 0 else ""
        print(f"depth   reached in {args.think:g} s from the start position: {reached}{speed}")
        print("        " + ", ".join(f"d{d} {t * 1000:.0f} ms" for d, t, _n in rows if d >= 5))
    print(f"Bench: {nodes}")
    return 0
