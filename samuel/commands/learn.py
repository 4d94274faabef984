"""samuel learn: train Samuel's learners.  One module per learner, each adding its own subcommand:

    samuel learn generalize ...   (samuel/commands/learn_generalize.py)
    samuel learn book ...         (samuel/commands/learn_book.py)
    samuel learn rote ...         (samuel/commands/learn_rote.py)
"""

from __future__ import annotations

import argparse
import importlib

LEARNERS = ["learn_generalize", "learn_book", "learn_rote"]


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("learn", help="train a learner (generalization self-play, book learning, rote memory)")
    learners = p.add_subparsers(dest="learner", metavar="LEARNER")
    for name in LEARNERS:
        try:
            module = importlib.import_module(f"samuel.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"samuel.commands.{name}":
                raise
            continue
        module.register(learners)

    def no_learner(_args: argparse.Namespace) -> int:
        p.print_help()
        return 2

    p.set_defaults(func=no_learner)
