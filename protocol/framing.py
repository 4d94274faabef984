"""Reading frames (newline-ended lines, NUL-ended DXP messages) with a size limit.

An oversized frame is read to its end and thrown away, then reported as
LineTooLongError, so one bad line never desynchronises the stream that follows.
"""

from __future__ import annotations

import asyncio

from protocol.errors import LineTooLongError, ProtocolError

LONGEST_GAME_PLIES = (4 * (7 + 6 + 5) * 2 + 23) * (1 + 80) + 80
"""A bound on a legal game's length: at most 144 man steps (each man's rows to its
crowning row) and 23 captures, each followed by at most 80 quiet plies before the
40-move rule draws (about 13,600 plies)."""

DEFAULT_MAX_LINE = 128 * 1024
"""Longest line a session accepts (bytes, separator excluded): a Hub ``pos ... moves=``
or cb ``set gamehist`` line of the longest legal game (under 6 bytes a move, so
about 82 KB) fits, with room for the few longer capture moves a game can hold."""


async def read_frame(reader: asyncio.StreamReader, sep: bytes, max_len: int) -> bytes | None:
    """The next frame without its separator, or None at end of stream.

    A last frame cut off by the end of the stream is returned as it is.
    Raises LineTooLongError after skipping a frame longer than ``max_len``.
    """
    try:
        data = await reader.readuntil(sep)
    except asyncio.IncompleteReadError as exc:
        if not exc.partial:
            return None
        if len(exc.partial) > max_len:
            n = len(exc.partial)
            raise LineTooLongError(f"line of {n} bytes exceeds the limit of {max_len}") from None
        return exc.partial
    except asyncio.LimitOverrunError as exc:
        skipped = await _skip_to(reader, sep, exc.consumed)
        raise LineTooLongError(f"line of {skipped}+ bytes exceeds the limit of {max_len}") from None
    frame = data[: -len(sep)]
    if len(frame) > max_len:
        raise LineTooLongError(f"line of {len(frame)} bytes exceeds the limit of {max_len}")
    return frame


async def _skip_to(reader: asyncio.StreamReader, sep: bytes, pending: int) -> int:
    skipped = 0
    while True:
        if pending:
            chunk = await reader.read(pending)
            if not chunk:
                return skipped
            skipped += len(chunk)
        try:
            data = await reader.readuntil(sep)
            return skipped + len(data)
        except asyncio.IncompleteReadError as exc:
            return skipped + len(exc.partial)
        except asyncio.LimitOverrunError as exc:
            pending = max(1, exc.consumed)


def decode_text(frame: bytes) -> str:
    """A frame as text: UTF-8, without a trailing CR; ProtocolError naming the bad byte."""
    try:
        text = frame.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProtocolError(
            f"line is not valid UTF-8 (byte 0x{frame[exc.start]:02x} at offset {exc.start})"
        ) from None
    return text[:-1] if text.endswith("\r") else text


def stream_limit(max_len: int) -> int:
    """The StreamReader buffer limit that lets a frame of ``max_len`` plus separator through."""
    return max_len + 2
