"""Floating point: FAD UFA FSB UFS FMP UFM FDH FDP (excess-128 characteristic, 27-bit fraction).

Semantics from the 704 manual's step lists (reference section 2.2; manual text as transcribed
in Sim704 ALU.cs) and the measured timings of section 2.1.
"""

from __future__ import annotations

from cpu_testing import AC_P, AC_Q, AC_S, asm, make_machine, poke

from emu704 import StopReason
from emu704.cpu import fad_align_extra
from emu704.word import SIGN, float_to_word

ONE = 0o201400000000
TWO = 0o202400000000
THREE = 0o202600000000
ONE_AND_HALF = 0o201600000000


def fw(x: float) -> int:
    return float_to_word(x)


def ac_fp(word: int) -> int:
    """AC value holding the FP storage word ``word`` (sign moved to AC S)."""
    return ((word & SIGN) << 2) | (word & ~SIGN)


def run_fp(op: str, ac: int, y: int, mq: int = 0) -> object:
    m = make_machine()
    m.ac = ac_fp(ac)
    m.mq = mq
    poke(m, 0o100, y)
    poke(m, 0, asm(op, 0o100))  # op 100
    m.step()
    return m


# -- FAD / FSB --------------------------------------------------------------------------------


def test_fad_one_plus_one_carries_into_characteristic() -> None:
    m = run_fp("FAD", ONE, ONE)
    assert m.ac == TWO
    assert m.mq == 0o147_000000000  # characteristic 202 - 27, fraction 0, sign of AC
    assert m.cycles == 7
    assert not m.ac_overflow and not m.mq_overflow


def test_fad_aligns_smaller_characteristic() -> None:
    m = run_fp("FAD", TWO, ONE)
    assert m.ac == THREE
    assert m.cycles == 7


def test_fsb_subtracts() -> None:
    m = run_fp("FSB", THREE, ONE)
    assert m.ac == TWO


def test_fad_normalizes_left_and_lowers_characteristic() -> None:
    m = run_fp("FAD", ONE, fw(-0.75))
    assert m.ac == fw(0.25)
    assert m.cycles == 7  # two normalizing shifts


def test_fad_five_normalizing_shifts_cost_one_cycle_more() -> None:
    m = run_fp("FAD", ONE, fw(-31 / 32))
    assert m.ac == fw(1 / 32)
    assert m.cycles == 8


def test_fad_exact_cancellation_gives_plus_zero_in_6_cycles() -> None:
    m = run_fp("FAD", ONE, SIGN | ONE)
    assert m.ac == 0
    assert m.mq == 0
    assert m.cycles == 6


def test_fad_exact_cancellation_zero_takes_sign_of_ac_operand() -> None:
    m = run_fp("FAD", SIGN | ONE, ONE)
    assert m.ac == AC_S
    assert m.mq == SIGN


def test_fad_low_order_bits_go_to_mq_with_characteristic_27_less() -> None:
    m = run_fp("FAD", ONE, fw(2.0**-40))
    assert m.ac == ONE
    assert m.mq == (0o146 << 27) | 0o20000
    assert m.cycles == 7 + fad_align_extra(40)


def test_fad_alignment_of_12_costs_one_extra_cycle() -> None:
    m = run_fp("FAD", ONE, fw(2.0**-12))
    assert m.ac == ONE | (1 << 14)
    assert m.cycles == 8


def test_fad_alignment_of_23_costs_two_extra_cycles() -> None:
    m = run_fp("FAD", ONE, fw(2.0**-23))
    assert m.ac == ONE | (1 << 3)
    assert m.cycles == 9


def test_fad_align_extra_table() -> None:
    assert [fad_align_extra(d) for d in (0, 11, 12, 22, 23, 33, 34, 62, 63, 255)] == [
        0, 0, 1, 1, 2, 2, 3, 5, 0, 0,
    ]


def test_fad_result_sign_is_sign_of_larger_magnitude() -> None:
    m = run_fp("FAD", ONE, SIGN | THREE)
    assert m.ac == ac_fp(SIGN | TWO)
    assert m.mq >> 35 == 1  # MQ sign = AC sign


def test_fad_characteristic_overflow_sets_ac_overflow() -> None:
    big = (0o377 << 27) | 0o400000000
    m = run_fp("FAD", big, big)
    assert m.ac_overflow
    assert not m.mq_overflow
    assert m.ac == AC_P | 0o400000000  # characteristic 400 reaches into P


def test_fad_characteristic_underflow_sets_both_indicators() -> None:
    m = run_fp("FAD", (1 << 27) | 0o400000000, SIGN | (1 << 27) | 0o340000000)
    assert m.ac_overflow
    assert m.mq_overflow
    assert m.ac & (AC_Q | AC_P) == AC_Q | AC_P  # characteristic -2 in Q,P,1-8
    assert m.ac & 0o777777777 == 0o400000000


def test_ufa_does_not_normalize() -> None:
    m = run_fp("UFA", ONE, fw(-0.75))
    assert m.ac == 0o201_100000000  # 1/8 at characteristic 201
    assert m.cycles == 5


def test_ufs_subtracts_without_normalizing() -> None:
    m = run_fp("UFS", ONE, fw(0.75))
    assert m.ac == 0o201_100000000


def test_ufa_exact_cancellation_keeps_characteristic() -> None:
    m = run_fp("UFA", ONE, SIGN | ONE)
    assert m.ac == 0o201_000000000
    assert m.mq == 0o146_000000000


def test_fad_operand_unchanged_in_storage() -> None:
    m = run_fp("FAD", ONE, THREE)
    assert m.read(0o100) == THREE


# -- FMP / UFM ----------------------------------------------------------------------------


def test_fmp_one_and_half_times_two_normalizes_once() -> None:
    m = run_fp("FMP", 0, TWO, mq=ONE_AND_HALF)
    assert m.ac == THREE
    assert m.mq == 0o147_000000000
    assert m.cycles == 17


def test_fmp_unlike_signs_negative_product_in_ac_and_mq() -> None:
    m = run_fp("FMP", 0, TWO, mq=SIGN | ONE_AND_HALF)
    assert m.ac == ac_fp(SIGN | THREE)
    assert m.mq >> 35 == 1


def test_fmp_low_order_product_in_mq() -> None:
    x = fw(1 + 2.0**-26)  # fraction 400000001
    m = run_fp("FMP", 0, x, mq=x)
    # (2**26 + 1)**2 = 2**52 + 2**27 + 1 -> AC fraction 2**25 + 1 -> normalized by one shift
    assert m.ac == (0o202 - 1) << 27 | ((2**25 + 1) << 1)
    assert m.mq == ((0o201 - 27) << 27) | 2


def test_fmp_by_plus_zero_gives_zero_with_mq_sign() -> None:
    m = run_fp("FMP", ONE, 0, mq=SIGN | THREE)
    assert m.ac == AC_S
    assert m.mq == SIGN
    assert m.cycles == 17


def test_fmp_zero_fraction_gives_normal_zero() -> None:
    m = run_fp("FMP", 0, 0o201_000000000, mq=THREE)
    assert m.ac == 0
    assert m.mq == 0


def test_ufm_does_not_normalize() -> None:
    m = run_fp("UFM", 0, TWO, mq=ONE_AND_HALF)
    assert m.ac == 0o203_300000000
    assert m.mq == 0o150_000000000


def test_fmp_characteristic_underflow_sets_both_indicators() -> None:
    tiny = (0o12 << 27) | 0o400000000
    m = run_fp("FMP", 0, tiny, mq=tiny)
    assert m.ac_overflow
    assert m.mq_overflow


def test_fmp_characteristic_overflow_sets_ac_overflow_only() -> None:
    huge = (0o310 << 27) | 0o400000000
    m = run_fp("FMP", 0, huge, mq=huge)
    assert m.ac_overflow
    assert not m.mq_overflow


# -- FDP / FDH -----------------------------------------------------------------------------


def test_fdp_three_by_two_quotient_in_mq() -> None:
    m = run_fp("FDP", THREE, TWO)
    assert m.mq == ONE_AND_HALF
    assert m.ac == 0o150_000000000  # remainder 0, characteristic 203 - 27
    assert m.cycles == 18


def test_fdp_one_by_three_remainder_in_ac() -> None:
    m = run_fp("FDP", ONE, THREE)
    assert m.mq == 0o177_525252525
    assert m.ac == 0o146_200000000


def test_fdp_signs_quotient_algebraic_remainder_dividend() -> None:
    m = run_fp("FDP", SIGN | THREE, TWO)
    assert m.mq == SIGN | ONE_AND_HALF
    assert m.ac == AC_S | 0o150_000000000


def test_fdp_zero_divisor_sets_divide_check_and_proceeds() -> None:
    m = run_fp("FDP", THREE, 0o201_000000000, mq=0o1234)
    assert m.divide_check
    assert m.ac == THREE
    assert m.mq == 0o1234
    assert m.ic == 1
    assert m.cycles == 3


def test_fdp_dividend_twice_divisor_is_divide_check() -> None:
    m = run_fp("FDP", 0o201_400000000, 0o201_200000000)
    assert m.divide_check
    assert m.ac == ONE


def test_fdh_divide_check_halts() -> None:
    m = make_machine()
    m.ac = ac_fp(ONE)
    poke(m, 0o100, 0)
    poke(m, 0, asm("FDH", 0o100))  # FDH 100
    assert m.step() is StopReason.DIVIDE_CHECK
    assert m.ic == 1
    assert m.cycles == 3


def test_fdp_zero_dividend_clears_ac_and_mq_keeping_signs() -> None:
    m = run_fp("FDP", SIGN | 0o150_000000000, TWO, mq=0o777)
    assert m.ac == AC_S
    assert m.mq == SIGN
    assert not m.divide_check


def test_fdp_quotient_characteristic_underflow_sets_mq_overflow() -> None:
    small = (0o10 << 27) | 0o400000000
    m = run_fp("FDP", small, (0o300 << 27) | 0o400000000)
    assert m.mq_overflow
