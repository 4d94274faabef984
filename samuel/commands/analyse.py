"""samuel analyse: search one position and print the engine's thinking, depth by depth.

One line per completed iteration, as the search reports it::

    depth  6  seldepth 16  score     -0.02  nodes      10408  nps    693866  time   0.015  pv 9-14 24-19 ...

then ``bestmove 9-14 ponder 24-19``.  Scores are in men for the side to move,
or ``win in N`` / ``loss in N`` (N in plies).  Ctrl-C stops the search early
and still prints the best move found so far.

With ``--backend 704`` Samuel's program on the emulated 704 searches with its own
evaluation (engine.program704.EVALUATION) or, with ``--eval`` naming one of
Samuel's polynomials (samuel-1959, samuel-alpha, samuel-rote, a file of kind
samuel), that polynomial as the program's data words; any other ``--eval`` is
refused (exit 2), since that program cannot play it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, TextIO

from samuel.argtypes import positive_float, positive_int
from samuel.engine_args import add_engine_arguments, make_searcher

if TYPE_CHECKING:
    from engine.board import Board
    from engine.limits import Limit
    from engine.move import Move
    from engine.search import EngineSearcher, SearchInfo, SearchResult

DEFAULT_MOVETIME = 1.0


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "analyse",
        help="search a position and print each depth as it completes",
        description="Search a position and print one line per completed depth, then the best move.",
    )
    p.add_argument("--fen", default=None, help="position (default: the start position)")
    p.add_argument("--moves", default="", metavar='"11-15 23-19 ..."',
                   help="moves to play from the position before analysing (PDN, space separated)")
    limit = p.add_mutually_exclusive_group()
    limit.add_argument("--movetime", type=positive_float, metavar="S",
                       help=f"think for S seconds (the default, {DEFAULT_MOVETIME:g} s)")
    limit.add_argument("--depth", type=positive_int, metavar="N",
                       help="search to N plies (in Samuel mode: the minimum ply)")
    limit.add_argument("--nodes", type=positive_int, metavar="N", help="search about N nodes")
    p.add_argument("--rote", metavar="FILE", default="",
                   help="search with Samuel's rote memory in FILE (a store from samuel learn rote or a "
                        "server's --rote, or a 704 reel), read and not written")
    add_engine_arguments(p)
    p.set_defaults(func=run)


def limit_from_args(args: argparse.Namespace) -> Limit:
    from engine.limits import Limit

    if args.depth is not None:
        return Limit(depth=args.depth)
    if args.nodes is not None:
        return Limit(nodes=args.nodes)
    return Limit(movetime=args.movetime if args.movetime is not None else DEFAULT_MOVETIME)


def setup_board(fen: str | None, moves: str | Sequence[str] = "") -> Board:
    """The position: ``fen`` (None: the start) with ``moves`` played; raises SamuelError subclasses."""
    from engine.board import Board
    from engine.errors import SamuelError

    board = Board(fen)
    texts = moves.replace(",", " ").split() if isinstance(moves, str) else list(moves)
    for i, text in enumerate(texts, 1):
        try:
            board.push_pdn(text)
        except SamuelError as exc:
            raise type(exc)(f"--moves, move {i}: {exc}") from None
    return board


def require_game_on(board: Board) -> None:
    from engine.errors import GameOverError

    outcome = board.outcome()
    if outcome is not None:
        raise GameOverError(
            f"nothing to analyse, the game is over: {outcome.result()} ({outcome.termination.label}) "
            f"in {board.fen()}"
        )


def pv_notation(board: Board, pv: Sequence[Move]) -> list[str]:
    """The PV as PDN, each move written as it reads in its own position; stops at an illegal move."""
    b = board.copy()
    out: list[str] = []
    for move in pv:
        if not b.is_legal(move):
            break
        out.append(b.notation(move))
        b.push(move)
    return out


def format_info(board: Board, info: SearchInfo) -> str:
    pv = " ".join(pv_notation(board, info.pv))
    # The 704 backend's searches also say how long the real machine would have taken.
    machine = f"  704-time {info.machine_time:>9.3f}" if info.machine_time > 0 else ""
    return (
        f"depth {info.depth:>2}  seldepth {info.seldepth:>2}  score {info.score!s:>9}  "
        f"nodes {info.nodes:>10}  nps {info.nps:>9}  time {info.time:>7.3f}{machine}  pv {pv}"
    ).rstrip()


def format_bestmove(board: Board, result: SearchResult) -> str:
    from engine.runner import move_to_play

    best = move_to_play(board, result)
    line = f"bestmove {board.notation(best)}"
    after = board.copy()
    after.push(best)
    if result.ponder is not None and after.is_legal(result.ponder):
        line += f" ponder {after.notation(result.ponder)}"
    return line


def analyse(board: Board, searcher: EngineSearcher, limit: Limit, out: TextIO | None = None) -> SearchResult:
    """Search ``board``, writing one line per completed depth and the bestmove line to ``out``."""
    stream = out if out is not None else sys.stdout
    require_game_on(board)

    def on_info(info: SearchInfo) -> None:
        print(format_info(board, info), file=stream, flush=True)

    from engine.runner import SearchRun

    result = SearchRun(board, limit, searcher, on_info=on_info).wait_interruptibly()
    print(format_bestmove(board, result), file=stream, flush=True)
    return result


def run(args: argparse.Namespace) -> int:
    board = setup_board(args.fen, args.moves)
    require_game_on(board)
    from engine.learners.rote_file import close_rote, open_rote
    from engine.search import Searcher

    rote = open_rote(args.rote) if args.rote else None
    try:
        # the 704 backend refuses an evaluator it cannot play, by name
        searcher = make_searcher(args, rote=rote)
        if isinstance(searcher, Searcher) and searcher.egdb is not None:  # the 704 backend has none
            from engine.egdb import describe

            print(describe(searcher.egdb), flush=True)
        result = analyse(board, searcher, limit_from_args(args))
        if rote is not None:
            print(f"info rote hits {result.info.rote_hits}", flush=True)
    finally:
        close_rote(rote)
    return 0
