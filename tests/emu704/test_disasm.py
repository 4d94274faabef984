"""The disassembler (emu704.disasm): words back to SAP cards that reassemble to the same words."""

from __future__ import annotations

import random

import pytest

from emu704 import disasm, isa, sap
from emu704.sap import assemble


def reassemble(words: list[int], memory_size: int = 32768, origin: int = 0) -> list[int]:
    text = disasm.disassemble_blocks([(origin, words)], memory_size=memory_size)
    image = assemble(text, memory_size)
    return [word for _, ws in image.blocks for word in ws]


@pytest.mark.parametrize(
    ("word", "op", "variable"),
    [
        (0o050000000144, "CLA", "100"),
        (0o050000100144, "CLA", "100,1"),
        (0o450000000144, "CAL", "100"),
        (0o000000000000, "HTR", "0"),
        (0o042000000000, "HPR", ""),
        (0o042000000005, "HPR", "5"),
        (0o076100000000, "NOP", ""),
        (0o177777400144, "TXI", "100,4,-1"),
        (0o200001100013, "TIX", "11,1,1"),
        (0o700005000000, "TXL", "0,0,5"),
        (0o100000000000, "TXI", "0"),
        (0o076700000004, "ALS", "4"),
        (0o475400400000, "PXD", "0,4"),
        (0o473400400000, "PDX", "0,4"),
        (0o073400200000, "PAX", "0,2"),
        (0o076000000002, "CHS", ""),
        (0o476000000003, "SSM", ""),
        (0o076000000142, "SLN", "2"),
        (0o476000000144, "SLT", "4"),
        (0o076000000163, "SWT", "3"),
        (0o076000100002, "PSE", "2,1"),  # tagged: the sub-op depends on XR1 at run time
        (0o076000000777, "PSE", "511"),  # no named sub-op
        (0o476000000777, "MSE", "511"),
        (0o076200000321, "RCD", ""),
        (0o076600000361, "WPR", ""),
        (0o076200000223, "RTB", "3"),
        (0o076200100321, "RDS", "209,1"),
        (0o076200000777, "RDS", "511"),
        (0o070000100212, "CPY", "138,1"),
        (0o000100000000, "OCT", "000100000000"),  # +0001 is no 704 op code
        (0o413100000000, "OCT", "413100000000"),  # -0131 neither
        (0o050001000144, "OCT", "050001000144"),  # CLA with bits 12-17 set
        (0o500003200001, "MON", "1,2,3"),  # prefix -1 (the 709's STR): a data word
        (0o577777000000, "MON", "0,0,-1"),
    ],
)
def test_words(word: int, op: str, variable: str) -> None:
    assert disasm.disassemble_word(word) == (op, variable)
    assert reassemble([word]) == [word]


def test_addresses_past_the_memory_size_are_written_negative() -> None:
    assert disasm.disassemble_word(0o050000077777, 4096) == ("CLA", "-1")
    assert disasm.disassemble_word(0o050000077777) == ("CLA", "32767")
    assert disasm.disassemble_word(0o050000010000, 4096) == ("CLA", "-28672")
    assert reassemble([0o050000077777], memory_size=4096) == [0o050000077777]


def test_cards_are_in_fixed_format() -> None:
    lines = disasm.disassemble_words([0o050000100144, 0o177777400144, 0o076000000002], origin=0o144)
    assert lines == [
        "       CLA 100,1               00144 +0500 1 00144",
        "       TXI 100,4,-1            00145 +1 77777 4 00144",
        "       CHS                     00146 +0760 0 00002",
    ]
    for line in lines:
        card = sap.read_card(line, 1)
        assert card.fixed
    assert disasm.format_card("ORG", "100", label="HERE") == "HERE   ORG 100"


def test_random_words_round_trip() -> None:
    rng = random.Random(704)
    words = [rng.getrandbits(36) for _ in range(5000)]
    assert reassemble(words) == words
    assert reassemble(words[:4000], memory_size=4096) == words[:4000]


def test_every_b760_and_select_address_round_trips() -> None:
    words = []
    for sign in (0, 1 << 35):
        for op in (0o760, 0o762, 0o766):
            for tag in (0, 1):
                for address in range(0o1000):
                    words.append(sign | op << 24 | tag << 15 | address)
    assert reassemble(words) == words


def test_disassemble_image_reassembles_to_the_same_program() -> None:
    for path in sap.iter_sources():
        image = sap.assemble_file(path, sap.sample_memory(path))
        text = disasm.disassemble(image)
        again = assemble(text, image.memory_size)
        assert again.blocks == image.blocks, path
        assert again.start == image.start


def test_disassembly_uses_the_table_names() -> None:
    # Every mnemonic the decoder can choose appears in the disassembly of its own word.
    for d in isa.OPCODES.values():
        if d.kind == "DATA":
            continue
        operand = d.operand_range[0] if d.operand_range else 0
        word = isa.encode(d, operand + (5 if d.sub_op is None else 0))
        op, _ = disasm.disassemble_word(word)
        assert op == isa.decode(word).mnemonic


def test_shift_words_past_255_round_trip_as_oct() -> None:
    words = [isa.encode(m, a, t) for m in ("ALS", "ARS", "LLS", "LRS", "LGL", "RQL")
             for a in (255, 256, 300, 0o77777) for t in (0, 1)]
    assert reassemble(words) == words
