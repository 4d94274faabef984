"""samuel egdb: build, check and probe the endgame database (engine/egdb.py, csrc/egdb.c)."""

from __future__ import annotations

import argparse
import os
import time

from samuel.argtypes import bounded_int, positive_int
from samuel.outputs import check_output_dir, output_dir


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("egdb", help="the endgame database: build, check, probe")
    verbs = p.add_subparsers(dest="verb", metavar="VERB", required=True)
    b = verbs.add_parser("build", help="solve every signature of 2..N pieces (resumes a cut-off build)")
    b.add_argument("--pieces", type=bounded_int(2, 8), required=True, help="most pieces on the board, 2..8")
    b.add_argument("--out", default=None, type=output_dir,
                   help="directory of table files, created if missing (default: $SAMUEL_EGDB, else "
                        "~/.local/share/samuel/egdb: where engines look by default)")
    b.add_argument("--distance", action="store_true",
                   help="also solve each position's distance to the next capture or crowning (a byte "
                        "a position; engines then play won endings out by it)")
    b.add_argument("--threads", type=positive_int, default=None,
                   help="threads that solve each signature (default: the machine's cores); the tables "
                        "are the same for any number")
    b.add_argument("--quiet", action="store_true", help="no progress bar or per-signature lines")
    b.set_defaults(func=run_build)
    c = verbs.add_parser("check", help="verify every stored value against its successors' values")
    c.add_argument("dir", nargs="?", default=None, help="database directory (default: the default one)")
    c.add_argument("--threads", type=positive_int, default=None,
                   help="threads that check each table (default: the machine's cores)")
    c.set_defaults(func=run_check)
    q = verbs.add_parser("probe", help="the value of a position, and of each move from it")
    q.add_argument("dir", help="database directory ('default': the default one)")
    q.add_argument("fen", help="position, e.g. W:WK10:BK1,K2")
    q.set_defaults(func=run_probe)


def run_build(args: argparse.Namespace) -> int:
    from rich.progress import BarColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    from engine import egdb
    from samuel.progress import progress

    out = check_output_dir(args.out if args.out is not None else egdb.default_directory(), "--out")
    start = time.perf_counter()
    with progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.percentage:>3.0f}%"),
                  TimeElapsedColumn(), TimeRemainingColumn(), disable=args.quiet) as bar:
        tid = bar.add_task(f"egdb {args.pieces} pieces", total=None)

        def on_step(step: egdb.BuildStep, done: int, total: int) -> None:
            bar.update(tid, completed=done, total=total, description=f"egdb {step.signature.describe()}")
            if not args.quiet:
                how = f"{step.passes} passes" if step.passes else "kept (files valid)"
                bar.console.print(f"{step.signature.name} {step.signature.describe():<16} "
                                  f"{step.positions:>12,} slots  {how:<18} {step.seconds:7.2f} s")

        threads = args.threads if args.threads is not None else os.cpu_count() or 1
        db = egdb.build(args.pieces, out, on_step, distance=args.distance, threads=threads)
    sigs = db.signatures()
    slots = sum(2 * s.size for s in sigs)
    extra = ", with distances" if args.distance else ""
    print(f"{len(sigs)} signatures, {slots:,} slots, 2..{args.pieces} pieces{extra} in {out} "
          f"({time.perf_counter() - start:.1f} s)")
    return 0


def run_check(args: argparse.Namespace) -> int:
    from engine import egdb

    db = egdb.Database.open(args.dir if args.dir is not None else egdb.default_directory())
    threads = args.threads if args.threads is not None else os.cpu_count() or 1
    total_bad = 0
    dist = " dist-bad" if db.distances else ""
    print(f"{'sig':<5} {'material':<16} side {'win':>11} {'loss':>11} {'draw':>11} {'none':>9}  bad{dist}")
    for sig in db.signatures():
        for side in (0, 1):
            bad, counts = db.check(sig, side, threads)
            dbad = db.check_distance(sig, side, threads) if (sig, side) in db.distances else 0
            total_bad += bad + dbad
            values = " ".join(f"{counts[k]:>11,}" for k in ("win", "loss", "draw"))
            more = f" {dbad:>8}" if dist else ""
            print(f"{sig.name:<5} {sig.describe():<16} {'bw'[side]:>4} {values} {counts['none']:>9,}  "
                  f"{bad:>3}{more}", flush=True)
    print("consistent" if total_bad == 0 else f"{total_bad} inconsistent positions")
    return 0 if total_bad == 0 else 1


def run_probe(args: argparse.Namespace) -> int:
    from engine import egdb
    from engine.board import Board

    db = egdb.Database.open(egdb.default_directory() if args.dir == "default" else args.dir)
    board = Board(args.fen)
    value = db.probe(board.raw)
    if value is None:
        print(f"not in the database (it holds up to {db.max_pieces} pieces)")
        return 1

    def distance(raw: object, converts: bool = False) -> str:
        d = 0 if converts else db.distance(raw)  # type: ignore[arg-type]
        return "" if d is None else f", {d} plies to the next capture or crowning"

    own = distance(board.raw) if value != egdb.DRAW else ""
    print(f"{egdb.VALUE_NAMES[value]} for the side to move{own}")
    for move in board.legal_moves:
        child = board.copy()
        child.push(move)
        v = db.probe(child.raw)
        mover = "?" if v is None else {egdb.WIN: "loss", egdb.LOSS: "win", egdb.DRAW: "draw"}[v]
        converts = bool(move.captures) or board.piece_at(move.path[0]) != child.piece_at(move.path[-1])
        after = distance(child.raw, converts) if v in (egdb.WIN, egdb.LOSS) else ""
        print(f"  {board.notation(move)}: {mover}{after.replace(', ', ', then ') if after else ''}")
    return 0
