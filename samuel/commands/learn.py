"""samuel learn: train Samuel's learners.  One module per learner, each adding its own subcommand:

    samuel learn generalize ...   (samuel/commands/learn_generalize.py)
    samuel learn book ...         (samuel/commands/learn_book.py)
    samuel learn rote ...         (samuel/commands/learn_rote.py)
    samuel learn evolve ...       (samuel/commands/learn_evolve.py)
    samuel learn tune ...         (samuel/commands/learn_tune.py)
    samuel learn selfplay ...     (samuel/commands/learn_selfplay.py)
"""

from __future__ import annotations

import argparse

from samuel.cli import register_commands

LEARNERS = ["learn_generalize", "learn_book", "learn_rote", "learn_evolve", "learn_tune", "learn_selfplay"]


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("learn", help="train a learner (generalization self-play, book learning, rote memory, "
                                     "evolution)")
    register_commands(p.add_subparsers(dest="learner", metavar="LEARNER"), LEARNERS)

    def no_learner(_args: argparse.Namespace) -> int:
        p.print_help()
        return 2

    p.set_defaults(func=no_learner)
