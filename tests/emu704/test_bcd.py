"""704 memory BCD, Hollerith punches and ASCII (shared/reference/ibm704.md section 3.5)."""

from __future__ import annotations

import pytest

from emu704 import bcd

# The reference table: (BCD octal, punches, Sim704 ASCII).
REFERENCE_TABLE = [
    (0o00, "0", "0"), (0o01, "1", "1"), (0o02, "2", "2"), (0o03, "3", "3"),
    (0o04, "4", "4"), (0o05, "5", "5"), (0o06, "6", "6"), (0o07, "7", "7"),
    (0o10, "8", "8"), (0o11, "9", "9"), (0o12, "8-2", "_"), (0o13, "8-3", "="),
    (0o14, "8-4", "'"), (0o15, "8-5", ":"), (0o16, "8-6", ">"), (0o17, "8-7", "{"),
    (0o20, "12", "+"), (0o21, "12-1", "A"), (0o22, "12-2", "B"), (0o23, "12-3", "C"),
    (0o24, "12-4", "D"), (0o25, "12-5", "E"), (0o26, "12-6", "F"), (0o27, "12-7", "G"),
    (0o30, "12-8", "H"), (0o31, "12-9", "I"), (0o32, "12-8-2", "?"), (0o33, "12-8-3", "."),
    (0o34, "12-8-4", ")"), (0o35, "12-8-5", "["), (0o36, "12-8-6", "<"), (0o37, "12-8-7", "}"),
    (0o40, "11", "-"), (0o41, "11-1", "J"), (0o42, "11-2", "K"), (0o43, "11-3", "L"),
    (0o44, "11-4", "M"), (0o45, "11-5", "N"), (0o46, "11-6", "O"), (0o47, "11-7", "P"),
    (0o50, "11-8", "Q"), (0o51, "11-9", "R"), (0o52, "11-8-2", "!"), (0o53, "11-8-3", "$"),
    (0o54, "11-8-4", "*"), (0o55, "11-8-5", "]"), (0o56, "11-8-6", ";"), (0o57, "11-8-7", "^"),
    (0o60, "blank", " "), (0o61, "0-1", "/"), (0o62, "0-2", "S"), (0o63, "0-3", "T"),
    (0o64, "0-4", "U"), (0o65, "0-5", "V"), (0o66, "0-6", "W"), (0o67, "0-7", "X"),
    (0o70, "0-8", "Y"), (0o71, "0-9", "Z"), (0o72, "0-8-2", "|"), (0o73, "0-8-3", ","),
    (0o74, "0-8-4", "("), (0o75, "0-8-5", "~"), (0o76, "0-8-6", "\\"), (0o77, "0-8-7", '"'),
]  # fmt: skip


def _punches(spelling: str) -> int:
    if spelling == "blank":
        return 0
    return bcd.rows_to_punches(int(r) for r in spelling.split("-"))


@pytest.mark.parametrize(("code", "punches", "char"), REFERENCE_TABLE)
def test_every_code_matches_reference_table(code: int, punches: str, char: str) -> None:
    assert bcd.char_to_bcd(char) == code
    assert bcd.bcd_to_char(code) == char
    assert bcd.bcd_to_punches(code) == _punches(punches)
    assert bcd.format_punches(bcd.bcd_to_punches(code)) == punches
    assert bcd.punches_to_bcd(_punches(punches)) == code
    assert bcd.char_to_punches(char) == _punches(punches)
    assert bcd.punches_to_char(_punches(punches)) == char


def test_table_has_64_distinct_characters_and_punchings() -> None:
    assert len(REFERENCE_TABLE) == 64
    assert len(set(bcd.BCD_TO_CHAR)) == 64
    assert len(set(bcd.BCD_TO_PUNCHES)) == 64


def test_round_trip_every_code_through_ascii_and_punches() -> None:
    for code in range(64):
        assert bcd.char_to_bcd(bcd.bcd_to_char(code)) == code
        assert bcd.punches_to_bcd(bcd.bcd_to_punches(code)) == code
    assert bcd.decode(bcd.encode(bcd.BCD_TO_CHAR)) == bcd.BCD_TO_CHAR


def test_blank_is_060_with_no_punches_and_zero_is_000_punched_0() -> None:
    assert bcd.BCD_BLANK == bcd.char_to_bcd(" ") == 0o60
    assert bcd.char_to_punches(" ") == 0
    assert bcd.char_to_bcd("0") == 0o00
    assert bcd.punch_rows(bcd.char_to_punches("0")) == (0,)


def test_zone_bits_follow_card_code() -> None:
    # 12 -> 01xxxx, 11 -> 10xxxx, 0 -> 11xxxx; digit punch in the low four bits.
    for i, letter in enumerate("ABCDEFGHI", start=1):
        assert bcd.char_to_bcd(letter) == 0o20 | i
    for i, letter in enumerate("JKLMNOPQR", start=1):
        assert bcd.char_to_bcd(letter) == 0o40 | i
    for i, letter in enumerate("STUVWXYZ", start=2):
        assert bcd.char_to_bcd(letter) == 0o60 | i


def test_punch_pattern_bit_order_is_row_slot() -> None:
    # bit 11 = row 12 ... bit 0 = row 9; CBN byte 1 = high six bits.
    assert [bcd.row_bit(r) for r in bcd.ROWS] == [1 << k for k in range(11, -1, -1)]
    assert bcd.punch_rows(0o7777) == bcd.ROWS


def test_alternative_zero_punchings_decode() -> None:
    assert bcd.punches_to_char(bcd.rows_to_punches((12, 0))) == "?"
    assert bcd.punches_to_char(bcd.rows_to_punches((11, 0))) == "!"
    # ... but encoding uses the table's punching
    assert bcd.format_punches(bcd.char_to_punches("?")) == "12-8-2"


def test_unknown_character_names_it() -> None:
    with pytest.raises(bcd.UnknownCharacterError, match=r"'a'.*U\+0061") as info:
        bcd.char_to_bcd("a")
    assert info.value.char == "a"
    with pytest.raises(bcd.UnknownCharacterError, match=r"'#' .*position 4") as info:
        bcd.encode("ABC#")
    assert info.value.position == 3


def test_unknown_character_substitute_blank() -> None:
    assert bcd.char_to_bcd("@", substitute_blank=True) == bcd.BCD_BLANK
    assert bcd.encode("a1", substitute_blank=True) == [0o60, 0o01]
    assert bcd.pack_word("x", substitute_blank=True) == bcd.pack_word(" ")


def test_char_to_bcd_rejects_strings() -> None:
    with pytest.raises(ValueError, match="one character"):
        bcd.char_to_bcd("AB")


def test_invalid_punch_pattern_names_rows_and_column() -> None:
    with pytest.raises(bcd.InvalidPunchError, match=r"1-2 .*column 7") as info:
        bcd.punches_to_bcd(bcd.rows_to_punches((1, 2)), column=7)
    assert info.value.column == 7
    with pytest.raises(bcd.InvalidPunchError, match="12-11"):
        bcd.punches_to_char(bcd.rows_to_punches((12, 11)))
    with pytest.raises(ValueError, match="12-bit"):
        bcd.punches_to_bcd(0o10000)


def test_bad_row_and_code_values() -> None:
    with pytest.raises(ValueError, match="no card row 10"):
        bcd.row_bit(10)
    with pytest.raises(ValueError, match="6-bit"):
        bcd.bcd_to_char(0o100)
    with pytest.raises(ValueError, match="6-bit"):
        bcd.bcd_to_punches(-1)


def test_pack_word_first_character_in_high_bits() -> None:
    assert bcd.pack_word("HELLO ") == 0o302543434660
    assert bcd.unpack_word(0o302543434660) == "HELLO "
    # The sign bit is the high bit of the first character: '-' (040) makes a "negative" word.
    assert bcd.pack_word("-00000") == 0o400000000000
    assert bcd.pack_word("0") == 0o006060606060  # padded with blanks


def test_pack_word_round_trips_every_code() -> None:
    for code in range(64):
        text = bcd.bcd_to_char(code) * 6
        word = bcd.pack_word(text)
        assert word == int(f"{code:02o}" * 6, 8)
        assert bcd.unpack_word(word) == text


def test_pack_word_too_long_and_bad_word() -> None:
    with pytest.raises(ValueError, match="7 characters"):
        bcd.pack_word("ABCDEFG")
    with pytest.raises(ValueError, match="36-bit"):
        bcd.unpack_word(1 << 36)


def test_pack_text_pads_last_word() -> None:
    words = bcd.pack_text("HELLO WORLD")
    assert len(words) == 2
    assert bcd.unpack_text(words) == "HELLO WORLD "
    assert bcd.pack_text("") == []
    with pytest.raises(bcd.UnknownCharacterError, match="position 8"):
        bcd.pack_text("HELLO Wo")
