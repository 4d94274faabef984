"""Can the evolution's selection see strength?  Its points against each player's real strength.

    .venv/bin/python scripts/evolve_sight.py [--seed 1] [--pairs 24] [--repeats 4]

The pool is a first generation's: generation 0's 15 parents of ``--seed`` and one offspring each.
A player's strength is its score against ``material`` over ``--pairs`` ballot pairs at depth 4,
under the rules of a real game (the panel's games: repetition and the 40-move rule draw, the cap
draws).  Then, for each reading of the evolution, ``--repeats`` generations' worth of games among
the same 30 (fresh pairings each time), and the Spearman rank correlation between the points each
player earned and its strength: the mean over single generations, and the correlation of the
points summed over all repeats (what ``--repeats`` times as many games a generation would see).
Also the share of the generation's games that were decided.  A correlation near 0 is a blind
selection: the survivors are chosen by luck.  First, with ``--caps N``, N games among the pool under
the paper's rules, and how many reached the 100-move cap with one side ahead.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from engine.board import Board
from engine.learners.evolve import Evolution, EvolveConfig, mutate
from engine.learners.evolve_games import GameJob, outcome, pieces_ahead, play_all
from engine.learners.evolve_panel import MATERIAL, generation_zero, panel_openings
from engine.learners.network import Network
from matches.openings import ballot_deck

SETTINGS: dict[str, dict[str, object]] = {
    "paper: rounded scores, the cap draws": {},
    "rounded scores, adjudicate 2": {"adjudicate": 2},
    "exact scores, the cap draws": {"scores": "exact"},
    "exact scores, adjudicate 2": {"scores": "exact", "adjudicate": 2},
    "exact scores, adjudicate 1": {"scores": "exact", "adjudicate": 1},
    "exact, adjudicate 2, 10 games": {"scores": "exact", "adjudicate": 2, "games": 10},
    "modern: exact, adjudicate 2 (ballot pairs)": {"preset": "modern", "scores": "exact", "adjudicate": 2},
}


def ranks(values: np.ndarray) -> np.ndarray:
    """Ranks from 1, ties given their mean rank."""
    order = np.argsort(values, kind="stable")
    r = np.empty(len(values))
    r[order] = np.arange(1, len(values) + 1)
    for v in np.unique(values):
        tied = values == v
        r[tied] = r[tied].mean()
    return r


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    ra, rb = ranks(a), ranks(b)
    if ra.std() == 0 or rb.std() == 0:
        return 0.0
    return float(np.corrcoef(ra, rb)[0, 1])


def strength(pool: list[Network], fens: list[str], pool_exec: ThreadPoolExecutor) -> np.ndarray:
    jobs = []
    for net in pool:
        for fen in fens:
            jobs += [GameJob(net, MATERIAL, fen, draws=True), GameJob(MATERIAL, net, fen, draws=True)]
    records = play_all(jobs, pool_exec)
    per = 2 * len(fens)
    out = np.zeros(len(pool))
    for i in range(len(pool)):
        score = 0.0
        for j, rec in enumerate(records[i * per:(i + 1) * per]):
            score += {"win": 1.0, "draw": 0.5, "loss": 0.0}[outcome(rec.result, black=j % 2 == 0)]
        out[i] = score / per
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--pairs", type=int, default=24)
    p.add_argument("--repeats", type=int, default=4, help="0: only the --caps count")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--caps", type=int, default=0, metavar="N", help="games to count cap endings in")
    args = p.parse_args()
    ballots = [o.fen for o in ballot_deck("crossboard")]
    fens = panel_openings(ballots, args.pairs)
    executor = ThreadPoolExecutor(args.workers)
    base = EvolveConfig(seed=args.seed, panel_every=0)
    parents = generation_zero(base)
    rng = np.random.default_rng(args.seed + 1000)
    pool = parents + [mutate(parent, rng, base.tau) for parent in parents]
    started = time.perf_counter()
    if args.caps:
        jobs = [GameJob(pool[i % len(pool)], pool[(7 * i + 3) % len(pool)]) for i in range(args.caps)]
        leads: dict[int, int] = {}
        for rec in play_all(jobs, executor):
            if rec.termination.value == "move-cap":
                board = Board(rec.start_fen)
                for move in rec.moves:
                    board.push(move)
                lead = abs(pieces_ahead(board))
                leads[lead] = leads.get(lead, 0) + 1
        print(f"{args.caps} games under the paper's rules: {sum(leads.values())} reached the cap; "
              f"pieces ahead there: {dict(sorted(leads.items()))}", flush=True)
    if args.repeats == 0:
        executor.shutdown()
        return 0
    strengths = {}
    for scores in ("rounded", "exact"):
        players = [replace(net, exact=scores == "exact") for net in pool]
        strengths[scores] = strength(players, fens, executor)
        s = strengths[scores]
        print(f"strength against material ({scores} scores, {2 * len(fens)} games each): "
              f"mean {s.mean():.3f}, from {s.min():.3f} to {s.max():.3f}, sd {s.std():.3f}   "
              f"[{time.perf_counter() - started:.0f} s]", flush=True)
    print(f"{'setting':44s} {'decided':>8s} {'rho/gen':>8s} {'sd':>6s} {'rho(sum)':>9s}")
    for label, changes in SETTINGS.items():
        config = replace(base, **changes)  # type: ignore[arg-type]
        players = [replace(net, exact=config.scores == "exact") for net in pool]
        target = strengths[config.scores]
        run = Evolution(config, parents, np.random.default_rng(args.seed))
        rhos, total, decided, games = [], np.zeros(len(pool)), 0, 0
        for _ in range(args.repeats):
            points, _played, tally = run.play_pool(players, ballots, executor)
            rhos.append(spearman(points.astype(float), target))
            total += points
            decided += tally["win"] + tally["loss"]
            games += sum(tally.values())
        print(f"{label:44s} {decided / games:8.1%} {np.mean(rhos):+8.3f} {np.std(rhos):6.3f} "
              f"{spearman(total, target):+9.3f}   [{time.perf_counter() - started:.0f} s]", flush=True)
    executor.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
