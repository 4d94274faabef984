"""samuel openings: build, probe and show the opening book (engine/opening_book.py).

Not ``samuel learn book``: that is Samuel's book learning, which fits an
evaluation to book moves.  This book is played from at the root.
"""

from __future__ import annotations

import argparse
import time

from samuel.argtypes import bounded_int, evaluator_type, nonnegative_int, positive_int
from samuel.outputs import output_file, replacing


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("openings", help="the opening book: build from PDN games, probe a position, "
                       "show a file", description=__doc__.split("\n\n")[0] if __doc__ else None)
    verbs = p.add_subparsers(dest="verb", metavar="VERB", required=True)
    b = verbs.add_parser("build", help="build a book from PDN games, checked by the engine's analysis")
    b.add_argument("--pdn", required=True, help="PDN file of games (e.g. OCA_2.0.pdn)")
    b.add_argument("--out", required=True, type=output_file, help="book file to write")
    b.add_argument("--max-ply", type=bounded_int(1, 200), default=30,
                   help="collect positions up to this many plies into each game (default: %(default)s)")
    b.add_argument("--min-games", type=positive_int, default=3,
                   help="a position and a move of it must come from this many games (default: %(default)s)")
    b.add_argument("--nodes", type=nonnegative_int, default=20_000,
                   help="nodes for each analysis search; 0 skips the analysis (default: %(default)s)")
    b.add_argument("--drop-margin", type=bounded_int(0, 30000), default=60, metavar="CENTIMEN",
                   help="drop moves analysis scores this far below the best (default: %(default)s)")
    b.add_argument("--thin-games", type=nonnegative_int, default=12,
                   help="add the engine's best move where the experts' moves come from fewer games "
                        "(default: %(default)s)")
    b.add_argument("--eval", default="default", type=evaluator_type,
                   help="evaluator of the analysis searches (default: %(default)s)")
    b.add_argument("--quiet", action="store_true", help="no progress bar")
    b.set_defaults(func=run_build)
    q = verbs.add_parser("probe", help="the book moves of a position (FEN, or moves from the start)")
    q.add_argument("position", nargs="?", default="",
                   help="a FEN, or moves from the start such as '11-15 23-19' (default: the start)")
    q.add_argument("--book", default="default", help="book file, or default (the shipped book)")
    q.set_defaults(func=run_probe)
    s = verbs.add_parser("show", help="a book file's header and its largest positions")
    s.add_argument("book", nargs="?", default="default", help="book file, or default (the shipped book)")
    s.add_argument("--top", type=nonnegative_int, default=5, help="positions to list (default: %(default)s)")
    s.set_defaults(func=run_show)


def run_build(args: argparse.Namespace) -> int:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from engine import opening_book as ob
    from engine.evaluators import by_name
    from engine.pdn import iter_games
    from engine.search import Searcher
    from samuel.progress import progress

    settings = ob.BuildSettings(max_ply=args.max_ply, min_games=args.min_games, nodes=args.nodes,
                                drop_margin=args.drop_margin, thin_games=args.thin_games)
    start = time.perf_counter()
    with open(args.pdn, "rb") as fh:  # the count for the bar: one [Event tag per game, near enough
        expected = fh.read().count(b"[Event") or None
    with progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), TimeRemainingColumn(), disable=args.quiet) as bar:
        reading = bar.add_task("reading games", total=expected)
        games = ((g.initial_fen, g.moves, g.result) for g in iter_games(args.pdn, strict=False))
        collected = ob.collect(games, settings.max_ply,
                               lambda n: bar.update(reading, completed=n) if n % 100 == 0 else None)
        bar.update(reading, completed=collected.games, total=collected.games)
        analysing = bar.add_task("analysing", total=None)

        def on_progress(stage: str, done: int, total: int) -> None:
            if done % 20 == 0 or done == total:
                bar.update(analysing, completed=done, total=total)

        searcher = Searcher(by_name(args.eval), hash_mb=32) if settings.nodes > 0 else None
        book = ob.build(collected, settings, searcher, on_progress)
    with replacing(args.out) as tmp:
        tmp.write_bytes(book.to_bytes())
    engine_moves = int((book.records["flags"] & ob.FLAG_ENGINE != 0).sum())
    print(f"{args.out}: {book.info.positions:,} positions, {len(book):,} moves ({engine_moves:,} added by "
          f"the engine) from {collected.games:,} games, {len(book.to_bytes()):,} bytes "
          f"({time.perf_counter() - start:.1f} s)")
    return 0


def _board(text: str):  # type: ignore[no-untyped-def]
    from engine.board import Board

    text = text.strip()
    if ":" in text:
        return Board(text)
    board = Board()
    board.push_many(text.split())
    return board


def run_probe(args: argparse.Namespace) -> int:
    from engine import opening_book as ob

    book = ob.load(args.book)
    if book is None:
        print("no book (--book none)")
        return 1
    board = _board(args.position)
    moves = book.probe(board)
    if not moves:
        print(f"{board.fen()}: not in the book")
        return 1
    print(f"{board.fen()}: {len(moves)} book move{'s' if len(moves) != 1 else ''}")
    print(f"{'move':<8} {'games':>6} {'win':>5} {'draw':>5} {'loss':>5} {'expect':>7} {'score':>7} "
          f"{'depth':>5} {'value':>7}")
    for m in moves:
        tag = "  (engine)" if m.engine_added else ""
        print(f"{board.notation(m.move):<8} {m.games:>6} {m.wins:>5} {m.draws:>5} {m.losses:>5} "
              f"{m.expected:>7.3f} {m.score / 100:>+7.2f} {m.depth:>5} {m.value / 100:>+7.2f}{tag}")
    return 0


def run_show(args: argparse.Namespace) -> int:
    from engine import opening_book as ob

    book = ob.load(args.book)
    if book is None:
        print("no book")
        return 1
    i = book.info
    print(f"{book.path}: opening book version {ob.VERSION}")
    print(f"  {i.positions:,} positions, {i.entries:,} moves, from {i.source_games:,} games")
    print(f"  up to ply {i.max_ply}, at least {i.min_games} games a move; analysis {i.analysis_nodes:,} "
          f"nodes a move, drop margin {i.drop_margin} centi-men")
    engine_moves = int((book.records["flags"] & ob.FLAG_ENGINE != 0).sum())
    print(f"  {engine_moves:,} moves added by the engine's analysis")
    if args.top:
        biggest = sorted(book.positions(), key=lambda p: -int(p[2]["games"].sum()))[: args.top]
        print(f"largest {len(biggest)} positions:")
        for hi, lo, rows in biggest:
            board = ob.board_of_key(hi, lo)
            best = book.probe(board)
            first = board.notation(best[0].move) if best else "-"
            print(f"  {int(rows['games'].sum()):>6} games  {len(rows)} moves  best {first:<6} {board.fen()}")
    return 0
