"""The C fast path: ``FastMachine``, an emu704.cpu.Machine whose run loop is C (emu704._fast).

``FastMachine`` has Machine's whole API (run/step/state/attach/detach/read/write/load/reset,
the register attributes, ``mem``, ``xr``, ``halt_location``, ``stop_detail``) and gives the
same StopReasons, registers, indicators, memory, instruction and cycle counts.

How the work is split
---------------------
* **State lives in C.**  The registers, indicators and counters are fields of one
  ``emu704_cpu`` struct (emu704/csrc/cpu704.h); on FastMachine they are properties that
  read and write those fields, and ``mem`` is a list-like view of the struct's memory
  array.  Nothing is ever copied between a Python and a C copy of the machine.
* **C runs everything that is pure CPU**: fixed and floating point, logic, shifts, index
  registers, transfers (trapping mode included), the +-0760 CPU sub-ops and sense
  switches/lights.  Its dispatch tables and cycle costs are filled here from emu704.isa,
  the one instruction table: a mnemonic the C core has no ``EMU704_OP_<name>`` for is left
  to Python automatically, and each op is charged its entry's ``timing`` (the shift table
  and the divide-check costs too).
* **Python runs the rest, one instruction at a time, with the reference handlers.**  When
  the C loop meets an I/O instruction (RDS WRS CPY CAD LDA BST WEF REW), a device sense
  address (SPT SPR SPU, unknown +-0760 sub-ops), or anything that stops the machine other
  than a limit (HTR, HPR, DVH/FDH divide check, illegal codes) it returns with IC on that
  instruction, untouched; ``run()`` then executes exactly that instruction with
  ``Machine._execute(1)`` -- the same code the Python backend runs, working directly on the
  C state through the properties -- and calls C again.  Device semantics, stop details
  and ``halt_location`` therefore exist in one place, emu704/cpu.py.  The cost is one C
  call plus one Python-executed instruction (a few microseconds) per I/O instruction.
* **Decoding is cached per location in C** and tagged with the word it was decoded from,
  so stores by the program, by the Python handlers or by the host (``write``, ``mem[i] =``)
  need no invalidation.

Limits are checked before each instruction exactly as Machine.run does: the instruction
budget first, then "cycles spent by this call >= max_cycles".

Build the extension with ``pip install -e .`` or, for development,
``python emu704/csrc/build_fast.py`` (in place).
"""

from __future__ import annotations

import operator
import zlib
from collections.abc import Iterable, Iterator
from typing import Any, overload

from emu704.cpu import MEMORY_SIZES, Machine, StopReason
from emu704.isa import OPCODES, SHIFT_COUNT_MASK, Timing, b760_table, type_a_table, type_b_table

try:
    from emu704 import _fast
except ImportError as exc:  # pragma: no cover - exercised only without the build
    _fast = None
    _IMPORT_ERROR: ImportError | None = exc
else:
    _IMPORT_ERROR = None

_BATCH = 1 << 24
"""Instructions per C call when no limit is closer: keeps Ctrl-C responsive (< 1 s)."""
_NO_LIMIT = (1 << 64) - 1


class FastPathUnavailable(ImportError):
    """The C extension emu704._fast is not built (or failed to load)."""


def available() -> bool:
    """Whether the C fast path can be used."""
    return _fast is not None


def _module() -> Any:
    if _fast is None:
        why = f" ({_IMPORT_ERROR})" if _IMPORT_ERROR is not None else ""
        raise FastPathUnavailable(
            "the IBM 704 C fast path (emu704._fast) is not built: run `pip install -e .` in the "
            f"repository, or `python emu704/csrc/build_fast.py` to build it in place{why}"
        )
    return _fast


_ISA: Any = None


def _timing(mnemonic: str) -> Timing:
    timing = OPCODES[mnemonic].timing
    assert timing is not None, mnemonic
    return timing


def _isa() -> Any:
    """The dispatch tables and cycle costs, filled once from emu704.isa (see emu704/csrc/cpu704.h)."""
    global _ISA
    if _ISA is None:
        mod = _module()
        ffi, lib = mod.ffi, mod.lib
        isa = ffi.new("emu704_isa *")

        def op(mnemonic: str) -> int:
            return int(getattr(lib, f"EMU704_OP_{mnemonic}", lib.EMU704_OP_PY))

        for code, d in type_b_table().items():
            isa.code_op[code] = op(d.mnemonic)
            isa.code_indexed[code] = int(d.indexed)
        for prefix, d in type_a_table().items():
            isa.typea_op[prefix] = op(d.mnemonic)
        for sign in (0, 1):
            for address, d in b760_table(sign).items():
                if address >= 256:
                    raise RuntimeError(f"{d.mnemonic}: +-0760 sub-op {address:o} does not fit the C table")
                isa.b760_op[sign][address] = op(d.mnemonic)
        _fill_cycles(isa, lib)
        isa.halt_cycles[0] = _timing("HTR").base
        isa.halt_cycles[1] = _timing("HPR").base
        _ISA = isa
    return _ISA


def _fill_cycles(isa: Any, lib: Any) -> None:
    """op_cycles, check_cycles and shift_extra from the table's timings (one per C op)."""
    shift: Timing | None = None
    for mnemonic in c_operations():
        code = int(getattr(lib, f"EMU704_OP_{mnemonic}"))
        timing = _timing(mnemonic)
        isa.op_cycles[code] = timing.base
        if timing.divide_check is not None:
            isa.check_cycles[code] = timing.divide_check
        if timing.shift is not None:
            if shift not in (None, timing):
                raise RuntimeError("the C core has one shift table, but emu704.isa times the shifts apart")
            shift = timing
    if shift is not None:
        for n in range(SHIFT_COUNT_MASK + 1):
            isa.shift_extra[n] = shift.shift_cycles(n) - shift.base


def c_operations() -> frozenset[str]:
    """Mnemonics the C core executes itself (the rest go to the Python handlers)."""
    lib = _module().lib
    return frozenset(name[len("EMU704_OP_"):] for name in dir(lib)
                     if name.startswith("EMU704_OP_") and name not in ("EMU704_OP_PY", "EMU704_OP_COUNT"))


class CoreMemory:
    """The C core's memory as a list-like sequence of ints (index, slice, len, iteration)."""

    __slots__ = ("_n", "_words")

    def __init__(self, words: Any, n: int) -> None:
        self._words = words
        self._n = n

    def __len__(self) -> int:
        return self._n

    def _index(self, i: int) -> int:
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError("memory address out of range")
        return i

    @overload
    def __getitem__(self, index: int) -> int: ...

    @overload
    def __getitem__(self, index: slice) -> list[int]: ...

    def __getitem__(self, index: int | slice) -> int | list[int]:
        if isinstance(index, slice):
            start, stop, step = index.indices(self._n)
            if step == 1:
                return list(_fast.ffi.unpack(self._words + start, max(0, stop - start)))
            return [self._words[i] for i in range(start, stop, step)]
        return int(self._words[self._index(index)])

    @overload
    def __setitem__(self, index: int, value: int) -> None: ...

    @overload
    def __setitem__(self, index: slice, value: Iterable[int]) -> None: ...

    def __setitem__(self, index: int | slice, value: int | Iterable[int]) -> None:
        if isinstance(index, slice):
            assert not isinstance(value, int)
            start, stop, step = index.indices(self._n)
            positions = range(start, stop, step)
            values = list(value)
            if len(values) != len(positions):
                raise ValueError("core memory cannot change size")
            if step == 1:
                self._words[start:stop] = values
            else:
                for i, v in zip(positions, values, strict=True):
                    self._words[i] = v
            return
        assert isinstance(value, int)
        self._words[self._index(index)] = value

    def __iter__(self) -> Iterator[int]:
        return iter(_fast.ffi.unpack(self._words, self._n))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, CoreMemory):
            return list(self) == list(other)
        if isinstance(other, list):
            return list(self) == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<CoreMemory of {self._n} words>"


def _int_register(name: str, doc: str) -> property:
    get = operator.attrgetter(f"_cpu.{name}")  # C-level getter: the I/O path reads these a lot

    def put(self: FastMachine, value: int) -> None:
        setattr(self._cpu, name, value)

    return property(get, put, doc=doc)


def _flag(name: str, doc: str) -> property:
    def get(self: FastMachine) -> bool:
        return bool(getattr(self._cpu, name))

    def put(self: FastMachine, value: bool) -> None:
        setattr(self._cpu, name, 1 if value else 0)

    return property(get, put, doc=doc)


class FastMachine(Machine):
    """An IBM 704 (Machine) whose instructions run in C; see the module doc for the split."""

    backend = "c"

    def __init__(self, memory_words: int = 32768, *, fill: int = 0) -> None:
        if memory_words not in MEMORY_SIZES:
            raise ValueError(f"memory size must be one of {MEMORY_SIZES}, not {memory_words}")
        mod = _module()
        self._ffi, self._lib = mod.ffi, mod.lib
        self._cpu = self._ffi.new("emu704_cpu *")
        self._lib.emu704_init(self._cpu, _isa(), memory_words)
        self._core = CoreMemory(self._cpu.mem, memory_words)
        super().__init__(memory_words, fill=fill)  # sets mem, xr and the registers below

    # -- state held in the C struct ------------------------------------------------------------

    ac = _int_register("ac", "AC, 38 bits: S 37, Q 36, P 35, 1-35 in 34..0")
    mq = _int_register("mq", "MQ, a storage word")
    ic = _int_register("ic", "instruction counter")
    instructions = _int_register("instructions", "instructions executed")
    cycles = _int_register("cycles", "machine cycles (12 us each)")
    sense_lights = _int_register("sense_lights", "bit i-1 = sense light i")
    sense_switches = _int_register("sense_switches", "bit i-1 = sense switch i down")
    ac_overflow = _flag("ac_overflow", "AC overflow indicator")
    mq_overflow = _flag("mq_overflow", "MQ overflow indicator")
    divide_check = _flag("divide_check", "divide-check indicator")
    trap_mode = _flag("trap_mode", "trapping mode")
    tape_check = _flag("tape_check", "tape check indicator")
    end_of_tape = _flag("end_of_tape", "end-of-tape indicator")

    @property  # type: ignore[override]
    def mem(self) -> CoreMemory:
        """Core memory (a view of the C array); assigning a list copies it in."""
        return self._core

    @mem.setter
    def mem(self, words: Iterable[int]) -> None:
        self._core[:] = list(words)

    @property
    def xr(self) -> Any:
        """Index registers: xr[1], xr[2], xr[4] (a view of the C array of 8)."""
        return self._cpu.xr

    @xr.setter
    def xr(self, values: Iterable[int]) -> None:
        regs = self._cpu.xr
        for i, v in enumerate(values):
            regs[i] = v

    def _memory_crc(self) -> int:
        out = self._ffi.new("uint8_t[]", 5 * self.memory_words)
        self._lib.emu704_pack_memory(self._cpu, out)
        return zlib.crc32(self._ffi.buffer(out))

    # -- execution ------------------------------------------------------------------------------

    def run(self, max_instructions: int | None = None, max_cycles: int | None = None) -> StopReason:
        """As Machine.run: C runs until a limit or an instruction it leaves to Python, which
        the reference handler then executes (see the module doc)."""
        cpu = self._cpu
        run_c = self._lib.emu704_run
        to_python = self._lib.EMU704_RUN_PYTHON
        done = 0
        start_cycles = int(cpu.cycles)
        deadline = _NO_LIMIT
        if max_cycles is not None:
            deadline = min(max(start_cycles + max_cycles, 0), _NO_LIMIT)
        while True:
            budget = _BATCH
            if max_instructions is not None:
                left = max_instructions - done
                if left <= 0:
                    return StopReason.INSTRUCTION_LIMIT
                budget = min(budget, left)
            if max_cycles is not None and cpu.cycles - start_cycles >= max_cycles:
                return StopReason.CYCLE_LIMIT
            self.halt_location = None
            before = cpu.instructions
            status = run_c(cpu, budget, deadline)
            done += cpu.instructions - before
            if status == to_python:
                n, reason = self._execute(1)  # the reference handler, on the C state
                done += n
                if reason is not None:
                    return reason


__all__ = ["CoreMemory", "FastMachine", "FastPathUnavailable", "available", "c_operations"]
