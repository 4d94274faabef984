"""The multi-dialect server: session limits, isolation, start-up and shutdown."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from serving import SAMUEL, serve_process, until

from engine.options import OptionValues
from protocol.context import ServerSettings
from protocol.server import Server
from protocol.session_engine import SessionDefaults


def settings(**kw: object) -> ServerSettings:
    base: dict[str, object] = {
        "dxp_port": 0, "cb_port": 0, "defaults": SessionDefaults(options=OptionValues(hash=1)),
        "dxp_movetime": 0.02,
    }
    base.update(kw)
    return ServerSettings(**base)  # type: ignore[arg-type]


@asynccontextmanager
async def running(s: ServerSettings, **kw: object) -> AsyncIterator[Server]:
    server = Server(s, **kw)  # type: ignore[arg-type]
    await server.start()
    try:
        yield server
    finally:
        await server.close()


async def line_client(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_connection("127.0.0.1", port)


async def ask(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, line: str,
              want: str, timeout: float = 30.0) -> str:
    """Send ``line``; return the first reply line starting with ``want`` (others skipped)."""
    writer.write(line.encode() + b"\n")
    await writer.drain()
    while True:
        raw = await asyncio.wait_for(reader.readline(), timeout)
        assert raw, f"connection closed while waiting for {want!r}"
        text = raw.decode().strip()
        if text.startswith(want):
            return text


def test_ping_on_cb_and_chat_on_dxp() -> None:
    async def main() -> None:
        async with running(settings()) as server:
            assert set(server.ports) == {"dxp", "cb"}
            r, w = await line_client(server.ports["cb"])
            assert await ask(r, w, "ping", "pong") == "pong"
            w.close()
            _r2, w2 = await line_client(server.ports["dxp"])
            w2.write(b"CHello there\0")
            await w2.drain()
            w2.close()

    asyncio.run(main())


def test_sessions_beyond_the_limit_are_refused_and_the_others_go_on() -> None:
    async def main() -> None:
        async with running(settings(max_sessions=2)) as server:
            port = server.ports["cb"]
            a = await line_client(port)
            b = await line_client(port)
            assert await ask(*a, "ping", "pong") == "pong"
            assert await ask(*b, "ping", "pong") == "pong"
            r3, _w3 = await line_client(port)
            refusal = (await asyncio.wait_for(r3.readline(), 10)).decode()
            assert refusal.startswith("error") and "server full" in refusal
            assert await asyncio.wait_for(r3.read(), 10) == b""  # and closed
            assert server.sessions_refused == 1
            assert await ask(*a, "ping", "pong") == "pong"
            dr, _dw = await line_client(server.ports["dxp"])
            refusal = await asyncio.wait_for(dr.readuntil(b"\0"), 10)
            assert refusal.startswith(b"C") and b"server full" in refusal
            a[1].close()
            await asyncio.sleep(0.2)
            c = await line_client(port)  # a slot came free
            assert await ask(*c, "ping", "pong") == "pong"

    asyncio.run(main())


def test_a_client_that_vanishes_mid_search_harms_no_one() -> None:
    async def main() -> None:
        async with running(settings()) as server:
            port = server.ports["cb"]
            _r1, w1 = await line_client(port)
            r2, w2 = await line_client(port)
            w1.write(b"getmove B:W21-32:B1-12 30\n")  # a long search, then the client is gone
            await w1.drain()
            await asyncio.sleep(0.2)
            w1.transport.abort()
            for _ in range(3):
                assert await ask(r2, w2, "ping", "pong") == "pong"
            await asyncio.sleep(0.5)
            assert server.active_sessions == 1

    asyncio.run(main())


def test_idle_clients_are_closed() -> None:
    async def main() -> None:
        async with running(settings(idle_timeout=0.5)) as server:
            r, _w = await line_client(server.ports["cb"])
            data = await asyncio.wait_for(r.read(), 20)
            assert b"idle" in data.lower()

    asyncio.run(main())


def test_samuel_serve_starts_answers_and_stops_on_sigterm(tmp_path: Path) -> None:
    with serve_process(tmp_path) as (proc, ports):
        with socket.create_connection(("127.0.0.1", ports["cb"]), timeout=20) as s:
            s.sendall(b"ping\n")
            assert s.makefile().readline().strip() == "pong"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
        assert proc.stdout is not None and proc.stdout.read() == b""  # nothing on stdout, ever
    log = (tmp_path / "serve.log").read_text()
    assert "listening for cb" in log and "stopped after" in log


def test_samuel_serve_reports_a_busy_port(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        busy = s.getsockname()[1]
        r = subprocess.run([*SAMUEL, "serve", "--cb-port", str(busy), "--dxp-port", "0",
                            "--log", str(tmp_path / "l")],
                           capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert r.returncode == 2
    assert f"cannot listen for cb on 127.0.0.1:{busy}" in r.stderr


def test_serve_with_nothing_to_serve_is_an_error() -> None:
    r = subprocess.run([*SAMUEL, "serve", "--no-dxp", "--no-cb"], capture_output=True, text=True,
                       timeout=60, stdin=subprocess.DEVNULL)
    assert r.returncode == 2 and "nothing to serve" in r.stderr


@pytest.mark.skipif(not hasattr(os, "killpg"), reason="POSIX only")
def test_hub_over_tcp_when_asked(tmp_path: Path) -> None:
    async def main() -> None:
        async with running(settings(), hub_port=0, dxp=False, cb=False) as server:
            r, w = await line_client(server.ports["hub"])
            assert await ask(r, w, "hub", "wait") == "wait"
            assert await ask(r, w, "ping", "pong") == "pong"

    asyncio.run(main())


def test_junk_on_every_port_leaves_the_server_serving() -> None:
    """Random bytes (oversized, invalid UTF-8, NULs, half lines) at each dialect, then a clean client."""
    import random

    rng = random.Random(1959)
    blobs = [
        b"\xff\xfe\xfa\n",
        b"x" * 10_000 + b"\n",
        b"\0" * 300,
        b"getmove\n",
        b"R01" + b"\xff" * 100 + b"\0",
        b"M0000111500\0",
        b"E00\0",
        b"hub\npos pos=Qxx\ngo think\n",
        bytes(rng.randrange(256) for _ in range(5000)),
    ]
    blobs += [bytes(rng.randrange(256) for _ in range(rng.randrange(1, 400))) for _ in range(20)]

    async def pelt(port: int, blob: bytes) -> None:
        try:
            _r, w = await asyncio.open_connection("127.0.0.1", port)
            w.write(blob)
            await w.drain()
            await asyncio.sleep(0.05)
            w.close()
        except (ConnectionError, OSError):
            pass  # the server may hang up on a bad client: that is allowed

    async def main() -> None:
        async with running(settings(), hub_port=0) as server:
            await asyncio.gather(*(pelt(p, b) for p in server.ports.values() for b in blobs))
            # 87 pelters outnumber the 64 sessions allowed; a loaded machine may still be closing theirs
            # when the clean clients come, and a full server rightly refuses them.
            await until(lambda: server.active_sessions == 0)
            r, w = await line_client(server.ports["cb"])
            assert await ask(r, w, "ping", "pong") == "pong"
            hr, hw = await line_client(server.ports["hub"])
            assert await ask(hr, hw, "ping", "pong") == "pong"
            dr, dw = await line_client(server.ports["dxp"])
            dw.write(b"R01tester                          W010000A\0")
            await dw.drain()
            acc = await asyncio.wait_for(dr.readuntil(b"\0"), 20)
            assert acc.startswith(b"A") and acc[33:34] == b"0"

    asyncio.run(main())


def test_our_client_plays_our_server_in_every_dialect_over_tcp(tmp_path: Path) -> None:
    """SimpleEngine over cb, Hub and DXP against one `samuel serve`: whole games, every move legal."""
    import random

    from engine.board import Board
    from engine.limits import Limit
    from engine.types import BLACK
    from protocol.client import SimpleEngine

    with serve_process(tmp_path, "--hub-port", "0", "--dxp-movetime", "0.02") as (_proc, ports):
        openers = {
            "cb": lambda: SimpleEngine.connect_cb("127.0.0.1", ports["cb"]),
            "hub": lambda: SimpleEngine.connect_hub("127.0.0.1", ports["hub"]),
            "dxp": lambda: SimpleEngine.connect_dxp("127.0.0.1", ports["dxp"]),
        }
        for dialect, opener in openers.items():
            rng = random.Random(dialect)
            with opener() as engine:
                board = Board()
                while not board.is_game_over() and len(board.move_stack) < 120:
                    if board.turn == BLACK:  # the engine's side; the other plays at random
                        result = engine.play(board, Limit(movetime=0.02))
                        assert board.is_legal(result.move), (dialect, result.move)
                        board.push(result.move)
                    else:
                        board.push(rng.choice(board.legal_moves))
                assert board.is_game_over() or len(board.move_stack) == 120
