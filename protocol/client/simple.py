"""SimpleEngine: any engine client behind blocking calls, its event loop on a thread of its own."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Coroutine, Mapping
from typing import Any, TypeVar

from engine.board import Board
from engine.limits import Limit
from protocol.client.base import EngineProtocol, InfoDict, PlayResult, limit_timeout
from protocol.client.cb import connect_cb, popen_cb
from protocol.client.dxp import connect_dxp
from protocol.client.errors import EngineError, EngineTimeoutError
from protocol.client.hub import connect_hub, popen_hub

T = TypeVar("T")


class SimpleEngine:
    """A blocking wrapper: runs an EngineProtocol on its own event-loop thread.

    ``timeout`` bounds every call (on top of the limit-based hang detection of
    ``play``/``analyse``).
    """

    def __init__(self, protocol: EngineProtocol, loop: asyncio.AbstractEventLoop,
                 thread: threading.Thread, timeout: float | None = 60.0) -> None:
        self.protocol = protocol
        self._loop = loop
        self._thread = thread
        self.timeout = timeout
        self._closed = False

    @classmethod
    def _start(cls, opener: Callable[[], Coroutine[Any, Any, EngineProtocol]],
               timeout: float | None = 60.0) -> SimpleEngine:
        loop = asyncio.new_event_loop()
        thread = threading.Thread(target=loop.run_forever, name="samuel-engine-client", daemon=True)
        thread.start()
        try:
            fut = asyncio.run_coroutine_threadsafe(opener(), loop)
            protocol = fut.result(timeout)
        except BaseException:
            loop.call_soon_threadsafe(loop.stop)
            thread.join(5)
            raise
        return cls(protocol, loop, thread, timeout)

    @classmethod
    def popen_hub(cls, argv: list[str], timeout: float | None = 60.0, **kwargs: Any) -> SimpleEngine:
        return cls._start(lambda: popen_hub(argv, **kwargs), timeout)

    @classmethod
    def connect_hub(cls, host: str, port: int, timeout: float | None = 60.0, **kwargs: Any) -> SimpleEngine:
        return cls._start(lambda: connect_hub(host, port, **kwargs), timeout)

    @classmethod
    def popen_cb(cls, argv: list[str], timeout: float | None = 60.0, **kwargs: Any) -> SimpleEngine:
        return cls._start(lambda: popen_cb(argv, **kwargs), timeout)

    @classmethod
    def connect_cb(cls, host: str, port: int, timeout: float | None = 60.0, **kwargs: Any) -> SimpleEngine:
        return cls._start(lambda: connect_cb(host, port, **kwargs), timeout)

    @classmethod
    def connect_dxp(cls, host: str, port: int, timeout: float | None = 60.0, **kwargs: Any) -> SimpleEngine:
        return cls._start(lambda: connect_dxp(host, port, **kwargs), timeout)

    def _run(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        if self._closed:
            coro.close()
            raise EngineError("the engine has been closed")
        fut = asyncio.run_coroutine_threadsafe(coro, self._loop)
        wait = timeout if timeout is not None else self.timeout
        try:
            return fut.result(wait)
        except TimeoutError:
            fut.cancel()
            raise EngineTimeoutError(f"{self.protocol.name}: call took longer than {wait} s") from None

    @property
    def id(self) -> dict[str, str]:
        return self.protocol.id

    def ping(self) -> None:
        self._run(self.protocol.ping())

    def configure(self, options: Mapping[str, Any]) -> None:
        self._run(self.protocol.configure(options))

    def new_game(self) -> None:
        self._run(self.protocol.new_game())

    def play(self, board: Board, limit: Limit, *, ponder: bool = False) -> PlayResult:
        return self._run(self.protocol.play(board, limit, ponder=ponder), self._call_timeout(limit))

    def analyse(self, board: Board, limit: Limit,
                on_info: Callable[[InfoDict], None] | None = None) -> InfoDict:
        return self._run(self.protocol.analyse(board, limit, on_info=on_info), self._call_timeout(limit))

    def _call_timeout(self, limit: Limit) -> float | None:
        t = limit_timeout(limit, self.protocol.grace)
        return None if t is None else t + 5.0

    def quit(self) -> None:
        if self._closed:
            return
        try:
            self._run(self.protocol.quit(), 30.0)
        finally:
            self._shutdown()

    def close(self) -> None:
        """Close without the polite goodbye (kills a started process after a grace period)."""
        if self._closed:
            return
        try:
            with contextlib.suppress(Exception):
                self._run(self.protocol.close(), 30.0)
        finally:
            self._shutdown()

    def _shutdown(self) -> None:
        self._closed = True
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        if not self._loop.is_running():
            self._loop.close()

    def __enter__(self) -> SimpleEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self.quit()
        except EngineError:
            self.close()
