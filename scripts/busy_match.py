#!/usr/bin/env python3
"""Does samuel keep time on a busy machine?  A match between two ``samuel serve`` engines over
Hub while a third engine ponders at normal priority on every core.

    .venv/bin/python scripts/busy_match.py [--openings 24] [--tc st=0.1] [--search-priority P]
                                           [--deadline-margin S] [--ponderers N] [--out DIR]

It starts, all in this script's own session (so Linux's autogroup schedules them as one group,
as when a GUI, a match runner or a service manager starts the engines together):

* two ``samuel serve`` engines (Hub on a free loopback port, no opening book, each with its
  default search processes, or ``--search-priority``/``--deadline-margin`` when given);
* a third ``samuel serve --search-priority normal`` and ``--ponderers`` Hub connections to it
  (one per core by default), each analysing a position with ``level infinite`` / ``go analyze``
  for the whole match: a pondering opponent that keeps every core busy at normal priority;
* ``samuel match`` between the first two, over ``--openings`` ACF ballots played from both
  sides (2 x 24 games by default) at ``--tc``.

It prints the match's result, the games lost on time and the other faults, each engine's time
and nodes a move (from the match's event log) and how many moves the server's deadline answered,
and leaves the match directory in ``--out``.  Zero time losses is the goal at the default margin.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMUEL = [sys.executable, "-m", "samuel"]
PONDER_FENS = ("B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
               "W:W18,21,22,23,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,12,15")


def hub_pos(fen: str) -> str:
    """A Hub ``pos`` line for a FEN (the pieces as Hub's 33-character string)."""
    from engine.board import Board
    from protocol.hub_grammar import format_position

    return f"pos pos={format_position(Board(fen))}"


def serve(port_file: Path, extra: list[str], log: Path) -> subprocess.Popen[bytes]:
    cmd = [*SAMUEL, "serve", "--no-dxp", "--no-cb", "--hub-port", "0", "--book", "none",
           "--port-file", str(port_file), "--log", str(log), "--log-level", "warning", *extra]
    return subprocess.Popen(cmd, cwd=ROOT, stdin=subprocess.DEVNULL)


def hub_port(port_file: Path, proc: subprocess.Popen[bytes]) -> int:
    for _ in range(1200):
        if port_file.exists():
            return int(json.loads(port_file.read_text())["hub"])
        if proc.poll() is not None:
            raise SystemExit(f"samuel serve exited with {proc.returncode} before listening")
        time.sleep(0.05)
    raise SystemExit("samuel serve wrote no port file in 60 s")


def ponder(port: int, fens: list[str], ready: Path) -> subprocess.Popen[bytes]:
    """A process holding one analysing Hub connection per FEN until it is killed."""
    lines = [f"{hub_pos(f)}\nlevel infinite\ngo analyze\n" for f in fens]
    code = f"""
import socket, time, pathlib
socks = []
for text in {lines!r}:
    s = socket.create_connection(("127.0.0.1", {port}))
    s.sendall(b"hub\\n" + text.encode())
    socks.append(s)
pathlib.Path({str(ready)!r}).write_text("ok")
while True:
    for s in socks:
        s.setblocking(False)
        try:
            s.recv(65536)
        except BlockingIOError:
            pass
    time.sleep(0.5)
"""
    return subprocess.Popen([sys.executable, "-c", code], cwd=ROOT)


def per_move(events: Path) -> dict[str, tuple[list[float], list[float]]]:
    """Each engine's mean seconds and nodes a move in every game, from the match's event log."""
    out: dict[str, tuple[list[float], list[float]]] = {}
    for line in events.read_text().splitlines():
        try:
            e = json.loads(line)
        except json.JSONDecodeError:
            continue
        record = e.get("record") if isinstance(e, dict) and e.get("event") == "game_finished" else None
        if not isinstance(record, dict):
            continue
        for name, side in (record.get("sides") or {}).items():
            if side.get("moves"):
                seconds, nodes = out.setdefault(name, ([], []))
                seconds.append(side["seconds"] / side["moves"])
                nodes.append(side["nodes"] / side["moves"])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--openings", type=int, default=24, help="ballots, each played from both sides")
    ap.add_argument("--tc", default="st=0.1")
    ap.add_argument("--search-priority", default=None, help="for the two playing servers")
    ap.add_argument("--deadline-margin", default=None, help="for the two playing servers")
    ap.add_argument("--ponderers", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--out", default=None, help="the match directory (default: a temporary one)")
    args = ap.parse_args()
    extra: list[str] = []
    if args.search_priority:
        extra += ["--search-priority", args.search_priority]
    if args.deadline_margin is not None:
        extra += ["--deadline-margin", str(args.deadline_margin)]
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        out = Path(args.out) if args.out else tmp / "match"
        procs: list[subprocess.Popen[bytes]] = []
        try:
            ports = []
            for name in ("a", "b", "ponder"):
                pf = tmp / f"{name}.json"
                own = extra if name != "ponder" else ["--search-priority", "normal"]
                p = serve(pf, own, tmp / f"{name}.log")
                procs.append(p)
                ports.append(hub_port(pf, p))
            ready = tmp / "pondering"
            fens = [PONDER_FENS[i % len(PONDER_FENS)] for i in range(args.ponderers)]
            procs.append(ponder(ports[2], fens, ready))
            while not ready.exists():
                time.sleep(0.05)
            time.sleep(1.0)  # the ponderers' searches are running
            cmd = [*SAMUEL, "match", "--engine", "name=samuel-a", "proto=hub", f"tcp=127.0.0.1:{ports[0]}",
                   "--engine", "name=samuel-b", "proto=hub", f"tcp=127.0.0.1:{ports[1]}",
                   "--openings-limit", str(args.openings), "--tc", args.tc, "--out", str(out), "--no-live"]
            print("$", " ".join(cmd[2:]), flush=True)
            started = time.monotonic()
            r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False)
            print(r.stdout[-3000:], end="")
            if r.returncode != 0:
                print(r.stderr[-3000:], file=sys.stderr)
                raise SystemExit(f"samuel match exited with {r.returncode}")
            print(f"match took {time.monotonic() - started:.0f} s")
            for name, (seconds, nodes) in sorted(per_move(out / "events.jsonl").items()):
                print(f"{name}: a game's mean time a move: median {statistics.median(seconds):.3f} s, "
                      f"max {max(seconds):.3f} s; nodes a move: median {statistics.median(nodes):,.0f}")
            for log in ("a", "b"):
                text = (tmp / f"{log}.log").read_text() if (tmp / f"{log}.log").exists() else ""
                late = text.count("past its deadline")
                print(f"samuel-{log}: {late} moves answered by the server's deadline")
        finally:
            for p in procs:
                p.terminate()
            for p in procs:
                try:
                    p.wait(30)
                except subprocess.TimeoutExpired:
                    p.kill()


if __name__ == "__main__":
    main()
