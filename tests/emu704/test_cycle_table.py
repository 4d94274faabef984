"""Cycle costs: every instruction of emu704.isa, on the Python reference and on the C core,
costs what its table entry says (``OpDef.cycles`` / ``OpDef.timing``).

The table is the one place the costs are written: emu704.cpu computes its handlers' extras
from it at import, and emu704.fast hands the C core its cycle tables at start-up.  This file
checks the result on both backends for every mnemonic, with several operands where the cost
depends on them:

* a fixed figure ("2", "3", "17", "20") is charged exactly, whatever the operands;
* "20|3" / "18|3": the first figure for a division, the second for a divide check (which
  halts for DVH/FDH and proceeds for DVP/FDP);
* "2+(n+2)//12": every shift count 0..255 (and counts past 255, which wrap), against the
  formula evaluated as written in the table;
* "6-13" (FAD/FSB) and "5+" (UFA/UFS): inside the range on many operands, and the table's
  least figure where the reference says so (an exact cancellation; a small alignment);
* I/O ("2+", "2+wait", "-", LDA "2"): the first figure, since the emulated devices never
  make the CPU wait.

It also checks that a table edit reaches both backends: the C core charges an edited figure,
and the Python reference refuses to import a cost no handler charges.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from emu704 import cpu, fast
from emu704.cpu import MAX_INSTRUCTION_CYCLES, Machine, StopReason, shift_cycles
from emu704.fast import FastMachine, c_operations
from emu704.host_call import CallStatus, HostCall
from emu704.iobus import CopyResult, CopyStatus
from emu704.isa import (
    BASIC_CYCLES,
    OPCODES,
    OpDef,
    Timing,
    encode,
    longest_cycles,
    parse_cycles,
)
from emu704.word import MAG_MASK, SIGN, WORD_MASK, float_to_word

ORIGIN = 0o100
"""Where the instruction under test (after any set-up instructions) is stored."""
Y = 0o200
"""Its operand address."""
DEVICE = 0o500
"""Select and sense address of the test unit that no named +-0760 sub-op covers."""
EXECUTED = (None, StopReason.HALT, StopReason.DIVIDE_CHECK)
"""step() results of an instruction that was executed (and so charged)."""

EXECUTABLE = sorted(mn for mn, d in OPCODES.items() if d.kind != "DATA")


class Unit:
    """A unit that answers every select and sense address the table names, and can locate,
    backspace, write an end of file and rewind: every I/O instruction executes on it."""

    name = "test unit"

    def __init__(self) -> None:
        aliases = [d for d in OPCODES.values() if d.kind == "ALIAS_IO"]
        selects = {DEVICE} | {a.sub_op + i for a in aliases if a.sub_op is not None
                              for i in (range(a.operand_range[0], a.operand_range[1] + 1)
                                        if a.operand_range else (0,))}
        self.addresses = tuple(sorted(selects))
        self.sense_addresses = (DEVICE, *range(0o340, 0o343), *range(0o360, 0o373))

    def select(self, address: int, write: bool) -> None:
        pass

    def disconnect(self) -> None:
        pass

    def copy_in(self) -> CopyResult:
        return CopyResult(CopyStatus.WORD, 0o123)

    def copy_out(self, word: int) -> CopyResult:
        return CopyResult(CopyStatus.WORD)

    def sense(self, address: int) -> bool:
        return False

    def locate(self, word: int) -> None:
        pass

    def backspace(self) -> None:
        pass

    def write_end_of_file(self) -> None:
        pass

    def rewind(self) -> None:
        pass


@dataclass
class Case:
    """One execution of the instruction ``word`` with the given state."""

    label: str
    word: int
    ac: int = 0
    mq: int = 0
    operand: int = 0
    xr: tuple[int, int, int] = (0, 0, 0)
    before: list[int] = field(default_factory=list)
    """Instructions executed first (a select before CPY/LDA); their cycles are not counted."""
    check: bool = False
    """Expect the divide-check figure ("20|3": 3) rather than the ordinary one."""


class Rig:
    """One machine per backend, reset between cases, with the test unit attached."""

    def __init__(self) -> None:
        self.machines: list[Machine] = [Machine(4096), FastMachine(4096)]
        for m in self.machines:
            m.attach(Unit())

    def charge(self, case: Case) -> list[int]:
        """Cycles the instruction cost on each backend."""
        out = []
        for m in self.machines:
            m.reset()
            m.ac, m.mq = case.ac, case.mq
            m.xr = [0, case.xr[0], case.xr[1], 0, case.xr[2], 0, 0, 0]
            m.write(Y, case.operand)
            m.load([*case.before, case.word], ORIGIN)
            m.ic = ORIGIN
            for _ in case.before:
                assert m.step() is None, case.label
            start = m.cycles
            reason = m.step()
            assert reason in EXECUTED, f"{case.label} on {type(m).__name__}: {reason} {m.stop_detail}"
            out.append(m.cycles - start)
        return out


@pytest.fixture(scope="module")
def rig() -> Rig:
    assert fast.available(), "the C fast path is not built (pip install -e .)"
    return Rig()


def timing_of(d: OpDef) -> Timing:
    t = d.timing
    assert t is not None
    return t


# -- operands ----------------------------------------------------------------------------------

RNG = random.Random(704)
WORDS = [0, 1, SIGN, SIGN | 1, MAG_MASK, WORD_MASK, 0o252525252525, 0o525252525252,
         *(RNG.getrandbits(36) for _ in range(6))]
FLOATS = [0.0, 1.0, -1.0, 0.5, 3.0, -3.0, 1e-3, 1e3, 2.0**-20, 2.0**30, 123.456, -7.25e-9]


def fword(x: float) -> int:
    return float_to_word(x)


def ac_word(w: int) -> int:
    """The AC as CLA would load the storage word ``w``."""
    return ((w & SIGN) << 2) | (w & MAG_MASK)


def float_pairs() -> Iterator[tuple[str, int, int]]:
    """(label, AC word, C(Y)) pairs for the floating add family: alignments 0..beyond 63,
    exact cancellations, zeros, deep normalization, unnormalized operands."""
    for a in FLOATS:
        for b in FLOATS:
            yield f"{a!r} {b!r}", fword(a), fword(b)
    for x in (1.0, 0.75, -5.5, 1e10):
        yield f"{x!r} - itself", fword(x), fword(-x)
    for d in (0, 1, 11, 12, 22, 23, 34, 45, 56, 62, 63, 64, 100):
        yield f"alignment {d}", fword(1.5), fword(1.5 * 2.0**-d)
        yield f"alignment {d}, opposite signs", fword(1.5), fword(-1.25 * 2.0**-d)
    for k in (1, 4, 8, 16, 24, 26):  # nearly equal: k normalizing shifts
        yield f"cancel to 2^-{k}", fword(1.0), fword(-(1.0 - 2.0**-k))
    yield "unnormalized", 0o201000000001, 0o200000000003
    for _ in range(20):
        yield "random", RNG.getrandbits(36), RNG.getrandbits(36)


# -- the cases of each mnemonic ----------------------------------------------------------------


def plain_cases(d: OpDef) -> Iterator[Case]:
    """An instruction with the operand, AC, MQ and tag drawn from WORDS (index registers set)."""
    for i, w in enumerate(WORDS):
        tag = i % 8  # indexing (even by several registers) costs nothing
        yield Case(f"C(Y)={w:012o} tag {tag}", encode(d, Y, tag), ac=ac_word(WORDS[-1 - i]), mq=WORDS[i // 2],
                   operand=w, xr=(i, 2 * i, 3 * i))


def type_a_cases(d: OpDef) -> Iterator[Case]:
    for x in (0, 1, 5, 0o7777):
        for dec in (0, 1, 5):
            yield Case(f"XR={x} D={dec}", encode(d, Y, 1, dec), xr=(x, 0, 0))


def b760_cases(d: OpDef) -> Iterator[Case]:
    if d.sub_op is None:  # PSE / MSE: a device sense, and (indexed) a CPU sub-op found at run time
        yield Case("sense", encode(d, DEVICE))
        sub = OPCODES["CHS" if d.sign == 0 else "SSM"]
        assert sub.sub_op is not None
        yield Case(f"indexed {sub.mnemonic}", encode(d, sub.sub_op + 1, 1), xr=(1, 0, 0))
        return
    operands = range(d.operand_range[0], d.operand_range[1] + 1) if d.operand_range else (0,)
    for i in operands:
        for ac in (0, ac_word(SIGN | 1), (1 << 38) - 1):
            yield Case(f"operand {i} AC={ac:o}", encode(d, i), ac=ac, mq=WORDS[i % len(WORDS)])


def io_cases(d: OpDef) -> Iterator[Case]:
    mn = d.executes_as
    if d.kind == "ALIAS_IO":
        operands = range(d.operand_range[0], d.operand_range[1] + 1) if d.operand_range else (0,)
        for i in operands:
            yield Case(f"operand {i}", encode(d, i))
    elif mn in ("RDS", "WRS", "BST", "WEF", "REW"):
        yield Case("unit", encode(d, DEVICE))
    elif mn in ("CPY", "CAD"):
        for select in ("RDS", "WRS"):
            for w in WORDS[:4]:
                yield Case(f"after {select}", encode(d, Y), operand=w, ac=ac_word(w),
                           before=[encode(select, DEVICE)])
    else:  # LDA: locate on the selected unit
        yield Case("after RDS", encode(d, Y), operand=0o7, before=[encode("RDS", DEVICE)])


def divide_cases(d: OpDef) -> Iterator[Case]:
    """Divisions (AC / C(Y), as storage words), then divide checks: |C(Y)| <= |AC| (fixed), a
    divisor fraction of 0 (floating)."""
    if d.mnemonic in ("FDH", "FDP"):
        quotients = [(0.5, 3.0), (-7.0, 2.0), (1e6, -1e-6), (0.0, 5.0), (3.0, 3.0)]
        pairs = [(fword(a), fword(b)) for a, b in quotients]
        checks = [(fword(1.0), 0), (fword(-2.0), SIGN)]
    else:
        pairs = [(0, 5), (1, 0o377777777777), (SIGN | 7, 0o1000), (0o12345, SIGN | 0o7654321)]
        checks = [(5, 5), (0o777, 3), (SIGN | 1, 0)]
    for ac, w in pairs:
        yield Case(f"{ac:o} / {w:o}", encode(d, Y), ac=ac_word(ac), mq=0o1234, operand=w)
    for ac, w in checks:
        yield Case(f"check {ac:o} / {w:o}", encode(d, Y), ac=ac_word(ac), operand=w, check=True)


def float_add_cases(d: OpDef) -> Iterator[Case]:
    for label, a, b in float_pairs():
        yield Case(label, encode(d, Y), ac=ac_word(a), mq=0o777, operand=b)


def shift_cases(d: OpDef) -> Iterator[Case]:
    for n in [*range(256), 256, 300, 0o7777]:
        yield Case(f"n={n}", encode(d, n), ac=ac_word(WORDS[n % len(WORDS)]), mq=WORDS[-1 - n % len(WORDS)])


def cases(d: OpDef) -> Iterator[Case]:
    t = timing_of(d)
    if d.kind in ("IO", "ALIAS_IO"):
        yield from io_cases(d)
    elif d.kind == "A":
        yield from type_a_cases(d)
    elif d.kind == "B760":
        yield from b760_cases(d)
    elif t.shift is not None:
        yield from shift_cases(d)
    elif t.divide_check is not None:
        yield from divide_cases(d)
    elif d.mnemonic in ("FAD", "FSB", "UFA", "UFS"):
        yield from float_add_cases(d)
    else:
        yield from plain_cases(d)


def expected(d: OpDef, case: Case) -> int | tuple[int, int]:
    """The table's figure for ``case``, or (least, most) for a range."""
    t = timing_of(d)
    if case.check:
        assert t.divide_check is not None
        return t.divide_check
    if t.shift is not None:
        n = case.word & 0o377  # shift count: the low 8 bits of Y
        by_text = eval(d.cycles, {"__builtins__": {}}, {"n": n})  # the formula as the table writes it
        assert t.shift_cycles(n) == by_text == shift_cycles(n)
        return by_text
    if t.varies and d.kind not in ("IO", "ALIAS_IO"):
        return (t.base, t.most if t.most is not None else MAX_INSTRUCTION_CYCLES)
    return t.base


# -- the tests -----------------------------------------------------------------------------------


@pytest.mark.parametrize("mnemonic", EXECUTABLE)
def test_both_backends_charge_the_table_cycles(rig: Rig, mnemonic: str) -> None:
    d = OPCODES[mnemonic]
    seen = set()
    n = 0
    for case in cases(d):
        py, c = rig.charge(case)
        want = expected(d, case)
        assert py == c, f"{mnemonic} {case.label}: Python {py}, C {c}"
        if isinstance(want, tuple):
            assert want[0] <= py <= want[1], f"{mnemonic} {case.label}: {py} not in {d.cycles}"
        else:
            assert py == want, f"{mnemonic} {case.label}: {py} cycles, the table says {d.cycles}"
        assert BASIC_CYCLES <= py <= MAX_INSTRUCTION_CYCLES
        seen.add(py)
        n += 1
    assert n >= 1
    t = timing_of(d)
    if t.shift is not None:
        assert seen == {t.shift_cycles(k) for k in range(256)}
    if t.divide_check is not None:
        assert seen == {t.base, t.divide_check}


@pytest.mark.parametrize("mnemonic", ["FAD", "FSB"])
def test_an_exact_cancellation_costs_the_least_fad_figure(rig: Rig, mnemonic: str) -> None:
    d = OPCODES[mnemonic]
    w = fword(2.5)
    operand = w ^ SIGN if mnemonic == "FAD" else w
    assert rig.charge(Case("x - x", encode(d, Y), ac=ac_word(w), operand=operand)) == [timing_of(d).base] * 2


@pytest.mark.parametrize("mnemonic", ["UFA", "UFS"])
def test_a_small_alignment_costs_the_least_ufa_figure(rig: Rig, mnemonic: str) -> None:
    d = OPCODES[mnemonic]
    case = Case("1.0, 3.0", encode(d, Y), ac=ac_word(fword(1.0)), operand=fword(3.0))
    assert rig.charge(case) == [timing_of(d).base] * 2


def test_the_fad_family_reaches_across_its_range(rig: Rig) -> None:
    """The operand-dependent costs are exercised, not just the least one."""
    d = OPCODES["FAD"]
    seen = {rig.charge(case)[0] for case in float_add_cases(d)}
    assert min(seen) == timing_of(d).base and max(seen) >= timing_of(d).base + 4


def test_a_host_call_charges_the_return_halt_as_the_table_says() -> None:
    """emu704_call executes the HTR/HPR at the return location itself."""
    for halt in ("HTR", "HPR"):
        m = FastMachine(4096)
        m.load([encode("CLA", Y), encode(halt, ORIGIN + 1)], ORIGIN)
        call = HostCall(m, [Y], [Y], return_at=ORIGIN + 1)
        assert call.call([5], ORIGIN) is CallStatus.RETURNED
        assert m.cycles == timing_of(OPCODES["CLA"]).base + timing_of(OPCODES[halt]).base
        assert m.instructions == 2


# -- the table itself ------------------------------------------------------------------------------


def test_every_cycles_text_parses_and_only_data_words_have_none() -> None:
    for d in OPCODES.values():
        assert (d.timing is None) == (d.kind == "DATA"), d.mnemonic


@pytest.mark.parametrize(("text", "timing"), [
    ("2", Timing(2, 2)),
    ("20", Timing(20, 20)),
    ("20|3", Timing(20, 20, divide_check=3)),
    ("6-13", Timing(6, 13, varies=True)),
    ("5+", Timing(5, None, varies=True)),
    ("2+wait", Timing(2, None, varies=True)),
    ("-", Timing(BASIC_CYCLES, None)),
    ("2+(n+2)//12", Timing(2, 23, shift=(2, 12))),
    ("", None),
])
def test_parse_cycles(text: str, timing: Timing | None) -> None:
    assert parse_cycles(text) == timing


@pytest.mark.parametrize("text", ["2x", "3|", "n", "2+(n+2)/12", "7-"])
def test_a_timing_the_emulators_cannot_charge_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="not a timing"):
        parse_cycles(text)


def test_the_cycle_limit_look_ahead_is_the_longest_table_figure() -> None:
    assert MAX_INSTRUCTION_CYCLES == longest_cycles() == 23


# -- a table edit reaches both backends ---------------------------------------------------------


def _edited(monkeypatch: pytest.MonkeyPatch, mnemonic: str, cycles: str) -> None:
    monkeypatch.setitem(OPCODES, mnemonic, dataclasses.replace(OPCODES[mnemonic], cycles=cycles))


def test_the_c_core_charges_an_edited_table(monkeypatch: pytest.MonkeyPatch) -> None:
    assert "CLA" in c_operations() and "ALS" in c_operations()
    _edited(monkeypatch, "CLA", "5")
    _edited(monkeypatch, "DVP", "20|7")
    for mn in ("ALS", "ARS", "LLS", "LRS", "LGL", "RQL"):
        _edited(monkeypatch, mn, "3+(n+0)//4")
    monkeypatch.setattr(fast, "_ISA", None)  # the tables are filled again from the edited entries
    m = FastMachine(4096)
    m.load([encode("CLA", Y), encode("ALS", 9), encode("DVP", Y)], ORIGIN)
    m.ic = ORIGIN
    cycles = []
    for _ in range(3):
        before = m.cycles
        assert m.step() is None
        cycles.append(m.cycles - before)
    assert cycles == [5, 3 + 9 // 4, 7]  # DVP of 0 by 0: a divide check


def test_the_python_reference_refuses_a_cost_no_handler_charges(monkeypatch: pytest.MonkeyPatch) -> None:
    executable = {mn for mn, d in OPCODES.items() if d.kind in ("A", "B", "B760", "IO")}
    cpu._check_timing(executable)
    _edited(monkeypatch, "CLA", "3")
    with pytest.raises(RuntimeError, match=r"\['CLA'\]"):
        cpu._check_timing(executable)


def test_handlers_sharing_code_must_share_a_timing(monkeypatch: pytest.MonkeyPatch) -> None:
    _edited(monkeypatch, "MPR", "21")
    with pytest.raises(RuntimeError, match="MPY/MPR"):
        cpu._extra("MPY", "MPR")

