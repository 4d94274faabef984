"""The ``samuel`` command line: one subcommand per module in ``samuel.commands``.

Each command module defines ``register(subparsers)``, which adds its parser and
sets ``func`` to a callable ``(args) -> int`` (the exit status).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from engine.errors import SamuelError

COMMANDS = [
    "perft", "bench", "analyse", "play", "pdn", "serve", "hub", "cb", "dxp", "emu704", "learn", "agree",
    "match", "tournament", "ratings",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="samuel",
        description="samuel: a checkers engine reviving Arthur Samuel's 1959 learner on a modern core.",
    )
    register_commands(parser.add_subparsers(dest="command", metavar="COMMAND"), COMMANDS)
    return parser


def register_commands(sub: argparse._SubParsersAction, names: Sequence[str]) -> None:  # type: ignore[type-arg]
    """Let each ``samuel.commands.NAME`` module add its parser; a module not written yet is left out."""
    for name in names:
        try:
            module = importlib.import_module(f"samuel.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"samuel.commands.{name}":
                raise
            continue
        module.register(sub)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except SamuelError as exc:
        print(f"samuel {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except FileNotFoundError as exc:
        print(f"samuel {args.command}: error: no such file: {exc.filename}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `samuel perft ... | head`): not an error.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
