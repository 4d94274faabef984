"""Executors: where games are played.  The local pool here; Ray in ``matches.ray_executor``.

An executor takes a GameSpec and returns its MatchGame.  Engine faults are
results (the referee scores them); only a failure of the executor itself
(a lost worker after all retries, say) raises ``ExecutorError``, and an
engine that cannot start before it has started once ``EngineStartError``
(the tournament stops: its settings are wrong, no game was lost).
"""

from __future__ import annotations

import abc
import asyncio
import contextlib
import logging
from collections.abc import Callable, Collection, Mapping

from engine.errors import SamuelError
from engine.types import BLACK, WHITE
from matches.engines import EngineSpec, make_player
from matches.game_events import MoveEvent
from matches.player import EngineStartError, Player, PlayerFault
from matches.record import GameSpec, MatchGame
from matches.referee import GameRules, forfeit, play_match_game

log = logging.getLogger(__name__)


class ExecutorError(SamuelError):
    """A game (or a learner's task) could not be run for a reason that is not an engine's fault;
    a SamuelError, so a command names it in one line."""


class Executor(abc.ABC):
    concurrency: int
    reports_moves: bool = False
    """Whether ``on_move`` hears of each move (games played in this process); else only results."""

    async def start(self) -> None:  # noqa: B027 - optional
        """Get ready (start a cluster, say)."""

    @abc.abstractmethod
    async def play(self, spec: GameSpec) -> MatchGame:
        """Play one game; cancelling the call kills the game's engines."""

    async def close(self) -> None:  # noqa: B027 - optional
        """Release everything (engine processes, cluster connections)."""


async def _start_player(engine: EngineSpec, rules: GameRules, *, first: bool = False) -> Player:
    """A started player; with ``first`` (it has not started once in this run), EngineStartError
    when it cannot start, else PlayerFault."""
    player = make_player(engine, rules.tc_for(engine.name))
    try:
        await player.start()
    except PlayerFault as exc:
        player.kill()
        if first:
            raise EngineStartError(str(exc)) from None
        raise
    except BaseException:
        player.kill()
        raise
    return player


async def play_with_fresh_engines(spec: GameSpec, engines: Mapping[str, EngineSpec],
                                  rules: GameRules, first: Collection[str] = ()) -> MatchGame:
    """One game with engines started for it and killed after it (what a remote worker runs).

    The engines named in ``first`` have not started once in this run: they are
    started before the other, and EngineStartError is raised if one cannot
    start, so a record returned means every one of them did.
    """
    players: dict[str, Player] = {}
    sides = sorted(((BLACK, spec.black), (WHITE, spec.white)), key=lambda side: side[1] not in first)
    try:
        for colour, name in sides:
            try:
                players[name] = await _start_player(engines[name], rules, first=name in first)
            except PlayerFault as exc:
                return forfeit(spec, rules, colour, exc)
        return await play_match_game(spec, players[spec.black], players[spec.white], rules)
    finally:
        for p in players.values():
            with contextlib.suppress(Exception):
                await asyncio.wait_for(p.close(), 5.0)
            p.kill()


class _Slot:
    """One concurrent game's worth of engines, kept warm between games."""

    def __init__(self, index: int) -> None:
        self.index = index
        self.players: dict[str, Player] = {}

    def drop(self, name: str) -> None:
        p = self.players.pop(name, None)
        if p is not None:
            p.kill()


class LocalPool(Executor):
    """``concurrency`` game slots on this machine, each owning its own engine processes.

    An engine that faulted (or died) is killed after the game and started
    afresh for the next one; the others stay up, as a GUI's engines would.  ``on_move`` hears of
    every move of every game (on the event loop the games are played on).
    """

    reports_moves = True

    def __init__(self, engines: Mapping[str, EngineSpec], rules: GameRules, concurrency: int = 1,
                 on_move: Callable[[MoveEvent], None] | None = None) -> None:
        if concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, got {concurrency}")
        self.engines = dict(engines)
        self.rules = rules
        self.concurrency = concurrency
        self.on_move = on_move
        self._slots: asyncio.Queue[_Slot] = asyncio.Queue()
        self._all = [_Slot(i) for i in range(concurrency)]
        for s in self._all:
            self._slots.put_nowait(s)
        self._started: set[str] = set()
        """Engines that have started once: a failed start is theirs to lose from then on."""

    async def _player(self, slot: _Slot, name: str) -> Player:
        p = slot.players.get(name)
        if p is not None and p.alive:
            return p
        if p is not None:
            slot.drop(name)
        p = await _start_player(self.engines[name], self.rules, first=name not in self._started)
        self._started.add(name)
        slot.players[name] = p
        return p

    async def play(self, spec: GameSpec) -> MatchGame:
        slot = await self._slots.get()
        try:
            players: dict[str, Player] = {}
            for colour, name in ((BLACK, spec.black), (WHITE, spec.white)):
                try:
                    players[name] = await self._player(slot, name)
                except PlayerFault as exc:
                    slot.players.pop(name, None)
                    return forfeit(spec, self.rules, colour, exc)
            try:
                record = await play_match_game(spec, players[spec.black], players[spec.white], self.rules,
                                         self.on_move)
            except BaseException:
                # Cancelled (an SPRT stop, Ctrl-C) or a bug: these engines are mid-search.
                slot.drop(spec.black)
                slot.drop(spec.white)
                raise
            for name in (spec.black, spec.white):
                side = record.sides.get(name)
                if (side is not None and side.fault) or not players[name].alive:
                    log.info("restarting %s after %s", name, side.fault if side else "its death")
                    slot.drop(name)
            return record
        finally:
            self._slots.put_nowait(slot)

    async def close(self) -> None:
        for slot in self._all:
            for name, p in list(slot.players.items()):
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(p.close(), 5.0)
                slot.drop(name)
