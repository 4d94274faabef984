"""``samuel match``: two engines over a deck of colour-reversed openings, with an optional SPRT.

The same runner as ``samuel tournament`` (see there for engines, limits and
output); a match adds ``--sprt`` and stops as soon as it decides.
"""

from __future__ import annotations

import argparse

from samuel.commands.tournament import add_arguments, run


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("match", help="two engines over the ballots in colour-reversed pairs (optional SPRT)",
                       description=__doc__.split("\n\n")[0] if __doc__ else None)
    add_arguments(p, match=True)
    p.set_defaults(func=lambda args: run(args, match=True))
