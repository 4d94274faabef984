"""IBM 704 emulator: CPU (``cpu``), instruction table (``isa``), 36-bit words (``word``), I/O bus (``iobus``).

``Machine`` (alias ``CPU``) and ``StopReason`` are re-exported lazily, so importing a small module
such as ``emu704.word`` or ``emu704.isa`` does not load the CPU.  ``emu704.fast.FastMachine`` is the
same machine with its run loop in C (the ``emu704._fast`` extension); ``emu704.bench`` measures both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from emu704.cpu import CPU, Machine, StopReason

__all__ = ["CPU", "Machine", "StopReason"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from emu704 import cpu

        return getattr(cpu, name)
    raise AttributeError(f"module 'emu704' has no attribute {name!r}")
