"""The 704's 6-bit BCD character code, its Hollerith card punches, and ASCII.

Memory BCD on the 704 is the *card* code (shared/reference/ibm704.md section 3.5):
the zone punch goes into the top two bits (12 -> 01, 11 -> 10, 0 -> 11) and the
digit punch into the low four; blank is 060 and zero is 000.  (Tape BCD swaps
the zones and writes zero as 012; it is not used here.)

The ASCII spelling of each code is Sim704's, the one column of the reference
table in which all 64 glyphs are distinct: ``0-9 A-Z``, blank, and
``_ = ' : > { + ? . ) [ < } - ! $ * ] ; ^ / | , ( ~ \\ "`` for the specials.

A column's punches are held as a 12-bit *punch pattern*, one bit per row, in
the order the card is drawn from the top::

    bit    11  10   9   8   7   6   5   4   3   2   1   0
    row    12  11   0   1   2   3   4   5   6   7   8   9

so bit k of a pattern is also the k-th row the 711 reads (row 9 first), the
high six bits are the first byte of a CBN column and the low six the second.

Six characters go in a 36-bit word, the first in the high six bits (bits S-5,
so the sign bit is the high bit of the first character).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TypeAlias

BcdCode: TypeAlias = int
"""A 6-bit 704 memory BCD code, 0o00-0o77."""

Punches: TypeAlias = int
"""A 12-bit column punch pattern (bit 11 = row 12 ... bit 0 = row 9)."""

BCD_BLANK: BcdCode = 0o60
BCD_ZERO: BcdCode = 0o00
CHARS_PER_WORD = 6
WORD_MASK = 0o777777777777

ROWS: tuple[int, ...] = (12, 11, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9)
"""Card rows from the top of the card down; row ``ROWS[i]`` is pattern bit ``11 - i``."""


def row_bit(row: int) -> Punches:
    """The punch-pattern bit of ``row`` (12, 11 or 0-9)."""
    if row == 12:
        return 1 << 11
    if row == 11:
        return 1 << 10
    if 0 <= row <= 9:
        return 1 << (9 - row)
    raise ValueError(f"no card row {row!r} (rows are 12, 11 and 0-9)")


def rows_to_punches(rows: Iterable[int]) -> Punches:
    """The punch pattern with a hole in each of ``rows``: ``rows_to_punches((12, 1))`` is 'A'."""
    pattern = 0
    for row in rows:
        pattern |= row_bit(row)
    return pattern


def punch_rows(pattern: Punches) -> tuple[int, ...]:
    """The rows punched in ``pattern``, top of the card first (e.g. ``(12, 1)``)."""
    if not 0 <= pattern <= 0o7777:
        raise ValueError(f"punch pattern {pattern!r} is not a 12-bit value")
    return tuple(row for i, row in enumerate(ROWS) if pattern >> (11 - i) & 1)


def format_punches(pattern: Punches) -> str:
    """IBM's spelling of a punch combination: ``'12-8-2'``, ``'0'``, or ``'blank'``.

    Zones first (12, 11, 0), then the digits, with 8 before the digit in the 8-2 ... 8-7
    combinations of the character set.
    """
    rows = punch_rows(pattern)
    if not rows:
        return "blank"
    zones = [r for r in rows if r in (12, 11, 0)]
    digits = [r for r in rows if r not in (12, 11, 0)]
    if 8 in digits and len(digits) > 1 and all(2 <= d <= 7 for d in digits if d != 8):
        digits.remove(8)
        digits.insert(0, 8)
    return "-".join(str(r) for r in zones + digits)


# (code, punches, ASCII) for every code, from the table in section 3.5.
_TABLE: tuple[tuple[BcdCode, tuple[int, ...], str], ...] = (
    (0o00, (0,), "0"),
    (0o01, (1,), "1"),
    (0o02, (2,), "2"),
    (0o03, (3,), "3"),
    (0o04, (4,), "4"),
    (0o05, (5,), "5"),
    (0o06, (6,), "6"),
    (0o07, (7,), "7"),
    (0o10, (8,), "8"),
    (0o11, (9,), "9"),
    (0o12, (8, 2), "_"),
    (0o13, (8, 3), "="),  # '#' on business boards
    (0o14, (8, 4), "'"),  # '@' on business boards
    (0o15, (8, 5), ":"),
    (0o16, (8, 6), ">"),
    (0o17, (8, 7), "{"),
    (0o20, (12,), "+"),  # '&' on business boards
    (0o21, (12, 1), "A"),
    (0o22, (12, 2), "B"),
    (0o23, (12, 3), "C"),
    (0o24, (12, 4), "D"),
    (0o25, (12, 5), "E"),
    (0o26, (12, 6), "F"),
    (0o27, (12, 7), "G"),
    (0o30, (12, 8), "H"),
    (0o31, (12, 9), "I"),
    (0o32, (12, 8, 2), "?"),  # plus zero; also punched 12-0
    (0o33, (12, 8, 3), "."),
    (0o34, (12, 8, 4), ")"),
    (0o35, (12, 8, 5), "["),
    (0o36, (12, 8, 6), "<"),
    (0o37, (12, 8, 7), "}"),
    (0o40, (11,), "-"),
    (0o41, (11, 1), "J"),
    (0o42, (11, 2), "K"),
    (0o43, (11, 3), "L"),
    (0o44, (11, 4), "M"),
    (0o45, (11, 5), "N"),
    (0o46, (11, 6), "O"),
    (0o47, (11, 7), "P"),
    (0o50, (11, 8), "Q"),
    (0o51, (11, 9), "R"),
    (0o52, (11, 8, 2), "!"),  # minus zero; also punched 11-0
    (0o53, (11, 8, 3), "$"),
    (0o54, (11, 8, 4), "*"),
    (0o55, (11, 8, 5), "]"),
    (0o56, (11, 8, 6), ";"),
    (0o57, (11, 8, 7), "^"),
    (0o60, (), " "),
    (0o61, (0, 1), "/"),
    (0o62, (0, 2), "S"),
    (0o63, (0, 3), "T"),
    (0o64, (0, 4), "U"),
    (0o65, (0, 5), "V"),
    (0o66, (0, 6), "W"),
    (0o67, (0, 7), "X"),
    (0o70, (0, 8), "Y"),
    (0o71, (0, 9), "Z"),
    (0o72, (0, 8, 2), "|"),  # record mark
    (0o73, (0, 8, 3), ","),
    (0o74, (0, 8, 4), "("),  # '%' on business boards
    (0o75, (0, 8, 5), "~"),
    (0o76, (0, 8, 6), "\\"),
    (0o77, (0, 8, 7), '"'),  # group mark
)

BCD_TO_CHAR: str = "".join(ch for _, _, ch in sorted(_TABLE))
"""``BCD_TO_CHAR[code]`` is the ASCII glyph of BCD ``code`` (64 distinct characters)."""

BCD_TO_PUNCHES: tuple[Punches, ...] = tuple(rows_to_punches(rows) for _, rows, _ in sorted(_TABLE))
"""``BCD_TO_PUNCHES[code]`` is the Hollerith punch pattern of BCD ``code``."""

CHAR_TO_BCD: dict[str, BcdCode] = {ch: code for code, ch in enumerate(BCD_TO_CHAR)}

PUNCHES_TO_BCD: dict[Punches, BcdCode] = {p: code for code, p in enumerate(BCD_TO_PUNCHES)}
# Alternative punchings read as the same code (never produced when punching).
PUNCHES_TO_BCD[rows_to_punches((12, 0))] = 0o32
PUNCHES_TO_BCD[rows_to_punches((11, 0))] = 0o52


class UnknownCharacterError(ValueError):
    """A character with no 704 BCD code."""

    def __init__(self, char: str, position: int | None = None, *, unit: str = "position") -> None:
        self.char = char
        self.position = position
        """0-based index in the text (reported 1-based, as a card column)."""
        where = "" if position is None else f" at {unit} {position + 1}"
        super().__init__(
            f"character {char!r} (U+{ord(char):04X}){where} has no IBM 704 BCD code; "
            f"the 704 character set is {BCD_TO_CHAR!r}"
        )


class InvalidPunchError(ValueError):
    """A column punch combination that is no 704 character."""

    def __init__(self, pattern: Punches, column: int | None = None) -> None:
        self.pattern = pattern
        self.column = column
        where = "" if column is None else f" in column {column}"
        super().__init__(
            f"punch combination {format_punches(pattern)} (pattern {pattern:04o}){where} "
            "is not a 704 BCD character"
        )


def char_to_bcd(char: str, *, substitute_blank: bool = False) -> BcdCode:
    """The BCD code of one ASCII character; unknown ones raise, or become blank on request."""
    code = CHAR_TO_BCD.get(char)
    if code is None:
        if len(char) != 1:
            raise ValueError(f"expected one character, got {char!r}")
        if substitute_blank:
            return BCD_BLANK
        raise UnknownCharacterError(char)
    return code


def bcd_to_char(code: BcdCode) -> str:
    """The ASCII glyph of a 6-bit BCD code."""
    if not 0 <= code <= 0o77:
        raise ValueError(f"BCD code {code!r} is not a 6-bit value")
    return BCD_TO_CHAR[code]


def bcd_to_punches(code: BcdCode) -> Punches:
    """The Hollerith punch pattern of a BCD code."""
    if not 0 <= code <= 0o77:
        raise ValueError(f"BCD code {code!r} is not a 6-bit value")
    return BCD_TO_PUNCHES[code]


def punches_to_bcd(pattern: Punches, *, column: int | None = None) -> BcdCode:
    """The BCD code of a column's punch pattern; raises InvalidPunchError for other patterns."""
    code = PUNCHES_TO_BCD.get(pattern)
    if code is None:
        if not 0 <= pattern <= 0o7777:
            raise ValueError(f"punch pattern {pattern!r} is not a 12-bit value")
        raise InvalidPunchError(pattern, column)
    return code


def char_to_punches(char: str, *, substitute_blank: bool = False) -> Punches:
    """The Hollerith punch pattern of one ASCII character."""
    return BCD_TO_PUNCHES[char_to_bcd(char, substitute_blank=substitute_blank)]


def punches_to_char(pattern: Punches, *, column: int | None = None) -> str:
    """The ASCII glyph of a column's punch pattern; raises InvalidPunchError for other patterns."""
    return BCD_TO_CHAR[punches_to_bcd(pattern, column=column)]


def encode(text: str, *, substitute_blank: bool = False) -> list[BcdCode]:
    """BCD codes of an ASCII string; an unknown character raises (naming it and its position)."""
    codes: list[BcdCode] = []
    for i, char in enumerate(text):
        code = CHAR_TO_BCD.get(char)
        if code is None:
            if not substitute_blank:
                raise UnknownCharacterError(char, i)
            code = BCD_BLANK
        codes.append(code)
    return codes


def decode(codes: Iterable[BcdCode]) -> str:
    """ASCII text of a sequence of BCD codes."""
    return "".join(bcd_to_char(code) for code in codes)


def pack_word(text: str, *, substitute_blank: bool = False) -> int:
    """Up to six characters as one 36-bit word, first character in bits S-5, padded with blanks."""
    if len(text) > CHARS_PER_WORD:
        raise ValueError(f"{text!r} has {len(text)} characters; a word holds {CHARS_PER_WORD}")
    codes = encode(text, substitute_blank=substitute_blank)
    codes += [BCD_BLANK] * (CHARS_PER_WORD - len(codes))
    word = 0
    for code in codes:
        word = word << 6 | code
    return word


def unpack_word(word: int) -> str:
    """The six characters of a 36-bit word, first from the high bits."""
    if not 0 <= word <= WORD_MASK:
        raise ValueError(f"word {word!r} is not a 36-bit value")
    return "".join(BCD_TO_CHAR[word >> shift & 0o77] for shift in range(30, -1, -6))


def pack_text(text: str, *, substitute_blank: bool = False) -> list[int]:
    """A string as words of six characters, the last padded with blanks (SAP's BCD pseudo-op)."""
    encode(text, substitute_blank=substitute_blank)  # report a bad character with its position
    return [
        pack_word(text[i : i + CHARS_PER_WORD], substitute_blank=substitute_blank)
        for i in range(0, len(text), CHARS_PER_WORD)
    ]


def unpack_text(words: Sequence[int]) -> str:
    """The characters of a run of words (six per word; trailing blanks kept)."""
    return "".join(unpack_word(word) for word in words)
