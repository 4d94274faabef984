#!/usr/bin/env python3
"""Does the default evaluator beat the material evaluator?  A small match runner.

Run it with the project's venv::

    .venv/bin/python scripts/material_match.py [--movetime 0.1] [--concurrency 2] [--games-limit N]

Every crossboard ballot of the ACF three-move deck is played twice, each
evaluator taking each colour once (a colour-reversed pair).  Both sides search
with PVS at a fixed time per move.  The board referees: a side with no move
loses, threefold repetition and the 40-move rule draw, and a game still going
after ``--max-plies`` plies (counted from the ballot position) is adjudicated a
draw.  A move the engine returns that is not legal (or no move at all) loses
the game for that side and is reported as an anomaly.

At the end it prints the results from the default evaluator's point of view
(W/D/L, score, Elo with a 95% interval, the pentanomial counts of the pairs)
and writes every game to a PDN file and a summary to a JSON file.

With ``--concurrency N`` the games run in N worker processes (the ``spawn``
start method); each worker builds its own two Searchers and plays one game
at a time, so each search is single threaded.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import random
import signal
import sys
import time
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import TypedDict

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from engine import BLACK, DEFAULT, MATERIAL, WHITE, Board, Evaluator, Limit, Mode, Searcher
from engine.pdn import write_game
from matches import openings

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_BALLOTS = openings.DEFAULT_BALLOTS
DEFAULT_PDN = REPO_ROOT / "out" / "material_match.pdn"
DEFAULT_JSON = REPO_ROOT / "out" / "material_match.json"

ENGINES: dict[str, Evaluator] = {"default": DEFAULT, "material": MATERIAL}
"""The two players, by the name used in the PDN tags and the summary."""
HERO = "default"
"""Whose point of view the results are given from."""
EVENT = "samuel: default vs material evaluator"
Z95 = 1.959963984540054
SLOW_SEARCH_SLACK = 0.25
"""A search taking this many seconds over --movetime is reported as an anomaly."""


# ---------------------------------------------------------------------------
# Openings.


@dataclass(frozen=True)
class Ballot:
    number: int
    moves: str
    name: str
    fen: str


def load_ballots(path: Path) -> list[Ballot]:
    """The crossboard ballots of the deck, in file order.

    The ``fen`` column is not quoted although a FEN contains commas, so every
    field after the fifth belongs to it.  Each ballot's FEN is checked against
    its three moves played from the start position.
    """
    ballots: list[Ballot] = []
    with path.open(newline="", encoding="utf-8") as fh:
        rows = csv.reader(fh)
        header = next(rows, None)
        expected = ["number", "moves", "kind", "computer_tough_deck", "name", "fen"]
        if header is None or [h.strip() for h in header[:6]] != expected:
            raise ValueError(f"{path}: expected the columns {','.join(expected)}, got {header}")
        for line_no, row in enumerate(rows, start=2):
            if not row:
                continue
            if len(row) < 6:
                raise ValueError(f"{path}:{line_no}: expected at least 6 fields, got {len(row)}")
            number, moves, kind, _tough, name = (f.strip() for f in row[:5])
            if kind != "crossboard":
                continue
            fen = ",".join(f.strip() for f in row[5:])
            board = Board()
            board.push_many(moves.split())
            if Board(fen) != board or Board(fen).turn != board.turn:
                raise ValueError(f"{path}:{line_no}: FEN {fen} is not the position after {moves}")
            ballots.append(Ballot(int(number), moves, name, fen))
    return ballots


# ---------------------------------------------------------------------------
# Playing one game (in a worker process).


class GameSpec(TypedDict):
    index: int
    """0-based game number; games 2k and 2k+1 are the pair of ballot k."""
    ballot: int
    ballot_moves: str
    fen: str
    black: str
    white: str
    movetime: float
    max_plies: int


class SideStats(TypedDict):
    searches: int
    depth_sum: int
    max_seconds: float


class GameRecord(TypedDict):
    index: int
    ballot: int
    black: str
    white: str
    result: str
    """PDN result: ``1-0`` Black won, ``0-1`` White won, ``1/2-1/2``."""
    termination: str
    plies: int
    seconds: float
    hero_score: float
    """1, 0.5 or 0 for the default evaluator."""
    anomalies: list[str]
    sides: dict[str, SideStats]
    pdn: str


_searchers: dict[str, Searcher] = {}


def _init_worker(hash_mb: int) -> None:
    """Build this worker's Searchers; Ctrl-C is left to the parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _searchers.clear()
    for name, evaluator in ENGINES.items():
        _searchers[name] = Searcher(evaluator, mode=Mode.PVS, hash_mb=hash_mb)


def play_game(spec: GameSpec) -> GameRecord:
    """Play one game from the ballot position; the Searchers come from the worker."""
    started = time.perf_counter()
    board = Board(spec["fen"])
    players = {BLACK: spec["black"], WHITE: spec["white"]}
    for name in players.values():
        _searchers[name].new_game()
    sides: dict[str, SideStats] = {
        name: {"searches": 0, "depth_sum": 0, "max_seconds": 0.0} for name in players.values()
    }
    anomalies: list[str] = []
    limit = Limit(movetime=spec["movetime"])
    result = "*"
    termination = ""
    while True:
        outcome = board.outcome()
        if outcome is not None:
            result, termination = outcome.result(), outcome.termination.value
            break
        if len(board.move_stack) >= spec["max_plies"]:
            result, termination = "1/2-1/2", f"adjudicated draw after {spec['max_plies']} plies"
            break
        mover = players[board.turn]
        t0 = time.perf_counter()
        found = _searchers[mover].search(board, limit)
        took = time.perf_counter() - t0
        stats = sides[mover]
        stats["searches"] += 1
        stats["depth_sum"] += found.info.depth
        stats["max_seconds"] = max(stats["max_seconds"], took)
        if took > spec["movetime"] + SLOW_SEARCH_SLACK:
            anomalies.append(f"{mover} took {took:.3f} s for a move in {board.fen()}")
        move = found.best
        if move is None or move not in board.legal_moves:
            what = "no move" if move is None else f"illegal move {move.long}"
            anomalies.append(f"{mover} returned {what} in {board.fen()}")
            result = "0-1" if board.turn == BLACK else "1-0"
            termination = f"{mover} returned {what}"
            break
        board.push(move)

    tags = {
        "Event": EVENT,
        "Round": str(spec["index"] + 1),
        "Black": spec["black"],
        "White": spec["white"],
        "Result": result,
        "GameType": "21",
        "SetUp": "1",
        "FEN": spec["fen"],
        "Ballot": f"{spec['ballot']} {spec['ballot_moves']}",
        "Termination": termination,
    }
    pdn = write_game(board, tags, result=result)
    hero_is_black = spec["black"] == HERO
    hero_score = {"1-0": 1.0 if hero_is_black else 0.0, "0-1": 0.0 if hero_is_black else 1.0}.get(result, 0.5)
    return {
        "index": spec["index"],
        "ballot": spec["ballot"],
        "black": spec["black"],
        "white": spec["white"],
        "result": result,
        "termination": termination,
        "plies": len(board.move_stack),
        "seconds": time.perf_counter() - started,
        "hero_score": hero_score,
        "anomalies": anomalies,
        "sides": sides,
        "pdn": pdn,
    }


def game_specs(ballots: Sequence[Ballot], movetime: float, max_plies: int) -> list[GameSpec]:
    """Two games per ballot: the default evaluator with Black, then with White."""
    other = next(n for n in ENGINES if n != HERO)
    specs: list[GameSpec] = []
    for k, ballot in enumerate(ballots):
        for j, (black, white) in enumerate(((HERO, other), (other, HERO))):
            specs.append({
                "index": 2 * k + j,
                "ballot": ballot.number,
                "ballot_moves": ballot.moves,
                "fen": ballot.fen,
                "black": black,
                "white": white,
                "movetime": movetime,
                "max_plies": max_plies,
            })
    return specs


# ---------------------------------------------------------------------------
# Statistics.


def elo(score: float) -> float:
    """Elo difference for an expected score strictly between 0 and 1."""
    return -400.0 * math.log10(1.0 / score - 1.0)


@dataclass(frozen=True)
class EloEstimate:
    score: float
    elo: float
    low: float
    high: float
    se: float
    """Standard error of the mean score."""
    clamped: bool
    """Whether the score or a bound was clamped away from 0 or 1."""

    def line(self) -> str:
        note = "  (clamped: score at or near 0 or 100%)" if self.clamped else ""
        return f"{self.elo:+.1f}  95% [{self.low:+.1f}, {self.high:+.1f}]{note}"


def elo_interval(scores: Sequence[float], n_games: int) -> EloEstimate:
    """Elo and its 95% interval from per-unit scores in [0, 1] (games, or pairs as halves).

    The mean and the bounds are clamped to half a game (of ``n_games``) from
    0 and 1, so a clean sweep gives a large but finite number.
    """
    n = len(scores)
    mean = sum(scores) / n
    var = sum((x - mean) ** 2 for x in scores) / n
    se = math.sqrt(var / n)
    eps = 0.5 / n_games
    raw = (mean - Z95 * se, mean, mean + Z95 * se)
    clamped = any(s < eps or s > 1 - eps for s in raw)
    low, mid, high = (elo(min(max(s, eps), 1 - eps)) for s in raw)
    return EloEstimate(mean, mid, low, high, se, clamped)


PENTA_KEYS: tuple[str, ...] = ("LL", "LD", "DD/WL", "WD", "WW")
"""Pair outcomes for the default evaluator, by pair score 0, 0.5, 1, 1.5, 2."""


@dataclass
class MatchSummary:
    """The match from the default evaluator's side; ``asdict`` makes it JSON."""

    config: dict[str, object]
    games: int
    pairs: int
    pairs_expected: int
    wins: int
    draws: int
    losses: int
    score: float
    elo: EloEstimate | None
    """From the trinomial (per-game) results."""
    elo_pairs: EloEstimate | None
    """From the pentanomial (per-pair) results, which accounts for the pairing."""
    los: float
    pentanomial: dict[str, int]
    terminations: dict[str, int]
    avg_plies: float
    longest_game_plies: int
    avg_game_seconds: float
    wall_seconds: float
    avg_depth: dict[str, float]
    slowest_move_seconds: dict[str, float]
    anomalies: list[str]
    errors: list[str]
    game_list: list[dict[str, object]]


def summarize(
    records: Sequence[GameRecord],
    errors: Sequence[str],
    pairs_expected: int,
    wall: float,
    config: dict[str, object],
) -> MatchSummary:
    n = len(records)
    wins = sum(1 for r in records if r["hero_score"] == 1.0)
    losses = sum(1 for r in records if r["hero_score"] == 0.0)
    draws = n - wins - losses
    by_ballot: dict[int, list[GameRecord]] = {}
    for r in records:
        by_ballot.setdefault(r["index"] // 2, []).append(r)
    pair_scores = [sum(g["hero_score"] for g in games) for games in by_ballot.values() if len(games) == 2]
    penta = Counter(PENTA_KEYS[round(2 * s)] for s in pair_scores)
    decisive = wins + losses
    avg_depth: dict[str, float] = {}
    slowest: dict[str, float] = {}
    for name in ENGINES:
        mine = [r["sides"][name] for r in records if name in r["sides"]]
        searches = sum(m["searches"] for m in mine)
        avg_depth[name] = sum(m["depth_sum"] for m in mine) / searches if searches else 0.0
        slowest[name] = max((m["max_seconds"] for m in mine), default=0.0)
    return MatchSummary(
        config=config,
        games=n,
        pairs=len(pair_scores),
        pairs_expected=pairs_expected,
        wins=wins,
        draws=draws,
        losses=losses,
        score=(wins + draws / 2) / n if n else 0.0,
        elo=elo_interval([r["hero_score"] for r in records], n) if n else None,
        elo_pairs=elo_interval([s / 2 for s in pair_scores], 2 * len(pair_scores)) if pair_scores else None,
        los=0.5 * (1 + math.erf((wins - losses) / math.sqrt(2 * decisive))) if decisive else 0.5,
        pentanomial={k: penta.get(k, 0) for k in PENTA_KEYS},
        terminations=dict(Counter(r["termination"] for r in records).most_common()),
        avg_plies=sum(r["plies"] for r in records) / n if n else 0.0,
        longest_game_plies=max((r["plies"] for r in records), default=0),
        avg_game_seconds=sum(r["seconds"] for r in records) / n if n else 0.0,
        wall_seconds=wall,
        avg_depth=avg_depth,
        slowest_move_seconds=slowest,
        anomalies=[a for r in records for a in r["anomalies"]],
        errors=list(errors),
        game_list=[
            {"game": r["index"] + 1, "ballot": r["ballot"], "black": r["black"], "white": r["white"],
             "result": r["result"], "termination": r["termination"], "plies": r["plies"],
             "seconds": round(r["seconds"], 3)}
            for r in records
        ],
    )


def report(s: MatchSummary) -> str:
    """The human-readable end-of-match report."""
    lines = [f"games        {s.games} ({s.pairs} of {s.pairs_expected} colour-reversed pairs complete)"]
    if s.elo is not None:
        lines += [
            f"default      +{s.wins} ={s.draws} -{s.losses}  (wins/draws/losses against material)",
            f"score        {100 * s.score:.1f}%",
            f"elo          {s.elo.line()}",
        ]
        if s.elo_pairs is not None:
            lines.append(f"elo (pairs)  {s.elo_pairs.line()}")
        lines += [
            f"LOS          {100 * s.los:.1f}%",
            "pentanomial  " + "  ".join(f"{k} {s.pentanomial[k]}" for k in PENTA_KEYS),
            "endings      " + ", ".join(f"{v} {k}" for k, v in s.terminations.items()),
            f"length       {s.avg_plies:.1f} plies per game on average (longest {s.longest_game_plies})",
            f"time         {s.avg_game_seconds:.1f} s per game, {s.wall_seconds:.1f} s in all",
            "avg depth    " + ", ".join(f"{k} {v:.1f}" for k, v in s.avg_depth.items())
            + "   slowest move " + ", ".join(f"{k} {v:.3f} s" for k, v in s.slowest_move_seconds.items()),
        ]
    if s.anomalies:
        lines.append(f"anomalies    {len(s.anomalies)}:")
        lines += [f"  {a}" for a in s.anomalies[:20]]
    if s.errors:
        lines.append(f"errors       {len(s.errors)} game(s) failed:")
        lines += [f"  {e}" for e in s.errors[:20]]
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# Running the match.


def _ensure_importable() -> None:
    """Let spawned workers import this module when it was loaded from its path.

    Run as a script, multiprocessing re-runs this file in each worker; loaded
    under another name (as the tests do, with importlib), workers import it by
    that name, which needs its folder on the ``sys.path`` they inherit.
    """
    if __name__ != "__main__":
        folder = str(Path(__file__).resolve().parent)
        if folder not in sys.path:
            sys.path.append(folder)


def run_games(
    specs: Sequence[GameSpec], concurrency: int, hash_mb: int, console: Console
) -> tuple[list[GameRecord], list[str], bool]:
    """Play the games; returns the records (in game order), errors, and whether it was interrupted."""
    _ensure_importable()
    records: list[GameRecord] = []
    errors: list[str] = []
    interrupted = False
    score = 0.0
    with Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        TextColumn("{task.fields[tally]}"), console=console,
    ) as progress, ProcessPoolExecutor(
        max_workers=concurrency, mp_context=get_context("spawn"),
        initializer=_init_worker, initargs=(hash_mb,),
    ) as pool:
        task = progress.add_task("default vs material", total=len(specs), tally="")
        pending: dict[Future[GameRecord], GameSpec] = {pool.submit(play_game, spec): spec for spec in specs}
        try:
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    spec = pending.pop(fut)
                    try:
                        rec = fut.result()
                    except BrokenProcessPool as exc:
                        errors.append(f"game {spec['index'] + 1}: a worker process died ({exc})")
                        for other in pending.values():
                            errors.append(f"game {other['index'] + 1}: not played, the worker pool broke")
                        pending.clear()
                        break
                    except Exception as exc:
                        errors.append(f"game {spec['index'] + 1} (ballot {spec['ballot']}): "
                                      f"{type(exc).__name__}: {exc}")
                    else:
                        records.append(rec)
                        score += rec["hero_score"]
                    w = sum(1 for r in records if r["hero_score"] == 1.0)
                    lo = sum(1 for r in records if r["hero_score"] == 0.0)
                    tally = f"+{w} ={len(records) - w - lo} -{lo}"
                    if records:
                        tally += f"  {100 * score / len(records):.1f}%"
                    progress.update(task, advance=1, tally=tally)
        except KeyboardInterrupt:
            interrupted = True
            for fut in pending:
                fut.cancel()
            console.print("[yellow]interrupted: finishing the games in progress…[/]")
            for fut, spec in pending.items():
                if fut.cancelled():
                    continue
                try:
                    records.append(fut.result())
                except Exception as exc:
                    errors.append(f"game {spec['index'] + 1}: {type(exc).__name__}: {exc}")
                progress.update(task, advance=1)
    records.sort(key=lambda r: r["index"])
    return records, errors, interrupted


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("--ballots", type=Path, default=DEFAULT_BALLOTS, help="the ACF three-move ballots CSV")
    p.add_argument("--movetime", type=float, default=0.1, help="seconds per move (default 0.1)")
    p.add_argument("--concurrency", type=int, default=2, help="worker processes (default 2)")
    p.add_argument("--games-limit", type=int, default=None, metavar="N",
                   help="play only the first N ballots (2N games)")
    p.add_argument("--seed", type=int, default=None,
                   help="shuffle the ballots with this seed before --games-limit picks them "
                        "(the search itself is not random)")
    p.add_argument("--max-plies", type=int, default=300,
                   help="adjudicate a draw after this many plies from the ballot (default 300)")
    p.add_argument("--hash-mb", type=int, default=32, help="transposition table per engine, MB (default 32)")
    p.add_argument("--pdn", type=Path, default=DEFAULT_PDN, help="write the games here")
    p.add_argument("--json", type=Path, default=DEFAULT_JSON, help="write the summary here")
    args = p.parse_args(argv)
    if args.movetime <= 0:
        p.error("--movetime must be positive")
    if args.concurrency < 1:
        p.error("--concurrency must be at least 1")
    if args.games_limit is not None and args.games_limit < 1:
        p.error("--games-limit must be at least 1")
    if args.max_plies < 1:
        p.error("--max-plies must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    console = Console(stderr=True)
    ballots = load_ballots(args.ballots)
    if args.seed is not None:
        random.Random(args.seed).shuffle(ballots)
    if args.games_limit is not None:
        ballots = ballots[: args.games_limit]
    if not ballots:
        console.print(f"[red]no crossboard ballots in {args.ballots}[/]")
        return 2
    specs = game_specs(ballots, args.movetime, args.max_plies)
    console.print(f"{len(ballots)} ballots, {len(specs)} games, {args.movetime:g} s/move, "
                  f"{args.concurrency} worker(s)")

    started = time.perf_counter()
    records, errors, interrupted = run_games(specs, args.concurrency, args.hash_mb, console)
    wall = time.perf_counter() - started

    config: dict[str, object] = {
        "ballots_file": str(args.ballots),
        "ballots": [b.number for b in ballots],
        "movetime": args.movetime,
        "max_plies": args.max_plies,
        "concurrency": args.concurrency,
        "hash_mb": args.hash_mb,
        "seed": args.seed,
        "mode": "pvs",
        "players": list(ENGINES),
        "interrupted": interrupted,
    }
    summary = summarize(records, errors, len(ballots), wall, config)

    args.pdn.parent.mkdir(parents=True, exist_ok=True)
    args.pdn.write_text("\n".join(r["pdn"] for r in records), encoding="utf-8")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(asdict(summary), indent=2) + "\n", encoding="utf-8")

    print(report(summary))
    print(f"pdn          {args.pdn}")
    print(f"json         {args.json}")
    if interrupted:
        return 130
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
