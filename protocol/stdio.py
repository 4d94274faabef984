"""Async streams over this process's stdin and stdout, for the stdin dialects.

A reader thread feeds an ``asyncio.StreamReader`` (``connect_read_pipe`` does
not work on every kind of stdin: files, terminals).  The writer writes and
flushes straight away, so a GUI never waits on a buffered line.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from typing import BinaryIO


class StdoutWriter:
    """The subset of ``asyncio.StreamWriter`` the sessions use, over a binary file."""

    def __init__(self, stream: BinaryIO | None = None) -> None:
        self._stream = stream if stream is not None else sys.stdout.buffer
        self._closed = False

    def write(self, data: bytes) -> None:
        if self._closed:
            return
        try:
            self._stream.write(data)
            self._stream.flush()
        except (BrokenPipeError, OSError, ValueError):
            self._closed = True  # the GUI went away; reading stdin will end too

    async def drain(self) -> None:
        return None

    def is_closing(self) -> bool:
        return self._closed

    def close(self) -> None:
        self._closed = True

    async def wait_closed(self) -> None:
        return None


def open_stdin_reader(limit: int = 1 << 16, stream: BinaryIO | None = None) -> asyncio.StreamReader:
    """A StreamReader fed from stdin (or ``stream``) by a daemon thread; EOF when it closes."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=limit, loop=loop)
    source = stream if stream is not None else sys.stdin.buffer

    def pump() -> None:
        while True:
            try:
                chunk = source.readline(limit + 1)
            except (OSError, ValueError):
                chunk = b""
            if loop.is_closed():
                return
            if not chunk:
                loop.call_soon_threadsafe(reader.feed_eof)
                return
            loop.call_soon_threadsafe(reader.feed_data, chunk)

    threading.Thread(target=pump, name="samuel-stdin", daemon=True).start()
    return reader
