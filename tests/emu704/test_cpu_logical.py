"""Logical operations on AC P,1-35, the sign sub-ops and CAS (reference section 2.3)."""

from __future__ import annotations

import pytest
from cpu_testing import AC_P, AC_Q, AC_S, ac_of, asm, make_machine, minus, poke

from emu704.cpu import AC_MAG
from emu704.word import MAG_MASK, SIGN

# -- ANA / ANS / ORA / ORS ---------------------------------------------------------------


def test_ana_matches_p_with_storage_sign_and_clears_s_q() -> None:
    m = make_machine()
    m.ac = ac_of(0o17, negative=True, q=True, p=True)
    poke(m, 0o100, minus(0o5))
    poke(m, 0, asm("ANA", 0o100))  # ANA 100
    m.step()
    assert m.ac == AC_P | 0o5
    assert m.cycles == 3


def test_ana_storage_sign_clear_clears_p() -> None:
    m = make_machine()
    m.ac = ac_of(0o17, p=True)
    poke(m, 0o100, 0o6)
    poke(m, 0, asm("ANA", 0o100))  # ANA 100
    m.step()
    assert m.ac == 0o6


def test_ans_stores_and_and_leaves_ac() -> None:
    m = make_machine()
    m.ac = ac_of(0o14, negative=True, q=True, p=True)
    poke(m, 0o100, minus(0o7))
    poke(m, 0, asm("ANS", 0o100))  # ANS 100
    m.step()
    assert m.read(0o100) == minus(0o4)
    assert m.ac == ac_of(0o14, negative=True, q=True, p=True)
    assert m.cycles == 4


def test_ans_ac_p_clear_clears_storage_sign() -> None:
    m = make_machine()
    m.ac = ac_of(0o7, negative=True)
    poke(m, 0o100, minus(0o7))
    poke(m, 0, asm("ANS", 0o100))  # ANS 100
    m.step()
    assert m.read(0o100) == 0o7


def test_ora_keeps_s_and_q_and_ors_storage_sign_into_p() -> None:
    m = make_machine()
    m.ac = ac_of(0o4, negative=True, q=True)
    poke(m, 0o100, minus(0o1))
    poke(m, 0, asm("ORA", 0o100))  # ORA 100
    m.step()
    assert m.ac == AC_S | AC_Q | AC_P | 0o5
    assert m.cycles == 2


def test_ors_stores_or_of_ac_p_1_35() -> None:
    m = make_machine()
    m.ac = ac_of(0o4, negative=True, q=True, p=True)
    poke(m, 0o100, 0o1)
    poke(m, 0, asm("ORS", 0o100))  # ORS 100
    m.step()
    assert m.read(0o100) == SIGN | 0o5
    assert m.cycles == 2


# -- sign and magnitude sub-ops ------------------------------------------------------------


def test_com_complements_q_p_1_35_keeps_sign() -> None:
    m = make_machine()
    m.ac = ac_of(0o5, negative=True)
    poke(m, 0, asm("COM"))  # COM
    m.step()
    assert m.ac == AC_S | (AC_MAG ^ 0o5)


def test_clm_clears_magnitude_keeps_sign() -> None:
    m = make_machine()
    m.ac = ac_of(MAG_MASK, negative=True, q=True, p=True)
    poke(m, 0, asm("CLM"))  # CLM
    m.step()
    assert m.ac == AC_S


def test_chs_inverts_sign() -> None:
    m = make_machine()
    m.ac = ac_of(3, q=True)
    poke(m, 0, asm("CHS"), asm("CHS"))  # CHS / CHS
    m.step()
    assert m.ac == ac_of(3, negative=True, q=True)
    m.step()
    assert m.ac == ac_of(3, q=True)


def test_ssp_sets_sign_plus() -> None:
    m = make_machine()
    m.ac = ac_of(3, negative=True)
    poke(m, 0, asm("SSP"))  # SSP
    m.step()
    assert m.ac == 3


def test_ssm_sets_sign_minus() -> None:
    m = make_machine()
    m.ac = 3
    poke(m, 0, asm("SSM"))  # SSM
    m.step()
    assert m.ac == ac_of(3, negative=True)


def test_lbt_bit_35_set_skips() -> None:
    m = make_machine()
    m.ac = 1
    poke(m, 0, asm("LBT"))  # LBT
    m.step()
    assert m.ic == 2
    assert m.cycles == 2


def test_lbt_bit_35_clear_goes_on() -> None:
    m = make_machine()
    m.ac = 2
    poke(m, 0, asm("LBT"))  # LBT
    m.step()
    assert m.ic == 1


def test_pbt_p_set_skips() -> None:
    m = make_machine()
    m.ac = AC_P
    poke(m, 0, asm("PBT"))  # PBT
    m.step()
    assert m.ic == 2


def test_pbt_p_clear_goes_on() -> None:
    m = make_machine()
    m.ac = AC_S | AC_Q | MAG_MASK
    poke(m, 0, asm("PBT"))  # PBT
    m.step()
    assert m.ic == 1


def test_sub_op_reached_through_index_register() -> None:
    m = make_machine()
    m.ac = 3
    m.xr[2] = 1
    poke(m, 0, asm("PSE", 0o3, 2))  # PSE 3,2  = +0760 ...0002 = CHS
    m.step()
    assert m.ac == ac_of(3, negative=True)


# -- CAS -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ac", "y", "ic"),
    [
        (5, 3, 1),  # AC > C(Y): next
        (5, 5, 2),  # equal: skip one
        (3, 5, 3),  # AC < C(Y): skip two
        (ac_of(3, negative=True), minus(5), 1),  # -3 > -5
        (ac_of(5, negative=True), minus(3), 3),  # -5 < -3
        (ac_of(5, negative=True), 3, 3),
        (0, minus(0), 1),  # +0 > -0
        (AC_S, 0, 3),  # -0 < +0
        (AC_S, minus(0), 2),
        (AC_P, MAG_MASK, 1),  # P counts in the AC magnitude
    ],
)
def test_cas_three_way_skip(ac: int, y: int, ic: int) -> None:
    m = make_machine()
    m.ac = ac
    poke(m, 0o100, y)
    poke(m, 0, asm("CAS", 0o100))  # CAS 100
    m.step()
    assert m.ic == ic
    assert m.cycles == 3
    assert m.ac == ac
