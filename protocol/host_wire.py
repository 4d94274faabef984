"""The pipe between the server and its search processes: length-prefixed pickles.

Both ends are this package, started together, so pickle is safe here and carries boards,
limits, search reports and exceptions as they are.  A frame is a 4-byte big-endian length
and the pickle; a length past ``MAX_FRAME`` means the stream is broken, not a big message.

Messages are tuples whose first item names them.  Server to host: ``open``, ``search``,
``stop``, ``prepare``, ``new_game``, ``close``, ``quit``.  Host to server: ``ready``,
``info``, ``result``, ``done``, ``failed``, ``log``.
"""

from __future__ import annotations

import pickle
import struct
from collections.abc import Iterator
from typing import Any, BinaryIO

from engine.errors import SamuelError

MAX_FRAME = 64 << 20
_LENGTH = struct.Struct(">I")
HEADER = _LENGTH.size


class WireError(SamuelError):
    """The pipe to or from a search process carried something that is not a frame."""


def encode(message: tuple[Any, ...]) -> bytes:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return _LENGTH.pack(len(data)) + data


def frame_length(header: bytes) -> int:
    (n,) = _LENGTH.unpack(header)
    if n > MAX_FRAME:
        raise WireError(f"frame of {n} bytes announced (at most {MAX_FRAME}): the pipe is out of step")
    return n


def decode(payload: bytes) -> tuple[Any, ...]:
    try:
        message = pickle.loads(payload)
    except Exception as exc:
        raise WireError(f"unreadable frame of {len(payload)} bytes: {exc}") from None
    if not isinstance(message, tuple) or not message or not isinstance(message[0], str):
        raise WireError(f"a frame that is not a message: {type(message).__name__}")
    return message


class FrameBuffer:
    """Frames from a stream read in chunks of any size: one read (one wakeup) takes every
    frame that has arrived, where reading header and payload separately took two each."""

    CHUNK = 1 << 16
    """Bytes asked for per read."""

    def __init__(self) -> None:
        self._data = bytearray()

    def feed(self, chunk: bytes) -> list[tuple[Any, ...]]:
        """The messages completed by ``chunk``, in order; a partial frame waits for the next."""
        data = self._data
        data += chunk
        messages: list[tuple[Any, ...]] = []
        at, end = 0, len(data)
        try:
            while end - at >= HEADER:
                n = frame_length(bytes(data[at:at + HEADER]))
                if end - at - HEADER < n:
                    break
                messages.append(decode(bytes(data[at + HEADER:at + HEADER + n])))
                at += HEADER + n
        finally:
            del data[:at]
        return messages

    def at_end(self) -> None:
        """The stream has ended: WireError when it ended inside a frame."""
        if self._data:
            raise WireError("the pipe ended inside a frame")


def messages(stream: BinaryIO) -> Iterator[tuple[Any, ...]]:
    """The messages of a blocking stream, in order, until it ends (WireError if it ends inside
    a frame).  Each read takes whatever has arrived (an unbuffered pipe returns that at once)."""
    frames = FrameBuffer()
    while True:
        chunk = stream.read(FrameBuffer.CHUNK)
        if not chunk:
            frames.at_end()
            return
        yield from frames.feed(chunk)


def portable_error(exc: BaseException) -> BaseException:
    """``exc`` if it survives pickling as it is, else a SamuelError naming its type and text."""
    try:
        back = pickle.loads(pickle.dumps(exc, protocol=pickle.HIGHEST_PROTOCOL))
        if type(back) is type(exc) and str(back) == str(exc):
            return exc
    except Exception:
        pass
    return SamuelError(f"{type(exc).__name__}: {exc}")
