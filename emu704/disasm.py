"""Disassembler: 704 words back to SAP cards, generated from :mod:`emu704.isa`.

Each word becomes one fixed-format SAP card (operation in column 8, variable field in
column 12, decimal operands as SAP reads them) with its location and octal fields as the
comment, so the output assembles back to the same words::

           ORG 100
           RCD                     00144 +0762 0 00321
           CPY 138,1               00146 +0700 1 00212

Naming follows :func:`emu704.isa.decode` (the most specific mnemonic: ``CHS``, ``SLN 2``,
``RCD``, ``RTB 3`` ...).  A word with bits 1,2 = 01 on the minus side (the 709's STR) is shown
as the data word ``MON a,t,d``; any other word the 704 cannot execute -- an op code it does
not have, or a type B word with bits 12-17 set -- is shown as ``OCT`` with its 12 octal
digits.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from emu704 import isa
from emu704.listing import format_fields

if TYPE_CHECKING:
    from emu704.sap import Image

COMMENT_COLUMN = 32
"""1-based column where the location/octal comment starts."""


def _signed(value: int, limit: int) -> int:
    """A 15-bit field as SAP would write it: values from ``limit`` up as negatives (77777 -> -1)."""
    return value - 0o100000 if value >= limit else value


def _join(*fields: int) -> str:
    """Subfields with trailing zeros dropped: (5, 1, 0) -> "5,1", (0, 0, 0) -> "0"."""
    parts = [str(f) for f in fields]
    while len(parts) > 1 and parts[-1] == "0":
        parts.pop()
    return ",".join(parts)


def disassemble_word(word: int, memory_size: int = 0o100000) -> tuple[str, str]:
    """(operation, variable field) of one word, in SAP syntax.

    Operands are decimal.  An address at or above ``memory_size``, and a decrement of 40000
    octal or more, is written as a negative number (``TXI 5,1,-1``, ``CLA -1``), which SAP
    takes modulo 2**15, so the card assembles on a machine of that size.
    """
    word &= 0o777777777777
    decoded = isa.decode(word)
    d = decoded.opdef
    if d is None:
        if word >> 33 & 0o3:  # bits 1,2 != 00: a prefix/decrement/tag/address word
            data = isa.decode_data(word)
            assert data.opdef is not None
            return data.opdef.mnemonic, _join(
                _signed(data.address, memory_size), data.tag, _signed(data.decrement, 0o40000)
            )
        return "OCT", f"{word:012o}"
    if d.operands == "n,T" and decoded.address > isa.SHIFT_COUNT_MASK:
        return "OCT", f"{word:012o}"  # the assembler takes shift counts 0-255 only
    address = _signed(decoded.address, memory_size)
    if d.operands == "i":
        variable = str(decoded.operand)
        fields = (decoded.operand, 0, 0)
    elif d.operands == "Y,T,D":
        variable = _join(address, decoded.tag, _signed(decoded.decrement, 0o40000))
        fields = (decoded.address, decoded.tag, decoded.decrement)
    elif d.operands == "" and d.kind in ("B760", "ALIAS_IO"):
        variable = ""
        fields = (0, decoded.tag, 0)
    else:
        variable = _join(address, decoded.tag)
        if d.operands == "" and variable == "0":  # HPR, NOP
            variable = ""
        fields = (decoded.address, decoded.tag, 0)
    try:
        same = isa.encode(d, *fields) == word
    except ValueError:
        same = False
    if not same:  # e.g. bits 12-17 set: the mnemonic would not give this word back
        return "OCT", f"{word:012o}"
    return d.mnemonic, variable


def format_card(op: str, variable: str = "", *, label: str = "", comment: str = "") -> str:
    """A fixed-format SAP card: label in 1-6, operation in 8-10, variable field from 12."""
    line = f"{label:<6} {op:<3} {variable}"
    if comment:
        line = f"{line:<{COMMENT_COLUMN - 1}}" if len(line) < COMMENT_COLUMN - 1 else line + " "
        line += comment
    return line.rstrip()


def _layout(op: str) -> str:
    d = isa.OPCODES.get(op)
    if d is None:
        return "W"
    return "A" if d.kind in ("A", "DATA") else "B"


def disassemble_words(words: Sequence[int], origin: int = 0, memory_size: int = 0o100000) -> list[str]:
    """One SAP card per word, for words stored from ``origin`` on."""
    lines = []
    for i, word in enumerate(words):
        op, variable = disassemble_word(word, memory_size)
        location = (origin + i) % 0o100000
        comment = f"{location:05o} {format_fields(word, _layout(op))}"
        lines.append(format_card(op, variable, comment=comment))
    return lines


def disassemble_blocks(
    blocks: Iterable[tuple[int, Sequence[int]]], start: int | None = None, memory_size: int = 0o100000
) -> str:
    """SAP source for (origin, words) blocks: an ORG card per block and an END card."""
    lines: list[str] = []
    for origin, words in blocks:
        lines.append(format_card("ORG", str(origin)))
        lines += disassemble_words(words, origin, memory_size)
    lines.append(format_card("END", "" if start is None else str(start)))
    return "\n".join(lines) + "\n"


def disassemble(image: Image) -> str:
    """SAP source for an assembled image; assembling it gives the same words and start."""
    return disassemble_blocks(image.blocks, image.start, image.memory_size)
