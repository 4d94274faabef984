"""samuel emu704 asm / run, end to end through the command line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PROGRAMS = Path(__file__).resolve().parents[2] / "emu704" / "programs"


def samuel(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "samuel", "emu704", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=120)


def test_asm_writes_listing_and_deck(tmp_path: Path) -> None:
    src = tmp_path / "bits8.sap"
    src.write_text((PROGRAMS / "bits8.sap").read_text())
    out = samuel("asm", str(src))
    assert out.returncode == 0, out.stderr
    listing = (tmp_path / "bits8.lst").read_text()
    assert "+0074 4 00153" in listing and "TSX BITS,4" in listing
    assert (tmp_path / "bits8.cbn").stat().st_size % 160 == 0
    run = samuel("run", str(tmp_path / "bits8.cbn"))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "stop     halt" in run.stdout
    assert "AC       +00000000000043" in run.stdout  # 35 ones


def test_run_source_with_cards_prints_them(tmp_path: Path) -> None:
    cards = tmp_path / "cards.txt"
    cards.write_text("HELLO 704 CHECKERS 11-15\nSECOND CARD\n")
    out = samuel("run", str(PROGRAMS / "cards_to_printer.sap"), "--cards", str(cards))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[:2] == ["HELLO 704 CHECKERS 11-15", "SECOND CARD"]
    assert any(line.startswith("count ") and "ms of 704 time" in line for line in lines)


def test_trace_and_cycle_limit() -> None:
    out = samuel("run", str(PROGRAMS / "loop.sap"), "--trace", "--max-instructions", "5")
    assert out.returncode == 1
    traced = [line for line in out.stdout.splitlines() if line[:5].isdigit()]
    assert len(traced) == 5
    assert "instruction limit" in out.stdout


def test_bad_source_names_the_line(tmp_path: Path) -> None:
    src = tmp_path / "bad.sap"
    src.write_text("       ORG 100\n       CLA X\n       FOO 3\nX      DEC 1\n       END\n")
    out = samuel("asm", str(src))
    assert out.returncode == 2
    assert "line 3" in out.stderr and "FOO" in out.stderr


def test_malformed_card_file(tmp_path: Path) -> None:
    deck = tmp_path / "junk.cbn"
    deck.write_bytes(b"\x00" * 100)
    out = samuel("run", str(deck))
    assert out.returncode == 2
    assert "card" in out.stderr.lower()


def test_missing_file_and_bad_switch(tmp_path: Path) -> None:
    out = samuel("run", str(tmp_path / "nope.sap"))
    assert out.returncode == 2 and "no such file" in out.stderr
    out = samuel("run", str(PROGRAMS / "loop.sap"), "--switches", "9")
    assert out.returncode == 2 and "sense switches" in out.stderr


def test_c_backend_gives_the_same_report(tmp_path: Path) -> None:
    cards = tmp_path / "cards.txt"
    cards.write_text("HELLO 704 CHECKERS 11-15\n")
    outs = [samuel("run", str(PROGRAMS / "cards_to_printer.sap"), "--cards", str(cards), "--backend", b)
            for b in ("python", "c")]
    assert outs[0].returncode == outs[1].returncode == 0, outs[1].stderr
    assert outs[0].stdout == outs[1].stdout


BODY = "       ORG {org}\nSTART  CLA X\n       HTR START\nX      DEC 5\n"


def test_a_program_without_start_is_an_error_and_keeps_its_listing(tmp_path: Path) -> None:
    """No END card, END with no address, a program over the loader: named errors (were tracebacks)."""
    cases = {
        "noend": (BODY.format(org=100), "no END card"),
        "nostart": (BODY.format(org=100) + "       END\n", "line 5: the END card has no start address"),
        "overlap": (BODY.format(org=5) + "       END START\n", "overlaps the loader's locations"),
    }
    for name, (text, fragment) in cases.items():
        src = tmp_path / f"{name}.sap"
        src.write_text(text)
        out = samuel("asm", str(src))
        assert out.returncode == 2, out.stderr
        assert fragment in out.stderr and "Traceback" not in out.stderr
        assert (tmp_path / f"{name}.lst").is_file()  # the listing is written all the same
        assert not (tmp_path / f"{name}.cbn").exists()
        if name != "overlap":  # a source is loaded directly by run, so only a missing start stops it
            ran = samuel("run", str(src))
            assert ran.returncode == 2 and fragment in ran.stderr and "Traceback" not in ran.stderr
