"""The evolution's learning curve, measured outside its own games.

A generation's points only say who beat whom inside the population, so a population that drifts
as a whole looks the same from one generation to the next.  Every ``panel_every`` generations the
current best (the first parent) plays a fixed panel over the same ballot pairs at the evolution's
depth, under the rules of a real game (repetition and the 40-move rule draw, the move cap draws):

* ``material``, the piece-count player on the same search;
* the first few players of generation 0 (made again from the seed, so they never change);
* a few frozen earlier champions (the best at every fifth panel point; the last three are kept).

The champion of the run is the best that scored most against the fixed part of the panel
(``material`` and generation 0), not the last generation's first parent.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from engine.learners.evolve_games import GameJob, Player, outcome, play_all
from engine.learners.network import Network

if TYPE_CHECKING:
    from engine.learners.evolve import Evolution, EvolveConfig

PANEL_FILE = "panel.jsonl"
MATERIAL = "material"
FREEZE_EVERY = 5
"""Panel points between frozen champions."""
FROZEN_KEPT = 3


@dataclass(frozen=True)
class PanelResult:
    """The best of one generation against one panel opponent, from the best's side."""

    generation: int
    opponent: str
    wins: int
    draws: int
    losses: int
    fixed: bool
    """Whether the opponent is in the fixed part of the panel (``material``, generation 0)."""

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.5



def generation_zero(config: EvolveConfig) -> list[Network]:
    """Generation 0's parents, drawn again exactly as ``Evolution.start`` drew them."""
    rng = np.random.default_rng(config.seed)
    exact = config.scores == "exact"
    return [Network.random(config.network, rng, exact=exact) for _ in range(config.parents)]


def panel_openings(openings: Sequence[str], pairs: int) -> list[str]:
    """``pairs`` openings spread evenly over the deck (the same ones at every panel point)."""
    n = len(openings)
    return [openings[i * n // pairs] for i in range(min(pairs, n))]


def frozen_copy(net: Network) -> Network:
    return Network(net.preset, net.weights.copy(), net.king, None, net.exact)


@dataclass
class Panel:
    """The frozen champions, every panel result so far, and the champion the panel chose."""

    frozen: list[tuple[int, Network]] = field(default_factory=list)
    results: list[PanelResult] = field(default_factory=list)
    champion: Network | None = None
    champion_generation: int = 0
    champion_score: float = -1.0

    def opponents(self, config: EvolveConfig) -> list[tuple[str, Player, bool]]:
        """(name, player, fixed) for everyone the best plays now."""
        fixed: list[tuple[str, Player, bool]] = [(MATERIAL, MATERIAL, True)]
        fixed += [(f"generation 0 #{i + 1}", net, True)
                  for i, net in enumerate(generation_zero(config)[: config.panel_gen0])]
        return fixed + [(f"champion of generation {g}", net, False) for g, net in self.frozen]

    def due(self, config: EvolveConfig, generation: int) -> bool:
        return config.panel_every > 0 and generation % config.panel_every == 0

    def measure(self, evolution: Evolution, openings: Sequence[str],
                executor: Executor | None = None) -> list[PanelResult]:
        """Play the current best against the panel, keep the results, choose and freeze."""
        c, best = evolution.config, evolution.champion()
        fens = panel_openings(openings, c.panel_pairs)
        opponents = self.opponents(c)
        jobs: list[GameJob] = []
        for _name, opponent, _fixed in opponents:
            for fen in fens:
                jobs.append(GameJob(best, opponent, fen, c.depth, c.max_moves, draws=True,
                                    search_draws=c.search_draws))
                jobs.append(GameJob(opponent, best, fen, c.depth, c.max_moves, draws=True,
                                    search_draws=c.search_draws))
        records = play_all(jobs, executor)
        per = 2 * len(fens)
        found: list[PanelResult] = []
        for k, (name, _opponent, fixed) in enumerate(opponents):
            tally = {"win": 0, "draw": 0, "loss": 0}
            for j, record in enumerate(records[k * per:(k + 1) * per]):
                tally[outcome(record.result, black=j % 2 == 0)] += 1  # the best is Black first
            found.append(PanelResult(evolution.generation, name, tally["win"], tally["draw"], tally["loss"],
                                     fixed))
        self.results += found
        score = fixed_score(found)
        if score > self.champion_score:
            self.champion, self.champion_generation, self.champion_score = \
                frozen_copy(best), evolution.generation, score
        points = sum(1 for r in self.results if r.opponent == MATERIAL)
        if points % FREEZE_EVERY == 0:
            self.frozen = [*self.frozen, (evolution.generation, frozen_copy(best))][-FROZEN_KEPT:]
        return found

    # ---- saving ----

    def saved(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """The arrays and the JSON part that ``restored`` reads back."""
        arrays = {f"pf{i}": net.weights for i, (_g, net) in enumerate(self.frozen)}
        if self.champion is not None:
            arrays["pc"] = self.champion.weights
        meta = {"frozen": [[g, net.king] for g, net in self.frozen],
                "champion": None if self.champion is None else
                [self.champion_generation, self.champion_score, self.champion.king],
                "results": [asdict(r) for r in self.results]}
        return arrays, meta

    @classmethod
    def restored(cls, arrays: Any, meta: dict[str, Any] | None, config: EvolveConfig) -> Panel:
        if not meta:
            return cls()
        exact = config.scores == "exact"

        def net(key: str, king: float) -> Network:
            return Network(config.network, arrays[key].astype(np.float64), float(king), None, exact)

        frozen = [(int(g), net(f"pf{i}", k)) for i, (g, k) in enumerate(meta["frozen"])]
        panel = cls(frozen, [PanelResult(**r) for r in meta["results"]])
        if meta["champion"] is not None:
            generation, score, king = meta["champion"]
            panel.champion, panel.champion_generation, panel.champion_score = \
                net("pc", king), int(generation), float(score)
        return panel


def fixed_score(results: Sequence[PanelResult]) -> float:
    """The score fraction over the fixed part of the panel."""
    fixed = [r for r in results if r.fixed]
    games = sum(r.games for r in fixed)
    return sum(r.wins + 0.5 * r.draws for r in fixed) / games if games else 0.5
