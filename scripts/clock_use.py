#!/usr/bin/env python3
"""How engines spent a clock in a ``samuel match``: from the match's events.jsonl, each side's moves,
seconds and time losses as the referee measured them (share of the clock each side had: base plus
its increments); and, when the engines ran ``samuel hub --log FILE --log-level debug`` (a file per
process, named NAME-*.log), each move's time inside the engine (``go think`` to ``done``) with the
clock its ``level`` gave: mean, largest, and the largest share of the clock one move took."""

from __future__ import annotations

import argparse
import datetime as dt
import itertools
import json
import re
import statistics
from collections import defaultdict
from pathlib import Path

STAMP = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) DEBUG protocol\.hub_session: hub (<<|>>) (.*)$")


def _when(text: str) -> float:
    return dt.datetime.strptime(text, "%Y-%m-%d %H:%M:%S,%f").timestamp()


def engine_moves(log: Path) -> list[tuple[float, float]]:
    """(seconds from ``go think`` to ``done``, clock in seconds with this move's increment) per move."""
    return [(t, c) for t, c, _ in _moves(log)]


def lags(log: Path, inc: float) -> list[float]:
    """What the referee charged beyond the engine's own go-to-done time, move by move (the clock at
    one move, less the clock at the next, plus the increment, less the engine's time)."""
    moves = _moves(log)
    return [c0 - c1 + inc - t0 for (t0, c0, g0), (_, c1, g1) in itertools.pairwise(moves)
            if g0 == g1 and c1 < c0 + inc]


def _moves(log: Path) -> list[tuple[float, float, int]]:
    """(engine seconds, clock, game number in this log) per move."""
    out: list[tuple[float, float, int]] = []
    game = 0
    clock: float | None = None
    start: float | None = None
    for line in log.read_text(errors="replace").splitlines():
        m = STAMP.match(line)
        if not m:
            continue
        when, way, text = _when(m[1]), m[2], m[3]
        if way == "<<" and text.startswith("new-game"):
            game += 1
        elif way == "<<" and text.startswith("level"):
            args = dict(a.split("=", 1) for a in text.split()[1:] if "=" in a)
            clock = float(args["time"]) + float(args.get("inc", 0)) if "time" in args else None
        elif way == "<<" and text.startswith("go think"):
            start = when
        elif way == ">>" and text.startswith("done") and start is not None:
            if clock is not None:
                out.append((when - start, clock, game))
            start = None
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("match", type=Path, help="the match's --out folder (events.jsonl)")
    ap.add_argument("--logs", type=Path, help="folder of the engines' NAME-*.log files")
    args = ap.parse_args()
    games = 0
    sides: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    score: dict[str, float] = defaultdict(float)
    base = inc = 0.0
    for line in (args.match / "events.jsonl").read_text().splitlines():
        event = json.loads(line)
        if event["event"] == "tournament_started":
            tc = event["config"]["rules"]["default_tc"]
            base, inc = float(tc["base"] or 0), float(tc["inc"] or 0)
        if event["event"] != "game_finished":
            continue
        record = event["record"]
        games += 1
        result = record["game"]["result"]
        black, white = record["spec"]["black"], record["spec"]["white"]
        points = {"1-0": (1.0, 0.0), "0-1": (0.0, 1.0)}.get(result, (0.5, 0.5))
        score[black] += points[0]
        score[white] += points[1]
        for name, side in record["sides"].items():
            s = sides[name]
            s["moves"] += side["moves"]
            s["seconds"] += side["seconds"]
            s["clock"] += base + inc * side["moves"]
            s["depth"] += side["depth_sum"]
            s["forfeits"] += bool(side["time_forfeit"])
            s["faults"] += bool(side["fault"])
    print(f"{games} games at {base:g}+{inc:g}")
    for name, s in sorted(sides.items()):
        share = 100 * s["seconds"] / s["clock"]
        print(f"{name:6} score {score[name]:.1f}/{games}  moves {int(s['moves'])}  referee: mean "
              f"{s['seconds'] / s['moves']:.3f} s a move, {share:.1f}% of the clock (base + increments) "
              f"used, mean depth {s['depth'] / s['moves']:.2f}, time losses {int(s['forfeits'])}, "
              f"other faults {int(s['faults'])}")
    if args.logs is None:
        return
    for name in sorted(sides):
        moves = [m for log in sorted(args.logs.glob(f"{name}-*.log")) for m in engine_moves(log)]
        if not moves:
            continue
        used = [t for t, _ in moves]
        shares = [t / c for t, c in moves if c > 0]
        low = min(c for _, c in moves)
        under = sum(c < 1.0 for _, c in moves)
        p99 = statistics.quantiles(shares, n=100)[98]
        lag = sorted(x for log in sorted(args.logs.glob(f"{name}-*.log")) for x in lags(log, inc))
        if lag:
            print(f"{name:6} lag (charged beyond the engine's own time): mean {statistics.mean(lag):.3f} s, "
                  f"99th percentile {statistics.quantiles(lag, n=100)[98]:.3f} s, max {lag[-1]:.3f} s")
        print(f"{name:6} engine: {len(moves)} moves, mean {statistics.mean(used):.3f} s, "
              f"median {statistics.median(used):.3f} s, max {max(used):.3f} s; share of the clock in one "
              f"move: mean {100 * statistics.mean(shares):.1f}%, 99th percentile {100 * p99:.1f}%, largest "
              f"{100 * max(shares):.1f}%; moves with under 1 s on the clock {under} "
              f"({100 * under / len(moves):.1f}%), lowest clock {low:.3f} s")


if __name__ == "__main__":
    main()
