"""emu704.word: 36-bit sign-magnitude words, fields, octal formatting."""

from __future__ import annotations

import pytest

from emu704 import word
from emu704.word import MAG_MASK, SIGN, WORD_MASK


def test_constants_are_36_bit_sign_magnitude() -> None:
    assert WORD_MASK == 2**36 - 1
    assert SIGN == 2**35
    assert MAG_MASK == 2**35 - 1
    assert SIGN | MAG_MASK == WORD_MASK


def test_field_masks_cover_the_word_without_overlap() -> None:
    fields = [word.PREFIX_FIELD, word.DECR_FIELD, word.TAG_FIELD, word.ADDR_FIELD]
    total = 0
    for f in fields:
        assert total & f == 0
        total |= f
    assert total == WORD_MASK


def test_get_fields_of_type_a_word() -> None:
    w = word.make_word(prefix=0o7, decrement=0o12345, tag=0o4, address=0o54321)  # TXL 54321,4,12345
    assert w == 0o712345454321
    assert word.get_prefix(w) == 0o7
    assert word.get_decrement(w) == 0o12345
    assert word.get_tag(w) == 0o4
    assert word.get_address(w) == 0o54321
    assert word.is_type_a(w)


def test_get_op_and_code_of_type_b_word() -> None:
    w = 0o450000100123  # CAL 123,1  (-0500)
    assert not word.is_type_a(w)
    assert word.get_op(w) == 0o500
    assert word.get_code(w) == 0o4500
    assert word.get_tag(w) == 1
    assert word.get_address(w) == 0o123


def test_set_fields_replace_only_their_bits() -> None:
    w = WORD_MASK
    assert word.set_address(w, 0) == WORD_MASK & ~word.ADDR_FIELD
    assert word.set_decrement(w, 0) == WORD_MASK & ~word.DECR_FIELD
    assert word.set_tag(w, 0) == WORD_MASK & ~word.TAG_FIELD
    assert word.set_prefix(w, 0) == WORD_MASK & ~word.PREFIX_FIELD
    assert word.set_address(0, -1) == 0o77777


def test_to_int_and_from_int_round_trip() -> None:
    for v in (0, 1, -1, 12345, -12345, MAG_MASK, -MAG_MASK):
        assert word.to_int(word.from_int(v)) == v


def test_from_int_minus_zero_needs_explicit_sign() -> None:
    assert word.from_int(0) == 0
    assert word.from_int(0, negative=True) == SIGN
    assert word.to_signed(SIGN) == (True, 0)
    assert word.to_signed(0) == (False, 0)


def test_from_int_too_large_raises() -> None:
    with pytest.raises(OverflowError):
        word.from_int(2**35)


def test_format_octal_signed_twelve_digits() -> None:
    assert word.format_octal(0o1234) == "+000000001234"
    assert word.format_octal(WORD_MASK) == "-377777777777"
    assert word.format_octal(SIGN) == "-000000000000"


def test_parse_octal_inverts_format() -> None:
    for w in (0, 0o1234, SIGN, WORD_MASK, 0o201400000000):
        assert word.parse_octal(word.format_octal(w)) == w
    assert word.parse_octal("-5") == SIGN | 5
    assert word.parse_octal("400000000000") == SIGN


def test_format_instruction_type_b() -> None:
    assert word.format_instruction(0o050000001234) == "+0500 00 0 01234"  # CLA 1234
    assert word.format_instruction(0o450000401234) == "-0500 00 4 01234"  # CAL 1234,4


def test_format_instruction_type_a() -> None:
    assert word.format_instruction(0o100005401234) == "+1 00005 4 01234"  # TXI 1234,4,5
    assert word.format_instruction(0o700005401234) == "-3 00005 4 01234"  # TXL 1234,4,5


def test_format_data_shows_prefix_fields() -> None:
    assert word.format_data(0o400005401234) == "-0 00005 4 01234"


def test_float_one_and_two_match_reference() -> None:
    assert word.float_to_word(1.0) == 0o201400000000
    assert word.float_to_word(2.0) == 0o202400000000
    assert word.float_to_word(-0.5) == SIGN | 0o200400000000
    assert word.float_to_word(0.0) == 0


def test_word_to_float_round_trip() -> None:
    for v in (1.0, 2.0, 3.0, -1.5, 0.25, 1e10, -3e-20):
        assert word.word_to_float(word.float_to_word(v)) == pytest.approx(v, rel=2**-26)


def test_fp_fields() -> None:
    w = 0o202600000000  # 3.0
    assert word.fp_char(w) == 0o202
    assert word.fp_fraction(w) == 0o600000000
