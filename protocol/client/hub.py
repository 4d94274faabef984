"""HubEngine: drive an engine that speaks Hub (``samuel hub``, or Scan-style engines).

    engine = await popen_hub(["samuel", "hub"])
    result = await engine.play(board, Limit(movetime=0.1))
    await engine.quit()

Positions go out literally (side letter + 32 squares) with the whole game in
``moves=``, so the engine sees the history it needs for repetitions.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from engine.board import Board
from engine.limits import Limit
from engine.move import Move
from protocol import hub_grammar as g
from protocol.client.base import EngineProtocol, InfoDict, PlayResult, checked_move, limit_timeout, started
from protocol.client.channel import Channel, open_process, open_tcp
from protocol.client.errors import (
    EngineProtocolError,
    EngineTerminatedError,
    EngineTimeoutError,
    IllegalEngineMoveError,
)
from protocol.errors import ProtocolError

log = logging.getLogger(__name__)

HANDSHAKE_TIMEOUT = 30.0
"""Seconds for ``hub``/``init``/``ping`` round trips."""


def parse_move_text(board: Board, text: str, engine: str = "engine") -> Move:
    """The legal move an engine named, in Hub form or (a courtesy) PDN; IllegalEngineMoveError if none."""
    try:
        return g.parse_move(board, text)
    except ProtocolError:
        return checked_move(board, text, engine)


def parse_pv(board: Board, text: str) -> list[Move]:
    """As many leading PV moves as are legal in sequence."""
    b = board.copy()
    out: list[Move] = []
    for token in text.split():
        try:
            m = parse_move_text(b, token)
        except IllegalEngineMoveError:
            break
        out.append(m)
        b.push(m)
    return out


def parse_info(board: Board, line: g.HubLine) -> InfoDict:
    """An ``info`` line as an InfoDict (score in men, nps in nodes/s, pv as Moves)."""
    info: InfoDict = {}
    for key, value in line.args.items():
        if value is None:
            continue
        try:
            if key in ("depth", "nodes", "seldepth"):
                info[key] = int(value)
            elif key in ("mean-depth", "time", "score"):
                info[key] = float(value)
            elif key == "nps":
                info[key] = int(float(value) * 1e6)  # Hub gives MNPS
            elif key == "pv":
                info[key] = parse_pv(board, value)
            else:
                info[key] = value
        except ValueError:
            log.debug("ignoring bad info value %s=%r", key, value)
    return info


def clock_after_move(limit: Limit, spent: float) -> Limit:
    """``limit`` as it stands at our next move, after this one took ``spent`` seconds: the clock
    less the time, plus the increment, one move fewer to go.  At a period's end the period's time,
    unknown here, is left out (the engine then plans on less than it has, never more)."""
    if limit.time is None:
        return limit
    mtg = limit.moves_to_go
    return replace(limit, time=max(0.0, limit.time - spent) + (limit.inc or 0.0),
                   moves_to_go=mtg - 1 if mtg is not None and mtg > 1 else None)


class HubEngine(EngineProtocol):
    """A Hub engine over a Channel.  Create it with ``popen_hub``."""

    def __init__(self, channel: Channel) -> None:
        super().__init__(channel)
        self.params: dict[str, dict[str, str]] = {}
        """Every ``param`` the engine declared: name -> its arguments (value, type, values, min, max)."""
        self._ponder: tuple[Board, Limit] | None = None
        """The position and level of a running ``go ponder``, if any."""

    # ---- low level ----

    async def _send(self, text: str) -> None:
        await self.channel.send(text)

    async def _line(self, timeout: float | None) -> g.HubLine | None:
        """The next line parsed; None for a blank or unparsable line (logged)."""
        text = await self.channel.receive(timeout)
        try:
            return g.tokenize(text)
        except ProtocolError as exc:
            log.warning("%s sent a malformed line %r: %s", self.name, text, exc)
            return None

    async def _until(self, command: str, timeout: float, errors: list[str] | None = None) -> g.HubLine:
        """Read until ``command``; ``error`` lines on the way go to ``errors`` (or are logged)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise EngineTimeoutError(f"{self.name}: no {command} within {timeout:.1f} s")
            try:
                line = await self._line(left)
            except EngineTimeoutError:
                raise EngineTimeoutError(f"{self.name}: no {command} within {timeout:.1f} s") from None
            if line is None:
                continue
            if line.command == command:
                return line
            if line.command == "error" and errors is not None:
                errors.append(line.args.get("message") or "")
            else:
                log.debug("%s: skipping %s while waiting for %s", self.name, line.command, command)

    # ---- EngineProtocol ----

    async def initialize(self) -> None:
        await self._send("hub")
        deadline = time.monotonic() + HANDSHAKE_TIMEOUT
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise EngineTimeoutError(f"{self.name}: no wait after hub within {HANDSHAKE_TIMEOUT} s")
            line = await self._line(left)
            if line is None:
                continue
            if line.command == "wait":
                break
            if line.command == "id":
                self.id.update({k: v for k, v in line.args.items() if v is not None})
            elif line.command == "param":
                name = line.args.get("name")
                if name:
                    desc = {k: v for k, v in line.args.items() if v is not None and k != "name"}
                    self.params[name] = desc
                    self.options[name] = desc
        variants = (self.params.get("variant", {}).get("values") or "").split()
        if "english" in variants:
            await self._send("set-param name=variant value=english")
        await self._send("init")
        await self._until("ready", HANDSHAKE_TIMEOUT)

    async def ping(self) -> None:
        await self._send("ping")
        await self._until("pong", HANDSHAKE_TIMEOUT)

    async def configure(self, options: Mapping[str, Any]) -> None:
        """``set-param`` each option, then a ping round trip; EngineProtocolError if the engine objected."""
        await self._stop_pondering()
        for name, value in options.items():
            text = "true" if value is True else "false" if value is False else "none" if value is None \
                else str(value)
            await self._send(g.format_line("set-param", [("name", name), ("value", text)]))
        errors: list[str] = []
        await self._send("ping")
        await self._until("pong", HANDSHAKE_TIMEOUT, errors)
        if errors:
            raise EngineProtocolError(f"{self.name} rejected options: {'; '.join(errors)}")

    async def new_game(self) -> None:
        await self._stop_pondering()
        await self._send("new-game")

    def _pos_line(self, board: Board) -> str:
        moves = [g.format_move(m) for m in board.move_stack]
        args: list[tuple[str, object | None]] = [("pos", g.format_position(Board(board.initial_fen)))]
        if moves:
            args.append(("moves", " ".join(moves)))
        return g.format_line("pos", args, always_quote=["moves"])

    async def _start(self, board: Board, limit: Limit, mode: str) -> None:
        await self._send(self._pos_line(board))
        await self._send(g.format_level(limit))
        await self._send(f"go {mode}")

    async def _finish(
        self, board: Board, timeout: float | None, on_info: Callable[[InfoDict], None] | None = None
    ) -> tuple[g.HubLine, InfoDict]:
        """Read info lines until ``done``; returns it and the last info."""
        deadline = None if timeout is None else time.monotonic() + timeout
        last: InfoDict = {}
        while True:
            line = await self._before(deadline, timeout, self._line)
            if line is None:
                continue
            if line.command == "done":
                return line, last
            if line.command == "info":
                info = parse_info(board, line)
                last = {**last, **info}
                if on_info is not None:
                    on_info(info)
            elif line.command == "error":
                message = line.args.get("message") or ""
                await self._resync()
                raise EngineProtocolError(f"{self.name}: {message}")
            else:
                log.debug("%s: unexpected %s while searching", self.name, line.command)

    async def _resync(self) -> None:
        """After an error: ping and drop everything up to the pong, so no stale line is read later."""
        with contextlib.suppress(EngineTimeoutError):
            await self._send("ping")
            await self._until("pong", HANDSHAKE_TIMEOUT)

    def _result(self, board: Board, done: g.HubLine, info: InfoDict) -> PlayResult:
        text = done.args.get("move")
        if not text:
            raise EngineProtocolError(f"{self.name}: done without move=")
        move = parse_move_text(board, text, self.name)
        ponder = None
        ponder_text = done.args.get("ponder")
        if ponder_text:
            after = board.copy()
            after.push(move)
            with contextlib.suppress(IllegalEngineMoveError):
                ponder = parse_move_text(after, ponder_text, self.name)
        return PlayResult(move, ponder, info)

    async def play(self, board: Board, limit: Limit, *, ponder: bool = False) -> PlayResult:
        """The engine's move; with ``ponder`` it then thinks on the expected reply until the next call."""
        board.require_moves()
        started_at = time.monotonic()
        hit = await self._end_ponder(board)
        if hit is None:
            await self._start(board, limit, "think")
            done, info = await self._finish(board, limit_timeout(limit, self.grace))
        else:
            done, info = hit
        result = self._result(board, done, info)
        if ponder and result.ponder is not None:
            after = board.copy()
            after.push(result.move)
            after.push(result.ponder)
            if after.legal_moves:
                # The ponder search's level is the clock as it will stand at the hit (what the
                # engine budgets from once told ``ponder-hit``), not this move's.
                later = clock_after_move(limit, time.monotonic() - started_at)
                await self._start(after, later, "ponder")
                self._ponder = (after, later)
        return result

    async def _end_ponder(self, board: Board) -> tuple[g.HubLine, InfoDict] | None:
        """A running ponder search: on a hit, switch it to the clock and return its done; else stop it."""
        if self._ponder is None:
            return None
        pondered, limit = self._ponder
        self._ponder = None
        same = pondered.initial_fen == board.initial_fen and pondered.move_stack == board.move_stack
        if same:
            await self._send("ponder-hit")
            return await self._finish(board, limit_timeout(limit, self.grace))
        await self._send("stop")
        await self._finish(pondered, limit_timeout(Limit(movetime=0.001), self.grace))
        return None

    async def _stop_pondering(self) -> None:
        if self._ponder is not None:
            pondered, _ = self._ponder
            self._ponder = None
            await self._send("stop")
            await self._finish(pondered, limit_timeout(Limit(movetime=0.001), self.grace))

    async def analyse(
        self, board: Board, limit: Limit, *, on_info: Callable[[InfoDict], None] | None = None
    ) -> InfoDict:
        """``go analyze`` under ``limit``; streams each info to ``on_info``; returns the merged last info."""
        board.require_moves()
        await self._stop_pondering()
        await self._start(board, limit, "analyze")
        done, info = await self._finish(board, limit_timeout(limit, self.grace), on_info)
        move_text = done.args.get("move")
        if move_text:
            with contextlib.suppress(IllegalEngineMoveError):
                info["move"] = parse_move_text(board, move_text, self.name)
        return info

    async def stop(self) -> None:
        """Ask a running search to stop (it still answers ``done``)."""
        await self._send("stop")

    async def quit(self) -> None:
        with contextlib.suppress(EngineTerminatedError, EngineTimeoutError, EngineProtocolError):
            await self._stop_pondering()
        with contextlib.suppress(EngineTerminatedError):
            await self._send("quit")
        proc = self.channel.process
        if proc is not None and proc.returncode is None:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(proc.wait(), self.grace)
        await self.close()


async def popen_hub(argv: list[str], *, cwd: str | None = None, grace: float | None = None,
                    **kwargs: Any) -> HubEngine:
    """Start ``argv`` (e.g. ``["samuel", "hub"]``) and run the ``hub``/``init`` handshake."""
    return await started(HubEngine(await open_process(argv, cwd=cwd, **kwargs)), grace)


async def connect_hub(
    host: str, port: int, *, grace: float | None = None, timeout: float = 10.0
) -> HubEngine:
    """Connect to a Hub engine on ``host:port`` (``samuel serve --hub-port PORT``) and shake hands."""
    return await started(HubEngine(await open_tcp(host, port, timeout=timeout)), grace)
