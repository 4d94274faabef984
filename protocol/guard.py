"""What every TCP session gets: TCP keepalive and a write timeout.

A peer that stops reading fills the kernel's buffers and then ours; a session
blocked in ``drain()`` never reaches its read (idle) timer, and a session that
writes without draining (search reports) grows its buffer without bound.  Either
way the slot is held for ever.  ``GuardedWriter`` closes the connection when
nothing we wrote has been taken by the peer for ``write_timeout`` seconds.
Keepalive finds peers that vanished without a FIN (a pulled cable, a sleeping
laptop), which neither timer can tell from a quiet client.

Only TCP connections are guarded: stdin/stdout sessions (``samuel hub``,
``samuel cb``) belong to a GUI that may leave its engine idle for hours.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from typing import Any

from protocol.context import Writer

log = logging.getLogger(__name__)

KEEPALIVE_IDLE = 60
"""Seconds a connection is quiet before the first keepalive probe."""
KEEPALIVE_INTERVAL = 10
"""Seconds between unanswered probes."""
KEEPALIVE_COUNT = 5
"""Unanswered probes before the kernel declares the peer dead (so about 110 s in all)."""


class WriteTimeoutError(ConnectionError):
    """The peer took none of our output for the write timeout; the connection was aborted."""


def set_keepalive(sock: Any) -> None:
    """SO_KEEPALIVE on, with our probe timing where the platform lets us set it.

    ``sock`` is a socket or asyncio's TransportSocket (which has setsockopt).
    """
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    # Linux names the idle time TCP_KEEPIDLE, macOS TCP_KEEPALIVE; some platforms have neither.
    idle = getattr(socket, "TCP_KEEPIDLE", None) or getattr(socket, "TCP_KEEPALIVE", None)
    for opt, value in ((idle, KEEPALIVE_IDLE),
                       (getattr(socket, "TCP_KEEPINTVL", None), KEEPALIVE_INTERVAL),
                       (getattr(socket, "TCP_KEEPCNT", None), KEEPALIVE_COUNT)):
        if opt is not None:
            with contextlib.suppress(OSError):  # the default timing still finds dead peers
                sock.setsockopt(socket.IPPROTO_TCP, opt, value)


def is_socket(writer: object) -> bool:
    """True when ``writer`` talks to a network peer (not stdout, not a test capture)."""
    get = getattr(writer, "get_extra_info", None)
    return get is not None and get("socket") is not None


class GuardedWriter:
    """An asyncio.StreamWriter that aborts its connection when the peer stops reading.

    Whenever output waits in our buffer (the kernel's is full), a timer checks
    ``write_timeout`` seconds later whether the peer took any of it; a peer that
    reads, however slowly, keeps its connection.  After the abort, ``write`` is a
    no-op and ``drain`` raises WriteTimeoutError, which the sessions treat as a
    lost connection.
    """

    def __init__(self, writer: asyncio.StreamWriter, write_timeout: float | None, name: str) -> None:
        self._writer = writer
        self._timeout = write_timeout
        self._name = name
        self._written = 0
        self._mark = 0
        self._timer: asyncio.TimerHandle | None = None
        self.timed_out = False

    @property
    def transport(self) -> asyncio.WriteTransport:
        return self._writer.transport

    def _sent(self) -> int:
        """Bytes handed to the kernel so far."""
        return self._written - self.transport.get_write_buffer_size()

    def write(self, data: bytes) -> None:
        if self.timed_out:
            return
        self._writer.write(data)
        self._written += len(data)
        self._watch()

    def _watch(self) -> None:
        if self._timeout is None or self._timer is not None or self.transport.get_write_buffer_size() == 0:
            return
        self._mark = self._sent()
        self._timer = asyncio.get_running_loop().call_later(self._timeout, self._check)

    def _check(self) -> None:
        self._timer = None
        if self.transport.is_closing() or self.transport.get_write_buffer_size() == 0:
            return
        if self._sent() > self._mark:
            self._watch()  # slow, but reading
            return
        pending = self.transport.get_write_buffer_size()
        log.warning("%s took none of our output for %g s (%d bytes waiting); closing",
                    self._name, self._timeout, pending)
        self.timed_out = True
        self.transport.abort()

    async def drain(self) -> None:
        if not self.timed_out:
            await self._writer.drain()
        if self.timed_out:  # also when the abort woke a drain that was waiting
            raise WriteTimeoutError(f"the peer read nothing for {self._timeout:g} s")

    def is_closing(self) -> bool:
        return self.timed_out or self._writer.is_closing()

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._writer.close()

    async def wait_closed(self) -> None:
        await self._writer.wait_closed()

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self._writer.get_extra_info(name, default)


def guard(writer: Writer, write_timeout: float | None, name: str) -> Writer:
    """``writer`` with keepalive and the write timeout when it is a TCP stream; others unchanged."""
    if isinstance(writer, GuardedWriter) or not isinstance(writer, asyncio.StreamWriter):
        return writer
    sock = writer.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        try:
            set_keepalive(sock)
        except OSError as exc:
            log.info("%s: cannot turn keepalive on: %s", name, exc)
    return GuardedWriter(writer, write_timeout, name)
