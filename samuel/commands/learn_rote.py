"""samuel learn rote: Samuel's rote learning, a memory of positions and their backed-up scores.

    samuel learn rote play  --db rote.db --games 20 --depth 3    # self-play into the memory
    samuel learn rote book  --db rote.db --pdn games.pdn --games 100   # follow book games into it
    samuel learn rote stats --db rote.db                          # what the memory holds
    samuel learn rote forget --db rote.db --merges 5              # age it 5 merges, forget the old
    samuel learn rote lookup --db rote.db FEN                     # one position's stored score
    samuel learn rote fit --pdn OCA_2.0.pdn                       # refit samuel-rote's coefficients

``play`` and ``book`` score with ``samuel-rote`` by default, Samuel's fixed four-term rote-learning
polynomial (engine/samuel_rote_terms.py), at his ply rules (``--mode samuel``).

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
from engine.pdn import PdnGame
from engine.search import Mode
from samuel.argtypes import positive_int
from samuel.outputs import check_output_file, output_dir, output_file_in_new_folders

ROTE_EVAL = "samuel-rote"
"""The evaluator of ``play`` and ``book`` unless told: Samuel's fixed four-term rote polynomial."""


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
    play.add_argument("--eval", "--evaluator", dest="evaluator", default=ROTE_EVAL, type=evaluator_name,
                      help="evaluator (default: %(default)s, Samuel's four-term rote polynomial)")
    play.add_argument("--opening-plies", type=int, default=4, metavar="N",
                      help="random plies at the start of each game, so games differ (default: %(default)s)")
    play.add_argument("--max-plies", type=positive_int, default=200, metavar="N",
                      help="adjourn a game after this many plies (default: %(default)s)")
    play.add_argument("--seed", type=int, default=None, help="random seed for the openings")
    play.add_argument("--backend", default="modern", choices=("modern", "704"),
                      help="modern: the C core searches and the host keeps the memory (--db, SQLite); "
                           "704: the emulated 704 searches and learns by rote itself, its whole memory a "
                           "tape reel (--db FILE.tap, made if new) merged tape to tape after each game, "
                           "its working part in core loaded by piece count (default: %(default)s)")
    play.add_argument("--quiet", action="store_true", help="no progress bar")
    play.set_defaults(func=run_play)

    book = sub.add_parser(
        "book", help="follow book games: search and save every position, then play the book move",
        description="Follow the games of a PDN file: at each position the program searches (with the "
                    "memory at its leaves) and saves the position with its backed-up score and ply, "
                    "then plays the book's move and goes on.  Each game is merged when it ends and "
                    "noted in the memory, so a later run on the same file resumes after it.")
    common(book)
    policy(book)
    book.add_argument("--pdn", required=True, metavar="FILE", help="PDN file of the games to follow")
    book.add_argument("--games", type=positive_int, default=None, metavar="N",
                      help="games to follow in this run (default: all not followed yet)")
    book.add_argument("--depth", type=positive_int, default=3, metavar="PLY",
                      help="search depth (Samuel mode: the minimum ply; default: %(default)s)")
    book.add_argument("--mode", default="samuel", choices=("samuel", "pvs"),
                      help="search mode (default: %(default)s)")
    book.add_argument("--eval", "--evaluator", dest="evaluator", default=ROTE_EVAL, type=evaluator_name,
                      help="evaluator (default: %(default)s)")
    book.add_argument("--seed", type=int, default=None,
                      help="draw the games at random (seeded) from those not followed yet, "
                           "instead of taking them in file order")
    book.add_argument("--again", action="store_true",
                      help="follow games again even if the memory notes them as followed")
    book.add_argument("--quiet", action="store_true", help="no progress bar")
    book.set_defaults(func=run_book)

    fit = sub.add_parser(
        "fit", help="choose the four-term rote polynomial's coefficients on book games",
        description="Samuel's choice of his rote-learning polynomial: piece advantage (fixed), DENY, "
                    "MOB and CENT+ADV (one coefficient), the set with the highest move agreement on "
                    "the training games (number %% 10 != 0); prints its agreement on the held-out games.")
    fit.add_argument("--pdn", required=True, metavar="FILE", help="PDN file of expert games")
    fit.add_argument("--games", type=positive_int, default=None, metavar="N",
                     help="read only the first N games of the file")
    fit.add_argument("--restarts", type=int, default=2, metavar="N",
                     help="random starts of the coordinate search besides all-zero (default: %(default)s)")
    fit.add_argument("--seed", type=int, default=0, help="seed of the random starts and the sample")
    fit.add_argument("--depth", type=int, default=2, metavar="PLY",
                     help="then refine the set with every alternative searched this deep, as Samuel's "
                          "C was measured with look-ahead (0: static only; default: %(default)s)")
    fit.add_argument("--sample-games", type=positive_int, default=100, metavar="N",
                     help="training games the searched refinement uses (default: %(default)s)")
    fit.add_argument("--cache-dir", default=None, type=output_dir,
                     help="cache the extracted positions as .npz here")
    fit.add_argument("--out", default=None, metavar="FILE.json", type=output_file_in_new_folders,
                     help="also write the fitted polynomial as an evaluator file")
    fit.set_defaults(func=run_fit)

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

    check_output_file(args.db, "--db")  # a folder or a missing folder: named before any game
    if args.backend == "704":
        return _play_704(args)
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


def _play_704(args: argparse.Namespace) -> int:
    """``play --backend 704``: the program plays, saves, merges and writes its reel itself."""
    from engine.errors import OptionError
    from engine.learners.rote_704 import self_play_704
    from engine.options import check_evaluator_704
    from engine.program704 import read_rote_tape

    if args.mode != "samuel":
        raise OptionError("--backend 704 searches by Samuel's ply rules only (--mode samuel)")
    if not args.db.lower().endswith(".tap"):
        raise OptionError(f"--db {args.db}: with --backend 704 the memory is a tape reel, a .tap file")
    check_evaluator_704(args.evaluator)  # the program's own (default) or one of Samuel's polynomials
    evaluator = None if args.evaluator.strip().lower() == "default" else by_name(args.evaluator)
    policy = _policy(args)
    seconds = 0.0
    total = 0
    for g in self_play_704(args.db, args.games, depth=args.depth, evaluator=evaluator, policy=policy,
                           opening_plies=args.opening_plies, max_plies=args.max_plies, seed=args.seed):
        m = g.merge
        seconds += g.seconds_704
        total = m.total
        if not args.quiet:
            print(f"game {g.number}: {g.game.result} in {g.game.plies} plies; {m.total} stored, "
                  f"+{m.added} new, {m.forgotten + m.culled} dropped, {g.rote_hits} hits; "
                  f"704 time {g.seconds_704 / 60:.1f} min", flush=True)
    print(f"{args.games} games on the 704: {total} positions on the reel {args.db} "
          f"({len(read_rote_tape(args.db))} read back); 704 time {seconds / 3600:.2f} h")
    return 0


def run_book(args: argparse.Namespace) -> int:
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn

    from engine.learners.rote_book import BookRun, follow_book
    from samuel.progress import progress as make_progress

    pdn = Path(args.pdn)
    if not pdn.is_file():
        what = "is a folder, not a PDN file" if pdn.is_dir() else "does not exist"
        print(f"samuel learn rote book: error: {args.pdn} {what}", file=sys.stderr)
        return 2
    check_output_file(args.db, "--db")
    mode = Mode.SAMUEL if args.mode == "samuel" else Mode.PVS
    run = BookRun()
    with RoteMemory(args.db, _policy(args)) as memory:
        before = len(memory)
        columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TextColumn("{task.fields[status]}"), TimeElapsedColumn())
        with make_progress(*columns, disable=args.quiet) as progress:
            games = progress.add_task("games", total=None, status="reading the file")
            plies = progress.add_task("plies", total=None, status="")

            def started(game: PdnGame) -> None:
                progress.update(games, total=run.selected)
                progress.update(plies, completed=0, total=len(game.moves), status=f"game {game.number}")

            def on_move(ply: int) -> None:
                progress.update(plies, completed=ply)

            try:
                for g in follow_book(memory, pdn, by_name(args.evaluator), games=args.games,
                                     depth=args.depth, mode=mode, seed=args.seed, resume=not args.again,
                                     run=run, on_game_start=started, on_move=on_move):
                    if g.error is not None:
                        status = f"skipped game {g.number}"
                        line = f"game {g.number}: skipped ({g.error})"
                    else:
                        status = f"{len(memory)} stored, {run.skipped} skipped"
                        m = g.merge
                        line = (f"game {g.number}: {g.plies} positions, {g.agreed} book moves chosen, "
                                f"{g.rote_hits} hits, deepest {g.deepest}; "
                                + (f"+{m.added} new, {m.updated} again, {m.forgotten + m.culled} dropped"
                                   if m else ""))
                    progress.update(games, total=run.selected, advance=1, status=status)
                    if not args.quiet:
                        progress.console.print(line)
            except KeyboardInterrupt:
                print(f"interrupted: the {run.followed} games finished are in the memory; "
                      "run again to go on", file=sys.stderr)
                return 130
        if run.selected == 0 and run.already == 0:
            print(f"samuel learn rote book: error: {args.pdn}: no games in the file", file=sys.stderr)
            return 2
        rate = (f" ({run.agreed / run.positions:.1%} of its searches chose the book move)"
                if run.positions else "")
        print(f"{run.followed} games followed, {run.positions} positions searched and saved{rate}; "
              f"{run.skipped} skipped as unreadable, {run.already} followed before")
        for e in run.errors:
            print(f"  skipped: {e}")
        print(f"memory: {len(memory) - before:+d} positions")
        print_stats(memory.stats(), args.db)
    if run.selected and run.followed == 0:
        print(f"samuel learn rote book: error: {args.pdn}: none of the {run.selected} games could be read",
              file=sys.stderr)
        return 1
    return 0


def run_fit(args: argparse.Namespace) -> int:
    from engine import evaluators
    from engine import samuel_rote_terms as srt
    from engine.learners import book_data
    from engine.learners import samuel_rote_fit as srf

    try:
        data = book_data.load(args.pdn, limit_games=args.games, cache_dir=args.cache_dir)
    except FileNotFoundError:
        print(f"samuel learn rote fit: error: no PDN file {args.pdn}", file=sys.stderr)
        return 2
    train, test = data.split("train"), data.split("test")
    if len(train) == 0:
        print(f"samuel learn rote fit: error: {args.pdn}: no book positions in the training games",
              file=sys.stderr)
        return 2
    print(f"training split: {train.num_games} games, {len(train)} positions, {train.num_moves} moves")

    def step(c: srf.Candidate) -> None:
        print(f"  DENY {c.deny:+d}  MOB {c.mob:+d}  CENT+ADV {c.hybrid:+d}:  "
              f"C {c.c_random:.4f} (ties at random), {c.c_samuel:.4f} (Samuel's rule)", flush=True)

    def report(what: str, c: srf.Candidate) -> None:
        print(f"{what}: C {c.c_random:.4f} (ties at random), {c.c_samuel:.4f} (Samuel's rule); "
              f"L {c.L} H {c.H} T {c.T}")

    print("static scores, the whole training split:")
    result = srf.fit(train, restarts=args.restarts, seed=args.seed, on_step=step)
    b = result.best
    print(f"static choice: DENY {b.deny:+d}, MOB {b.mob:+d}, CENT+ADV {b.hybrid:+d} "
          f"({len(result.tried)} sets tried)")
    report("  train, static", b)
    if args.depth > 0:
        sample = train.sample_games(args.sample_games, seed=args.seed)
        print(f"searched {args.depth} plies, {sample.num_games} training games ({len(sample)} positions):")
        result = srf.fit_searched(sample, b.key, depth=args.depth, on_step=step)
        b = result.best
        print(f"chosen: DENY {b.deny:+d}, MOB {b.mob:+d}, CENT+ADV {b.hybrid:+d} "
              f"({len(result.tried)} sets searched)")
        report(f"  train sample, {args.depth} plies", b)
        report("  train, static", srf.measure(train, *b.key))
    if len(test):
        print(f"held out: {test.num_games} games, {len(test)} positions")
        report("  static", srf.measure(test, *b.key))
        if args.depth > 0:
            report(f"  {args.depth} plies", srf.searched_counts(test, *b.key, args.depth))
    if args.out:
        evaluators.save(srt.rote_polynomial(*b.key, name=Path(args.out).stem), args.out)
        print(f"wrote {args.out}")
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
