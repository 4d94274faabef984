"""The web server: static pages, the WebSocket handshake and its guards, cb sessions in a tab."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from serving import serve_process, until
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from engine.options import OptionValues
from protocol.context import ServerSettings
from protocol.server import BOARD_PAGES, Server
from protocol.session_engine import SessionDefaults
from protocol.web_server import WebChannel, WebServer, parse_request_head

WAIT = 60.0
"""Seconds to wait for an event that should come at once: only a hang reaches it."""


def settings(**kw: object) -> ServerSettings:
    base: dict[str, object] = {"defaults": SessionDefaults(options=OptionValues(hash=1))}
    base.update(kw)
    return ServerSettings(**base)  # type: ignore[arg-type]


@asynccontextmanager
async def board_server(s: ServerSettings | None = None) -> AsyncIterator[Server]:
    server = Server(s or settings(), dxp=False, cb=False, web_port=0)
    await server.start()
    try:
        yield server
    finally:
        await server.close()


def origin(port: int) -> str:
    return f"http://127.0.0.1:{port}"


async def tab(port: int, **kw: Any) -> ClientConnection:
    """A WebSocket to the board's cb endpoint, as a page served from this server opens it."""
    return await connect(f"ws://127.0.0.1:{port}/cb", origin=origin(port), open_timeout=WAIT,  # type: ignore[arg-type]
                         **kw)


async def ask(ws: ClientConnection, line: str, want: str) -> str:
    """Send one cb line; the first reply that starts with ``want`` (status lines skipped)."""
    await ws.send(line)
    while True:
        text = await asyncio.wait_for(ws.recv(), WAIT)
        assert isinstance(text, str)
        if text.startswith(want):
            return text


async def http(port: int, request: bytes) -> tuple[int, dict[str, str], bytes]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request)
    await writer.drain()
    data = await asyncio.wait_for(reader.read(), WAIT)
    writer.close()
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode().split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (h.partition(":") for h in lines[1:])}
    return int(lines[0].split()[1]), headers, body


def get(path: str, host: str = "127.0.0.1") -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode()


# -- pages --------------------------------------------------------------------------


def test_pages_are_served_with_a_strict_policy_and_stay_small() -> None:
    async def main() -> None:
        async with board_server() as server:
            assert server.web is not None
            port = server.web.port
            total = 0
            for path, name in BOARD_PAGES.items():
                status, headers, body = await http(port, get(path))
                assert status == 200, (path, status, body[:200])
                assert "default-src 'self'" in headers["content-security-policy"]
                assert headers["x-content-type-options"] == "nosniff"
                assert int(headers["content-length"]) == len(body) > 0
                assert headers["content-type"].startswith(
                    {"html": "text/html", "js": "text/javascript", "css": "text/css"}[name.rsplit(".", 1)[1]])
                total += len(body) if path != "/" else 0
            status, _, body = await http(port, get("/"))
            assert b"board.js" in body
            assert total + len(body) < 50 * 1024
            status, headers, body = await http(port, b"HEAD / HTTP/1.1\r\nHost: localhost\r\n\r\n")
            assert status == 200 and body == b"" and int(headers["content-length"]) > 0

    asyncio.run(main())


@pytest.mark.parametrize(("request_bytes", "status", "words"), [
    (get("/nothing-here"), 404, "no page at /nothing-here"),
    (b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 405, "POST is not served"),
    (get("/", host="evil.example:27533"), 403, "'evil.example:27533' is not this loopback server"),
    (b"GET / HTTP/1.1\r\n\r\n", 400, "no Host header"),
    (b"GET / SPDY/9\r\nHost: x\r\n\r\n", 400, "malformed request line"),
    (b"GET http://x/ HTTP/1.1\r\nHost: x\r\n\r\n", 400, "must be a path"),
    (b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Junk: " + b"a" * 20000 + b"\r\n\r\n", 431, "over 16384 bytes"),
])
def test_bad_requests_get_a_status_naming_the_fault(request_bytes: bytes, status: int, words: str) -> None:
    async def main() -> None:
        async with board_server() as server:
            assert server.web is not None
            got, _, body = await http(server.web.port, request_bytes)
            assert got == status and words in body.decode(), body
            # The server goes on serving.
            assert (await http(server.web.port, get("/")))[0] == 200

    asyncio.run(main())


def test_request_head_parser() -> None:
    r = parse_request_head(b"GET /board.js?v=1 HTTP/1.1\r\nHost: localhost:1\r\nOrigin: x\r\n\r\n")
    assert (r.method, r.path) == ("GET", "/board.js")
    assert (r.headers["host"], r.headers["origin"]) == ("localhost:1", "x")


# -- the WebSocket ------------------------------------------------------------------


def test_a_tab_is_a_cb_session() -> None:
    async def main() -> None:
        async with board_server() as server:
            assert server.web is not None
            async with await tab(server.web.port) as ws:
                assert (await ask(ws, "name", "reply")).startswith("reply 1 samuel")
                assert await ask(ws, "ping", "pong") == "pong"
                reply = await ask(ws, "get movelist B:W21-32:B1-12", "reply")
                assert reply.startswith("reply 1 movelist 7,")
                bad = await ask(ws, "getmove B:W21-32:B1-12 nonsense", "error")
                assert bad.startswith("error message=")
                assert (await ask(ws, "get gametype", "reply")) == "reply 1 21"  # the session goes on
                await ws.send("quit")  # the session ends with a closing handshake, not a dropped socket
                with pytest.raises(ConnectionClosed) as info:
                    await asyncio.wait_for(ws.recv(), WAIT)
                assert info.value.rcvd is not None and info.value.rcvd.code == 1000

    asyncio.run(main())


def test_other_origins_and_hosts_are_refused() -> None:
    async def main() -> None:
        async with board_server() as server:
            assert server.web is not None
            port = server.web.port
            for bad in ("http://evil.example", f"http://evil.example:{port}", "null"):
                with pytest.raises(InvalidStatus) as info:
                    await connect(f"ws://127.0.0.1:{port}/cb", origin=bad, open_timeout=WAIT)  # type: ignore[arg-type]
                assert info.value.response.status_code == 403
            # A rebinding name that resolves here is refused by its Host, origin or not.
            with pytest.raises(InvalidStatus) as info:
                await connect(f"ws://127.0.0.1:{port}/cb", origin=f"http://evil.example:{port}",  # type: ignore[arg-type]
                              additional_headers={"Host": f"evil.example:{port}"}, open_timeout=WAIT)
            assert info.value.response.status_code == 403
            # localhost is the same site as 127.0.0.1 here.
            async with await connect(f"ws://127.0.0.1:{port}/cb", origin=f"http://localhost:{port}",  # type: ignore[arg-type]
                                     open_timeout=WAIT) as ws:
                assert await ask(ws, "ping", "pong") == "pong"

    asyncio.run(main())


def test_an_oversized_message_closes_only_its_own_socket() -> None:
    async def main() -> None:
        async with board_server(settings(max_line=1000)) as server:
            assert server.web is not None
            async with await tab(server.web.port) as other, await tab(server.web.port, max_size=None) as ws:
                await ws.send("x" * 1001)
                with pytest.raises(ConnectionClosed) as info:
                    await asyncio.wait_for(ws.recv(), WAIT)
                assert info.value.rcvd is not None and info.value.rcvd.code == 1009
                assert await ask(other, "ping", "pong") == "pong"
                # A message at the limit is a line like any other.
                assert (await ask(other, "x" * 1000, "reply")) == "reply 0 ?"

    asyncio.run(main())


def test_several_lines_in_one_message_are_refused_and_the_session_goes_on() -> None:
    async def main() -> None:
        async with board_server() as server:
            assert server.web is not None
            async with await tab(server.web.port) as ws:
                assert "exactly one line" in await ask(ws, "ping\nname", "error")
                assert await ask(ws, "ping", "pong") == "pong"
                await ws.send(b"\x00\x01")  # a binary message: text lines only
                with pytest.raises(ConnectionClosed) as info:
                    await asyncio.wait_for(ws.recv(), WAIT)
                assert info.value.rcvd is not None and info.value.rcvd.code == 1003

    asyncio.run(main())


def test_a_flood_is_answered_and_closed_without_harming_the_others() -> None:
    async def main() -> None:
        server = Server(settings(), dxp=False, cb=False, web_port=0)
        await server.start()
        assert server.web is not None
        # A tight limit, so the test floods by count: only a machine that took more than a
        # minute to send 100 messages would stay under it.
        server.web.flood_burst, server.web.flood_rate = 20, 1.0
        try:
            async with await tab(server.web.port) as other, await tab(server.web.port) as ws:
                for _ in range(100):
                    await ws.send("get gametype")
                lines = []
                with pytest.raises(ConnectionClosed) as info:
                    while True:
                        lines.append(await asyncio.wait_for(ws.recv(), WAIT))
                assert info.value.rcvd is not None and info.value.rcvd.code == 1008
                assert "flood" in info.value.rcvd.reason
                assert any(str(t).startswith('error message="flood: more than 20 messages') for t in lines)
                assert await ask(other, "ping", "pong") == "pong"
        finally:
            await server.close()

    asyncio.run(main())


def test_the_server_full_refuses_a_new_tab() -> None:
    async def main() -> None:
        async with board_server(settings(max_sessions=1)) as server:
            assert server.web is not None
            async with await tab(server.web.port) as ws:
                assert await ask(ws, "ping", "pong") == "pong"
                with pytest.raises(InvalidStatus) as info:
                    await tab(server.web.port)
                assert info.value.response.status_code == 503
                assert b"server full" in info.value.response.body

    asyncio.run(main())


def test_a_whole_game_in_a_tab_at_a_twentieth_of_a_second() -> None:
    """A random mover against the engine at 0.05 s a move, as the page drives it: the moves
    come from ``get movelist``, the history goes with ``set gamehist``, and the game ends."""
    async def main() -> None:
        rng = random.Random(34)
        async with board_server() as server:
            assert server.web is not None
            async with await tab(server.web.port) as ws:
                start = fen = "B:W21-32:B1-12"
                moves: list[str] = []
                result = ""
                for ply in range(400):
                    if ply % 2 == 0:  # the page's side: a random legal move
                        listing = (await ask(ws, f"get movelist {fen}", "reply 1 movelist")).split(" ", 3)[3]
                        count, _, rest = listing.partition(",")
                        if count == "0":
                            result = "page lost"
                            break
                        pick = rng.choice([m for m in rest.split(";") if m])
                        fields = pick.split(",")
                        path = [fields[3], *fields[5::3]] if int(fields[0]) else [fields[3], fields[4]]
                        move = ("x" if int(fields[0]) else "-").join(path)
                        reply = await ask(ws, f"set gamehist {start} {' '.join([*moves, move])}", "reply")
                        fen = reply.rsplit(" ", 1)[1]
                        moves.append(move)
                        continue
                    line = await ask(ws, f"getmove {fen} 0.05 0 0", "move")
                    _, move, outcome, fen = line.split(" ", 4)[:4]
                    moves.append(move)
                    await ask(ws, f"set gamehist {start} {' '.join(moves)}", "reply 1")
                    if outcome in ("WIN", "DRAW", "LOSS"):
                        result = outcome
                        break
                assert result in ("WIN", "page lost", "DRAW"), (result, moves)
                assert len(moves) > 10

    asyncio.run(main())


def test_channel_messages_from_a_plain_handler() -> None:
    """The WebServer's own API, as the spectator feed uses it: a handler that echoes."""
    async def main() -> None:
        async def echo(channel: WebChannel) -> None:
            while (text := await channel.receive()) is not None:
                await channel.send(text.upper())

        web = WebServer("127.0.0.1", 0, pages={}, sockets={"/echo": echo})
        await web.start()
        try:
            async with connect(f"ws://127.0.0.1:{web.port}/echo", origin=origin(web.port),  # type: ignore[arg-type]
                               open_timeout=WAIT) as ws:
                await ws.send("hello")
                assert await asyncio.wait_for(ws.recv(), WAIT) == "HELLO"
                await ws.send("é" * 3)
                assert await asyncio.wait_for(ws.recv(), WAIT) == "É" * 3
            await until(lambda: web.active_sockets == 0)
        finally:
            await web.close()

    asyncio.run(main())


def test_samuel_serve_web_port_writes_its_port(tmp_path: Path) -> None:
    with serve_process(tmp_path, "--no-dxp", "--no-cb", "--web-port", "0") as (_, ports):
        assert set(ports) >= {"web", "host", "pid"} and "dxp" not in ports
        status, _, body = asyncio.run(http(ports["web"], get("/")))
        assert status == 200 and b"board.js" in body
