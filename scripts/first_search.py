#!/usr/bin/env python3
"""How soon a search from a cleared table gets going: a 1 s search from the start position right
after ``new_game``, six times, printing when depth 4 was finished and the depth reached.

``--unprepared`` clears the table without faulting it in (as every new game did before issue 32), so
the two can be compared on the same build.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import Board, Limit, Searcher, SearchInfo


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--unprepared", action="store_true", help="clear the table but do not fault it in")
    ap.add_argument("--hash", type=int, default=64, help="table size in MB (default: %(default)s)")
    ap.add_argument("--trials", type=int, default=6)
    args = ap.parse_args()
    searcher = Searcher(hash_mb=args.hash)
    for trial in range(args.trials):
        if args.unprepared:
            searcher._core.clear()  # what new_game did before: a fresh mapping, faulted in by the search
        else:
            searcher.new_game()
        start = time.perf_counter()
        finished: dict[int, float] = {}

        def on_info(info: SearchInfo, start: float = start, finished: dict[int, float] = finished) -> None:
            finished.setdefault(info.depth, time.perf_counter() - start)

        result = searcher.search(Board(), Limit(movetime=1.0), on_info=on_info)
        depth4 = min(t for d, t in finished.items() if d >= 4)
        print(f"trial {trial}: depth 4 after {depth4 * 1000:.1f} ms, depth {result.info.depth} "
              f"in {time.perf_counter() - start:.3f} s", flush=True)


if __name__ == "__main__":
    main()
