"""IBM 704 central processor: registers, fetch/decode/execute loop, stop reasons.

Reference: shared/reference/ibm704.md sections 1, 2, 6, 7 (and the 1955 *704 Manual of
Operation*, form 24-6661-2, as transcribed in the comments of rhobbie/Sim704 ALU.cs).

Registers (``Machine`` attributes; all plain ``int``/``bool``)
--------------------------------------------------------------
::

    ac<S,Q,P,1:35>  accumulator, 38 bits held in one int:      bit 37 = S, 36 = Q, 35 = P,
                    34..0 = bits 1..35.  Q and P are overflow positions; logical
                    instructions use P as the 36th bit (P <-> S of storage words).
    mq<S,1:35>      multiplier-quotient, 36-bit word (sign in int bit 35).
    xr[1], xr[2], xr[4]
                    index registers A, B, C (tag bits 1, 2, 4), address width
                    (12/13/15 bits for 4K/8K/32K).  xr[0] is always 0; xr[3,5,6,7] unused.
    ic<0:14>        instruction counter, address width.
    ac_overflow     AC overflow indicator (TOV/TNO; FP AC characteristic over/underflow)
    mq_overflow     MQ overflow indicator (TQO; FP MQ characteristic over/underflow)
    divide_check    divide-check indicator (DCT)
    trap_mode       trapping mode (ETM/LTM)
    tape_check, end_of_tape   tape indicators (RTT/ETT), turned on by the 727 tape units
                    (emu704.tape)
    sense_lights    4 bits, bit i-1 = light i (SLF/SLN/SLT)
    sense_switches  6 bits, bit i-1 = switch i down (SWT); set by the host
    instructions, cycles      counters; ``time_us`` = cycles * 12
    io_wait_cycles  the part of ``cycles`` spent waiting for timed units (tape interlocks)

Instruction formats
-------------------
::

    Type A (TXI TIX TXH TNX TXL):
     S  1  2  3                  17 18 20 21                  35
    +--------+---------------------+-----+----------------------+
    | prefix |      decrement      | tag |       address        |
    +--------+---------------------+-----+----------------------+
     prefix (S,1,2) = +1 TXI, +2 TIX, +3 TXH, -2 TNX, -3 TXL; -1 (709 STR) is illegal.

    Type B (everything with bits 1,2 = 00):
     S  1  2  3            11 12 13 14 17 18 20 21                  35
    +--+-----+---------------+-----+-----+-----+----------------------+
    |S | 0 0 |   op code     | (ignored) | tag |       address        |
    +--+-----+---------------+-----+-----+-----+----------------------+
     op code = S + bits 3-11, written +0500 / -0500.  Bits 12-17 (the 709's indirect
     flag) are ignored: the 704 has no indirect addressing.  +0760 / -0760 use the
     effective address as a sub-op (CHS, SLN i ...); RDS/WRS/PSE/MSE use it as a device.

    Effective address Y = (address - (OR of the XRs selected by the tag)) mod memory size,
    for the instructions marked ``indexed`` in emu704.isa.  Loading an XR with several
    tag bits set loads every selected register.

Execution model
---------------
The instruction table is emu704.isa.OPCODES; the semantics are the ``op_*`` methods below,
attached to table entries with ``@instruction("CLA")`` (py65 style).  ``_decode`` turns a
word into ``(handler, address, index_tag, tag, decrement)`` once; the tuple is cached by
*word value* (a pure function of the word and the memory size), so stores never need to
invalidate anything and self-modifying code (STA into an instruction) just finds or makes
another entry.  A handler is ``fn(machine, y, tag, decrement, ic) -> next ic``.  Stops are
raised as ``_Stop``.

Cycle costs come from the table (``OpDef.timing``): the run loop charges ``BASIC_CYCLES`` for
every instruction, and a handler adds what its entry costs beyond that, through the ``_*_EXTRA``
constants below, which are computed from the table at import.  Only the parts the table gives
no formula for are code here: FAD/UFA alignment and normalization (``fad_align_extra``).
Importing this module fails if an instruction's table cost is not basic and no handler claims
it, so a table edit cannot be silently ignored.

Reasons to stop (``StopReason``, messages in ``STOP_MESSAGES``)
----------------------------------------------------------------
    HALT               HTR (restart at Y) or HPR (restart at the next instruction)
    ILLEGAL_OPERATION  a code the 704 does not have (709-only codes, -1 prefix, unknown
                       +-0760 sub-ops); IC stays on it
    DIVIDE_CHECK       DVH / FDH divide check; restart at the next instruction
    INSTRUCTION_LIMIT  run(max_instructions=) used up
    CYCLE_LIMIT        run(max_cycles=) used up
    WAITING_FOR_INPUT  CPY/CAD got CopyStatus.WAIT; IC stays on the CPY (retried on resume)
    IO_ERROR           RDS/WRS/PSE/MSE of an address no device answers, CPY with nothing
                       selected, or a device refusing the request; IC stays on it

To add a device
---------------
Write a class implementing emu704.iobus.Device (select/disconnect/copy_in/copy_out/sense,
``addresses``, optionally ``sense_addresses``) in its own module and ``machine.attach(dev)``.
Nothing in this file changes.  Tape/drum positioning (BST WEF REW LDA) call optional device
methods ``backspace()``, ``write_end_of_file()``, ``rewind()``, ``locate(word)``.

A unit that takes time (``timed = True``, emu704.iobus.TimedDevice: the 727 tape) is given a
Link on attach, to read the cycle counter and hold the instruction (interlocks).  The run loop
adds the basic cycles of a batch of instructions only when the batch ends, so the counter lags
inside a batch; an I/O instruction that reaches a timed unit therefore raises ``_IOSync``, the
batch ends just before it with the counters brought up to date, and the instruction is
executed again alone (``_execute_timed``) with ``cycles`` exact.  Untimed units never pay this.
"""

from __future__ import annotations

import enum
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from emu704 import iobus
from emu704.isa import (
    BASIC_CYCLES,
    OPCODES,
    SHIFT_COUNT_MASK,
    OpDef,
    Timing,
    b760_table,
    longest_cycles,
    type_a_table,
    type_b_table,
)
from emu704.word import (
    ADDR_FIELD,
    ADDR_MASK,
    DECR_FIELD,
    DECR_MASK,
    DECR_SHIFT,
    LEFT_HALF,
    MAG_MASK,
    PREFIX_FIELD,
    RIGHT_HALF,
    SIGN,
    TAG_MASK,
    TAG_SHIFT,
    WORD_MASK,
    format_instruction,
)

# AC layout (38 bits in one int).
AC_S = 1 << 37  # sign
AC_Q = 1 << 36
AC_P = 1 << 35
AC_MAG = (1 << 37) - 1  # Q,P,1-35
AC_PMAG = (1 << 36) - 1  # P,1-35 (the logical word)
AC_MASK = (1 << 38) - 1

FRAC = 0o777777777  # 27-bit floating-point fraction
FRAC_NORM = 0o400000000  # bit 9
CHAR10 = 0o1777  # AC characteristic incl. Q,P
CHAR8 = 0o377

MEMORY_SIZES = (4096, 8192, 32768)
CYCLE_US = 12
MAX_INSTRUCTION_CYCLES = longest_cycles()
"""Longest instruction in cycles by the table (a 255-place shift: 23); bounds the cycle-limit
look-ahead."""

_TAPE_ADDRESSES = range(0o201, 0o233)
_DEFAULT_SENSE = {0o361: range(0o360, 0o373), 0o341: range(0o341, 0o343)}
"""Sense addresses routed to a unit when it does not list ``sense_addresses``."""


class StopReason(enum.Enum):
    """Why ``run()`` returned.  ``.message`` is the human text (one table: STOP_MESSAGES)."""

    HALT = "halt"
    ILLEGAL_OPERATION = "illegal operation"
    DIVIDE_CHECK = "divide check"
    INSTRUCTION_LIMIT = "instruction limit"
    CYCLE_LIMIT = "cycle limit"
    WAITING_FOR_INPUT = "waiting for input"
    IO_ERROR = "I/O error"

    @property
    def message(self) -> str:
        return STOP_MESSAGES[self]


STOP_MESSAGES: dict[StopReason, str] = {
    StopReason.HALT: "HTR/HPR halt; START continues (HTR at Y, HPR at the next instruction)",
    StopReason.ILLEGAL_OPERATION: "operation check: not an IBM 704 instruction",
    StopReason.DIVIDE_CHECK: "divide check (DVH/FDH): machine stopped",
    StopReason.INSTRUCTION_LIMIT: "instruction limit reached",
    StopReason.CYCLE_LIMIT: "cycle limit reached",
    StopReason.WAITING_FOR_INPUT: "CPY is waiting for the next card (queue one and resume)",
    StopReason.IO_ERROR: "I/O error: no such device, nothing selected, or request refused",
}


class _IOSync(Exception):
    """Raised by an I/O handler that needs the exact cycle count (a timed unit): the batch ends
    before the instruction, which is then executed alone (``Machine._execute_timed``)."""


class _Stop(Exception):
    """Raised by a handler to stop ``run()``; not part of the API."""

    def __init__(self, reason: StopReason, next_ic: int | None, executed: bool, detail: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.next_ic = next_ic
        """IC after the stop; None = stay on the stopping instruction."""
        self.executed = executed
        """Whether the instruction counts as executed (counters, its cycles)."""
        self.detail = detail


@dataclass(frozen=True)
class MachineState:
    """Everything a second implementation (the C core) must reproduce, in comparable form."""

    ac: int
    mq: int
    xr: tuple[int, int, int]
    """A, B, C (tags 1, 2, 4)."""
    ic: int
    ac_overflow: bool
    mq_overflow: bool
    divide_check: bool
    trap_mode: bool
    tape_check: bool
    end_of_tape: bool
    sense_lights: int
    sense_switches: int
    instructions: int
    cycles: int
    memory_crc: int
    """zlib.crc32 over the memory words, each as 5 big-endian bytes, address 0 upwards."""


Handler = Callable[["Machine", int, int, int, int], int]
_HANDLERS: dict[str, Handler] = {}


def instruction(mnemonic: str) -> Callable[[Handler], Handler]:
    """Attach the decorated ``op_*`` method to the table entry ``mnemonic`` (py65 style)."""
    if mnemonic not in OPCODES:
        raise KeyError(f"{mnemonic} is not in emu704.isa.OPCODES")
    if OPCODES[mnemonic].kind in ("ALIAS_IO", "DATA"):
        raise ValueError(f"{mnemonic} is an assembler alias, not a machine operation")

    def register(fn: Handler) -> Handler:
        if mnemonic in _HANDLERS:
            raise ValueError(f"two handlers for {mnemonic}")
        _HANDLERS[mnemonic] = fn
        return fn

    return register


# -----------------------------------------------------------------------------------------
# Cycle costs, from the instruction table (emu704.isa).
# -----------------------------------------------------------------------------------------

_TIMED: set[str] = set()
"""Mnemonics whose handlers charge their table cost beyond BASIC_CYCLES (see _check_timing)."""


def _timing(*mnemonics: str) -> Timing:
    """The timing ``mnemonics`` have in the table; they share a handler, so it must be one."""
    timings = {OPCODES[mn].timing for mn in mnemonics}
    timing = timings.pop()
    if timings or timing is None:
        raise RuntimeError(f"{'/'.join(mnemonics)} share a handler but not a timing in emu704.isa")
    _TIMED.update(mnemonics)
    return timing


def _extra(*mnemonics: str) -> int:
    """Cycles the handler of ``mnemonics`` adds to the basic ones: the table's ``base`` less 2."""
    return _timing(*mnemonics).base - BASIC_CYCLES


def _check_extra(*mnemonics: str) -> int:
    """The same for a divide check ("20|3": 3 in all)."""
    check = _timing(*mnemonics).divide_check
    if check is None:
        raise RuntimeError(f"{'/'.join(mnemonics)}: no divide-check timing in emu704.isa")
    return check - BASIC_CYCLES


_ANA_EXTRA = _extra("ANA")
_ANS_EXTRA = _extra("ANS")
_CAS_EXTRA = _extra("CAS")
_MULTIPLY_EXTRA = _extra("MPY", "MPR")
_DIVIDE_EXTRA = _extra("DVH", "DVP")
_DIVIDE_CHECK_EXTRA = _check_extra("DVH", "DVP")
_FMUL_EXTRA = _extra("FMP", "UFM")
_FDIV_EXTRA = _extra("FDH", "FDP")
_FDIV_CHECK_EXTRA = _check_extra("FDH", "FDP")
_FAD_EXTRA = _extra("FAD", "FSB")
"""FAD/FSB from the least of "6-13" (an exact cancellation to zero); a result to normalize costs
``_FAD_NORMALIZE`` more, then ``fad_align_extra`` and a cycle per 4 normalizing shifts."""
_FAD_NORMALIZE = 1
_UFA_EXTRA = _extra("UFA", "UFS")
"""UFA/UFS: "5+", the + being ``fad_align_extra``."""
_SHIFT_EXTRA: tuple[int, ...] = tuple(
    _timing("ALS", "ARS", "LLS", "LRS", "LGL", "RQL").shift_cycles(n) - BASIC_CYCLES
    for n in range(SHIFT_COUNT_MASK + 1)
)
"""Shift count n (0..255) -> cycles beyond the basic ones ("2+(n+2)//12")."""


def _charged_by_the_run_loop(d: OpDef) -> bool:
    """Whether the BASIC_CYCLES the run loop charges are all ``d`` costs: its table figure is
    the basic one, or (I/O) the basic one plus device waits, which the timed units themselves
    charge through their Link (emu704.tape; the card units make no wait)."""
    t = d.timing
    assert t is not None
    plain = t.base == BASIC_CYCLES and t.divide_check is None and t.shift is None
    return plain and (not t.varies or d.kind == "IO")


def _check_timing(executable: set[str]) -> None:
    """Every instruction whose table cost is not the basic one has a handler charging it."""
    unclaimed = sorted(mn for mn in executable
                       if mn not in _TIMED and not _charged_by_the_run_loop(OPCODES[mn]))
    if unclaimed:
        raise RuntimeError(f"emu704.isa gives {unclaimed} costs no handler charges")


def shift_cycles(n: int) -> int:
    """Cycles of a shift by ``n`` places (n = 0..255), by the table: 2 + (n + 2) // 12."""
    return BASIC_CYCLES + _SHIFT_EXTRA[n & SHIFT_COUNT_MASK]


def fad_align_extra(shift: int) -> int:
    """Extra FAD/UFA cycles for aligning fractions ``shift`` places apart.

    Reference: +1 at a difference of 12, about +2 at 23; continued every 11 places.  A
    difference of 63 or more clears the fraction without shifting and costs nothing extra.
    """
    if shift < 12 or shift >= 63:
        return 0
    return 1 + (shift - 12) // 11


def _sign_key(negative: int, magnitude: int) -> int:
    """Ordering key for sign-magnitude values with +0 > -0 (CAS, TLQ)."""
    return -magnitude - 1 if negative else magnitude


class _MachineLink:
    """The machine as a timed unit sees it (emu704.iobus.Link)."""

    __slots__ = ("_m",)

    def __init__(self, machine: Machine) -> None:
        self._m = machine

    def now(self) -> int:
        m = self._m
        return m.cycles + BASIC_CYCLES if m._io_exact else m.cycles

    def hold_until(self, cycle: int) -> None:
        m = self._m
        if not m._io_exact:
            return
        wait = cycle - (m.cycles + BASIC_CYCLES)
        if wait > 0:
            m.cycles += wait
            m.io_wait_cycles += wait

    def set_end_of_tape(self) -> None:
        self._m.end_of_tape = True

    def set_tape_check(self) -> None:
        self._m.tape_check = True


class Machine:
    """An IBM 704 with 4K, 8K or 32K words of core and an I/O bus."""

    def __init__(self, memory_words: int = 32768, *, fill: int = 0) -> None:
        if memory_words not in MEMORY_SIZES:
            raise ValueError(f"memory size must be one of {MEMORY_SIZES}, not {memory_words}")
        self.memory_words = memory_words
        self.amask = memory_words - 1
        self.mem: list[int] = [fill & WORD_MASK] * memory_words
        self.xr: list[int] = [0] * 8  # never rebound: the run loop keeps a reference
        self._devices: dict[int, iobus.Device] = {}
        self._sense_devices: dict[int, iobus.Device] = {}
        self._decoded: dict[int, tuple[Handler, int, int, int, int]] = {}
        self._link = _MachineLink(self)
        self._io_exact = False
        """True while an I/O instruction runs alone with the counters exact (``_execute_timed``)."""
        self.sense_switches = 0
        self.reset()

    # -- console -----------------------------------------------------------------------------

    def reset(self) -> None:
        """RESET: clear registers, indicators and counters, disconnect the selected device.

        Memory and the sense switches are kept.
        """
        self.ac = 0
        self.mq = 0
        for i in range(8):
            self.xr[i] = 0
        self.ic = 0
        self.ac_overflow = False
        self.mq_overflow = False
        self.divide_check = False
        self.trap_mode = False
        self.tape_check = False
        self.end_of_tape = False
        self.sense_lights = 0
        self.instructions = 0
        self.cycles = 0
        self.io_wait_cycles = 0
        """Cycles (of ``cycles``) the machine waited for timed units: the tape interlocks."""
        self.halt_location: int | None = None
        """Location of the HTR/HPR/DVH/FDH that ended the last run() (None otherwise)."""
        self.stop_detail = ""
        """Human detail of the last stop (e.g. the illegal word and its location)."""
        selected = getattr(self, "_selected", None)
        if selected is not None:
            selected.disconnect()
        self._selected: iobus.Device | None = None
        self._selected_write = False

    @property
    def time_us(self) -> int:
        """Elapsed 704 time in microseconds (12 us per cycle)."""
        return self.cycles * CYCLE_US

    def set_sense_switch(self, i: int, down: bool) -> None:
        if not 1 <= i <= 6:
            raise ValueError("sense switches are numbered 1-6")
        bit = 1 << (i - 1)
        self.sense_switches = (self.sense_switches | bit) if down else (self.sense_switches & ~bit)

    def sense_light(self, i: int) -> bool:
        if not 1 <= i <= 4:
            raise ValueError("sense lights are numbered 1-4")
        return bool(self.sense_lights >> (i - 1) & 1)

    # -- memory and registers ----------------------------------------------------------------

    def read(self, address: int) -> int:
        return self.mem[address & self.amask]

    def write(self, address: int, word: int) -> None:
        self.mem[address & self.amask] = word & WORD_MASK

    def load(self, words: Iterable[int], origin: int = 0) -> None:
        """Store ``words`` at ``origin``, ``origin + 1``, ... (wrapping)."""
        for i, w in enumerate(words):
            self.write(origin + i, w)

    def get_xr(self, tag: int) -> int:
        """OR of the index registers selected by ``tag`` (0 for tag 0)."""
        xr = self.xr
        v = 0
        if tag & 1:
            v |= xr[1]
        if tag & 2:
            v |= xr[2]
        if tag & 4:
            v |= xr[4]
        return v

    def set_xr(self, tag: int, value: int) -> None:
        """Load every index register selected by ``tag`` (masked to the address width)."""
        xr = self.xr
        value &= self.amask
        if tag & 1:
            xr[1] = value
        if tag & 2:
            xr[2] = value
        if tag & 4:
            xr[4] = value

    @property
    def ac_word(self) -> int:
        """AC S,1-35 as a storage word (what STO stores)."""
        return ((self.ac >> 2) & SIGN) | (self.ac & MAG_MASK)

    def set_ac_word(self, word: int) -> None:
        """AC <- word as CLA does (Q,P cleared)."""
        self.ac = ((word & SIGN) << 2) | (word & MAG_MASK)

    @property
    def ac_value(self) -> int:
        """AC as a signed int including Q and P (-0 reads as 0)."""
        m = self.ac & AC_MAG
        return -m if self.ac & AC_S else m

    def state(self) -> MachineState:
        crc = self._memory_crc()
        return MachineState(
            ac=self.ac,
            mq=self.mq,
            xr=(self.xr[1], self.xr[2], self.xr[4]),
            ic=self.ic,
            ac_overflow=self.ac_overflow,
            mq_overflow=self.mq_overflow,
            divide_check=self.divide_check,
            trap_mode=self.trap_mode,
            tape_check=self.tape_check,
            end_of_tape=self.end_of_tape,
            sense_lights=self.sense_lights,
            sense_switches=self.sense_switches,
            instructions=self.instructions,
            cycles=self.cycles,
            memory_crc=crc,
        )

    def _memory_crc(self) -> int:
        """MachineState.memory_crc: CRC-32 of the words as 5 big-endian bytes each."""
        return zlib.crc32(b"".join(w.to_bytes(5, "big") for w in self.mem))

    # -- I/O bus -----------------------------------------------------------------------------

    def attach(self, device: iobus.Device) -> None:
        """Put ``device`` on the bus at its ``addresses`` (and sense addresses)."""
        for a in device.addresses:
            self._devices[a] = device
            self._sense_devices[a] = device
        sense = getattr(device, "sense_addresses", None)
        if sense is None:
            sense = [s for a in device.addresses for s in _DEFAULT_SENSE.get(a, ())]
        for a in sense:
            self._sense_devices[a] = device
        bind = getattr(device, "bind", None)
        if bind is not None:
            bind(self._link)

    def detach(self, device: iobus.Device) -> None:
        for table in (self._devices, self._sense_devices):
            for a in [a for a, d in table.items() if d is device]:
                del table[a]
        if self._selected is device:
            device.disconnect()
            self._selected = None
        bind = getattr(device, "bind", None)
        if bind is not None:
            bind(None)

    @property
    def selected_device(self) -> iobus.Device | None:
        return self._selected

    # -- execution ---------------------------------------------------------------------------

    def step(self) -> StopReason | None:
        """Execute one instruction; the stop reason if it stopped the machine, else None."""
        reason = self.run(max_instructions=1)
        return None if reason is StopReason.INSTRUCTION_LIMIT else reason

    def run(self, max_instructions: int | None = None, max_cycles: int | None = None) -> StopReason:
        """Run from ``ic`` until a stop, or until this call has executed ``max_instructions``
        instructions or spent ``max_cycles`` cycles (checked before each instruction)."""
        done = 0
        start_cycles = self.cycles
        while True:
            k = 1 << 20
            if max_instructions is not None:
                left = max_instructions - done
                if left <= 0:
                    return StopReason.INSTRUCTION_LIMIT
                k = min(k, left)
            if max_cycles is not None:
                left = max_cycles - (self.cycles - start_cycles)
                if left <= 0:
                    return StopReason.CYCLE_LIMIT
                # No instruction in this batch can start at or past the limit.
                k = min(k, max(1, left // MAX_INSTRUCTION_CYCLES))
            n, reason = self._execute(k)
            done += n
            if reason is not None:
                return reason

    def _execute(self, k: int) -> tuple[int, StopReason | None]:
        """Run at most ``k`` instructions; (instructions executed, stop reason or None)."""
        mem = self.mem
        xr = self.xr
        amask = self.amask
        lookup = self._decoded.get
        decode = self._decode
        ic = self.ic
        self.halt_location = None
        i = 0
        try:
            for i in range(k):  # noqa: B007 -- i is read after the loop / in the handler
                e = lookup(mem[ic])
                if e is None:
                    e = decode(mem[ic], ic)
                fn, a, ix, t, d = e
                if ix:
                    a = (a - xr[ix]) & amask
                ic = fn(self, a, t, d, ic) & amask
        except _Stop as stop:
            return self._stopped(stop, i, ic)
        except _IOSync:  # a timed unit: counters up to this instruction, then it alone
            self.ic = ic
            self.instructions += i
            self.cycles += BASIC_CYCLES * i
            n, reason = self._execute_timed(fn, a, t, d)
            return i + n, reason
        except BaseException:  # a device or host error: keep the registers consistent
            self.ic = ic
            self.instructions += i
            self.cycles += BASIC_CYCLES * i
            raise
        self.ic = ic
        self.instructions += k
        self.cycles += BASIC_CYCLES * k
        return k, None

    def _stopped(self, stop: _Stop, before: int, ic: int) -> tuple[int, StopReason]:
        """Counters and IC after ``stop`` was raised by the instruction at ``ic``, which follows
        ``before`` instructions of the batch."""
        n = before + 1 if stop.executed else before
        if stop.next_ic is not None:
            ic = stop.next_ic & self.amask
        self.ic = ic
        self.instructions += n
        self.cycles += BASIC_CYCLES * n
        self.stop_detail = stop.detail
        return n, stop.reason

    def _execute_timed(self, fn: Handler, y: int, t: int, d: int) -> tuple[int, StopReason | None]:
        """Execute the I/O instruction at ``ic`` (already decoded: ``fn(self, y, t, d, ic)``) with
        the counters exact, so a timed unit reads the true cycle count (see ``_IOSync``)."""
        ic = self.ic
        self._io_exact = True
        try:
            next_ic = fn(self, y, t, d, ic) & self.amask
        except _Stop as stop:
            return self._stopped(stop, 0, ic)
        finally:
            self._io_exact = False
        self.ic = next_ic
        self.instructions += 1
        self.cycles += BASIC_CYCLES
        return 1, None

    def _sync_for(self, device: iobus.Device | None) -> None:
        """Raise _IOSync unless the counters are exact or ``device`` is not a timed unit."""
        if not self._io_exact and device is not None and getattr(device, "timed", False):
            raise _IOSync

    def _decode(self, word: int, location: int) -> tuple[Handler, int, int, int, int]:
        """Decode ``word`` into its cached executable form, or stop on an illegal code."""
        address = word & ADDR_MASK & self.amask
        tag = (word >> TAG_SHIFT) & TAG_MASK
        if word >> 33 & 3:  # type A
            fn = _DISPATCH_A[word >> 33]
            if fn is None:
                raise _Stop(StopReason.ILLEGAL_OPERATION, None, False,
                            f"illegal type A word {format_instruction(word)} at {location:05o}")
            entry = (fn, address, 0, tag, (word >> DECR_SHIFT) & DECR_MASK & self.amask)
        else:
            code = (word >> 24) & 0o7777
            fn = _DISPATCH_B[code]
            if fn is None:
                raise _Stop(StopReason.ILLEGAL_OPERATION, None, False,
                            f"illegal operation {format_instruction(word)} at {location:05o}")
            ix = 0
            if _INDEXED[code] and tag:
                if tag in (1, 2, 4):
                    ix = tag
                else:  # several tags: the OR of the registers is subtracted
                    entry = (_op_multi_tag, address, 0, tag, _HANDLER_INDEX[fn])
                    self._cache(word, entry)
                    return entry
            if code & 0o777 == 0o760 and tag == 0:  # fixed +-0760 sub-op: bind it now
                fn = _SUBOPS[code >> 11].get(address, fn)
            entry = (fn, address, ix, tag, 0)
        self._cache(word, entry)
        return entry

    def _cache(self, word: int, entry: tuple[Handler, int, int, int, int]) -> None:
        if len(self._decoded) >= 1 << 16:
            self._decoded.clear()
        self._decoded[word] = entry

    # -- helpers used by the handlers --------------------------------------------------------

    def _transfer(self, taken: bool, y: int, ic: int) -> int:
        """Next IC of a transfer-class instruction, with trapping mode."""
        if self.trap_mode:
            self.mem[0] = (self.mem[0] & ~ADDR_FIELD & WORD_MASK) | ic
            return 1 if taken else ic + 1
        return y if taken else ic + 1

    def _add(self, w: int) -> None:
        """AC <- AC + w (sign-magnitude; carry changing P sets AC overflow; zero keeps AC sign)."""
        ac = self.ac
        am = ac & AC_MAG
        wm = w & MAG_MASK
        if (ac >> 37) == (w >> 35):
            r = (am + wm) & AC_MAG  # a carry out of Q is lost
            if (r ^ am) & AC_P:
                self.ac_overflow = True
            self.ac = (ac & AC_S) | r
        elif wm > am:
            self.ac = ((w >> 35) << 37) | (wm - am)
        else:
            self.ac = (ac & AC_S) | (am - wm)

    def _acl(self, w: int) -> None:
        """AC P,1-35 <- AC P,1-35 + w with end-around carry; S and Q unchanged."""
        s = (self.ac & AC_PMAG) + w
        s = (s & AC_PMAG) + (s >> 36)
        self.ac = (self.ac & (AC_S | AC_Q)) | s

    def _divide_check(self, halt: bool, ic: int, extra: int) -> int:
        """Divide check (``extra``: its cost beyond the basic cycles, "20|3": 1)."""
        self.divide_check = True
        self.cycles += extra
        if halt:
            self.halt_location = ic
            raise _Stop(StopReason.DIVIDE_CHECK, ic + 1, True, f"divide check at {ic:05o}")
        return ic + 1

    def _shift_count(self, y: int) -> int:
        n = y & SHIFT_COUNT_MASK
        self.cycles += _SHIFT_EXTRA[n]
        return n

    # ===================================================================================
    # Instruction semantics.  Signature: (self, y, tag, decrement, ic) -> next ic.
    # y is the effective address for indexed instructions, the raw address otherwise.
    # ===================================================================================

    # -- control and transfers ------------------------------------------------------------

    @instruction("HTR")
    def op_htr(self, y: int, t: int, d: int, ic: int) -> int:
        self.halt_location = ic
        raise _Stop(StopReason.HALT, y, True, f"HTR at {ic:05o}, restart at {y:05o}")

    @instruction("HPR")
    def op_hpr(self, y: int, t: int, d: int, ic: int) -> int:
        self.halt_location = ic
        raise _Stop(StopReason.HALT, ic + 1, True, f"HPR at {ic:05o}")

    @instruction("NOP")
    def op_nop(self, y: int, t: int, d: int, ic: int) -> int:
        return ic + 1

    @instruction("TRA")
    def op_tra(self, y: int, t: int, d: int, ic: int) -> int:
        if self.trap_mode:
            return self._transfer(True, y, ic)
        return y

    @instruction("TTR")
    def op_ttr(self, y: int, t: int, d: int, ic: int) -> int:
        return y

    @instruction("TZE")
    def op_tze(self, y: int, t: int, d: int, ic: int) -> int:
        return self._transfer(self.ac & AC_MAG == 0, y, ic)

    @instruction("TNZ")
    def op_tnz(self, y: int, t: int, d: int, ic: int) -> int:
        return self._transfer(self.ac & AC_MAG != 0, y, ic)

    @instruction("TPL")
    def op_tpl(self, y: int, t: int, d: int, ic: int) -> int:
        return self._transfer(not self.ac & AC_S, y, ic)

    @instruction("TMI")
    def op_tmi(self, y: int, t: int, d: int, ic: int) -> int:
        return self._transfer(bool(self.ac & AC_S), y, ic)

    @instruction("TOV")
    def op_tov(self, y: int, t: int, d: int, ic: int) -> int:
        taken = self.ac_overflow
        self.ac_overflow = False
        return self._transfer(taken, y, ic)

    @instruction("TNO")
    def op_tno(self, y: int, t: int, d: int, ic: int) -> int:
        taken = not self.ac_overflow
        self.ac_overflow = False
        return self._transfer(taken, y, ic)

    @instruction("TQP")
    def op_tqp(self, y: int, t: int, d: int, ic: int) -> int:
        return self._transfer(not self.mq & SIGN, y, ic)

    @instruction("TQO")
    def op_tqo(self, y: int, t: int, d: int, ic: int) -> int:
        taken = self.mq_overflow
        self.mq_overflow = False
        return self._transfer(taken, y, ic)

    @instruction("TLQ")
    def op_tlq(self, y: int, t: int, d: int, ic: int) -> int:
        mq, ac = self.mq, self.ac
        low = _sign_key(mq >> 35, mq & MAG_MASK) < _sign_key(ac >> 37, ac & AC_MAG)
        return self._transfer(low, y, ic)

    @instruction("TSX")
    def op_tsx(self, y: int, t: int, d: int, ic: int) -> int:
        self.set_xr(t, -ic)
        return self._transfer(True, y, ic)

    @instruction("TXI")
    def op_txi(self, y: int, t: int, d: int, ic: int) -> int:
        self.set_xr(t, self.get_xr(t) + d)
        return self._transfer(True, y, ic)

    @instruction("TIX")
    def op_tix(self, y: int, t: int, d: int, ic: int) -> int:
        x = self.get_xr(t)
        if x > d:
            self.set_xr(t, x - d)
            if self.trap_mode:
                return self._transfer(True, y, ic)
            return y
        return self._transfer(False, y, ic)

    @instruction("TNX")
    def op_tnx(self, y: int, t: int, d: int, ic: int) -> int:
        x = self.get_xr(t)
        if x > d:
            self.set_xr(t, x - d)
            return self._transfer(False, y, ic)
        return self._transfer(True, y, ic)

    @instruction("TXH")
    def op_txh(self, y: int, t: int, d: int, ic: int) -> int:
        return self._transfer(self.get_xr(t) > d, y, ic)

    @instruction("TXL")
    def op_txl(self, y: int, t: int, d: int, ic: int) -> int:
        return self._transfer(self.get_xr(t) <= d, y, ic)

    # -- fixed point and loads ---------------------------------------------------------------

    @instruction("CLA")
    def op_cla(self, y: int, t: int, d: int, ic: int) -> int:
        w = self.mem[y]
        self.ac = ((w & SIGN) << 2) | (w & MAG_MASK)
        return ic + 1

    @instruction("CLS")
    def op_cls(self, y: int, t: int, d: int, ic: int) -> int:
        w = self.mem[y]
        self.ac = ((~w & SIGN) << 2) | (w & MAG_MASK)
        return ic + 1

    @instruction("CAL")
    def op_cal(self, y: int, t: int, d: int, ic: int) -> int:
        self.ac = self.mem[y]  # storage S lands in AC P
        return ic + 1

    @instruction("ADD")
    def op_add(self, y: int, t: int, d: int, ic: int) -> int:
        self._add(self.mem[y])
        return ic + 1

    @instruction("ADM")
    def op_adm(self, y: int, t: int, d: int, ic: int) -> int:
        self._add(self.mem[y] & MAG_MASK)
        return ic + 1

    @instruction("SUB")
    def op_sub(self, y: int, t: int, d: int, ic: int) -> int:
        self._add(self.mem[y] ^ SIGN)
        return ic + 1

    @instruction("SBM")
    def op_sbm(self, y: int, t: int, d: int, ic: int) -> int:
        self._add(self.mem[y] | SIGN)
        return ic + 1

    @instruction("ACL")
    def op_acl(self, y: int, t: int, d: int, ic: int) -> int:
        self._acl(self.mem[y])
        return ic + 1

    def _multiply(self, y: int, rnd: bool) -> None:
        w, mq = self.mem[y], self.mq
        p = (mq & MAG_MASK) * (w & MAG_MASK)
        s = ((mq ^ w) >> 35) & 1
        hi = p >> 35
        lo = p & MAG_MASK
        if rnd and lo >> 34:
            hi += 1  # cannot reach P: hi <= 2**35 - 2
        self.ac = (s << 37) | hi
        self.mq = (s << 35) | lo
        self.cycles += _MULTIPLY_EXTRA

    @instruction("MPY")
    def op_mpy(self, y: int, t: int, d: int, ic: int) -> int:
        self._multiply(y, False)
        return ic + 1

    @instruction("MPR")
    def op_mpr(self, y: int, t: int, d: int, ic: int) -> int:
        self._multiply(y, True)
        return ic + 1

    def _divide(self, y: int, halt: bool, ic: int) -> int:
        w, ac = self.mem[y], self.ac
        wm = w & MAG_MASK
        am = ac & AC_MAG
        if wm <= am:  # |C(Y)| <= |AC| (Q,P included): no division, operands unchanged
            return self._divide_check(halt, ic, _DIVIDE_CHECK_EXTRA)
        q, r = divmod((am << 35) | (self.mq & MAG_MASK), wm)
        s = ac >> 37
        self.mq = (((s ^ (w >> 35)) & 1) << 35) | q
        self.ac = (s << 37) | r
        self.cycles += _DIVIDE_EXTRA
        return ic + 1

    @instruction("DVH")
    def op_dvh(self, y: int, t: int, d: int, ic: int) -> int:
        return self._divide(y, True, ic)

    @instruction("DVP")
    def op_dvp(self, y: int, t: int, d: int, ic: int) -> int:
        return self._divide(y, False, ic)

    @instruction("LDQ")
    def op_ldq(self, y: int, t: int, d: int, ic: int) -> int:
        self.mq = self.mem[y]
        return ic + 1

    # -- stores -------------------------------------------------------------------------------

    @instruction("STO")
    def op_sto(self, y: int, t: int, d: int, ic: int) -> int:
        ac = self.ac
        self.mem[y] = ((ac >> 2) & SIGN) | (ac & MAG_MASK)
        return ic + 1

    @instruction("SLW")
    def op_slw(self, y: int, t: int, d: int, ic: int) -> int:
        self.mem[y] = self.ac & AC_PMAG  # P goes to S
        return ic + 1

    @instruction("STZ")
    def op_stz(self, y: int, t: int, d: int, ic: int) -> int:
        self.mem[y] = 0
        return ic + 1

    @instruction("STQ")
    def op_stq(self, y: int, t: int, d: int, ic: int) -> int:
        self.mem[y] = self.mq
        return ic + 1

    @instruction("SLQ")
    def op_slq(self, y: int, t: int, d: int, ic: int) -> int:
        self.mem[y] = (self.mem[y] & RIGHT_HALF) | (self.mq & LEFT_HALF)
        return ic + 1

    @instruction("STA")
    def op_sta(self, y: int, t: int, d: int, ic: int) -> int:
        self.mem[y] = (self.mem[y] & ~ADDR_FIELD & WORD_MASK) | (self.ac & ADDR_FIELD)
        return ic + 1

    @instruction("STD")
    def op_std(self, y: int, t: int, d: int, ic: int) -> int:
        self.mem[y] = (self.mem[y] & ~DECR_FIELD & WORD_MASK) | (self.ac & DECR_FIELD)
        return ic + 1

    @instruction("STP")
    def op_stp(self, y: int, t: int, d: int, ic: int) -> int:
        # AC P,1,2 are int bits 35..33, the same positions as storage S,1,2.
        self.mem[y] = (self.mem[y] & ~PREFIX_FIELD & WORD_MASK) | (self.ac & PREFIX_FIELD)
        return ic + 1

    # -- logical --------------------------------------------------------------------------------

    @instruction("ANA")
    def op_ana(self, y: int, t: int, d: int, ic: int) -> int:
        self.ac &= self.mem[y]  # AC P,1-35 AND C(Y); S and Q cleared
        self.cycles += _ANA_EXTRA
        return ic + 1

    @instruction("ANS")
    def op_ans(self, y: int, t: int, d: int, ic: int) -> int:
        self.mem[y] &= self.ac & AC_PMAG
        self.cycles += _ANS_EXTRA
        return ic + 1

    @instruction("ORA")
    def op_ora(self, y: int, t: int, d: int, ic: int) -> int:
        self.ac |= self.mem[y]  # S and Q unchanged
        return ic + 1

    @instruction("ORS")
    def op_ors(self, y: int, t: int, d: int, ic: int) -> int:
        self.mem[y] |= self.ac & AC_PMAG
        return ic + 1

    @instruction("CAS")
    def op_cas(self, y: int, t: int, d: int, ic: int) -> int:
        w, ac = self.mem[y], self.ac
        a = _sign_key(ac >> 37, ac & AC_MAG)
        b = _sign_key(w >> 35, w & MAG_MASK)
        self.cycles += _CAS_EXTRA
        if a > b:
            return ic + 1
        return ic + 2 if a == b else ic + 3

    # -- shifts -----------------------------------------------------------------------------

    @instruction("ALS")
    def op_als(self, y: int, t: int, d: int, ic: int) -> int:
        n = self._shift_count(y)
        if n:
            ac = self.ac
            m = ac & AC_MAG
            body = m & MAG_MASK  # bits 1-35: the ones that pass through P
            if (body >> (35 - n) if n < 35 else body):
                self.ac_overflow = True
            self.ac = (ac & AC_S) | ((m << n) & AC_MAG)
        return ic + 1

    @instruction("ARS")
    def op_ars(self, y: int, t: int, d: int, ic: int) -> int:
        n = self._shift_count(y)
        self.ac = (self.ac & AC_S) | ((self.ac & AC_MAG) >> n)
        return ic + 1

    @instruction("LLS")
    def op_lls(self, y: int, t: int, d: int, ic: int) -> int:
        n = self._shift_count(y)
        mq = self.mq
        big = ((self.ac & AC_MAG) << 35) | (mq & MAG_MASK)  # Q,P,1-35 | MQ 1-35 (72 bits)
        if n:
            body = big & ((1 << 70) - 1)  # AC 1-35, MQ 1-35 pass through P
            if (body >> (70 - n) if n < 70 else body):
                self.ac_overflow = True
            big = (big << n) & ((1 << 72) - 1)
        self.ac = ((mq & SIGN) << 2) | (big >> 35)  # AC S <- MQ S
        self.mq = (mq & SIGN) | (big & MAG_MASK)
        return ic + 1

    @instruction("LRS")
    def op_lrs(self, y: int, t: int, d: int, ic: int) -> int:
        n = self._shift_count(y)
        ac = self.ac
        big = (((ac & AC_MAG) << 35) | (self.mq & MAG_MASK)) >> n
        self.ac = (ac & AC_S) | (big >> 35)
        self.mq = ((ac >> 2) & SIGN) | (big & MAG_MASK)  # MQ S <- AC S
        return ic + 1

    @instruction("LGL")
    def op_lgl(self, y: int, t: int, d: int, ic: int) -> int:
        n = self._shift_count(y)
        ac = self.ac
        big = ((ac & AC_MAG) << 36) | self.mq  # Q,P,1-35 | MQ S,1-35 (73 bits)
        if n:
            body = big & ((1 << 71) - 1)
            if (body >> (71 - n) if n < 71 else body):
                self.ac_overflow = True
            big = (big << n) & ((1 << 73) - 1)
        self.ac = (ac & AC_S) | (big >> 36)
        self.mq = big & WORD_MASK
        return ic + 1

    @instruction("RQL")
    def op_rql(self, y: int, t: int, d: int, ic: int) -> int:
        n = self._shift_count(y) % 36
        mq = self.mq
        self.mq = ((mq << n) | (mq >> (36 - n))) & WORD_MASK
        return ic + 1

    # -- index registers ----------------------------------------------------------------------

    @instruction("LXA")
    def op_lxa(self, y: int, t: int, d: int, ic: int) -> int:
        self.set_xr(t, self.mem[y])
        return ic + 1

    @instruction("LXD")
    def op_lxd(self, y: int, t: int, d: int, ic: int) -> int:
        self.set_xr(t, self.mem[y] >> DECR_SHIFT)
        return ic + 1

    @instruction("SXD")
    def op_sxd(self, y: int, t: int, d: int, ic: int) -> int:
        w = self.mem[y] & ~DECR_FIELD & WORD_MASK
        self.mem[y] = w | (self.get_xr(t) << DECR_SHIFT)
        return ic + 1

    @instruction("PAX")
    def op_pax(self, y: int, t: int, d: int, ic: int) -> int:
        self.set_xr(t, self.ac)
        return ic + 1

    @instruction("PDX")
    def op_pdx(self, y: int, t: int, d: int, ic: int) -> int:
        self.set_xr(t, self.ac >> DECR_SHIFT)
        return ic + 1

    @instruction("PXD")
    def op_pxd(self, y: int, t: int, d: int, ic: int) -> int:
        self.ac = self.get_xr(t) << DECR_SHIFT
        return ic + 1

    # -- floating point -------------------------------------------------------------------

    def _fp_result(self, sign: int, char: int, acf: int, mqf: int, ac_zero: bool) -> None:
        """Pack an FP result: AC <- sign,char(10 bits),acf; MQ <- sign,char-27,mqf.

        ``ac_zero``: the AC holds a normal zero (characteristics 0).  Sets AC/MQ overflow
        when the AC/MQ characteristic leaves 0..255.
        """
        if ac_zero:
            self.ac = sign << 37
            self.mq = (sign << 35) | mqf
            return
        if not 0 <= char <= CHAR8:
            self.ac_overflow = True
        mc = char - 27
        if not 0 <= mc <= CHAR8:
            self.mq_overflow = True
        self.ac = (sign << 37) | ((char & CHAR10) << 27) | acf
        self.mq = (sign << 35) | ((mc & CHAR8) << 27) | mqf

    def _fadd(self, w: int, normalize: bool) -> None:
        ac = self.ac
        a_s, a_c, a_f = ac >> 37, (ac >> 27) & CHAR10, ac & FRAC  # AC char includes Q,P
        b_s, b_c, b_f = w >> 35, (w >> 27) & CHAR8, w & FRAC
        if a_c > b_c:  # the smaller characteristic must be in the AC: interchange
            shift = a_c - b_c
            s_s, s_f = b_s, b_f
            g_s, g_c, g_f = a_s, a_c & CHAR8, a_f  # Q,P are lost in the interchange
        else:
            shift = b_c - a_c
            s_s, s_f = a_s, a_f
            g_s, g_c, g_f = b_s, b_c, b_f
        shift &= CHAR8
        small = (s_f << 27) >> shift if shift < 63 else 0  # AC:MQ, bits past MQ 35 lost
        big = g_f << 27
        if s_s == g_s:
            r, sign = small + big, g_s
        elif small >= big:
            r, sign = small - big, s_s  # includes an exact zero: sign of the aligned number
        else:
            r, sign = big - small, g_s
        char = g_c
        if r >> 54:  # fraction >= 1: shift right one, characteristic + 1
            r >>= 1
            char += 1
        extra = fad_align_extra(shift)
        acf = r >> 27
        if normalize:
            if acf == 0:  # 9a: normal zero (the 704 does not look at the MQ here)
                self._fp_result(sign, 0, 0, r & FRAC, True)
                self.cycles += _FAD_EXTRA + extra  # 6 in all, + alignment
                return
            k = 27 - acf.bit_length()
            if k:
                r <<= k
                char -= k
                acf = r >> 27
            extra += k // 4
            self.cycles += _FAD_EXTRA + _FAD_NORMALIZE + extra  # 7 + ...
        else:
            self.cycles += _UFA_EXTRA + extra  # 5 + ...
        self._fp_result(sign, char, acf, r & FRAC, False)

    @instruction("FAD")
    def op_fad(self, y: int, t: int, d: int, ic: int) -> int:
        self._fadd(self.mem[y], True)
        return ic + 1

    @instruction("UFA")
    def op_ufa(self, y: int, t: int, d: int, ic: int) -> int:
        self._fadd(self.mem[y], False)
        return ic + 1

    @instruction("FSB")
    def op_fsb(self, y: int, t: int, d: int, ic: int) -> int:
        self._fadd(self.mem[y] ^ SIGN, True)
        return ic + 1

    @instruction("UFS")
    def op_ufs(self, y: int, t: int, d: int, ic: int) -> int:
        self._fadd(self.mem[y] ^ SIGN, False)
        return ic + 1

    def _fmul(self, w: int, normalize: bool) -> None:
        mq = self.mq
        self.cycles += _FMUL_EXTRA  # 17 in all
        if w == 0:  # multiplication by +0: AC <- 0 with the MQ's sign, MQ magnitude <- 0
            self.ac = (mq & SIGN) << 2
            self.mq = mq & SIGN
            return
        sign = ((mq ^ w) >> 35) & 1
        char = ((mq >> 27) & CHAR8) + ((w >> 27) & CHAR8) - 128
        p = (mq & FRAC) * (w & FRAC)
        acf = p >> 27
        if normalize:
            if acf == 0:  # 4a: normal zero
                self._fp_result(sign, 0, 0, p & FRAC, True)
                return
            if not acf & FRAC_NORM:  # 4b: at most one normalizing shift
                p <<= 1
                char -= 1
                acf = (p >> 27) & FRAC
        self._fp_result(sign, char, acf, p & FRAC, False)

    @instruction("FMP")
    def op_fmp(self, y: int, t: int, d: int, ic: int) -> int:
        self._fmul(self.mem[y], True)
        return ic + 1

    @instruction("UFM")
    def op_ufm(self, y: int, t: int, d: int, ic: int) -> int:
        self._fmul(self.mem[y], False)
        return ic + 1

    def _fdiv(self, y: int, halt: bool, ic: int) -> int:
        w, ac = self.mem[y], self.ac
        a_f, b_f = ac & FRAC, w & FRAC
        if b_f == 0 or a_f >= 2 * b_f:  # divide check: no division, operands unchanged
            return self._divide_check(halt, ic, _FDIV_CHECK_EXTRA)
        a_s = ac >> 37
        q_s = (a_s ^ (w >> 35)) & 1
        self.cycles += _FDIV_EXTRA  # 18 in all
        if a_f == 0:  # zero dividend: MQ and AC cleared, signs kept
            self.mq = q_s << 35
            self.ac = a_s << 37
            return ic + 1
        a_c = (ac >> 27) & CHAR10  # Q,P count as characteristic bits
        if a_f >= b_f:  # shift the dividend right one (its bit 35 goes on via MQ 9)
            dividend = a_f << 26
            a_c += 1
        else:
            dividend = a_f << 27
        q, r = divmod(dividend, b_f)
        mc = a_c - ((w >> 27) & CHAR8) + 128
        if not 0 <= mc <= CHAR8:
            self.mq_overflow = True
        rc = a_c - 27
        if not 0 <= rc <= CHAR8:
            self.ac_overflow = True
        self.mq = (q_s << 35) | ((mc & CHAR8) << 27) | q
        self.ac = (a_s << 37) | ((rc & CHAR10) << 27) | r
        return ic + 1

    @instruction("FDH")
    def op_fdh(self, y: int, t: int, d: int, ic: int) -> int:
        return self._fdiv(y, True, ic)

    @instruction("FDP")
    def op_fdp(self, y: int, t: int, d: int, ic: int) -> int:
        return self._fdiv(y, False, ic)

    # -- the +0760 / -0760 group -----------------------------------------------------------------

    @instruction("PSE")
    def op_pse(self, y: int, t: int, d: int, ic: int) -> int:
        fn = _SUBOPS[0].get(y)
        if fn is not None:
            return fn(self, y, t, d, ic)
        return self._sense_device(y, ic, "+")

    @instruction("MSE")
    def op_mse(self, y: int, t: int, d: int, ic: int) -> int:
        fn = _SUBOPS[1].get(y)
        if fn is not None:
            return fn(self, y, t, d, ic)
        return self._sense_device(y, ic, "-")

    def _sense_device(self, y: int, ic: int, sign: str) -> int:
        dev = self._sense_devices.get(y)
        if dev is None:
            if y < 0o20:  # the CPU sub-op range: 709 operations (ENK, IOT, RCT ...)
                raise _Stop(StopReason.ILLEGAL_OPERATION, None, False,
                            f"{sign}0760 sub-op {y:04o} at {ic:05o} is not a 704 operation")
            raise _Stop(StopReason.IO_ERROR, None, False,
                        f"{sign}0760 {y:04o} at {ic:05o}: no unit answers this sense address")
        try:
            skip = dev.sense(y)
        except (RuntimeError, ValueError) as exc:
            raise _Stop(StopReason.IO_ERROR, None, False, f"sense {y:04o} at {ic:05o}: {exc}") from exc
        return ic + 2 if skip else ic + 1

    @instruction("CLM")
    def op_clm(self, y: int, t: int, d: int, ic: int) -> int:
        self.ac &= AC_S
        return ic + 1

    @instruction("LBT")
    def op_lbt(self, y: int, t: int, d: int, ic: int) -> int:
        return ic + 2 if self.ac & 1 else ic + 1

    @instruction("CHS")
    def op_chs(self, y: int, t: int, d: int, ic: int) -> int:
        self.ac ^= AC_S
        return ic + 1

    @instruction("SSP")
    def op_ssp(self, y: int, t: int, d: int, ic: int) -> int:
        self.ac &= AC_MAG
        return ic + 1

    @instruction("COM")
    def op_com(self, y: int, t: int, d: int, ic: int) -> int:
        self.ac ^= AC_MAG
        return ic + 1

    @instruction("ETM")
    def op_etm(self, y: int, t: int, d: int, ic: int) -> int:
        self.trap_mode = True
        return ic + 1

    @instruction("RND")
    def op_rnd(self, y: int, t: int, d: int, ic: int) -> int:
        if self.mq >> 34 & 1:  # MQ bit 1
            ac = self.ac
            m = ac & AC_MAG
            r = (m + 1) & AC_MAG
            if (r ^ m) & AC_P:
                self.ac_overflow = True
            self.ac = (ac & AC_S) | r
        return ic + 1

    @instruction("DCT")
    def op_dct(self, y: int, t: int, d: int, ic: int) -> int:
        if self.divide_check:
            self.divide_check = False
            return ic + 1
        return ic + 2

    @instruction("PBT")
    def op_pbt(self, y: int, t: int, d: int, ic: int) -> int:
        return ic + 2 if self.ac & AC_P else ic + 1

    @instruction("SSM")
    def op_ssm(self, y: int, t: int, d: int, ic: int) -> int:
        self.ac |= AC_S
        return ic + 1

    @instruction("LTM")
    def op_ltm(self, y: int, t: int, d: int, ic: int) -> int:
        self.trap_mode = False
        return ic + 1

    @instruction("ETT")
    def op_ett(self, y: int, t: int, d: int, ic: int) -> int:
        if self.end_of_tape:
            self.end_of_tape = False
            return ic + 1
        return ic + 2

    @instruction("RTT")
    def op_rtt(self, y: int, t: int, d: int, ic: int) -> int:
        if self.tape_check:
            self.tape_check = False
            return ic + 1
        return ic + 2

    @instruction("SLF")
    def op_slf(self, y: int, t: int, d: int, ic: int) -> int:
        self.sense_lights = 0
        return ic + 1

    @instruction("SLN")
    def op_sln(self, y: int, t: int, d: int, ic: int) -> int:
        self.sense_lights |= 1 << (y - 0o141)
        return ic + 1

    @instruction("SLT")
    def op_slt(self, y: int, t: int, d: int, ic: int) -> int:
        bit = 1 << (y - 0o141)
        if self.sense_lights & bit:
            self.sense_lights &= ~bit
            return ic + 2
        return ic + 1

    @instruction("SWT")
    def op_swt(self, y: int, t: int, d: int, ic: int) -> int:
        return ic + 2 if self.sense_switches >> (y - 0o161) & 1 else ic + 1

    @instruction("SPT")
    def op_spt(self, y: int, t: int, d: int, ic: int) -> int:
        return self._sense_device(y, ic, "+")

    @instruction("SPR")
    def op_spr(self, y: int, t: int, d: int, ic: int) -> int:
        return self._sense_device(y, ic, "+")

    @instruction("SPU")
    def op_spu(self, y: int, t: int, d: int, ic: int) -> int:
        return self._sense_device(y, ic, "+")

    # -- input / output ------------------------------------------------------------------

    def _select(self, y: int, write: bool, ic: int) -> int:
        dev = self._devices.get(y)
        self._sync_for(dev)
        what = "WRS" if write else "RDS"
        if dev is None:
            raise _Stop(StopReason.IO_ERROR, None, False, f"{what} {y:04o} at {ic:05o}: no such device")
        if self._selected is not None:
            self._selected.disconnect()
            self._selected = None
        try:
            dev.select(y, write)
        except (RuntimeError, ValueError) as exc:
            raise _Stop(StopReason.IO_ERROR, None, False, f"{what} {y:04o} at {ic:05o}: {exc}") from exc
        self._selected = dev
        self._selected_write = write
        if not write and y in _TAPE_ADDRESSES:
            self.mq = 0  # manual: RDS of a tape unit clears the MQ
        return ic + 1

    @instruction("RDS")
    def op_rds(self, y: int, t: int, d: int, ic: int) -> int:
        return self._select(y, False, ic)

    @instruction("WRS")
    def op_wrs(self, y: int, t: int, d: int, ic: int) -> int:
        return self._select(y, True, ic)

    def _copy(self, y: int, ic: int, add: bool) -> int:
        """CPY (and CAD when ``add``): L+1 word, L+2 end of file, L+3 end of record."""
        dev = self._selected
        self._sync_for(dev)
        name = "CAD" if add else "CPY"
        if dev is None:
            raise _Stop(StopReason.IO_ERROR, None, False, f"{name} at {ic:05o} with no device selected")
        try:
            if self._selected_write:
                word = self.mem[y]
                result = dev.copy_out(word)
            else:
                result = dev.copy_in()
                word = result.word & WORD_MASK
        except (RuntimeError, ValueError) as exc:
            raise _Stop(StopReason.IO_ERROR, None, False, f"{name} at {ic:05o}: {exc}") from exc
        status = result.status
        if status is iobus.CopyStatus.WORD:
            if not self._selected_write:
                self.mem[y] = word
            self.mq = word  # the word passes through the MQ
            if add:
                self._acl(word)
            return ic + 1
        if status is iobus.CopyStatus.END_OF_RECORD:
            return ic + 3
        if status is iobus.CopyStatus.END_OF_FILE:
            return ic + 2
        raise _Stop(StopReason.WAITING_FOR_INPUT, None, False, f"{name} at {ic:05o} waits for input")

    @instruction("CPY")
    def op_cpy(self, y: int, t: int, d: int, ic: int) -> int:
        return self._copy(y, ic, False)

    @instruction("CAD")
    def op_cad(self, y: int, t: int, d: int, ic: int) -> int:
        return self._copy(y, ic, True)

    def _unit_call(self, name: str, method: str, dev: iobus.Device | None, arg: int | None,
                   y: int, ic: int) -> int:
        self._sync_for(dev)
        fn = getattr(dev, method, None)
        if fn is None:
            raise _Stop(StopReason.IO_ERROR, None, False,
                        f"{name} {y:04o} at {ic:05o}: no unit that can {method.replace('_', ' ')}")
        try:
            fn() if arg is None else fn(arg)
        except (RuntimeError, ValueError) as exc:
            raise _Stop(StopReason.IO_ERROR, None, False, f"{name} {y:04o} at {ic:05o}: {exc}") from exc
        return ic + 1

    @instruction("LDA")
    def op_lda(self, y: int, t: int, d: int, ic: int) -> int:
        return self._unit_call("LDA", "locate", self._selected, self.mem[y], y, ic)

    @instruction("BST")
    def op_bst(self, y: int, t: int, d: int, ic: int) -> int:
        return self._unit_call("BST", "backspace", self._devices.get(y), None, y, ic)

    @instruction("WEF")
    def op_wef(self, y: int, t: int, d: int, ic: int) -> int:
        return self._unit_call("WEF", "write_end_of_file", self._devices.get(y), None, y, ic)

    @instruction("REW")
    def op_rew(self, y: int, t: int, d: int, ic: int) -> int:
        return self._unit_call("REW", "rewind", self._devices.get(y), None, y, ic)


CPU = Machine
"""Alias: the 704 *is* its CPU here; memory and the I/O bus belong to the same object."""


# -----------------------------------------------------------------------------------------
# Dispatch tables, built once from emu704.isa.OPCODES and the @instruction handlers.
# -----------------------------------------------------------------------------------------

def _op_multi_tag(m: Machine, a: int, t: int, d: int, ic: int) -> int:
    """Indexed instruction with several tag bits: subtract the OR of the selected XRs.

    ``d`` carries the index of the real handler in ``_HANDLER_LIST`` (type B words have no
    decrement, so the slot is free)."""
    return _HANDLER_LIST[d](m, (a - m.get_xr(t)) & m.amask, t, 0, ic)


def _build_dispatch() -> tuple[list[Handler | None], list[Handler | None], list[bool],
                               tuple[dict[int, Handler], dict[int, Handler]]]:
    executable = {mn for mn, d in OPCODES.items() if d.kind in ("A", "B", "B760", "IO")}
    missing = executable - _HANDLERS.keys()
    if missing:
        raise RuntimeError(f"instructions without semantics: {sorted(missing)}")
    _check_timing(executable)
    dispatch_b: list[Handler | None] = [None] * 0o10000
    indexed = [False] * 0o10000
    for code, d in type_b_table().items():
        dispatch_b[code] = _HANDLERS[d.mnemonic]
        indexed[code] = d.indexed
    dispatch_a: list[Handler | None] = [None] * 8
    for prefix, d in type_a_table().items():
        dispatch_a[prefix] = _HANDLERS[d.mnemonic]
    subops = (
        {a: _HANDLERS[d.mnemonic] for a, d in b760_table(0).items()},
        {a: _HANDLERS[d.mnemonic] for a, d in b760_table(1).items()},
    )
    return dispatch_b, dispatch_a, indexed, subops


_DISPATCH_B, _DISPATCH_A, _INDEXED, _SUBOPS = _build_dispatch()
_HANDLER_LIST: list[Handler] = list(_HANDLERS.values())
_HANDLER_INDEX: dict[Handler, int] = {fn: i for i, fn in enumerate(_HANDLER_LIST)}

__all__ = [
    "CPU",
    "CYCLE_US",
    "MEMORY_SIZES",
    "STOP_MESSAGES",
    "Machine",
    "MachineState",
    "StopReason",
    "instruction",
    "shift_cycles",
]
