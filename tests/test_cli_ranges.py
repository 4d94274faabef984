"""One wording for a value out of range on the command line; --hash-budget bounded by the machine's
memory; ``samuel --version``."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from matches.engines import parse_engine
from matches.timecontrol import TimeControl
from protocol.memory_budget import _meminfo_mb, physical_memory_mb
from samuel.cli import main

REPO = Path(__file__).resolve().parent.parent


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own errors, and --version
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_version_is_the_installed_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["--version"], capsys)
    assert code == 0 and out.strip() == f"samuel {version('samuel')}"
    proc = subprocess.run([sys.executable, "-m", "samuel", "--version"], capture_output=True, text=True,
                          cwd=REPO, timeout=600)
    assert proc.returncode == 0 and proc.stdout.strip() == f"samuel {version('samuel')}"


RANGES = [
    (["perft", "--depth", "65"], "--depth: 65 is out of range (0..64)"),
    (["serve", "--hash", "0"], "--hash: 0 is out of range (1..4096)"),
    (["serve", "--cb-port", "65536"], "--cb-port: 65536 is out of range (0..65535; 0 = any free port)"),
    (["serve", "--max-sessions", "0"], "--max-sessions: 0 is out of range (1 or more)"),
    (["serve", "--idle-timeout", "0"], "--idle-timeout: 0 is out of range (more than 0 seconds, finite)"),
    (["hub", "--book-variety", "101"], "--book-variety: 101 is out of range (0..100)"),
    (["openings", "show", "--top", "-1"], "--top: -1 is out of range (0 or more)"),
    (["match", "--engine", "hash=0", "--engine", "name=b"], "hash=0 is out of range (1..4096)"),
    (["match", "--engine", "name=a", "--engine", "name=b", "--tc", "st=0"],
     "the move time 0 is out of range (more than 0)"),
]


@pytest.mark.parametrize(("argv", "message"), RANGES, ids=[" ".join(a[:3]) for a, _ in RANGES])
def test_range_errors_share_one_wording(argv: list[str], message: str, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    if argv[0] == "match":
        argv = [*argv, "--out", str(tmp_path / "m")]
    code, _, err = run(argv, capsys)
    assert code == 2, err
    assert message in err, err


def test_hash_budget_is_bounded_by_the_machines_memory(capsys: pytest.CaptureFixture[str]) -> None:
    total = physical_memory_mb()
    assert total is not None and total > 0
    for too_big in (str(total + 1), "99999999", str(2**64)):
        code, _, err = run(["serve", "--hash-budget", too_big], capsys)
        assert code == 2
        assert f"--hash-budget: {too_big} is out of range (1..{total} MB, the machine's memory)" in err
    code, _, err = run(["hub", "--hash-budget", "0"], capsys)
    assert code == 2 and "--hash-budget: 0 is out of range" in err
    from samuel.cli import build_parser

    args = build_parser(["serve"]).parse_args(["serve", "--hash-budget", str(total)])
    assert args.hash_budget == total


def test_physical_memory_from_proc_meminfo(tmp_path: Path) -> None:
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemFree:  1000 kB\nMemTotal:       16318480 kB\n")
    assert _meminfo_mb(str(meminfo)) == 16318480 >> 10
    meminfo.write_text("nonsense\n")
    assert _meminfo_mb(str(meminfo)) is None
    assert _meminfo_mb(str(tmp_path / "absent")) is None


def test_engine_tokens_and_time_controls_use_the_same_wording() -> None:
    with pytest.raises(ValueError, match=r"port=0 is out of range \(1\.\.65535\)"):
        parse_engine(["proto=cb", "port=0"])
    with pytest.raises(ValueError, match=r"contempt=101 is out of range \(-100\.\.100\)"):
        parse_engine(["contempt=101"])
    with pytest.raises(ValueError, match=r"depth 0 is out of range \(more than 0\)"):
        TimeControl.parse("depth=0")
    with pytest.raises(ValueError, match=r"timemargin=-1 is out of range \(0 or more\)"):
        TimeControl.parse("timemargin=-1")
