#!/usr/bin/env python3
"""Rote learning's learning curve: how much a growing memory adds to Samuel's fixed polynomial.

    scripts/rote-curve [--quick] [--pdn ../shared/data/OCA_2.0.pdn] [--stages 0,100,300,...]
                       [--depth 3] [--eval samuel-rote] [--out out/rote-curve]
                       [--png docs/learners/rote-curve.png]
    scripts/rote-curve --versus material,samuel-1959      # the polynomial itself, no memory

A rote memory is grown in stages by following book games (``engine.learners.rote_book``: at every
position of a game the program searches with the memory at its leaves, saves the position with its
backed-up score and ply, and plays the book move), drawn at random (seeded) from the PDN's training
games (number % 10 != 0).  After each stage the memory, frozen, is given to one player, and a match
is played: the polynomial with the memory against the same polynomial without it, both at Samuel's
ply rules (``Mode.SAMUEL``) with the same minimum ply, over the 144 crossboard ACF 3-move ballots with
colours reversed (288 games; a game is drawn by the rules or after ``--max-plies`` plies from the
ballot).  Both players are deterministic, so with an empty memory every pair is an even split.

Prints one table row per stage (games followed, positions in the memory, W/D/L of the rote player,
its score, Elo with a 95% interval from the pentanomial pair counts, memory hits per game) and
plots score against memory size as a PNG.  ``--quick`` is a small version for a look (about a
minute).  The memory never forgets here (no ageing limit, no cull): the curve is about its size.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from engine.board import Board  # noqa: E402
from engine.evaluators import by_name  # noqa: E402
from engine.game import play_game  # noqa: E402
from engine.learners import book_data  # noqa: E402
from engine.learners.rote import AgePolicy, RoteMemory, self_play  # noqa: E402
from engine.learners.rote_book import BookRun, follow_book  # noqa: E402
from engine.limits import Limit  # noqa: E402
from engine.move import Move  # noqa: E402
from engine.named_evaluator import Evaluator  # noqa: E402
from engine.runner import move_to_play  # noqa: E402
from engine.search import Mode, Searcher  # noqa: E402
from engine.types import BLACK, WHITE  # noqa: E402
from matches.openings import Opening, ballot_deck  # noqa: E402
from matches.ratings import elo  # noqa: E402

DEFAULT_PDN = REPO_ROOT.parent / "shared" / "data" / "OCA_2.0.pdn"
DEFAULT_OUT = REPO_ROOT / "out" / "rote-curve"
DEFAULT_PNG = REPO_ROOT / "docs" / "learners" / "rote-curve.png"
SOURCES = ("book", "self")
FULL_STAGES = {"book": (0, 100, 300, 1000, 3000, 10000, 20000), "self": (0, 144, 432, 1008, 2016)}
QUICK_STAGES = {"book": (0, 30, 300), "self": (0, 24, 96)}
LABELS = {"book": "memory from OCA book games (training split)",
          "self": "memory from self-play from the same ballots"}
QUICK_BALLOTS = 24


def TRAINING(n: int) -> bool:
    """The games the memory may follow: the training split (number % 10 != 0)."""
    return not book_data.is_held_out(n)


NEVER_FORGET = AgePolicy(max_age=1 << 30, max_positions=1 << 40)
"""The curve's memory keeps everything: it measures size, not Samuel's forgetting."""


@dataclass(frozen=True)
class Stage:
    """One point of the curve."""

    games: int
    """Games that went into the memory so far (book games followed, or self-play games)."""
    positions: int
    """Positions in the memory."""
    wins: int
    draws: int
    losses: int
    pairs: tuple[int, int, int, int, int]
    """Pentanomial counts of the rote player over colour-reversed pairs: LL, LD, WL+DD, WD, WW."""
    score: float
    elo: float
    elo_low: float
    elo_high: float
    hits_per_game: float
    """Leaves scored from the memory per game, in the rote player's searches."""
    differ: float
    """Share of the rote player's moves the player without memory would not have chosen."""
    follow_seconds: float
    match_seconds: float


def _pair_index(a: float, b: float) -> int:
    return round(2 * (a + b))  # 0, ½, 1, 1½, 2 -> 0..4


def play_match(
    memory: RoteMemory | None,
    evaluator: Evaluator,
    openings: Sequence[Opening],
    *,
    depth: int = 3,
    max_plies: int = 200,
    hash_mb: int = 8,
    opponent: Evaluator | None = None,
    on_game: Callable[[int], None] | None = None,
) -> tuple[list[float], int, int, int]:
    """The rote player (``evaluator`` + ``memory``) against ``evaluator`` alone (or ``opponent``),
    each opening played twice with colours reversed.  Returns the rote player's per-game scores
    (pair by pair), its memory hits, its moves, and the moves where it would have moved differently
    without the memory."""
    limit = Limit(depth=depth)
    rote = Searcher(evaluator, mode=Mode.SAMUEL, hash_mb=hash_mb, rote=memory)
    plain = Searcher(opponent or evaluator, mode=Mode.SAMUEL, hash_mb=hash_mb)
    # A third searcher, also without memory, says what the rote player would have played without it
    # (its own table, so the opponent's search is never disturbed).
    shadow = Searcher(evaluator, mode=Mode.SAMUEL, hash_mb=hash_mb) if memory is not None else None
    scores: list[float] = []
    hits = moves = differ = 0
    games = 0
    try:
        for opening in openings:
            for rote_colour in (BLACK, WHITE):
                for s in (rote, plain, shadow):
                    if s is not None:
                        s.new_game()

                def rote_move(board: Board) -> Move:
                    nonlocal hits, moves, differ
                    result = rote.search(board, limit)
                    hits += result.info.rote_hits
                    moves += 1
                    chosen = move_to_play(board, result)
                    if shadow is not None and move_to_play(board, shadow.search(board, limit)) != chosen:
                        differ += 1
                    return chosen

                def plain_move(board: Board) -> Move:
                    return move_to_play(board, plain.search(board, limit))

                choose = {rote_colour: rote_move, (WHITE if rote_colour == BLACK else BLACK): plain_move}
                game = play_game(Board(opening.fen), choose, max_plies=max_plies)
                score = game.score_for(rote_colour)
                scores.append(0.5 if score is None else score)
                games += 1
                if on_game is not None:
                    on_game(games)
    finally:
        for s in (rote, plain, shadow):
            if s is not None:
                s.close()
    return scores, hits, moves, differ


def stage_result(games: int, positions: int, scores: Sequence[float], hits: int, moves: int,
                 differ: int, follow_seconds: float, match_seconds: float) -> Stage:
    pairs = [0, 0, 0, 0, 0]
    for i in range(0, len(scores) - 1, 2):
        pairs[_pair_index(scores[i], scores[i + 1])] += 1
    est = elo.pentanomial(pairs)
    wins = sum(1 for s in scores if s == 1.0)
    losses = sum(1 for s in scores if s == 0.0)
    return Stage(
        games=games, positions=positions, wins=wins, draws=len(scores) - wins - losses,
        losses=losses, pairs=(pairs[0], pairs[1], pairs[2], pairs[3], pairs[4]),
        score=sum(scores) / len(scores) if scores else 0.5, elo=est.elo, elo_low=est.low,
        elo_high=est.high, hits_per_game=hits / max(len(scores), 1), differ=differ / max(moves, 1),
        follow_seconds=follow_seconds, match_seconds=match_seconds)


def grow(
    memory: RoteMemory,
    source: str,
    pdn: Path,
    target: int,
    *,
    evaluator: Evaluator,
    openings: Sequence[Opening],
    depth: int,
    max_plies: int,
    seed: int,
    random_plies: int,
    on_progress: Callable[[str, int, int], None] | None = None,
) -> int:
    """Add games to ``memory`` until ``target`` games have gone into it; returns the games it holds.

    ``book``: book games of ``pdn``'s training split, drawn at random (the store notes which);
    ``self``: self-play games from the ballots of ``openings`` (drawn at random), the first
    ``random_plies`` plies after the ballot at random, counted in the store's meta table."""
    if source == "book":
        have = len(memory.store.book_games(_source(pdn)))
        run = BookRun()
        for _ in follow_book(memory, pdn, evaluator, games=max(0, target - have), depth=depth,
                             seed=seed + target, run=run, only=TRAINING):
            if on_progress is not None:
                on_progress("follow", run.followed + run.skipped, run.selected)
        return len(memory.store.book_games(_source(pdn)))
    have = memory.store.merges  # one merge per self-play game
    want = max(0, target - have)
    for g in self_play(memory, want, depth=depth, mode=Mode.SAMUEL, evaluator=evaluator,
                       opening_plies=random_plies, max_plies=max_plies, seed=seed + target,
                       starts=[o.fen for o in openings], hash_mb=8):
        if on_progress is not None:
            on_progress("self-play", g.number, want)
    return memory.store.merges


def run_curve(
    pdn: Path,
    stages: Sequence[int],
    db: Path,
    *,
    evaluator: Evaluator,
    openings: Sequence[Opening],
    source: str = "book",
    depth: int = 3,
    max_plies: int = 200,
    seed: int = 1,
    random_plies: int = 0,
    on_stage: Callable[[Stage], None] | None = None,
    on_progress: Callable[[str, int, int], None] | None = None,
) -> list[Stage]:
    """Grow the memory at ``db`` to each number of games in ``stages`` (ascending; book games
    followed or self-play games, per ``source``) and play the match at each.  A memory left by
    an earlier run is reused.  A stage the source cannot reach is played with what it has and
    ends the curve (or is left out when nothing was added)."""
    if source not in SOURCES:
        raise ValueError(f"source must be one of {SOURCES}, not {source!r}")
    out: list[Stage] = []
    with RoteMemory(db, NEVER_FORGET) as memory:
        for target in stages:
            t0 = time.perf_counter()
            games = grow(memory, source, pdn, target, evaluator=evaluator, openings=openings, depth=depth,
                         max_plies=max_plies, seed=seed, random_plies=random_plies, on_progress=on_progress)
            t1 = time.perf_counter()
            if games < target and out and games == out[-1].games:
                break  # the source has no more games: this stage would repeat the last

            def game_done(n: int) -> None:
                if on_progress is not None:
                    on_progress("match", n, 2 * len(openings))

            scores, hits, moves, differ = play_match(memory if len(memory) else None, evaluator, openings,
                                                     depth=depth, max_plies=max_plies, on_game=game_done)
            stage = stage_result(games, len(memory), scores, hits, moves, differ, t1 - t0,
                                 time.perf_counter() - t1)
            out.append(stage)
            if on_stage is not None:
                on_stage(stage)
            if games < target:
                break  # the source has no more games
    return out


_SOURCES: dict[Path, str] = {}


def _source(pdn: Path) -> str:
    from engine.learners.rote_book import book_source

    if pdn not in _SOURCES:
        _SOURCES[pdn] = book_source(pdn)
    return _SOURCES[pdn]


HEADER = (f"{'games':>10} {'positions':>9} {'W-D-L':>11} {'score':>6} {'Elo [95%]':>22} "
          f"{'hits/game':>9} {'differ':>6} {'follow s':>8} {'match s':>7}")


def row(s: Stage) -> str:
    wdl = f"{s.wins}-{s.draws}-{s.losses}"
    e = f"{s.elo:+6.1f} [{s.elo_low:+6.1f}, {s.elo_high:+6.1f}]"
    return (f"{s.games:>10} {s.positions:>9} {wdl:>11} {100 * s.score:5.1f}% {e:>22} "
            f"{s.hits_per_game:9.1f} {100 * s.differ:5.1f}% {s.follow_seconds:8.1f} {s.match_seconds:7.1f}")


def plot(series: Mapping[str, Sequence[Stage]], png: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 4.5), dpi=120)
    ax.axhline(0, color="0.6", lw=0.8)
    for i, (source, stages) in enumerate(series.items()):
        x = [s.positions for s in stages]
        y = [s.elo for s in stages]
        err = [[s.elo - s.elo_low for s in stages], [s.elo_high - s.elo for s in stages]]
        ax.errorbar(x, y, yerr=err, fmt="o-", capsize=4, color=f"C{i}", label=LABELS.get(source, source))
        for j, st in enumerate(stages):
            ax.annotate(f"{100 * st.score:.1f}%", (st.positions, st.elo), textcoords="offset points",
                        xytext=(5, 5 if j % 2 else -11), fontsize=7, color=f"C{i}")
    ax.set_xscale("symlog", linthresh=1000)
    ax.set_xticks([0, 10**3, 10**4, 10**5, 10**6], ["0", "1k", "10k", "100k", "1M"])
    ax.set_xlabel("positions in the rote memory (symlog scale; 0 = empty)")
    ax.set_ylabel("Elo of rote + polynomial vs polynomial (95%)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8, loc="upper left")
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    png.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(png)
    plt.close(fig)


def load_series(out: Path, quick: bool) -> dict[str, list[Stage]]:
    """Every source's curve saved under ``out`` (for the figure)."""
    series: dict[str, list[Stage]] = {}
    for source in SOURCES:
        f = out / f"curve-{source}{'-quick' if quick else ''}.json"
        if f.is_file():
            d = json.loads(f.read_text())
            series[source] = [Stage(**{**st, "pairs": tuple(st["pairs"])}) for st in d["stages"]]
    return series


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--quick", action="store_true",
                   help=f"few stages and the first {QUICK_BALLOTS} ballots (about a minute)")
    p.add_argument("--source", choices=SOURCES, default="book",
                   help="what fills the memory: book games followed, or self-play from the ballots")
    p.add_argument("--pdn", type=Path, default=DEFAULT_PDN, help="book games (default: OCA 2.0)")
    p.add_argument("--stages", default=None, help="games gone into the memory at each stage, ascending "
                   f"(default book {','.join(map(str, FULL_STAGES['book']))}; "
                   f"self {','.join(map(str, FULL_STAGES['self']))})")
    p.add_argument("--depth", type=int, default=3, help="minimum ply of Samuel's rules (default 3)")
    p.add_argument("--eval", default="samuel-rote", help="the polynomial of both players")
    p.add_argument("--ballots", type=int, default=None, help="play only the first N crossboard ballots")
    p.add_argument("--max-plies", type=int, default=200, help="a game is a draw after this many plies")
    p.add_argument("--random-plies", type=int, default=0,
                   help="self-play: random plies after the ballot (default 0)")
    p.add_argument("--seed", type=int, default=1, help="seed of the games drawn")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help="the memories and the tables (JSON)")
    p.add_argument("--png", type=Path, default=None,
                   help=f"the figure (default: {DEFAULT_PNG.relative_to(REPO_ROOT)}; "
                        "--quick: OUT/rote-curve.png)")
    p.add_argument("--fresh", action="store_true", help="start from an empty memory (else reuse OUT's)")
    p.add_argument("--plot-only", action="store_true", help="redraw the figure from the saved tables")
    p.add_argument("--versus", default=None, metavar="E1,E2",
                   help="no memory: play --eval against each of these evaluators over the same ballots "
                        "(how strong the polynomial itself is), then stop")
    args = p.parse_args(argv)

    quick = "-quick" if args.quick else ""
    png = args.png or (args.out / "rote-curve.png" if args.quick else DEFAULT_PNG)
    ballots = args.ballots if args.ballots is not None else (QUICK_BALLOTS if args.quick else None)
    openings = ballot_deck("crossboard")[:ballots]
    title = (f"Rote learning: {args.eval} + memory against {args.eval} alone\n"
             f"Samuel's ply rules, minimum ply {args.depth}; {2 * len(openings)} games a point "
             f"(crossboard ACF ballots, both colours)")
    if args.versus:
        evaluator = by_name(args.eval)
        print(f"{evaluator.name} against each, no memory; {len(openings)} ballots x 2 colours, Samuel's ply "
              f"rules, minimum ply {args.depth}; a draw after {args.max_plies} plies")
        for name in args.versus.split(","):
            t = time.perf_counter()
            scores, *_ = play_match(None, evaluator, openings, depth=args.depth, max_plies=args.max_plies,
                                    opponent=by_name(name))
            st = stage_result(0, 0, scores, 0, 0, 0, 0.0, time.perf_counter() - t)
            print(f"  vs {name:<14} {st.wins}-{st.draws}-{st.losses}  {100 * st.score:5.1f}%  "
                  f"Elo {st.elo:+6.1f} [{st.elo_low:+6.1f}, {st.elo_high:+6.1f}]  {st.match_seconds:.0f} s")
        return 0
    if args.plot_only:
        plot(load_series(args.out, args.quick), png, title)
        print(f"figure {png}")
        return 0
    stages = [int(x) for x in args.stages.split(",")] if args.stages else \
        list((QUICK_STAGES if args.quick else FULL_STAGES)[args.source])
    if stages != sorted(stages) or any(s < 0 for s in stages):
        p.error("--stages must be ascending non-negative numbers")
    if args.source == "book" and not args.pdn.is_file():
        print(f"rote-curve: error: no PDN file {args.pdn}", file=sys.stderr)
        return 2
    evaluator = by_name(args.eval)
    args.out.mkdir(parents=True, exist_ok=True)
    db = args.out / f"rote-{args.source}{quick}.db"
    if args.fresh:
        for f in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
            f.unlink(missing_ok=True)
    what = (f"book games drawn from the training split of {args.pdn}" if args.source == "book" else
            f"self-play games from the ballots, {args.random_plies} random plies after the ballot")
    print(f"memory {db}: {what}; match {len(openings)} ballots x 2 colours; {evaluator.name}, Samuel's "
          f"ply rules, minimum ply {args.depth}; a draw after {args.max_plies} plies", flush=True)
    print(HEADER, flush=True)
    last = [0.0]

    def progress(phase: str, done: int, total: int) -> None:
        now = time.monotonic()
        if now - last[0] > 30:
            last[0] = now
            print(f"  ... {phase} {done}/{total}", file=sys.stderr, flush=True)

    t = time.perf_counter()
    result = run_curve(args.pdn, stages, db, evaluator=evaluator, openings=openings, source=args.source,
                       depth=args.depth, max_plies=args.max_plies, seed=args.seed,
                       random_plies=args.random_plies, on_stage=lambda s: print(row(s), flush=True),
                       on_progress=progress)
    elapsed = time.perf_counter() - t
    table = args.out / f"curve-{args.source}{quick}.json"
    table.write_text(json.dumps({
        "source": args.source, "pdn": str(args.pdn), "eval": evaluator.name, "depth": args.depth,
        "ballots": len(openings), "max_plies": args.max_plies, "random_plies": args.random_plies,
        "seed": args.seed, "seconds": round(elapsed, 1), "stages": [asdict(s) for s in result]}, indent=1))
    plot(load_series(args.out, args.quick), png, title)
    print(f"{elapsed:.0f} s; table {table}; figure {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
