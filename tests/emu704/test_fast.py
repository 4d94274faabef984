"""The C fast path (emu704.fast.FastMachine) against the Python reference (emu704.cpu.Machine).

Equivalence is checked by running both backends on the same programs and comparing, after
every run() / step(), the StopReason, state() (registers, indicators, counters, memory
CRC), halt_location and stop_detail:

* the sample SAP programs, the card-to-printer one with cards queued in a CardReader and
  the printed lines compared too;
* hypothesis-drawn straight-line and looping programs over every non-I/O operation, with
  random registers, indicators and memory, run under random instruction/cycle limits;
* every operation on many random and edge-case operands (floating point, shifts with big
  counts, divide check, -0, overflow, several tags);
* the stop reasons: halts and restart, illegal codes, exact cycle and instruction limits,
  waiting for input and resuming, I/O errors.

The whole CPU unit suite is also run on the C backend (a subprocess with the c_backend
plugin), and a slow test runs these tests against an ASan/UBSan build of the C core.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import fields
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import emu704
from emu704 import bench as emu_bench
from emu704 import fast
from emu704.cpu import MEMORY_SIZES, Machine, MachineState, StopReason
from emu704.devices import CardReader, Printer
from emu704.fast import CoreMemory, FastMachine, FastPathUnavailable, c_operations
from emu704.isa import OPCODES, OpDef, b760_table, encode, type_a_table, type_b_table
from emu704.sap import assemble_file
from emu704.word import MAG_MASK, SIGN, WORD_MASK, float_to_word

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = ROOT / "emu704" / "programs"
AC_MASK = (1 << 38) - 1
FUZZ = int(os.environ.get("EMU704_FUZZ", "1"))
"""Multiplies the random trials and hypothesis examples (e.g. EMU704_FUZZ=50 for a long hunt)."""
FRAC = 0o777777777

Twins = tuple[Machine, FastMachine]


# -- helpers ---------------------------------------------------------------------------------


def twins(memory_words: int = 4096, fill: int = 0) -> Twins:
    return Machine(memory_words, fill=fill), FastMachine(memory_words, fill=fill)


def both(pair: Twins, action: Callable[[Machine], object]) -> None:
    for m in pair:
        action(m)


def poke(pair: Twins, address: int, *words: int) -> None:
    for m in pair:
        m.load(words, address)


def assert_same(pair: Twins, context: str = "") -> None:
    py, c = pair
    sp, sc = py.state(), c.state()
    if sp != sc:
        diff = {f.name: (getattr(sp, f.name), getattr(sc, f.name))
                for f in fields(MachineState) if getattr(sp, f.name) != getattr(sc, f.name)}
        cmem = list(c.mem)
        words = [(f"{a:05o}", f"{py.mem[a]:012o}", f"{cmem[a]:012o}")
                 for a in range(py.memory_words) if py.mem[a] != cmem[a]][:8]
        pytest.fail(f"{context}: python != c: {diff}; memory (address, python, c): {words}")
    assert py.halt_location == c.halt_location, context
    assert py.stop_detail == c.stop_detail, context


def run_both(pair: Twins, context: str = "", **limits: int | None) -> StopReason:
    rp = pair[0].run(**limits)
    rc = pair[1].run(**limits)
    assert rp is rc, f"{context}: python {rp}, c {rc} ({pair[0].stop_detail!r} / {pair[1].stop_detail!r})"
    assert_same(pair, context)
    return rp


def set_registers(pair: Twins, **values: int | bool) -> None:
    for m in pair:
        for name, v in values.items():
            if name in ("x1", "x2", "x4"):
                m.xr[int(name[1])] = int(v)
            else:
                setattr(m, name, v)


def load_program(pair: Twins, name: str) -> dict[str, int]:
    image = assemble_file(PROGRAMS / name, pair[0].memory_words)
    assert image.start is not None
    for m in pair:
        image.load_into(m.write)
        m.ic = image.start
    return image.symbols


def ac_of_word(word: int) -> int:
    return ((word & SIGN) << 2) | (word & MAG_MASK)


# -- the API ---------------------------------------------------------------------------------


def test_fast_machine_is_a_machine_with_the_c_backend() -> None:
    m = FastMachine()
    assert isinstance(m, Machine)
    assert m.backend == "c"
    assert m.memory_words == 32768 and len(m.mem) == 32768
    assert fast.available()


def test_every_non_io_operation_except_the_stopping_ones_runs_in_c() -> None:
    executable = {d.mnemonic for d in OPCODES.values() if d.kind in ("A", "B", "B760")}
    left_to_python = {"HTR", "HPR", "SPT", "SPR", "SPU"}  # halts and device senses
    assert c_operations() == executable - left_to_python


def test_c_decoding_agrees_with_the_instruction_table() -> None:
    m = FastMachine(4096)
    lib = fast._module().lib
    c_ops = c_operations()

    def expected(d: OpDef | None) -> int:
        if d is None or d.mnemonic not in c_ops:
            return int(lib.EMU704_OP_PY)
        return int(getattr(lib, f"EMU704_OP_{d.mnemonic}"))

    table_b = type_b_table()
    for code in range(0o10000):
        if code >> 9 & 3:
            continue  # bits 1,2 set: type A
        for address in (0, 0o2, 0o144, 0o7777):
            m.write(0, (code << 24) | address)
            d = table_b.get(code)
            if d is not None and d.mnemonic in ("PSE", "MSE"):
                d = b760_table(code >> 11).get(address)
            assert lib.emu704_decoded_op(m._cpu, 0) == expected(d), f"{code:04o} {address:o}"
    table_a = type_a_table()
    for prefix in (1, 2, 3, 5, 6, 7):
        m.write(0, (prefix << 33) | (5 << 18) | (1 << 15) | 7)
        assert lib.emu704_decoded_op(m._cpu, 0) == expected(table_a.get(prefix))


def test_invalid_memory_size_is_refused_like_the_reference() -> None:
    with pytest.raises(ValueError, match="memory size must be one of"):
        FastMachine(16384)


@pytest.mark.parametrize("size", MEMORY_SIZES)
def test_read_write_load_wrap_at_the_memory_size(size: int) -> None:
    pair = twins(size, fill=0o123)
    for m in pair:
        m.write(size + 5, 0o777)
        m.load([1, 2, 3], size - 1)
        assert m.read(5) == 0o777
        assert m.read(-1 + size) == 1 and m.read(0) == 2 and m.read(1) == 3
        assert m.read(2) == 0o123
    assert_same(pair, "after writes")


def test_core_memory_behaves_like_a_list() -> None:
    m = FastMachine(4096, fill=7)
    mem = m.mem
    assert isinstance(mem, CoreMemory)
    assert len(mem) == 4096 and mem[0] == 7 and mem[-1] == 7
    mem[10] = 0o12345
    mem[-2] = 5
    assert m.read(10) == 0o12345 and m.read(4094) == 5
    mem[0:3] = [1, 2, 3]
    assert mem[:4] == [1, 2, 3, 7]
    assert mem[8:12:2] == [7, 0o12345]
    assert mem == [1, 2, 3, *([7] * 7), 0o12345, *([7] * (4096 - 13)), 5, 7]
    assert sum(1 for _ in mem) == 4096
    with pytest.raises(IndexError):
        mem[4096]
    with pytest.raises(ValueError):
        mem[0:3] = [1]
    m.mem = [0] * 4096  # assigning copies into the C memory
    assert m.mem is mem and m.read(10) == 0


def test_registers_are_the_c_state() -> None:
    m = FastMachine(4096)
    m.xr[1] = 3
    m.write(0, encode("CLA", 0o103, 1))  # CLA 103,1 -> 100
    m.write(0o100, 0o42)
    assert m.step() is None
    assert m.ac == 0o42 and m.ic == 1 and m.instructions == 1 and m.cycles == 2
    m.ac_overflow = True
    assert m._cpu.ac_overflow == 1 and m.ac_overflow is True
    m.set_sense_switch(3, True)
    assert m._cpu.sense_switches == 4
    m.reset()
    assert (m.ac, m.ic, m.xr[1], m.instructions, m.ac_overflow) == (0, 0, 0, 0, False)
    assert m.read(0o100) == 0o42 and m.sense_switches == 4  # memory and switches are kept


def test_missing_extension_gives_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fast, "_fast", None)
    assert not fast.available()
    with pytest.raises(FastPathUnavailable, match=r"build_fast\.py"):
        FastMachine()


# -- sample programs ---------------------------------------------------------------------------


@pytest.mark.parametrize("chunk", [None, 1, 7, 50])
@pytest.mark.parametrize("name", ["loop.sap", "bitcount.sap", "bits8.sap"])
def test_sample_programs_match(name: str, chunk: int | None) -> None:
    pair = twins(4096)
    load_program(pair, name)
    for i in range(10_000):
        if run_both(pair, f"{name} run {i}", max_instructions=chunk) is StopReason.HALT:
            break
    else:
        pytest.fail(f"{name} did not halt")
    # Pressing START again after the final HPR runs into the data: same there too.
    run_both(pair, f"{name} past the end", max_instructions=500)


def _printing_twins(cards: list[str], eof: bool = True) -> tuple[Twins, list[CardReader], list[Printer]]:
    pair = twins(4096)
    load_program(pair, "cards_to_printer.sap")
    readers, printers = [], []
    for m in pair:
        reader, printer = CardReader(), Printer()
        m.attach(reader)
        m.attach(printer)
        for line in cards:
            reader.queue_text(line)
        if eof:
            reader.signal_end_of_file()
        readers.append(reader)
        printers.append(printer)
    return pair, readers, printers


@pytest.mark.parametrize("n", [0, 1, 3])
@pytest.mark.parametrize("chunk", [None, 13])
def test_cards_to_printer_matches_including_the_printout(n: int, chunk: int | None) -> None:
    text = [f"CARD {i} 11-15 23-19 +-*/=$" for i in range(n)]
    pair, _, printers = _printing_twins(text)
    for i in range(1000):
        reason = run_both(pair, f"run {i}", max_instructions=chunk, max_cycles=None if chunk else 100_000)
        if reason is StopReason.HALT:
            break
        assert reason is StopReason.INSTRUCTION_LIMIT
    assert printers[0].lines == printers[1].lines == text
    assert printers[0].images == printers[1].images
    assert pair[1].cycles == n * 206 + 10  # as test_programs derives by hand


def test_waiting_for_input_then_resuming_after_queuing_cards() -> None:
    pair, readers, printers = _printing_twins([], eof=False)
    assert run_both(pair, "empty hopper", max_cycles=10_000) is StopReason.WAITING_FOR_INPUT
    assert run_both(pair, "still empty", max_cycles=10_000) is StopReason.WAITING_FOR_INPUT
    for r in readers:
        r.queue_text("LATE CARD")
    assert run_both(pair, "after one card", max_cycles=10_000) is StopReason.WAITING_FOR_INPUT
    for r in readers:
        r.queue_text("LAST CARD")
        r.signal_end_of_file()
    assert run_both(pair, "end of file", max_cycles=10_000) is StopReason.HALT
    assert printers[0].lines == printers[1].lines == ["LATE CARD", "LAST CARD"]


# -- stop reasons ----------------------------------------------------------------------------


def test_halts_and_restart() -> None:
    pair = twins()
    set_registers(pair, x2=4)
    poke(pair, 0o10, encode("HTR", 0o24, 2))  # HTR 24,2 -> restart at 20
    poke(pair, 0o20, encode("CLA", 0o30), encode("HPR"), encode("TRA", 0o10))
    poke(pair, 0o30, 0o55)
    set_registers(pair, ic=0o10)
    for i in range(5):
        assert run_both(pair, f"halt {i}") is StopReason.HALT
    assert pair[1].ic in (0o20, 0o22)


@pytest.mark.parametrize("op", ["DVH", "DVP", "FDH", "FDP"])
def test_divide_check_stops_or_proceeds(op: str) -> None:
    pair = twins()
    poke(pair, 0, encode(op, 0o100), encode("DCT"), encode("HPR"), encode("HPR"))
    poke(pair, 0o100, 0)  # division by zero
    set_registers(pair, ac=5, mq=7)
    first = run_both(pair, op)
    assert first is (StopReason.DIVIDE_CHECK if op in ("DVH", "FDH") else StopReason.HALT)
    run_both(pair, f"{op} resumed")


ILLEGAL = [0o013100000000, 0o032200000000, 0o075400000000, 0o476500000000, 0o400000000000,
           0o500000000000, 0o076000000004, 0o476000000000, 0o076000000777, 0o476000000140]


@pytest.mark.parametrize("word", ILLEGAL, ids=[f"{w:012o}" for w in ILLEGAL])
def test_illegal_codes_stop_with_ic_on_them(word: int) -> None:
    pair = twins(fill=word)
    poke(pair, 0, encode("NOP"), encode("CLA", 0o100))
    assert run_both(pair, "illegal") in (StopReason.ILLEGAL_OPERATION, StopReason.IO_ERROR)
    assert run_both(pair, "illegal again") in (StopReason.ILLEGAL_OPERATION, StopReason.IO_ERROR)
    assert pair[1].ic == 2 and pair[1].instructions == 2


def test_io_errors_match() -> None:
    pair = twins()
    poke(pair, 0, encode("RDS", 0o777), encode("CPY", 0o100), encode("SPR", 3), encode("WEF", 0o201))
    for start in range(4):
        set_registers(pair, ic=start)
        assert run_both(pair, f"at {start}") is StopReason.IO_ERROR


def test_device_sense_runs_through_the_reference_handler() -> None:
    pair = twins()
    printers = [Printer(), Printer()]
    for m, p in zip(pair, printers, strict=True):
        m.attach(p)
    poke(pair, 0, encode("SPR", 3), encode("SPT"), encode("NOP"), encode("SLN", 2), encode("HPR"))
    assert run_both(pair, "sense") is StopReason.HALT
    assert printers[0].pulses == printers[1].pulses == [0o363, 0o360]


def _cycle_program(pair: Twins) -> None:
    # NOP (2) ANA (3) MPY (20) ALS 255 (23) FAD (7..) CAS (3, skips) TRA 0
    poke(pair, 0, encode("NOP"), encode("ANA", 0o100), encode("MPY", 0o100), encode("ALS", 255),
         encode("FAD", 0o101), encode("CAS", 0o100), encode("NOP"), encode("NOP"), encode("TRA", 0))
    poke(pair, 0o100, 0o1234567, 0o201400000000)


def test_cycle_limit_is_exact_for_every_budget() -> None:
    for limit in range(0, 130):
        pair = twins()
        _cycle_program(pair)
        assert run_both(pair, f"max_cycles={limit}", max_cycles=limit) is StopReason.CYCLE_LIMIT


def test_instruction_limit_and_chained_limits() -> None:
    pair = twins()
    _cycle_program(pair)
    rng = random.Random(704)
    for i in range(300):
        if rng.random() < 0.5:
            assert run_both(pair, f"call {i}", max_instructions=rng.randrange(0, 12)) is \
                StopReason.INSTRUCTION_LIMIT
        else:
            limits = {"max_cycles": rng.randrange(0, 60), "max_instructions": rng.randrange(0, 12)}
            run_both(pair, f"call {i}", **limits)
    for _ in range(20):
        rp, rc = pair[0].step(), pair[1].step()
        assert rp is rc is None
        assert_same(pair, "step")


def test_trapping_mode_transfers_match() -> None:
    pair = twins()
    poke(pair, 0, encode("HPR"), encode("LTM"), encode("TRA", 0o20))
    poke(pair, 0o10, encode("ETM"), encode("TZE", 0o15), encode("TTR", 0o12))
    poke(pair, 0o12, encode("TSX", 0o30, 4), encode("HPR"))
    set_registers(pair, ic=0o10)
    for i in range(6):
        run_both(pair, f"trap run {i}", max_instructions=3)


def test_host_writes_between_runs_are_seen_by_the_decoder() -> None:
    pair = twins()
    poke(pair, 0, encode("CLA", 0o100), encode("ADD", 0o101), encode("TRA", 0))
    poke(pair, 0o100, 1, 2)
    run_both(pair, "first", max_instructions=10)
    poke(pair, 1, encode("SUB", 0o101))  # the host changes a decoded instruction
    run_both(pair, "after the host write", max_instructions=10)
    for m in pair:
        m.mem[1] = encode("STO", 0o1)  # and self-modifying code replaces it again
    run_both(pair, "self-modified", max_instructions=10)


# -- every operation on random operands ------------------------------------------------------

SPECIAL_WORDS = [0, SIGN, 1, SIGN | 1, MAG_MASK, WORD_MASK, 0o200000000000, 0o377777777776,
                 0o201400000000, 0o601400000000, 0o000400000000, 0o377777777777, 0o400000000001,
                 0o200000000001, 0o000000000001, 0o777000000000, 0o001000000000, 0o377400000000]


def random_word(rng: random.Random) -> int:
    kind = rng.randrange(8)
    if kind == 0:
        return rng.choice(SPECIAL_WORDS)
    if kind == 1:
        return rng.randrange(64) | (SIGN if rng.random() < 0.5 else 0)
    if kind == 2:  # a normalized floating-point number
        return float_to_word(rng.choice((-1, 1)) * rng.uniform(0.5, 1) * 2.0 ** rng.randrange(-120, 120))
    if kind == 3:  # any characteristic, any fraction (unnormalized, zero fraction ...)
        frac = rng.choice((0, 1, rng.randrange(8), rng.randrange(FRAC + 1), FRAC))
        return (rng.randrange(2) << 35) | (rng.randrange(256) << 27) | frac
    if kind == 4:
        return rng.randrange(1 << 18) << rng.choice((0, 18))
    return rng.randrange(WORD_MASK + 1)


SPECIAL_AC = [AC_MASK, MAG_MASK, (1 << 36) - 1, (1 << 37) - 1, 1 << 37 | MAG_MASK, 1 << 35, 1 << 36,
              1 << 37, 0]


def random_ac(rng: random.Random) -> int:
    kind = rng.randrange(5)
    if kind == 4:
        return rng.choice(SPECIAL_AC)  # carries into P and Q, -0, all ones
    if kind == 0:
        return rng.randrange(AC_MASK + 1)  # Q and P set as often as not
    if kind == 1:  # floating point with a characteristic past 255 (Q,P)
        return (rng.randrange(2) << 37) | (rng.randrange(1024) << 27) | rng.randrange(FRAC + 1)
    return ac_of_word(random_word(rng))


def random_xr(rng: random.Random, amask: int) -> int:
    return rng.choice((0, 1, 2, rng.randrange(16), rng.randrange(amask + 1), amask))


def random_instruction(d: OpDef, rng: random.Random, address: int, tag: int) -> int:
    if d.kind == "A":
        dec = rng.choice((0, 1, 2, rng.randrange(16), rng.randrange(0o100000)))
        return encode(d, address, tag, dec)
    if d.kind == "B760" and d.sub_op is not None:
        if d.operand_added:
            assert d.operand_range is not None
            return encode(d, rng.randint(*d.operand_range), tag)
        return encode(d, 0, tag)
    if d.operands.startswith("n"):  # shifts: counts up to 255, sometimes with high bits
        count = rng.choice((0, 1, 9, 10, 21, 22, 34, 35, 36, 37, 63, 70, 71, 72, 73, 255,
                            rng.randrange(256)))
        return encode(d, count | (rng.randrange(128) << 8 if rng.random() < 0.2 else 0), tag)
    return encode(d, address, tag)


RANDOM_OPS = sorted(c_operations() | {"HTR", "HPR"}) if fast.available() else []


@pytest.mark.parametrize("mnemonic", RANDOM_OPS)
def test_operation_matches_on_random_operands(mnemonic: str) -> None:
    rng = random.Random(f"emu704 {mnemonic}")
    d = OPCODES[mnemonic]
    pair = twins(MEMORY_SIZES[RANDOM_OPS.index(mnemonic) % 3])  # each size for a third of the ops
    py, c = pair
    amask = py.amask
    for trial in range(150 * FUZZ):
        regs = {
            "ac": random_ac(rng), "mq": random_word(rng),
            "x1": random_xr(rng, amask), "x2": random_xr(rng, amask), "x4": random_xr(rng, amask),
            "ac_overflow": rng.random() < 0.3, "mq_overflow": rng.random() < 0.3,
            "divide_check": rng.random() < 0.3, "trap_mode": rng.random() < 0.2,
            "tape_check": rng.random() < 0.3, "end_of_tape": rng.random() < 0.3,
            "sense_lights": rng.randrange(16), "sense_switches": rng.randrange(64),
        }
        if d.mnemonic in ("DVH", "DVP", "FDH", "FDP") and rng.random() < 0.6:
            regs["ac"] = ac_of_word(random_word(rng)) >> rng.randrange(0, 36)  # often no divide check
        ic = rng.randrange(amask + 1)
        address = rng.randrange(amask + 1) if rng.random() < 0.5 else rng.randrange(0o100000)
        tag = rng.choice((0, 0, 0, 1, 2, 4, 3, 5, 6, 7))
        word = random_instruction(d, rng, address, tag)
        set_registers(pair, ic=ic, **regs)
        y = (address - py.get_xr(tag)) & amask
        poke(pair, address, random_word(rng))
        poke(pair, y, random_word(rng))
        poke(pair, ic, word)
        context = f"{mnemonic} trial {trial}: word {word:012o} at {ic:05o}, registers {regs}"
        rp, rc = py.step(), c.step()
        assert rp is rc, context
        for name in ("ac", "mq", "ic", "instructions", "cycles", "ac_overflow", "mq_overflow",
                     "divide_check", "trap_mode", "tape_check", "end_of_tape", "sense_lights",
                     "sense_switches", "halt_location", "stop_detail"):
            assert getattr(py, name) == getattr(c, name), f"{name}: {context}"
        assert [py.xr[i] for i in (1, 2, 4)] == [c.xr[i] for i in (1, 2, 4)], context
        for a in {0, address & amask, y, ic}:
            assert py.mem[a] == c.mem[a], f"memory {a:05o}: {context}"
    assert_same(pair, mnemonic)


# -- hypothesis: random programs --------------------------------------------------------------

TRANSFERS = frozenset({"TRA", "TTR", "TZE", "TNZ", "TPL", "TMI", "TOV", "TNO", "TQP", "TQO", "TLQ", "TSX"})
PROGRAM_OPS = sorted(d.mnemonic for d in OPCODES.values() if d.kind in ("A", "B", "B760")
                     and d.mnemonic not in ("SPT", "SPR", "SPU", "HTR", "HPR"))
FP_WORDS = st.builds(lambda s, ch, f: (s << 35) | (ch << 27) | f, st.integers(0, 1), st.integers(0, 255),
                     st.one_of(st.integers(0, FRAC), st.integers(0o400000000, FRAC), st.integers(0, 7)))
WORDS = st.one_of(st.integers(0, WORD_MASK), st.sampled_from(SPECIAL_WORDS), FP_WORDS,
                  st.integers(0, 63), st.integers(0, 63).map(lambda v: v | SIGN))
AC_VALUES = st.one_of(st.integers(0, AC_MASK), WORDS.map(ac_of_word),
                      st.builds(lambda s, ch, f: (s << 37) | (ch << 27) | f, st.integers(0, 1),
                                st.integers(0, 1023), st.integers(0, FRAC)))
XRS = st.one_of(st.integers(0, 8), st.integers(0, 4095))
PROGRAM_START = 0
DATA_START = 40  # data words at 40..63; programs are at most 40 words
_TAG_CHOICES = (0, 0, 0, 0, 0, 1, 2, 4, 1, 3, 5, 6, 7)


def program_word(rng: random.Random, length: int) -> int:
    """A word for a program of ``length`` words at 0: transfers mostly land in the program
    (loops), loads and stores mostly hit the data at DATA_START and sometimes the program
    itself (self-modifying code); now and then a halt or any word at all."""
    roll = rng.randrange(50)
    if roll == 0:
        return random_word(rng)  # anything: illegal codes, data words run as code
    where = rng.randrange(4)
    a = rng.randrange(0o100000)
    target = (a % length, a % length, a % 64, a)[where]
    if roll == 1:
        return encode(rng.choice(("HTR", "HPR")), target)
    d = OPCODES[rng.choice(PROGRAM_OPS)]
    tag = rng.choice(_TAG_CHOICES)
    if d.mnemonic in TRANSFERS or d.kind == "A":
        return random_instruction(d, rng, target, tag)
    if d.mnemonic in ("PSE", "MSE"):  # raw: CPU sub-ops, 709 codes, lights/switches, devices
        return encode(d, (a % 0o21, 0o140 + a % 7, DATA_START + a % 24, a)[where], tag)
    return random_instruction(d, rng, (DATA_START + a % 24, DATA_START + a % 24, a % 64, a)[where], tag)


@settings(max_examples=120 * FUZZ, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_programs_match(data: st.DataObject) -> None:
    """Hypothesis draws the shape -- program length, registers and indicators, the run
    limits -- and a seed from which the program, the data and the fill words are made."""
    length = data.draw(st.integers(1, DATA_START), label="length")
    rng = random.Random(data.draw(st.integers(0, (1 << 64) - 1), label="seed"))
    pair = twins(4096, fill=program_word(rng, length))
    poke(pair, PROGRAM_START, *(program_word(rng, length) for _ in range(length)))
    poke(pair, DATA_START, *(random_word(rng) for _ in range(24)))
    set_registers(
        pair,
        ac=data.draw(AC_VALUES, label="ac"), mq=data.draw(WORDS, label="mq"),
        x1=data.draw(XRS), x2=data.draw(XRS), x4=data.draw(XRS),
        ac_overflow=data.draw(st.booleans()), mq_overflow=data.draw(st.booleans()),
        divide_check=data.draw(st.booleans()), trap_mode=data.draw(st.booleans()),
        tape_check=data.draw(st.booleans()), end_of_tape=data.draw(st.booleans()),
        sense_lights=data.draw(st.integers(0, 15)), sense_switches=data.draw(st.integers(0, 63)),
    )
    runs = data.draw(st.lists(st.tuples(st.one_of(st.none(), st.integers(0, 600)),
                                        st.one_of(st.none(), st.integers(0, 4000))),
                              min_size=1, max_size=5), label="limits")
    runs += [(1000, None)] * 2  # and then a longer stretch, whatever was drawn
    for i, (max_instructions, max_cycles) in enumerate(runs):
        if max_instructions is None and max_cycles is None:
            max_instructions = 1000
        reason = run_both(pair, f"run {i}", max_instructions=max_instructions, max_cycles=max_cycles)
        if reason in (StopReason.ILLEGAL_OPERATION, StopReason.IO_ERROR):
            poke(pair, pair[0].ic, program_word(rng, length))  # the host replaces the word, goes on
        elif rng.random() < 0.3:
            poke(pair, rng.randrange(length), program_word(rng, length))  # or patches the program


# -- bench -----------------------------------------------------------------------------------


@pytest.mark.parametrize("program", sorted(emu_bench.PROGRAMS))
def test_bench_programs_match_and_report_a_rate(program: str) -> None:
    pair = (emu_bench.loaded_machine("python", program), emu_bench.loaded_machine("c", program))
    assert isinstance(pair[1], FastMachine)
    for i in range(3):
        assert run_both(pair, f"{program} {i}", max_instructions=7_001) is StopReason.INSTRUCTION_LIMIT  # type: ignore[arg-type]
    assert emu_bench.bench("c", 100_000, program) > 0
    assert emu_bench.bench("python", 2_000, program) > 0
    with pytest.raises(ValueError, match="backend"):
        emu_bench.new_machine("fortran")


# -- the unit suite on the C backend, and the sanitizer build ---------------------------------

UNIT_TESTS = ["test_cpu_fixed.py", "test_cpu_float.py", "test_cpu_index.py", "test_cpu_io.py",
              "test_cpu_isa.py", "test_cpu_logical.py", "test_cpu_run.py", "test_cpu_shifts.py",
              "test_programs.py", "test_loader.py"]


def test_cpu_unit_suite_passes_on_the_c_backend() -> None:
    here = Path(__file__).resolve().parent
    package_parent = Path(emu704.__file__).resolve().parents[1]  # the emu704 being tested
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(package_parent), str(here)]))
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "c_backend", "-p", "no:cacheprovider",
         *[str(here / t) for t in UNIT_TESTS]],
        capture_output=True, text=True, env=env, cwd=package_parent, timeout=600,
    )
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-4000:]
    assert "emu704 backend: emu704.fast.FastMachine" in out.stdout
    assert " passed" in out.stdout and "failed" not in out.stdout


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None, reason="needs a C compiler")
def test_sanitizer_build_runs_the_equivalence_tests_clean() -> None:
    out = subprocess.run([str(ROOT / "scripts" / "sanitize-emu704")], capture_output=True, text=True,
                         cwd=ROOT, timeout=1800)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-4000:]
    assert "runtime error" not in out.stderr and "ERROR: AddressSanitizer" not in out.stderr
    assert out.stdout.strip().endswith("OK")
