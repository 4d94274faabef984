"""Player: one engine as the referee sees it, whatever it runs on.

The referee only asks a player to start, begin a game, move, and go away.
A player that misbehaves raises ``PlayerFault`` naming the kind of fault, so
the referee can score the game and the pool can restart the engine.
"""

from __future__ import annotations

import abc

from engine.board import Board
from engine.errors import SamuelError
from engine.game import MoveReply
from engine.limits import Limit
from engine.termination import Termination

Played = MoveReply
"""A player's move and what it said about it (score in men from the mover's side, depth, nodes):
the answer ``engine.game.GameLoop`` takes, the referee adding the time it took."""


class PlayerFault(Exception):
    """The engine crashed, stalled, played an illegal move or broke its protocol."""

    def __init__(self, ending: Termination, message: str) -> None:
        if not ending.is_fault:
            raise ValueError(f"{ending.value} is not a fault")
        super().__init__(message)
        self.ending = ending


class EngineStartError(SamuelError):
    """An engine failed to start before it had started once in this run.

    Its command or address is wrong (no such program, nothing listening, it
    exits before its handshake): a setting to fix, not a game it lost.  The
    message is the start's fault, which names the engine, its command or
    address and the operating system's error.  After a real start, a failed
    restart is a crash and loses the game as any other.
    """


class Player(abc.ABC):
    """One engine instance.  Owned by one game at a time; restarted after a fault."""

    def __init__(self, name: str) -> None:
        self.name = name

    @abc.abstractmethod
    async def start(self) -> None:
        """Start the process or connection and do the handshake; PlayerFault when it fails."""

    @abc.abstractmethod
    async def new_game(self) -> None:
        """A new game begins (clear hash, tell the engine)."""

    @abc.abstractmethod
    async def play(self, board: Board, limit: Limit, timeout: float | None) -> Played:
        """The move for ``board`` under ``limit``.

        ``timeout`` (seconds) is how long to wait before calling the engine
        stalled (PlayerFault STALL); None waits as long as ``limit`` implies.
        The move is checked legal (PlayerFault ILLEGAL_MOVE otherwise).
        """

    async def end_game(self, result: str) -> None:  # noqa: B027 - optional hook
        """The game is over (DXP tells its follower; the others need nothing)."""

    @abc.abstractmethod
    async def close(self) -> None:
        """Shut down politely, killing whatever does not go within a few seconds."""

    @abc.abstractmethod
    def kill(self) -> None:
        """Kill at once (no await): used when a task is cancelled or the executor dies."""

    @property
    def alive(self) -> bool:
        """False once the engine is known dead, so the pool starts a new one."""
        return True
