"""Channel: framed text to and from an engine over a pipe or a TCP socket.

Every dialect client sits on one.  It logs ``>>``/``<<`` at DEBUG, turns a
closed pipe or socket into EngineTerminatedError and a silent engine into
EngineTimeoutError, and owns the subprocess when it started one.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import subprocess
from collections.abc import Sequence

from protocol.client.errors import EngineProtocolError, EngineTerminatedError, EngineTimeoutError

log = logging.getLogger(__name__)

MAX_FRAME = 1 << 16


class Channel:
    """Framed messages (``sep``-terminated) over a reader/writer pair."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        *,
        sep: bytes = b"\n",
        name: str = "engine",
        process: asyncio.subprocess.Process | None = None,
    ) -> None:
        self.reader = reader
        self.writer = writer
        self.sep = sep
        self.name = name
        self.process = process
        self._closed = False

    async def send(self, text: str) -> None:
        if self._closed:
            raise EngineTerminatedError(f"{self.name}: channel already closed")
        log.debug("%s >> %s", self.name, text)
        try:
            self.writer.write(text.encode("utf-8") + self.sep)
            await self.writer.drain()
        except (ConnectionError, BrokenPipeError, OSError, RuntimeError) as exc:
            if self.process is not None:
                # A process that is gone: its exit status says more than the broken pipe.
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self.process.wait(), 1.0)
                if self.process.returncode is not None:
                    raise EngineTerminatedError(f"{self.name}: {self._gone()}") from None
            raise EngineTerminatedError(f"{self.name}: cannot write ({exc})") from None

    async def receive(self, timeout: float | None) -> str:
        """The next message without its separator."""
        try:
            data = await asyncio.wait_for(self.reader.readuntil(self.sep), timeout)
        except asyncio.TimeoutError:
            raise EngineTimeoutError(f"{self.name}: no answer within {timeout:.1f} s") from None
        except asyncio.IncompleteReadError:
            if self.process is not None:
                # EOF usually arrives a moment before the exit status: wait for it briefly.
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self.process.wait(), 1.0)
            raise EngineTerminatedError(f"{self.name}: {self._gone()}") from None
        except asyncio.LimitOverrunError:
            raise EngineProtocolError(f"{self.name}: message longer than {MAX_FRAME} bytes") from None
        except (ConnectionError, OSError) as exc:
            raise EngineTerminatedError(f"{self.name}: connection lost ({exc})") from None
        text = data[: -len(self.sep)].decode("utf-8", errors="replace").rstrip("\r")
        log.debug("%s << %s", self.name, text)
        return text

    def _gone(self) -> str:
        if self.process is not None and self.process.returncode is not None:
            return f"engine process exited with status {self.process.returncode}"
        return "connection closed by the engine"

    async def close(self, grace: float = 2.0) -> None:
        """Close the stream; a started process gets ``grace`` seconds, then is killed."""
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(Exception):
            self.writer.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.writer.wait_closed(), grace)
        proc = self.process
        if proc is not None and proc.returncode is None:
            try:
                await asyncio.wait_for(proc.wait(), grace)
            except asyncio.TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                await proc.wait()


async def open_process(
    argv: Sequence[str],
    *,
    sep: bytes = b"\n",
    stderr: int | None = subprocess.DEVNULL,
    cwd: str | os.PathLike[str] | None = None,
) -> Channel:
    """Start an engine and talk to it over its stdin/stdout."""
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            limit=MAX_FRAME,
            cwd=cwd,
        )
    except OSError as exc:
        raise EngineTerminatedError(f"cannot start engine {list(argv)!r}: {exc}") from None
    assert proc.stdin is not None and proc.stdout is not None
    return Channel(proc.stdout, proc.stdin, sep=sep, name=os.path.basename(argv[0]), process=proc)


async def open_tcp(host: str, port: int, *, sep: bytes = b"\n", timeout: float = 10.0) -> Channel:
    """Connect to an engine listening on ``host:port``."""
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(host, port, limit=MAX_FRAME), timeout
        )
    except asyncio.TimeoutError:
        raise EngineTimeoutError(f"connecting to {host}:{port} timed out after {timeout} s") from None
    except OSError as exc:
        raise EngineTerminatedError(f"cannot connect to {host}:{port}: {exc}") from None
    return Channel(reader, writer, sep=sep, name=f"{host}:{port}")
