"""samuel learn evolve: Chellapilla and Fogel's evolved networks (1999), on this machine's cores.

    samuel learn evolve --generations 250 --preset paper --seed 1 --out out/evolve

Writes OUT/state.npz and OUT/state.json after every generation (run the same command again to go
on after a kill: the run continues exactly as it would have), OUT/generations.jsonl (best and mean
points, sigma, K, the largest weight, W/D/L, seconds), OUT/evolution.png (those curves),
OUT/panel.jsonl and OUT/panel.png (the learning curve: every --panel-every generations the best
against a fixed panel of `material`, generation 0's players and frozen earlier champions, over
ballot pairs at the evolution's depth) and OUT/champion.json, the best the panel chose (the last
generation's first parent before the first panel point): an evaluator usable everywhere
(``--eval OUT/champion.json``, the protocols' evaluator option,
``samuel match --engine eval=OUT/champion.json mode=fogel``).
"""

from __future__ import annotations

import argparse
import json
import os
from concurrent.futures import Executor
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from samuel.argtypes import nonnegative_int, positive_int
from samuel.outputs import check_output_dir, output_dir, replacing, save_figure

if TYPE_CHECKING:
    from engine.learners.evolve import Evolution, EvolveConfig, GenerationLog

DEFAULT_OUT = Path("out") / "evolve"


def register(learners: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = learners.add_parser("evolve", help="evolve Chellapilla and Fogel's networks (1999) by self-play",
                            description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--generations", type=positive_int, required=True, metavar="N",
                   help="generations to run now (added to a saved run's)")
    p.add_argument("--preset", choices=("paper", "modern"), default="paper",
                   help="paper: their games and scoring; modern: ballot pairs, repetition draws and a "
                        "hall of fame (default: %(default)s)")
    p.add_argument("--network", choices=("blondie", "spatial"), default="blondie",
                   help="blondie: their 1999 32-40-10-1 network; spatial: the 2001 91-sub-square one")
    p.add_argument("--seed", type=int, default=1, help="random seed (default: %(default)s)")
    p.add_argument("--depth", type=positive_int, default=4, help="search depth in games (default: 4)")
    p.add_argument("--parents", type=positive_int, default=15, help="parents a generation (default: 15)")
    p.add_argument("--games", type=positive_int, default=5,
                   help="games each player starts a generation (default: 5; modern: ballot pairs)")
    p.add_argument("--max-moves", type=positive_int, default=100,
                   help="a draw after this many moves each (default: 100)")
    p.add_argument("--scores", choices=("rounded", "exact"), default="rounded",
                   help="rounded: 1000 x the network's output as an integer (saturates from about five "
                        "men ahead); exact: the output node's sum, ordered as the float outputs "
                        "(default: %(default)s)")
    p.add_argument("--adjudicate", type=nonnegative_int, default=0, metavar="PIECES",
                   help="at the move cap a side this many pieces ahead wins (default: 0, the cap draws)")
    p.add_argument("--lifetime", action="store_true",
                   help="select on points a game over each player's whole life, not this generation's")
    p.add_argument("--search-draws", action="store_true",
                   help="modern: the search scores a repetition or the 40-move rule as a draw, as the "
                        "games do (their search was blind to both)")
    p.add_argument("--panel-every", type=nonnegative_int, default=10, metavar="N",
                   help="play the best against the panel every N generations (0: never; default: 10)")
    p.add_argument("--panel-pairs", type=positive_int, default=24, metavar="PAIRS",
                   help="ballot pairs against each panel opponent (default: 24)")
    p.add_argument("--panel-gen0", type=nonnegative_int, default=3, metavar="N",
                   help="generation 0's players on the panel (default: 3)")
    p.add_argument("--workers", type=positive_int, default=os.cpu_count() or 1,
                   help="games at once on this machine (default: the cores)")
    p.add_argument("--executor", choices=("local", "ray"), default="local",
                   help="play each generation's games here, or on a Ray cluster (pip install 'samuel[ray]')")
    p.add_argument("--ray-address", default=None, help="Ray cluster to join (default: start a local one)")
    p.add_argument("--out", type=output_dir, default=DEFAULT_OUT,
                   help=f"output folder (default {DEFAULT_OUT})")
    p.add_argument("--name", default="evolved", help="the champion evaluator's name (default: %(default)s)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from engine import evaluators
    from engine.fen import START_FEN
    from engine.learners.evolve import LOG_FILE, META_FILE, Evolution, EvolveConfig, generations
    from engine.learners.evolve_panel import PANEL_FILE
    from matches.openings import ballot_deck
    from matches.ratings.elo import elo_from_score
    from samuel.progress import progress

    config = EvolveConfig(preset=args.preset, network=args.network, seed=args.seed, depth=args.depth,
                          parents=args.parents, games=args.games, max_moves=args.max_moves,
                          scores=args.scores, adjudicate=args.adjudicate, panel_every=args.panel_every,
                          panel_pairs=args.panel_pairs, panel_gen0=args.panel_gen0, lifetime=args.lifetime,
                          search_draws=args.search_draws)
    check_output_dir(args.out, "--out")
    if (args.out / META_FILE).exists():
        evolution = Evolution.load(args.out)
        if evolution.config != config:
            print(f"samuel learn evolve: {args.out} holds a run with other settings "
                  f"({evolution.config}); choose another --out")
            return 2
        print(f"resuming {args.out} at generation {evolution.generation}")
    else:
        evolution = Evolution.start(config)
    ballots = [o.fen for o in ballot_deck("crossboard")]
    openings = ballots if config.preset == "modern" else [START_FEN]
    executor = _executor(args)
    target = evolution.generation + args.generations
    try:
        with progress(console=None) as bar:
            task = bar.add_task(f"evolving ({config.preset}, {config.network})", total=args.generations)
            for entry in generations(evolution, args.generations, openings=openings, panel_openings=ballots,
                                     executor=executor, save_to=args.out):
                with (args.out / LOG_FILE).open("a", encoding="utf-8") as log:
                    log.write(json.dumps(asdict(entry)) + "\n")
                bar.update(task, advance=1)
                bar.console.print(
                    f"generation {entry.generation}/{target}: best {entry.best:+d}, mean {entry.mean:+.2f}, "
                    f"sigma {entry.sigma:.4f}, K {entry.king:.3f}, max |w| {entry.max_weight:.3f}, "
                    f"+{entry.wins} ={entry.draws} -{entry.losses}, {entry.seconds:.1f} s", highlight=False)
                for r in evolution.panel.results:
                    if r.generation == entry.generation:
                        bar.console.print(f"  panel: {r.opponent}: +{r.wins} ={r.draws} -{r.losses} "
                                          f"({elo_from_score(r.score):+.0f} Elo)", highlight=False)
                if evolution.panel.due(config, entry.generation):
                    _write_panel(evolution, args.out / PANEL_FILE, args.out / "panel.png")
    finally:
        if executor is not None:
            executor.shutdown()
    best, chosen_by = evolution.chosen()
    meta = {"learner": "chellapilla-fogel-1999", "preset": config.preset, "network": config.network,
            "generation": evolution.generation, "seed": config.seed, "king": best.king,
            "scores": config.scores, "search draws": config.search_draws, "chosen by": chosen_by}
    champion = best.evaluator(args.name, meta)
    evaluators.save(champion, args.out / "champion.json")
    plot(evolution.log, args.out / "evolution.png", config)
    _write_panel(evolution, args.out / PANEL_FILE, args.out / "panel.png")
    print(f"champion     {args.out / 'champion.json'} (chosen by {chosen_by}, K {best.king:.3f})")
    print(f"log          {args.out / LOG_FILE}")
    print(f"plot         {args.out / 'evolution.png'}")
    if evolution.panel.results:
        print(f"panel        {args.out / PANEL_FILE}, {args.out / 'panel.png'}")
    return 0


def _write_panel(evolution: Evolution, log_path: Path, png: Path) -> None:
    """The panel's results (rewritten whole from the saved state, so a kill leaves no gap) and its
    curve."""
    results = evolution.panel.results
    if not results:
        return
    from matches.ratings.elo import elo_from_score

    lines = [{**asdict(r), "score": round(r.score, 4), "elo": round(elo_from_score(r.score), 1)}
             for r in results]
    with replacing(log_path) as tmp:
        tmp.write_text("".join(json.dumps(line) + "\n" for line in lines))
    plot_panel(evolution, png)


def _executor(args: argparse.Namespace) -> Executor | None:
    if args.executor == "ray":
        from matches.ray_pool import RayPool

        return RayPool(args.ray_address, args.workers)
    if args.workers <= 1:
        return None
    from concurrent.futures import ThreadPoolExecutor

    return ThreadPoolExecutor(args.workers, thread_name_prefix="samuel-evolve")


def plot(log: list[GenerationLog], path: Path, config: EvolveConfig) -> None:
    """Best and mean points, sigma, K and the largest weight against generations."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    gens = [e.generation for e in log]
    fig, axes = plt.subplots(2, 2, figsize=(11, 7), sharex=True)
    axes[0][0].plot(gens, [e.best for e in log], label="best")
    axes[0][0].plot(gens, [e.mean for e in log], label="mean")
    axes[0][0].set_ylabel("points (+1 / 0 / -2)")
    axes[0][0].legend()
    axes[0][1].plot(gens, [e.sigma for e in log], color="tab:green")
    axes[0][1].set_ylabel("mean sigma of the parents")
    axes[1][0].plot(gens, [e.king for e in log], color="tab:purple")
    axes[1][0].set_ylabel("K of the best")
    axes[1][0].set_ylim(0.9, 3.1)
    axes[1][1].plot(gens, [e.max_weight for e in log], color="tab:red")
    axes[1][1].set_ylabel("largest |weight|")
    for ax in axes[1]:
        ax.set_xlabel("generation")
    c = config
    title = f"{c.preset} preset, {c.network} network, depth {c.depth}, seed {c.seed}"
    fig.suptitle(f"Evolving checkers networks (Chellapilla & Fogel 1999): {title}", fontsize=10)
    fig.tight_layout()
    save_figure(fig, path)


def plot_panel(evolution: Evolution, path: Path) -> None:
    """The learning curve: the best's Elo against material, generation 0 (pooled) and each frozen
    champion, against generations; the panel's champion marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from engine.learners.evolve_panel import MATERIAL
    from matches.ratings.elo import elo_from_score

    results = evolution.panel.results
    fig, ax = plt.subplots(figsize=(10, 5.5))
    by: dict[str, list[tuple[int, float]]] = {}
    pooled: dict[int, tuple[float, int]] = {}  # generation -> (points, games) against generation 0
    for r in results:
        if r.opponent.startswith("generation 0"):
            points, games = pooled.get(r.generation, (0.0, 0))
            pooled[r.generation] = (points + r.wins + 0.5 * r.draws, games + r.games)
        else:
            by.setdefault(r.opponent, []).append((r.generation, elo_from_score(r.score)))
    for name, line in by.items():
        if name == MATERIAL:
            ax.plot(*zip(*line, strict=True), marker="o", ms=3, lw=2.2, color="black", label=f"vs {name}")
        else:
            ax.plot(*zip(*line, strict=True), marker="o", ms=3, lw=1.0, alpha=0.8, label=f"vs {name}")
    if pooled:
        gens = sorted(pooled)
        ax.plot(gens, [elo_from_score(pooled[g][0] / pooled[g][1]) for g in gens], marker="s", ms=3, lw=1.6,
                color="tab:red", label="vs generation 0 (pooled)")
    if evolution.panel.champion is not None:
        ax.axvline(evolution.panel.champion_generation, color="tab:green", ls="--", lw=1,
                   label=f"champion (generation {evolution.panel.champion_generation})")
    ax.axhline(0, color="grey", lw=0.6)
    ax.set_xlabel("generation")
    ax.set_ylabel("Elo of the best (from its score on the panel)")
    c = evolution.config
    ax.set_title(f"Learning curve against a fixed panel: {c.preset} preset, {c.network}, scores {c.scores}, "
                 f"adjudicate {c.adjudicate}, depth {c.depth}, seed {c.seed}"
                 f"{', search sees draws' if c.search_draws else ''}; {2 * c.panel_pairs} games each",
                 fontsize=9)
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    save_figure(fig, path)
