"""Fixed work for the C core, to compare two builds by instructions executed (issue 31).

    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \\
        .venv/bin/python scripts/bench_core_ir.py {noop,bench11,bench,fogel,pvsnet,perft}

On a loaded machine wall-clock and even CPU time vary by a third; the instruction count (cachegrind's
``I refs``) does not.  Subtract the ``noop`` run's count (imports and loading the evaluators) from the
others.  Each run also prints its nodes, process CPU seconds and M nodes/s.  It goes through
``engine.core`` only, so it runs against any build of the core (``PYTHONPATH=<tree>``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import core, evaluators
from engine.bench import BENCH_POSITIONS, random_positions
from engine.board import Board


def run(
    evaluator: str, raws: list[core.RawPosition], mode: int, depth: int, hash_mb: int
) -> tuple[int, float]:
    """Nodes and CPU seconds of a fixed-depth search of each position, the table cleared before each."""
    engine = core.CoreEngine(hash_mb)
    engine.set_eval(evaluators.by_name(evaluator).spec)
    nodes, start = 0, time.process_time()
    for raw in raws:
        engine.clear()
        nodes += engine.search(raw, [], core.CoreLimits(mode=mode, depth=depth))[1].nodes
    return nodes, time.process_time() - start


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    p.add_argument("what", choices=["noop", "bench11", "bench", "fogel", "pvsnet", "perft"])
    what = p.parse_args().what
    if what == "noop":
        nodes, seconds = 0, 0.0
    elif what in ("bench11", "bench"):
        bench = [Board(fen).raw for fen in BENCH_POSITIONS]
        nodes, seconds = run("default", bench, core.MODE_PVS, 11 if what == "bench11" else 13, 64)
    elif what in ("fogel", "pvsnet"):
        raws = [b.raw for b in random_positions(200, 1999)[:100]]
        mode, depth = (core.MODE_FOGEL, 6) if what == "fogel" else (core.MODE_PVS, 7)
        nodes, seconds = run("evolved-blondie", raws, mode, depth, 16)
    else:
        start = time.process_time()
        nodes = core.perft(Board().raw, 11)
        seconds = time.process_time() - start
    rate = nodes / seconds / 1e6 if seconds > 0 else 0.0
    print(f"{what} {nodes} nodes {seconds:.3f} s {rate:.3f} M/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
