"""The SAP assembler (emu704.sap) and its listing (emu704.listing): ibm704.md section 4."""

from __future__ import annotations

import os
import re

import pytest

from emu704 import bcd, cpu, disasm, isa, loader, sap
from emu704.sap import SapError, assemble
from emu704.word import float_to_word

EXAMPLE = """\
       ORG 100
START  RCD                 READ A MOVE CARD
       LXA ZERO,1
LOOP   CPY BUF,1           ROW WORDS GO TO BUF, BUF-1, ...
       TXI LOOP,1,1
       TRA QUIT            END OF FILE
       CLA EMPTY           END OF RECORD - GENERATE MOVES
       ALS 4
       ANA FA
       STO RF
       HTR START
QUIT   HPR
ZERO   PZE
EMPTY  OCT 0
FA     OCT 0
RF     BSS 1
       BSS 23
BUF    BSS 1               (BUF-23 ... BUF hold the card)
       END START
"""
"""The example program of ibm704.md section 4.4."""


def words_of(text: str, memory_size: int = 4096) -> list[int]:
    """All words assembled from ``text``, in address order."""
    image = assemble(text, memory_size)
    return [word for _, words in image.blocks for word in words]


def one(card: str, memory_size: int = 4096) -> int:
    """The single word assembled from one card (free format) plus a few symbols."""
    source = f" ORG 100\nA PZE\nB PZE\n {card}\nTAB BSS 10\n"
    return assemble(source, memory_size)[102]


def problems(text: str, memory_size: int = 4096) -> list[tuple[int, str]]:
    with pytest.raises(SapError) as info:
        assemble(text, memory_size)
    return [(p.line, p.message) for p in info.value.problems]


# ----------------------------------------------------------------------------------------
# The reference example
# ----------------------------------------------------------------------------------------

def test_reference_example_assembles_to_the_expected_words() -> None:
    image = assemble(EXAMPLE)
    assert image.start == 100
    assert image.blocks[0][0] == 100
    assert [f"{w:012o}" for w in image.blocks[0][1]] == [
        "076200000321",  # RCD = RDS 0321
        "053400100157",  # LXA ZERO,1
        "070000100212",  # CPY BUF,1
        "100001100146",  # TXI LOOP,1,1
        "002000000156",  # TRA QUIT
        "050000000160",  # CLA EMPTY
        "076700000004",  # ALS 4
        "432000000161",  # ANA FA (-0320)
        "060100000162",  # STO RF
        "000000000144",  # HTR START
        "042000000000",  # HPR
        "000000000000",  # ZERO PZE
        "000000000000",  # EMPTY OCT 0
        "000000000000",  # FA OCT 0
    ]
    assert image.symbols == {
        "START": 100, "LOOP": 102, "QUIT": 110, "ZERO": 111, "EMPTY": 112,
        "FA": 113, "RF": 114, "BUF": 138,
    }
    assert len(image.blocks) == 1  # BSS reserves words but assembles none


LISTING = """\
SAP ASSEMBLY LISTING   example.sap   4K MEMORY   ABS

 LINE  LOC    OCTAL             SOURCE
    1  00144                           ORG 100
    2  00144  +0762 0 00321     START  RCD                 READ A MOVE CARD
    3  00145  +0534 1 00157            LXA ZERO,1
    4  00146  +0700 1 00212     LOOP   CPY BUF,1           ROW WORDS GO TO BUF, BUF-1, ...
    5  00147  +1 00001 1 00146         TXI LOOP,1,1
    6  00150  +0020 0 00156            TRA QUIT            END OF FILE
    7  00151  +0500 0 00160            CLA EMPTY           END OF RECORD - GENERATE MOVES
    8  00152  +0767 0 00004            ALS 4
    9  00153  -0320 0 00161            ANA FA
   10  00154  +0601 0 00162            STO RF
   11  00155  +0000 0 00144            HTR START
   12  00156  +0420 0 00000     QUIT   HPR
   13  00157  +0 00000 0 00000  ZERO   PZE
   14  00160  +000000000000     EMPTY  OCT 0
   15  00161  +000000000000     FA     OCT 0
   16  00162                    RF     BSS 1
   17  00163                           BSS 23
   18  00212                    BUF    BSS 1               (BUF-23 ... BUF hold the card)
   19  00144                           END START

SYMBOL TABLE (8 symbols)
BUF    00212    EMPTY  00160    FA     00161    LOOP   00146
QUIT   00156    RF     00162    START  00144    ZERO   00157

START 00144
"""


def test_classic_self_loading_card_of_section_3_4() -> None:
    text = """\
       ORG 0
       FUL                 (ABSOLUTE, FULL-CARD BINARY OUTPUT)
       LXA 0,4             XR4 <- 0
       CPY *+1,4           COPY NEXT WORD TO 2-XR4, 3-XR4 ...
       TXI *-1,4,-1        XR4 <- XR4-1 (SO THE TARGET ADDRESS INCREASES)
"""
    image = assemble(text)
    assert image.mode == "FUL"
    # The same three words start emu704.loader's bootstrap card.
    assert image.blocks == [(0, [word for word, _ in loader.BOOTSTRAP[:3]])]


def test_listing_snapshot() -> None:
    assert assemble(EXAMPLE, name="example.sap").listing() == LISTING


def test_listing_prints_each_word_of_a_multiword_card_and_full_octal_for_data() -> None:
    text = assemble(" ORG 20\nK DEC 1.0,-7\n BCD 1ABCDEF\n END\n").listing()
    assert "    2  00024  +201400000000     K DEC 1.0,-7" in text
    assert "\n       00025  -000000000007\n" in text
    assert "    3  00026  +212223242526      BCD 1ABCDEF" in text
    assert "START NONE" in text


# ----------------------------------------------------------------------------------------
# Card format
# ----------------------------------------------------------------------------------------

def test_fixed_format_fields() -> None:
    card = sap.read_card("LO OP  CLA TAB,1         COMMENT, WITH BLANKS           IDENT001", 7)
    assert (card.number, card.label, card.op, card.variable, card.fixed) == (7, "LOOP", "CLA", "TAB,1", True)


def test_fixed_format_variable_field_starts_in_column_12() -> None:
    # Column 12 blank: the variable field is empty and the rest is a comment, as on a SAP card.
    card = sap.read_card("       CLA  X", 1)
    assert card.fixed and card.variable == ""
    assert one("HPR") == one("HPR 0")


def test_fixed_format_ignores_columns_73_to_80() -> None:
    line = "       BCD " + "9" + "X" * 60 + "SAP30020"
    assert len(line) == 80
    image = assemble(line)
    assert bcd.unpack_text(image.blocks[0][1]) == "X" * 54
    # A ten-word BCD card (blank count) fills columns 13-72 exactly.
    image = assemble("       BCD  " + "ABCDEF" * 10 + "IDENT")
    assert len(image.blocks[0][1]) == 10


def test_free_format_lines() -> None:
    text = "loop\tcla tab,1  comment\n  TXI LOOP,1,-1\nTAB BSS 1\n"
    image = assemble(text)
    assert image.symbols["LOOP"] == 0
    assert image[0] == isa.encode("CLA", 2, 1)
    assert image[1] == isa.encode("TXI", 0, 1, -1)


def test_free_format_operations_without_variable_field_take_the_rest_as_comment() -> None:
    image = assemble("X CHS change the sign\n RCD read a card\n FUL full cards\n")
    assert image[0] == isa.encode("CHS") and image[1] == isa.encode("RCD")
    assert image.mode == "FUL"


def test_comment_cards() -> None:
    text = "* A COMMENT CARD\n\n       REM ANOTHER, WITH ANY TEXT + - * /\nREMARK REM EVEN A LOCATION\n HPR\n"
    assert words_of(text) == [isa.encode("HPR")]


def test_nothing_after_end_is_read() -> None:
    assert words_of(" HPR\n END\n THIS IS NOT ASSEMBLED\n") == [isa.encode("HPR")]


# ----------------------------------------------------------------------------------------
# Expressions
# ----------------------------------------------------------------------------------------

SYMBOLS = {"A": 100, "B": 7, "C1": 3, "1X": 5}


@pytest.mark.parametrize(
    ("expr", "value"),
    [
        ("", 0),
        ("5", 5),
        ("A", 100),
        ("1X", 5),  # a symbol may start with digits
        ("A+1", 101),
        ("A-B-1", 92),
        ("-1", -1),
        ("+5", 5),
        ("--2", 2),
        ("2*3+4", 10),
        ("4+2*3", 10),
        ("A-B*C1", 79),
        ("A/B", 14),
        ("-7/2", -3),  # truncates toward zero
        ("7/-2", -3),
        ("A/B*B", 98),  # left to right
        ("*", 50),
        ("*+1", 51),
        ("*-A", -50),
        ("**", 0),
        ("2**", 100),  # 2 times the location
        ("**+3", 3),
        ("*/2", 25),
    ],
)
def test_expressions(expr: str, value: int) -> None:
    assert sap.evaluate(expr, 50, SYMBOLS.__getitem__) == value


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        ("A+", "ends where a term is expected"),
        ("A,B", "unexpected ','"),
        ("(A)", "unexpected '('"),
        ("A/0", "division by zero"),
        ("LONGNAME", "longer than 6"),
        ("A B", "unexpected ' '"),
    ],
)
def test_bad_expressions(expr: str, message: str) -> None:
    with pytest.raises(sap._CardError, match=re.escape(message)):
        sap.evaluate(expr, 50, SYMBOLS.__getitem__)


def test_negative_fields_wrap_modulo_2_15() -> None:
    assert one("PZE -10") == 0o77766  # the Library704 sort test's constant
    assert one("TXI *-1,4,-1") == isa.encode("TXI", 101, 4, 0o77777)
    assert one("PZE A-B,2,B-A") == isa.encode("PZE", 0o77777, 2, 1)


# ----------------------------------------------------------------------------------------
# Instructions
# ----------------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("card", "octal"),
    [
        ("CLA TAB,1", "+050000100147"),
        ("CLA TAB+2,3", "+050000300151"),
        ("TXI A,4,-1", "+177777400144"),
        ("TSX B,4", "+007400400145"),
        ("PXD 0,4", "-075400400000"),
        ("PAX ,2", "+073400200000"),
        ("TXI ,,B-A-1", "+100000000000"),
        ("TXL A,1,5", "-300005100144"),
        ("TNX A,2,3", "-200003200144"),
        ("ALS 4", "+076700000004"),
        ("LGL 35,1", "-076300100043"),
        ("SLN 2", "+076000000142"),
        ("SLT 4", "-076000000144"),
        ("SWT 3", "+076000000163"),
        ("SPR 10", "+076000000372"),
        ("CHS", "+076000000002"),
        ("ETT", "-076000000011"),
        ("PSE 98", "+076000000142"),  # decimal, as SAP reads operands
        ("RCD", "+076200000321"),
        ("WPR", "+076600000361"),
        ("WPU", "+076600000341"),
        ("RTB 1", "+076200000221"),
        ("WTD 10", "+076600000212"),
        ("RDS 209", "+076200000321"),
        ("CPY A,1", "+070000100144"),
        ("CAD B", "-070000000145"),
        ("PZE A,T,D", None),
        ("MZE 1,2,3", "-000003200001"),
        ("MTH 1", "-300000000001"),
        ("SVN 1", "-300000000001"),
        ("HPR 7", "+042000000007"),
        ("NOP", "+076100000000"),
        ("HTR **", "+000000000000"),
    ],
)
def test_instruction_words(card: str, octal: str | None) -> None:
    if octal is None:  # T and D are not symbols of the test program
        with pytest.raises(SapError, match="undefined symbol 'T'"):
            one(card)
        return
    word = one(card)
    sign = "-" if word >> 35 else "+"
    assert f"{sign}{word & 0o377777777777:012o}" == octal


def _cards_for(d: isa.OpDef) -> list[str]:
    """Representative source cards for every operand shape of the table."""
    op = d.mnemonic
    if d.operands == "i":
        assert d.operand_range is not None
        lo, hi = d.operand_range
        return [f"{op} {lo}", f"{op} {hi}"]
    if d.operands == "Y,T,D":
        return [f"{op}", f"{op} A", f"{op} A,1", f"{op} A+5,4,3", f"{op} *,7,-1", f"{op} 4095,2,32767"]
    if d.operands == "0,T":
        return [f"{op} 0,1", f"{op} 0,4", f"{op} 0,7", f"{op} 0"]
    if d.operands == "n,T":
        return [f"{op} 0", f"{op} 1", f"{op} 35", f"{op} 255,1"]
    if d.operands == "":
        if d.kind in ("B760", "ALIAS_IO"):
            return [op]
        return [op, f"{op} 5", f"{op} B,2"]  # HPR, NOP: the address is kept
    assert d.operands == "Y,T"
    return [f"{op} A", f"{op} B,1", f"{op} TAB+9,2", f"{op} 4095,7", f"{op} 0", f"{op} -1,4"]


@pytest.mark.parametrize("mnemonic", sorted(isa.OPCODES))
def test_every_opcode_round_trips_through_the_disassembler(mnemonic: str) -> None:
    d = isa.OPCODES[mnemonic]
    cards = _cards_for(d)
    source = " ORG 100\nA PZE\nB PZE\n" + "".join(f" {c}\n" for c in cards) + "TAB BSS 10\n END A\n"
    image = assemble(source)
    words = image.blocks[0][1][2:]
    assert len(words) == len(cards)
    for card, word in zip(cards, words, strict=True):
        # Every instruction card gives a word the 704 can execute.
        assert isa.decode(word).opdef is not None or d.kind == "DATA", card
    text = disasm.disassemble(image)
    again = assemble(text)
    assert again.blocks == image.blocks, text
    assert again.start == image.start


def test_every_opcode_is_encoded_as_the_table_says() -> None:
    for d in isa.OPCODES.values():
        if d.operands == "i":
            assert d.operand_range is not None
            card, expected = f"{d.mnemonic} {d.operand_range[0]}", isa.encode(d, d.operand_range[0])
        elif d.operands == "" and d.kind in ("B760", "ALIAS_IO"):
            card, expected = d.mnemonic, isa.encode(d)
        elif d.operands == "Y,T,D":
            card, expected = f"{d.mnemonic} 9,4,5", isa.encode(d, 9, 4, 5)
        else:
            card, expected = f"{d.mnemonic} 9,2", isa.encode(d, 9, 2)
        assert one(card) == expected, card


# ----------------------------------------------------------------------------------------
# Pseudo-operations
# ----------------------------------------------------------------------------------------

def test_org_bss_bes_locations() -> None:
    text = """\
       ORG 200
FIRST  BSS 3
AFTER  BES 4
NEXT   PZE FIRST
       PZE AFTER
       PZE NEXT
       ORG 300
LATE   PZE *
"""
    image = assemble(text)
    assert image.symbols == {"FIRST": 200, "AFTER": 207, "NEXT": 207, "LATE": 300}
    assert image.blocks == [(207, [200, 207, 207]), (300, [300])]


def test_bes_table_is_walked_from_its_end_by_indexing() -> None:
    # CLA TAB,1 with XR1 = 1..n reads TAB-1 .. TAB-n: the n words of the block.
    image = assemble(" ORG 10\n BES 3\nTAB PZE 77\n")
    assert image.symbols["TAB"] == 13


def test_equ_and_syn_including_forward_references() -> None:
    text = """\
SIZE   EQU LAST-FIRST+1
TWICE  SYN SIZE*2
       ORG 50
FIRST  PZE SIZE
       PZE TWICE
LAST   PZE HERE
HERE   EQU *
"""
    image = assemble(text)
    assert image.symbols["SIZE"] == 3 and image.symbols["TWICE"] == 6 and image.symbols["HERE"] == 53
    assert image.blocks == [(50, [3, 6, 53])]
    assert "    1         " not in image.listing()
    assert "    1  00003" in image.listing()


@pytest.mark.parametrize(
    ("item", "word"),
    [
        ("5", 5),
        ("+5", 5),
        ("-7", 0o400000000007),
        ("-0", 0o400000000000),
        ("34359738367", 0o377777777777),
        ("1.0", 0o201400000000),
        ("2.0", 0o202400000000),
        ("1.", 0o201400000000),
        (".5", 0o200400000000),
        ("-1.5", 0o601600000000),
        ("0.0", 0),
        ("1E2", float_to_word(100.0)),
        ("2.5E-1", float_to_word(0.25)),
        ("1B35", 1),
        ("1B17", 1 << 18),
        ("1B1", 1 << 34),
        (".5B0", 1 << 34),
        ("-.25B2", 0o400000000000 | 1 << 31),
        ("1.5E1B35", 15),
        ("1E1B35", 10),
    ],
)
def test_dec_constants(item: str, word: int) -> None:
    assert words_of(f" DEC {item}") == [word]


def test_dec_floating_point_is_rounded_from_the_exact_decimal_value() -> None:
    (word,) = words_of(" DEC 0.1")
    assert word >> 27 == 0o175  # 0.1 = 0.8 * 2**-3
    assert word & 0o777777777 == round(0.1 * 2**30)


def test_dec_and_oct_lists() -> None:
    assert words_of(" DEC 1,-2,3.0") == [1, 0o400000000002, 0o202600000000]
    assert words_of(" OCT 1,-1,777777777777,+777777777777,400000000000") == [
        1, 0o400000000001, 0o777777777777, 0o777777777777, 0o400000000000
    ]


def test_bcd_words() -> None:
    image = assemble(" ORG 10\nMSG BCD 2HELLO WORLD\n BCD 1AB\n")
    assert bcd.unpack_text(image.blocks[0][1]) == "HELLO WORLD AB    "
    assert image.blocks[0][1][0] == bcd.pack_word("HELLO ")
    assert image.symbols["MSG"] == 10


def test_bcd_free_format_and_lower_case() -> None:
    assert words_of("MSG\tBCD\t1go 704") == [bcd.pack_word("GO 704")]


def test_end_start_and_output_mode() -> None:
    image = assemble(" FUL\n ORG 20\nGO HPR\n END GO\n")
    assert image.start == 20 and image.mode == "FUL"
    assert assemble(" HPR\n").start is None
    assert assemble(" ABS\n HPR\n").mode == "ABS"


# ----------------------------------------------------------------------------------------
# Errors: every kind, with its line number
# ----------------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        (" HPR\n CLX 5\n", 2, "unknown operation 'CLX'"),
        (" HPR\n\n CLA 5,1,2\n", 3, "CLA is a type B instruction and has no decrement"),
        (" TXI 1,2,3,4\n", 1, "TXI takes at most 3 subfields"),
        ("       CHS 1\n", 1, "CHS takes no variable field"),
        (" SLN 5\n", 1, "SLN operand 5 is not 1-4"),
        (" SLN\n", 1, "SLN operand 0 is not 1-4"),
        (" HPR\n CLA NOSUCH\n", 2, "undefined symbol 'NOSUCH'"),
        ("X HPR\nX HPR\n", 2, "symbol 'X' is defined twice (first on line 1)"),
        (" CLA 4096\n", 1, "address 4096 (10000 octal) is outside a 4K memory (0-4095)"),
        (" TRA 40000\n", 1, "address 40000 does not fit in 15 bits"),
        (" TXI 1,1,32768\n", 1, "decrement 32768 does not fit in 15 bits"),
        (" CLA 1,8\n", 1, "tag 8 is not 0-7"),
        (" CLA 1,-1\n", 1, "tag -1 is not 0-7"),
        (" BCD X\n", 1, "bad BCD count 'X'"),
        (" BCD 0ABC\n", 1, "bad BCD count '0'"),
        (" BCD 1AB#\n", 1, "character '#' in BCD text has no BCD code"),
        (" DEC 1.2.3\n", 1, "bad decimal constant '1.2.3'"),
        (" DEC 34359738368\n", 1, "does not fit in 35 bits"),
        (" DEC 1E100\n", 1, "outside the 704's range"),
        (" DEC 1,,2\n", 1, "empty constant"),
        (" DEC\n", 1, "DEC needs at least one constant"),
        (" OCT 8\n", 1, "bad octal constant '8'"),
        (" OCT 1000000000000\n", 1, "does not fit in 36 bits"),
        (" OCT -400000000000\n", 1, "does not fit in 35 bits"),
        ("LOOP\n", 1, "missing operation"),
        (" EQU 5\n", 1, "EQU needs a location symbol"),
        (" ORG LATER\nLATER HPR\n", 1, "undefined symbol 'LATER' (it must be defined before this ORG card)"),
        (" BSS -1\n", 1, "block size -1 is negative"),
        (" ORG 4096\n", 1, "origin 4096 is outside a 4K memory"),
        (" ORG 4095\n PZE\n PZE\n", 3, "location counter runs to 4097"),
        (" ORG 10\n HPR\n ORG 10\n NOP\n", 4, "location 10 (00012 octal) was already assembled by line 2"),
        (" REL\n", 1, "pseudo-operation REL is not supported"),
        ("A+B    HPR\n", 1, "symbol 'A+B' contains '+'"),
        ("1234   HPR\n", 1, "needs at least one character that is not a digit"),
        ("TOOLONG HPR\n", 1, "must have 1-6 characters"),
        ("X EQU Y\nY EQU X\n", 1, "undefined symbol 'Y'"),
        (" END 5000\n", 1, "start address 5000"),
    ],
)
def test_errors(text: str, line: int, message: str) -> None:
    found = problems(text)
    assert any(n == line and message in m for n, m in found), found


def test_memory_size_decides_what_is_in_range() -> None:
    assert one("CLA 8191", memory_size=8192) == isa.encode("CLA", 8191)
    assert one("CLA 32767", memory_size=32) == isa.encode("CLA", 32767)
    assert problems(" CLA 8192\n", 8192) == [
        (1, "address 8192 (20000 octal) is outside a 8K memory (0-8191)")
    ]
    with pytest.raises(ValueError, match="not 4K, 8K or 32K"):
        assemble(" HPR\n", 16384)


def test_every_problem_is_reported_with_its_line_and_text() -> None:
    text = "A HPR\n CLA NOSUCH\nA NOP\n CLX\n CLA 1,9\n"
    with pytest.raises(SapError) as info:
        assemble(text, name="prog.sap")
    err = info.value
    assert [p.line for p in err.problems] == [2, 3, 4, 5]
    assert str(err).splitlines() == [
        "prog.sap: 4 errors",
        "line 2: undefined symbol 'NOSUCH'",
        "     CLA NOSUCH",
        "line 3: symbol 'A' is defined twice (first on line 1)",
        "    A NOP",
        "line 4: unknown operation 'CLX'",
        "     CLX",
        "line 5: tag 9 is not 0-7 (index registers 1, 2, 4 and their sums)",
        "     CLA 1,9",
    ]


# ----------------------------------------------------------------------------------------
# Output: image, deck, CBN, files
# ----------------------------------------------------------------------------------------

def test_image_words_and_load_into() -> None:
    image = assemble(EXAMPLE)
    memory = [0] * 4096
    image.load_into(memory)
    assert memory[100] == image[100] == 0o076200000321
    written: dict[int, int] = {}
    image.load_into(lambda address, word: written.__setitem__(address, word))
    assert written == image.words()


def test_deck_and_cbn_load_the_image() -> None:
    from emu704 import cards

    image = assemble(EXAMPLE)
    deck = image.deck()
    blocks, start = loader.parse_self_loading_deck(deck)
    assert blocks == image.blocks and start == 100
    assert cards.read_cbn(image.cbn()) == deck
    with pytest.raises(sap.DeckError, match="no END card"):
        assemble(" ORG 20\n HPR\n").deck()
    with pytest.raises(sap.DeckError, match="line 3: the END card has no start address"):
        assemble(" ORG 20\n HPR\n END\n").deck()


def test_sample_programs_assemble() -> None:
    paths = list(sap.iter_sources())
    names = {os.path.basename(p) for p in paths}
    assert {"loop.sap", "bitcount.sap", "cards_to_printer.sap"} <= names
    for path in paths:
        image = sap.assemble_file(path, sap.sample_memory(path))
        assert image.start is not None
        image.deck()  # clear of the loader's locations, inside memory


def test_command_line(tmp_path: os.PathLike[str], capsys: pytest.CaptureFixture[str]) -> None:
    source = os.path.join(tmp_path, "prog.sap")
    with open(source, "w") as f:
        f.write(EXAMPLE)
    cbn = os.path.join(tmp_path, "prog.cbn")
    lst = os.path.join(tmp_path, "prog.lst")
    assert sap.main([source, "--cbn", cbn, "--listing", lst]) == 0
    with open(lst) as f:
        assert "SYMBOL TABLE (8 symbols)" in f.read()
    assert os.path.getsize(cbn) == 160 * len(assemble(EXAMPLE).deck())
    with open(source, "w") as f:
        f.write(" CLX\n")
    assert sap.main([source]) == 1
    assert "unknown operation 'CLX'" in capsys.readouterr().err


# ----------------------------------------------------------------------------------------
# The sample programs on the CPU
# ----------------------------------------------------------------------------------------

def _program(name: str) -> sap.Image:
    return sap.assemble_file(os.path.join(os.path.dirname(sap.__file__), "programs", name))


def _machine(image: sap.Image) -> cpu.Machine:
    machine = cpu.Machine(image.memory_size)
    image.load_into(machine.write)
    assert image.start is not None
    machine.ic = image.start
    return machine


def test_loop_program_sums_one_to_ten() -> None:
    image = _program("loop.sap")
    machine = _machine(image)
    assert machine.run(max_instructions=10_000) is cpu.StopReason.HALT
    assert machine.ac_word == 55
    assert machine.read(image.symbols["SUM"]) == 55
    assert machine.ic == image.symbols["DONE"] + 1  # HPR: START continues with the next one


def test_bitcount_program_counts_by_table_look_up() -> None:
    image = _program("bitcount.sap")
    machine = _machine(image)
    assert machine.run(max_instructions=10_000) is cpu.StopReason.HALT
    assert machine.read(image.symbols["COUNT1"]) == bin(0o252525252525).count("1") == 18
    assert machine.read(image.symbols["COUNT2"]) == 35
    assert machine.ac_word == 53


def test_cards_to_printer_program_lists_the_deck() -> None:
    from emu704.devices import CardReader, Printer

    image = _program("cards_to_printer.sap")
    machine = _machine(image)
    reader, printer = CardReader(), Printer()
    machine.attach(reader)
    machine.attach(printer)
    text = ["HELLO 704 CHECKERS 11-15", "", "SECOND CARD (+-*/=$,.)"]
    for line in text:
        reader.queue_text(line)
    reader.signal_end_of_file()
    assert machine.run(max_instructions=100_000) is cpu.StopReason.HALT
    assert machine.ic == image.symbols["DONE"] + 1
    assert printer.lines == text


def test_self_loading_deck_runs_from_load_card() -> None:
    """The CBN deck of cards_to_printer, then two data cards, through LOAD CARD."""
    from emu704 import cards
    from emu704.devices import CardReader, Printer

    image = _program("cards_to_printer.sap")
    machine = cpu.Machine(4096)
    reader, printer = CardReader(), Printer()
    machine.attach(reader)
    machine.attach(printer)
    for card in cards.read_cbn(image.cbn()):
        reader.queue_card(card)
    reader.queue_text("FIRST DATA CARD")
    reader.queue_text("SECOND DATA CARD")
    reader.signal_end_of_file()
    # The LOAD CARD key: RDS 0321, CPY 0, CPY 1, TRA 0 (run here from the top of memory).
    load_key = assemble(" ORG 4000\n RCD\n CPY 0\n CPY 1\n TRA 0\n", 4096)
    load_key.load_into(machine.write)
    machine.ic = 4000
    assert machine.run(max_instructions=200_000) is cpu.StopReason.HALT
    assert machine.ic == image.symbols["DONE"] + 1
    assert printer.lines == ["FIRST DATA CARD", "SECOND DATA CARD"]
    for address, word in image.words().items():
        assert machine.read(address) == word
