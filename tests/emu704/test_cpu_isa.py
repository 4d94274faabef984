"""emu704.isa: the single instruction table, encode/decode, and its link to the executor."""

from __future__ import annotations

import csv

import pytest
from shared_data import OPCODES_CSV

from emu704 import cpu, isa
from emu704.isa import OPCODES, decode, decode_data, encode
from emu704.word import SIGN

REFERENCE_CSV = OPCODES_CSV


def test_table_has_unique_mnemonics_and_known_kinds() -> None:
    assert all(d.kind in isa.KINDS for d in OPCODES.values())
    assert all(mn == d.mnemonic for mn, d in OPCODES.items())
    assert all(d.legal_704 for d in OPCODES.values())


def test_table_matches_reference_csv() -> None:
    with REFERENCE_CSV.open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 96
    for row in rows:
        d = OPCODES[row["mnemonic"]]
        octal = row["octal"]
        sign = 1 if octal.startswith("-") else 0
        assert d.sign == sign, row
        if row["type"] == "A":
            assert d.opcode == int(octal), row
        else:
            base, _, sub = octal[1:].partition("/")
            assert d.op == int(base, 8), row
            if sub and "+" not in sub:
                assert d.sub_op == int(sub, 8), row
        assert d.cycles == row["cycles"], row
        assert d.indexed == (row["address_indexed"] == "y"), row


def test_every_executable_entry_has_semantics() -> None:
    executable = {mn for mn, d in OPCODES.items() if d.kind in ("A", "B", "B760", "IO")}
    assert executable == set(cpu._HANDLERS)


@pytest.mark.parametrize("mnemonic", sorted(OPCODES))
def test_every_opcode_round_trips_through_encode_and_decode(mnemonic: str) -> None:
    d = OPCODES[mnemonic]
    operand = d.operand_range[0] if d.operand_added and d.operand_range else 0
    if d.sub_op is None and d.kind != "DATA":
        operand = 0o1234
    w = encode(d, operand, 0, 0o5 if d.kind in ("A", "DATA") else 0)
    got = decode_data(w) if d.kind == "DATA" else decode(w)
    assert got.opdef is not None
    assert encode(got.opdef, got.operand, got.tag, got.decrement) == w
    if d.kind == "DATA":
        assert got.opdef.prefix == d.prefix
    else:
        assert got.opdef.executes_as == d.executes_as or got.opdef.code == d.code


def test_signed_opcode_conventions() -> None:
    assert OPCODES["CLA"].opcode == 0o500 and OPCODES["CLA"].code == 0o0500
    assert OPCODES["CAL"].opcode == -0o500 and OPCODES["CAL"].code == 0o4500
    assert OPCODES["TXI"].opcode == 1 and OPCODES["TXI"].code == 0o1000
    assert OPCODES["TXL"].opcode == -3 and OPCODES["TXL"].prefix == 0o7
    assert OPCODES["MZE"].prefix == 0o4 and OPCODES["MZE"].code == 0o4000


def test_encode_type_b_layout() -> None:
    assert encode("CLA", 0o1234, 4) == 0o050000401234
    assert encode("CAL", 0o1234) == 0o450000001234


def test_encode_type_a_layout() -> None:
    assert encode("TXI", 0o1234, 4, 0o5) == 0o100005401234
    assert encode("TNX", 0o1234, 1, -1) == 0o677777101234


def test_encode_b760_named_and_operand_added() -> None:
    assert encode("CHS") == 0o076000000002
    assert encode("SSM") == SIGN | 0o076000000003
    assert encode("SLN", 2) == 0o076000000142
    assert encode("SLT", 4) == SIGN | 0o076000000144
    assert encode("SWT", 1) == 0o076000000161


def test_encode_sap_io_aliases() -> None:
    assert encode("RCD") == encode("RDS", 0o321)
    assert encode("WPR") == encode("WRS", 0o361)
    assert encode("WPU") == encode("WRS", 0o341)
    assert encode("RTB", 1) == encode("RDS", 0o221)
    assert encode("WTD", 3) == encode("WRS", 0o203)


def test_encode_rejects_address_on_fixed_sub_op() -> None:
    with pytest.raises(ValueError, match="takes no address"):
        encode("CHS", 5)


def test_encode_rejects_decrement_on_type_b() -> None:
    with pytest.raises(ValueError, match="no decrement"):
        encode("CLA", 1, 0, 1)


def test_decode_picks_b760_sub_op() -> None:
    assert decode(0o076000000002).mnemonic == "CHS"
    d = decode(0o076000000142)
    assert (d.mnemonic, d.operand) == ("SLN", 2)


def test_decode_b760_with_tag_stays_raw() -> None:
    assert decode(encode("PSE", 0o3, 1)).mnemonic == "PSE"


def test_decode_unnamed_sense_address_is_pse() -> None:
    assert decode(encode("PSE", 0o500)).mnemonic == "PSE"


def test_decode_select_prefers_sap_alias() -> None:
    assert decode(encode("RDS", 0o321)).mnemonic == "RCD"
    d = decode(encode("RDS", 0o222))
    assert (d.mnemonic, d.operand) == ("RTB", 2)
    assert decode(encode("RDS", 0o321, 1)).mnemonic == "RDS"


def test_decode_type_a_fields() -> None:
    d = decode(0o377777401234)  # TXH 1234,4,77777
    assert (d.mnemonic, d.address, d.tag, d.decrement) == ("TXH", 0o1234, 4, 0o77777)


def test_decode_illegal_codes_give_none() -> None:
    assert decode(0o013100000000).opdef is None  # XCA
    assert decode(0o500000000000).opdef is None  # STR (prefix -1)
    assert decode(0o400000000000).opdef is None  # -0000


def test_decode_data_names_prefix() -> None:
    assert decode_data(0o400000000005).mnemonic == "MZE"
    assert decode_data(0o000000000005).mnemonic == "PZE"


def test_tables_for_executor() -> None:
    assert isa.type_b_table()[0o0500].mnemonic == "CLA"
    assert isa.type_b_table()[0o0760].mnemonic == "PSE"
    assert isa.type_a_table()[0o6].mnemonic == "TNX"
    assert isa.b760_table(1)[0o143].mnemonic == "SLT"
    assert isa.b760_table(0)[0o140].mnemonic == "SLF"
    assert isa.b760_table(0)[0o360].mnemonic == "SPT"
