"""Chellapilla and Fogel's evolution (1999): networks that learn checkers from win, lose or draw.

Each generation the 15 parents make one offspring each by self-adaptive Gaussian mutation of every
weight (and of the king value K); the 30 play games; the 15 with the most points are the next
parents.  Two presets:

* ``paper``, as the paper played it: each of the 30 plays five games as Black against opponents
  drawn at random (with replacement) from the 30, from the start position; both sides score +1 a
  win, 0 a draw, -2 a loss; a game is drawn after 100 moves each (no repetition or 40-move draws);
  the search is their fail-soft alpha-beta at depth 4 with their extensions (``Mode.FOGEL``).
* ``modern``: the same evolution, but each player plays an ACF ballot in a colour-reversed pair
  against each of its opponents, repetition and the 40-move rule draw, and a hall of fame of the
  earlier generations' champions is among the opponents (so the population cannot forget them).

Options that change a reading, each measured in docs/learners/evolution.md: ``scores="exact"``
(the output node's sum instead of 1000 x the output rounded, which saturates), ``adjudicate``
(material decides a game at the move cap), ``lifetime`` (selection on each player's whole record),
``search_draws`` (the search sees the repetition and 40-move draws the modern games have).
Every ``panel_every`` generations the best plays a fixed panel (evolve_panel.py): that is the
learning curve, and the panel chooses the champion.

Readings we had to choose are written down in docs/learners/evolution.md.  Deterministic for a
seed: every random draw happens here, in order, before the games run (in parallel or not).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from engine.errors import OptionError
from engine.fen import START_FEN
from engine.learners.evolve_games import GameJob, play_all
from engine.learners.evolve_panel import Panel
from engine.learners.network import K_RANGE, Network, size
from engine.replacing import replacing

PRESETS = ("paper", "modern")
SCORES = ("rounded", "exact")
POINTS = {"win": 1, "draw": 0, "loss": -2}
STATE_FILE = "state.npz"
META_FILE = "state.json"
LOG_FILE = "generations.jsonl"


@dataclass(frozen=True)
class EvolveConfig:
    preset: str = "paper"
    network: str = "blondie"
    parents: int = 15
    games: int = 5
    """Games each player starts (paper: as Black; modern: ballot pairs, so twice as many)."""
    depth: int = 4
    max_moves: int = 100
    """A draw after this many moves each."""
    seed: int = 1
    hall_of_fame: int = 10
    """modern: how many earlier champions stay as opponents."""
    scores: str = "rounded"
    """rounded: 1000 x the network's output, rounded (ours of the paper); exact: the output node's
    sum, which orders moves as the float outputs do and never saturates."""
    adjudicate: int = 0
    """At the move cap a side this many pieces ahead wins (0: the cap draws, as in the paper)."""
    panel_every: int = 10
    """Generations between panel points (0: no panel); see evolve_panel.py."""
    panel_pairs: int = 24
    """Ballot pairs the best plays against each panel opponent."""
    panel_gen0: int = 3
    """Generation 0's players on the panel."""
    lifetime: bool = False
    """Select on points a game over each player's whole life (a parent keeps its record from
    generation to generation), not on this generation's points alone: a survivor's fitness rests
    on more and more games, so a lucky offspring is found out when it plays again."""
    search_draws: bool = False
    """modern: the search scores a repetition or the 40-move rule as a draw, as the games do (their
    search was blind to both: a player a few pieces ahead shuffles into a repetition)."""

    def __post_init__(self) -> None:
        if self.preset not in PRESETS:
            raise OptionError(f"unknown evolution preset {self.preset!r}; choose from {', '.join(PRESETS)}")
        if self.scores not in SCORES:
            raise OptionError(f"unknown network scores {self.scores!r}; choose from {', '.join(SCORES)}")
        size(self.network)  # names the presets when it is unknown
        for name in ("parents", "games", "depth", "max_moves", "panel_pairs"):
            if getattr(self, name) < 1:
                raise OptionError(f"{name} must be at least 1, got {getattr(self, name)}")
        for name in ("adjudicate", "panel_every", "panel_gen0"):
            if getattr(self, name) < 0:
                raise OptionError(f"{name} must not be negative, got {getattr(self, name)}")
        if self.search_draws and self.preset != "modern":
            raise OptionError("search_draws needs the modern preset: the paper's games have no "
                              "repetition or 40-move draw for the search to see")

    @property
    def tau(self) -> float:
        """The paper prints 0.1095 for its 1,741 weights: 1/sqrt(2 sqrt(Nw)) (its formula's
        1/sqrt(2 Nw) would give 0.0169)."""
        return 1.0 / math.sqrt(2.0 * math.sqrt(size(self.network)))


@dataclass(frozen=True)
class GenerationLog:
    generation: int
    best: int
    mean: float
    sigma: float
    """Mean step size over the surviving parents' weights."""
    king: float
    """The best player's king value."""
    max_weight: float
    wins: int
    draws: int
    losses: int
    seconds: float


@dataclass(frozen=True)
class Pairing:
    """One game to play: two players (indices into the generation's pool, or hall-of-fame ids as
    negative numbers) and where it starts."""

    black: int
    white: int
    fen: str = START_FEN


def mutate(parent: Network, rng: np.random.Generator, tau: float) -> Network:
    """The paper's offspring: sigma' = sigma exp(tau N(0,1)), w' = w + sigma' N(0,1) (a fresh
    N(0,1) for every weight), K' = K exp(N(0,1)/sqrt 2) reset to [1, 3]."""
    assert parent.sigma is not None
    sigma = parent.sigma * np.exp(tau * rng.standard_normal(parent.sigma.size))
    weights = parent.weights + sigma * rng.standard_normal(parent.weights.size)
    king = float(np.clip(parent.king * math.exp(rng.standard_normal() / math.sqrt(2.0)), *K_RANGE))
    return Network(parent.preset, weights, king, sigma, parent.exact)


@dataclass
class Evolution:
    """A run: its settings, the current parents, the random state and the hall of fame."""

    config: EvolveConfig
    parents: list[Network]
    rng: np.random.Generator
    generation: int = 0
    hall: list[Network] = field(default_factory=list)
    log: list[GenerationLog] = field(default_factory=list)
    panel: Panel = field(default_factory=Panel)
    record: list[tuple[int, int]] = field(default_factory=list)
    """Each parent's (points, games) over its life so far (used with ``lifetime``)."""

    @classmethod
    def start(cls, config: EvolveConfig) -> Evolution:
        rng = np.random.default_rng(config.seed)
        exact = config.scores == "exact"
        parents = [Network.random(config.network, rng, exact=exact) for _ in range(config.parents)]
        return cls(config, parents, rng)

    # ---- one generation ----

    def pairings(self, pool: int, openings: Sequence[str]) -> list[Pairing]:
        """Who plays whom this generation, drawn from the run's random state."""
        c = self.config
        out: list[Pairing] = []
        for player in range(pool):
            for _ in range(c.games):
                others = pool - 1 + len(self.hall)
                pick = int(self.rng.integers(others))
                opponent = pick if pick < pool - 1 else -(pick - (pool - 1) + 1)  # hall entries: -1, -2, ...
                if opponent >= 0 and opponent >= player:
                    opponent += 1  # never itself
                if c.preset == "paper":
                    out.append(Pairing(player, opponent))
                else:
                    fen = openings[int(self.rng.integers(len(openings)))]
                    out += [Pairing(player, opponent, fen), Pairing(opponent, player, fen)]
        return out

    def step(self, openings: Sequence[str] = (START_FEN,), executor: Executor | None = None,
             on_game: Callable[[int, int], None] | None = None) -> GenerationLog:
        """Breed, play and select one generation; returns its log line."""
        started = time.perf_counter()
        c = self.config
        offspring = [mutate(p, self.rng, c.tau) for p in self.parents]
        pool = self.parents + offspring
        points, played, tally = self.play_pool(pool, openings, executor, on_game)
        fitness: np.ndarray = points.astype(np.float64)
        if c.lifetime:
            before = self.record + [(0, 0)] * (len(pool) - len(self.record))
            life_points = points + np.array([r[0] for r in before], dtype=np.int64)
            life_games = played + np.array([r[1] for r in before], dtype=np.int64)
            fitness = life_points / np.maximum(life_games, 1)
        # The best 15 survive; ties go to the earlier (a parent before its offspring).
        order = sorted(range(len(pool)), key=lambda i: (-fitness[i], i))
        self.parents = [pool[i] for i in order[: c.parents]]
        if c.lifetime:
            self.record = [(int(life_points[i]), int(life_games[i])) for i in order[: c.parents]]
        best = self.parents[0]
        if c.preset == "modern":
            self.hall = [Network(best.preset, best.weights.copy(), best.king, None, best.exact),
                         *self.hall][: c.hall_of_fame]
        self.generation += 1
        sigmas = np.concatenate([p.sigma for p in self.parents if p.sigma is not None])
        entry = GenerationLog(
            generation=self.generation, best=int(points[order[0]]),
            mean=float(points.mean()), sigma=float(sigmas.mean()), king=best.king,
            max_weight=float(max(np.abs(p.weights).max() for p in self.parents)),
            wins=tally["win"], draws=tally["draw"], losses=tally["loss"],
            seconds=time.perf_counter() - started,
        )
        self.log.append(entry)
        return entry

    def play_pool(self, pool: list[Network], openings: Sequence[str] = (START_FEN,),
                  executor: Executor | None = None, on_game: Callable[[int, int], None] | None = None,
                  ) -> tuple[np.ndarray, np.ndarray, dict[str, int]]:
        """One generation's games among ``pool`` (pairings drawn from the run's random state): each
        player's points and games, and the games' wins, draws and losses from Black's side."""
        c = self.config
        games = self.pairings(len(pool), openings)

        def net(i: int) -> Network:
            return pool[i] if i >= 0 else self.hall[-i - 1]

        draws = c.preset == "modern"
        jobs = [GameJob(net(g.black), net(g.white), g.fen, c.depth, c.max_moves, draws, c.adjudicate,
                        c.search_draws) for g in games]
        results = play_all(jobs, executor, on_game)
        points = np.zeros(len(pool), dtype=np.int64)
        played = np.zeros(len(pool), dtype=np.int64)
        tally = {"win": 0, "draw": 0, "loss": 0}
        for g, record in zip(games, results, strict=True):
            black_points, white_points = _points(record.result)
            for player, got in ((g.black, black_points), (g.white, white_points)):
                if player >= 0:
                    points[player] += got
                    played[player] += 1
            tally["win" if record.result == "1-0" else "loss" if record.result == "0-1" else "draw"] += 1
        return points, played, tally

    def champion(self) -> Network:
        """The first parent: the most points in the last generation."""
        return self.parents[0]

    def chosen(self) -> tuple[Network, str]:
        """The run's champion and how it was chosen: by the panel once it has measured one."""
        if self.panel.champion is not None:
            return self.panel.champion, f"panel (generation {self.panel.champion_generation})"
        return self.champion(), f"points (generation {self.generation})"

    # ---- saving and resuming ----

    def save(self, folder: Path) -> None:
        """Everything a killed run needs to go on exactly as it would have (written atomically)."""
        folder.mkdir(parents=True, exist_ok=True)
        arrays: dict[str, np.ndarray] = {}
        for i, p in enumerate(self.parents):
            arrays[f"w{i}"] = p.weights
            arrays[f"s{i}"] = p.sigma if p.sigma is not None else np.zeros(0)
        for i, h in enumerate(self.hall):
            arrays[f"h{i}"] = h.weights
        panel_arrays, panel_meta = self.panel.saved()
        arrays.update(panel_arrays)
        meta = {"config": asdict(self.config), "generation": self.generation,
                "kings": [p.king for p in self.parents], "hall_kings": [h.king for h in self.hall],
                "rng": self.rng.bit_generator.state, "log": [asdict(e) for e in self.log],
                "panel": panel_meta, "record": self.record}
        # The state first, then its meta: a failure in either leaves no temporary file.
        with replacing(folder / STATE_FILE, ".tmp.npz") as tmp:
            np.savez(tmp, **arrays)  # type: ignore[arg-type]  # numpy's stub lets **arrays meet allow_pickle
        with replacing(folder / META_FILE) as tmp_meta:
            tmp_meta.write_text(json.dumps(meta))

    @classmethod
    def load(cls, folder: Path) -> Evolution:
        """A saved run; OptionError naming the file when it is missing or corrupt."""
        meta_path, state_path = folder / META_FILE, folder / STATE_FILE
        try:
            meta = json.loads(meta_path.read_text())
            config = EvolveConfig(**meta["config"])
            exact = config.scores == "exact"
            with np.load(state_path) as arrays:
                parents = [Network(config.network, arrays[f"w{i}"].astype(np.float64), float(k),
                                   arrays[f"s{i}"].astype(np.float64), exact)
                           for i, k in enumerate(meta["kings"])]
                hall = [Network(config.network, arrays[f"h{i}"].astype(np.float64), float(k), None, exact)
                        for i, k in enumerate(meta["hall_kings"])]
                panel = Panel.restored(arrays, meta.get("panel"), config)
            rng = np.random.default_rng()
            rng.bit_generator.state = meta["rng"]
            log = [GenerationLog(**e) for e in meta["log"]]
        except FileNotFoundError as exc:
            raise OptionError(f"{folder}: no saved evolution ({exc.filename} is missing)") from None
        except (OSError, ValueError, KeyError, TypeError, json.JSONDecodeError) as exc:
            raise OptionError(f"{folder}: the saved evolution is corrupt ({exc})") from None
        if len(parents) != config.parents:
            raise OptionError(f"{folder}: the saved evolution is corrupt ({len(parents)} parents, "
                              f"{config.parents} expected)")
        record = [(int(p), int(g)) for p, g in meta.get("record", [])]
        return cls(config, parents, rng, int(meta["generation"]), hall, log, panel, record)


def _points(result: str) -> tuple[int, int]:
    if result == "1-0":
        return POINTS["win"], POINTS["loss"]
    if result == "0-1":
        return POINTS["loss"], POINTS["win"]
    return POINTS["draw"], POINTS["draw"]


def generations(evolution: Evolution, count: int, *, openings: Sequence[str] = (START_FEN,),
                panel_openings: Sequence[str] = (START_FEN,), executor: Executor | None = None,
                save_to: Path | None = None,
                on_game: Callable[[int, int], None] | None = None) -> Iterator[GenerationLog]:
    """Run ``count`` more generations, measuring the panel when it is due and saving after each (so
    a kill loses at most one generation and its panel point)."""
    for _ in range(count):
        entry = evolution.step(openings, executor, on_game)
        if evolution.panel.due(evolution.config, evolution.generation):
            evolution.panel.measure(evolution, panel_openings, executor)
        if save_to is not None:
            evolution.save(save_to)
        yield entry
