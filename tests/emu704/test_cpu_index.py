"""Index registers and transfers: subtractive indexing, multiple tags, TSX linkage, type A,
conditional transfers and trapping mode (reference sections 1.4, 2.2)."""

from __future__ import annotations

import pytest
from cpu_testing import AC_P, AC_Q, AC_S, SENTINEL, ac_of, asm, make_machine, minus, poke

from emu704 import StopReason
from emu704.word import ADDR_FIELD, SIGN

# -- loading and storing index registers --------------------------------------------------


def test_lxa_loads_address_field() -> None:
    m = make_machine()
    poke(m, 0o100, 0o712345_654321)
    poke(m, 0, asm("LXA", 0o100, 1))  # LXA 100,1
    m.step()
    assert m.xr[1] == 0o54321
    assert m.xr[2] == 0 and m.xr[4] == 0
    assert m.cycles == 2


def test_lxd_loads_decrement_field() -> None:
    m = make_machine()
    poke(m, 0o100, 0o712345_654321)
    poke(m, 0, asm("LXD", 0o100, 4))  # LXD 100,4
    m.step()
    assert m.xr[4] == 0o12345


def test_lxa_address_is_not_indexed() -> None:
    m = make_machine()
    m.xr[1] = 5
    poke(m, 0o100, 7)
    poke(m, 0, asm("LXA", 0o100, 1))  # LXA 100,1
    m.step()
    assert m.xr[1] == 7


def test_lxa_multiple_tags_load_every_selected_register() -> None:
    m = make_machine()
    poke(m, 0o100, 0o123)
    poke(m, 0, asm("LXA", 0o100, 3))  # LXA 100,3 (verified on L704: sets A and B)
    m.step()
    assert (m.xr[1], m.xr[2], m.xr[4]) == (0o123, 0o123, 0)


def test_lxa_tag_zero_loads_nothing() -> None:
    m = make_machine()
    poke(m, 0o100, 0o123)
    poke(m, 0, asm("LXA", 0o100, 0))  # LXA 100
    m.step()
    assert (m.xr[1], m.xr[2], m.xr[4]) == (0, 0, 0)


def test_lxa_masks_to_address_width_on_4k() -> None:
    m = make_machine(4096)
    poke(m, 0o100, 0o77777)
    poke(m, 0, asm("LXA", 0o100, 2))  # LXA 100,2
    m.step()
    assert m.xr[2] == 0o7777


def test_sxd_stores_index_in_decrement_only() -> None:
    m = make_machine()
    m.xr[2] = 0o4321
    poke(m, 0, asm("SXD", 0o100, 2))  # SXD 100,2
    m.step()
    assert m.read(0o100) == (SENTINEL & ~0o077777000000) | (0o4321 << 18)


def test_sxd_multiple_tags_store_or() -> None:
    m = make_machine()
    m.xr[1] = 0o1
    m.xr[4] = 0o10
    poke(m, 0, asm("SXD", 0o100, 5))  # SXD 100,5
    m.step()
    assert (m.read(0o100) >> 18) & 0o77777 == 0o11


def test_pax_loads_ac_address() -> None:
    m = make_machine()
    m.ac = ac_of(0o12345_054321, negative=True)
    poke(m, 0, asm("PAX", 0, 4))  # PAX 0,4
    m.step()
    assert m.xr[4] == 0o54321


def test_pdx_loads_ac_decrement() -> None:
    m = make_machine()
    m.ac = ac_of(0o012345_054321)
    poke(m, 0, asm("PDX", 0, 1))  # PDX 0,1
    m.step()
    assert m.xr[1] == 0o12345


def test_pxd_clears_ac_and_puts_index_in_decrement() -> None:
    m = make_machine()
    m.ac = ac_of(0o777, negative=True, q=True, p=True)
    m.xr[2] = 0o765
    poke(m, 0, asm("PXD", 0, 2))  # PXD 0,2
    m.step()
    assert m.ac == 0o765 << 18


def test_pxd_tag_zero_just_clears_ac() -> None:
    m = make_machine()
    m.ac = ac_of(0o777, negative=True)
    poke(m, 0, asm("PXD"))  # PXD
    m.step()
    assert m.ac == 0


# -- indexing -------------------------------------------------------------------------------


def test_indexing_multiple_tags_subtracts_or_of_registers() -> None:
    m = make_machine()
    m.xr[1] = 5
    m.xr[2] = 3
    poke(m, 0o100 - 7, 42)
    poke(m, 0, asm("CLA", 0o100, 3))  # CLA 100,3  (verified on L704: reads 100-7)
    m.step()
    assert m.ac == 42
    assert m.cycles == 2


def test_indexing_tag_seven_ors_all_three() -> None:
    m = make_machine()
    m.xr[1], m.xr[2], m.xr[4] = 0o1, 0o2, 0o10
    poke(m, 0o100 - 0o13, 9)
    poke(m, 0, asm("CLA", 0o100, 7))  # CLA 100,7
    m.step()
    assert m.ac == 9


def test_indexed_store_with_multiple_tags() -> None:
    m = make_machine()
    m.xr[2], m.xr[4] = 0o4, 0o1
    m.ac = 77
    poke(m, 0, asm("STO", 0o100, 6))  # STO 100,6
    m.step()
    assert m.read(0o100 - 0o5) == 77


def test_indexing_wraps_below_zero() -> None:
    m = make_machine()
    m.xr[1] = 5
    poke(m, 32768 - 3, 11)
    poke(m, 0o10, asm("CLA", 2, 1))  # CLA 2,1
    m.ic = 0o10
    m.step()
    assert m.ac == 11


# -- TSX / TRA 1,4 ----------------------------------------------------------------------------


def test_tsx_stores_twos_complement_of_location_32k() -> None:
    m = make_machine()
    poke(m, 3, asm("TSX", 0o200, 4))  # TSX 200,4
    m.ic = 3
    m.step()
    assert m.xr[4] == 0o77775
    assert m.ic == 0o200


def test_tsx_stores_twos_complement_of_location_8k() -> None:
    m = make_machine(8192)
    poke(m, 3, asm("TSX", 0o200, 4))  # TSX 200,4  (L704: XR C = 17775)
    m.ic = 3
    m.step()
    assert m.xr[4] == 0o17775


def test_tsx_address_is_not_indexed() -> None:
    m = make_machine()
    m.xr[1] = 0o10
    poke(m, 0, asm("TSX", 0o200, 1))  # TSX 200,1
    m.step()
    assert m.ic == 0o200


def test_tsx_then_tra_1_4_returns_after_the_call() -> None:
    m = make_machine()
    poke(m, 0o10, asm("TSX", 0o200, 4), asm("HPR"))  # 10 TSX SUB,4 / 11 HPR
    poke(m, 0o200, asm("CLA", 0o300), asm("TRA", 1, 4))  # SUB CLA 300 / TRA 1,4
    poke(m, 0o300, 5)
    m.ic = 0o10
    assert m.run() is StopReason.HALT
    assert m.halt_location == 0o11
    assert m.ac == 5
    assert m.instructions == 4


# -- type A ----------------------------------------------------------------------------------


def test_txi_adds_decrement_and_transfers() -> None:
    m = make_machine()
    m.xr[1] = 5
    poke(m, 0, asm("TXI", 0o100, 1, 3))  # TXI 100,1,3
    m.step()
    assert m.xr[1] == 8
    assert m.ic == 0o100
    assert m.cycles == 2


def test_txi_wraps_modulo_address_width() -> None:
    m = make_machine(4096)
    m.xr[1] = 2
    poke(m, 0, asm("TXI", 0o100, 1, -1))  # TXI 100,1,-1 (decrement 77777)
    m.step()
    assert m.xr[1] == 1


def test_txi_tag_zero_just_transfers() -> None:
    m = make_machine()
    poke(m, 0, asm("TXI", 0o100, 0, 3))  # TXI 100,,3
    m.step()
    assert m.ic == 0o100
    assert (m.xr[1], m.xr[2], m.xr[4]) == (0, 0, 0)


def test_tix_index_greater_decrements_and_transfers() -> None:
    m = make_machine()
    m.xr[2] = 5
    poke(m, 0, asm("TIX", 0o100, 2, 2))  # TIX 100,2,2
    m.step()
    assert m.xr[2] == 3
    assert m.ic == 0o100


def test_tix_index_equal_goes_on_unchanged() -> None:
    m = make_machine()
    m.xr[2] = 2
    poke(m, 0, asm("TIX", 0o100, 2, 2))  # TIX 100,2,2
    m.step()
    assert m.xr[2] == 2
    assert m.ic == 1


def test_tix_tag_zero_never_transfers() -> None:
    m = make_machine()
    poke(m, 0, asm("TIX", 0o100, 0, 0))  # TIX 100,,0
    m.step()
    assert m.ic == 1


def test_tix_compares_unsigned() -> None:
    m = make_machine()
    m.xr[4] = 0o77777
    poke(m, 0, asm("TIX", 0o100, 4, 1))  # TIX 100,4,1
    m.step()
    assert m.xr[4] == 0o77776
    assert m.ic == 0o100


def test_tix_multiple_tags_test_or_and_set_all() -> None:
    m = make_machine()
    m.xr[1], m.xr[2] = 4, 1
    poke(m, 0, asm("TIX", 0o100, 3, 1))  # TIX 100,3,1
    m.step()
    assert (m.xr[1], m.xr[2]) == (4, 4)
    assert m.ic == 0o100


def test_tnx_index_greater_decrements_and_goes_on() -> None:
    m = make_machine()
    m.xr[1] = 5
    poke(m, 0, asm("TNX", 0o100, 1, 2))  # TNX 100,1,2
    m.step()
    assert m.xr[1] == 3
    assert m.ic == 1


def test_tnx_index_not_greater_transfers() -> None:
    m = make_machine()
    m.xr[1] = 2
    poke(m, 0, asm("TNX", 0o100, 1, 2))  # TNX 100,1,2
    m.step()
    assert m.xr[1] == 2
    assert m.ic == 0o100


def test_txh_greater_transfers() -> None:
    m = make_machine()
    m.xr[4] = 3
    poke(m, 0, asm("TXH", 0o100, 4, 2))  # TXH 100,4,2
    m.step()
    assert m.ic == 0o100
    assert m.xr[4] == 3


def test_txh_equal_goes_on() -> None:
    m = make_machine()
    m.xr[4] = 2
    poke(m, 0, asm("TXH", 0o100, 4, 2))  # TXH 100,4,2
    m.step()
    assert m.ic == 1


def test_txh_tag_zero_never_transfers() -> None:
    m = make_machine()
    poke(m, 0, asm("TXH", 0o100, 0, 0))  # TXH 100,,0
    m.step()
    assert m.ic == 1


def test_txl_less_or_equal_transfers() -> None:
    m = make_machine()
    m.xr[4] = 2
    poke(m, 0, asm("TXL", 0o100, 4, 2))  # TXL 100,4,2
    m.step()
    assert m.ic == 0o100


def test_txl_greater_goes_on() -> None:
    m = make_machine()
    m.xr[4] = 3
    poke(m, 0, asm("TXL", 0o100, 4, 2))  # TXL 100,4,2
    m.step()
    assert m.ic == 1


def test_txl_tag_zero_always_transfers() -> None:
    m = make_machine()
    poke(m, 0, asm("TXL", 0o100, 0, 0))  # TXL 100,,0
    m.step()
    assert m.ic == 0o100


def test_type_a_address_is_not_indexed() -> None:
    m = make_machine()
    m.xr[1] = 5
    poke(m, 0, asm("TXI", 0o100, 1, 0))  # TXI 100,1,0
    m.step()
    assert m.ic == 0o100


# -- type B transfers --------------------------------------------------------------------------


def test_tra_transfers_to_effective_address() -> None:
    m = make_machine()
    m.xr[1] = 1
    poke(m, 0, asm("TRA", 0o101, 1))  # TRA 101,1
    m.step()
    assert m.ic == 0o100
    assert m.cycles == 2


@pytest.mark.parametrize(
    ("op", "ac", "taken"),
    [
        ("TZE", 0, True),
        ("TZE", AC_S, True),  # -0 is zero
        ("TZE", AC_Q, False),  # Q counts
        ("TZE", AC_P, False),
        ("TNZ", AC_S, False),
        ("TNZ", AC_P, True),
        ("TPL", 0, True),
        ("TPL", AC_S, False),
        ("TMI", AC_S, True),  # -0 is minus
        ("TMI", ac_of(5), False),
    ],
)
def test_ac_condition_transfers(op: str, ac: int, taken: bool) -> None:
    m = make_machine()
    m.ac = ac
    poke(m, 0, asm(op, 0o100))  # op 100
    m.step()
    assert m.ic == (0o100 if taken else 1)
    assert m.cycles == 2


def test_tov_overflow_on_turns_it_off_and_transfers() -> None:
    m = make_machine()
    m.ac_overflow = True
    poke(m, 0, asm("TOV", 0o100))  # TOV 100
    m.step()
    assert m.ic == 0o100
    assert not m.ac_overflow


def test_tov_overflow_off_goes_on() -> None:
    m = make_machine()
    poke(m, 0, asm("TOV", 0o100))  # TOV 100
    m.step()
    assert m.ic == 1


def test_tno_overflow_on_turns_it_off_and_goes_on() -> None:
    m = make_machine()
    m.ac_overflow = True
    poke(m, 0, asm("TNO", 0o100))  # TNO 100
    m.step()
    assert m.ic == 1
    assert not m.ac_overflow


def test_tno_overflow_off_transfers() -> None:
    m = make_machine()
    poke(m, 0, asm("TNO", 0o100))  # TNO 100
    m.step()
    assert m.ic == 0o100


def test_tqp_mq_plus_transfers() -> None:
    m = make_machine()
    m.mq = 0
    poke(m, 0, asm("TQP", 0o100))  # TQP 100
    m.step()
    assert m.ic == 0o100


def test_tqp_mq_minus_goes_on() -> None:
    m = make_machine()
    m.mq = minus(0)
    poke(m, 0, asm("TQP", 0o100))  # TQP 100
    m.step()
    assert m.ic == 1


def test_tqo_mq_overflow_on_turns_it_off_and_transfers() -> None:
    m = make_machine()
    m.mq_overflow = True
    poke(m, 0, asm("TQO", 0o100))  # TQO 100
    m.step()
    assert m.ic == 0o100
    assert not m.mq_overflow


@pytest.mark.parametrize(
    ("mq", "ac", "taken"),
    [
        (minus(5), 1, True),  # verified on L704
        (5, 1, False),
        (1, 1, False),  # equal: not less
        (minus(0), 0, True),  # -0 < +0
        (0, AC_S, False),
        (minus(3), ac_of(2, negative=True), True),  # -3 < -2
        (5, AC_Q, True),  # Q counts in the AC
    ],
)
def test_tlq_transfers_when_mq_algebraically_less(mq: int, ac: int, taken: bool) -> None:
    m = make_machine()
    m.mq, m.ac = mq, ac
    poke(m, 0, asm("TLQ", 0o100))  # TLQ 100
    m.step()
    assert m.ic == (0o100 if taken else 1)


# -- trapping mode ------------------------------------------------------------------------


def test_etm_enters_and_ltm_leaves_trapping_mode() -> None:
    m = make_machine()
    poke(m, 0o10, asm("ETM"), asm("LTM"))  # ETM / LTM
    m.ic = 0o10
    m.step()
    assert m.trap_mode
    m.step()
    assert not m.trap_mode


def test_trapping_mode_transfer_goes_to_1_and_stores_location_in_0() -> None:
    m = make_machine()
    m.trap_mode = True
    poke(m, 0o50, asm("TRA", 0o100))  # TRA 100
    m.ic = 0o50
    m.step()
    assert m.ic == 1
    assert m.read(0) == (SENTINEL & ~ADDR_FIELD) | 0o50
    assert m.trap_mode


def test_trapping_mode_condition_not_met_stores_location_and_goes_on() -> None:
    m = make_machine()
    m.trap_mode = True
    m.ac = 5
    poke(m, 0o50, asm("TZE", 0o100))  # TZE 100
    m.ic = 0o50
    m.step()
    assert m.ic == 0o51
    assert m.read(0) & ADDR_FIELD == 0o50


def test_trapping_mode_ttr_is_not_trapped() -> None:
    m = make_machine()
    m.trap_mode = True
    poke(m, 0o50, asm("TTR", 0o100))  # TTR 100
    m.ic = 0o50
    m.step()
    assert m.ic == 0o100
    assert m.read(0) == SENTINEL


def test_trapping_mode_tix_traps_after_decrementing() -> None:
    m = make_machine()
    m.trap_mode = True
    m.xr[1] = 3
    poke(m, 0o50, asm("TIX", 0o100, 1, 1))  # TIX 100,1,1
    m.ic = 0o50
    m.step()
    assert m.ic == 1
    assert m.xr[1] == 2
    assert m.read(0) & ADDR_FIELD == 0o50


def test_trapping_mode_tsx_sets_index_and_traps() -> None:
    m = make_machine()
    m.trap_mode = True
    poke(m, 0o50, asm("TSX", 0o100, 4))  # TSX 100,4
    m.ic = 0o50
    m.step()
    assert m.ic == 1
    assert m.xr[4] == 0o100000 - 0o50


def test_trapping_mode_skips_are_not_transfers() -> None:
    m = make_machine()
    m.trap_mode = True
    m.ac = 5
    poke(m, 0o100, 5)
    poke(m, 0o50, asm("CAS", 0o100))  # CAS 100
    m.ic = 0o50
    m.step()
    assert m.ic == 0o52
    assert m.read(0) == SENTINEL


def test_trap_store_keeps_rest_of_location_0() -> None:
    m = make_machine()
    m.trap_mode = True
    poke(m, 0, SIGN | 0o123456_777777)
    poke(m, 0o50, asm("TRA", 0o100))  # TRA 100
    m.ic = 0o50
    m.step()
    assert m.read(0) == SIGN | 0o123456_700050


def test_ac_p_q_untouched_by_transfers() -> None:
    m = make_machine()
    m.ac = AC_P | AC_Q
    poke(m, 0, asm("TRA", 0o100))  # TRA 100
    m.step()
    assert m.ac == AC_P | AC_Q
