"""samuel agree: how often an evaluator agrees with the experts' moves in book games.

    samuel agree --eval griffith-phase --pdn ../shared/data/OCA_2.0.pdn [--depth N]
                 [--split test|unseen|train|all] [--games N] [--seed S]

For every position of the games where the side to move had a choice, each
legal move's position is scored (statically, or after an N-ply search of it)
and the book move is compared with the alternatives.  Prints Samuel's C under
both tie rules, Griffith's D, top-1 agreement, the book move's mean rank and
percentile rank, the tie rate, a bootstrap 95% interval for C over games, and
the same indices with ties broken at random (Griffith's randomized scores).
Definitions: engine/learners/agreement.py and docs/learners/book.md.  The figures go to
stdout, the progress bar to stderr.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from samuel.argtypes import EvaluatorAction, evaluator_type, nonnegative_int, positive_int
from samuel.outputs import output_dir

if TYPE_CHECKING:
    from engine.learners import agreement, book_data

ProgressFn = Callable[[int, int], None]

SPLITS = ("train", "test", "unseen", "all")
"""book_data.SPLITS, repeated so the parser is built without numpy (a test keeps them equal)."""


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("agree", help="agreement of an evaluator with book moves (Samuel's C, Griffith's D)")
    p.add_argument("--eval", required=True, type=evaluator_type, action=EvaluatorAction)
    p.add_argument("--pdn", required=True, help="PDN file of expert games")
    p.add_argument("--depth", type=nonnegative_int, default=0,
                   help="search each alternative this many plies (default 0: static)")
    p.add_argument("--split", choices=SPLITS, default="test",
                   help="positions used: the held-out games (number %% 10 == 0), 'unseen' (their "
                        "positions that no training game holds: the honest test), the other games, or "
                        "all (default: %(default)s)")
    p.add_argument("--games", type=positive_int, default=None,
                   help="read only the first N games of the file (before the split)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random tie-break and the bootstrap")
    p.add_argument("--cache-dir", default=None, type=output_dir,
                   help="cache the extracted positions as .npz here (e.g. out/cache)")
    p.set_defaults(func=run)


@contextmanager
def progress_bar(enabled: bool = True) -> Iterator[Callable[[str], ProgressFn]]:
    """Yields ``task(description) -> progress(done, total)``: a rich bar on a terminal, else lines."""
    if not enabled:
        yield lambda _d: (lambda _a, _b: None)
        return
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn

    from samuel.progress import progress

    with progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), transient=True) as bar:

        def task(description: str) -> ProgressFn:
            tid = bar.add_task(description, total=None)

            def update(done: int, total: int) -> None:
                bar.update(tid, completed=done, total=total or None)

            return update

        yield task


def run(args: argparse.Namespace) -> int:
    from engine.evaluators import by_name
    from engine.learners import agreement, book_data

    evaluator = by_name(args.eval)
    with progress_bar() as task:
        positions = book_data.load(args.pdn, split=args.split, limit_games=args.games,
                                   cache_dir=args.cache_dir, progress=task("reading games"))
        if len(positions) == 0:
            print(f"samuel agree: error: no book positions in {args.pdn} (split {args.split})",
                  file=sys.stderr)
            return 2
        s = agreement.scores(evaluator, positions, depth=args.depth, progress=task("scoring"))
        training = None
        if args.split == "test":  # which held-out positions the training games hold too
            training = book_data.load(args.pdn, split="train", limit_games=args.games,
                                      cache_dir=args.cache_dir, progress=task("reading the training games"))
    a = agreement.measure_scores(s, positions, depth=args.depth, seed=args.seed)
    r = agreement.measure_scores(s, positions, depth=args.depth, tie_break="random", seed=args.seed)
    print(report(evaluator.name, args.pdn, args.split, positions, a, r, args.seed))
    if training is not None:
        seen = book_data.seen_in(positions, training)
        parts = agreement.breakdown(s, positions, seen, depth=args.depth, seed=args.seed)
        rparts = agreement.breakdown(s, positions, seen, depth=args.depth, tie_break="random", seed=args.seed)
        for name, label in (("unseen", "never seen in training"), ("seen", "also in the training games")):
            if name in parts:
                x, y = parts[name], rparts[name]
                print(f"{label:<27}  {x.positions:>7} positions: C {x.c_samuel:+.4f} "
                      f"[{x.c_samuel_ci[0]:+.4f}, {x.c_samuel_ci[1]:+.4f}]  D {x.d:.4f}  "
                      f"random ties C {y.c_samuel:+.4f}")
    return 0


def report(name: str, pdn: str, split: str, positions: book_data.BookPositions,
           a: agreement.Agreement, r: agreement.Agreement, seed: int) -> str:
    depth = "static" if a.depth == 0 else f"search depth {a.depth}"
    moves = positions.counts.mean() if len(positions) else 0.0
    lines = [
        f"evaluator {name}  ({depth})",
        f"book      {pdn}  split {split}: {a.games} games, {a.positions} positions with a choice, "
        f"{moves:.2f} moves each; {positions.skipped} unreadable games skipped",
        f"C  Samuel ties (ties count for neither)      {a.c_samuel:+.4f}  "
        f"95% CI [{a.c_samuel_ci[0]:+.4f}, {a.c_samuel_ci[1]:+.4f}]",
        f"C  Griffith ties (equal counts as higher)    {a.c_griffith:+.4f}  "
        f"95% CI [{a.c_griffith_ci[0]:+.4f}, {a.c_griffith_ci[1]:+.4f}]",
        f"D  book move above every alternative         {a.d:.4f}   (no alternative above: {a.d_weak:.4f})",
        f"top-1 (ties shared)                          {a.top1:.4f}",
        f"mean rank of the book move                   {a.mean_rank:.3f}   percentile {a.percentile:.4f}",
        f"tie rate                                     {a.tie_rate:.4f}   (L {a.L}, H {a.H}, T {a.T})",
        f"ties broken at random (seed {seed}):           C {r.c_samuel:+.4f}  "
        f"95% CI [{r.c_samuel_ci[0]:+.4f}, {r.c_samuel_ci[1]:+.4f}]  D {r.d:.4f}  top-1 {r.top1:.4f}  "
        f"mean rank {r.mean_rank:.3f}",
    ]
    if positions.errors:
        lines.append(f"first skipped game: {positions.errors[0]}")
    return "\n".join(lines)
