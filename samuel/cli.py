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

COMMANDS: dict[str, str] = {
    "perft": "count leaf nodes to a depth (move-generator check)",
    "bench": "measure perft and search speed; print the node signature",
    "analyse": "search a position and print each depth as it completes",
    "play": "play a game against the engine in the terminal",
    "pdn": "read PDN game files (check them, show a game)",
    "serve": "run the engine server (DXP and cb over TCP) until stopped",
    "hub": "speak the Hub protocol (Scan's) on stdin/stdout",
    "cb": "speak the cb protocol (CheckerBoard's engine API as text lines) on stdin/stdout",
    "dxp": "DamExchange (DXP): serve as follower, or play another DXP engine",
    "emu704": "the IBM 704 emulator: assemble and run SAP programs",
    "learn": "train a learner (generalization self-play, book learning, rote memory, evolution)",
    "agree": "agreement of an evaluator with book moves (Samuel's C, Griffith's D)",
    "match": "two engines over the ballots in colour-reversed pairs (optional SPRT)",
    "tournament": "a rating tournament: round-robin, gauntlet or Swiss",
    "ratings": "the standings of a stored tournament: report or plot",
    "egdb": "the endgame database: build, check, probe",
    "openings": "the opening book: build from PDN games, probe a position, show a file",
}
"""Every command and its line in ``samuel --help`` (the overview is built from this alone)."""


def package_version() -> str:
    """The installed package's version (``unknown`` when run from a tree that is not installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("samuel")
    except PackageNotFoundError:
        return "unknown (not installed)"


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser; with ``argv``, only the command it names is loaded.

    Loading a command imports what it runs on (the C core, numpy, rich, the
    emulator ...): hundreds of modules.  ``samuel --help`` and ``samuel X`` need
    only the overview and X, so the others stay one-line placeholders.
    """
    parser = argparse.ArgumentParser(
        prog="samuel",
        description="samuel: a checkers engine reviving Arthur Samuel's 1959 learner on a modern core.",
    )
    parser.add_argument("--version", action="version", version=f"samuel {package_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    if argv is None:
        register_commands(sub, list(COMMANDS))
        return parser
    wanted = next((a for a in argv if not a.startswith("-")), None)
    for name, text in COMMANDS.items():
        if name == wanted:
            register_commands(sub, [name])
        else:
            sub.add_parser(name, help=text)
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
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    from engine.errors import SamuelError  # here: the engine package is not needed for --help
    from samuel.outputs import OutputPathError

    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except (SamuelError, OutputPathError) as exc:
        print(f"samuel {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except FileNotFoundError as exc:
        what = f"no such file: {exc.filename}" if exc.filename is not None else str(exc)
        print(f"samuel {args.command}: error: {what}", file=sys.stderr)
        return 2
    except IsADirectoryError as exc:
        print(f"samuel {args.command}: error: {exc.filename} is a directory, not a file", file=sys.stderr)
        return 2
    except UnicodeDecodeError as exc:
        print(f"samuel {args.command}: error: not a text file: byte 0x{exc.object[exc.start]:02x} at offset "
              f"{exc.start} is not UTF-8", file=sys.stderr)
        return 2
    except MemoryError as exc:
        print(f"samuel {args.command}: error: out of memory: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C: a short word instead of a traceback, and the shell's 128 + SIGINT
        print(f"samuel {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `samuel perft ... | head`): not an error.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:  # permission denied, not a directory, disk full ...
        where = f"{exc.filename}: " if exc.filename is not None else ""
        print(f"samuel {args.command}: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
