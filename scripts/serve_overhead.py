#!/usr/bin/env python3
"""The server's fixed cost per move: one Hub client asks for N shallow searches back to back.

    .venv/bin/python scripts/serve_overhead.py [--moves 2000] [--depth 1] [--search-processes N]

With nothing else running and searches of depth 1, what is left is the work around a search:
parsing and answering the Hub lines, the pipes to the search processes (or the hand-off to a
search thread), starting a search and reporting it.  It prints the CPU per move of the server
process and of the threads that search (the search processes, or the server's own threads),
with the main threads' part: the server's event loop with threads, the reading threads of the
search processes.  Compare set-ups with ``--search-processes 0`` and the default.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from serve_load import children, cpu_seconds, sched_counts  # noqa: E402

from engine.board import Board  # noqa: E402
from engine.limits import Limit  # noqa: E402
from protocol import hub_grammar as hg  # noqa: E402

FEN = "B:W19,21,22,24,25,27,28,31:B1,2,4,6,7,9,11,13"
"""A middle game no book holds, so every move is searched."""


async def play(port: int, moves: int, depth: int) -> float:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)

    async def until(prefix: str) -> str:
        while True:
            raw = await asyncio.wait_for(reader.readline(), 60)
            if not raw:
                raise SystemExit(f"the server closed the connection waiting for {prefix!r}")
            line = raw.decode().strip()
            if line.startswith(prefix):
                return line

    writer.write(b"hub\n")
    await until("wait")
    writer.write(b"set-param name=frame value=literal\ninit\n")
    await until("ready")
    writer.write((hg.format_level(Limit(depth=depth)) + "\n").encode())
    pos = hg.format_line("pos", [("pos", hg.format_position(Board(FEN), "literal"))])
    start = time.perf_counter()
    for _ in range(moves):
        writer.write((pos + "\ngo think\n").encode())
        await until("done")
    writer.close()
    return time.perf_counter() - start


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--moves", type=int, default=2000)
    p.add_argument("--depth", type=int, default=1)
    p.add_argument("--search-processes", type=int, default=None,
                   help="the server's --search-processes (default: its own; 0: threads)")
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        port_file = Path(tmp) / "ports.json"
        cmd = [sys.executable, "-m", "samuel.cli", "serve", "--dxp-port", "0", "--cb-port", "0",
               "--hub-port", "0", "--hash", "4", "--port-file", str(port_file), "--log", f"{tmp}/serve.log"]
        if args.search_processes is not None:
            cmd += ["--search-processes", str(args.search_processes)]
        proc = subprocess.Popen(cmd, cwd=ROOT, stdin=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 60
            while not port_file.exists():
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("samuel serve did not start")
                time.sleep(0.05)
            time.sleep(1.0)  # the search processes load their data
            port = json.loads(port_file.read_text())["hub"]
            searching = children(proc.pid) or [proc.pid]
            before, server_before, own_before = sched_counts(searching), cpu_seconds(proc.pid), os.times()
            wall = asyncio.run(play(port, args.moves, args.depth))
            after, server_after, own_after = sched_counts(searching), cpu_seconds(proc.pid), os.times()
        finally:
            proc.terminate()
            proc.wait()

    def per_move(seconds: float) -> str:
        return f"{seconds / args.moves * 1e6:.0f} us"

    processes = searching != [proc.pid]
    client = own_after.user + own_after.system - own_before.user - own_before.system
    print(f"{args.moves} moves at depth {args.depth}, "
          + (f"{len(searching)} search processes" if processes else "searches on the server's threads"))
    print(f"wall per move {per_move(wall)}; this client {per_move(client)}")
    print(f"searching threads {per_move(after['run'] - before['run'])} "
          f"(their main threads {per_move(after['main'] - before['main'])}: "
          + ("the reading threads)" if processes else "the event loop)"))
    if processes:
        print(f"server process {per_move(server_after - server_before)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
