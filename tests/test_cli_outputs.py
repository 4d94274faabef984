"""Output paths are checked before any work: a folder, a missing folder or a file where a folder
should be is an error naming the option and the path (exit 2), and nothing is left behind.

``samuel openings build --out DIR`` named the wrong path, left ``DIR.tmp`` behind and found out only
after the whole build; ``samuel serve --rote DIR`` printed two tracebacks from its search processes
and hid the cause.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from samuel.cli import build_parser, main
from samuel.outputs import OutputPathError, check_output_dir, check_output_file, replacing

REPO = Path(__file__).resolve().parent.parent
PDN = REPO / "tests" / "data" / "book_small.pdn"
SAP = REPO / "emu704" / "programs" / "loop.sap"
SERVE = ["serve", "--dxp-port", "0", "--cb-port", "0"]  # should one start after all: no fixed port


@pytest.fixture
def where(tmp_path: Path) -> Path:
    (tmp_path / "dir").mkdir()
    (tmp_path / "file").write_text("a text file, not a database\n" * 40)
    return tmp_path


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own errors
        code = int(exc.code or 0)
    return code, capsys.readouterr().err


# (argv, the path the message must name, what it must say); {d} a folder, {f} a file,
# {m} a folder that does not exist.
CASES = [
    (["openings", "build", "--pdn", str(PDN), "--out", "{d}"], "{d}", "is a folder, not a file"),
    (["openings", "build", "--pdn", str(PDN), "--out", "{m}/book.bin"], "{m}", "does not exist"),
    (["openings", "build", "--pdn", str(PDN), "--out", "{f}/book.bin"], "{f}", "is not a folder"),
    (["emu704", "asm", str(SAP), "-o", "{d}"], "{d}", "is a folder"),
    (["emu704", "asm", str(SAP), "--listing", "{m}/x.lst"], "{m}", "does not exist"),
    (["learn", "book", "--method", "phase", "--pdn", str(PDN), "--out", "{d}"], "{d}", "is a folder"),
    (["learn", "book", "--method", "phase", "--pdn", str(PDN), "--out", "x.json", "--cache-dir", "{f}"],
     "{f}", "is a file, not a folder"),
    (["learn", "selfplay", "--games", "1", "--out", "{m}/g.pdn"], "{m}", "does not exist"),
    (["learn", "tune", "--pdn", str(PDN), "--out", "{d}"], "{d}", "is a folder"),
    (["learn", "tune", "--pdn", str(PDN), "--out", "{d}/e.json", "--png", "{m}/e.png"], "{m}",
     "does not exist"),
    (["learn", "tune", "--model", "net", "--pdn", str(PDN), "--out", "{d}/e.json", "--checkpoint", "{d}"],
     "{d}", "is a folder"),
    (["learn", "tune", "--pdn", str(PDN), "--out", "{f}/new/e.json"], "{f}", "is a file, not a folder"),
    (["learn", "rote", "play", "--db", "{d}"], "{d}", "is a folder"),
    (["learn", "rote", "book", "--db", "{m}/r.db", "--pdn", str(PDN)], "{m}", "does not exist"),
    (["learn", "rote", "fit", "--pdn", str(PDN), "--out", "{d}"], "{d}", "is a folder"),
    (["learn", "evolve", "--out", "{f}"], "{f}", "is a file, not a folder"),
    (["learn", "generalize", "--games", "1", "--out", "{f}/sub"], "{f}", "is a file, not a folder"),
    (["learn", "generalize", "--games", "1", "--state", "{d}"], "{d}", "is a folder"),
    (["egdb", "build", "--pieces", "2", "--out", "{f}"], "{f}", "is a file, not a folder"),
    (["ratings", "show", "{d}", "--markdown", "{d}"], "{d}", "is a folder"),
    (["ratings", "plot", "{d}", "-o", "{f}/sub/r.png"], "{f}", "is a file, not a folder"),
    (["match", "--engine", "name=a", "--engine", "name=b", "--out", "{f}"], "{f}", "is a file"),
    (["tournament", "--engine", "name=a", "--engine", "name=b", "--out", "{f}/t"], "{f}", "is a file"),
    (["agree", "--pdn", str(PDN), "--cache-dir", "{f}"], "{f}", "is a file, not a folder"),
    ([*SERVE, "--port-file", "{d}"], "{d}", "is a folder"),
    ([*SERVE, "--log", "{m}/serve.log"], "{m}", "does not exist"),
    ([*SERVE, "--search-processes", "0", "--rote", "{d}"], "--rote: {d}", "is a folder"),
    ([*SERVE, "--rote", "{m}/r.db"], "--rote: cannot write {m}/r.db", "does not exist"),
    ([*SERVE, "--rote", "{f}"], "--rote: {f}", "cannot open as a rote store"),
    (["hub", "--log", "{d}"], "{d}", "is a folder"),
    (["hub", "--rote", "{d}"], "--rote: {d}", "is a folder"),
    (["cb", "--log", "{m}/cb.log"], "{m}", "does not exist"),
]


@pytest.mark.parametrize(("argv", "path", "says"), CASES, ids=[" ".join(c[0][:2]) + f" {i}"
                                                            for i, c in enumerate(CASES)])
def test_a_bad_output_path_is_named_before_any_work(argv: list[str], path: str, says: str, where: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    names = {"d": str(where / "dir"), "f": str(where / "file"), "m": str(where / "missing")}
    before = sorted(p.name for p in where.rglob("*"))
    code, err = run([a.format(**names) for a in argv], capsys)
    assert code == 2, err
    assert path.format(**names) in err and says in err, err
    assert "Traceback" not in err
    assert sorted(p.name for p in where.rglob("*")) == before  # nothing made, no .tmp left


def test_openings_build_refuses_a_folder_at_once_and_leaves_no_tmp(
        where: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = run(["openings", "build", "--pdn", str(PDN), "--out", str(where / "dir"), "--quiet"], capsys)
    assert code == 2 and f"argument --out: {where / 'dir'} is a folder, not a file" in err
    assert not (where / "dir.tmp").exists()


def test_openings_build_writes_its_book_with_no_tmp_left(where: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    out = where / "book.bin"
    code, err = run(["openings", "build", "--pdn", str(PDN), "--out", str(out), "--min-games", "1",
                     "--nodes", "0", "--quiet"], capsys)
    assert code == 0, err
    assert out.stat().st_size > 0 and not (where / "book.bin.tmp").exists()


def test_emu704_asm_writes_no_listing_when_its_deck_cannot_be_written(
        where: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = where / "loop.sap"
    shutil.copy(SAP, source)
    (where / "loop.cbn").mkdir()  # the default deck path is a folder
    code, err = run(["emu704", "asm", str(source)], capsys)
    assert code == 2 and f"--output: {where / 'loop.cbn'} is a folder" in err
    assert not (where / "loop.lst").exists()


def test_ratings_plot_checks_its_default_path_before_the_ratings(where: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    (where / "dir" / "ratings.png").mkdir()
    code, err = run(["ratings", "plot", str(where / "dir")], capsys)
    assert code == 2 and f"--out: {where / 'dir' / 'ratings.png'} is a folder" in err


def test_a_port_file_that_cannot_be_written_is_named_and_the_server_stops(
        where: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = where / "gone"
    folder.mkdir()
    port_file = folder / "ports.json"
    args = build_parser(["serve"]).parse_args(["serve", "--dxp-port", "0", "--cb-port", "0", "--hash", "1",
                                               "--search-processes", "0", "--port-file", str(port_file)])
    folder.rmdir()  # after the check at parse time: the write itself fails
    with pytest.raises(OutputPathError, match=f"--port-file: cannot write {port_file} "
                                              r"\(No such file or directory\)"):
        args.func(args)
    assert not port_file.with_name("ports.json.tmp").exists()


def test_the_path_checks(where: Path) -> None:
    assert check_output_file(where / "new.txt", "--out") == where / "new.txt"
    assert check_output_file(where / "file", "--out") == where / "file"  # replaced
    assert check_output_dir(where / "a" / "b", "--out") == where / "a" / "b"  # made with its parents
    assert check_output_dir(where / "dir", "--out") == where / "dir"
    for bad, says in ((where / "dir", "is a folder"), (where / "no" / "x", "does not exist"),
                      (where / "file" / "x", "is not a folder"), (Path(""), "no file name")):
        with pytest.raises(OutputPathError, match=says):
            check_output_file(bad, "--out")
    nested = where / "a" / "b" / "x.json"
    assert check_output_file(nested, "--out", folders=True) == nested
    with pytest.raises(OutputPathError, match="is a file, not a folder"):
        check_output_file(where / "file" / "b" / "x.json", "--out", folders=True)
    for bad, says in ((where / "file", "is a file"), (where / "file" / "x" / "y", "is a file")):
        with pytest.raises(OutputPathError, match=says):
            check_output_dir(bad, "--out")


def test_replacing_leaves_no_tmp_on_failure(where: Path) -> None:
    target = where / "file"
    with pytest.raises(RuntimeError), replacing(target) as tmp:
        tmp.write_text("half")
        raise RuntimeError("cut off")
    assert target.read_text().startswith("a text file") and not (where / "file.tmp").exists()
    with replacing(target) as tmp:
        tmp.write_text("whole")
    assert target.read_text() == "whole" and not (where / "file.tmp").exists()


def test_dxp_connect_checks_its_outputs_first(tmp_path: Path) -> None:
    for args, named in ((["--pdn", str(tmp_path)], "is a folder, not a file"),
                        (["--pdn", str(tmp_path / "missing" / "x.pdn")], "missing"),
                        (["--minutes", "1000"], "1000 is out of range (0..999 minutes")):
        cmd = [sys.executable, "-m", "samuel", "dxp", "connect", "127.0.0.1", "--port", "1", *args]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
        assert r.returncode == 2 and named in r.stderr, (args, r.stderr)
