"""The client's common ground: results, the abstract engine and the sync wrapper.

In the spirit of python-chess's ``chess.engine``: each dialect implements
``EngineProtocol`` as asyncio coroutines, and ``SimpleEngine`` runs one on a
private event loop thread for blocking code (the tournament runner, scripts).
"""

from __future__ import annotations

import abc
import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from engine.board import Board
from engine.errors import SamuelError
from engine.limits import Limit
from engine.move import Move
from protocol.client.channel import Channel
from protocol.client.errors import EngineTimeoutError, IllegalEngineMoveError

T = TypeVar("T")
E = TypeVar("E", bound="EngineProtocol")

InfoDict = dict[str, Any]
"""Search information: any of ``depth``, ``seldepth``, ``score`` (float, in men, for
the side to move), ``nodes``, ``nps``, ``time`` (s), ``pv`` (list of Move),
``string`` (free text), ``status`` (a CheckerBoard status line)."""

DEFAULT_GRACE = 10.0
"""Seconds an engine may run past its limit before the client calls it hung."""


@dataclass
class PlayResult:
    """The engine's move, the reply it expects, and what it said while thinking."""

    move: Move
    ponder: Move | None = None
    info: InfoDict = field(default_factory=dict)
    result: str | None = None
    """A claimed game result, when the dialect carries one (cb: WIN/LOSS/DRAW/UNKNOWN)."""


def checked_move(board: Board, text: str, engine: str = "engine") -> Move:
    """The legal move ``text`` names in ``board``; IllegalEngineMoveError otherwise."""
    try:
        return board.parse_move(text)
    except SamuelError as exc:
        raise IllegalEngineMoveError(f"{engine} played {text!r}, which is not legal: {exc}") from None


def checked_pv(board: Board, texts: list[str]) -> list[Move]:
    """As many leading moves of a PV as are legal in sequence (a PV is advice, not a claim)."""
    b = board.copy()
    out: list[Move] = []
    for t in texts:
        try:
            m = b.parse_move(t)
        except SamuelError:
            break
        out.append(m)
        b.push(m)
    return out


def limit_timeout(limit: Limit, grace: float = DEFAULT_GRACE) -> float | None:
    """How long to wait for a move under ``limit`` before calling the engine hung.

    None (wait forever) only for a limit with neither time, depth nor nodes.
    """
    if limit.movetime is not None:
        return limit.movetime + grace
    if limit.time is not None:
        return limit.time + (limit.inc or 0.0) + grace
    if limit.depth is not None or limit.nodes is not None:
        return max(60.0, grace * 6)
    return None


class EngineProtocol(abc.ABC):
    """An engine driven over one dialect.  All methods are coroutines."""

    def __init__(self, channel: Channel) -> None:
        self.channel = channel
        self.id: dict[str, str] = {}
        """What the engine says about itself (name, version, author...)."""
        self.options: dict[str, Any] = {}
        """Options the engine declared, by name (dialect-specific descriptions)."""
        self.grace: float = DEFAULT_GRACE
        self.returncode: int | None = None

    @property
    def name(self) -> str:
        return self.id.get("name", self.channel.name)

    @abc.abstractmethod
    async def initialize(self) -> None:
        """Handshake; called by the ``popen_*``/``connect_*`` functions."""

    @abc.abstractmethod
    async def ping(self) -> None:
        """Round trip to check the engine is alive."""

    @abc.abstractmethod
    async def configure(self, options: Mapping[str, Any]) -> None:
        """Set engine options (evaluator, mode, hash, ...)."""

    @abc.abstractmethod
    async def play(self, board: Board, limit: Limit, *, ponder: bool = False) -> PlayResult:
        """The engine's move in ``board`` (checked legal)."""

    @abc.abstractmethod
    async def analyse(
        self, board: Board, limit: Limit, *, on_info: Callable[[InfoDict], None] | None = None
    ) -> InfoDict:
        """Search ``board``; ``on_info`` sees each info as it streams; returns the last."""

    async def new_game(self) -> None:
        """Tell the engine a new game starts (where the dialect has a way)."""
        return None

    @abc.abstractmethod
    async def quit(self) -> None:
        """End the session politely and close the channel."""

    async def close(self) -> None:
        await self.channel.close()
        if self.channel.process is not None:
            self.returncode = self.channel.process.returncode

    async def _before(self, deadline: float | None, timeout: float | None,
                      read: Callable[[float | None], Awaitable[T]]) -> T:
        """``read(seconds_left)``, as a "no move within" timeout once ``deadline`` (monotonic) passes."""
        left = None if deadline is None else deadline - time.monotonic()
        try:
            if left is not None and left <= 0:
                raise EngineTimeoutError("deadline passed")
            return await read(left)
        except EngineTimeoutError:
            raise EngineTimeoutError(f"{self.name}: no move within {timeout or 0:.1f} s") from None

    async def _guard(self, awaitable: Awaitable[T], timeout: float | None, what: str) -> T:
        try:
            return await asyncio.wait_for(awaitable, timeout)
        except asyncio.TimeoutError:
            raise EngineTimeoutError(f"{self.name}: no {what} within {timeout:.1f} s") from None


async def started(engine: E, grace: float | None = None) -> E:
    """``engine`` after its handshake; its channel is closed if the handshake fails."""
    if grace is not None:
        engine.grace = grace
    try:
        await engine.initialize()
    except BaseException:
        await engine.channel.close(grace=0.5)
        raise
    return engine
