"""Errors of the protocol layer (server side): each names what was wrong."""

from __future__ import annotations

from engine.errors import SamuelError


class ProtocolError(SamuelError, ValueError):
    """A line or message that does not follow the dialect's grammar."""


class LineTooLongError(ProtocolError):
    """A line or message longer than the dialect or the server allows."""
