"""The long-running server: DXP, cb (and optionally Hub) over TCP.

Each connection is its own session with its own game, options and clock;
searches run in search processes (``--search-processes``, protocol.host_pool) or
threads, so many games go on at once (Samuel's 704 played six to eight), and the
event loop here stays free to answer.  A connection that misbehaves is answered,
and at worst closed: an exception in one session is logged and never reaches the others.  No connection
holds its slot for ever: every one gets TCP keepalive and the write timeout
(protocol.guard), and each dialect closes a client silent past its idle rules.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

from protocol.context import ServerSettings, Writer
from protocol.dxp_grammar import MAX_MESSAGE as DXP_MAX_MESSAGE
from protocol.framing import stream_limit
from protocol.guard import guard
from protocol.host_pool import HostPool
from protocol.memory_budget import HashBudget, default_budget_mb
from protocol.web_server import WebChannel, WebServer, static_pages

log = logging.getLogger(__name__)

BOARD_PAGES = static_pages("board.js", "board.css", index="index.html")
"""The board page (``--web-port``): every tab a cb session on the ``/cb`` WebSocket."""

Handler = Callable[[asyncio.StreamReader, Writer, ServerSettings], Awaitable[None]]



@dataclass(frozen=True)
class Endpoint:
    dialect: str
    host: str
    port: int


def _handlers() -> dict[str, Handler]:
    # Imported here so a broken dialect module names itself in the error at start-up.
    from protocol.cb_session import run_cb
    from protocol.dxp_session import serve_dxp
    from protocol.hub_session import run_hub

    return {"dxp": serve_dxp, "cb": run_cb, "hub": run_hub}


def _refusal(dialect: str, text: str) -> bytes:
    """A 'go away' in the dialect's own words, so the client can show it."""
    if dialect == "dxp":
        return ("C" + text)[:DXP_MAX_MESSAGE].encode("ascii", "replace") + b"\0"
    return f'error message="{text}"\n'.encode()


class Server:
    """Listens on one port per enabled dialect; ``ports`` tells where (after ``start``)."""

    def __init__(self, settings: ServerSettings, *, hub_port: int | None = None,
                 dxp: bool = True, cb: bool = True, web_port: int | None = None) -> None:
        if settings.defaults.hash_budget is None:  # every server has a ceiling on table memory
            budget = HashBudget(default_budget_mb())
            settings = replace(settings, defaults=replace(settings.defaults, hash_budget=budget))
        self.settings = settings
        self._wanted: dict[str, int] = {}
        if dxp:
            self._wanted["dxp"] = settings.dxp_port
        if cb:
            self._wanted["cb"] = settings.cb_port
        if hub_port is not None:
            self._wanted["hub"] = hub_port
        self._web_port = web_port
        self.web: WebServer | None = None
        """The board page's server, when ``web_port`` asks for it (after ``start``)."""
        self.pool: HostPool | None = None
        """The search processes, when ``defaults.search_processes`` asks for them (after ``start``)."""
        self._servers: list[asyncio.base_events.Server] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self.endpoints: list[Endpoint] = []
        self.sessions_served = 0
        self.sessions_refused = 0
        self._handlers = _handlers()

    @property
    def active_sessions(self) -> int:
        return len(self._tasks) + (self.web.active_sockets if self.web is not None else 0)

    @property
    def ports(self) -> dict[str, int]:
        return {e.dialect: e.port for e in self.endpoints}

    async def start(self) -> None:
        d = self.settings.defaults
        if d.search_processes > 0 and d.search_hosts is None:
            # Before listening: every session this server creates searches in these processes.
            self.pool = HostPool(d.search_processes, d)
            await self.pool.start()
            self.settings = replace(self.settings, defaults=replace(d, search_hosts=self.pool))
        for dialect, port in self._wanted.items():
            limit = stream_limit(DXP_MAX_MESSAGE if dialect == "dxp" else self.settings.max_line)
            try:
                srv = await asyncio.start_server(
                    functools.partial(self._connection, dialect),
                    self.settings.host, port, limit=limit, reuse_address=True,
                )
            except OSError as exc:
                await self.close()
                raise OSError(
                    exc.errno, f"cannot listen for {dialect} on {self.settings.host}:{port}: {exc.strerror}"
                ) from None
            self._servers.append(srv)
            for sock in srv.sockets:
                host, real_port = sock.getsockname()[:2]
                self.endpoints.append(Endpoint(dialect, host, real_port))
                log.info("listening for %s on %s:%d", dialect, host, real_port)
        if self._web_port is not None:
            await self._start_web(self._web_port)

    async def _start_web(self, port: int) -> None:
        from protocol.web_cb import serve_cb_socket

        async def cb_socket(channel: WebChannel) -> None:
            await serve_cb_socket(channel, self.settings)

        s = self.settings
        self.web = WebServer(s.host, port, pages=BOARD_PAGES, sockets={"/cb": cb_socket},
                             max_message=s.max_line, max_sessions=s.max_sessions,
                             write_timeout=s.write_timeout)
        try:
            await self.web.start()
        except OSError:
            self.web = None
            await self.close()
            raise
        self.endpoints.append(Endpoint("web", s.host, self.web.port))

    async def _connection(self, dialect: str, reader: asyncio.StreamReader,
                          writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        task = asyncio.current_task()
        if len(self._tasks) >= self.settings.max_sessions:
            self.sessions_refused += 1
            log.warning("refusing %s client %s: %d sessions already", dialect, peer, len(self._tasks))
            with contextlib.suppress(Exception):
                text = f"server full: {self.settings.max_sessions} sessions, try later"
                writer.write(_refusal(dialect, text))
                await asyncio.wait_for(writer.drain(), 5)
            await self._close_writer(writer)
            return
        assert task is not None
        self._tasks.add(task)
        self.sessions_served += 1
        log.info("%s session from %s (%d active)", dialect, peer, len(self._tasks))
        # Keepalive and the write timeout: a peer that vanished or stopped reading frees its slot.
        session_writer = guard(writer, self.settings.write_timeout, f"{dialect} client {peer}")
        try:
            await self._handlers[dialect](reader, session_writer, self.settings)
        except asyncio.CancelledError:
            log.info("%s session from %s cancelled by shutdown", dialect, peer)
        except (ConnectionError, OSError) as exc:
            log.info("%s client %s went away: %s", dialect, peer, exc)
        except Exception:
            # A bug in one session must not take the server down: log it with its trace.
            log.exception("%s session from %s failed", dialect, peer)
        finally:
            self._tasks.discard(task)
            await self._close_writer(writer)
            log.info("%s session from %s closed (%d active)", dialect, peer, len(self._tasks))

    @staticmethod
    async def _close_writer(writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(Exception):
            writer.close()
            await asyncio.wait_for(writer.wait_closed(), 5)

    async def serve_forever(self) -> None:
        waits = [s.serve_forever() for s in self._servers]
        if self.web is not None:
            waits.append(self.web.serve_forever())
        await asyncio.gather(*waits)

    async def close(self) -> None:
        """Stop listening, end every session (their searches are stopped) and wait for them."""
        for s in self._servers:
            s.close()
        for t in list(self._tasks):
            t.cancel()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=10)
        for s in self._servers:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(s.wait_closed(), 5)
        self._servers.clear()
        if self.web is not None:
            await self.web.close()
            self.web = None
        if self.pool is not None:  # after the sessions: they close their engines there first
            await self.pool.close()
            self.pool = None
