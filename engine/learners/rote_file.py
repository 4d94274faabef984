"""A rote memory named by a file, opened for searches that read it and never save to it.

A match engine's ``rote=FILE`` and ``samuel analyse --rote FILE`` play with a memory
trained beforehand, the same for every game, so a match measures that memory and not
what the games taught it.  The file is either an SQLite store (``rote_store``, what
``samuel learn rote`` and the server's ``--rote`` write) or a reel the 704 program reads
(``engine.program704.write_rote_tape``, a SIMH ``.tap``); both backends take either.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from engine.errors import SamuelError
from engine.search import RoteSource


class RoteFileError(SamuelError):
    """The file named as a rote memory is missing or is neither a store nor a reel."""


def open_rote(path: str | os.PathLike[str]) -> RoteSource:
    """The memory in ``path``, for searches to read (a ``RoteMemory`` the caller never records to,
    or a ``RoteReel``); ``close_rote`` when done.  A missing file is refused, never made."""
    p = Path(path)
    if not p.is_file():
        raise RoteFileError(f"{p}: no such rote memory (a store from samuel learn rote or --rote, "
                            "or a .tap reel)")
    if p.stat().st_size == 0:  # SQLite would take it as a new store and write one: not for a reader
        raise RoteFileError(f"{p}: an empty file, not a rote memory")
    if p.suffix.lower() == ".tap":
        from engine.backend704 import RoteReel  # the emulator's tape format, only when asked for

        try:
            return RoteReel(p)
        except SamuelError as exc:
            raise RoteFileError(str(exc)) from None
    from engine.learners.rote import RoteMemory

    try:
        return RoteMemory(p)
    except SamuelError as exc:
        raise RoteFileError(f"{p}: not a rote memory: {exc}") from None


def close_rote(source: RoteSource | None) -> None:
    """Release what ``open_rote`` opened (a store's connection; a reel holds nothing open)."""
    close = getattr(source, "close", None)
    if close is not None:
        close()


_REELS: dict[Path, RoteSource] = {}
_REELS_LOCK = threading.Lock()


def is_reel(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` names a 704 reel (a ``.tap``), which searches read and nobody writes, rather
    than a store the sessions learn into."""
    return Path(path).suffix.lower() == ".tap"


def shared_reel(path: str | os.PathLike[str]) -> RoteSource:
    """One reel per file per process, for sessions that share it (the server's ``--rote FILE.tap``)."""
    key = Path(path).resolve()
    with _REELS_LOCK:
        reel = _REELS.get(key)
        if reel is None:
            reel = _REELS[key] = open_rote(key)
        return reel
