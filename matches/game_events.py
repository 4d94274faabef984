"""What a running tournament says about its games as they are played: started, a move, finished.

The referee reports each move (``MoveEvent``) through its ``on_move`` callback; the
tournament adds when a game starts (``GameStarted``) and when it ends or is given up
(``GameFinished``), and hands all three to its ``on_game`` observer.  They are plain values,
built on the event loop that plays the games, for views that follow the games move by move
(the terminal's ply counts, the spectators' web page).  An executor whose games are played
elsewhere (Ray) reports no moves: its observers hear only of starts and ends.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.fen import START_FEN
from engine.move import Move
from matches.record import GameSpec, MatchGame

Clocks = tuple[float | None, float | None]
"""Seconds left on Black's and White's game clocks; None for a side without one (a time per
move, a depth or a node limit)."""


@dataclass(frozen=True)
class GameStarted:
    """A game was handed to the executor (its engines may still be starting)."""

    spec: GameSpec
    clocks: Clocks = (None, None)
    """Each side's game clock at the start."""

    @property
    def game_id(self) -> str:
        return self.spec.game_id

    @property
    def start_fen(self) -> str:
        """Where the opening's moves start from (the engines' start position when it has none)."""
        if self.spec.opening_moves:
            return self.spec.start_fen or START_FEN
        return self.spec.fen

    @property
    def opening_moves(self) -> tuple[str, ...]:
        """The opening's moves in PDN, played before the engines' first move."""
        return tuple(self.spec.opening_moves.split())

    @property
    def fen(self) -> str:
        """The position the engines start from."""
        return self.spec.fen


@dataclass(frozen=True)
class MoveEvent:
    """A move was played in a game."""

    spec: GameSpec
    plies: int
    """Plies the engines have played in this game, this one included (the opening's not counted)."""
    move: Move
    move_pdn: str
    """The move as PDN names it in the position it was played in (short form unless ambiguous)."""
    fen_after: str
    """The position after the move (``B:W21,...:B1,...``)."""
    seconds: float = 0.0
    """Time the mover took."""
    score: float | None = None
    """The mover's own score, from its side, in men, when it gave one."""
    depth: int | None = None
    clocks: Clocks = (None, None)
    """Each side's game clock after the move (its increment added)."""

    @property
    def game_id(self) -> str:
        return self.spec.game_id


@dataclass(frozen=True)
class GameFinished:
    """A game ended (``record`` holds it), or was given up unplayed (``record`` is None, the result
    ``*`` and the reason why: an executor failure, a stop before it finished)."""

    spec: GameSpec
    result: str
    """PDN result from Black's side: ``1-0``, ``0-1``, ``1/2-1/2``, or ``*`` when not played out."""
    reason: str
    record: MatchGame | None = None

    @property
    def game_id(self) -> str:
        return self.spec.game_id

    @property
    def plies(self) -> int:
        """Plies the engines played (0 for a game given up)."""
        return self.record.plies if self.record is not None else 0

    @classmethod
    def of(cls, record: MatchGame) -> GameFinished:
        return cls(record.spec, record.result, record.reason, record)


GameEvent = GameStarted | MoveEvent | GameFinished
