"""Row-binary card images, text and binary cards, CBN decks (ibm704.md sections 3.3, 3.7)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from emu704 import bcd, cards
from emu704.cards import CardFormatError, CardImage

HELLO = "HELLO 704 CHECKERS 11-15"


def test_hello_card_matches_reference_worked_example() -> None:
    # Verified on Library704 and SIMH i704 (section 3.3).
    card = cards.text_to_card(HELLO)
    assert card[0] == 0o000002000000  # row 9 left: only column 17 ('R' = 11-9)
    assert card[22] == 0o600364000000  # row 12 left: columns 1,2,11,12,13,14,16
    assert card[1] == card[23] == 0  # nothing beyond column 36
    assert cards.card_to_text(card).rstrip() == HELLO


def test_hello_card_every_row() -> None:
    card = cards.text_to_card(HELLO)

    def cols(*columns: int) -> int:
        return sum(1 << (35 - (c - 1)) for c in columns)

    # H1 E2 L3 L4 O5 _6 7(7) 0(8) 4(9) _10 C11 H12 E13 C14 K15 E16 R17 S18 _19 1(20) 1(21) -(22) 1(23) 5(24)
    expected_left = {
        9: cols(17),
        8: cols(1, 12),
        7: cols(7),
        6: cols(5),
        5: cols(2, 13, 16, 24),
        4: cols(9),
        3: cols(3, 4, 11, 14),
        2: cols(15, 18),
        1: cols(20, 21, 23),
        0: cols(8, 18),
        11: cols(3, 4, 5, 15, 17, 22),
        12: cols(1, 2, 11, 12, 13, 14, 16),
    }
    for row, word in expected_left.items():
        assert card[cards.word_index(row, 1)] == word, row
        assert card[cards.word_index(row, 37)] == 0


@pytest.mark.parametrize("column", [1, 2, 17, 36, 37, 38, 71, 72])
@pytest.mark.parametrize("row", [12, 11, 0, 1, 5, 8, 9])
def test_single_hole_lands_at_formula_position(row: int, column: int) -> None:
    # word 2*rowslot + (c > 36), mask 1 << (35 - ((c-1) % 36)); slot 0 = row 9 ... 11 = row 12
    slot = [9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 11, 12].index(row)
    patterns = [0] * 72
    patterns[column - 1] = bcd.row_bit(row)
    card = CardImage.from_columns(patterns)
    expected = [0] * 24
    expected[2 * slot + (column > 36)] = 1 << (35 - (column - 1) % 36)
    assert list(card) == expected
    assert card.column(column) == bcd.row_bit(row)
    assert card.is_punched(row, column)
    assert card.columns().count(0) == 71


def test_every_character_in_every_column_round_trips() -> None:
    chars = bcd.BCD_TO_CHAR
    for shift in range(72):
        line = "".join(chars[(i + shift) % 64] for i in range(72))
        assert cards.card_to_text(cards.text_to_card(line)) == line


def test_short_line_pads_with_blanks_and_newline_is_dropped() -> None:
    card = cards.text_to_card("12\n")
    assert card == cards.text_to_card("12")
    assert cards.card_to_text(card) == "12" + " " * 70
    assert cards.text_to_card("") == CardImage.blank()
    assert cards.text_to_card("X\r\n") == cards.text_to_card("X")


def test_columns_73_to_80_never_reach_the_image() -> None:
    base = "A" * 72
    assert cards.text_to_card(base + "SAP30016") == cards.text_to_card(base)
    # ... not even checked
    assert cards.text_to_card(base + "lower ok") == cards.text_to_card(base)


def test_line_longer_than_a_card_raises_or_truncates() -> None:
    with pytest.raises(ValueError, match="81 columns"):
        cards.text_to_card("X" * 81)
    assert cards.text_to_card("X" * 90, truncate=True) == cards.text_to_card("X" * 72)


def test_unknown_character_names_character_and_column() -> None:
    with pytest.raises(bcd.UnknownCharacterError, match=r"'a'.*column 3"):
        cards.text_to_card("11a15")
    assert cards.text_to_card("11a15", substitute_blank=True) == cards.text_to_card("11 15")


def test_invalid_punch_pattern_strict_and_placeholder() -> None:
    patterns = [bcd.char_to_punches("A"), bcd.rows_to_punches((1, 2)), bcd.char_to_punches("B")]
    card = CardImage.from_columns(patterns)
    with pytest.raises(bcd.InvalidPunchError, match="column 2"):
        cards.card_to_text(card)
    assert cards.card_to_text(card, strict=False).rstrip() == "A" + cards.INVALID_PUNCH_CHAR + "B"
    assert card.text(strict=False, placeholder="?").rstrip() == "A?B"
    assert cards.INVALID_PUNCH_CHAR not in bcd.BCD_TO_CHAR


def test_card_to_text_accepts_words() -> None:
    card = cards.text_to_card(HELLO)
    assert cards.card_to_text(list(card.words)) == cards.card_to_text(card)


def test_words_to_card_pads_binary_cards() -> None:
    card = cards.words_to_card([0o777777777777, 1, 0o400000000000])
    assert list(card)[:4] == [0o777777777777, 1, 0o400000000000, 0]
    assert len(card) == 24
    assert cards.words_to_card(list(range(24))).words == tuple(range(24))
    with pytest.raises(ValueError, match="25 words"):
        cards.words_to_card([0] * 25)


def test_card_image_validates_words() -> None:
    with pytest.raises(ValueError, match="24 words"):
        CardImage((0,) * 23)
    with pytest.raises(ValueError, match="word 5"):
        CardImage((0,) * 5 + (1 << 36,) + (0,) * 18)
    with pytest.raises(ValueError, match="word 0"):
        CardImage((-1,) + (0,) * 23)


def test_card_image_repr_evaluates_back() -> None:
    card = cards.text_to_card(HELLO)
    assert eval(repr(card)) == card
    assert "0o600364000000" in repr(card)


def test_from_columns_limits() -> None:
    with pytest.raises(ValueError, match="73 columns"):
        CardImage.from_columns([0] * 73)
    with pytest.raises(ValueError, match="column 2"):
        CardImage.from_columns([0, 0o10000])
    with pytest.raises(ValueError, match="column 0"):
        cards.column_position(0)
    with pytest.raises(ValueError, match="no card row 10"):
        cards.word_index(10, 1)


def test_text_deck_round_trip() -> None:
    text = "HELLO\n\n11-15\n"
    deck = cards.text_to_deck(text)
    assert len(deck) == 3
    assert cards.deck_to_text(deck) == text
    assert cards.text_to_deck(["A", "B"]) == [cards.text_to_card("A"), cards.text_to_card("B")]


# ---------------------------------------------------------------------------------------------
# CBN


def _random_deck(n: int, seed: int = 704) -> list[CardImage]:
    rng = random.Random(seed)
    deck = [cards.text_to_card(HELLO), CardImage.blank()]
    deck += [cards.words_to_card([rng.getrandbits(36) for _ in range(24)]) for _ in range(n)]
    return deck


def test_cbn_round_trip() -> None:
    deck = _random_deck(20)
    data = cards.write_cbn(deck)
    assert len(data) == 160 * len(deck)
    assert cards.read_cbn(data) == deck


def test_cbn_byte_layout() -> None:
    data = cards.card_to_cbn(cards.text_to_card("A0/"))
    # 'A' = 12-1: byte 1 rows 12,11,0,1,2,3 -> 100100 (even) + parity + record mark
    assert data[0] == 0x80 | 0x40 | 0o44
    assert data[1] == 0x40  # rows 4-9 empty: parity bit alone
    # '0' = row 0 -> byte 1 bit 3 (odd count: no parity bit)
    assert data[2] == 0o10
    assert data[3] == 0x40
    # '/' = 0-1 -> bits 3, 2
    assert data[4] == 0x40 | 0o14
    # a blank column, and columns 73-80, are 0x40 0x40
    assert data[6:] == bytes([0x40]) * (160 - 6)
    nine = cards.card_to_cbn(cards.text_to_card("9"))
    assert nine[0] == 0x80 | 0x40 and nine[1] == 0o01


def test_cbn_every_byte_has_odd_parity_and_one_record_mark_per_card() -> None:
    data = cards.write_cbn(_random_deck(5))
    for offset, byte in enumerate(data):
        assert bin(byte & 0x7F).count("1") % 2 == 1
        assert bool(byte & 0x80) == (offset % 160 == 0)


def test_cbn_columns_73_to_80_are_ignored_on_reading() -> None:
    card = cards.text_to_card(HELLO)
    data = bytearray(cards.card_to_cbn(card))
    data[146] = 0x40 | 0o77  # column 74, byte 1: all six rows punched (even count, so parity set)
    assert cards.read_cbn(bytes(data)) == [card]


def test_cbn_empty_file_is_an_empty_deck() -> None:
    assert cards.read_cbn(b"") == []


def test_cbn_truncated_file_names_card_and_offset() -> None:
    data = cards.write_cbn(_random_deck(1))  # 3 cards
    with pytest.raises(CardFormatError, match=r"card 3 \(byte offset 320\).*90 of the card's 160") as info:
        cards.read_cbn(data[:410])
    assert (info.value.card, info.value.offset) == (3, 320)


def test_cbn_missing_record_mark() -> None:
    data = bytearray(cards.write_cbn(_random_deck(1)))
    data[160] &= 0x7F
    with pytest.raises(CardFormatError, match=r"card 2 \(byte offset 160\).*lacks the record mark") as info:
        cards.read_cbn(bytes(data))
    assert (info.value.card, info.value.offset) == (2, 160)


def test_cbn_record_mark_inside_a_card() -> None:
    # A short first card: its 100 bytes are followed by a full card -> mark at offset 100.
    deck = _random_deck(0)
    data = cards.card_to_cbn(deck[0])[:100] + cards.card_to_cbn(deck[1])
    with pytest.raises(CardFormatError, match=r"card 1 \(byte offset 100\).*record mark.*column 51"):
        cards.read_cbn(data)


def test_cbn_bad_parity_names_card_column_and_offset() -> None:
    data = bytearray(cards.write_cbn(_random_deck(1)))
    data[160 + 2 * 9 + 1] ^= 0x40  # card 2, column 10, second byte
    with pytest.raises(CardFormatError, match=r"card 2 \(byte offset 179\): bad parity in column 10") as info:
        cards.read_cbn(bytes(data))
    assert info.value.offset == 179
    assert len(cards.read_cbn(bytes(data), check_parity=False)) == 3


def test_cbn_files(tmp_path: Path) -> None:
    deck = _random_deck(3)
    path = tmp_path / "deck.cbn"
    cards.save_cbn(path, deck)
    assert path.stat().st_size == 160 * len(deck)
    assert cards.load_cbn(path) == deck
