"""run()/step(), stop reasons, halts and restart, illegal codes, limits, memory sizes, state."""

from __future__ import annotations

import pytest
from cpu_testing import SENTINEL, asm, make_machine, minus, poke

from emu704 import CPU, Machine, StopReason
from emu704.cpu import STOP_MESSAGES, MachineState
from emu704.word import ADDR_FIELD, make_word

# -- halts and restart --------------------------------------------------------------------


def test_htr_halts_and_run_again_continues_at_y() -> None:
    m = make_machine()
    poke(m, 0o10, asm("HTR", 0o20))  # 10 HTR 20
    poke(m, 0o20, asm("HPR"))  # 20 HPR
    m.ic = 0o10
    assert m.run() is StopReason.HALT
    assert m.ic == 0o20
    assert m.halt_location == 0o10
    assert m.instructions == 1
    assert m.cycles == 2
    assert m.run() is StopReason.HALT
    assert m.halt_location == 0o20
    assert m.ic == 0o21


def test_htr_restart_address_is_indexed() -> None:
    m = make_machine()
    m.xr[2] = 4
    poke(m, 0, asm("HTR", 0o24, 2))  # HTR 24,2
    assert m.step() is StopReason.HALT
    assert m.ic == 0o20


def test_hpr_restart_continues_with_next_instruction() -> None:
    m = make_machine()
    poke(m, 0, asm("HPR"), asm("CLA", 0o100), asm("HPR"))  # HPR / CLA 100 / HPR
    poke(m, 0o100, 9)
    assert m.run() is StopReason.HALT
    assert m.ic == 1
    assert m.run() is StopReason.HALT
    assert m.ac == 9
    assert m.ic == 3


def test_nop_takes_two_cycles() -> None:
    m = make_machine()
    poke(m, 0, asm("NOP"))  # NOP
    assert m.step() is None
    assert m.ic == 1
    assert m.cycles == 2


# -- illegal operations ---------------------------------------------------------------------

ILLEGAL_709 = {
    "XCA +0131": 0o013100000000,
    "ERA +0322": 0o032200000000,
    "SXA +0634": 0o063400000000,
    "PXA +0754": 0o075400000000,
    "XEC +0522": 0o052200000000,
    "ZET +0520": 0o052000000000,
    "LGR -0765": 0o476500000000,
    "CLM -0000 (HTR with minus sign)": 0o400000000000,
    "STR prefix -1": 0o500000000000,
    "ENK +0760 ...0004": 0o076000000004,
}


@pytest.mark.parametrize("word", ILLEGAL_709.values(), ids=ILLEGAL_709.keys())
def test_illegal_709_code_stops_with_ic_on_it(word: int) -> None:
    m = make_machine()
    poke(m, 0o10, word)
    m.ic = 0o10
    assert m.run() is StopReason.ILLEGAL_OPERATION
    assert m.ic == 0o10
    assert m.instructions == 0
    assert m.cycles == 0
    assert "00010" in m.stop_detail


def test_illegal_stop_repeats_on_resume() -> None:
    m = make_machine()
    poke(m, 0, 0o013100000000)  # XCA
    assert m.run() is StopReason.ILLEGAL_OPERATION
    assert m.run() is StopReason.ILLEGAL_OPERATION
    assert m.ic == 0


def test_running_into_sentinel_memory_stops() -> None:
    m = make_machine()
    poke(m, 0, asm("NOP"))  # NOP, then sentinel words
    assert m.run() is StopReason.ILLEGAL_OPERATION
    assert m.ic == 1
    assert m.read(1) == SENTINEL


def test_ignored_709_flag_bits_do_not_change_the_instruction() -> None:
    m = make_machine()
    poke(m, 0o100, 5)
    poke(m, 0, asm("CLA", 0o100) | (0o60 << 18))  # CLA* 100 on a 709; the 704 ignores bits 12-17
    m.step()
    assert m.ac == 5


# -- limits -------------------------------------------------------------------------------


def looping_machine() -> Machine:
    m = make_machine()
    poke(m, 0, asm("NOP"), asm("ANA", 0o100), asm("TRA", 0))  # NOP(2) / ANA 100 (3) / TRA 0 (2)
    poke(m, 0o100, 0)
    return m


def test_run_instruction_limit() -> None:
    m = looping_machine()
    assert m.run(max_instructions=7) is StopReason.INSTRUCTION_LIMIT
    assert m.instructions == 7
    assert m.cycles == 7 * 2 + 2  # two ANAs
    assert m.ic == 1


def test_run_cycle_limit_stops_before_first_instruction_at_or_past_limit() -> None:
    m = looping_machine()
    assert m.run(max_cycles=6) is StopReason.CYCLE_LIMIT
    assert m.instructions == 3  # 2 + 3 = 5 < 6, then TRA brings it to 7
    assert m.cycles == 7


def test_run_cycle_limit_large_budget_is_exact() -> None:
    m = looping_machine()
    assert m.run(max_cycles=7000) is StopReason.CYCLE_LIMIT
    assert m.cycles == 7000
    assert m.instructions == 3000


def test_run_limits_are_per_call() -> None:
    m = looping_machine()
    m.run(max_instructions=3)
    assert m.run(max_instructions=3) is StopReason.INSTRUCTION_LIMIT
    assert m.instructions == 6


def test_step_returns_none_when_nothing_stops() -> None:
    m = looping_machine()
    assert m.step() is None
    assert m.instructions == 1


def test_time_us_is_twelve_per_cycle() -> None:
    m = looping_machine()
    m.run(max_instructions=3)
    assert m.cycles == 7
    assert m.time_us == 84


# -- memory sizes and address wrap -----------------------------------------------------------


@pytest.mark.parametrize("size", [4096, 8192, 32768])
def test_address_field_wraps_modulo_memory_size(size: int) -> None:
    m = make_machine(size)
    poke(m, 5, 0o77)
    poke(m, 0, asm("CLA", size + 5))  # CLA size+5 (high address bits ignored)
    m.step()
    assert m.ac == 0o77


@pytest.mark.parametrize("size", [4096, 8192, 32768])
def test_instruction_counter_wraps_to_zero(size: int) -> None:
    m = make_machine(size)
    poke(m, size - 1, asm("NOP"))  # NOP at the last word
    m.ic = size - 1
    m.step()
    assert m.ic == 0


@pytest.mark.parametrize("size", [4096, 8192, 32768])
def test_indexing_wraps_modulo_memory_size(size: int) -> None:
    m = make_machine(size)
    m.xr[1] = 2
    poke(m, size - 1, 0o55)
    poke(m, 0o10, asm("CLA", 1, 1))  # CLA 1,1
    m.ic = 0o10
    m.step()
    assert m.ac == 0o55


@pytest.mark.parametrize("size", [4096, 8192, 32768])
def test_tsx_linkage_has_address_width(size: int) -> None:
    m = make_machine(size)
    poke(m, 3, asm("TSX", 0o100, 4))  # TSX 100,4
    m.ic = 3
    m.step()
    assert m.xr[4] == size - 3


@pytest.mark.parametrize("size", [4096, 8192, 32768])
def test_skip_past_end_of_memory_wraps(size: int) -> None:
    m = make_machine(size)
    m.ac = 1
    poke(m, size - 1, asm("LBT"))  # LBT at the last word: skip to 1
    m.ic = size - 1
    m.step()
    assert m.ic == 1


def test_memory_size_must_be_4k_8k_or_32k() -> None:
    with pytest.raises(ValueError, match="memory size"):
        Machine(16384)


# -- self-modifying code and the decode cache ----------------------------------------------------


def test_sta_into_instruction_is_seen_on_next_execution() -> None:
    m = make_machine()
    poke(m, 0o200, 1)
    poke(m, 0o201, 2)
    poke(
        m,
        0,
        asm("CLA", 0o200),  # 0  CLA 200
        asm("CLA", 0o101),  # 1  CLA K201     address constant
        asm("STA", 0),  # 2  STA 0        patch the CLA at 0
        asm("TRA", 0),  # 3  TRA 0
    )
    poke(m, 0o101, 0o201)
    m.run(max_instructions=4)
    assert m.ac == 0o201
    m.run(max_instructions=1)
    assert m.ac == 2


def test_same_word_in_two_places_decodes_once_and_runs_in_both() -> None:
    m = make_machine()
    poke(m, 0, asm("ADD", 0o100), asm("ADD", 0o100), asm("HPR"))  # ADD 100 / ADD 100 / HPR
    poke(m, 0o100, 3)
    m.run()
    assert m.ac == 6


# -- state, reset, messages -----------------------------------------------------------------


def test_state_reports_registers_indicators_and_counters() -> None:
    m = make_machine()
    m.xr[1], m.xr[2], m.xr[4] = 1, 2, 3
    m.mq = minus(4)
    m.sense_lights = 0b1000
    poke(m, 0, asm("CLA", 0o100))  # CLA 100
    poke(m, 0o100, 7)
    m.step()
    s = m.state()
    assert isinstance(s, MachineState)
    assert (s.ac, s.mq, s.xr, s.ic) == (7, minus(4), (1, 2, 3), 1)
    assert (s.instructions, s.cycles, s.sense_lights) == (1, 2, 0b1000)
    assert not s.ac_overflow and not s.divide_check and not s.trap_mode


def test_state_memory_checksum_tracks_stores() -> None:
    a, b = make_machine(), make_machine()
    assert a.state() == b.state()
    b.write(0o7777, 1)
    assert a.state().memory_crc != b.state().memory_crc


def test_reset_clears_registers_keeps_memory_and_switches() -> None:
    m = make_machine()
    m.ac, m.mq, m.ic = 5, 6, 7
    m.xr[4] = 8
    m.ac_overflow = m.trap_mode = True
    m.set_sense_switch(1, True)
    m.write(0o100, 9)
    m.reset()
    assert (m.ac, m.mq, m.ic, m.xr[4]) == (0, 0, 0, 0)
    assert not m.ac_overflow and not m.trap_mode
    assert m.read(0o100) == 9
    assert m.sense_switches == 1


def test_every_stop_reason_has_a_message() -> None:
    assert set(STOP_MESSAGES) == set(StopReason)
    assert all(r.message for r in StopReason)


def test_cpu_is_the_machine_class() -> None:
    assert CPU is Machine


# -- small programs ---------------------------------------------------------------------------


def test_program_sums_table_with_tix_loop() -> None:
    """Sum a 10-word table walked downwards by XR 1 (BES-style table ending at 0o310)."""
    m = make_machine(4096)
    poke(
        m,
        0o100,
        asm("LXA", 0o200, 1),  # 100       LXA TEN,1
        asm("CLA", 0o201),  # 101       CLA ZERO
        asm("ADD", 0o310, 1),  # 102 LOOP  ADD TAB,1
        asm("TIX", 0o102, 1, 1),  # 103       TIX LOOP,1,1
        asm("STO", 0o202),  # 104       STO SUM
        asm("HPR"),  # 105       HPR
    )
    poke(m, 0o200, 10, 0)
    for i in range(1, 11):
        poke(m, 0o310 - i, i)
    m.ic = 0o100
    assert m.run(max_instructions=1000) is StopReason.HALT
    assert m.read(0o202) == 55
    assert m.instructions == 2 + 2 * 10 + 2
    assert m.cycles == 2 * m.instructions


def test_program_bit_count_table_lookup_costs_match_reference() -> None:
    """ANA is 3 cycles, ANS 4, others 2: a mixed run adds them up."""
    m = make_machine()
    poke(
        m,
        0,
        asm("CLA", 0o100),  # CLA 100   2
        asm("ANA", 0o101),  # ANA 101   3
        asm("ALS", 10),  # ALS 10    3
        asm("ANS", 0o102),  # ANS 102   4
        asm("CAS", 0o103),  # CAS 103   3 -> AC > C(Y): next
        asm("HPR"),  # HPR       2
    )
    poke(m, 0o100, 0o7777, 0o77, 0o7700, 0)
    assert m.run() is StopReason.HALT
    assert m.cycles == 2 + 3 + 3 + 4 + 3 + 2


def test_data_words_built_with_prefix_helpers_run_as_type_a() -> None:
    m = make_machine()
    m.xr[1] = 1
    poke(m, 0, make_word(prefix=0o7, decrement=0, tag=1, address=0o40))  # MTH 40,1,0 = TXL 40,1,0
    m.step()
    assert m.ic == 1  # XR 1 = 1 > 0: no transfer
    assert m.read(0) & ADDR_FIELD == 0o40


# -- speed --------------------------------------------------------------------------------------
