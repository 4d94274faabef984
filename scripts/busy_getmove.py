#!/usr/bin/env python3
"""How long a timed cb getmove really takes while other programs keep every core busy.

    .venv/bin/python scripts/busy_getmove.py [--priorities idle,batch,low,normal] [--moves 10]
                                             [--maxtime 0.3] [--busy N] [--own-session-load]
                                             [--deadline-margin S]

For each search priority it starts ``samuel serve`` (cb on a free loopback port) and ``--busy``
normal-priority busy loops (one per core by default) in this script's own session, as when a
GUI, a match runner or a service manager starts the engines together (Linux's autogroup
then puts them in one scheduling group); ``--own-session-load`` starts the loops in a session
of their own instead, which is what a desktop usually has.  It then asks for ``--moves``
moves of ``getmove <fen> <maxtime> 2`` (CB_EXACT_TIME), one after another, and prints, per
priority, the wall time from the getmove line to its move line (min, median, max) and the
nodes each search reached (from its move line's status).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
START = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
BUSY = "while True: pass"


def start_server(priority: str, margin: float | None, port_file: Path) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, "-m", "samuel", "serve", "--no-dxp", "--cb-port", "0", "--hash", "16",
           "--search-priority", priority, "--book", "none", "--port-file", str(port_file),
           "--log-level", "warning"]
    if margin is not None:
        cmd += ["--deadline-margin", str(margin)]
    return subprocess.Popen(cmd, cwd=ROOT, stdin=subprocess.DEVNULL)


def wait_ports(port_file: Path, server: subprocess.Popen[bytes]) -> dict[str, int]:
    for _ in range(600):
        if port_file.exists():
            return json.loads(port_file.read_text())  # type: ignore[no-any-return]
        if server.poll() is not None:
            raise SystemExit(f"samuel serve exited with {server.returncode} before listening")
        time.sleep(0.1)
    raise SystemExit("samuel serve did not write its port file in 60 s")


async def getmoves(port: int, moves: int, maxtime: float) -> list[tuple[float, int]]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    out: list[tuple[float, int]] = []
    fen = START
    for _ in range(moves):
        t0 = time.monotonic()
        writer.write(f"getmove {fen} {maxtime} 2\n".encode())
        await writer.drain()
        while True:
            line = (await reader.readline()).decode()
            if not line:
                raise SystemExit("the server closed the connection")
            if line.startswith("move "):
                break
            if line.startswith("error"):
                raise SystemExit(line.strip())
        elapsed = time.monotonic() - t0
        nodes = int(line.split(" nodes ")[1].split()[0]) if " nodes " in line else 0
        out.append((elapsed, nodes))
        fen = line.split(" fen ")[1].split()[0] if " fen " in line else START
        if " result WIN" in line or " result LOSS" in line or " result DRAW" in line:
            fen = START
    writer.write(b"quit\n")
    await writer.drain()
    writer.close()
    return out


def busy_loops(n: int, own_session: bool) -> list[subprocess.Popen[bytes]]:
    return [subprocess.Popen([sys.executable, "-c", BUSY], start_new_session=own_session) for _ in range(n)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--priorities", default="idle,batch,low,normal")
    ap.add_argument("--moves", type=int, default=10)
    ap.add_argument("--maxtime", type=float, default=0.3)
    ap.add_argument("--busy", type=int, default=os.cpu_count() or 2,
                    help="busy loops (default: one per core)")
    ap.add_argument("--own-session-load", action="store_true",
                    help="start the busy loops in a session (scheduling group) of their own")
    ap.add_argument("--deadline-margin", type=float, default=None,
                    help="passed to samuel serve (default: the server's own)")
    args = ap.parse_args()
    print(f"{args.moves} x getmove {args.maxtime} s (exact), {args.busy} busy loops "
          f"{'in their own session' if args.own_session_load else 'in the servers session'}")
    print(f"{'priority':<8} {'min s':>7} {'median s':>9} {'max s':>7} {'median nodes':>13}")
    for priority in args.priorities.split(","):
        with tempfile.TemporaryDirectory() as tmp:
            port_file = Path(tmp) / "ports.json"
            server = start_server(priority, args.deadline_margin, port_file)
            loops: list[subprocess.Popen[bytes]] = []
            try:
                ports = wait_ports(port_file, server)
                asyncio.run(getmoves(ports["cb"], 1, 0.05))  # the search processes are up
                loops = busy_loops(args.busy, args.own_session_load)
                time.sleep(0.5)
                results = asyncio.run(getmoves(ports["cb"], args.moves, args.maxtime))
            finally:
                for p in loops:
                    p.kill()
                server.terminate()
                server.wait(30)
        times = [t for t, _ in results]
        nodes = [n for _, n in results]
        print(f"{priority:<8} {min(times):7.3f} {statistics.median(times):9.3f} {max(times):7.3f} "
              f"{statistics.median(nodes):13.0f}", flush=True)


if __name__ == "__main__":
    main()
