"""SAP, the SHARE Assembly Program for the IBM 704, in the UA SAP 3 dialect.

Spec: shared/reference/ibm704.md sections 2.2 (operation table) and 4 (SAP).  Every machine
mnemonic, its kind and its operand shape come from :mod:`emu704.isa`; this module knows only
the pseudo-operations.

Source format
-------------
A *card* is one line.  Two layouts are accepted:

* **Fixed (card) format**, exactly as UA SAP punches it::

      cols 1-6   location symbol (blanks inside are squeezed out)
      col  7     blank
      cols 8-10  operation
      col  11    blank
      cols 12-72 variable field, ended by the first blank; the rest is a comment
      cols 73-80 identification (ignored)

  A variable field that fills column 72 and goes on is cut there, as UA SAP cut it: a warning
  in the listing (``Image.warnings``) names the characters not read.  A line with text past
  column 80 is an error in either layout: a card has 80 columns.

  A line is read in fixed format when it has no tab, column 7 is blank, columns 8-10 hold
  three non-blank characters and column 11 is blank (or the line ends there).

* **Free format** (an extension, for hand-typed programs): any other line.  Fields are
  separated by blanks or tabs: a location symbol if the line starts in column 1, then the
  operation, then the variable field (one blank-free word); the rest is a comment.  For the
  operations that take no variable field (CHS, RCD, FUL, REM ...) everything after the
  operation is a comment.  A BCD variable field starts at the first non-blank after the
  operation; its count must be a digit 1-9 (the blank count meaning 10 needs fixed format).

Both layouts: an empty line, or one with ``*`` in column 1, is a comment card (``*`` is the
later FAP convention, accepted as an extension), and so is a ``REM`` card.  Lower case is read
as upper case.  Nothing after ``END`` is read.

Variable field
--------------
``address,tag,decrement``; omitted subfields are 0.  Each subfield is an expression of terms
(symbols, decimal integers, ``*`` = location of this card, ``**`` = 0 "filled in at run
time") joined by ``+ - * /`` (``*`` and ``/`` first, left to right, ``/`` truncating toward
zero; unary ``+``/``-``; no parentheses).  Values go into 15-bit fields modulo 2**15 when
negative (``-1`` -> 77777); a positive value must fit, and an operand used as a memory address
must lie inside the chosen memory size.

Numbers are decimal everywhere except in OCT, also device addresses: ``RDS 209`` is RDS 0321
(``RDS 321`` would select 0501), so use the SAP names RCD, WPR, WPU, RTB i ...  BST, WEF and
REW take the tape's address as written too: ``REW 145`` rewinds tape 1 (0221).  UA SAP added
their variable field to 0220 (``REW 1``); a BST/WEF/REW that names no tape unit is a warning
that says so.

Which subfields an operation takes is ``isa.OpDef.operands``: ``Y,T`` (the address must lie in
memory), ``Y,T,D`` (type A: a memory address; PZE..MTH: any 15-bit values), ``n,T`` (ALS ARS
LLS LRS LGL RQL: a shift count 0-255; the 704 uses only the address's low 8 bits, so UA SAP's
silent ``ALS 300`` = ALS 44 and ``ARS -1`` = ARS 255 are errors here), ``0,T`` (PAX/PDX/PXD:
any 15-bit value), ``i`` (SLN 2, RTB 3: one operand inside ``operand_range``), and none for
the fixed +-0760 sub-ops and I/O names (CHS, RCD: a variable field is an error).  HPR and NOP
keep an address if one is given (a halt code).  A decrement on a type B instruction is an
error.

Pseudo-operations: ORG BSS BES DEC OCT BCD EQU SYN END REM FUL ABS (see the reference, 4.3).
BES defines its symbol as the word *after* the block (UA SAP).  EQU/SYN may refer forward;
ORG/BSS/BES only to symbols already defined.  Two cards assembling the same location is an
error.  END's start address must hold an instruction: a DEC/OCT/BCD word, a BSS/BES block or a
location nothing assembles is an error (UA SAP punched it anyway).  The other UA SAP
pseudo-operations (REL HED DEF LIB ...) are recognised and rejected.

Errors
------
Every error and warning names its line and carries the card's text.  A card that fails
leaves its location symbol undefined, and the cards using that symbol fail quietly rather
than each reporting it undefined; an unknown operation still counts one word and defines its
symbol, so the cards after it keep their locations.

Public API
----------
``assemble(text, memory_size=4096, *, name="<source>") -> Image`` (raises :class:`SapError`
listing every problem), ``assemble_file(path, ...)``, :class:`Image` (blocks, start, symbols,
listing lines, warnings; ``deck()``, ``cbn()``, ``save_cbn(path)``, ``listing()``,
``load_into(memory)``), :func:`format_warnings`, and the command line
``python -m emu704.sap prog.sap --cbn prog.cbn --listing prog.lst`` (warnings go to stderr).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from emu704 import bcd, cards, isa, listing, loader
from emu704.cards import CardImage
from emu704.isa import OpDef

MEMORY_SIZES = (4096, 8192, 32768)
FIELD_BITS = 15
FIELD_LIMIT = 1 << FIELD_BITS  # 15-bit address / decrement fields
WORD_MASK = 0o777777777777
SIGN = 0o400000000000
MAG_LIMIT = 1 << 35

CARD_COLUMNS = 72
"""Columns of a fixed-format card that SAP reads (73-80 are identification)."""
CARD_LENGTH = 80
"""Columns on a card: a longer line cannot be one."""
_VARIABLE_START = 11
"""0-based column where the fixed-format variable field starts (card column 12)."""
SYMBOL_LENGTH = 6
SYMBOL_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.$")
"""Characters allowed in a symbol (at least one must not be a digit)."""

PSEUDO_OPS = frozenset({"ORG", "BSS", "BES", "DEC", "OCT", "BCD", "EQU", "SYN", "END", "REM", "FUL", "ABS"})
UNSUPPORTED_PSEUDO_OPS = frozenset(
    {"AST", "BOS", "C/T", "DEF", "FIN", "FST", "HED", "LIB", "LOC", "OPD", "PLB", "PLR", "PST",
     "REL", "REP", "RST", "SKP", "SPC", "TBL", "TCD", "WST"}
)
"""UA SAP pseudo-operations this assembler does not implement.  (UA SAP's SWT pseudo-op is not
listed: SWT is the sense-switch test of the operation table.)"""
_NO_FIELD_PSEUDO_OPS = frozenset({"REM", "FUL", "ABS"})
_TAPE_POSITIONING = frozenset({"BST", "WEF", "REW"})
_TAPE_ADDRESSES = frozenset([*range(0o201, 0o213), *range(0o221, 0o233)])
"""The 727 tape units' select addresses, BCD and binary (units 1-10)."""

Block = tuple[int, list[int]]
"""(origin, words) -- a run of consecutive assembled words."""


# ------------------------------------------------------------------------------------------
# Errors
# ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Problem:
    """One error or warning: the 1-based source line, what is wrong, and the offending card."""

    line: int
    message: str
    text: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}\n    {self.text.rstrip()}"


class SapError(ValueError):
    """Assembly failed; ``problems`` lists every error found, in line order."""

    def __init__(self, problems: Sequence[Problem], name: str = "<source>") -> None:
        self.problems = sorted(problems, key=lambda p: p.line)
        self.name = name
        count = len(self.problems)
        head = f"{name}: {count} error{'s' if count != 1 else ''}"
        super().__init__("\n".join([head, *(str(p) for p in self.problems)]))


class DeckError(ValueError):
    """An assembled program that cannot be made into a deck or run (no start, loader overlap)."""


class _CardError(Exception):
    """Internal: one problem with the card being assembled."""


class _FollowOn(_CardError):
    """Internal: the card uses the symbol of a card that already failed; that card's error says
    it all, so this one fails quietly instead of reporting the symbol as undefined."""


# ------------------------------------------------------------------------------------------
# Cards
# ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Card:
    """One source line split into SAP fields (all upper case)."""

    number: int
    text: str
    """The line as written (without the newline)."""
    label: str = ""
    op: str = ""
    """Operation; empty for a comment card."""
    variable: str = ""
    """Variable field, up to the first blank."""
    tail: str = ""
    """Everything from the start of the variable field (BCD reads its characters from here)."""
    fixed: bool = True
    """Read in fixed (card) format."""

    @property
    def is_comment(self) -> bool:
        return self.op == "" and self.label == ""


def _is_fixed(line: str) -> bool:
    if "\t" in line or len(line) < 10:
        return False
    return line[6] == " " and " " not in line[7:10] and (len(line) == 10 or line[10] == " ")


def takes_variable_field(op: str) -> bool:
    """Whether ``op`` reads a variable field (free format: otherwise the rest is a comment)."""
    if op in _NO_FIELD_PSEUDO_OPS:
        return False
    d = isa.OPCODES.get(op)
    return d is None or not (d.operands == "" and d.kind in ("B760", "ALIAS_IO"))


def read_card(text: str, number: int) -> Card:
    """Split one source line into its fields (see the module docstring for the rules)."""
    line = text.rstrip("\r\n")
    if not line.strip() or line.startswith("*"):
        return Card(number, line)
    if _is_fixed(line):
        card = line[:CARD_COLUMNS].upper()
        label = card[:6].replace(" ", "")
        op = card[7:10]
        tail = card[11:]
        variable = tail.split(" ", 1)[0]
        return Card(number, line, label, op, variable, tail, fixed=True)
    upper = line.upper()
    if upper[0].isspace():
        match = re.match(r"\s+(\S+)(?:\s+(\S.*))?$", upper)
        assert match is not None
        label, op, rest = "", match.group(1), match.group(2) or ""
    else:
        match = re.match(r"(\S+)(?:\s+(\S+))?(?:\s+(\S.*))?$", upper)
        assert match is not None
        label, op, rest = match.group(1), match.group(2) or "", match.group(3) or ""
    if not takes_variable_field(op):
        rest = ""
    variable = rest.split(None, 1)[0] if rest else ""
    return Card(number, line, label, op, variable, rest, fixed=False)


def read_cards(text: str) -> list[Card]:
    """All lines of a source text as cards (line numbers from 1)."""
    return [read_card(line, number) for number, line in enumerate(text.splitlines(), start=1)]


def check_symbol(name: str) -> None:
    """Raise _CardError unless ``name`` is a legal SAP symbol."""
    if not 1 <= len(name) <= SYMBOL_LENGTH:
        raise _CardError(f"symbol {name!r} must have 1-{SYMBOL_LENGTH} characters")
    bad = sorted(set(name) - SYMBOL_CHARS)
    if bad:
        raise _CardError(f"symbol {name!r} contains {''.join(bad)!r} (letters, digits, '.' and '$' only)")
    if name.isdigit():
        raise _CardError(f"symbol {name!r} needs at least one character that is not a digit")


# ------------------------------------------------------------------------------------------
# Expressions
# ------------------------------------------------------------------------------------------

class UndefinedSymbol(_CardError):
    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(f"undefined symbol {name!r}")


def _split_term(expr: str, i: int) -> tuple[str, int]:
    j = i
    while j < len(expr) and expr[j] in SYMBOL_CHARS:
        j += 1
    return expr[i:j], j


def evaluate(expr: str, location: int, lookup: Callable[[str], int]) -> int:
    """Value of a SAP expression (an empty expression is 0).

    ``location`` is the value of ``*``; ``lookup(name)`` returns a symbol's value or raises
    :class:`UndefinedSymbol`.  The result is an unbounded Python int; the caller fits it
    into its field.
    """
    if expr == "":
        return 0
    total = 0  # sum of the finished products
    product: int | None = None
    pending_mul = ""  # "*" or "/" waiting for its right operand
    add_sign = 1
    i = 0
    n = len(expr)
    while True:
        # A term, with optional unary signs.
        sign = 1
        while i < n and expr[i] in "+-":
            if expr[i] == "-":
                sign = -sign
            i += 1
        if i >= n:
            raise _CardError(f"expression {expr!r} ends where a term is expected")
        if expr.startswith("**", i):
            value = 0
            i += 2
        elif expr[i] == "*":
            value = location
            i += 1
        elif expr[i] in SYMBOL_CHARS:
            name, i = _split_term(expr, i)
            if name.isdigit():
                value = int(name)
            else:
                if len(name) > SYMBOL_LENGTH:
                    raise _CardError(f"symbol {name!r} is longer than {SYMBOL_LENGTH} characters")
                value = lookup(name)
        else:
            raise _CardError(f"unexpected {expr[i]!r} in expression {expr!r}")
        value *= sign
        if product is None:
            product = value
        elif pending_mul == "*":
            product *= value
        else:
            if value == 0:
                raise _CardError(f"division by zero in {expr!r}")
            quotient = abs(product) // abs(value)
            product = quotient if (product < 0) == (value < 0) else -quotient
        if i >= n:
            break
        op = expr[i]
        i += 1
        if op in "*/":
            pending_mul = op
            continue
        if op in "+-":
            total += add_sign * product
            product = None
            add_sign = 1 if op == "+" else -1
            continue
        raise _CardError(f"unexpected {op!r} in expression {expr!r}")
    assert product is not None
    return total + add_sign * product


def fit_field(value: int, what: str) -> int:
    """``value`` as a 15-bit field: negatives modulo 2**15, positives must fit."""
    if value >= FIELD_LIMIT or value <= -FIELD_LIMIT:
        raise _CardError(f"{what} {value} does not fit in 15 bits")
    return value % FIELD_LIMIT


# ------------------------------------------------------------------------------------------
# Data conversions (DEC, OCT, BCD)
# ------------------------------------------------------------------------------------------

_DEC_RE = re.compile(r"([+-]?)(\d*)(?:\.(\d*))?((?:[EB][+-]?\d+)*)$")
_SUFFIX_RE = re.compile(r"([EB])([+-]?\d+)")


def dec_word(item: str) -> int:
    """One DEC constant as a 36-bit word.

    ``5``, ``-7``: integers.  ``nBk``: fixed point with the binary point after bit k (value *
    2**(35-k), rounded to nearest).  A decimal point or an exponent ``Ee`` without ``B``: a
    normalized floating-point word (excess-128 characteristic, 27-bit fraction rounded to
    nearest from the exact decimal value).  A leading ``-`` sets the sign, also for zero.
    """
    m = _DEC_RE.match(item)
    if not m or not (m.group(2) or m.group(3)):
        raise _CardError(f"bad decimal constant {item!r}")
    negative = m.group(1) == "-"
    digits, fraction = m.group(2), m.group(3)
    suffixes: dict[str, int] = {}
    for letter, number in _SUFFIX_RE.findall(m.group(4)):
        if letter in suffixes:
            raise _CardError(f"bad decimal constant {item!r}: {letter} given twice")
        suffixes[letter] = int(number)
    value = Fraction(int(digits or "0"))
    if fraction:
        value += Fraction(int(fraction), 10 ** len(fraction))
    if "E" in suffixes:
        value *= Fraction(10) ** suffixes["E"]
    sign = SIGN if negative else 0
    if "B" in suffixes:
        scaled = value * Fraction(2) ** (35 - suffixes["B"])
        magnitude = int(scaled + Fraction(1, 2))
        if magnitude >= MAG_LIMIT:
            raise _CardError(f"decimal constant {item!r} does not fit in 35 bits")
        return sign | magnitude
    if fraction is not None or "E" in suffixes:
        return sign | _float_magnitude(value, item)
    if value >= MAG_LIMIT:
        raise _CardError(f"decimal constant {item!r} does not fit in 35 bits")
    return sign | int(value)


def _float_magnitude(value: Fraction, item: str) -> int:
    """Bits 1-35 of the normalized floating-point form of ``value`` (>= 0)."""
    if value == 0:
        return 0
    # 2**(e-1) <= value < 2**e
    e = value.numerator.bit_length() - value.denominator.bit_length()
    while Fraction(2) ** e <= value:
        e += 1
    while Fraction(2) ** (e - 1) > value:
        e -= 1
    fraction = int(value * Fraction(2) ** (27 - e) + Fraction(1, 2))
    if fraction >> 27:
        fraction >>= 1
        e += 1
    characteristic = e + 128
    if not 0 <= characteristic <= 0o377:
        raise _CardError(f"floating-point constant {item!r} is outside the 704's range")
    return characteristic << 27 | fraction


def oct_word(item: str) -> int:
    """One OCT constant: ``-1`` (sign + magnitude) or up to 12 digits as the whole word."""
    m = re.fullmatch(r"([+-]?)([0-7]+)", item)
    if not m:
        raise _CardError(f"bad octal constant {item!r}")
    value = int(m.group(2), 8)
    if m.group(1) == "-":
        if value >= MAG_LIMIT:
            raise _CardError(f"octal constant {item!r} does not fit in 35 bits")
        return SIGN | value
    if value > WORD_MASK:
        raise _CardError(f"octal constant {item!r} does not fit in 36 bits")
    return value


def _items(variable: str, pseudo: str) -> list[str]:
    if variable == "":
        raise _CardError(f"{pseudo} needs at least one constant")
    items = variable.split(",")
    if any(item == "" for item in items):
        raise _CardError(f"empty constant in {pseudo} field {variable!r}")
    return items


def bcd_field(card: Card) -> tuple[int, str]:
    """(word count, text) of a BCD card."""
    tail = card.tail
    count_char = tail[:1]
    if count_char in ("", " ") and card.fixed:
        count = 10
    elif count_char.isdigit() and count_char != "0":
        count = int(count_char)
    else:
        raise _CardError(f"bad BCD count {count_char!r} (a digit 1-9, or blank for 10)")
    text = tail[1 : 1 + 6 * count].ljust(6 * count)
    return count, text


# ------------------------------------------------------------------------------------------
# The image
# ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ListedLine:
    """One source line with what it assembled to (for the listing)."""

    number: int
    text: str
    location: int | None = None
    """Location of the first word, or the value shown for ORG/BSS/BES/EQU/SYN/END."""
    words: tuple[int, ...] = ()
    layout: str = ""
    """How to print the words: "A" (prefix, decrement, tag, address), "B" (op, tag,
    address) or "W" (sign and 12 octal digits); empty for lines without words."""


@dataclass
class Image:
    """An assembled program."""

    blocks: list[Block]
    """(origin, words) runs in address order."""
    start: int | None
    """Start address from END, or None."""
    symbols: dict[str, int]
    memory_size: int = 4096
    mode: str = "ABS"
    """Output mode from FUL / ABS (ABS unless FUL was given)."""
    lines: list[ListedLine] = field(default_factory=list)
    name: str = "<source>"
    end_line: int | None = None
    """The line of the END card (None: the source has none)."""
    warnings: list[Problem] = field(default_factory=list)
    """What UA SAP accepted but is probably a slip (printed in the listing), in line order."""

    def words(self) -> dict[int, int]:
        """Sparse memory image {address: word}."""
        return {origin + i: word for origin, words in self.blocks for i, word in enumerate(words)}

    def __getitem__(self, address: int) -> int:
        """The word assembled at ``address`` (0 where nothing was assembled)."""
        for origin, words in self.blocks:
            if origin <= address < origin + len(words):
                return words[address - origin]
        return 0

    def load_into(self, memory: list[int] | Callable[[int, int], object]) -> None:
        """Store every word into ``memory`` (a list indexed by address, or a ``write(address, word)``)."""
        for origin, words in self.blocks:
            for i, word in enumerate(words):
                if callable(memory):
                    memory(origin + i, word)
                else:
                    memory[origin + i] = word

    def deck(self) -> list[CardImage]:
        """A self-loading card deck (emu704.loader layout), for FUL and ABS mode alike.

        Raises DeckError when there is no start address or a block lies in the loader's
        locations.
        """
        return loader.build_self_loading_deck(self.blocks, self.require_start())

    def require_start(self) -> int:
        """The start address; DeckError saying what is missing when there is none."""
        if self.start is not None:
            return self.start
        if self.end_line is None:
            raise DeckError(f"{self.name}: no END card: end the program with END and its start "
                            "address (END START)")
        raise DeckError(f"{self.name}: line {self.end_line}: the END card has no start address "
                        "(write END START, START being the first instruction's symbol)")

    def cbn(self) -> bytes:
        """The self-loading deck as CBN bytes."""
        return cards.write_cbn(self.deck())

    def save_cbn(self, path: str | os.PathLike[str]) -> None:
        """Write the self-loading deck to a CBN file."""
        cards.save_cbn(path, self.deck())

    def listing(self) -> str:
        """The assembly listing (see emu704.listing)."""
        return listing.format_listing(self)


# ------------------------------------------------------------------------------------------
# The assembler
# ------------------------------------------------------------------------------------------

@dataclass
class _Statement:
    card: Card
    location: int
    size: int = 0
    value: int | None = None
    failed: bool = False


class _Assembler:
    def __init__(self, text: str, memory_size: int, name: str) -> None:
        self.memory_size = _memory_size(memory_size)
        self.name = name
        self.cards = read_cards(text)
        self.symbols: dict[str, int] = {}
        self.defined_on: dict[str, int] = {}
        self.problems: list[Problem] = []
        self.warnings: list[Problem] = []
        self.failed_labels: set[str] = set()
        """Location symbols of cards that failed (their uses are follow-on errors)."""
        self.contents: dict[int, tuple[bool, Card]] = {}
        """Pass 2: location -> (is a DEC/OCT/BCD data word, the card that assembled it)."""
        self.reserved: list[tuple[int, int, Card]] = []
        """Pass 2: (origin, size, card) of each BSS/BES block."""
        self.statements: list[_Statement] = []
        self.start: int | None = None
        self.mode = "ABS"

    # -- helpers ---------------------------------------------------------------------------

    def problem(self, card: Card, message: str) -> None:
        self.problems.append(Problem(card.number, message, card.text))

    def warning(self, card: Card, message: str) -> None:
        self.warnings.append(Problem(card.number, message, card.text))

    def check_columns(self, card: Card) -> None:
        """A line past column 80 is an error; a variable field cut at column 72 a warning."""
        text = card.text.rstrip()
        if len(text) > CARD_LENGTH:
            past = text[CARD_LENGTH:]
            column = len(text) - len(past.lstrip()) + 1
            self.problem(card, f"line runs to column {len(text)}: a card has {CARD_LENGTH} columns, so "
                               f"{past.lstrip()!r} (from column {column}) cannot be on it")
        # UA SAP read columns 1-72 only and took 73-80 as identification: a variable field that
        # fills column 72 and goes on was cut there without a word.  BCD's text is fixed-width.
        if (card.fixed and card.op not in ("BCD", "REM") and takes_variable_field(card.op)
                and len(card.variable) == CARD_COLUMNS - _VARIABLE_START
                and text[CARD_COLUMNS:CARD_COLUMNS + 1] not in ("", " ")):
            cut = text[CARD_COLUMNS:CARD_LENGTH].split(" ", 1)[0]
            self.warning(card, f"the variable field runs past column {CARD_COLUMNS}: SAP reads columns "
                               f"1-{CARD_COLUMNS} only, so {cut!r} (columns {CARD_COLUMNS + 1}-"
                               f"{CARD_COLUMNS + len(cut)}, the card's identification field) was not "
                               "assembled")

    def lookup(self, name: str) -> int:
        try:
            return self.symbols[name]
        except KeyError:
            if name in self.failed_labels:
                raise _FollowOn(name) from None
            raise UndefinedSymbol(name) from None

    def fail(self, st: _Statement, exc: _CardError | None = None, message: str = "") -> None:
        """Mark ``st`` failed, reporting ``exc`` (or ``message``) unless it is a follow-on.

        A failed card's location symbol stays undefined; uses of it fail quietly (see
        _FollowOn) rather than each adding an "undefined symbol" error of its own.
        """
        st.failed = True
        if st.card.label and st.card.label not in self.symbols:
            self.failed_labels.add(st.card.label)
        if isinstance(exc, _FollowOn):
            return
        self.problem(st.card, message or str(exc))

    def define(self, card: Card, name: str, value: int) -> None:
        if name in self.symbols:
            raise _CardError(
                f"symbol {name!r} is defined twice (first on line {self.defined_on[name]})"
            )
        self.symbols[name] = value
        self.defined_on[name] = card.number

    def value(self, expr: str, location: int) -> int:
        return evaluate(expr, location, self.lookup)

    def count(self, expr: str, location: int, what: str) -> int:
        n = self.value(expr, location)
        if n < 0:
            raise _CardError(f"{what} {n} is negative")
        return n

    def address(self, expr: str, location: int, what: str = "address") -> int:
        """A memory address: a negative value wraps modulo 2**15; otherwise inside memory."""
        value = self.value(expr, location)
        field_value = fit_field(value, what)
        if value >= self.memory_size:
            raise _CardError(
                f"{what} {value} ({value:o} octal) is outside a {self.memory_size // 1024}K memory "
                f"(0-{self.memory_size - 1})"
            )
        return field_value

    # -- pass 1: locations and symbols -------------------------------------------------------

    def pass1(self) -> None:
        location = 0
        pending: list[tuple[_Statement, str]] = []  # EQU/SYN with forward references
        overflowed = False
        for card in self.cards:
            st = _Statement(card, location)
            self.statements.append(st)
            self.check_columns(card)
            if card.is_comment or card.op == "REM":
                continue
            try:
                if card.label and card.op != "REM":
                    check_symbol(card.label)
                op = card.op
                if op == "":
                    raise _CardError("missing operation")
                if op in ("EQU", "SYN"):
                    if not card.label:
                        raise _CardError(f"{op} needs a location symbol")
                    try:
                        st.value = self.value(card.variable, location)
                    except UndefinedSymbol:
                        pending.append((st, card.label))
                        continue
                    fit_field(st.value, "value")
                    self.define(card, card.label, st.value)
                    continue
                label_value = location
                if op == "ORG":
                    location = self.count(card.variable, location, "origin")
                    if location >= self.memory_size:
                        raise _CardError(
                            f"origin {location} is outside a {self.memory_size // 1024}K memory"
                        )
                    st.location = st.value = label_value = location
                elif op in ("BSS", "BES"):
                    st.size = self.count(card.variable, location, "block size")
                    if op == "BES":
                        label_value = location + st.size
                    st.value = label_value
                elif op in ("DEC", "OCT"):
                    st.size = len(_items(card.variable, op))
                elif op == "BCD":
                    st.size = bcd_field(card)[0]
                elif op == "END":
                    st.value = None
                elif op in ("FUL", "ABS"):
                    pass
                elif op in UNSUPPORTED_PSEUDO_OPS:
                    raise _CardError(f"pseudo-operation {op} is not supported by this assembler")
                elif op in isa.OPCODES:
                    st.size = 1
                else:
                    # Counted as the one word an operation makes, with its symbol defined, so
                    # the cards after it keep their locations and report only their own errors.
                    st.size = 1
                    st.failed = True
                    self.problem(card, f"unknown operation {op!r}")
                if card.label:
                    self.define(card, card.label, label_value)
                location += st.size
                if st.size and location > self.memory_size:
                    st.failed = True
                    if not overflowed:  # one report, not one per card that follows
                        overflowed = True
                        raise _CardError(
                            f"location counter runs to {location} past the end of a "
                            f"{self.memory_size // 1024}K memory"
                        )
            except UndefinedSymbol as exc:
                self.fail(st, exc, f"{exc} (it must be defined before this {card.op} card)")
            except _CardError as exc:
                self.fail(st, exc)
            if card.op == "END":
                break
        self._resolve_pending(pending)

    def _resolve_pending(self, pending: list[tuple[_Statement, str]]) -> None:
        progress = True
        while pending and progress:
            progress = False
            for item in list(pending):
                st, label = item
                try:
                    st.value = self.value(st.card.variable, st.location)
                except UndefinedSymbol:
                    continue
                except _CardError as exc:
                    self.fail(st, exc)
                    pending.remove(item)
                    continue
                pending.remove(item)
                progress = True
                try:
                    fit_field(st.value, "value")
                    self.define(st.card, label, st.value)
                except _CardError as exc:
                    self.fail(st, exc)
        for st, _ in pending:  # still undefined: say which symbol (or fail quietly on a follow-on)
            try:
                self.value(st.card.variable, st.location)
            except _CardError as exc:
                self.fail(st, exc)
            st.failed = True

    # -- pass 2: words -------------------------------------------------------------------------

    def pass2(self) -> tuple[list[ListedLine], dict[int, int]]:
        lines: list[ListedLine] = []
        memory: dict[int, int] = {}
        owner: dict[int, int] = {}
        for st in self.statements:
            card = st.card
            if card.is_comment or card.op == "REM" or st.failed:
                lines.append(ListedLine(card.number, card.text))
                continue
            try:
                words, layout = self.generate(st)
            except _CardError as exc:
                self.fail(st, exc)
                lines.append(ListedLine(card.number, card.text))
                continue
            if card.op in ("BSS", "BES") and st.size:
                self.reserved.append((st.location, st.size, card))
            if words:
                for i, word in enumerate(words):
                    address = st.location + i
                    self.contents[address] = (layout == "W", card)
                    if address in owner:
                        self.problem(
                            card,
                            f"location {address} ({address:05o} octal) was already assembled "
                            f"by line {owner[address]}",
                        )
                        break
                    owner[address] = card.number
                    memory[address] = word
                lines.append(ListedLine(card.number, card.text, st.location, tuple(words), layout))
            else:
                shown = st.value if card.op != "END" else self.start
                lines.append(ListedLine(card.number, card.text, shown))
        return lines, memory

    def generate(self, st: _Statement) -> tuple[list[int], str]:
        card, location, op = st.card, st.location, st.card.op
        if op in ("ORG", "BSS", "BES", "EQU", "SYN"):
            return [], ""
        if op in ("FUL", "ABS"):
            self.check_empty(card)
            self.mode = op
            return [], ""
        if op == "END":
            if card.variable:
                self.start = self.address(card.variable, location, "start address")
                self.check_start(card, self.start)
            return [], ""
        if op == "DEC":
            return [dec_word(item) for item in _items(card.variable, op)], "W"
        if op == "OCT":
            return [oct_word(item) for item in _items(card.variable, op)], "W"
        if op == "BCD":
            count, text = bcd_field(card)
            try:
                words = bcd.pack_text(text)
            except bcd.UnknownCharacterError as exc:
                raise _CardError(f"character {exc.char!r} in BCD text has no BCD code") from None
            assert len(words) == count
            return words, "W"
        d = isa.OPCODES[op]
        word = self.instruction(d, card.variable, location)
        if d.mnemonic in _TAPE_POSITIONING:
            self.check_tape_address(card, word)
        return [word], ("A" if d.kind in ("A", "DATA") else "B")

    def check_tape_address(self, card: Card, word: int) -> None:
        """Warn when BST/WEF/REW name no tape unit: UA SAP added the variable field to 0220, so
        its ``REW 1`` is REW 0221; here the address is taken as written (``REW 145``)."""
        address, tag = word & 0o77777, (word >> 15) & 0o7
        if tag or address in _TAPE_ADDRESSES:
            return
        hint = (f"; UA SAP read `{card.op} {address}` as {card.op} {0o220 + address:04o}, here write "
                f"`{card.op} {0o220 + address}` (decimal) for tape {address}" if 1 <= address <= 10 else "")
        self.warning(card, f"{card.op} {address:04o} (octal) names no tape unit: tapes are 0201-0212 "
                           f"(BCD) and 0221-0232 (binary), decimal 129-138 and 145-154{hint}")

    def check_start(self, card: Card, start: int) -> None:
        """END must name an instruction: not a DEC/OCT/BCD word, a BSS/BES block or nothing.

        (UA SAP punched any address on the transfer card; the 704 then ran into data and stopped
        at some HTR far from the cause.)  Called at END, the last card, so every word is known.
        """
        where = f"END {card.variable}: the start address {card.variable!r} = {start:05o} octal"
        if start in self.contents:
            data, owner = self.contents[start]
            if data:
                raise _CardError(f"{where} is a data word ({owner.op} on line {owner.number}), "
                                 "not an instruction")
            return
        for origin, size, owner in self.reserved:
            if origin <= start < origin + size:
                raise _CardError(f"{where} is reserved storage ({owner.op} on line {owner.number}), "
                                 "not an instruction")
        if not self.problems:  # else the word may be missing only because its card failed
            raise _CardError(f"{where} holds nothing this program assembles")

    def check_empty(self, card: Card) -> None:
        if card.variable and card.fixed:
            raise _CardError(f"{card.op} takes no variable field")

    def instruction(self, d: OpDef, variable: str, location: int) -> int:
        """The word for machine operation ``d`` with variable field ``variable``."""
        parts = variable.split(",") if variable else []
        limit = 3 if d.operands == "Y,T,D" else (1 if d.operands == "i" else 2)
        if d.operands == "" and d.kind in ("B760", "ALIAS_IO"):
            limit = 0
        if len(parts) > limit:
            if limit == 0:
                raise _CardError(f"{d.mnemonic} takes no variable field")
            if limit == 2 and len(parts) == 3:
                raise _CardError(f"{d.mnemonic} is a type B instruction and has no decrement")
            raise _CardError(
                f"{d.mnemonic} takes at most {limit} subfield{'s' if limit > 1 else ''} "
                f"({d.operands or 'Y,T'}), not {len(parts)}"
            )
        parts += [""] * (3 - len(parts))
        address_expr, tag_expr, decrement_expr = parts
        tag = self.value(tag_expr, location)
        if not 0 <= tag <= 7:
            raise _CardError(f"tag {tag} is not 0-7 (index registers 1, 2, 4 and their sums)")
        decrement = fit_field(self.value(decrement_expr, location), "decrement")
        if d.operands == "i":
            operand = self.value(address_expr, location)
            assert d.operand_range is not None
            lo, hi = d.operand_range
            if not lo <= operand <= hi:
                raise _CardError(f"{d.mnemonic} operand {operand} is not {lo}-{hi}")
            return isa.encode(d, operand)
        if d.operands == "n,T":
            address = self.shift_count(d, address_expr, location)
        elif d.kind == "DATA" or d.operands == "0,T" or d.kind == "B760":
            address = fit_field(self.value(address_expr, location), "address")
        else:
            address = self.address(address_expr, location)
        return isa.encode(d, address, tag, decrement)

    def shift_count(self, d: OpDef, expr: str, location: int) -> int:
        """A shift's count, 0-255.

        The 704 shifts by the low 8 bits of the effective address, so UA SAP's ``ALS 300`` ran
        as ALS 44 and ``ARS -1`` (address 77777) as ARS 255: always a slip, so an error here.
        An indexed shift needs no count past 255 either (only the low 8 bits of Y - XR count).
        """
        n = self.value(expr, location)
        if n < 0:
            field_value = fit_field(n, "shift count")
            raise _CardError(f"{d.mnemonic} shift count {n} is negative (it would assemble as "
                             f"{field_value:05o} octal: a shift of {field_value & isa.SHIFT_COUNT_MASK} "
                             "places)")
        if n > isa.SHIFT_COUNT_MASK:
            fit_field(n, "shift count")
            raise _CardError(f"{d.mnemonic} shift count {n} is outside 0-{isa.SHIFT_COUNT_MASK} (the 704 "
                             "shifts by the low 8 bits of the address: this would shift "
                             f"{n & isa.SHIFT_COUNT_MASK} places)")
        return n

    def run(self) -> Image:
        self.pass1()
        lines, memory = self.pass2()
        if self.problems:
            raise SapError(self.problems, self.name)
        blocks: list[Block] = []
        for address in sorted(memory):
            if blocks and blocks[-1][0] + len(blocks[-1][1]) == address:
                blocks[-1][1].append(memory[address])
            else:
                blocks.append((address, [memory[address]]))
        end_line = next((st.card.number for st in self.statements if st.card.op == "END"), None)
        return Image(blocks, self.start, dict(self.symbols), self.memory_size, self.mode, lines, self.name,
                     end_line, sorted(self.warnings, key=lambda w: w.line))


def format_warnings(image: Image) -> str:
    """``NAME: n warning(s)`` and each warning with its line and card, as SapError prints errors."""
    count = len(image.warnings)
    head = f"{image.name}: {count} warning{'s' if count != 1 else ''}"
    return "\n".join([head, *(str(w) for w in image.warnings)])


def _memory_size(size: int) -> int:
    if size in (4, 8, 32):
        size *= 1024
    if size not in MEMORY_SIZES:
        raise ValueError(f"memory size {size!r} is not 4K, 8K or 32K (4096, 8192, 32768)")
    return size


def assemble(text: str, memory_size: int = 4096, *, name: str = "<source>") -> Image:
    """Assemble SAP source text for a machine of ``memory_size`` words (4096, 8192, 32768;
    4, 8 and 32 are read as K).  Raises :class:`SapError` listing every problem."""
    return _Assembler(text, memory_size, name).run()


def assemble_file(path: str | os.PathLike[str], memory_size: int = 4096) -> Image:
    """Assemble a source file; problems name the file."""
    with open(path, encoding="utf-8") as f:
        return assemble(f.read(), memory_size, name=os.fspath(path))


SAMPLE_MEMORY = {"checkers.sap": 32768}
"""Sample programs that need more than the 4K machine (checkers.sap: its 4096-word bit-count table)."""


def sample_memory(path: str | os.PathLike[str]) -> int:
    """The memory a sample program is written for: 4K unless SAMPLE_MEMORY says otherwise."""
    return SAMPLE_MEMORY.get(os.path.basename(os.fspath(path)), 4096)


def iter_sources() -> Iterator[str]:
    """Paths of the sample programs shipped in emu704/programs."""
    folder = os.path.join(os.path.dirname(__file__), "programs")
    for entry in sorted(os.listdir(folder)):
        if entry.endswith(".sap"):
            yield os.path.join(folder, entry)


# ------------------------------------------------------------------------------------------
# Command line
# ------------------------------------------------------------------------------------------

def main(argv: Sequence[str] | None = None) -> int:
    """``python -m emu704.sap prog.sap [--cbn out.cbn] [--listing out.lst] [--memory 8]``."""
    parser = argparse.ArgumentParser(prog="python -m emu704.sap", description="UA SAP 3 assembler")
    parser.add_argument("source")
    parser.add_argument("--memory", type=int, default=4, help="memory size in K words: 4, 8 or 32")
    parser.add_argument("--cbn", help="write the self-loading deck as a CBN file")
    parser.add_argument("--listing", help="write the listing here ('-' for standard output)")
    args = parser.parse_args(argv)
    try:
        image = assemble_file(args.source, args.memory)
    except SapError as exc:
        print(exc, file=sys.stderr)
        return 1
    if image.warnings:
        print(format_warnings(image), file=sys.stderr)
    if args.listing:
        text = image.listing()
        if args.listing == "-":
            sys.stdout.write(text)
        else:
            with open(args.listing, "w", encoding="utf-8") as f:
                f.write(text)
    if args.cbn:
        try:
            image.save_cbn(args.cbn)
        except ValueError as exc:
            print(f"{args.source}: no deck written: {exc}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
