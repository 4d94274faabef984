"""SAP input the assembler used to take silently (issue 30): shift counts outside 0-255, text
past the 80 columns of a card, END on a data word, and the follow-on errors of a bad label card.

Every error names its line and carries the card's text (``Problem``); what UA SAP itself
accepted and the 704 would still read the same way is a warning in the listing, not an error.
"""

from __future__ import annotations

import os

import pytest

from emu704 import isa, sap
from emu704.sap import SapError, assemble

SHIFTS = sorted(m for m, d in isa.OPCODES.items() if d.operands == "n,T")


def problems(text: str, memory_size: int = 4096) -> list[tuple[int, str]]:
    with pytest.raises(SapError) as info:
        assemble(text, memory_size)
    return [(p.line, p.message) for p in info.value.problems]


def program(*cards: str) -> str:
    """A small fixed-format program around ``cards``: ORG 100, the cards, HTR START, END START."""
    return "\n".join(["       ORG 100", *cards, "       HTR START", "       END START", ""])


# ----------------------------------------------------------------------------------------
# Shift counts
# ----------------------------------------------------------------------------------------

def test_the_shift_operations_are_the_ones_the_table_times_by_their_count() -> None:
    # ibm704-opcodes.csv: ALS ARS LLS LRS LGL RQL, cycles 2+(n+2)//12 with n = Y mod 256.
    assert SHIFTS == ["ALS", "ARS", "LGL", "LLS", "LRS", "RQL"]
    assert all(isa.OPCODES[m].cycles == "2+(n+2)//12" for m in SHIFTS)


@pytest.mark.parametrize("op", SHIFTS)
@pytest.mark.parametrize("count", ["0", "1", "35", "255", "**", "N", "255,1", "0,4"])
def test_shift_counts_0_to_255_assemble(op: str, count: str) -> None:
    image = assemble(program(f"START  {op} {count}", "N      EQU 36"))
    expected = {"**": 0, "N": 36}[count] if count in ("**", "N") else int(count.split(",")[0])
    assert image[100] & 0o77777 == expected


@pytest.mark.parametrize("op", SHIFTS)
@pytest.mark.parametrize(
    ("count", "value", "places"),
    [("256", 256, 0), ("300", 300, 44), ("N", 300, 44), ("32767", 32767, 255), ("300,1", 300, 44)],
)
def test_a_shift_count_over_255_is_an_error_naming_the_operation_and_value(
    op: str, count: str, value: int, places: int
) -> None:
    assert problems(program(f"START  {op} {count}", "N      EQU 300")) == [
        (2, f"{op} shift count {value} is outside 0-255 (the 704 shifts by the low 8 bits of "
            f"the address: this would shift {places} places)")
    ]


@pytest.mark.parametrize("op", SHIFTS)
@pytest.mark.parametrize(("count", "value", "places"), [("-1", -1, 255), ("M", -36, 220), ("2-3", -1, 255)])
def test_a_negative_shift_count_is_an_error(op: str, count: str, value: int, places: int) -> None:
    assert problems(program(f"START  {op} {count}", "M      EQU -36")) == [
        (2, f"{op} shift count {value} is negative (it would assemble as "
            f"{value % 32768:05o} octal: a shift of {places} places)")
    ]


def test_shift_count_errors_carry_the_card() -> None:
    with pytest.raises(SapError) as info:
        assemble(program("START  ALS 300             SHIFT THE BOARD"), name="p.sap")
    assert str(info.value).splitlines()[1:] == [
        "line 2: ALS shift count 300 is outside 0-255 (the 704 shifts by the low 8 bits of the "
        "address: this would shift 44 places)",
        "    START  ALS 300             SHIFT THE BOARD",
    ]


# ----------------------------------------------------------------------------------------
# Columns: 80 on a card, 72 read by SAP
# ----------------------------------------------------------------------------------------

def test_a_line_longer_than_80_columns_is_an_error_naming_the_column() -> None:
    long = "START  CLA X" + " " * 60 + "IDENT001MORE"
    assert len(long) == 84
    assert problems(program(long, "X      DEC 1")) == [
        (2, "line runs to column 84: a card has 80 columns, so 'MORE' (from column 81) cannot be on it")
    ]


@pytest.mark.parametrize(
    "line",
    [
        "L CLA L " + "Y" * 80,  # free format
        "* A COMMENT CARD " + "-" * 80,
        "       REM " + "R" * 80,
        "L\tCLA\tL\t" + "T" * 80,
    ],
)
def test_every_kind_of_card_is_held_to_80_columns(line: str) -> None:
    found = problems(program("START  HPR", line))
    assert found == [(3, f"line runs to column {len(line)}: a card has 80 columns, so '{line[80:]}' "
                         "(from column 81) cannot be on it")]


def test_80_columns_and_trailing_blanks_are_a_card() -> None:
    line = "START  CLA X" + " " * 60 + "SAP00010"
    assert len(line) == 80
    image = assemble(program(line + "    \t  ", "X      DEC 1"))
    assert image.start == 100 and not image.warnings


def test_a_long_error_line_still_defines_its_symbols() -> None:
    # Only the length is reported: the card is read as SAP would (columns 1-72).
    assert problems(program("START  CLA X" + " " * 80 + "Z", "X      DEC 1")) == [
        (2, "line runs to column 93: a card has 80 columns, so 'Z' (from column 93) cannot be on it")
    ]


def test_a_variable_field_running_into_column_73_is_a_warning_in_the_listing() -> None:
    # UA SAP read columns 1-72 and took 73-80 as the card's identification: a constant list
    # typed past column 72 loses its tail without a word from SAP.  Here: a warning.
    card = "TAB    DEC " + "1," * 29 + "12345678"  # the last constant is in columns 70-77
    image = assemble(program("START  CLA TAB", card))
    assert image[101 + 29] == 123  # what SAP assembled: columns 70-72
    assert [(w.line, w.message) for w in image.warnings] == [
        (3, "the variable field runs past column 72: SAP reads columns 1-72 only, so '45678' "
            "(columns 73-77, the card's identification field) was not assembled")
    ]
    listing = image.listing()
    assert "\n  *** WARNING line 3: the variable field runs past column 72" in listing
    assert "1 WARNING" in listing


def test_identification_after_a_complete_variable_field_is_no_warning() -> None:
    line = "START  CLA X" + " " * 60 + "SAP00010"
    bcd_card = "       BCD  " + "ABCDEF" * 10 + "IDENT"  # a ten-word BCD card fills 13-72
    image = assemble(program(line, bcd_card, "X      DEC 1"))
    assert image.warnings == []
    assert "WARNING" not in image.listing()


def test_warnings_are_printed_by_the_command_line(tmp_path: os.PathLike[str],
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    source = os.path.join(tmp_path, "w.sap")
    with open(source, "w") as f:
        f.write(program("START  CLA TAB", "TAB    DEC " + "1," * 29 + "12345678"))
    assert sap.main([source]) == 0
    err = capsys.readouterr().err
    assert f"{source}: 1 warning" in err
    assert "line 3: the variable field runs past column 72" in err


# ----------------------------------------------------------------------------------------
# END on a data word
# ----------------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("cards", "what"),
    [
        (["X      DEC 1"], "a data word (DEC on line 3)"),
        (["X      OCT 777"], "a data word (OCT on line 3)"),
        (["X      BCD 1HELLO"], "a data word (BCD on line 3)"),
        (["X      BSS 4"], "reserved storage (BSS on line 3)"),
        (["       BES 4", "X      EQU *-2"], "reserved storage (BES on line 3)"),
        (["D      DEC 5,6", "X      EQU D+1"], "a data word (DEC on line 3)"),
        (["D      OCT 5", "X      SYN D"], "a data word (OCT on line 3)"),
    ],
)
def test_end_on_data_is_an_error_naming_the_symbol(cards: list[str], what: str) -> None:
    text = "\n".join(["       ORG 100", "       HTR 100", *cards, "       END X", ""])
    found = problems(text)
    assert len(found) == 1, found
    line, message = found[0]
    assert line == 3 + len(cards)
    assert message.startswith("END X: the start address 'X' = ")
    assert message.endswith(f" octal is {what}, not an instruction")


def test_end_on_a_location_with_nothing_assembled_is_an_error() -> None:
    assert problems("       ORG 100\n       HTR 100\n       END 200\n") == [
        (3, "END 200: the start address '200' = 00310 octal holds nothing this program assembles")
    ]


@pytest.mark.parametrize("end", ["START", "START+1", "101", "GO"])
def test_end_on_an_instruction_is_accepted(end: str) -> None:
    image = assemble(f"       ORG 100\nSTART  CLA X\n       HTR START\nGO     EQU START+1\nX      DEC 1\n"
                     f"       END {end}\n")
    assert image.start == {"START": 100}.get(end, 101)


# ----------------------------------------------------------------------------------------
# An unknown operation, and other failed label cards: no follow-on errors
# ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("line", ["START  XYZ 5", "START XYZ 5", "START\tXYZ", "start  xyz", "START  CLAX 5"])
def test_an_unknown_operation_on_the_start_line_is_reported_as_such_only(line: str) -> None:
    op = line.upper().split()[1]
    assert problems(program(line)) == [(2, f"unknown operation {op!r}")]


def test_an_unknown_operation_keeps_the_locations_that_follow() -> None:
    # The bad card still counts one word, so the cards after it keep their addresses and
    # their own errors are reported as themselves.
    text = program("START  XYZ 5", "       CLA 5000", "NEXT   HPR", "       TRA NEXT")
    assert problems(text) == [
        (2, "unknown operation 'XYZ'"),
        (3, "address 5000 (11610 octal) is outside a 4K memory (0-4095)"),
    ]


@pytest.mark.parametrize(
    ("card", "message"),
    [
        ("START", "missing operation"),
        ("START  DEC 1.2.3", "bad decimal constant '1.2.3'"),
        ("START  BSS LATER", "undefined symbol 'LATER' (it must be defined before this BSS card)"),
        ("START  REL", "pseudo-operation REL is not supported by this assembler"),
        ("START  EQU NOWHER", "undefined symbol 'NOWHER'"),
    ],
)
def test_a_failed_label_card_has_no_undefined_symbol_follow_ons(card: str, message: str) -> None:
    text = program(card, "       CLA START", "AGAIN  EQU START+1", "       TRA AGAIN", "LATER  HPR")
    assert problems(text) == [(2, message)]


def test_a_symbol_that_is_never_defined_is_still_reported() -> None:
    assert problems(program("START  CLA NOSUCH")) == [(2, "undefined symbol 'NOSUCH'")]
