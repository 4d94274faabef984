"""Assembly listings in the style of a 1950s SAP printout.

Every source line is printed beside its location and its word(s) in octal, the word split into
the fields of its instruction type::

     LINE  LOC    OCTAL             SOURCE
        3  00144  +0762 0 00321     START  RCD                 READ A MOVE CARD
        5  00146  +1 00001 1 00146  LOOP   TXI LOOP,1,1
       14  00155  +000000000000     EMPTY  OCT 0

* type B instructions (and the +0760 group, I/O): sign and op code, tag, address --
  ``+0500 0 00123``;
* type A instructions and data words built with PZE..MTH: sign and prefix digit, decrement,
  tag, address -- ``+1 00005 1 00123``;
* DEC, OCT and BCD words: sign and the 35-bit magnitude in 12 octal digits -- ``+201400000000``.

A DEC/OCT/BCD card with several words prints the further words on lines of their own.  ORG,
BSS, BES, EQU and SYN show the value of their location symbol in the LOC column, END the
start address.  All numbers in the listing are octal.  The symbol table follows, sorted by
name, four symbols to a line.

A warning (input UA SAP accepted but that is probably a slip, such as a variable field cut at
column 72) is printed under its line as ``  *** WARNING line N: ...``, and their count closes
the listing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from emu704.word import format_instruction, format_octal

if TYPE_CHECKING:
    from emu704.sap import Image, ListedLine

FIELD_WIDTH = 16
SYMBOLS_PER_LINE = 4
HEADER = " LINE  LOC    OCTAL             SOURCE"


def format_fields(word: int, layout: str) -> str:
    """``word`` split for the listing: layout "A", "B" or "W" (see the module docstring)."""
    sign = "-" if word >> 35 & 1 else "+"
    decrement = word >> 18 & 0o77777
    tag = word >> 15 & 0o7
    address = word & 0o77777
    if layout == "A":
        return f"{sign}{word >> 33 & 0o3} {decrement:05o} {tag:o} {address:05o}"
    if layout == "B":
        if word >> 18 & 0o77 or word >> 33 & 0o3:  # not a plain type B word: show every field
            return format_instruction(word)
        return f"{sign}{word >> 24 & 0o777:04o} {tag:o} {address:05o}"
    return format_octal(word)


def format_listing(image: Image) -> str:
    """The whole listing of an assembled program, ending with its symbol table."""
    size = f"{image.memory_size // 1024}K"
    out = [f"SAP ASSEMBLY LISTING   {image.name}   {size} MEMORY   {image.mode}", "", HEADER]
    warnings: dict[int, list[str]] = {}
    for w in image.warnings:
        warnings.setdefault(w.line, []).append(f"  *** WARNING line {w.line}: {w.message}")
    for line in image.lines:
        _format_line(out, line)
        out += warnings.get(line.number, [])
    out += ["", format_symbol_table(image.symbols)]
    start = "NONE" if image.start is None else f"{image.start:05o}"
    out += ["", f"START {start}"]
    if image.warnings:
        count = len(image.warnings)
        out.append(f"{count} WARNING{'S' if count != 1 else ''}")
    return "\n".join(out) + "\n"


def _format_line(out: list[str], line: ListedLine) -> None:
    """Append one source line, with its location and words, to ``out``."""
    location = "" if line.location is None else f"{line.location % 0o100000:05o}"
    if not line.words:
        out.append(f"{line.number:5d}  {location:5}  {'':{FIELD_WIDTH}}  {line.text}".rstrip())
        return
    for i, word in enumerate(line.words):
        fields = format_fields(word, line.layout)
        assert line.location is not None
        location = f"{line.location + i:05o}"
        if i == 0:
            out.append(f"{line.number:5d}  {location}  {fields:{FIELD_WIDTH}}  {line.text}".rstrip())
        else:
            out.append(f"{'':5}  {location}  {fields}")


def format_symbol_table(symbols: dict[str, int]) -> str:
    """``SYMBOL TABLE`` and the symbols sorted by name, values in octal, four to a line."""
    entries = [f"{name:<6} {value % 0o100000:05o}" for name, value in sorted(symbols.items())]
    rows = [
        "    ".join(entries[i : i + SYMBOLS_PER_LINE]) for i in range(0, len(entries), SYMBOLS_PER_LINE)
    ]
    return "\n".join([f"SYMBOL TABLE ({len(entries)} symbols)", *rows])
