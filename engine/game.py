"""A game played out, and the one loop that plays one: how it started, its moves, how it ended.

``GameLoop`` holds the rules of a game between two move sources: no legal move loses,
threefold repetition and the 40-move rule draw (the ACF rules; ``draws=False`` keeps only the
first), a move that is not legal loses, and a game still going at ``max_plies`` plies is a draw
unless ``at_cap`` judges it.  It does no I/O: its owner asks a move source for a move in
``loop.board``, hands the answer to ``loop.reply`` (or ends the game with ``loop.end`` when the
source failed), and reads ``loop.record`` once ``loop.over``.  So the same loop serves the
learners' self-play, whose choosers are plain calls (``play_game``), and the match referee,
which awaits engines over pipes.  Whatever else a game needs goes in ``MoveHook``s around each
move: a clock charged and checked for every answer, an adjudication on the engines' scores or on
material, a progress report.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable, Mapping
from dataclasses import dataclass

from engine.board import Board
from engine.move import Move
from engine.pdn import write_game
from engine.termination import Termination
from engine.types import BLACK, WHITE, Color


@dataclass(frozen=True)
class GameEnd:
    """How a game ended: its result, the kind of ending, and what a person reads about it."""

    result: str
    """PDN result from Black's side: ``1-0``, ``0-1``, ``1/2-1/2``, or ``*`` when nothing decided it."""
    termination: Termination
    detail: str = ""
    """More than the kind of ending, when there is more to say (``White (b) lost on time: ...``)."""

    @classmethod
    def loss_for(cls, colour: Color, termination: Termination, detail: str = "") -> GameEnd:
        """``colour`` loses (no move, its fault, its clock, its resignation)."""
        return cls("0-1" if colour == BLACK else "1-0", termination, detail)

    @classmethod
    def draw(cls, termination: Termination, detail: str = "") -> GameEnd:
        return cls("1/2-1/2", termination, detail)


@dataclass(frozen=True)
class GameRecord:
    """One finished game: where its moves start, the moves, and how it ended."""

    start_fen: str
    moves: tuple[Move, ...]
    """Every move from ``start_fen``: the ``opening_plies`` given before play, then those played."""
    result: str
    """PDN result from Black's side: ``1-0``, ``0-1``, ``1/2-1/2``, or ``*`` when nothing decided it."""
    termination: Termination
    detail: str = ""
    """More about the ending (``120 plies``, ``White (b) lost on time: ...``), or empty."""
    opening_plies: int = 0
    """How many of ``moves`` were there before play began (a ballot's, random opening plies)."""

    def __post_init__(self) -> None:
        if not isinstance(self.termination, Termination):  # words from an older caller or file
            object.__setattr__(self, "termination", Termination.read(str(self.termination), self.result))

    @classmethod
    def of(cls, board: Board, end: GameEnd, opening_plies: int = 0) -> GameRecord:
        """The game on ``board`` (every move from its initial position), ended by ``end``."""
        return cls(board.initial_fen, tuple(board.move_stack), end.result, end.termination, end.detail,
                   opening_plies)

    @property
    def plies(self) -> int:
        """Plies played (the opening's not counted)."""
        return len(self.moves) - self.opening_plies

    @property
    def end(self) -> GameEnd:
        return GameEnd(self.result, self.termination, self.detail)

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
        """The game as PDN with ``tags``; its ``Termination`` tag is ``termination.describe(detail)``
        (in the place ``tags`` give it, else after them)."""
        termination = self.termination.describe(self.detail)
        return write_game(self.board(), {**(tags or {}), "Termination": termination}, result=self.result)


@dataclass(frozen=True)
class MoveReply:
    """A move source's answer: the move, and what a hook may want to know about how it came."""

    move: Move
    score: float | None = None
    """The source's own score for the position, from the mover's side (in men), when it gave one."""
    depth: int | None = None
    nodes: int | None = None
    seconds: float = 0.0
    """Time the source took (its owner measures it)."""


class MoveHook:
    """Called around each move of a ``GameLoop``; any call may end the game by returning how."""

    def before_move(self, board: Board) -> GameEnd | None:
        """A move is about to be asked for in ``board`` (the rules and the cap let the game go on)."""
        return None

    def on_reply(self, board: Board, reply: MoveReply) -> GameEnd | None:
        """The mover answered ``reply`` in ``board``; its move is not yet checked or played."""
        return None

    def after_move(self, board: Board, reply: MoveReply) -> GameEnd | None:
        """``reply.move`` has been played on ``board``."""
        return None


def rule_ending(board: Board, opening_plies: int = 0, max_plies: int | None = None, *,
                draws: bool = True) -> GameEnd | None:
    """How the rules end the game at ``board``, or a draw when ``max_plies`` plies have been played
    since ``opening_plies``; else None.  Without ``draws`` only a side with no move ends a game (no
    repetition or 40-move draws: the rules some papers played by)."""
    outcome = board.outcome() if draws else None
    if outcome is not None:
        return GameEnd(outcome.result(), outcome.termination)
    if not draws and not board.legal_moves:
        return GameEnd.loss_for(board.turn, Termination.NO_MOVES)
    if max_plies is not None and len(board.move_stack) - opening_plies >= max_plies:
        return GameEnd.draw(Termination.MOVE_CAP, f"{max_plies} plies")
    return None


AtCap = Callable[[Board], "GameEnd | tuple[str, str]"]
"""Judges a game at its move cap: a GameEnd, or (result, termination words) from older callers."""


class GameLoop:
    """One game under the rules, played from ``board`` (which the loop plays its moves on).

    The owner asks the side to move for a move in ``board`` while the game is not ``over``, and
    passes its answer to ``reply``; ``record`` is the finished game.  ``max_plies`` caps the plies
    played from here; ``at_cap`` judges a capped game (a draw when not given).  ``hooks`` are
    called around each move, in order, and the first ending one returns ends the game.
    """

    def __init__(self, board: Board, *, max_plies: int | None = None, at_cap: AtCap | None = None,
                 draws: bool = True, hooks: Iterable[MoveHook] = ()) -> None:
        if max_plies is not None and max_plies < 0:
            raise ValueError(f"max_plies must not be negative, got {max_plies}")
        self.board = board
        self.opening_plies = len(board.move_stack)
        self.max_plies = max_plies
        self.at_cap = at_cap
        self.draws = draws
        self.hooks = tuple(hooks)
        self.record: GameRecord | None = None
        self._steps = self._play()
        self._advance(None)

    @property
    def over(self) -> bool:
        return self.record is not None

    @property
    def plies(self) -> int:
        """Plies played so far."""
        return len(self.board.move_stack) - self.opening_plies

    def reply(self, answer: MoveReply) -> None:
        """The side to move answered ``answer``."""
        if self.over:
            raise RuntimeError("the game is over: no move is wanted")
        self._advance(answer)

    def end(self, end: GameEnd) -> None:
        """End the game now (a player failed to answer, or could not start)."""
        if self.over:
            raise RuntimeError("the game is over already")
        self._advance(end)

    def _advance(self, answer: MoveReply | GameEnd | None) -> None:
        try:
            self._steps.send(answer)
        except StopIteration as stop:
            self.record = stop.value

    def _play(self) -> Generator[None, MoveReply | GameEnd | None, GameRecord]:
        board = self.board
        end: GameEnd | None = None
        while end is None:
            end = rule_ending(board, draws=self.draws)
            if end is None and self.max_plies is not None and self.plies >= self.max_plies:
                end = self._capped()
            if end is None:
                end = _first(h.before_move(board) for h in self.hooks)
            if end is not None:
                break
            answer = yield None
            assert answer is not None  # only the first step is sent None, before any yield
            if isinstance(answer, GameEnd):
                end = answer
                break
            end = _first(h.on_reply(board, answer) for h in self.hooks)
            if end is not None:
                break
            if not board.is_legal(answer.move):  # never trust a move source
                end = GameEnd.loss_for(board.turn, Termination.ILLEGAL_MOVE,
                                       f"{answer.move} is not a legal move in {board.fen()}")
                break
            board.push(answer.move)
            end = _first(h.after_move(board, answer) for h in self.hooks)
        return GameRecord.of(board, end, self.opening_plies)

    def _capped(self) -> GameEnd:
        if self.at_cap is None:
            return GameEnd.draw(Termination.MOVE_CAP, f"{self.max_plies} plies")
        judged = self.at_cap(self.board)
        if isinstance(judged, GameEnd):
            return judged
        result, words = judged
        return GameEnd(result, Termination.read(words, result), words)


def _first(ends: Iterable[GameEnd | None]) -> GameEnd | None:
    """The first ending the hooks give (the later hooks are not called)."""
    return next((end for end in ends if end is not None), None)


Chooser = Callable[[Board], Move]
"""Picks the move to play in a position (its side to move has a move)."""


class _OnMove(MoveHook):
    def __init__(self, on_move: Callable[[Board, Move], None]) -> None:
        self.on_move = on_move

    def after_move(self, board: Board, reply: MoveReply) -> None:
        self.on_move(board, reply.move)


def play_game(
    board: Board,
    choose: Chooser | Mapping[Color, Chooser],
    *,
    max_plies: int | None = None,
    at_cap: AtCap | None = None,
    on_move: Callable[[Board, Move], None] | None = None,
    draws: bool = True,
    hooks: Iterable[MoveHook] = (),
) -> GameRecord:
    """Play from ``board`` (which is changed) with ``GameLoop`` until the game ends; ``choose``
    picks every move, or one chooser per colour, and is trusted: a move it picks that is not legal
    raises ValueError.  ``on_move(board, move)`` hears of each move after it is played (after the
    ``hooks``)."""
    loop = GameLoop(board, max_plies=max_plies, at_cap=at_cap, draws=draws,
                    hooks=(*hooks, _OnMove(on_move)) if on_move is not None else hooks)
    while not loop.over:
        chooser = choose if callable(choose) else choose[board.turn]
        loop.reply(MoveReply(chooser(board)))
    assert loop.record is not None
    if loop.record.termination is Termination.ILLEGAL_MOVE:  # a chooser of ours is wrong: a bug
        raise ValueError(loop.record.detail)
    return loop.record


__all__ = ["AtCap", "Chooser", "GameEnd", "GameLoop", "GameRecord", "MoveHook", "MoveReply",
           "play_game", "rule_ending"]
