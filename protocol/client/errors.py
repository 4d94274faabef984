"""Typed errors the client raises when an engine misbehaves."""

from __future__ import annotations

from engine.errors import SamuelError


class EngineError(SamuelError):
    """Base class: something went wrong talking to an engine."""


class EngineTerminatedError(EngineError):
    """The engine process exited or the connection closed."""


class EngineTimeoutError(EngineError, TimeoutError):
    """The engine did not answer in time (it hangs, or thinks far past its limit)."""


class IllegalEngineMoveError(EngineError):
    """The engine answered with a move that is not legal in the position."""


class EngineProtocolError(EngineError):
    """The engine sent something the dialect does not allow, or reported an error."""


class EngineGameEndError(EngineError):
    """The engine ended the game (DXP GAMEEND) where a move was due.

    ``reason`` is the follower's: 1 it loses, 2 draw, 3 it wins, 0 unknown.
    """

    def __init__(self, message: str, reason: int, stop: int) -> None:
        super().__init__(message)
        self.reason = reason
        self.stop = stop
