"""What every dialect session is handed: the server's settings and a writer type."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from importlib import metadata
from typing import Protocol

from protocol.framing import DEFAULT_MAX_LINE
from protocol.session_engine import SessionDefaults

ENGINE_NAME = "samuel"
ENGINE_AUTHOR = "the samuel developers (after Arthur L. Samuel, 1959)"
ENGINE_COUNTRY = "USA"

DXP_PORT = 27531
"""The DamExchange standard port."""
CB_PORT = 27532
"""The cb protocol's port: the one after DXP's."""
WEB_PORT = 27533
"""The board page's port in the examples (``--web-port``, off by default)."""


@functools.cache
def engine_version() -> str:
    try:
        return metadata.version("samuel")
    except metadata.PackageNotFoundError:
        return "0+unknown"


class Writer(Protocol):
    """What the sessions write to: an asyncio.StreamWriter or protocol.stdio.StdoutWriter."""

    def write(self, data: bytes) -> None: ...

    async def drain(self) -> None: ...

    def is_closing(self) -> bool: ...

    def close(self) -> None: ...


@dataclass(frozen=True)
class ServerSettings:
    """Limits and defaults shared by every session of one server process."""

    host: str = "127.0.0.1"
    dxp_port: int = DXP_PORT
    cb_port: int = CB_PORT
    max_sessions: int = 64
    """Connections beyond this get an error and are closed."""
    max_line: int = DEFAULT_MAX_LINE
    """Longest accepted line (bytes); DXP messages are capped at 127 by the protocol itself."""
    idle_timeout: float | None = 900.0
    """Seconds a TCP client may stay silent while the engine is idle (None: forever);
    also the margin a DXP opponent gets beyond the game's clock on its move."""
    write_timeout: float | None = 60.0
    """Seconds a TCP client may take none of our output before it is closed (None: forever)."""
    defaults: SessionDefaults = field(default_factory=SessionDefaults)
    dxp_frame: str = "literal"
    """How DXP GAMEREQ positions are read: ``literal`` (the spec, 32 squares in order)
    or ``pydraughts`` (its rotated, colour-swapped frame)."""
    hub_frame: str = "auto"
    """How Hub ``pos=`` is read: ``auto``, ``literal`` or ``pydraughts``."""
    dxp_movetime: float = 1.0
    """Seconds per move when a DXP GAMEREQ gives no thinking time (``000``)."""
    name: str = ENGINE_NAME
