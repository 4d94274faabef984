"""Drive an engine that speaks the cb dialect (CheckerBoard's engine API as text lines).

    engine = await popen_cb(["samuel", "cb"])          # or: await connect_cb("127.0.0.1", 27532)
    result = await engine.play(board, Limit(movetime=0.5))
    print(result.move, result.result)                   # 11-15 UNKNOWN
    await engine.quit()

Each ``play`` sends ``set gamehist`` (the position after the last irreversible
move and the moves since, as CheckerBoard does) and then ``getmove``.  The move
is checked legal, and the FEN the engine returns must be the position after it
(CheckerBoard itself finds the engine's move by that position).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Mapping
from typing import Any

from engine.board import Board
from engine.errors import SamuelError
from engine.limits import Limit
from protocol import cb_grammar as g
from protocol.client.base import (
    EngineProtocol,
    InfoDict,
    PlayResult,
    checked_move,
    checked_pv,
    limit_timeout,
    started,
)
from protocol.client.channel import Channel, open_process, open_tcp
from protocol.client.errors import (
    EngineProtocolError,
    EngineTerminatedError,
    EngineTimeoutError,
    IllegalEngineMoveError,
)
from protocol.errors import ProtocolError

log = logging.getLogger(__name__)

SETUP_TIMEOUT = 10.0
"""Seconds the engine gets to answer ``ping`` and each enginecommand (``setup_timeout=`` changes it)."""
START_TIMEOUT = 30.0
"""Seconds for the first reply, which waits for a started process to load (as Hub's handshake)."""


def info_from_status(board: Board, text: str) -> InfoDict:
    """A status text as an info dict: ``status`` (raw), plus depth/score/nodes/pv when present."""
    info: InfoDict = {"status": text}
    fields = g.parse_status(text)
    for key in ("depth", "seldepth", "score", "nodes", "nps", "time"):
        if key in fields:
            info[key] = fields[key]
    pv = fields.get("pv")
    if isinstance(pv, list):
        info["pv"] = checked_pv(board, [str(t) for t in pv])
    return info


def gamehist_of(board: Board) -> str:
    """``set gamehist``: the position after the last irreversible move, then the reversible moves since."""
    replay = Board(board.initial_fen)
    start_fen = replay.fen()
    since: list[str] = []
    for move in board.move_stack:
        mover = replay.piece_at(move.from_square)
        replay.push(move)
        if move.is_capture or (mover is not None and not mover.king):
            start_fen, since = replay.fen(), []
        else:
            since.append(move.long)
    return " ".join(["set gamehist", start_fen, *since])


class CbEngine(EngineProtocol):
    """An engine over the cb dialect."""

    def __init__(self, channel: Channel, *, setup_timeout: float = SETUP_TIMEOUT) -> None:
        super().__init__(channel)
        self.setup_timeout = setup_timeout
        """Seconds for each reply to an enginecommand and for ``pong``."""
        self._reset_next = True  # the first getmove of a session starts a game

    # ---- lines ----

    async def _line(self, timeout: float | None) -> g.EngineLine:
        text = await self.channel.receive(timeout)
        try:
            return g.parse_engine_line(text)
        except ProtocolError as exc:
            raise EngineProtocolError(f"{self.name}: {exc}") from None

    async def command(self, text: str, timeout: float | None = None) -> g.Reply:
        """Send an enginecommand string and return its ``reply``; EngineProtocolError on ``error``."""
        if timeout is None:
            timeout = self.setup_timeout
        await self.channel.send(text)
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise EngineTimeoutError(f"{self.name}: no reply to {text!r} within {timeout:.1f} s")
            line = await self._line(left)
            if isinstance(line, g.Reply):
                return line
            if isinstance(line, g.ErrorLine):
                raise EngineProtocolError(f"{self.name}: {text!r}: {line.message}")
            log.debug("%s: ignoring %r while waiting for a reply", self.name, line)

    # ---- EngineProtocol ----

    async def initialize(self) -> None:
        name = await self.command("name", max(self.setup_timeout, START_TIMEOUT))
        if name.code == 1 and name.text:
            self.id["name"] = name.text
        version = await self.command("get protocolversion")
        if version.code == 1:
            self.id["protocolversion"] = version.text
            if version.text.strip() != str(g.PROTOCOL_VERSION):
                log.warning("%s speaks CheckerBoard protocol version %s, not %d",
                            self.name, version.text, g.PROTOCOL_VERSION)

    async def ping(self) -> None:
        await self.channel.send("ping")
        deadline = time.monotonic() + self.setup_timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise EngineTimeoutError(f"{self.name}: no pong within {self.setup_timeout:.1f} s")
            if isinstance(await self._line(left), g.Pong):
                return

    async def configure(self, options: Mapping[str, Any]) -> None:
        """``set <name> <value>`` for each option; EngineProtocolError when the engine refuses one."""
        for name, value in options.items():
            text = ("true" if value else "false") if isinstance(value, bool) else str(value)
            if not text or any(c in text for c in "\r\n"):
                raise EngineProtocolError(f"option {name}: value {value!r} cannot be sent on one line")
            reply = await self.command(f"set {name} {text}")
            if reply.code != 1:
                raise EngineProtocolError(f"{self.name} refused option {name}={text}: {reply.text}")
            self.options[name] = reply.text

    async def new_game(self) -> None:
        self._reset_next = True

    async def _getmove(
        self, board: Board, limit: Limit, on_info: Callable[[InfoDict], None] | None
    ) -> tuple[g.MoveLine, InfoDict]:
        board.require_moves()
        hist = await self.command(gamehist_of(board))
        if hist.code != 1:
            log.debug("%s did not take the game history: %s", self.name, hist.text)
        await self.channel.send(g.format_getmove(board.fen(), limit, reset=self._reset_next))
        self._reset_next = False
        timeout = limit_timeout(limit, self.grace)
        deadline = None if timeout is None else time.monotonic() + timeout
        info: InfoDict = {}
        while True:
            line = await self._before(deadline, timeout, self._line)
            if isinstance(line, g.Status):
                info = info_from_status(board, line.text)
                if on_info is not None:
                    on_info(dict(info))
            elif isinstance(line, g.MoveLine):
                if line.status and line.status != info.get("status"):
                    info = info_from_status(board, line.status)
                return line, info
            elif isinstance(line, g.ErrorLine):
                raise EngineProtocolError(f"{self.name}: getmove: {line.message}")
            else:
                log.debug("%s: ignoring %r during getmove", self.name, line)

    def _checked(self, board: Board, line: g.MoveLine) -> PlayResult:
        move = checked_move(board, line.move, self.name)
        after = board.copy()
        after.push(move)
        try:
            returned = Board(line.fen)
        except SamuelError as exc:
            raise IllegalEngineMoveError(
                f"{self.name} returned an unreadable position {line.fen!r}: {exc}"
            ) from None
        if returned != after:
            raise IllegalEngineMoveError(
                f"{self.name} played {line.move} but returned {line.fen}, "
                f"not the position after it, {after.fen()}"
            )
        return PlayResult(move, None, {}, line.result)

    async def play(self, board: Board, limit: Limit, *, ponder: bool = False) -> PlayResult:
        """The engine's move (``ponder`` is ignored: the CheckerBoard API has no pondering)."""
        line, info = await self._getmove(board, limit, None)
        result = self._checked(board, line)
        result.info = info
        return result

    async def analyse(
        self, board: Board, limit: Limit, *, on_info: Callable[[InfoDict], None] | None = None
    ) -> InfoDict:
        """A getmove whose status lines stream to ``on_info``; returns the last info (plus ``move``)."""
        line, info = await self._getmove(board, limit, on_info)
        checked = self._checked(board, line)
        info["move"] = checked.move
        info["result"] = line.result
        return info

    async def playnow(self) -> None:
        """CheckerBoard's *playnow: the running getmove answers at once."""
        await self.channel.send("playnow")

    async def quit(self) -> None:
        with contextlib.suppress(EngineTerminatedError):
            await self.channel.send("quit")
        proc = self.channel.process
        if proc is not None and proc.returncode is None:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(proc.wait(), self.grace)
        await self.close()


async def popen_cb(argv: list[str], *, cwd: str | None = None, grace: float | None = None,
                   setup_timeout: float = SETUP_TIMEOUT, **kwargs: Any) -> CbEngine:
    """Start ``argv`` (e.g. ``["samuel", "cb"]``) and ask its name and protocol version."""
    channel = await open_process(argv, cwd=cwd, **kwargs)
    return await started(CbEngine(channel, setup_timeout=setup_timeout), grace)


async def connect_cb(host: str, port: int, *, grace: float | None = None, timeout: float = 10.0,
                     setup_timeout: float = SETUP_TIMEOUT) -> CbEngine:
    """Connect to a cb engine on ``host:port`` (``samuel serve`` listens on 27532)."""
    return await started(CbEngine(await open_tcp(host, port, timeout=timeout), setup_timeout=setup_timeout),
                         grace)
