"""One host call of a 704 routine from Python: words in, run to the return halt, words out.

A host that drives a 704 program (the checkers backend) calls its routines many
times a second, so the call is one C function (``emu704_call``): it stores the
input words, runs from the entry, and when the program halts at the agreed
return location reads the output words, with buffers made once per kind of
call.  A halt anywhere else is not a return: the call says where the program
stopped and what was there, so a host can report "executed a data word at
00145" instead of taking a stray halt for an answer.
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Sequence

from emu704.fast import FastMachine

NO_LIMIT = (1 << 63) - 1


class CallStatus(enum.IntEnum):
    RETURNED = 0
    """The program halted at the return location; ``outputs`` holds the answer."""
    LIMIT = 1
    """The cycle or instruction limit came first; ``resume()`` goes on exactly where it stopped."""
    STOPPED = 2
    """It stopped anywhere else (see ``HostCall.where``): an error for a host."""


_STATUSES = tuple(CallStatus)


class HostCallError(RuntimeError):
    """A routine that did not return where it should."""


class HostCall:
    """A prepared call of routines on ``machine``: fixed input and output addresses.

    ``call(words, entry)`` stores ``words`` at the input addresses (in order),
    runs from ``entry`` until the halt at ``return_at`` and leaves the output
    words in ``outputs``; cycles and instructions count exactly as the
    reference CPU counts them.
    """

    def __init__(self, machine: FastMachine, inputs: Sequence[int], outputs: Sequence[int],
                 return_at: int) -> None:
        ffi = machine._ffi
        self.machine = machine
        self._cpu = machine._cpu
        self._call = machine._lib.emu704_call
        self._n_in = len(inputs)
        self._n_out = len(outputs)
        self._in_addr = ffi.new("uint32_t[]", list(inputs) or [0])
        self._in_words = ffi.new("uint64_t[]", max(1, self._n_in))
        self._out_addr = ffi.new("uint32_t[]", list(outputs) or [0])
        self._out_words = ffi.new("uint64_t[]", max(1, self._n_out))
        self._unpack = ffi.unpack
        self.return_at = return_at

    def call(self, words: Sequence[int], entry: int, *, max_cycles: int | None = None,
             max_instructions: int | None = None) -> CallStatus:
        n = self._n_in
        if len(words) != n:
            raise ValueError(f"this call takes {n} input words, got {len(words)}")
        if n:
            self._in_words[0:n] = words
        if max_cycles is None and max_instructions is None:  # the common case, kept short
            status = self._call(self._cpu, entry, self._in_addr, self._in_words, n, self._out_addr,
                                self._out_words, self._n_out, self.return_at, NO_LIMIT, NO_LIMIT)
            if status == 0:
                self.machine.halt_location = self.return_at
            return _STATUSES[status]
        return self._run(entry, n, max_cycles, max_instructions)

    def resume(self, *, max_cycles: int | None = None, max_instructions: int | None = None) -> CallStatus:
        """Go on after a LIMIT (no inputs stored, ic as it was)."""
        return self._run(-1, 0, max_cycles, max_instructions)

    def _run(self, entry: int, n_in: int, max_cycles: int | None, max_instructions: int | None) -> CallStatus:
        cpu = self._cpu
        deadline = NO_LIMIT if max_cycles is None else min(cpu.cycles + max(0, max_cycles), NO_LIMIT)
        status = self._call(cpu, entry, self._in_addr, self._in_words, n_in, self._out_addr,
                            self._out_words, self._n_out, self.return_at,
                            NO_LIMIT if max_instructions is None else max(0, max_instructions), deadline)
        if status == CallStatus.RETURNED:
            self.machine.halt_location = self.return_at
        return _STATUSES[status]

    @property
    def outputs(self) -> list[int]:
        return self._unpack(self._out_words, self._n_out) if self._n_out else []

    def where(self, data_words: Collection[int] = ()) -> str:
        """What the machine stopped on after STOPPED, in words a user can act on."""
        m = self.machine
        ic = m.ic
        word = m.mem[ic]
        code = (word >> 24) & 0o7777
        if ic in data_words:
            return f"executed a data word at {ic:05o} (octal), not the return at {self.return_at:05o}"
        if code == 0o0000:
            return f"halted (HTR) at {ic:05o} (octal), not at the return {self.return_at:05o}"
        if code == 0o0420:
            return f"halted (HPR) at {ic:05o} (octal), not at the return {self.return_at:05o}"
        return f"stopped at {ic:05o} (octal) on word {word:012o}, an instruction the call does not run " \
               "(input/output or a divide check)"

    def check(self, status: CallStatus, data_words: Collection[int] = ()) -> None:
        """HostCallError for STOPPED (LIMIT and RETURNED are the caller's to handle)."""
        if status == CallStatus.STOPPED:
            raise HostCallError(self.where(data_words))


__all__ = ["NO_LIMIT", "CallStatus", "HostCall", "HostCallError"]
