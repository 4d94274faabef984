#!/usr/bin/env python3
"""Load check of the server: N concurrent cb clients, each playing a whole game, with pings mid-search.

    .venv/bin/python scripts/serve_load.py [--clients 32] [--movetime 0.05] [--max-plies 300]

It starts ``samuel serve`` on free loopback ports, then opens ``--clients`` TCP
connections at once.  Each plays one engine-vs-itself game from its own ACF
three-move ballot: before every move it sends ``set gamehist`` and a
``getmove`` with an exact move time, and shortly after (while the search runs)
a ``ping``; it times the ``pong``.  Every move the server returns is checked
legal on a local Board.  The board referees: no move loses, threefold
repetition and the 40-move rule draw; a game still going after ``--max-plies``
counts as unfinished.

It prints the games finished, the results, the number of moves and illegal
moves, and the ping latency p50/p99/max (all pings, and those answered while
the search was still running), and writes the figures as JSON to ``out/``.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.board import Board  # noqa: E402
from engine.errors import SamuelError  # noqa: E402
from engine.limits import Limit  # noqa: E402
from protocol.cb_grammar import MoveLine, Pong, format_getmove, parse_engine_line  # noqa: E402

BALLOTS = ROOT.parent / "shared" / "data" / "acf-3move-ballots.csv"


@dataclass
class GameReport:
    client: int
    ballot: str
    result: str = "*"
    plies: int = 0
    illegal: list[str] = field(default_factory=list)
    pings_ms: list[float] = field(default_factory=list)
    pings_mid_search_ms: list[float] = field(default_factory=list)
    error: str = ""


def ballot_fens(n: int) -> list[tuple[str, str]]:
    if not BALLOTS.exists():
        return [("start", Board().fen())] * n
    with BALLOTS.open(newline="") as f:
        # The fen column is not quoted though a FEN holds commas: it is the rest of the row.
        rows = [(r[1], ",".join(r[5:])) for r in list(csv.reader(f))[1:] if len(r) > 5]
    return [rows[i % len(rows)] for i in range(n)]


async def play_one(index: int, port: int, ballot: tuple[str, str], movetime: float,
                   max_plies: int) -> GameReport:
    report = GameReport(index, ballot[0])
    board = Board(ballot[1])
    initial = board.fen()
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError as exc:
        report.error = f"connect: {exc}"
        return report

    async def send(line: str) -> None:
        writer.write(line.encode() + b"\n")
        await writer.drain()

    async def next_line() -> str:
        raw = await asyncio.wait_for(reader.readline(), 60 + 20 * movetime)
        if not raw:
            raise ConnectionError("server closed the connection")
        return raw.decode().rstrip("\n")

    try:
        while board.outcome() is None and report.plies < max_plies:
            moves = " ".join(m.long for m in board.move_stack)
            await send(f"set gamehist {initial} {moves}".rstrip())
            while not (await next_line()).startswith("reply"):
                pass
            await send(format_getmove(board.fen(), Limit(movetime=movetime)))
            await asyncio.sleep(movetime * 0.3)
            ping_at = time.perf_counter()
            await send("ping")
            moved = ponged = False
            while not (moved and ponged):
                line = parse_engine_line(await next_line())
                if isinstance(line, Pong):
                    ms = (time.perf_counter() - ping_at) * 1000
                    report.pings_ms.append(ms)
                    if not moved:
                        report.pings_mid_search_ms.append(ms)
                    ponged = True
                elif isinstance(line, MoveLine):
                    try:
                        board.push(board.parse_move(line.move))
                    except SamuelError as exc:
                        report.illegal.append(f"{line.move}: {exc}")
                        return report
                    report.plies += 1
                    moved = True
        report.result = board.result()
        await send("quit")
    except (OSError, ConnectionError, asyncio.TimeoutError, SamuelError) as exc:
        report.error = f"{type(exc).__name__}: {exc}"
    finally:
        writer.close()
    return report


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[k]


def start_server(tmp: Path, clients: int) -> tuple[subprocess.Popen[bytes], int]:
    port_file = tmp / "ports.json"
    exe = [sys.executable, "-m", "samuel.cli"]
    proc = subprocess.Popen(
        [*exe, "serve", "--dxp-port", "0", "--cb-port", "0", "--hash", "4",
         "--max-sessions", str(clients + 8), "--port-file", str(port_file),
         "--log", str(tmp / "serve.log"), "--log-level", "warning"],
        stdin=subprocess.DEVNULL, cwd=ROOT,
    )
    deadline = time.monotonic() + 60
    while not port_file.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise SystemExit("samuel serve did not start")
        time.sleep(0.05)
    return proc, int(json.loads(port_file.read_text())["cb"])


async def run(args: argparse.Namespace, port: int) -> list[GameReport]:
    fens = ballot_fens(args.clients)
    return await asyncio.gather(
        *(play_one(i, port, fens[i], args.movetime, args.max_plies) for i in range(args.clients))
    )


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--clients", type=int, default=32)
    p.add_argument("--movetime", type=float, default=0.05)
    p.add_argument("--max-plies", type=int, default=300)
    p.add_argument("--out", default=str(ROOT / "out" / "serve-load.json"))
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmpdir:
        proc, port = start_server(Path(tmpdir), args.clients)
        t0 = time.perf_counter()
        try:
            reports = asyncio.run(run(args, port))
        finally:
            proc.terminate()
            proc.wait(30)
        wall = time.perf_counter() - t0
    pings = [x for r in reports for x in r.pings_ms]
    mid = [x for r in reports for x in r.pings_mid_search_ms]
    finished = [r for r in reports if r.result != "*" and not r.error and not r.illegal]
    results: dict[str, int] = {}
    for r in reports:
        results[r.result] = results.get(r.result, 0) + 1
    summary = {
        "clients": args.clients, "movetime": args.movetime, "cores": os.cpu_count(),
        "wall_s": round(wall, 1), "games_finished": len(finished),
        "results": results, "moves": sum(r.plies for r in reports),
        "illegal_moves": sum(len(r.illegal) for r in reports),
        "errors": [f"client {r.client}: {r.error}" for r in reports if r.error],
        "ping_ms": {"n": len(pings), "p50": percentile(pings, 0.5), "p99": percentile(pings, 0.99),
                    "max": max(pings, default=float("nan")),
                    "mean": statistics.fmean(pings) if pings else float("nan")},
        "ping_mid_search_ms": {"n": len(mid), "p50": percentile(mid, 0.5), "p99": percentile(mid, 0.99),
                               "max": max(mid, default=float("nan"))},
    }
    print(f"{args.clients} clients at {args.movetime} s/move on {os.cpu_count()} cores: "
          f"{len(finished)}/{args.clients} games finished legally in {wall:.1f} s")
    print(f"results {results}; {summary['moves']} moves; {summary['illegal_moves']} illegal moves")
    pm, mm = summary["ping_ms"], summary["ping_mid_search_ms"]
    print(f"ping latency (all {pm['n']}): p50 {pm['p50']:.2f} ms  p99 {pm['p99']:.2f} ms  "
          f"max {pm['max']:.2f} ms")
    print(f"ping latency (answered mid-search, {mm['n']}): p50 {mm['p50']:.2f} ms  "
          f"p99 {mm['p99']:.2f} ms  max {mm['max']:.2f} ms")
    for e in summary["errors"]:
        print("error:", e)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps({**summary, "games": [asdict(r) for r in reports]}, indent=1))
    print(f"wrote {args.out}")
    return 0 if len(finished) == args.clients and not summary["illegal_moves"] else 1


if __name__ == "__main__":
    sys.exit(main())
