"""samuel pdn: check that every game of a PDN file replays legally, or show one game."""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

from samuel.argtypes import nonnegative_int, positive_int

if TYPE_CHECKING:
    from engine.pdn import PdnGame


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("pdn", help="read PDN game files (check them, show a game)")
    actions = p.add_subparsers(dest="pdn_command", metavar="ACTION", required=True)

    check = actions.add_parser("check", help="replay every game and report the ones that fail")
    check.add_argument("file", help="PDN file")
    check.add_argument("--limit", type=nonnegative_int, default=None, metavar="N",
                       help="read only the first N games")

    show = actions.add_parser("show", help="print one game's tags, moves and final position")
    show.add_argument("file", help="PDN file")
    show.add_argument("--game", type=positive_int, required=True, metavar="N", help="game number, from 1")

    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # engine.pdn loads the whole engine (C core included): only when the command runs.
    if args.pdn_command == "check":
        return run_check(args)
    return run_show(args)


def run_check(args: argparse.Namespace) -> int:
    from engine.pdn import iter_games

    path: str = args.file
    size = os.path.getsize(path)  # FileNotFoundError before anything else
    games = moves = 0
    errors: list[str] = []
    start = time.perf_counter()
    with open(path, "rb") as fh:
        stream: Iterator[PdnGame] = iter_games(fh, strict=False)
        if args.limit is not None:
            stream = itertools.islice(stream, args.limit)
        from rich.progress import BarColumn, TextColumn, TimeElapsedColumn

        from samuel.progress import progress as make_progress

        bar = make_progress(TextColumn("[bold]pdn check"), BarColumn(),
                            TextColumn("{task.percentage:>3.0f}%"), TextColumn("{task.fields[status]}"),
                            TimeElapsedColumn(), transient=True)
        total = args.limit if args.limit is not None else size
        with bar:
            task = bar.add_task("pdn check", total=total, status="")
            for game in stream:
                games += 1
                moves += len(game.moves)
                if game.error:
                    errors.append(game.error)
                if games % 50 == 0:
                    done = games if args.limit is not None else fh.tell()
                    bar.update(task, completed=done, status=f"games {games}, errors {len(errors)}")
    elapsed = time.perf_counter() - start
    print(f"games {games}, moves {moves}, errors {len(errors)}")
    for message in errors:
        print(message)
    print(f"time {elapsed:.1f} s", file=sys.stderr)
    return 1 if errors else 0


def run_show(args: argparse.Namespace) -> int:
    from engine.pdn import game_at, movetext, tag_line

    game = game_at(args.file, args.game, strict=False)
    if game is None:
        print(f"samuel pdn: error: {args.file} has fewer than {args.game} games", file=sys.stderr)
        return 2
    for name, value in game.tags.items():
        print(tag_line(name, value))
    print(movetext(game, result=True))
    print(f"FEN {game.board().fen()}")
    if game.error:
        print(game.error, file=sys.stderr)
        return 1
    return 0
