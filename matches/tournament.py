"""A tournament: the schedule, played through an executor, logged, rated and watched.

The orchestrator keeps at most ``concurrency`` games in flight, logs each
as it starts and ends, stops early when an SPRT decides, and skips every game
the log already holds when resumed.  It reports through callbacks and never
prints: ``on_progress`` after every change (the command line draws the live view
from it) and ``on_game`` with each game's start, moves and end (``matches.game_events``,
for the spectators' page).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from matches.engines import EngineSpec
from matches.executor import Executor, ExecutorError, LocalPool
from matches.game_events import GameEvent, GameFinished, GameStarted, MoveEvent
from matches.openings import Opening, load_openings
from matches.player import EngineStartError
from matches.ratings import SprtConfig, SprtStatus
from matches.record import GameSpec, MatchGame
from matches.referee import GameRules
from matches.schedule import FORMATS, fixed_schedule, gauntlet, round_robin, swiss_round
from matches.standings import Standings, compute_standings
from matches.store import TournamentStore

log = logging.getLogger(__name__)

EXECUTORS = ("local", "ray")


@dataclass
class TournamentConfig:
    """Everything that defines a tournament; stored in the log so ``--resume`` needs nothing else."""

    engines: list[EngineSpec]
    format: str = "round-robin"
    openings: str = "crossboard"
    """A ballot deck (crossboard, mailplay, barred) or a PDN/FEN file of start positions."""
    shuffle_seed: int | None = None
    openings_start: int = 1
    openings_limit: int | None = None
    rounds: int = 1
    """Times through the deck (round-robin, gauntlet, match); the number of rounds (Swiss)."""
    seeds: int = 1
    """Gauntlet: how many leading engines play all the others."""
    rules: GameRules = field(default_factory=GameRules)
    concurrency: int = 1
    executor: str = "local"
    ray_address: str | None = None
    sprt: SprtConfig | None = None
    bootstrap: int = 200
    rating_seed: int = 0
    name: str = "samuel tournament"

    def __post_init__(self) -> None:
        names = [e.name for e in self.engines]
        if len(names) < 2:
            raise ValueError("a tournament needs at least two engines")
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"engine names must differ: {', '.join(dupes)} given twice (set name=...)")
        if self.format not in FORMATS:
            raise ValueError(f"unknown format {self.format!r}; choose from {', '.join(FORMATS)}")
        if self.format == "match" and len(names) != 2:
            raise ValueError(f"a match is between two engines, got {len(names)}")
        if self.sprt is not None and len(names) != 2:
            raise ValueError("an SPRT is between two engines (use samuel match)")
        if self.executor not in EXECUTORS:
            raise ValueError(f"unknown executor {self.executor!r}; choose from {', '.join(EXECUTORS)}")
        if self.concurrency < 1 or self.rounds < 1:
            raise ValueError("concurrency and rounds must be at least 1")

    @property
    def names(self) -> list[str]:
        return [e.name for e in self.engines]

    def to_dict(self) -> dict[str, Any]:
        return {
            "engines": [e.to_dict() for e in self.engines],
            "format": self.format,
            "openings": self.openings,
            "shuffle_seed": self.shuffle_seed,
            "openings_start": self.openings_start,
            "openings_limit": self.openings_limit,
            "rounds": self.rounds,
            "seeds": self.seeds,
            "rules": self.rules.to_dict(),
            "concurrency": self.concurrency,
            "executor": self.executor,
            "ray_address": self.ray_address,
            "sprt": None if self.sprt is None else {
                "elo0": self.sprt.elo0, "elo1": self.sprt.elo1, "alpha": self.sprt.alpha,
                "beta": self.sprt.beta, "model": self.sprt.model},
            "bootstrap": self.bootstrap,
            "rating_seed": self.rating_seed,
            "name": self.name,
            "time_control": self.rules.default_tc.describe(),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TournamentConfig:
        return cls(
            engines=[EngineSpec.from_dict(e) for e in d["engines"]],
            format=d["format"],
            openings=d["openings"],
            shuffle_seed=d.get("shuffle_seed"),
            openings_start=d.get("openings_start", 1),
            openings_limit=d.get("openings_limit"),
            rounds=d.get("rounds", 1),
            seeds=d.get("seeds", 1),
            rules=GameRules.from_dict(d["rules"]),
            concurrency=d.get("concurrency", 1),
            executor=d.get("executor", "local"),
            ray_address=d.get("ray_address"),
            sprt=None if d.get("sprt") is None else SprtConfig(**d["sprt"]),
            bootstrap=d.get("bootstrap", 200),
            rating_seed=d.get("rating_seed", 0),
            name=d.get("name", "samuel tournament"),
        )

    def load_openings(self) -> list[Opening]:
        return load_openings(self.openings, shuffle_seed=self.shuffle_seed, start=self.openings_start,
                             limit=self.openings_limit)


@dataclass
class Running:
    spec: GameSpec
    started: float
    plies: int = 0


@dataclass
class Progress:
    """What an observer is told after every change."""

    records: list[MatchGame]
    running: list[Running]
    total: int | None
    elapsed: float
    standings: Standings
    finished: str | None = None
    """Why the tournament ended, once it has."""


def make_executor(config: TournamentConfig, on_move: Callable[[MoveEvent], None] | None) -> Executor:
    engines = {e.name: e for e in config.engines}
    if config.executor == "ray":
        from matches.ray_executor import RayExecutor

        return RayExecutor(engines, config.rules, config.concurrency, address=config.ray_address)
    return LocalPool(engines, config.rules, config.concurrency, on_move=on_move)


class Tournament:
    def __init__(self, config: TournamentConfig, store: TournamentStore,
                 done: Sequence[MatchGame] = (), *,
                 on_progress: Callable[[Progress], None] | None = None,
                 on_game: Callable[[GameEvent], None] | None = None,
                 executor: Executor | None = None) -> None:
        self.config = config
        self.store = store
        self.records: list[MatchGame] = list(done)
        self._done_ids = {r.game_id for r in self.records}
        self.on_progress = on_progress
        self.on_game = on_game
        """Hears each game start, move and end, on the event loop the tournament runs on."""
        self.running: dict[str, Running] = {}
        self.reports_moves = executor is None and config.executor == "local"
        """Whether ``on_game`` hears of every move (the local pool), or only of starts and ends."""
        self.executor = executor or make_executor(config, self._moved)
        self.openings = config.load_openings()
        if not self.openings:
            raise ValueError(f"no openings in {config.openings}")
        self.total: int | None = self._planned_total()
        self.stop_reason: str | None = None
        self.errors: list[str] = []
        self._t0 = time.monotonic()
        self._standings: Standings | None = None

    # -- schedule ---------------------------------------------------------

    def _pairings(self) -> list[Any]:
        names = self.config.names
        if self.config.format == "gauntlet":
            return gauntlet(names, self.config.seeds)
        return round_robin(names)

    def _planned_total(self) -> int:
        n = len(self.config.names)
        if self.config.format == "swiss":
            return self.config.rounds * (n // 2) * 2
        return len(self._pairings()) * len(self.openings) * 2 * self.config.rounds

    # -- reporting --------------------------------------------------------

    @property
    def standings(self) -> Standings:
        if self._standings is None:
            self._standings = compute_standings(
                self.records, self.config.names, sprt=self.config.sprt, total_games=self.total,
                elapsed=time.monotonic() - self._t0, bootstrap=min(self.config.bootstrap, 100),
                seed=self.config.rating_seed)
        return self._standings

    def final_standings(self) -> Standings:
        return compute_standings(self.records, self.config.names, sprt=self.config.sprt,
                                 total_games=self.total, elapsed=time.monotonic() - self._t0,
                                 bootstrap=self.config.bootstrap, seed=self.config.rating_seed)

    def _notify(self) -> None:
        if self.on_progress is None:
            return
        self.on_progress(Progress(self.records, list(self.running.values()), self.total,
                                  time.monotonic() - self._t0, self.standings, self.stop_reason))

    def _moved(self, event: MoveEvent) -> None:
        r = self.running.get(event.game_id)
        if r is None:  # a game given up already
            return
        r.plies = event.plies
        self._tell(event)

    def _tell(self, event: GameEvent) -> None:
        if self.on_game is not None:
            self.on_game(event)

    def _started(self, spec: GameSpec) -> None:
        self.running[spec.game_id] = Running(spec, time.monotonic())
        rules = self.config.rules
        self._tell(GameStarted(spec, (rules.tc_for(spec.black).base, rules.tc_for(spec.white).base)))

    def _given_up(self, spec: GameSpec, reason: str) -> None:
        """``spec`` ends unplayed (or unfinished)."""
        if self.running.pop(spec.game_id, None) is not None:
            self._tell(GameFinished(spec, "*", reason))

    # -- playing ----------------------------------------------------------

    async def run(self) -> str:
        """Play what is left; returns why it ended (complete, an SPRT decision, interrupted).

        EngineStartError when an engine cannot start before it has started once.
        """
        await self.executor.start()
        try:
            self._check_sprt()
            if self.config.format == "swiss":
                for round_no in range(1, self.config.rounds + 1):
                    if self.stop_reason:
                        break
                    specs, bye = swiss_round(self.config.names, round_no, self.openings, self.records)
                    if bye and not any(r.spec.round == round_no for r in self.records):
                        self.store.append({"event": "bye", "round": round_no, "engine": bye})
                    await self._play(specs)
            else:
                await self._play(fixed_schedule(self._pairings(), self.openings, self.config.rounds))
            if self.stop_reason is None:
                self.stop_reason = "complete"
        except asyncio.CancelledError:
            self.stop_reason = "interrupted"
            raise
        finally:
            with contextlib.suppress(Exception):
                await asyncio.shield(self.executor.close())
            self.store.append({"event": "tournament_finished", "reason": self.stop_reason or "interrupted",
                               "games": len(self.records), "errors": self.errors})
            self._standings = None
            self._notify()
        return self.stop_reason

    async def _play(self, specs: Sequence[GameSpec]) -> None:
        queue = [s for s in specs if s.game_id not in self._done_ids]
        queue.reverse()  # pop() from the end takes them in order
        tasks: dict[asyncio.Task[MatchGame], GameSpec] = {}
        try:
            while (queue or tasks) and not self.stop_reason:
                while queue and len(tasks) < self.config.concurrency:
                    spec = queue.pop()
                    self._started(spec)
                    self.store.append({"event": "game_started", "game_id": spec.game_id,
                                       "black": spec.black, "white": spec.white,
                                       "opening": spec.opening_label})
                    tasks[asyncio.ensure_future(self.executor.play(spec))] = spec
                    self._notify()
                done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    spec = tasks.pop(task)
                    try:
                        record = task.result()
                    except EngineStartError as exc:
                        # A wrong command or address: no game can be played with it, and none was lost.
                        self.stop_reason = "an engine could not start"
                        self._given_up(spec, str(exc))
                        self._error(str(exc))
                        raise
                    except ExecutorError as exc:
                        self._given_up(spec, f"not played: {exc}")
                        self._error(f"game {spec.game_id} not played: {exc}")
                        continue
                    except Exception as exc:  # a bug must not end the tournament
                        log.exception("game %s failed", spec.game_id)
                        self._given_up(spec, f"failed: {type(exc).__name__}: {exc}")
                        self._error(f"game {spec.game_id} failed: {type(exc).__name__}: {exc}")
                        continue
                    except BaseException:
                        self._given_up(spec, self.stop_reason or "interrupted")
                        raise
                    self.running.pop(spec.game_id, None)
                    self._finished(record)
        finally:
            for task in tasks:
                task.cancel()
            if tasks:
                await asyncio.gather(*tasks, return_exceptions=True)
            for spec in tasks.values():
                self._given_up(spec, self.stop_reason or "interrupted")

    def _error(self, message: str) -> None:
        self.errors.append(message)
        self.store.append({"event": "error", "message": message})
        self._notify()

    def _finished(self, record: MatchGame) -> None:
        self._tell(GameFinished.of(record))
        if record.game_id in self._done_ids:  # a retried game that came back twice
            return
        self._done_ids.add(record.game_id)
        self.records.append(record)
        self.store.finished(record)
        self._standings = None
        self._check_sprt()
        self._notify()

    def _check_sprt(self) -> None:
        if self.config.sprt is None or not self.records:
            return
        status: SprtStatus | None = self.standings.sprt
        if status is None:
            return
        self.store.append({"event": "sprt", "games": len(self.records), "llr": status.llr,
                           "lower": status.lower, "upper": status.upper, "decision": status.decision})
        if status.decision is not None:
            self.stop_reason = f"sprt: {status.decision} accepted"
