"""Slots are never held for ever: idle, silent and non-reading clients of every dialect are closed.

A real Server on loopback with timeouts of a second or two and three sessions at
most; the clients are raw sockets that misbehave on purpose.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from typing import Any

import pytest
from serving import CaptureWriter, running, until

from engine.options import OptionValues
from protocol import guard
from protocol.context import ServerSettings
from protocol.dxp_session import DxpFollower
from protocol.framing import stream_limit
from protocol.hub_session import run_hub
from protocol.log_limit import FIRST
from protocol.session_engine import SessionDefaults

WAIT = 30.0
"""Upper bound for anything that should happen within a couple of seconds (a busy machine)."""
GAMEREQ_NO_CLOCK_WE_WHITE = b"R01tester" + b" " * 26 + b"W000000A\0"
"""DXP GAMEREQ: the follower (the server) plays White from the start, so the client (Black) moves."""
GAMEREQ_WE_BLACK = b"R01tester" + b" " * 26 + b"Z000000A\0"


def settings(**kw: Any) -> ServerSettings:
    base: dict[str, Any] = {
        "dxp_port": 0, "cb_port": 0, "defaults": SessionDefaults(options=OptionValues(hash=1)),
        "dxp_movetime": 0.02,
    }
    base.update(kw)
    return ServerSettings(**base)




async def read_to_eof(reader: asyncio.StreamReader) -> bytes:
    return await asyncio.wait_for(reader.read(), WAIT)


async def flooder(port: int) -> tuple[socket.socket, asyncio.StreamWriter]:
    """A cb client with a tiny receive buffer that never reads."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
    _r, w = await asyncio.open_connection(sock=sock)
    return sock, w


def test_three_stuck_clients_free_their_slots() -> None:
    """A silent Hub client, a DXP client silent on its move and a cb client that floods without
    reading fill a three-session server; each is closed by its timeout and the server serves again."""

    async def main() -> None:
        st = settings(max_sessions=3, idle_timeout=4.0, write_timeout=2.0)
        async with running(st) as server:
            ports = server.ports
            hub_r, _hub_w = await asyncio.open_connection("127.0.0.1", ports["hub"])
            dxp_r, dxp_w = await asyncio.open_connection("127.0.0.1", ports["dxp"])
            dxp_w.write(GAMEREQ_NO_CLOCK_WE_WHITE)
            await dxp_w.drain()
            acc = await asyncio.wait_for(dxp_r.readuntil(b"\0"), WAIT)
            assert acc.startswith(b"A") and acc[33:34] == b"0"
            sock, cb_w = await flooder(ports["cb"])
            cb_w.write(b"about\n" * 50_000)  # about 10 MB of replies, never read
            await until(lambda: server.active_sessions == 3)

            # While they hold every slot, a fourth client of any dialect is refused.
            r4, _w4 = await asyncio.open_connection("127.0.0.1", ports["cb"])
            assert b"server full" in await read_to_eof(r4)

            hub_out = await read_to_eof(hub_r)
            assert b"idle for 4 s" in hub_out
            dxp_out = await read_to_eof(dxp_r)
            assert b"no move for 4 s" in dxp_out
            await until(lambda: server.active_sessions == 0)
            cb_w.transport.abort()
            sock.close()

            r, w = await asyncio.open_connection("127.0.0.1", ports["cb"])
            w.write(b"ping\n")
            assert (await asyncio.wait_for(r.readline(), WAIT)).strip() == b"pong"
            w.close()

    asyncio.run(asyncio.wait_for(main(), 120))


def test_a_non_reading_cb_client_is_closed_by_the_write_timeout(caplog: pytest.LogCaptureFixture) -> None:
    async def main() -> None:
        # No idle timeout at all: only the write timeout can end this session.
        async with running(settings(idle_timeout=None, write_timeout=0.5)) as server:
            sock, w = await flooder(server.ports["cb"])
            w.write(b"ping\n" * 200_000 + b"about\n" * 20_000)
            await until(lambda: server.sessions_served == 1 and server.active_sessions == 0, 60)
            w.transport.abort()
            sock.close()

    with caplog.at_level(logging.INFO):
        asyncio.run(asyncio.wait_for(main(), 120))
    assert any("took none of our output" in r.getMessage() for r in caplog.records)


def test_a_dxp_client_silent_on_its_move_is_closed() -> None:
    async def main() -> None:
        async with running(settings(idle_timeout=0.5)) as server:
            r, w = await asyncio.open_connection("127.0.0.1", server.ports["dxp"])
            w.write(GAMEREQ_NO_CLOCK_WE_WHITE)
            await w.drain()
            out = await read_to_eof(r)
            assert out.startswith(b"A") and b"no move for 0.5 s" in out

    asyncio.run(asyncio.wait_for(main(), 60))


def test_a_dxp_client_gets_the_idle_timeout_after_our_move() -> None:
    """We move first; the client's allowance starts when our move is sent, not at the GAMEREQ."""

    async def main() -> None:
        async with running(settings(idle_timeout=1.0, dxp_movetime=1.5)) as server:
            r, w = await asyncio.open_connection("127.0.0.1", server.ports["dxp"])
            w.write(GAMEREQ_WE_BLACK)
            await w.drain()
            start = time.monotonic()
            assert (await asyncio.wait_for(r.readuntil(b"\0"), WAIT)).startswith(b"A")
            move = await asyncio.wait_for(r.readuntil(b"\0"), WAIT)
            assert move.startswith(b"M")
            assert time.monotonic() - start >= 1.0  # thinking longer than the idle timeout is ours
            out = await read_to_eof(r)
            assert b"no move for 1 s" in out

    asyncio.run(asyncio.wait_for(main(), 60))


def test_the_dxp_allowance_on_the_clients_move_is_its_clock_plus_the_idle_timeout() -> None:
    from engine.board import Board
    from engine.types import BLACK, WHITE
    from protocol.dxp_session import _Game

    async def main() -> None:
        follower = DxpFollower(asyncio.StreamReader(), CaptureWriter(), settings(idle_timeout=10.0))
        assert follower._read_timeout() == 10.0
        follower.game = _Game(Board(), WHITE, 5 * 60.0, 0)  # Black, the client, is to move
        assert follower._read_timeout() == 310.0
        follower.game.clock = 12.0  # our own clock running down changes nothing for the client
        assert follower._read_timeout() == 310.0
        follower.game = _Game(Board(), WHITE, None, 0)
        assert follower._read_timeout() == 10.0
        follower.game = _Game(Board(), BLACK, None, 0)  # our move: we decide when it ends
        assert follower._read_timeout() is None
        follower.game = None
        follower._awaiting_ack = True  # after our GAMEEND the client must confirm
        assert follower._read_timeout() == 10.0
        await follower.session.close()

    asyncio.run(main())


def test_a_silent_hub_tcp_client_is_closed_but_hub_on_stdin_never_times_out() -> None:
    async def main() -> None:
        async with running(settings(idle_timeout=0.5)) as server:
            r, _w = await asyncio.open_connection("127.0.0.1", server.ports["hub"])
            out = await read_to_eof(r)
            assert out.startswith(b"error") and b"idle for 0.5 s" in out

        # The same settings on a pipe (what `samuel hub` runs on): a GUI may leave it idle.
        st = settings(idle_timeout=0.2, max_line=4096)
        reader = asyncio.StreamReader(limit=stream_limit(st.max_line))
        writer = CaptureWriter()
        task = asyncio.ensure_future(run_hub(reader, writer, st))
        await asyncio.sleep(1.0)
        assert not task.done()
        reader.feed_data(b"ping\n")
        assert await asyncio.wait_for(writer.lines.get(), WAIT) == "pong"
        reader.feed_eof()
        await asyncio.wait_for(task, WAIT)

    asyncio.run(asyncio.wait_for(main(), 60))


def test_a_hub_search_with_a_bound_pauses_the_idle_clock() -> None:
    async def main() -> None:
        async with running(settings(idle_timeout=0.5)) as server:
            r, w = await asyncio.open_connection("127.0.0.1", server.ports["hub"])
            w.write(b"pos start\nlevel move-time=1.5\ngo think\n")
            await w.drain()
            lines = []
            while not lines or not lines[-1].startswith(b"done"):
                lines.append(await asyncio.wait_for(r.readline(), WAIT))
            out = await read_to_eof(r)  # and after the move the idle clock runs again
            assert b"idle for 0.5 s" in out

    asyncio.run(asyncio.wait_for(main(), 60))


def test_keepalive_is_on_for_every_accepted_socket(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Any] = []
    real = guard.set_keepalive

    def recording(sock: Any) -> None:
        real(sock)
        seen.append(sock)

    monkeypatch.setattr(guard, "set_keepalive", recording)

    async def main() -> None:
        async with running(settings()) as server:
            clients = []
            for dialect in ("cb", "hub", "dxp"):
                r, w = await asyncio.open_connection("127.0.0.1", server.ports[dialect])
                clients.append(w)
                if dialect != "dxp":
                    w.write(b"ping\n")
                    assert (await asyncio.wait_for(r.readline(), WAIT)).strip() == b"pong"
            await until(lambda: len(seen) == 3)
            for sock in seen:  # the server's side of each connection
                assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) != 0
                if hasattr(socket, "TCP_KEEPIDLE"):
                    assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE) == guard.KEEPALIVE_IDLE
                if hasattr(socket, "TCP_KEEPCNT"):
                    assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPCNT) == guard.KEEPALIVE_COUNT
            for w in clients:
                w.close()

    asyncio.run(asyncio.wait_for(main(), 60))


def test_junk_dxp_frames_do_not_delay_the_game_or_flood_the_log(caplog: pytest.LogCaptureFixture) -> None:
    async def main() -> float:
        async with running(settings()) as server:
            r, w = await asyncio.open_connection("127.0.0.1", server.ports["dxp"])
            w.write(b"Qjunk frame\0" * 200 + GAMEREQ_NO_CLOCK_WE_WHITE)
            await w.drain()
            start = time.monotonic()
            chats = 0
            while True:
                msg = await asyncio.wait_for(r.readuntil(b"\0"), WAIT)
                if msg.startswith(b"A"):
                    break
                assert msg.startswith(b"C")
                chats += 1
            elapsed = time.monotonic() - start
            assert msg[33:34] == b"0"
            assert chats <= 2
            w.close()
            return elapsed

    with caplog.at_level(logging.INFO, logger="protocol"):
        elapsed = asyncio.run(asyncio.wait_for(main(), 60))
    assert elapsed < 2.0
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING and r.name.startswith("protocol")]
    assert len(warnings) <= FIRST + 2, [r.getMessage() for r in warnings]


def test_the_error_chats_of_a_dxp_flood_are_counted(caplog: pytest.LogCaptureFixture) -> None:
    async def main() -> list[bytes]:
        async with running(settings()) as server:
            r, w = await asyncio.open_connection("127.0.0.1", server.ports["dxp"])
            w.write(b"Qjunk\0" * 50)
            await w.drain()
            first = await asyncio.wait_for(r.readuntil(b"\0"), WAIT)
            second = await asyncio.wait_for(r.readuntil(b"\0"), WAIT)
            w.close()
            return [first, second]

    with caplog.at_level(logging.INFO, logger="protocol"):
        first, second = asyncio.run(asyncio.wait_for(main(), 60))
    assert first.startswith(b"Cerror: ") and second.startswith(b"Cerror: ")
    assert b"(and 48 more bad messages)" in second
    summaries = [r for r in caplog.records if "not logged" in r.getMessage()]
    assert summaries and "45 more bad-input lines" in summaries[-1].getMessage()
