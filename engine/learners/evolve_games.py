"""The games of the evolution and of its panel: two players at Chellapilla and Fogel's search.

A player is a ``Network`` or the name of an evaluator (``material``, for the panel's piece-count
player).  A game is a ``GameJob`` (plain data, so a thread pool or Ray can ship it); a worker
thread keeps its two searchers from game to game, and a task plays ``CHUNK`` games.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass

from engine import evaluators
from engine.board import Board
from engine.fen import START_FEN
from engine.game import GameEnd, GameRecord, play_game
from engine.learners.network import Network
from engine.limits import Limit
from engine.move import Move
from engine.named_evaluator import Evaluator
from engine.runner import move_to_play
from engine.search import Mode, Searcher
from engine.termination import Termination
from engine.types import BLACK, WHITE

Player = Network | str
"""A network, or an evaluator by name."""


@dataclass(frozen=True)
class GameJob:
    """One game to play and the rules it is played under."""

    black: Player
    white: Player
    fen: str = START_FEN
    depth: int = 4
    max_moves: int = 100
    """The game stops after this many moves each."""
    draws: bool = False
    """Repetition and the 40-move rule draw (the paper's games had neither)."""
    adjudicate: int = 0
    """At the move cap, a side this many pieces ahead (kings count one) wins; 0: the cap draws."""
    search_draws: bool = False
    """The search scores a repetition or the 40-move rule as a draw (theirs was blind to both)."""


class _Players:
    """Two searchers a worker thread reuses from game to game (the evaluator is set per game)."""

    def __init__(self, depth: int) -> None:
        self.limit = Limit(depth=depth)
        self.searchers = {color: Searcher(mode=Mode.FOGEL, hash_mb=1) for color in (BLACK, WHITE)}


def evaluator_of(player: Player) -> Evaluator:
    return player.evaluator() if isinstance(player, Network) else evaluators.by_name(player)


def outcome(result: str, black: bool) -> str:
    """``win``, ``draw`` or ``loss`` for the player who had Black (``black``) or White."""
    if result not in ("1-0", "0-1"):
        return "draw"
    return "win" if (result == "1-0") == black else "loss"


def pieces_ahead(board: Board) -> int:
    """Black's pieces less White's (a king counts one, as the paper's piece differential at the
    end of an abandoned game did)."""
    return board.piece_count(BLACK) - board.piece_count(WHITE)


def judged_at_cap(adjudicate: int, plies: int) -> Callable[[Board], GameEnd]:
    def judge(board: Board) -> GameEnd:
        lead = pieces_ahead(board)
        if adjudicate <= 0 or abs(lead) < adjudicate:
            return GameEnd.draw(Termination.MOVE_CAP, f"{plies} plies")
        detail = f"{plies} plies, {abs(lead)} pieces ahead"
        return GameEnd.loss_for(WHITE if lead > 0 else BLACK, Termination.ADJUDICATED_WIN, detail)

    return judge


def play(job: GameJob, players: _Players | None = None) -> GameRecord:
    """One game at their search; the result from Black's side."""
    players = players or _Players(job.depth)
    for color, player in ((BLACK, job.black), (WHITE, job.white)):
        players.searchers[color].set_evaluator(evaluator_of(player))
        players.searchers[color].fogel_draws = job.search_draws
        players.searchers[color].new_game()

    def chooser(color: int) -> Callable[[Board], Move]:
        searcher = players.searchers[color]
        return lambda b: move_to_play(b, searcher.search(b, players.limit))

    plies = 2 * job.max_moves
    return play_game(Board(job.fen), {BLACK: chooser(BLACK), WHITE: chooser(WHITE)}, max_plies=plies,
                     at_cap=judged_at_cap(job.adjudicate, plies), draws=job.draws)


_LOCAL = threading.local()


def play_job(job: GameJob) -> GameRecord:
    """One game (a module-level function, so a pool or Ray can ship it); a worker thread reuses its
    two searchers from game to game."""
    players = getattr(_LOCAL, "players", None)
    if players is None or players.limit.depth != job.depth:
        players = _LOCAL.players = _Players(job.depth)
    return play(job, players)


CHUNK = 10
"""Games a task plays: a Ray task costs far more than a game of a few milliseconds."""


def play_chunk(jobs: list[GameJob]) -> list[GameRecord]:
    return [play_job(job) for job in jobs]


def play_all(jobs: list[GameJob], executor: Executor | None,
             on_game: Callable[[int, int], None] | None = None) -> list[GameRecord]:
    """The games, in order; on worker threads or Ray tasks when an executor is given (the C search
    releases the GIL, so two threads use two cores), ``CHUNK`` games a task."""
    results: list[GameRecord] = []
    if executor is None:
        for job in jobs:
            results.append(play_job(job))
            if on_game:
                on_game(len(results), len(jobs))
        return results
    futures = [executor.submit(play_chunk, jobs[i:i + CHUNK]) for i in range(0, len(jobs), CHUNK)]
    for fut in futures:
        results += fut.result()
        if on_game:
            on_game(len(results), len(jobs))
    return results
