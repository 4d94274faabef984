"""Async streams over this process's stdin and stdout, for the stdin dialects.

A reader thread feeds an ``asyncio.StreamReader`` (``connect_read_pipe`` does
not work on every kind of stdin: files, terminals).  The writer writes and
flushes straight away, so a GUI never waits on a buffered line.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
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
    """A StreamReader fed from stdin (or ``stream``) by a daemon thread; EOF when it closes.

    Stdin is read with ``os.read`` on its descriptor, not through ``sys.stdin.buffer``:
    a daemon thread blocked inside a buffered reader makes the interpreter abort at
    exit ("_enter_buffered_busy"), while a raw read can be abandoned safely.
    """
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=limit, loop=loop)

    def chunks() -> bytes:
        if stream is not None:
            return stream.readline(limit + 1)
        return os.read(sys.stdin.fileno(), 1 << 16)

    def pump() -> None:
        while True:
            try:
                chunk = chunks()
            except (OSError, ValueError):
                chunk = b""
            if loop.is_closed():
                return
            if not chunk:
                with contextlib.suppress(RuntimeError):
                    loop.call_soon_threadsafe(reader.feed_eof)
                return
            try:
                loop.call_soon_threadsafe(reader.feed_data, chunk)
            except RuntimeError:  # the loop closed meanwhile
                return

    threading.Thread(target=pump, name="samuel-stdin", daemon=True).start()
    return reader
