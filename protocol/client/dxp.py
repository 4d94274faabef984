"""DxpEngine: drive a DXP follower (our own ``samuel serve``, or another DXP engine).

We are the initiator.  The first ``play`` of a game sends a GAMEREQ with the
game's start position and the side to move as the follower's colour, then the
opponent moves since; each later ``play`` sends the new opponent move and waits
for the reply MOVE.  Things DXP cannot express, and what this client does:

* the follower plays its own moves, so a board whose history holds moves of
  both sides is started at the position before its last move (the history
  before that, and with it repetitions, is not sent);
* DXP has no options: ``configure`` with anything raises EngineError;
* DXP has no analysis: ``analyse`` raises EngineError;
* DXP has no ping: ``ping`` only checks that the connection is still open;
* a follower that ends the game instead of moving (a GAMEEND where a MOVE was
  due) makes ``play`` raise ``EngineGameEndError``, carrying its reason; the
  GAMEEND has already been confirmed.

Errors: an illegal MOVE raises IllegalEngineMoveError, silence past the limit
EngineTimeoutError, a closed socket EngineTerminatedError, a declined GAMEREQ
or unreadable message EngineProtocolError.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections.abc import Callable, Mapping
from typing import Any

from engine.board import Board
from engine.limits import Limit
from engine.types import WHITE
from protocol import dxp_grammar as g
from protocol.client.base import EngineProtocol, InfoDict, PlayResult, limit_timeout
from protocol.client.channel import Channel, open_tcp
from protocol.client.errors import (
    EngineError,
    EngineGameEndError,
    EngineProtocolError,
    IllegalEngineMoveError,
)
from protocol.errors import ProtocolError
from protocol.position_strings import FRAMES

log = logging.getLogger(__name__)

DEFAULT_MINUTES = 5
"""Thinking time per side and game sent in GAMEREQ when none is given."""
MESSAGE_GAP = 0.1
"""Seconds between two messages we send with no answer between them (some followers read two
messages as one).  After a GAMEACC, MOVE or GAMEEND from the follower (each comes after it read
our last message) the next goes at once: the gap must not be charged to either engine's clock."""
ACK_TIMEOUT = 5.0
"""Seconds to wait for a GAMEACC or a GAMEEND confirmation."""

REASON_TEXT = {
    g.REASON_NONE: "no reason given",
    g.REASON_I_LOSE: "it gives up",
    g.REASON_DRAW: "it claims a draw",
    g.REASON_I_WIN: "it claims a win",
}


class DxpEngine(EngineProtocol):
    """A DXP follower on the other end of a TCP connection."""

    def __init__(self, channel: Channel, *, name: str = "samuel-client", frame: str = "literal",
                 minutes: int | None = None, moves: int = 0) -> None:
        super().__init__(channel)
        if frame not in FRAMES:
            raise ValueError(f"unknown frame {frame!r}; choose from {', '.join(FRAMES)}")
        if not 0 <= (minutes or 0) <= 999 or not 0 <= moves <= 999:
            raise ValueError("DXP carries minutes and moves as 0..999")
        self.client_name = name
        self.frame = frame
        self.minutes = minutes
        """Game minutes sent in GAMEREQ; None: taken from the Limit of a game's first play
        (``time`` rounded up to whole minutes; ``movetime``/``depth``/``nodes`` send 000, which
        leaves the follower to its own per-move default; no limit at all sends DEFAULT_MINUTES)."""
        self.moves = moves
        self._game_minutes = minutes if minutes is not None else DEFAULT_MINUTES
        self.game: Board | None = None
        """What the follower knows of the current game (None between games)."""
        self.follower_color: int | None = None
        self._origin: tuple[str, list[Any]] = ("", [])
        """The caller's start position and the moves before our GAMEREQ position."""
        self.chats: list[str] = []
        """Chat lines received, oldest first."""
        self._last_sent = -MESSAGE_GAP

    # ---- plumbing ----

    async def _send(self, msg: g.Message) -> None:
        loop = asyncio.get_running_loop()
        wait = self._last_sent + MESSAGE_GAP - loop.time()
        if wait > 0:
            await asyncio.sleep(wait)
        await self.channel.send(g.format_message(msg))
        self._last_sent = loop.time()

    async def _receive(self, timeout: float | None) -> g.Message:
        """The next message that is not a chat (chats are logged and kept)."""
        while True:
            text = await self.channel.receive(timeout)
            try:
                msg = g.parse_message(text)
            except ProtocolError as exc:
                raise EngineProtocolError(f"{self.name}: bad DXP message {text!r}: {exc}") from None
            if isinstance(msg, g.Chat):
                log.info("%s says: %s", self.name, msg.text)
                self.chats.append(msg.text)
                continue
            if isinstance(msg, g.BackReq):
                await self._send(g.BackAcc(g.BACK_NOT_SUPPORTED))  # no take-backs on this side
                continue
            # A GAMEACC, MOVE, GAMEEND or BACKACC comes after the follower read our last message.
            self._last_sent = -math.inf
            return msg

    # ---- EngineProtocol ----

    async def initialize(self) -> None:
        """Nothing to do: DXP has no handshake before the first GAMEREQ."""
        return None

    async def ping(self) -> None:
        if self.channel.writer.is_closing() or self.channel.reader.at_eof():
            raise EngineError(f"{self.name}: the connection is closed")

    async def configure(self, options: Mapping[str, Any]) -> None:
        if options:
            raise EngineError(f"DXP has no engine options (got {', '.join(options)})")

    async def analyse(self, board: Board, limit: Limit, *,
                      on_info: Callable[[InfoDict], None] | None = None) -> InfoDict:
        raise EngineError("DXP has no analysis")

    async def new_game(self) -> None:
        await self.end_game()

    async def play(self, board: Board, limit: Limit, *, ponder: bool = False) -> PlayResult:
        pending = self._continuation(board)
        if pending is None:
            await self.end_game()
            self._game_minutes = self.minutes if self.minutes is not None else _minutes_for(limit)
            pending = await self._start_game(board)
        timeout = limit_timeout(limit, self.grace)
        if self._game_minutes:
            # The follower keeps its own clock of the game's minutes and may spend it as it likes.
            timeout = max(timeout or 0.0, self._game_minutes * 60 + self.grace)
        for move in pending:
            assert self.game is not None
            await self._send(g.move_message(move))
            self.game.push(move)
        return await self._await_move(timeout)

    async def quit(self) -> None:
        """End a running game with GAMEEND ``E01`` (confirmed briefly), then close."""
        if self.game is not None:
            with contextlib.suppress(EngineError):
                await self.end_game(g.REASON_NONE, g.STOP_ALL)
        await self.close()

    # ---- games ----

    async def end_game(self, reason: int = g.REASON_NONE, stop: int = g.STOP_NEXT_GAME) -> None:
        """Send GAMEEND for the running game (``reason`` from our side) and wait for the confirmation."""
        if self.game is None:
            return
        self.game = None
        await self._send(g.GameEnd(reason, stop))
        loop = asyncio.get_running_loop()
        deadline = loop.time() + ACK_TIMEOUT
        while True:
            msg = await self._receive(max(0.01, deadline - loop.time()))
            if isinstance(msg, g.GameEnd):
                return
            log.debug("%s: ignoring %s while waiting for the GAMEEND confirmation", self.name, msg)

    def _continuation(self, board: Board) -> list[Any] | None:
        """The moves to send when ``board`` goes on from the current game, else None."""
        game = self.game
        fen, prefix = self._origin
        if game is None or board.initial_fen != fen:
            return None
        known = prefix + game.move_stack
        if board.move_stack[: len(known)] != known:
            return None
        new = board.move_stack[len(known):]
        if board.turn != self.follower_color or len(new) > 1:
            return None
        return list(new)

    async def _start_game(self, board: Board) -> list[Any]:
        """GAMEREQ for ``board``; the moves still to send after it."""
        root = Board(board.initial_fen)
        pending = list(board.move_stack)
        prefix: list[Any] = []
        if len(pending) > 1:
            # The follower cannot be told its own earlier moves: start just before the last move.
            before = board.copy()
            before.pop()
            root = Board(before.fen())
            prefix, pending = pending[:-1], pending[-1:]
        if not root.legal_moves:
            raise EngineError(f"no game to play: no legal moves in {root.fen()}")
        req = g.GameReq(self.client_name, board.turn, self._game_minutes, self.moves,
                        g.position_of(root, self.frame))
        await self._send(req)
        while True:
            msg = await self._receive(ACK_TIMEOUT)
            if isinstance(msg, g.GameAcc):
                break
            log.debug("%s: ignoring %s while waiting for GAMEACC", self.name, msg)
        self.id["name"] = msg.name or self.channel.name
        if msg.code != g.ACCEPT:
            why = {g.ACCEPT_BAD_VERSION: "protocol version", g.ACCEPT_NOT_THIS_GAME: "not this game",
                   g.ACCEPT_NO_GAMES: "no games at all"}.get(msg.code, "?")
            raise EngineProtocolError(f"{self.name} declined the game (code {msg.code}: {why})")
        self.game = root
        self.follower_color = board.turn
        self._origin = (board.initial_fen, prefix)
        log.info("%s accepted a game as %s from %s", self.name,
                 "white" if board.turn == WHITE else "black", root.fen())
        return pending

    async def _await_move(self, timeout: float | None) -> PlayResult:
        game = self.game
        assert game is not None
        while True:
            msg = await self._receive(timeout)
            if isinstance(msg, g.MoveMsg):
                try:
                    move = g.find_move(game, msg)
                except ProtocolError as exc:
                    raise IllegalEngineMoveError(f"{self.name} played an illegal move: {exc}") from None
                game.push(move)
                return PlayResult(move, None, {"time": float(msg.seconds)})
            if isinstance(msg, g.GameEnd):
                self.game = None
                await self._send(g.GameEnd(g.REASON_NONE, msg.stop))
                raise EngineGameEndError(
                    f"{self.name} ended the game: {REASON_TEXT.get(msg.reason, '?')}", msg.reason, msg.stop
                )
            raise EngineProtocolError(f"{self.name}: expected MOVE or GAMEEND, got {g.format_message(msg)!r}")


def _minutes_for(limit: Limit) -> int:
    if limit.time is not None:
        return max(1, min(999, math.ceil(limit.time / 60)))
    if limit.movetime is not None or limit.depth is not None or limit.nodes is not None:
        return 0
    return DEFAULT_MINUTES


async def connect_dxp(host: str, port: int, *, name: str = "samuel-client", frame: str = "literal",
                      minutes: int | None = None, moves: int = 0, timeout: float = 10.0) -> DxpEngine:
    """Connect to a DXP follower listening on ``host:port`` (27531 is DXP's port)."""
    channel = await open_tcp(host, port, sep=b"\0", timeout=timeout)
    engine = DxpEngine(channel, name=name, frame=frame, minutes=minutes, moves=moves)
    await engine.initialize()
    return engine
