"""Time per generation of the evolution on 1, 2 or more cores, and proof that they agree.

    .venv/bin/python scripts/bench_evolve.py [--generations 4] [--preset paper] [--workers 1 2]
                                             [--ray 2] [--ray-address ADDR]

Runs the same generations from the same seed once per executor: in this process on one core, on
2 (or more) threads, and on a Ray pool of N workers (``--ray``, needs ``pip install 'samuel[ray]'``;
``--ray-address`` joins a cluster, so N may be more than this machine's cores).  Prints the
seconds per generation of each, and checks that every executor gave the same generations: the same
points, the same parents' weights and the same random state at the end.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from concurrent.futures import Executor, ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.learners.evolve import Evolution, EvolveConfig, generations


def fingerprint(run: Evolution) -> str:
    h = hashlib.sha256()
    for p in run.parents:
        h.update(p.weights.tobytes())
        h.update(repr(p.king).encode())
    h.update(repr([e.best for e in run.log]).encode())
    h.update(repr(run.rng.bit_generator.state).encode())
    return h.hexdigest()[:16]


def timed(config: EvolveConfig, count: int, executor: Executor | None) -> tuple[list[float], str]:
    """Seconds of each generation, and the run's fingerprint."""
    run = Evolution.start(config)
    seconds = []
    started = time.perf_counter()
    for _ in generations(run, count, executor=executor):
        now = time.perf_counter()
        seconds.append(now - started)
        started = now
    return seconds, fingerprint(run)


def report(label: str, seconds: list[float], fp: str) -> None:
    """The first generation apart (a pool's workers start during it), then the mean of the rest."""
    rest = seconds[1:] or seconds
    print(f"  {label:16s} {sum(rest) / len(rest):6.2f} s a generation (first {seconds[0]:.2f} s)   "
          f"generations {fp}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    p.add_argument("--generations", type=int, default=4)
    p.add_argument("--preset", default="paper", choices=("paper", "modern"))
    p.add_argument("--network", default="blondie", choices=("blondie", "spatial"))
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--workers", type=int, nargs="*", default=[1, 2],
                   help="thread counts to time (1: no pool)")
    p.add_argument("--ray", type=int, nargs="*", default=[], metavar="N", help="Ray pool sizes to time")
    p.add_argument("--ray-address", default=None)
    args = p.parse_args()
    config = EvolveConfig(preset=args.preset, network=args.network, seed=args.seed, panel_every=0)
    print(f"{args.generations} generations of the {args.preset} preset ({args.network}), seed {args.seed}")
    seen: dict[str, str] = {}
    for workers in args.workers:
        pool = ThreadPoolExecutor(workers) if workers > 1 else None
        try:
            seconds, fp = timed(config, args.generations, pool)
        finally:
            if pool is not None:
                pool.shutdown()
        seen[f"{workers} thread(s)"] = fp
        report(f"{workers} thread(s):", seconds, fp)
    for n in args.ray:
        from matches.ray_pool import RayPool

        ray_pool = RayPool(args.ray_address, n)
        try:
            seconds, fp = timed(config, args.generations, ray_pool)
        finally:
            ray_pool.shutdown()
        seen[f"Ray, {n} workers"] = fp
        report(f"Ray, {n} workers:", seconds, fp)
    same = len(set(seen.values())) == 1
    print("every executor gave the same generations" if same else f"the executors DISAGREE: {seen}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
