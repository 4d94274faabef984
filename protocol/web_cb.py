"""A cb session over a WebSocket: each text message is one cb line, each way.

The board page speaks the cb dialect, so a browser tab gets exactly what a TCP cb
client gets (its own game, options, searches, idle and line limits) from the same
``run_cb``.  This module only turns messages into lines and lines into messages.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import cast

from protocol import cb_grammar as g
from protocol.cb_session import run_cb
from protocol.context import ServerSettings
from protocol.framing import stream_limit
from protocol.web_server import FloodError, WebChannel


class _ChannelWriter:
    """The session's ``Writer``: whole lines out as one message each."""

    def __init__(self, channel: WebChannel) -> None:
        self._channel = channel
        self._pending = b""

    def write(self, data: bytes) -> None:
        lines = (self._pending + data).split(b"\n")
        self._pending = lines.pop()  # a line is sent once its newline is written
        for line in lines:
            self._channel.send_now(line.decode("utf-8", errors="replace"))

    async def drain(self) -> None:
        await self._channel.drain()

    def is_closing(self) -> bool:
        return self._channel.closed

    def close(self) -> None:
        pass  # the WebServer ends the socket with a closing handshake when the session returns


class _Flow:
    """The reader's 'transport': it pauses the pump when the session has a backlog.

    ``StreamReader`` asks its transport to pause past twice its limit and to resume
    when drained, so a page sending faster than its session reads is held back (and
    then by TCP), and memory stays bounded, as on a TCP connection.
    """

    def __init__(self) -> None:
        self.resumed = asyncio.Event()
        self.resumed.set()

    def pause_reading(self) -> None:
        self.resumed.clear()

    def resume_reading(self) -> None:
        self.resumed.set()


async def _pump(channel: WebChannel, reader: asyncio.StreamReader, writer: _ChannelWriter,
                flow: _Flow) -> None:
    """Messages into the session's reader as lines; the end of the socket as end of input."""
    try:
        while await flow.resumed.wait() and (text := await channel.receive()) is not None:
            if "\n" in text.rstrip("\n") or "\r" in text.rstrip("\r\n"):
                # Several lines in one message would be several commands the page did not
                # mean to send together (and would step round the one-reply rule).
                writer.write(g.format_error("a message must hold exactly one line").encode() + b"\n")
                continue
            reader.feed_data(text.rstrip("\r\n").encode("utf-8") + b"\n")
    except FloodError as exc:
        writer.write(g.format_error(str(exc)).encode() + b"\n")
        await channel.close(1008, str(exc))
    finally:
        reader.feed_eof()


async def serve_cb_socket(channel: WebChannel, settings: ServerSettings) -> None:
    """Run one cb session on ``channel`` until the page closes it or the session ends."""
    reader = asyncio.StreamReader(limit=stream_limit(settings.max_line))
    flow = _Flow()
    reader.set_transport(cast(asyncio.BaseTransport, flow))
    writer = _ChannelWriter(channel)
    pump = asyncio.create_task(_pump(channel, reader, writer, flow))
    try:
        await run_cb(reader, writer, settings)
    finally:
        pump.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await pump
