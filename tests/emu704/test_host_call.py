"""emu704.host_call: one C call per routine call, counted as the reference counts it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from emu704.cards import load_cbn
from emu704.cpu import Machine, StopReason
from emu704.devices import CardReader
from emu704.fast import FastMachine, available
from emu704.host_call import CallStatus, HostCall, HostCallError
from emu704.loader import load_card
from emu704.sap import assemble
from emu704.symbols import SymbolFileError, read_symbols, table_of

pytestmark = pytest.mark.skipif(not available(), reason="the C fast path is not built")

# ADD2: OUT = A + B, looping COUNT times to make the work (and the cycles) depend on the input.
SOURCE = """
       ORG 100
ENTRY  TRA ADD2
       TRA STRAY
RETURN HTR ENTRY
ADD2   LXA COUNT,1
LOOP   CLA A
       ADD B
       STO OUT
       TIX LOOP,1,1
       TRA RETURN
STRAY  TRA DATA
A      PZE
B      PZE
COUNT  PZE
OUT    PZE
DATA   DEC 7
       END ENTRY
"""


def _setup() -> tuple[FastMachine, dict[str, int], HostCall]:
    image = assemble(SOURCE, 32768)
    m = FastMachine(32768)
    image.load_into(m.write)
    s = image.symbols
    call = HostCall(m, [s["A"], s["B"], s["COUNT"]], [s["OUT"]], s["RETURN"])
    return m, s, call


def _reference(a: int, b: int, count: int) -> tuple[int, int, int]:
    """(OUT, instructions, cycles) from the Python reference machine."""
    image = assemble(SOURCE, 32768)
    m = Machine(32768)
    image.load_into(m.write)
    s = image.symbols
    m.write(s["A"], a)
    m.write(s["B"], b)
    m.write(s["COUNT"], count)
    m.ic = s["ENTRY"]
    assert m.run() == StopReason.HALT and m.halt_location == s["RETURN"]
    return m.read(s["OUT"]), m.instructions, m.cycles


@pytest.mark.parametrize(("a", "b", "count"), [(1, 2, 1), (1000, 2345, 5), (0, 0, 40)])
def test_a_call_returns_what_the_reference_computes_with_the_same_counts(a: int, b: int, count: int) -> None:
    m, s, call = _setup()
    assert call.call([a, b, count], s["ENTRY"]) == CallStatus.RETURNED
    out, instructions, cycles = _reference(a, b, count)
    assert call.outputs == [out] == [a + b]
    assert (m.instructions, m.cycles) == (instructions, cycles)
    assert m.ic == s["ENTRY"] and m.halt_location == s["RETURN"]  # HTR ENTRY: restart there


def test_many_calls_reuse_the_machine() -> None:
    _m, s, call = _setup()
    for i in range(500):
        assert call.call([i, 3 * i, 1 + i % 4], s["ENTRY"]) == CallStatus.RETURNED
        assert call.outputs == [4 * i]


def test_a_limit_then_resume_equals_one_uninterrupted_call() -> None:
    m, s, call = _setup()
    status = call.call([5, 6, 30], s["ENTRY"], max_cycles=25)
    assert status == CallStatus.LIMIT
    steps = 1
    while (status := call.resume(max_cycles=25)) == CallStatus.LIMIT:
        steps += 1
    assert status == CallStatus.RETURNED and steps > 3
    assert call.outputs == [11]
    assert (m.instructions, m.cycles) == _reference(5, 6, 30)[1:]


def test_running_into_data_is_an_error_that_says_where() -> None:
    _m, s, call = _setup()
    status = call.call([0, 0, 1], s["ENTRY"] + 1)  # the entry that strays into DATA
    assert status == CallStatus.STOPPED
    with pytest.raises(HostCallError, match=f"executed a data word at {s['DATA']:05o}"):
        call.check(status, data_words={s["A"], s["B"], s["COUNT"], s["OUT"], s["DATA"]})
    assert "halted (HTR)" in call.where()  # without the data map: a halt, not the return


def test_asm_writes_a_symbol_file_a_host_can_drive_the_deck_with(tmp_path: Path) -> None:
    src = tmp_path / "add2.sap"
    src.write_text(SOURCE)
    out = subprocess.run([sys.executable, "-m", "samuel", "emu704", "asm", str(src)], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    table = read_symbols(tmp_path / "add2.sym")
    image = assemble(SOURCE, 32768)
    assert table.symbols == image.symbols and table.start == image.start
    assert table.data_words == {image.symbols["DATA"]}  # DEC 7; the PZE words are instructions
    # The deck, loaded by its own loader, called by name.
    m = FastMachine(32768)
    reader = CardReader()
    m.attach(reader)
    reader.queue_deck(load_cbn(tmp_path / "add2.cbn"))
    reader.signal_end_of_file()
    load_card(m)
    assert m.run() == StopReason.HALT  # the loader starts the program at ENTRY: it returns at once
    call = HostCall(m, [table.address(n) for n in ("A", "B", "COUNT")], [table.address("OUT")],
                    table.address("RETURN"))
    assert call.call([20, 22, 1], table.address("ENTRY")) == CallStatus.RETURNED
    assert call.outputs == [42]


def test_bad_symbol_files_are_named_errors(tmp_path: Path) -> None:
    with pytest.raises(SymbolFileError, match="no such symbol file"):
        read_symbols(tmp_path / "missing.sym")
    bad = tmp_path / "bad.sym"
    bad.write_text("{not json")
    with pytest.raises(SymbolFileError, match="not a symbol file"):
        read_symbols(bad)
    bad.write_text('{"format": "emu704-symbols", "version": 1, "memory_words": 32768, "symbols": {"X": -1}}')
    with pytest.raises(SymbolFileError, match="symbol X has an address outside"):
        read_symbols(bad)
    with pytest.raises(SymbolFileError, match="no symbol 'NOPE'"):
        table_of(assemble(SOURCE, 32768)).address("NOPE")
