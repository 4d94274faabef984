"""Running a real `samuel serve` process for tests: free ports, the port file, clean shutdown."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

from protocol.context import ServerSettings
from protocol.dxp_session import serve_dxp
from protocol.framing import stream_limit
from protocol.server import Server

SAMUEL = [sys.executable, "-m", "samuel.cli"]


async def until(pred: Callable[[], bool], timeout: float = 30.0) -> None:
    """Wait for a condition (polled: the server's counters have no event); only a hang reaches the timeout."""
    deadline = time.monotonic() + timeout
    while not pred():
        assert time.monotonic() < deadline, "condition not reached in time"
        await asyncio.sleep(0.02)


@contextmanager
def serve_process(tmp_path: Path, *args: str) -> Iterator[tuple[subprocess.Popen[bytes], dict[str, int]]]:
    port_file = tmp_path / "ports.json"
    log = tmp_path / "serve.log"
    proc = subprocess.Popen(
        [*SAMUEL, "serve", "--dxp-port", "0", "--cb-port", "0", "--hash", "1",
         "--port-file", str(port_file), "--log", str(log), *args],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 600  # only a hang takes this long
        while not port_file.exists():
            if proc.poll() is not None:
                raise AssertionError(f"serve exited: {proc.stderr.read().decode() if proc.stderr else ''}")
            if time.monotonic() > deadline:
                raise AssertionError("serve did not start within 600 s")
            time.sleep(0.05)
        yield proc, json.loads(port_file.read_text())
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)


class DxpServerThread:
    """serve_dxp behind asyncio.start_server on an ephemeral loopback port, in its own thread."""

    def __init__(self, st: ServerSettings) -> None:
        self.settings = st
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.tasks: set[asyncio.Task[None]] = set()
        self.server: asyncio.base_events.Server | None = None
        self.port = 0
        self.sessions = 0

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self.tasks.add(task)
        self.sessions += 1
        try:
            await serve_dxp(reader, writer, self.settings)
        except asyncio.CancelledError:
            pass  # the test is over; a cancelled connection callback would be logged as an error
        finally:
            self.tasks.discard(task)

    async def _start(self) -> None:
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", 0, limit=stream_limit(127))
        self.port = self.server.sockets[0].getsockname()[1]

    async def _stop(self) -> None:
        assert self.server is not None
        self.server.close()
        if self.tasks:  # clients have closed: let their sessions see the end of stream first
            await asyncio.wait(list(self.tasks), timeout=2)
        for t in list(self.tasks):
            t.cancel()
        if self.tasks:
            await asyncio.wait(list(self.tasks), timeout=10)

    def __enter__(self) -> DxpServerThread:
        self.thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self.loop).result(10)
        return self

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self._stop(), self.loop).result(20)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


class CaptureWriter:
    """A Writer that turns what the session writes into a queue of lines."""

    def __init__(self) -> None:
        self.lines: asyncio.Queue[str] = asyncio.Queue()
        self._buf = b""
        self.closed = False

    def write(self, data: bytes) -> None:
        self._buf += data
        while b"\n" in self._buf:
            line, self._buf = self._buf.split(b"\n", 1)
            self.lines.put_nowait(line.decode("utf-8"))

    async def drain(self) -> None:
        return None

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True


@asynccontextmanager
async def running(s: ServerSettings) -> AsyncIterator[Server]:
    """A whole server (every dialect on a free port) for the test's duration."""
    server = Server(s, hub_port=0)
    await server.start()
    try:
        yield server
    finally:
        await server.close()
