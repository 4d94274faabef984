#!/usr/bin/env python3
"""Does the default evaluator beat Samuel's material evaluator?  A thin call of ``samuel match``.

    .venv/bin/python scripts/material_match.py [--movetime 0.1] [--concurrency 2] [more samuel match args]

The ``default`` and ``material`` evaluators, both on the PVS search at a fixed time a move, over
the 144 crossboard ACF ballots with colours reversed (288 games); a game still going after 150
moves from the ballot is a draw.  ``samuel match`` referees, rates and reports (W/D/L, Elo, the
pentanomial pairs, endings) and writes every game as PDN.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from samuel.cli import main as samuel_main

REPO_ROOT = Path(__file__).resolve().parents[1]


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--movetime", type=float, default=0.1, help="seconds a move (default 0.1)")
    p.add_argument("--concurrency", type=int, default=2, help="games at once (default 2)")
    p.add_argument("--out", type=Path, default=REPO_ROOT / "out" / "material_match")
    args, rest = p.parse_known_args(argv)
    return samuel_main(["match", "--engine", "name=default", "eval=default",
                        "--engine", "name=material", "eval=material",
                        "--tc", f"st={args.movetime}", "--maxmoves", "150",
                        "--concurrency", str(args.concurrency), "--out", str(args.out),
                        "--event", "samuel: default vs material evaluator", *rest])


if __name__ == "__main__":
    sys.exit(main())
