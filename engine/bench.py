"""The bench: fixed positions searched to a fixed depth, whose total node count is the engine's
signature (any change to search or evaluation shows in it), and the speed figures beside it."""

from __future__ import annotations

import time

from engine import core
from engine.board import Board
from engine.evaluators import by_name
from engine.fen import START_FEN
from engine.limits import Limit
from engine.search import Mode, Searcher

BENCH_POSITIONS: tuple[str, ...] = (
    START_FEN,
    # ACF ballots 1, 19, 59, 99 and 139, after their three moves
    "W:W17,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,6,7,8,9,10,11,12,13",
    "W:W19,21,22,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,7,8,9,10,11,12,13",
    "W:W17,21,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,8,9,10,11,12,14",
    "W:W18,21,22,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,8,9,10,11,12,15",
    "W:W17,21,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,8,9,10,11,12,16",
    # middlegame, endgame and king positions
    "B:W18,19,21,23,24,26,29,30,31,32:B1,2,3,5,6,7,9,10,12,14",
    "W:W14,19,22,25,27,28,30:B3,6,7,9,11,15,20",
    "B:WK10,22,27,28:B5,K19,K20,12",
    "W:WK3,K12,25,29:BK14,K18,K24,16",
    "B:W27,28,30,32:B1,3,5,7",
    "W:WK1,K5,K32:BK9,K19",
)



def perft_speed(depth: int) -> tuple[int, float]:
    board = Board()
    start = time.perf_counter()
    n = core.perft(board.raw, depth, bulk=True)
    return n, time.perf_counter() - start


def signature(
    depth: int, evaluator: str = "default", hash_mb: int = 64, mtdf: bool = False
) -> tuple[int, float]:
    """Total nodes (the signature) and seconds for the fixed-depth bench searches."""
    searcher = Searcher(by_name(evaluator), mode=Mode.PVS, hash_mb=hash_mb, mtdf=mtdf)
    total, seconds = 0, 0.0
    for fen in BENCH_POSITIONS:
        searcher.new_game()
        start = time.perf_counter()
        result = searcher.search(Board(fen), Limit(depth=depth))
        seconds += time.perf_counter() - start
        total += result.info.nodes
    return total, seconds
