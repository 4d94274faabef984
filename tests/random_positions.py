"""Random positions for the tests that compare the 704 program with the C core."""

from __future__ import annotations

import random

from engine.board import Board


def fen_of(turn: str, black: dict[int, bool], white: dict[int, bool]) -> str:
    """A FEN from squares -> king, men on their crowning row made kings."""
    def side(pieces: dict[int, bool], crown: range) -> str:
        return ",".join(("K" if king or sq in crown else "") + str(sq) for sq, king in sorted(pieces.items()))
    return f"{turn}:W{side(white, range(1, 5))}:B{side(black, range(29, 33))}"


def play_randomly(rng: random.Random, board: Board, plies: int) -> Board:
    """``board`` after up to ``plies`` random legal moves (fewer if the game ends)."""
    for _ in range(plies):
        moves = board.legal_moves
        if not moves:
            break
        board.push(rng.choice(moves))
    return board


def positions_below(board: Board, plies: int) -> list[Board]:
    """Every position ``plies`` plies below ``board`` (a whole multi-jump is one ply)."""
    level = [board]
    for _ in range(plies):
        nxt = []
        for b in level:
            for m in b.legal_moves:
                c = b.copy()
                c.push(m)
                nxt.append(c)
        level = nxt
    return level
