"""A game played out, and the one loop that plays one: how it started, its moves, how it ended.

The learners' self-play (rote learning, Alpha against Beta) plays its games with ``play_game``;
the match runner's referee, which adds clocks and engine faults around every move, ends its games
by the same rules (``rule_ending``) and writes them with the same PDN writer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from engine.board import Board
from engine.move import Move
from engine.pdn import write_game
from engine.types import BLACK, WHITE, Color


@dataclass(frozen=True)
class GameRecord:
    """One finished game."""

    start_fen: str
    moves: tuple[Move, ...]
    result: str
    """PDN result from Black's side: ``1-0``, ``0-1``, ``1/2-1/2``, or ``*`` when nothing decided it."""
    termination: str
    """Why it ended, in words (``no legal moves``, ``threefold repetition``, ``move cap (200 plies)``...)."""

    @property
    def plies(self) -> int:
        return len(self.moves)

    @property
    def winner(self) -> Color | None:
        return BLACK if self.result == "1-0" else WHITE if self.result == "0-1" else None

    def score_for(self, color: Color) -> float | None:
        """1, 1/2 or 0 for ``color``; None when the game was left undecided (``*``)."""
        if self.result == "*":
            return None
        if self.result == "1/2-1/2":
            return 0.5
        return 1.0 if self.winner == color else 0.0

    def board(self) -> Board:
        """The final position, with every move on its stack."""
        board = Board(self.start_fen)
        for move in self.moves:
            board.push(move)
        return board

    def pdn(self, tags: Mapping[str, str] | None = None) -> str:
        return write_game(self.board(), {**(tags or {}), "Termination": self.termination}, result=self.result)


def rule_ending(board: Board, opening_plies: int = 0, max_plies: int | None = None, *,
                draws: bool = True) -> tuple[str, str] | None:
    """(result, termination) when the rules end the game here, or when ``max_plies`` plies have been
    played since ``opening_plies`` (a draw at the cap); else None.  Without ``draws`` only a side
    with no move ends a game (no repetition or 40-move draws: the rules some papers played by)."""
    outcome = board.outcome() if draws else None
    if outcome is not None:
        return outcome.result(), outcome.termination.value
    if not draws and not board.legal_moves:
        return ("0-1" if board.turn == BLACK else "1-0"), "no legal moves"
    if max_plies is not None and len(board.move_stack) - opening_plies >= max_plies:
        return "1/2-1/2", f"move cap ({max_plies} plies)"
    return None


Chooser = Callable[[Board], Move]
"""Picks the move to play in a position (its side to move has a move)."""


def play_game(
    board: Board,
    choose: Chooser | Mapping[Color, Chooser],
    *,
    max_plies: int | None = None,
    at_cap: Callable[[Board], tuple[str, str]] | None = None,
    on_move: Callable[[Board, Move], None] | None = None,
    draws: bool = True,
) -> GameRecord:
    """Play from ``board`` (which is changed) until the rules end the game or ``max_plies`` plies
    have been played from it.  ``choose`` picks every move, or one chooser per colour.  At the cap
    the game is a draw unless ``at_cap(board)`` judges it (a (result, termination) pair).  Every
    move chosen is checked legal; ``on_move(board, move)`` hears of it after it is played.
    ``draws=False`` plays without repetition and 40-move draws (see ``rule_ending``)."""
    start_fen = board.fen()
    played: list[Move] = []
    while True:
        ending = rule_ending(board, draws=draws)
        if ending is None and max_plies is not None and len(played) >= max_plies:
            ending = at_cap(board) if at_cap is not None else ("1/2-1/2", f"move cap ({max_plies} plies)")
        if ending is not None:
            break
        chooser = choose if callable(choose) else choose[board.turn]
        move = chooser(board)
        if not board.is_legal(move):
            raise ValueError(f"{move} is not a legal move in {board.fen()}")
        board.push(move)
        played.append(move)
        if on_move is not None:
            on_move(board, move)
    return GameRecord(start_fen, tuple(played), ending[0], ending[1])
