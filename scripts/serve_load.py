#!/usr/bin/env python3
"""Load check of the server: concurrent cb, Hub and DXP clients playing whole games, with memory figures.

    .venv/bin/python scripts/serve_load.py [--clients 32] [--dialects cb,hub,dxp] [--movetime 0.05]
                                           [--hash 4] [--hash-budget MB] [--repeat K] [--max-plies 300]
                                           [--pace S] [--duration S] [--search-processes N]
                                           [--search-priority P]
                                           [--server-log FILE] [--server-log-level L]

It starts ``samuel serve`` (DXP, cb and Hub on free loopback ports), then opens
``--clients`` TCP connections at once, spread over the dialects in turn.  Each
plays one game from its own ACF three-move ballot:

* cb: before every move ``set gamehist`` and ``getmove`` with an exact move time;
  a ``ping`` is sent while the search runs and the ``pong`` timed;
* Hub: ``pos`` with the whole game so far (as GUIs send it), ``level
  move-time``, ``go think``, and the same timed ``ping``;
* DXP: the server is the follower and plays one side at ``--movetime``; this
  client plays the other side with random legal moves.  DXP has no ping, so the
  figure reported is the server's reply time: from our MOVE to its MOVE, which
  includes the move time.

Every move the server returns is checked legal on a local Board, and the board
referees (no move loses, repetition and the 40-move rule draw; a game still
going after ``--max-plies`` counts as unfinished).  The server's resident memory
(VmRSS) is read before the clients connect, every 0.2 s during the load (the
peak is reported) and after they have all gone; ``--repeat K`` runs the load K
times on one server and reports memory and threads after each round, to show
that nothing grows from one round to the next.

A separate process (the *probe*) pings the server over one idle cb connection
every 10 ms while the games play: its round trips never wait behind this
script's own event loop, which is busy with 32 games.  Hub games also report
the nodes of each searched move, and their sum over the load's seconds; with
``--pace S`` the cb and Hub clients ask for a move every S seconds (random
phase), so every game searches the same share of the time and nodes a move
compare fairly between server set-ups; with ``--duration S`` as well, every
client plays game after game for S seconds, so as many games search at the end
as at the start (without it, games that end early leave fewer searching).  Hub
games also give each search's own speed (the nodes and time of its last info
line) and the move time from ``go think`` to ``done``.  ``--search-processes``
and ``--search-priority`` are passed to the server; memory and threads are
summed over the server and its search processes, and CPU seconds over the load
are given for the server, its search processes, this script and the idle cores.

It prints a table per dialect and writes every figure as JSON (``--out``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.board import Board  # noqa: E402
from engine.errors import SamuelError  # noqa: E402
from engine.limits import Limit  # noqa: E402
from engine.types import BLACK, WHITE  # noqa: E402
from matches.openings import read_ballots  # noqa: E402
from protocol import dxp_grammar as dg  # noqa: E402
from protocol import hub_grammar as hg  # noqa: E402
from protocol.cb_grammar import MoveLine, Pong, format_getmove, parse_engine_line  # noqa: E402

DIALECTS = ("cb", "hub", "dxp")
SETTLE_S = 3.0
"""Seconds after the last client closed before the 'after' memory is read."""
DXP_GAP = 0.1
"""The server leaves this long between its DXP messages (protocol/dxp_session.py MESSAGE_GAP)."""


@dataclass
class GameReport:
    client: int
    dialect: str
    ballot: str
    result: str = "*"
    plies: int = 0
    illegal: list[str] = field(default_factory=list)
    latency_ms: list[float] = field(default_factory=list)
    """Ping round trips (cb, Hub) or move reply times (DXP)."""
    mid_search_ms: list[float] = field(default_factory=list)
    """Pings answered while the search was still running (cb, Hub)."""
    nodes: list[int] = field(default_factory=list)
    """Nodes of each searched move (Hub: its last info line), to compare search speed per game."""
    search_s: list[float] = field(default_factory=list)
    """Hub: the time of the same info line (the search's own clock), so nodes per second compare
    even where one set-up lets its searches run longer than another."""
    move_ms: list[float] = field(default_factory=list)
    """Hub: from ``go think`` sent to ``done`` received, per move (the move time kept, or overrun)."""
    error: str = ""


class Lines:
    """A newline-framed connection (cb and Hub)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, timeout: float) -> None:
        self.reader, self.writer, self.timeout = reader, writer, timeout

    async def send(self, line: str) -> None:
        self.writer.write(line.encode() + b"\n")
        await self.writer.drain()

    async def next(self) -> str:
        raw = await asyncio.wait_for(self.reader.readline(), self.timeout)
        if not raw:
            raise ConnectionError("server closed the connection")
        return raw.decode().rstrip("\n")

    async def until(self, prefix: str) -> str:
        while not (line := await self.next()).startswith(prefix):
            pass
        return line


def _move_or_illegal(board: Board, text: str, report: GameReport, parse: Callable[[str], object]) -> bool:
    try:
        board.push(parse(text))  # type: ignore[arg-type]
    except (SamuelError, ValueError) as exc:
        report.illegal.append(f"{text}: {exc}")
        return False
    report.plies += 1
    return True


async def play_cb(report: GameReport, port: int, fen: str, args: argparse.Namespace) -> None:
    board = Board(fen)
    initial = board.fen()
    c = Lines(*await asyncio.open_connection("127.0.0.1", port), timeout=60 + 20 * args.movetime)
    pace = Pace(args.pace, random.Random(report.client))
    try:
        while board.outcome() is None and report.plies < args.max_plies and not over(args):
            moves = " ".join(m.long for m in board.move_stack)
            await c.send(f"set gamehist {initial} {moves}".rstrip())
            await c.until("reply")
            await pace.wait()
            await c.send(format_getmove(board.fen(), Limit(movetime=args.movetime)))
            await asyncio.sleep(args.movetime * 0.3)
            ping_at = time.perf_counter()
            await c.send("ping")
            moved = ponged = False
            while not (moved and ponged):
                line = parse_engine_line(await c.next())
                if isinstance(line, Pong):
                    ms = (time.perf_counter() - ping_at) * 1000
                    report.latency_ms.append(ms)
                    if not moved:
                        report.mid_search_ms.append(ms)
                    ponged = True
                elif isinstance(line, MoveLine):
                    if not _move_or_illegal(board, line.move, report, board.parse_move):
                        return
                    moved = True
        report.result = board.result()
        await c.send("quit")
    finally:
        c.writer.close()


class Pace:
    """With ``--pace S``, a client asks for a move only every S seconds: every game then searches
    the same share of the time whatever the server's overhead, so nodes a move compare fairly
    between server set-ups (without it, a server that answers faster gets more searches at once)."""

    def __init__(self, period: float, rng: random.Random) -> None:
        self.period = period
        # A random phase each: clients that all began at once would otherwise search in bursts.
        self.next = time.perf_counter() + rng.uniform(0, period)

    async def wait(self) -> None:
        if self.period <= 0:
            return
        now = time.perf_counter()
        if now < self.next:
            await asyncio.sleep(self.next - now)
        self.next = max(self.next + self.period, time.perf_counter())


async def play_hub(report: GameReport, port: int, fen: str, args: argparse.Namespace) -> None:
    board = Board(fen)
    start = hg.format_position(Board(fen), "literal")
    c = Lines(*await asyncio.open_connection("127.0.0.1", port), timeout=60 + 20 * args.movetime)
    try:
        await c.send("hub")
        await c.until("wait")
        await c.send("set-param name=frame value=literal")
        await c.send("init")
        await c.until("ready")
        await c.send(hg.format_level(Limit(movetime=args.movetime)))
        pace = Pace(args.pace, random.Random(report.client))
        while board.outcome() is None and report.plies < args.max_plies and not over(args):
            moves = " ".join(hg.format_move(m) for m in board.move_stack)
            pos = hg.format_line("pos", [("pos", start), ("moves", moves)] if moves else [("pos", start)],
                                 always_quote=["moves"])
            await c.send(pos)
            await pace.wait()
            await c.send("go think")
            go_at = time.perf_counter()
            await asyncio.sleep(args.movetime * 0.3)
            ping_at = time.perf_counter()
            await c.send("ping")
            moved = ponged = False
            last_nodes, last_time = 0, 0.0
            while not (moved and ponged):
                text = await c.next()
                if text == "pong":
                    ms = (time.perf_counter() - ping_at) * 1000
                    report.latency_ms.append(ms)
                    if not moved:
                        report.mid_search_ms.append(ms)
                    ponged = True
                elif text.startswith("info"):
                    info = hg.tokenize(text)
                    if info is not None and info.args.get("nodes"):
                        last_nodes = int(info.require("nodes"))
                        last_time = float(info.args.get("time", "0"))
                elif text.startswith("done"):
                    report.move_ms.append((time.perf_counter() - go_at) * 1000)
                    if last_nodes:
                        report.nodes.append(last_nodes)
                        report.search_s.append(last_time)
                    line = hg.tokenize(text)
                    assert line is not None
                    if not _move_or_illegal(board, line.require("move"), report,
                                            lambda t: hg.parse_move(board, t)):
                        return
                    moved = True
                elif text.startswith("error"):
                    raise ConnectionError(f"server error: {text}")
        report.result = board.result()
        await c.send("quit")
    finally:
        c.writer.close()


async def play_dxp(report: GameReport, port: int, fen: str, args: argparse.Namespace) -> None:
    board = Board(fen)
    rng = random.Random(report.client)
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    timeout = 60 + 20 * args.movetime

    async def send(msg: dg.Message) -> None:
        writer.write(dg.format_message(msg).encode("ascii") + b"\0")
        await writer.drain()

    async def receive() -> dg.Message:
        while True:
            raw = await asyncio.wait_for(reader.readuntil(b"\0"), timeout)
            msg = dg.parse_message(dg.decode_frame(raw[:-1]))
            if not isinstance(msg, dg.Chat):
                return msg

    server_colour = WHITE if report.client % 2 else BLACK
    try:
        await send(dg.GameReq("serve_load", server_colour, 0, 0, dg.position_of(board, "literal")))
        acc = await receive()
        if not isinstance(acc, dg.GameAcc) or acc.code != dg.ACCEPT:
            raise ConnectionError(f"game not accepted: {acc}")
        sent_at = time.perf_counter()
        while board.outcome() is None and report.plies < args.max_plies and not over(args):
            if board.turn != server_colour:
                move = rng.choice(board.legal_moves)
                board.push(move)
                await asyncio.sleep(DXP_GAP)  # the server's own message gap would be counted otherwise
                sent_at = time.perf_counter()
                await send(dg.move_message(move))
                continue
            msg = await receive()
            if isinstance(msg, dg.GameEnd):
                break
            if not isinstance(msg, dg.MoveMsg):
                raise ConnectionError(f"expected a MOVE, got {msg}")
            report.latency_ms.append((time.perf_counter() - sent_at) * 1000)
            if not _move_or_illegal(board, "", report, lambda _t, m=msg: dg.find_move(board, m)):
                return
        report.result = board.result()
        await send(dg.GameEnd(dg.REASON_NONE, dg.STOP_ALL))
        with_end = await receive()
        if not isinstance(with_end, dg.GameEnd):
            raise ConnectionError(f"expected GAMEEND, got {with_end}")
    finally:
        writer.close()


PLAYERS: dict[str, Callable[[GameReport, int, str, argparse.Namespace], Awaitable[None]]] = {
    "cb": play_cb, "hub": play_hub, "dxp": play_dxp,
}


def over(args: argparse.Namespace) -> bool:
    """With ``--duration``, whether the round's time is up (games still going stop, unfinished)."""
    return args.deadline is not None and time.perf_counter() >= args.deadline


async def play_one(index: int, dialect: str, port: int, ballots: list[tuple[str, str]],
                   args: argparse.Namespace) -> list[GameReport]:
    """One client's games: one, or with ``--duration`` one after another (the next ballot each
    time) until the time is up, so that as many games search at the end of the load as at its start."""
    reports: list[GameReport] = []
    k = index
    while True:
        ballot = ballots[k % len(ballots)]
        report = GameReport(index, dialect, ballot[0])
        reports.append(report)
        try:
            await PLAYERS[dialect](report, port, ballot[1], args)
        except (OSError, ConnectionError, asyncio.TimeoutError, asyncio.IncompleteReadError, SamuelError,
                ValueError) as exc:
            report.error = f"{type(exc).__name__}: {exc}"
            return reports
        if args.deadline is None or over(args):
            return reports
        k += args.clients


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[k]


def proc_status(pid: int) -> dict[str, int]:
    """VmRSS (kB) and Threads of a process, from /proc (empty where there is no /proc)."""
    out: dict[str, int] = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("VmRSS", "Threads"):
                out[key] = int(value.split()[0])
    except OSError:
        pass
    return out


def children(pid: int) -> list[int]:
    """The server's search processes (its direct children), from /proc."""
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(t) for t in text.split()]


def tree_status(pid: int) -> dict[str, int]:
    """VmRSS and Threads summed over the server and its search processes, and how many there are."""
    total = {"VmRSS": 0, "Threads": 0, "Processes": 0}
    for p in [pid, *children(pid)]:
        st = proc_status(p)
        if st:
            total["VmRSS"] += st.get("VmRSS", 0)
            total["Threads"] += st.get("Threads", 0)
            total["Processes"] += 1
    return total


TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def cpu_seconds(pid: int, *, system_only: bool = False) -> float:
    """User plus system CPU a process (all its threads) has used, or only the system (kernel) part,
    from /proc (0 where there is none)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0.0
    user, system = int(fields[11]), int(fields[12])  # utime and stime, fields 14 and 15 of stat
    return (system if system_only else user + system) / TICK


def machine_cpu() -> dict[str, float]:
    """Seconds every core together spent busy, idle and stolen by the hypervisor, from /proc/stat."""
    try:
        first = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    except OSError:
        return {}
    t = [int(x) / TICK for x in first]
    idle = t[3] + t[4]
    steal = t[7] if len(t) > 7 else 0.0
    return {"busy": sum(t[:8]) - idle - steal, "idle": idle, "steal": steal}


def sched_counts(pids: list[int]) -> dict[str, float]:
    """Over every thread of ``pids``: seconds run and waited for a core, how many times a thread was
    put on a core, and how many times one was taken off it against its will (preempted), from
    /proc/PID/task/TID/schedstat and status.  Threads that ended before the reading are missing."""
    run = wait = slices = preempted = main = 0
    for pid in pids:
        try:
            tids = [t.name for t in Path(f"/proc/{pid}/task").iterdir()]
        except OSError:
            continue
        for tid in tids:
            base = Path(f"/proc/{pid}/task/{tid}")
            try:
                r, w, n = (int(x) for x in (base / "schedstat").read_text().split()[:3])
                status = (base / "status").read_text()
            except (OSError, ValueError):
                continue
            run, wait, slices = run + r, wait + w, slices + n
            if tid == str(pid):
                main += r
            for line in status.splitlines():
                if line.startswith("nonvoluntary_ctxt_switches:"):
                    preempted += int(line.split()[1])
    return {"run": run / 1e9, "wait": wait / 1e9, "slices": slices, "preempted": preempted,
            "main": main / 1e9}


class CpuUse:
    """Where the CPU went during the load: the server's event loop, its search processes, this
    load generator (with its probe), what was left idle and what the hypervisor took.  Counted
    from before the clients connect to after the last round settles, so the idle cores include
    a few seconds outside the load."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.start = self._sample()

    def _sample(self) -> dict[str, float]:
        kids = children(self.pid)
        own = os.times()
        searching = {f"search_{k}": v for k, v in sched_counts(kids or [self.pid]).items()}
        return {"server": cpu_seconds(self.pid), "search": sum(cpu_seconds(c) for c in kids), **searching,
                "search_system": sum(cpu_seconds(c, system_only=True) for c in kids or [self.pid]),
                "load": own.user + own.system + own.children_user + own.children_system,
                **machine_cpu()}

    def since_start(self) -> dict[str, float]:
        now = self._sample()
        return {k: round(now[k] - self.start.get(k, 0.0), 2) for k in now}


def rss_mb(pid: int) -> float:
    return tree_status(pid).get("VmRSS", 0) / 1024


def start_server(tmp: Path, args: argparse.Namespace) -> tuple[subprocess.Popen[bytes], dict[str, int]]:
    port_file = tmp / "ports.json"
    cmd = [sys.executable, "-m", "samuel.cli", "serve", "--dxp-port", "0", "--cb-port", "0",
           "--hub-port", "0", "--hash", str(args.hash), "--dxp-movetime", str(args.movetime),
           "--max-sessions", str(args.clients + 8), "--port-file", str(port_file),
           "--log", args.server_log or str(tmp / "serve.log"), "--log-level", args.server_log_level]
    if args.search_processes is not None:
        cmd += ["--search-processes", str(args.search_processes)]
    if args.search_priority:
        cmd += ["--search-priority", args.search_priority]
    if args.hash_budget:
        cmd += ["--hash-budget", str(args.hash_budget)]
    if args.deadline_margin is not None:
        cmd += ["--deadline-margin", str(args.deadline_margin)]
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, cwd=ROOT)
    deadline = time.monotonic() + 60
    while not port_file.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise SystemExit("samuel serve did not start")
        time.sleep(0.05)
    return proc, json.loads(port_file.read_text())


PROBE_INTERVAL = 0.01
"""Seconds between the probe's pings."""
MEASURES = {"dxp": "move reply", "probe": "ping, idle", "playnow": "playnow to move"}
PLAYNOW_INTERVAL = 0.2
"""Seconds between the probe's playnow checks."""
PLAYNOW_FEN = "B:W19,21,22,24,25,27,28,31:B1,2,4,6,7,9,11,13"
"""A middle game no book holds, so the engine searches."""


def run_probe(port: int, stop: Any, out: Any) -> None:
    """In a process of its own: ping the server over one idle cb connection every 10 ms until
    ``stop`` is set, and send the round trips (ms) through ``out``.  Unlike the pings of the
    playing clients, these never wait behind the load generator's own event loop."""
    async def pings() -> list[float]:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        times: list[float] = []
        while not stop.is_set():
            t = time.perf_counter()
            writer.write(b"ping\n")
            await writer.drain()
            while (await asyncio.wait_for(reader.readline(), 30)).strip() != b"pong":
                pass
            times.append((time.perf_counter() - t) * 1000)
            await asyncio.sleep(PROBE_INTERVAL)
        writer.close()
        return times

    async def playnows() -> list[float]:
        """A 60 s search, cut short 30 ms in by ``playnow``: the time from playnow to the move."""
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        times: list[float] = []
        line = format_getmove(PLAYNOW_FEN, Limit(movetime=60.0)) + "\n"
        while not stop.is_set():
            writer.write(line.encode())
            await writer.drain()
            await asyncio.sleep(0.03)
            t = time.perf_counter()
            writer.write(b"playnow\n")
            await writer.drain()
            while not (await asyncio.wait_for(reader.readline(), 90)).startswith(b"move"):
                pass
            times.append((time.perf_counter() - t) * 1000)
            await asyncio.sleep(PLAYNOW_INTERVAL)
        writer.close()
        return times

    async def main() -> tuple[list[float], list[float]]:
        a, b = await asyncio.gather(pings(), playnows())
        return a, b

    out.send(asyncio.run(main()))


async def one_round(args: argparse.Namespace, ports: dict[str, int], pid: int,
                    ballots: list[tuple[str, str]]) -> tuple[list[GameReport], float]:
    """All clients at once; returns their reports and the peak RSS (MB) seen meanwhile."""
    peak = rss_mb(pid)
    done = asyncio.Event()

    async def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, rss_mb(pid))
            await asyncio.sleep(0.2)

    sampler = asyncio.create_task(sample())
    ctx = multiprocessing.get_context("spawn")
    stop = ctx.Event()
    receive, send = ctx.Pipe(duplex=False)
    probe = ctx.Process(target=run_probe, args=(ports["cb"], stop, send), daemon=True)
    probe.start()
    args.deadline = time.perf_counter() + args.duration if args.duration > 0 else None
    games = [play_one(i, d, ports[d], ballots, args)
             for i, d in enumerate(args.dialects[i % len(args.dialects)] for i in range(args.clients))]
    reports = [r for client in await asyncio.gather(*games) for r in client]
    done.set()
    await sampler
    stop.set()
    probe_report = GameReport(client=-1, dialect="probe", ballot="")
    playnow_report = GameReport(client=-2, dialect="playnow", ballot="")
    if await asyncio.to_thread(receive.poll, 120):
        probe_report.latency_ms, playnow_report.latency_ms = receive.recv()
    probe.join(10)
    return [*reports, probe_report, playnow_report], peak


def summarize(reports: list[GameReport], dialect: str) -> dict[str, object]:
    rs = [r for r in reports if r.dialect == dialect]
    lat = [x for r in rs for x in r.latency_ms]
    mid = [x for r in rs for x in r.mid_search_ms]
    nodes = [x for r in rs for x in r.nodes]
    moves = [x for r in rs for x in r.move_ms]
    searched = sum(x for r in rs for x in r.search_s)
    return {
        "games": len(rs),
        "finished": sum(1 for r in rs if r.result != "*" and not r.error and not r.illegal),
        "moves": sum(r.plies for r in rs),
        "illegal": sum(len(r.illegal) for r in rs),
        "errors": [f"{dialect} client {r.client}: {r.error}" for r in rs if r.error],
        "measure": MEASURES.get(dialect, "ping"),
        "n": len(lat), "p50": percentile(lat, 0.5), "p99": percentile(lat, 0.99),
        "max": max(lat, default=float("nan")), "mean": statistics.fmean(lat) if lat else float("nan"),
        "mid_search_p50": percentile(mid, 0.5), "mid_search_p99": percentile(mid, 0.99),
        "nodes_per_move": statistics.fmean(nodes) if nodes else float("nan"),
        "nodes_per_search_s": sum(nodes) / searched if searched else float("nan"),
        "move_ms_p50": percentile(moves, 0.5), "move_ms_p99": percentile(moves, 0.99),
        "move_ms_max": max(moves, default=float("nan")),
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--clients", type=int, default=32, help="clients per round, over all dialects")
    p.add_argument("--dialects", default="cb,hub,dxp", help="comma-separated, from cb, hub, dxp")
    p.add_argument("--movetime", type=float, default=0.05)
    p.add_argument("--max-plies", type=int, default=300)
    p.add_argument("--hash", type=int, default=4, help="table per session, MB")
    p.add_argument("--hash-budget", type=int, default=0, help="the server's --hash-budget (0: its default)")
    p.add_argument("--repeat", type=int, default=1, help="rounds of the whole load on one server")
    p.add_argument("--idle-wait", type=float, default=35.0,
                   help="seconds idle after the last round before the final memory and threads "
                        "(idle search threads retire after 30 s)")
    p.add_argument("--pace", type=float, default=0.0, metavar="S",
                   help="cb and Hub clients ask for a move every S seconds at most (0: as soon as they can)")
    p.add_argument("--duration", type=float, default=0.0, metavar="S",
                   help="every client plays game after game for S seconds (0: one game each); with "
                        "--pace the number of games searching at once then stays the same to the end")
    p.add_argument("--search-processes", type=int, default=None,
                   help="the server's --search-processes (default: its own, one per core; 0: threads)")
    p.add_argument("--search-priority", default="", help="the server's --search-priority (default: its own)")
    p.add_argument("--deadline-margin", type=float, default=None,
                   help="the server's --deadline-margin (default: its own)")
    p.add_argument("--server-log", default="", help="keep the server's log in this file")
    p.add_argument("--server-log-level", default="warning")
    p.add_argument("--out", default=str(ROOT / "out" / "serve-load.json"))
    args = p.parse_args()
    args.dialects = [d.strip() for d in args.dialects.split(",") if d.strip()]
    if not args.dialects or any(d not in DIALECTS for d in args.dialects):
        p.error(f"--dialects must name some of {', '.join(DIALECTS)}")
    ballots = [(o.label, o.fen) for o in read_ballots()]

    rounds: list[dict[str, object]] = []
    all_reports: list[GameReport] = []
    with tempfile.TemporaryDirectory() as tmpdir:
        proc, ports = start_server(Path(tmpdir), args)
        pid = proc.pid
        time.sleep(0.5)
        before = rss_mb(pid)
        t0 = time.perf_counter()
        load_s = 0.0
        cpu = CpuUse(pid)
        try:
            for k in range(args.repeat):
                started = time.perf_counter()
                reports, peak = asyncio.run(one_round(args, ports, pid, ballots))
                load_s += time.perf_counter() - started
                time.sleep(SETTLE_S)
                status = tree_status(pid)
                rounds.append({"round": k + 1, "peak_rss_mb": round(peak, 1),
                               "after_rss_mb": round(status.get("VmRSS", 0) / 1024, 1),
                               "threads_after": status.get("Threads", 0)})
                all_reports += reports
            cpu_use = cpu.since_start()
            time.sleep(max(0.0, args.idle_wait - SETTLE_S))
            idle = tree_status(pid)
        finally:
            proc.terminate()
            proc.wait(30)
        wall = time.perf_counter() - t0

    per_dialect = {d: summarize(all_reports, d) for d in [*args.dialects, "probe", "playnow"]}
    summary = {
        "clients": args.clients, "dialects": args.dialects, "movetime": args.movetime, "pace": args.pace,
        "hash_mb": args.hash,
        "rounds": args.repeat, "cores": os.cpu_count(), "wall_s": round(wall, 1),
        "rss_before_mb": round(before, 1), "per_round": rounds, "per_dialect": per_dialect,
        "idle_after_s": args.idle_wait, "idle_rss_mb": round(idle.get("VmRSS", 0) / 1024, 1),
        "idle_threads": idle.get("Threads", 0), "search_processes": idle.get("Processes", 1) - 1,
        "cpu_s": cpu_use,
    }
    paced = f", a move every {args.pace:g} s" if args.pace > 0 else ""
    print(f"{args.clients} clients ({', '.join(args.dialects)}) at {args.movetime} s/move{paced}, "
          f"hash {args.hash} MB, {args.repeat} round(s), {os.cpu_count()} cores, "
          f"{summary['search_processes']} search processes, {wall:.1f} s")
    print(f"{'dialect':8} {'games':>7} {'finished':>8} {'moves':>6} {'illegal':>7}  "
          f"{'measure':15} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    errors: list[str] = []
    for d, s in per_dialect.items():
        print(f"{d:8} {s['games']:>7} {s['finished']:>8} {s['moves']:>6} {s['illegal']:>7}  "
              f"{s['measure']:15} {s['p50']:8.2f} {s['p99']:8.2f} {s['max']:8.2f}")
        errors += s["errors"]  # type: ignore[arg-type]
    print("(probe: a separate process pinging over one idle cb connection every "
          f"{PROBE_INTERVAL * 1000:g} ms while the games play; playnow: on another, a 60 s getmove cut "
          f"short by playnow 30 ms in, every {PLAYNOW_INTERVAL * 1000:g} ms)")
    if "hub" in per_dialect:
        hub_nodes = sum(sum(r.nodes) for r in all_reports if r.dialect == "hub")
        summary["hub_nodes_per_s"] = hub_nodes / load_s if load_s else float("nan")
        print(f"search speed (Hub games): {per_dialect['hub']['nodes_per_move']:,.0f} nodes a move "
              f"at {args.movetime * 1000:g} ms; all their searches together "
              f"{summary['hub_nodes_per_s'] / 1e6:.2f} M nodes/s over {load_s:.1f} s of load")
        hub = per_dialect["hub"]
        print(f"each Hub search by its own clock: {hub['nodes_per_search_s'] / 1e6:.3f} M nodes/s "
              "(the nodes and time of its last info line)")
        print(f"Hub move time (go think to done, at {args.movetime * 1000:g} ms): "
              f"p50 {hub['move_ms_p50']:.1f}, p99 {hub['move_ms_p99']:.1f}, max {hub['move_ms_max']:.1f} ms")
    if cpu_use:
        searching = "search processes" if summary["search_processes"] else "server (with its searches)"
        search_cpu = cpu_use["search"] if summary["search_processes"] else cpu_use["server"]
        print(f"CPU seconds over the load: {searching} {search_cpu:.1f}"
              + (f", server {cpu_use['server']:.1f}" if summary["search_processes"] else "")
              + f", this load generator {cpu_use['load']:.1f}; every core together: busy "
              f"{cpu_use.get('busy', 0):.1f}, idle {cpu_use.get('idle', 0):.1f}, "
              f"stolen {cpu_use.get('steal', 0):.1f}")
        slices = cpu_use.get("search_slices", 0)
        if slices:
            print(f"threads of the {searching}: {slices:,.0f} turns on a core, "
                  f"{cpu_use['search_run'] / slices * 1000:.2f} ms each on average, "
                  f"{cpu_use['search_preempted']:,.0f} preempted; "
                  f"{cpu_use['search_wait']:.1f} s waited for a core; main threads ran "
                  f"{cpu_use['search_main']:.1f} s of their {cpu_use['search_run']:.1f} s, the kernel "
                  f"{cpu_use['search_system']:.1f} s")
        # The search threads alone (without the event loop or the reading threads, the main threads
        # of either set-up), so the figure compares between set-ups.
        searching_s = cpu_use.get("search_run", 0) - cpu_use.get("search_main", 0)
        if "hub" in per_dialect and searching_s > 0 and len(args.dialects) == 1:
            print(f"Hub nodes per CPU second of the search threads: {hub_nodes / searching_s / 1e6:.2f} M")
    if "dxp" in per_dialect:
        print(f"(DXP has no ping: its figure is the time from our MOVE to the server's, "
              f"which includes the {args.movetime * 1000:g} ms move time)")
    print(f"server RSS (with its search processes): before {before:.1f} MB", end="")
    for r in rounds:
        print(f"; round {r['round']}: peak {r['peak_rss_mb']} MB, after {r['after_rss_mb']} MB, "
              f"{r['threads_after']} threads", end="")
    print()
    print(f"idle {args.idle_wait:g} s after the last round: RSS {summary['idle_rss_mb']} MB, "
          f"{summary['idle_threads']} threads")
    for e in errors:
        print("error:", e)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({**summary, "games": [asdict(r) for r in all_reports]}, indent=1))
    print(f"wrote {out}")
    illegal = sum(int(s["illegal"]) for s in per_dialect.values())  # type: ignore[call-overload]
    return 0 if not illegal and not errors else 1


if __name__ == "__main__":
    sys.exit(main())
