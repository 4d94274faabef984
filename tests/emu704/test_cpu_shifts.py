"""Shifts: ALS ARS LLS LRS LGL RQL, count = low 8 bits of Y, cycles 2 + (n+2)//12."""

from __future__ import annotations

import pytest
from cpu_testing import AC_P, AC_Q, AC_S, ac_of, asm, make_machine, minus, poke

from emu704.cpu import shift_cycles
from emu704.word import MAG_MASK, SIGN


@pytest.mark.parametrize(
    ("n", "cycles"),
    [(0, 2), (9, 2), (10, 3), (21, 3), (22, 4), (33, 4), (34, 5), (45, 5), (46, 6), (255, 23)],
)
def test_als_cycles_follow_two_plus_n_plus_two_over_twelve(n: int, cycles: int) -> None:
    m = make_machine()
    poke(m, 0, asm("ALS", n))  # ALS n
    m.step()
    assert m.cycles == cycles
    assert shift_cycles(n) == cycles


@pytest.mark.parametrize("op", ["ARS", "LLS", "LRS", "LGL", "RQL"])
def test_every_shift_uses_the_same_timing(op: str) -> None:
    m = make_machine()
    poke(m, 0, asm(op, 22))  # op 22
    m.step()
    assert m.cycles == 4


def test_als_count_is_address_mod_256() -> None:
    m = make_machine()
    m.ac = 5
    poke(m, 0, asm("ALS", 256 + 2))  # ALS 258 = ALS 2
    m.step()
    assert m.ac == 20
    assert m.cycles == 2


def test_als_count_comes_from_effective_address() -> None:
    m = make_machine()
    m.ac = 1
    m.xr[1] = 2
    poke(m, 0, asm("ALS", 8, 1))  # ALS 8,1 = ALS 6
    m.step()
    assert m.ac == 64


def test_als_keeps_sign() -> None:
    m = make_machine()
    m.ac = ac_of(1, negative=True)
    poke(m, 0, asm("ALS", 2))  # ALS 2
    m.step()
    assert m.ac == ac_of(4, negative=True)
    assert not m.ac_overflow


def test_als_bit_1_into_p_sets_overflow() -> None:
    m = make_machine()
    m.ac = 2**34
    poke(m, 0, asm("ALS", 1))  # ALS 1
    m.step()
    assert m.ac == AC_P
    assert m.ac_overflow


def test_als_three_of_bit_1_loses_it_past_q() -> None:
    m = make_machine()
    m.ac = 2**34
    poke(m, 0, asm("ALS", 3))  # ALS 3  (verified on L704: result 0)
    m.step()
    assert m.ac == 0
    assert m.ac_overflow


def test_als_p_moving_into_q_is_not_overflow() -> None:
    m = make_machine()
    m.ac = AC_P | 1
    poke(m, 0, asm("ALS", 1))  # ALS 1
    m.step()
    assert m.ac == AC_Q | 2
    assert not m.ac_overflow


def test_als_255_clears_magnitude_and_sets_overflow() -> None:
    m = make_machine()
    m.ac = ac_of(1, negative=True)
    poke(m, 0, asm("ALS", 255))  # ALS 255
    m.step()
    assert m.ac == AC_S
    assert m.ac_overflow


def test_ars_shifts_q_p_down_into_magnitude() -> None:
    m = make_machine()
    m.ac = ac_of(0b11, negative=True, q=True)
    poke(m, 0, asm("ARS", 2))  # ARS 2
    m.step()
    assert m.ac == AC_S | 2**34  # Q -> bit 1, bits past 35 lost, sign kept


def test_lls_35_moves_mq_into_ac_and_takes_mq_sign() -> None:
    m = make_machine()
    m.ac = 0
    m.mq = minus(5)
    poke(m, 0, asm("LLS", 35))  # LLS 35
    m.step()
    assert m.ac == ac_of(5, negative=True)
    assert m.mq == minus(0)
    assert not m.ac_overflow


def test_lls_one_into_p_sets_overflow() -> None:
    m = make_machine()
    m.ac = 2**34
    m.mq = 2**34
    poke(m, 0, asm("LLS", 1))  # LLS 1
    m.step()
    assert m.ac == AC_P | 1
    assert m.mq == 0
    assert m.ac_overflow


def test_lls_zero_still_copies_mq_sign_to_ac() -> None:
    m = make_machine()
    m.ac = 7
    m.mq = minus(1)
    poke(m, 0, asm("LLS", 0))  # LLS 0
    m.step()
    assert m.ac == ac_of(7, negative=True)


def test_lrs_35_moves_ac_into_mq_and_gives_mq_ac_sign() -> None:
    m = make_machine()
    m.ac = ac_of(5, negative=True)
    m.mq = 0o777
    poke(m, 0, asm("LRS", 35))  # LRS 35
    m.step()
    assert m.ac == AC_S
    assert m.mq == minus(5)


def test_lrs_q_and_p_shift_into_ac_bits() -> None:
    m = make_machine()
    m.ac = AC_Q | 1
    poke(m, 0o0, asm("LRS", 1))  # LRS 1
    m.mq = 0
    m.step()
    assert m.ac == AC_P
    assert m.mq == 2**34


def test_lgl_mq_sign_enters_ac_35_and_ac_sign_unchanged() -> None:
    m = make_machine()
    m.ac = AC_S
    m.mq = SIGN | 1
    poke(m, 0, asm("LGL", 1))  # LGL 1
    m.step()
    assert m.ac == AC_S | 1
    assert m.mq == 2


def test_lgl_36_moves_whole_mq_word() -> None:
    m = make_machine()
    m.mq = 0o123
    poke(m, 0, asm("LGL", 36))  # LGL 36
    m.step()
    assert m.ac == 0o123
    assert m.mq == 0


def test_lgl_into_p_sets_overflow() -> None:
    m = make_machine()
    m.mq = SIGN
    poke(m, 0, asm("LGL", 36))  # LGL 36: MQ S passes bit 35 ... bit 1 into P
    m.step()
    assert m.ac == AC_P
    assert m.ac_overflow


def test_rql_rotates_sign_into_bit_35() -> None:
    m = make_machine()
    m.mq = SIGN | 1
    poke(m, 0, asm("RQL", 1))  # RQL 1
    m.step()
    assert m.mq == 0b11
    assert not m.ac_overflow


def test_rql_36_is_identity() -> None:
    m = make_machine()
    m.mq = 0o123456701234
    poke(m, 0, asm("RQL", 36))  # RQL 36
    m.step()
    assert m.mq == 0o123456701234
    assert m.cycles == 5


def test_rql_left_3_moves_top_octal_digit_to_bottom() -> None:
    m = make_machine()
    m.mq = 0o700000000001
    poke(m, 0, asm("RQL", 3))  # RQL 3
    m.step()
    assert m.mq == 0o000000000017


def test_lrs_zero_only_copies_ac_sign_to_mq() -> None:
    m = make_machine()
    m.ac = ac_of(9, negative=True)
    m.mq = MAG_MASK
    poke(m, 0, asm("LRS", 0))  # LRS 0
    m.step()
    assert m.ac == ac_of(9, negative=True)
    assert m.mq == SIGN | MAG_MASK
