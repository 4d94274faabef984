"""Fixed-point arithmetic, loads and stores (reference ibm704.md section 2.2)."""

from __future__ import annotations

from cpu_testing import AC_P, AC_Q, AC_S, SENTINEL, ac_of, asm, make_machine, minus, poke

from emu704 import StopReason
from emu704.word import MAG_MASK, SIGN

# -- CLA / CLS / CAL / LDQ ------------------------------------------------------------------


def test_cla_negative_loads_sign_and_magnitude_and_clears_q_p() -> None:
    m = make_machine()
    m.ac = ac_of(5, q=True, p=True)
    poke(m, 0o100, minus(7))
    poke(m, 0, asm("CLA", 0o100))  # CLA 100
    m.step()
    assert m.ac == ac_of(7, negative=True)
    assert m.ic == 1
    assert m.cycles == 2
    assert m.instructions == 1


def test_cla_indexed_subtracts_index_register() -> None:
    m = make_machine()
    m.xr[1] = 3
    poke(m, 0o100, 42)
    poke(m, 0, asm("CLA", 0o103, 1))  # CLA 103,1
    m.step()
    assert m.ac == 42
    assert m.cycles == 2  # indexing costs nothing


def test_cls_inverts_sign() -> None:
    m = make_machine()
    poke(m, 0o100, 7)
    poke(m, 0, asm("CLS", 0o100))  # CLS 100
    m.step()
    assert m.ac == ac_of(7, negative=True)


def test_cls_minus_zero_gives_plus_zero() -> None:
    m = make_machine()
    poke(m, 0o100, minus(0))
    poke(m, 0, asm("CLS", 0o100))  # CLS 100
    m.step()
    assert m.ac == 0


def test_cal_storage_sign_goes_to_p_and_clears_s_q() -> None:
    m = make_machine()
    m.ac = ac_of(0, negative=True, q=True)
    poke(m, 0o100, minus(5))
    poke(m, 0, asm("CAL", 0o100))  # CAL 100
    m.step()
    assert m.ac == AC_P | 5


def test_ldq_loads_mq() -> None:
    m = make_machine()
    poke(m, 0o100, minus(0o1234))
    poke(m, 0, asm("LDQ", 0o100))  # LDQ 100
    m.step()
    assert m.mq == minus(0o1234)
    assert m.cycles == 2


# -- ADD / ADM / SUB / SBM ---------------------------------------------------------------------


def test_add_like_signs_adds_magnitudes() -> None:
    m = make_machine()
    m.ac = ac_of(3, negative=True)
    poke(m, 0o100, minus(4))
    poke(m, 0, asm("ADD", 0o100))  # ADD 100
    m.step()
    assert m.ac == ac_of(7, negative=True)
    assert not m.ac_overflow
    assert m.cycles == 2


def test_add_minus_five_plus_five_gives_minus_zero() -> None:
    m = make_machine()
    m.ac = ac_of(5, negative=True)
    poke(m, 0o100, 5)
    poke(m, 0, asm("ADD", 0o100))  # ADD 100
    m.step()
    assert m.ac == AC_S  # -0: a zero result keeps the AC sign (verified on L704)


def test_sub_one_minus_one_gives_plus_zero() -> None:
    m = make_machine()
    m.ac = 1
    poke(m, 0o100, 1)
    poke(m, 0, asm("SUB", 0o100))  # SUB 100
    m.step()
    assert m.ac == 0


def test_add_unlike_signs_larger_operand_gives_sign() -> None:
    m = make_machine()
    m.ac = 3
    poke(m, 0o100, minus(5))
    poke(m, 0, asm("ADD", 0o100))  # ADD 100
    m.step()
    assert m.ac == ac_of(2, negative=True)


def test_add_plus_zero_to_minus_zero_keeps_minus_zero() -> None:
    m = make_machine()
    m.ac = AC_S
    poke(m, 0o100, 0)
    poke(m, 0, asm("ADD", 0o100))  # ADD 100
    m.step()
    assert m.ac == AC_S


def test_add_minus_zero_to_plus_zero_keeps_plus_zero() -> None:
    m = make_machine()
    m.ac = 0
    poke(m, 0o100, minus(0))
    poke(m, 0, asm("ADD", 0o100))  # ADD 100
    m.step()
    assert m.ac == 0


def test_add_carry_into_p_sets_overflow() -> None:
    m = make_machine()
    m.ac = MAG_MASK
    poke(m, 0o100, 1)
    poke(m, 0, asm("ADD", 0o100))  # ADD 100
    m.step()
    assert m.ac == AC_P
    assert m.ac_overflow


def test_add_carry_out_of_p_into_q_sets_overflow() -> None:
    m = make_machine()
    m.ac = ac_of(MAG_MASK, p=True)
    poke(m, 0o100, 1)
    poke(m, 0, asm("ADD", 0o100))  # ADD 100
    m.step()
    assert m.ac == AC_Q
    assert m.ac_overflow


def test_add_carry_out_of_q_is_lost() -> None:
    m = make_machine()
    m.ac = ac_of(MAG_MASK, negative=True, q=True, p=True)
    poke(m, 0o100, minus(1))
    poke(m, 0, asm("ADD", 0o100))  # ADD 100
    m.step()
    assert m.ac == AC_S
    assert m.ac_overflow


def test_add_with_p_already_set_and_no_carry_leaves_overflow_off() -> None:
    m = make_machine()
    m.ac = ac_of(1, p=True)
    poke(m, 0o100, 1)
    poke(m, 0, asm("ADD", 0o100))  # ADD 100
    m.step()
    assert m.ac == ac_of(2, p=True)
    assert not m.ac_overflow


def test_add_unlike_signs_borrow_through_p_does_not_set_overflow() -> None:
    m = make_machine()
    m.ac = ac_of(0, negative=True, p=True)  # -2**35
    poke(m, 0o100, 1)
    poke(m, 0, asm("ADD", 0o100))  # ADD 100
    m.step()
    assert m.ac == ac_of(MAG_MASK, negative=True)
    assert not m.ac_overflow


def test_add_does_not_clear_overflow() -> None:
    m = make_machine()
    m.ac_overflow = True
    poke(m, 0o100, 1)
    poke(m, 0, asm("ADD", 0o100))  # ADD 100
    m.step()
    assert m.ac_overflow


def test_adm_adds_magnitude_ignoring_sign() -> None:
    m = make_machine()
    m.ac = 3
    poke(m, 0o100, minus(4))
    poke(m, 0, asm("ADM", 0o100))  # ADM 100
    m.step()
    assert m.ac == 7


def test_sbm_subtracts_magnitude() -> None:
    m = make_machine()
    m.ac = 3
    poke(m, 0o100, minus(4))
    poke(m, 0, asm("SBM", 0o100))  # SBM 100
    m.step()
    assert m.ac == ac_of(1, negative=True)


def test_sub_minus_zero_from_plus_zero_gives_plus_zero() -> None:
    m = make_machine()
    poke(m, 0o100, minus(0))
    poke(m, 0, asm("SUB", 0o100))  # SUB 100
    m.step()
    assert m.ac == 0


# -- ACL ----------------------------------------------------------------------------------------


def test_acl_carry_out_of_p_adds_into_bit_35() -> None:
    m = make_machine()
    m.ac = ac_of(MAG_MASK, negative=True, q=True, p=True)
    poke(m, 0o100, 1)
    poke(m, 0, asm("ACL", 0o100))  # ACL 100
    m.step()
    assert m.ac == AC_S | AC_Q | 1  # S and Q unchanged
    assert not m.ac_overflow


def test_acl_storage_sign_is_high_bit_added_to_p() -> None:
    m = make_machine()
    poke(m, 0o100, minus(0))
    poke(m, 0, asm("ACL", 0o100))  # ACL 100
    m.step()
    assert m.ac == AC_P


# -- MPY / MPR ---------------------------------------------------------------------------------


def test_mpy_small_product_in_mq() -> None:
    m = make_machine()
    m.mq = 6
    poke(m, 0o100, 7)
    poke(m, 0, asm("MPY", 0o100))  # MPY 100
    m.step()
    assert m.ac == 0
    assert m.mq == 42
    assert m.cycles == 20


def test_mpy_high_part_in_ac() -> None:
    m = make_machine()
    m.mq = 2**34
    poke(m, 0o100, 2**34 + 1)
    poke(m, 0, asm("MPY", 0o100))  # MPY 100
    m.step()
    p = 2**34 * (2**34 + 1)
    assert m.ac == p >> 35
    assert m.mq == p & MAG_MASK


def test_mpy_unlike_signs_negative_ac_and_mq() -> None:
    m = make_machine()
    m.mq = minus(3)
    poke(m, 0o100, 5)
    poke(m, 0, asm("MPY", 0o100))  # MPY 100
    m.step()
    assert m.ac == AC_S
    assert m.mq == minus(15)


def test_mpy_zero_product_keeps_algebraic_sign() -> None:
    m = make_machine()
    m.mq = minus(3)
    poke(m, 0o100, 0)
    poke(m, 0, asm("MPY", 0o100))  # MPY 100
    m.step()
    assert m.ac == AC_S
    assert m.mq == minus(0)


def test_mpy_clears_q_and_p() -> None:
    m = make_machine()
    m.ac = ac_of(0, q=True, p=True)
    m.mq = 2
    poke(m, 0o100, 2)
    poke(m, 0, asm("MPY", 0o100))  # MPY 100
    m.step()
    assert m.ac == 0
    assert m.mq == 4


def test_mpr_rounds_when_mq_bit_1_set() -> None:
    m = make_machine()
    m.mq = 2**34
    poke(m, 0o100, 1)
    poke(m, 0, asm("MPR", 0o100))  # MPR 100
    m.step()
    assert m.ac == 1
    assert m.mq == 2**34
    assert m.cycles == 20


def test_mpr_does_not_round_when_mq_bit_1_clear() -> None:
    m = make_machine()
    m.mq = 2**33
    poke(m, 0o100, 1)
    poke(m, 0, asm("MPR", 0o100))  # MPR 100
    m.step()
    assert m.ac == 0
    assert m.mq == 2**33


# -- DVH / DVP ---------------------------------------------------------------------------------


def test_dvp_quotient_in_mq_remainder_in_ac() -> None:
    m = make_machine()
    m.ac = 0
    m.mq = 100
    poke(m, 0o100, 7)
    poke(m, 0, asm("DVP", 0o100))  # DVP 100
    m.step()
    assert m.mq == 14
    assert m.ac == 2
    assert m.cycles == 20
    assert not m.divide_check


def test_dvp_uses_ac_as_high_half_of_dividend() -> None:
    m = make_machine()
    m.ac = 1
    m.mq = 0
    poke(m, 0o100, 2)
    poke(m, 0, asm("DVP", 0o100))  # DVP 100
    m.step()
    assert m.mq == 2**34
    assert m.ac == 0


def test_dvp_quotient_sign_algebraic_remainder_sign_of_dividend() -> None:
    m = make_machine()
    m.ac = AC_S  # -0: the dividend sign is the AC sign
    m.mq = 100
    poke(m, 0o100, 7)
    poke(m, 0, asm("DVP", 0o100))  # DVP 100
    m.step()
    assert m.mq == minus(14)
    assert m.ac == ac_of(2, negative=True)


def test_dvp_negative_divisor_gives_negative_quotient() -> None:
    m = make_machine()
    m.mq = 100
    poke(m, 0o100, minus(7))
    poke(m, 0, asm("DVP", 0o100))  # DVP 100
    m.step()
    assert m.mq == minus(14)
    assert m.ac == 2


def test_dvp_divide_check_leaves_operands_and_proceeds() -> None:
    m = make_machine()
    m.ac = 5
    m.mq = 9
    poke(m, 0o100, 5)
    poke(m, 0, asm("DVP", 0o100))  # DVP 100  (|C(Y)| <= |AC|)
    assert m.step() is None
    assert m.divide_check
    assert m.ac == 5
    assert m.mq == 9
    assert m.ic == 1
    assert m.cycles == 3


def test_dvp_q_or_p_set_gives_divide_check() -> None:
    m = make_machine()
    m.ac = AC_P
    poke(m, 0o100, MAG_MASK)
    poke(m, 0, asm("DVP", 0o100))  # DVP 100
    m.step()
    assert m.divide_check
    assert m.ac == AC_P


def test_dvh_divide_check_halts_the_machine() -> None:
    m = make_machine()
    m.ac = 7
    m.mq = 1
    poke(m, 0o100, 0)
    poke(m, 0o10, asm("DVH", 0o100))  # DVH 100
    m.ic = 0o10
    assert m.step() is StopReason.DIVIDE_CHECK
    assert m.divide_check
    assert m.ac == 7
    assert m.mq == 1
    assert m.ic == 0o11
    assert m.halt_location == 0o10
    assert m.cycles == 3
    assert m.instructions == 1


def test_dvh_without_check_divides_and_goes_on() -> None:
    m = make_machine()
    m.mq = 10
    poke(m, 0o100, 3)
    poke(m, 0, asm("DVH", 0o100))  # DVH 100
    assert m.step() is None
    assert m.mq == 3
    assert m.ac == 1


# -- RND ------------------------------------------------------------------------------------------


def test_rnd_mq_bit_1_set_adds_one_to_ac_magnitude() -> None:
    m = make_machine()
    m.ac = ac_of(4, negative=True)
    m.mq = 2**34
    poke(m, 0, asm("RND"))  # RND
    m.step()
    assert m.ac == ac_of(5, negative=True)
    assert m.cycles == 2


def test_rnd_mq_bit_1_clear_leaves_ac() -> None:
    m = make_machine()
    m.ac = 4
    m.mq = 2**34 - 1
    poke(m, 0, asm("RND"))  # RND
    m.step()
    assert m.ac == 4


def test_rnd_carry_into_p_sets_overflow() -> None:
    m = make_machine()
    m.ac = MAG_MASK
    m.mq = 2**34
    poke(m, 0, asm("RND"))  # RND
    m.step()
    assert m.ac == AC_P
    assert m.ac_overflow


# -- stores --------------------------------------------------------------------------------------


def test_sto_stores_sign_and_magnitude_and_drops_q_p() -> None:
    m = make_machine()
    m.ac = ac_of(0o1234, negative=True, q=True, p=True)
    poke(m, 0, asm("STO", 0o100))  # STO 100
    m.step()
    assert m.read(0o100) == minus(0o1234)
    assert m.ac == ac_of(0o1234, negative=True, q=True, p=True)


def test_slw_stores_p_as_sign() -> None:
    m = make_machine()
    m.ac = ac_of(0o17, negative=False, q=True, p=True)
    poke(m, 0, asm("SLW", 0o100))  # SLW 100
    m.step()
    assert m.read(0o100) == SIGN | 0o17


def test_slw_ignores_ac_sign() -> None:
    m = make_machine()
    m.ac = ac_of(0o17, negative=True)
    poke(m, 0, asm("SLW", 0o100))  # SLW 100
    m.step()
    assert m.read(0o100) == 0o17


def test_stz_stores_plus_zero() -> None:
    m = make_machine()
    poke(m, 0, asm("STZ", 0o100))  # STZ 100
    m.step()
    assert m.read(0o100) == 0


def test_stq_stores_mq() -> None:
    m = make_machine()
    m.mq = minus(0o777)
    poke(m, 0, asm("STQ", 0o100))  # STQ 100
    m.step()
    assert m.read(0o100) == minus(0o777)


def test_slq_stores_left_half_of_mq() -> None:
    m = make_machine()
    m.mq = 0o712345654321
    poke(m, 0, asm("SLQ", 0o100))  # SLQ 100
    m.step()
    assert m.read(0o100) == (0o712345 << 18) | (SENTINEL & 0o777777)


def test_sta_replaces_address_only() -> None:
    m = make_machine()
    m.ac = ac_of(0o12345_54321, negative=True)
    poke(m, 0, asm("STA", 0o100))  # STA 100
    m.step()
    assert m.read(0o100) == (SENTINEL & ~0o77777) | 0o54321


def test_std_replaces_decrement_only() -> None:
    m = make_machine()
    m.ac = ac_of(0o012345_654321)
    poke(m, 0, asm("STD", 0o100))  # STD 100
    m.step()
    assert m.read(0o100) == (SENTINEL & ~0o077777000000) | 0o012345000000


def test_stp_stores_ac_p_1_2_into_prefix() -> None:
    m = make_machine()
    m.ac = ac_of(0o2 << 33, negative=True, p=True)  # P=1, bit 1=1, bit 2=0; S ignored
    poke(m, 0o100, 0)
    poke(m, 0, asm("STP", 0o100))  # STP 100
    m.step()
    assert m.read(0o100) == 0o600000000000
