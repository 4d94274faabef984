"""A Hub engine that misbehaves on cue, for the match runner's fault tests.

    python tests/data/fake_engines/fake_hub.py [options]

With no options it is a well-behaved (and weak) Hub engine: it answers the
handshake and ``ping``, accepts every ``set-param``, and for each ``go`` plays
the first legal move of the position (``done move=...``).  Options (N counts
the ``go`` commands of the whole process, from 1):

    --name NAME         the name in its ``id`` line (default: fake)
    --crash-after N     exit with status 3 when asked for the N-th move
    --hang-after N      from the N-th move on answer nothing at all (not even
                        ``ping`` or ``quit``); it still exits when stdin closes
    --illegal-after N   answer the N-th move with a move that is not legal
                        (the first of 1-5, 5-1, 32-28, 28-32 that is illegal)
    --error-after N     answer the N-th move with ``error message=...``
    --delay S           sleep S seconds before answering each move (time losses)
    --wait-for FILE     answer no move until FILE exists (a test's go-ahead)
    --crash-at-start    exit with status 3 before answering ``hub``
    --crash-at-restart FILE
                        start once (creating FILE), and exit with status 3 before
                        answering ``hub`` whenever FILE exists already
    --reject-params     answer every ``set-param`` (other than variant) with ``error``

It imports the repository's ``engine`` and ``protocol`` packages (found from
this file's location), and never writes to stderr.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository, for engine and protocol

from engine.board import Board
from protocol import hub_grammar as g

ILLEGAL_CANDIDATES = ("1-5", "5-1", "32-28", "28-32")


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="a Hub engine that misbehaves on cue")
    p.add_argument("--name", default="fake")
    p.add_argument("--crash-after", type=int, default=0, metavar="N")
    p.add_argument("--hang-after", type=int, default=0, metavar="N")
    p.add_argument("--illegal-after", type=int, default=0, metavar="N")
    p.add_argument("--error-after", type=int, default=0, metavar="N")
    p.add_argument("--delay", type=float, default=0.0, metavar="S")
    p.add_argument("--wait-for", type=Path, default=None, metavar="FILE")
    p.add_argument("--crash-at-start", action="store_true")
    p.add_argument("--crash-at-restart", type=Path, default=None, metavar="FILE")
    p.add_argument("--reject-params", action="store_true")
    return p.parse_args(argv)


def out(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def illegal_move(board: Board) -> str:
    legal = {m.short for m in board.legal_moves}
    return next(t for t in ILLEGAL_CANDIDATES if t not in legal)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    board = Board()
    moves_asked = 0
    hung = False
    for raw in sys.stdin:
        if hung:
            continue  # silent, but reading on, so a closed stdin still ends it
        try:
            line = g.tokenize(raw.rstrip("\r\n"))
        except Exception as exc:
            out(g.error_line(str(exc)))
            continue
        if line is None:
            continue
        cmd = line.command
        if cmd == "hub":
            if args.crash_at_start:
                return 3
            if args.crash_at_restart is not None:
                try:
                    args.crash_at_restart.touch(exist_ok=False)
                except FileExistsError:
                    return 3
            out(g.format_line("id", [("name", args.name), ("version", "0")]))
            out('param name=variant value=english type=enum values="english"')
            out("param name=evaluator value=default type=string")
            out("wait")
        elif cmd == "init":
            out("ready")
        elif cmd == "ping":
            out("pong")
        elif cmd == "set-param":
            if args.reject_params and line.args.get("name") != "variant":
                out(g.error_line(f"fake rejects param {line.args.get('name')}"))
        elif cmd == "pos":
            try:
                board, _ = g.read_position(line.require("pos"), line.args.get("moves"), "literal")
            except Exception as exc:
                out(g.error_line(str(exc)))
        elif cmd == "go":
            moves_asked += 1
            n = moves_asked
            if n == args.crash_after:
                return 3
            if n == args.hang_after:
                hung = True
                continue
            if args.delay:
                time.sleep(args.delay)
            while args.wait_for is not None and not args.wait_for.exists():
                time.sleep(0.01)
            if n == args.error_after:
                out(g.error_line("fake cannot think today"))
            elif n == args.illegal_after:
                out(f"done move={illegal_move(board)}")
            elif board.legal_moves:
                out("info depth=1 score=0.25 nodes=1")
                out(g.format_done(board, board.legal_moves[0]))
            else:
                out(g.error_line("no legal move"))
        elif cmd == "quit":
            return 0
        # level, new-game, stop, ponder-hit and anything else: nothing to say
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
