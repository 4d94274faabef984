"""The contract between the CPU and its I/O devices (card reader, punch, printer).

The CPU knows devices only through this interface, so a device is one module
and the CPU never changes when one is added (SIMH's DEVICE table, py65's
memory observers).

Protocol (IBM 704 select + copy, see shared/reference/ibm704.md section 3.2):

* ``RDS Y`` / ``WRS Y`` select the device at address Y (octal 0321 reader,
  0341 punch, 0361 printer) for reading or writing; selecting any device
  first disconnects the one selected before.  An unknown address is an
  illegal-I/O stop.
* ``CPY Y`` moves one 36-bit word between the selected device and C(Y); the
  word also passes through MQ.  The device answers with a ``CopyResult``:
  ``WORD`` (go on at L+1), ``END_OF_FILE`` (L+2), ``END_OF_RECORD`` (L+3, the
  device disconnects; the next card or line needs a new select), or ``WAIT``:
  no card is queued yet, so ``run()`` stops with "waiting for input" and the
  CPY is executed again when the host resumes after queuing a card.
* A CPY with nothing selected is a programming error and stops the machine.
* ``PSE``/``MSE`` with a device's sense address (printer exits 0360-0372,
  punch 0341-0342) call ``sense(address)``; a True answer skips the next
  instruction.

Timed units (the 727 tape, emu704.tape).  A unit whose ``timed`` attribute is
True takes time the machine must wait for.  ``Machine.attach`` hands it a
``Link`` (its ``bind`` method), through which it reads the cycle counter
(``now``), holds the instruction being executed until the unit is ready
(``hold_until``: the 704's interlocks, charged to the cycle counter) and turns
on the tape indicators (ETT, RTT).  The CPU calls a timed unit's select, copy,
backspace, write-end-of-file and rewind with the counter exact to the cycle.
Units without ``timed`` cost the instruction's own cycles only.

Words are Python ints holding the 36-bit storage word, sign in bit 35.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Protocol


class CopyStatus(enum.Enum):
    WORD = "word"
    END_OF_FILE = "end of file"
    END_OF_RECORD = "end of record"
    WAIT = "wait"


@dataclass(frozen=True)
class CopyResult:
    status: CopyStatus
    word: int = 0
    """The word read (for a read); ignored for a write."""


class Device(Protocol):
    """One unit on the 704's I/O bus."""

    name: str
    addresses: tuple[int, ...]
    """Select addresses this unit answers (e.g. (0o321,) for the card reader)."""
    sense_addresses: tuple[int, ...]
    """PSE/MSE addresses routed to ``sense`` (printer exits 0360-0372, punch 0341-0342)."""

    def select(self, address: int, write: bool) -> None:
        """RDS (write=False) or WRS (write=True) of ``address``."""

    def disconnect(self) -> None:
        """Another device was selected, or the machine was reset."""

    def copy_in(self) -> CopyResult:
        """CPY after RDS: the next word, or a record/file mark, or WAIT."""

    def copy_out(self, word: int) -> CopyResult:
        """CPY after WRS: accept ``word`` (WORD) or END_OF_RECORD when the record is full."""

    def sense(self, address: int) -> bool:
        """PSE/MSE pulse or test at ``address``; True skips the next instruction."""


class Link(Protocol):
    """What a timed unit sees of the machine it is attached to (emu704.cpu.Machine gives one).

    Times are machine cycles (12 us each) on the machine's cycle counter.
    """

    def now(self) -> int:
        """The cycle at which the I/O instruction being executed transfers (the end of its own
        cycles), or the counter itself when no I/O instruction is being executed."""

    def hold_until(self, cycle: int) -> None:
        """Interlock: the instruction being executed finishes no earlier than ``cycle`` (the wait
        is added to the cycle counter).  Outside an I/O instruction it does nothing."""

    def set_end_of_tape(self) -> None:
        """Turn on the end-of-tape indicator (tested and turned off by ETT)."""

    def set_tape_check(self) -> None:
        """Turn on the tape-check (redundancy) indicator (tested and turned off by RTT)."""


class TimedDevice(Device, Protocol):
    """A Device that takes time: ``timed`` is True and ``bind`` receives the machine's Link
    when the unit is attached (None when it is detached)."""

    timed: bool

    def bind(self, link: Link | None) -> None:
        """Attach to (or, with None, detach from) a machine."""
