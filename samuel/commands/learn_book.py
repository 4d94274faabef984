"""samuel learn book: train an evaluator from the experts' moves in book games.

    samuel learn book --method phase --pdn ../shared/data/OCA_2.0.pdn --out out/phase.json [--games N]

The positions come from the training split of the file (games whose number is
not a multiple of 10; engine/learners/book_data.py), so ``samuel agree
--split test`` measures the result on games it never saw.  The evaluator is
saved as JSON under the name of the output file's stem; copy it to
engine/data/evaluators/ to use it by name everywhere.

Each method is a module of engine/learners/ with
``train(positions, *, progress=None, **opts) -> engine.evaluators.Evaluator``
(``positions`` is a ``book_data.BookPositions``).
"""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path
from types import ModuleType

from engine.errors import OptionError
from samuel.argtypes import positive_int
from samuel.commands.agree import SPLITS, progress_bar
from samuel.outputs import output_dir, output_file_in_new_folders


def method_module(name: str) -> ModuleType:
    """The learner module of a method (engine.learners.registry); OptionError if the name is unknown."""
    from engine.learners import registry

    return registry.module_of(registry.method(name))


def register(learners: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = learners.add_parser("book", help="train an evaluator from book games (Griffith, Samuel 1967)",
                            description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    from engine.learners.registry import BOOK_METHODS

    help_methods = "; ".join(f"{m.name}: {m.description}" for m in BOOK_METHODS)
    p.add_argument("--method", required=True, choices=[m.name for m in BOOK_METHODS], metavar="NAME",
                   help=help_methods)
    p.add_argument("--pdn", required=True, help="PDN file of expert games")
    p.add_argument("--out", required=True, type=output_file_in_new_folders,
                   help="evaluator file to write (.json)")
    p.add_argument("--games", type=positive_int, default=None,
                   help="read only the first N games of the file (before the split)")
    p.add_argument("--split", choices=SPLITS, default="train",
                   help="games to learn from (default: %(default)s; 'test' is held out)")
    p.add_argument("--seed", type=int, default=0, help="seed for learners that sample")
    p.add_argument("--cache-dir", default=None, type=output_dir,
                   help="cache the extracted positions as .npz here")
    p.add_argument("--measure", action="store_true",
                   help="then print C and D on the held-out games of the same file")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    out = Path(args.out)
    if out.suffix != ".json":
        raise OptionError(f"--out must name a .json file, got {args.out!r}")
    module = method_module(args.method)
    from engine import evaluators
    from engine.learners import (
        agreement,  # numpy: only when the command runs
        book_data,
    )

    with progress_bar() as task:
        positions = book_data.load(args.pdn, split=args.split, limit_games=args.games,
                                   cache_dir=args.cache_dir, progress=task("reading games"))
        if len(positions) == 0:
            raise OptionError(f"no book positions in {args.pdn} (split {args.split})")
        trained = module.train(positions, progress=task(f"training {args.method}"), seed=args.seed)
        trained = dataclasses.replace(trained, name=out.stem)
        evaluators.save(trained, out)
        print(f"trained {args.method} on {len(positions)} positions of {positions.num_games} games "
              f"({positions.skipped} unreadable games skipped); wrote {out} (evaluator {out.stem!r})")
        if args.measure:
            test = book_data.load(args.pdn, split="test", limit_games=args.games, cache_dir=args.cache_dir,
                                  progress=task("reading held-out games"))
            if len(test):
                s = agreement.scores(trained, test, progress=task("scoring"))
                a = agreement.measure_scores(s, test, seed=args.seed)
                r = agreement.measure_scores(s, test, tie_break="random", seed=args.seed)
                print(f"held out ({len(test)} positions): C {a.c_samuel:+.4f} (Samuel ties), "
                      f"{a.c_griffith:+.4f} (Griffith ties), {r.c_samuel:+.4f} (random ties); "
                      f"D {a.d:.4f}; top-1 {a.top1:.4f}; mean rank {a.mean_rank:.3f}")
    return 0
