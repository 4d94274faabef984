"""Card images as the 704 sees them, text cards, binary cards and CBN deck files.

Row binary (shared/reference/ibm704.md section 3.3).  The 711 reader reads a card
row by row, bottom row first, and only columns 1-72 reach the computer.  Each
row is two 36-bit words, left = columns 1-36, right = columns 37-72, with the
lower-numbered column in the higher bit (column 1 or 37 in bit S)::

    word   0,1   2,3   4,5   6,7   8,9  10,11 12,13 14,15 16,17 18,19 20,21 22,23
    row     9     8     7     6     5     4     3     2     1     0    11    12
    slot    0     1     2     3     4     5     6     7     8     9    10    11

    column c (1-72) of row slot k:  word 2*k + (c > 36),  mask 1 << (35 - (c - 1) % 36)

The row slot is also the bit of that row in a column punch pattern (see
emu704.bcd), so ``card.column(c) >> k & 1`` is the bit above.  Printer lines
and punched cards use the same 24-word layout.

CBN (column binary) deck files: 160 bytes per card, two per column for columns
1-80.  The first byte of a column holds rows 12,11,0,1,2,3 in bits 5..0, the
second rows 4..9 in bits 5..0; bit 6 of every byte makes bits 0-6 odd parity;
bit 7 is set on the first byte of each card and on no other byte.  Columns
73-80 are written blank and ignored on reading, as on the 704.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from emu704 import bcd
from emu704.bcd import Punches

WORDS_PER_CARD = 24
COLUMNS = 72
"""Columns the 704 sees (1-72)."""
CARD_COLUMNS = 80
"""Columns on a card; 73-80 (identification) never reach the 704."""
CBN_CARD_BYTES = 2 * CARD_COLUMNS
WORD_MASK = 0o777777777777

ROW_SLOT: dict[int, int] = {row: slot for slot, row in enumerate((9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 11, 12))}
"""Row label (12, 11, 0-9) -> row slot; slot k is words 2k and 2k+1 of the image."""

INVALID_PUNCH_CHAR = "#"
"""Stands for a column whose punches are no 704 character (``strict=False`` decoding).
'#' is none of the 64 glyphs in emu704.bcd."""


def column_position(column: int) -> tuple[int, int]:
    """(word offset 0 = left / 1 = right, bit mask) of card column 1-72 within a row's word pair."""
    if not 1 <= column <= COLUMNS:
        raise ValueError(f"column {column!r} is outside 1-{COLUMNS}")
    return int(column > 36), 1 << (35 - (column - 1) % 36)


def word_index(row: int, column: int) -> int:
    """Index (0-23) of the image word that holds ``row`` (12, 11, 0-9) of ``column`` (1-72)."""
    if row not in ROW_SLOT:
        raise ValueError(f"no card row {row!r} (rows are 12, 11 and 0-9)")
    return 2 * ROW_SLOT[row] + column_position(column)[0]


class CardFormatError(ValueError):
    """A malformed deck file; names the card (1-based) and the byte offset in the file."""

    def __init__(self, message: str, *, card: int, offset: int) -> None:
        self.card = card
        self.offset = offset
        super().__init__(f"card {card} (byte offset {offset}): {message}")


@dataclass(frozen=True, repr=False)
class CardImage:
    """One card (or printer line) as the 24 row-binary words the 704 copies, row 9 left first."""

    words: tuple[int, ...]
    """Row 9 L, row 9 R, row 8 L, ... row 12 R; 36-bit storage words (sign = bit 35)."""

    def __post_init__(self) -> None:
        words = tuple(self.words)
        object.__setattr__(self, "words", words)
        if len(words) != WORDS_PER_CARD:
            raise ValueError(f"a card image is {WORDS_PER_CARD} words, got {len(words)}")
        for i, word in enumerate(words):
            if not isinstance(word, int) or not 0 <= word <= WORD_MASK:
                raise ValueError(f"card word {i} = {word!r} is not a 36-bit value")

    @classmethod
    def blank(cls) -> CardImage:
        """A card with no holes."""
        return cls((0,) * WORDS_PER_CARD)

    @classmethod
    def from_columns(cls, patterns: Sequence[Punches]) -> CardImage:
        """The image of a card whose columns 1.. have the given punch patterns (at most 72)."""
        if len(patterns) > COLUMNS:
            raise ValueError(f"{len(patterns)} columns given; the 704 sees only {COLUMNS}")
        words = [0] * WORDS_PER_CARD
        for column, pattern in enumerate(patterns, start=1):
            if not 0 <= pattern <= 0o7777:
                raise ValueError(f"column {column}: punch pattern {pattern!r} is not a 12-bit value")
            half, mask = column_position(column)
            slot = 0
            while pattern:
                if pattern & 1:
                    words[2 * slot + half] |= mask
                pattern >>= 1
                slot += 1
        return cls(tuple(words))

    def column(self, column: int) -> Punches:
        """The punch pattern of ``column`` (1-72): bit k set when row slot k is punched."""
        half, mask = column_position(column)
        pattern = 0
        for slot in range(12):
            if self.words[2 * slot + half] & mask:
                pattern |= 1 << slot
        return pattern

    def columns(self) -> list[Punches]:
        """The 72 column punch patterns."""
        return [self.column(c) for c in range(1, COLUMNS + 1)]

    def is_punched(self, row: int, column: int) -> bool:
        """Whether ``row`` (12, 11, 0-9) of ``column`` (1-72) has a hole."""
        return bool(self.words[word_index(row, column)] & column_position(column)[1])

    def text(self, *, strict: bool = True, placeholder: str = INVALID_PUNCH_CHAR) -> str:
        """The 72 columns as characters; see card_to_text."""
        return card_to_text(self, strict=strict, placeholder=placeholder)

    def __len__(self) -> int:
        return WORDS_PER_CARD

    def __iter__(self) -> Iterator[int]:
        return iter(self.words)

    def __getitem__(self, index: int) -> int:
        return self.words[index]

    def __repr__(self) -> str:
        return "CardImage((" + ", ".join(f"0o{w:012o}" for w in self.words) + "))"


def text_to_card(line: str, *, truncate: bool = False, substitute_blank: bool = False) -> CardImage:
    """Punch one line of text as a card.

    The line is card columns 1-80; one trailing newline is dropped.  Columns
    73-80 are accepted but, as on the 704, never reach the image (they are not
    even checked).  A line longer than 80 columns raises ValueError unless
    ``truncate``.  A character with no BCD code raises UnknownCharacterError
    naming it and its column, or is punched as blank with ``substitute_blank``.
    """
    if line.endswith("\r\n"):
        line = line[:-2]
    elif line.endswith("\n"):
        line = line[:-1]
    if len(line) > CARD_COLUMNS and not truncate:
        raise ValueError(
            f"line has {len(line)} columns, a card has {CARD_COLUMNS} "
            f"(pass truncate=True to cut it): {line!r}"
        )
    try:
        codes = bcd.encode(line[:COLUMNS], substitute_blank=substitute_blank)
    except bcd.UnknownCharacterError as error:
        raise bcd.UnknownCharacterError(error.char, error.position, unit="column") from None
    return CardImage.from_columns([bcd.BCD_TO_PUNCHES[code] for code in codes])


def card_to_text(
    card: CardImage | Sequence[int], *, strict: bool = True, placeholder: str = INVALID_PUNCH_CHAR
) -> str:
    """The 72 characters punched on a card (trailing blanks kept).

    A column whose punches are no 704 character raises InvalidPunchError
    (naming the column and its rows), or reads as ``placeholder`` when
    ``strict`` is False.  Accepts a CardImage or its 24 words.
    """
    image = card if isinstance(card, CardImage) else CardImage(tuple(card))
    chars = []
    for column, pattern in enumerate(image.columns(), start=1):
        code = bcd.PUNCHES_TO_BCD.get(pattern)
        if code is None:
            if strict:
                raise bcd.InvalidPunchError(pattern, column)
            chars.append(placeholder)
        else:
            chars.append(bcd.BCD_TO_CHAR[code])
    return "".join(chars)


def words_to_card(words: Sequence[int]) -> CardImage:
    """A binary card holding up to 24 raw words in reading order; missing words are 0 (no holes)."""
    if len(words) > WORDS_PER_CARD:
        raise ValueError(f"{len(words)} words given; a card holds {WORDS_PER_CARD}")
    return CardImage(tuple(words) + (0,) * (WORDS_PER_CARD - len(words)))


def text_to_deck(text: str | Iterable[str], **options: bool) -> list[CardImage]:
    """One card per line (a string is split into lines); options as for text_to_card."""
    lines = text.splitlines() if isinstance(text, str) else text
    return [text_to_card(line, **options) for line in lines]


def deck_to_text(cards: Iterable[CardImage], *, strict: bool = True) -> str:
    """One line per card, trailing blanks stripped, each line ending in a newline."""
    return "".join(card_to_text(card, strict=strict).rstrip(" ") + "\n" for card in cards)


# ----------------------------------------------------------------------------------------------
# CBN

def _with_parity(data: int) -> int:
    """A 6-bit value with bit 6 set when needed to make bits 0-6 odd parity."""
    return data | (0 if bin(data).count("1") % 2 else 0x40)


def card_to_cbn(card: CardImage) -> bytes:
    """The 160 CBN bytes of one card (columns 73-80 blank)."""
    out = bytearray()
    patterns = card.columns() + [0] * (CARD_COLUMNS - COLUMNS)
    for pattern in patterns:
        out.append(_with_parity(pattern >> 6))
        out.append(_with_parity(pattern & 0o77))
    out[0] |= 0x80
    return bytes(out)


def write_cbn(cards: Iterable[CardImage]) -> bytes:
    """A deck as CBN bytes."""
    return b"".join(card_to_cbn(card) for card in cards)


def read_cbn(data: bytes, *, check_parity: bool = True) -> list[CardImage]:
    """Parse a CBN deck.

    Raises CardFormatError (naming the 1-based card number and the byte offset
    in ``data``) when the length is not a whole number of 160-byte cards, a
    card's first byte lacks the record mark (bit 7), another byte has it, or a
    byte's parity is even.  Columns 73-80 are checked the same way but not kept.
    """
    cards: list[CardImage] = []
    for start in range(0, len(data), CBN_CARD_BYTES):
        number = start // CBN_CARD_BYTES + 1
        chunk = data[start : start + CBN_CARD_BYTES]
        if len(chunk) < CBN_CARD_BYTES:
            raise CardFormatError(
                f"file ends after {len(chunk)} of the card's {CBN_CARD_BYTES} bytes "
                f"(file length {len(data)} is not a multiple of {CBN_CARD_BYTES})",
                card=number,
                offset=start,
            )
        patterns: list[Punches] = []
        for i in range(0, CBN_CARD_BYTES, 2):
            pair = chunk[i], chunk[i + 1]
            for j, byte in enumerate(pair):
                offset = start + i + j
                first = i + j == 0
                if first and not byte & 0x80:
                    raise CardFormatError(
                        f"first byte 0x{byte:02X} lacks the record mark (bit 7) that starts a card",
                        card=number,
                        offset=offset,
                    )
                if not first and byte & 0x80:
                    raise CardFormatError(
                        f"record mark (bit 7) inside the card, column {i // 2 + 1} (byte 0x{byte:02X}): "
                        "the previous card is short or the file is not CBN",
                        card=number,
                        offset=offset,
                    )
                if check_parity and bin(byte & 0x7F).count("1") % 2 == 0:
                    raise CardFormatError(
                        f"bad parity in column {i // 2 + 1}, byte 0x{byte:02X} "
                        "(bits 0-6 must have odd parity)",
                        card=number,
                        offset=offset,
                    )
            patterns.append((pair[0] & 0o77) << 6 | (pair[1] & 0o77))
        cards.append(CardImage.from_columns(patterns[:COLUMNS]))
    return cards


def load_cbn(path: str | os.PathLike[str], **options: bool) -> list[CardImage]:
    """Read a CBN deck file."""
    with open(path, "rb") as f:
        return read_cbn(f.read(), **options)


def save_cbn(path: str | os.PathLike[str], cards: Iterable[CardImage]) -> None:
    """Write a deck as a CBN file."""
    with open(path, "wb") as f:
        f.write(write_cbn(cards))
