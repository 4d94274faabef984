"""samuel learn rote: Samuel's rote learning, a memory of positions and their backed-up scores.

    samuel learn rote play  --db rote.db --games 20 --depth 3    # self-play into the memory
    samuel learn rote stats --db rote.db                          # what the memory holds
    samuel learn rote forget --db rote.db --merges 5              # age it 5 merges, forget the old
    samuel learn rote lookup --db rote.db FEN                     # one position's stored score

The memory is an SQLite file (engine/learners/rote_store.py); ``samuel serve --rote FILE``
lets every game played through the server add to it.  See docs/learners/rote.md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from engine.board import Board
from engine.evaluators import by_name, evaluator_name
from engine.learners.rote import AgePolicy, RoteMemory, StoreStats, self_play
from engine.search import Mode
from samuel.argtypes import positive_int


def register(learners: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = learners.add_parser(
        "rote", help="Samuel's rote learning: a memory of positions with their backed-up scores",
        description="Samuel's 1959 rote learning: the positions met in play are saved with their "
                    "backed-up scores and plies, and later searches use them at their leaves.",
    )
    sub = p.add_subparsers(dest="rote_command", metavar="ACTION")

    def common(q: argparse.ArgumentParser) -> None:
        q.add_argument("--db", required=True, metavar="FILE", help="the rote memory (SQLite file)")

    def policy(q: argparse.ArgumentParser) -> None:
        d = AgePolicy()
        q.add_argument("--initial-age", type=int, default=d.initial_age, metavar="N",
                       help="age of a newly saved position (default: %(default)s)")
        q.add_argument("--max-age", type=int, default=d.max_age, metavar="N",
                       help="positions older than this are forgotten (default: %(default)s)")
        q.add_argument("--max-positions", type=positive_int, default=d.max_positions, metavar="N",
                       help="beyond this many, the lowest-ply positions are culled (default: %(default)s)")

    play = sub.add_parser("play", help="play games against itself, saving every searched position")
    common(play)
    policy(play)
    play.add_argument("--games", type=positive_int, default=10, metavar="N", help="games (default: 10)")
    play.add_argument("--depth", type=positive_int, default=3, metavar="PLY",
                      help="search depth (Samuel mode: the minimum ply; default: %(default)s)")
    play.add_argument("--mode", default="samuel", choices=("samuel", "pvs"),
                      help="search mode (default: %(default)s)")
    play.add_argument("--eval", "--evaluator", dest="evaluator", default="default", type=evaluator_name,
                      help="evaluator (default: %(default)s)")
    play.add_argument("--opening-plies", type=int, default=4, metavar="N",
                      help="random plies at the start of each game, so games differ (default: %(default)s)")
    play.add_argument("--max-plies", type=positive_int, default=200, metavar="N",
                      help="adjourn a game after this many plies (default: %(default)s)")
    play.add_argument("--seed", type=int, default=None, help="random seed for the openings")
    play.add_argument("--quiet", action="store_true", help="no progress bar")
    play.set_defaults(func=run_play)

    stats = sub.add_parser("stats", help="print what the memory holds")
    common(stats)
    stats.set_defaults(func=run_stats)

    forget = sub.add_parser("forget", help="age the memory by empty merges, forgetting what grows too old")
    common(forget)
    policy(forget)
    forget.add_argument("--merges", type=positive_int, default=1, metavar="N",
                        help="empty merges to run (default: %(default)s)")
    forget.set_defaults(func=run_forget)

    lookup = sub.add_parser("lookup", help="the stored score of a position")
    common(lookup)
    lookup.add_argument("fen", help="the position (FEN)")
    lookup.set_defaults(func=run_lookup)

    def no_action(_args: argparse.Namespace) -> int:
        p.print_help()
        return 2

    p.set_defaults(func=no_action)


def _policy(args: argparse.Namespace) -> AgePolicy:
    return AgePolicy(initial_age=args.initial_age, max_age=args.max_age, max_positions=args.max_positions)


def print_stats(s: StoreStats, path: str) -> None:
    print(f"rote memory {path}")
    print(f"  positions {s.positions}, merges {s.merges}, {s.file_bytes / 1e6:.2f} MB on disk, "
          f"references {s.uses}, deepest ply {s.max_ply}")
    if s.by_pieces:
        print("  by pieces: " + ", ".join(f"{k}:{v}" for k, v in sorted(s.by_pieces.items(), reverse=True)))
    if s.by_ply:
        print("  by ply:    " + ", ".join(f"{k}:{v}" for k, v in sorted(s.by_ply.items())))
    if s.by_age:
        print("  by age:    " + ", ".join(f"{k}:{v}" for k, v in sorted(s.by_age.items())))


def run_play(args: argparse.Namespace) -> int:
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn

    from samuel.progress import progress as make_progress

    mode = Mode.SAMUEL if args.mode == "samuel" else Mode.PVS
    with RoteMemory(args.db, _policy(args)) as memory:
        before = len(memory)
        columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TextColumn("{task.fields[status]}"), TimeElapsedColumn())
        with make_progress(*columns, disable=args.quiet) as progress:
            games = progress.add_task("games", total=args.games, status="")
            plies = progress.add_task("plies", total=args.max_plies, status="")

            def on_move(game: int, ply: int) -> None:
                progress.update(plies, completed=ply, status=f"game {game}")

            for g in self_play(memory, args.games, depth=args.depth, mode=mode,
                               evaluator=by_name(args.evaluator), opening_plies=args.opening_plies,
                               max_plies=args.max_plies, seed=args.seed, on_move=on_move):
                m = g.merge
                status = (f"{len(memory)} stored, +{m.added} new, {m.refreshed} refreshed, "
                          f"{m.forgotten + m.culled} dropped, {g.rote_hits} hits, deepest {g.deepest}"
                          if m else "")
                progress.update(games, advance=1, status=status)
                progress.update(plies, completed=0)
                if args.quiet:
                    continue
                progress.console.print(f"game {g.number}: {g.result} in {g.plies} plies; {status}")
        print(f"{args.games} games: {len(memory) - before:+d} positions")
        print_stats(memory.stats(), args.db)
    return 0


def _exists(path: str) -> bool:
    if Path(path).exists():
        return True
    print(f"samuel learn rote: error: no rote memory at {path}", file=sys.stderr)
    return False


def run_stats(args: argparse.Namespace) -> int:
    if not _exists(args.db):
        return 2
    with RoteMemory(args.db) as memory:
        print_stats(memory.stats(), args.db)
    return 0


def run_forget(args: argparse.Namespace) -> int:
    if not _exists(args.db):  # ageing a memory that is not there would create an empty one
        return 2
    with RoteMemory(args.db, _policy(args)) as memory:
        for _ in range(args.merges):
            r = memory.merge()
            print(f"merge {r.merge}: {r.forgotten} forgotten, {r.culled} culled, {r.total} left")
    return 0


def run_lookup(args: argparse.Namespace) -> int:
    board = Board(args.fen)
    if not _exists(args.db):
        return 2
    with RoteMemory(args.db) as memory:
        found = memory.lookup(board)
    if found is None:
        print("not in the memory")
        return 1
    score, ply = found
    print(f"score {score:+d} for the side to move, backed up over {ply} plies")
    return 0
