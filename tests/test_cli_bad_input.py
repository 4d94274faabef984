"""Bad command-line input is an error that names the problem (exit 2), never a traceback.

Each case here gave a traceback, exit 1 or a silent success before (issue: server
robustness, items 9 and 10).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.board import Board
from engine.errors import FenError, LimitError
from engine.limits import MAX_DEPTH, Limit
from engine.options import OptionValues
from protocol import cb_grammar as g
from samuel import progress as progress_module
from samuel.cli import main

REPO = Path(__file__).resolve().parent.parent
HANG = 600.0
"""Seconds for anything that must succeed: only a hang gets there (a busy machine must not fail a test)."""
START = Board().fen()


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "binary.sap").write_bytes(bytes(range(256)) * 4)
    (tmp_path / "dir").mkdir()
    return tmp_path


BAD = [
    (["perft", "--depth", "2147483648"], "--depth: 2147483648 is out of range (0..64)"),
    (["perft", "--depth", "-1"], "--depth: -1 is out of range (0..64)"),
    (["analyse", "--depth", "2147483648"], "Limit.depth: 2147483648 is out of range (1..10000)"),
    (["analyse", "--nodes", "18446744073709551616"], "Limit.nodes: 18446744073709551616 is out of range"),
    (["analyse", "--movetime", "1e300"], "Limit.movetime: 1e+300 is out of range"),
    (["analyse", "--hash", "2147483648"], "--hash: 2147483648 is out of range (1..4096)"),
    (["play", "--hash", "0"], "--hash: 0 is out of range (1..4096)"),
    (["pdn", "check", "{dir}"], "is a directory"),
    (["pdn", "show", "--game", "0", "{dir}"], "--game: 0 is out of range (1 or more)"),
    (["emu704", "asm", "{dir}"], "is a directory"),
    (["emu704", "asm", "{binary}"], "not a text file"),
    (["emu704", "run", "--max-cycles", "-1", "{binary}"], "--max-cycles: -1 is out of range (1 or more)"),
    (["learn", "rote", "forget", "--db", "{typo}"], "no rote memory at"),
    (["match", "--engine", "name=a", "--engine", "name=b", "--openings", "{missing}"], "no openings file"),
    (["bench", "--hash", "5000000"], "--hash: 5000000 is out of range (1..4096)"),
    (["bench", "--perft-depth", "2147483648"], "--perft-depth: 2147483648 is out of range (0..64)"),
    (["bench", "--quick", "--depth", "2147483648"], "Limit.depth: 2147483648 is out of range (1..10000)"),
    (["bench", "--think", "1e300"], "Limit.movetime: 1e+300 is out of range"),
    (["analyse", "--eval", "nosuch"], "unknown evaluator 'nosuch'"),
]


@pytest.mark.parametrize(("argv", "fragment"), BAD, ids=[" ".join(a[:3]) for a, _ in BAD])
def test_bad_input_exits_2_with_a_message(argv: list[str], fragment: str, files: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    names = {"dir": files / "dir", "binary": files / "binary.sap", "typo": files / "typo.db",
             "missing": files / "missing.pdn"}
    args = [a.format(**{k: str(v) for k, v in names.items()}) for a in argv]
    try:
        code = main(args)
    except SystemExit as exc:  # argparse's own errors
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2, err
    assert fragment in err
    assert "Traceback" not in err and "None" not in err.split("error:")[-1]
    assert not (files / "typo.db").exists()  # forget on a typo creates nothing


def test_limit_refuses_what_the_core_cannot_hold() -> None:
    for kw in ({"depth": MAX_DEPTH + 1}, {"depth": 0}, {"nodes": 2**63}, {"movetime": float("nan")},
               {"movetime": 1e300}, {"time": float("inf")}, {"inc": -1.0}, {"depth": 2.5},
               {"moves_to_go": 0}):
        with pytest.raises(LimitError):
            Limit(**kw)  # type: ignore[arg-type]
    assert Limit(depth=MAX_DEPTH, nodes=2**63 - 1, movetime=1e7).depth == MAX_DEPTH


def test_more_than_twelve_pieces_a_side_is_refused() -> None:
    with pytest.raises(FenError, match="Black has 13 pieces"):
        Board("B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12,13")
    with pytest.raises(FenError, match="White has 13 pieces"):
        Board("W:W20,21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3")
    assert Board("B:W21,22,23,24,25,26,27,28,29,30,31,K32:B1,2,3,4,5,6,7,8,9,10,11,12")


def test_cb_getmove_with_a_huge_depth_is_an_error_line_and_the_session_goes_on() -> None:
    from serving import CaptureWriter

    from protocol.cb_session import run_cb
    from protocol.context import ServerSettings
    from protocol.framing import stream_limit
    from protocol.session_engine import SessionDefaults

    async def main_() -> None:
        reader = asyncio.StreamReader(limit=stream_limit(4096))
        out = CaptureWriter()
        task = asyncio.create_task(run_cb(reader, out, ServerSettings(
            defaults=SessionDefaults(options=OptionValues(hash=1)))))
        reader.feed_data(f"getmove fen={START} depth=2147483648\nping\n".encode())
        first = await asyncio.wait_for(out.lines.get(), HANG)
        assert first.startswith("error") and "is out of range (1..10000)" in first
        assert await asyncio.wait_for(out.lines.get(), HANG) == g.PONG
        reader.feed_eof()
        await asyncio.wait_for(task, HANG)

    asyncio.run(main_())


def test_help_loads_no_command() -> None:
    code = ("import sys\nfrom samuel.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "heavy = [m for m in ('numpy', 'matplotlib', 'rich', 'engine.search', 'engine.core', 'matches',"
            " 'protocol.server', 'emu704.cpu') if m in sys.modules]\n"
            "print('HEAVY', heavy, len(sys.modules), file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO,
                          timeout=HANG)
    assert "perft" in proc.stdout and "tournament" in proc.stdout  # every command listed
    assert "HEAVY []" in proc.stderr, proc.stderr


def test_a_command_still_gets_its_whole_parser(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["perft", "--depth", "2"]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1] == "49"


def test_progress_off_a_terminal_is_plain_lines(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    with log.open("w") as stream:
        bar = progress_module.progress(stream=stream)
        with bar:
            assert isinstance(bar, progress_module.PlainProgress)
            task = bar.add_task("games", total=4, status="")
            bar.update(task, advance=1, status="first")  # within the interval: no line yet
            bar._interval = 0.0  # every update a line from now on
            bar.update(task, advance=1, status="second")
            bar.update(task, completed=4, status="done")
            bar.update(task, completed=4, status="done")  # a finished task prints once
    lines = log.read_text().splitlines()
    assert len(lines) == 2
    assert "games: 2/4 (50%)  second" in lines[0] and "games: 4/4 (100%)  done" in lines[1]


def test_pdn_check_piped_shows_progress_lines(tmp_path: Path) -> None:
    sample = REPO / "tests" / "data" / "oca_first60.pdn"
    env = {**os.environ, "SAMUEL_PROGRESS_INTERVAL": "0"}
    proc = subprocess.run([sys.executable, "-m", "samuel", "pdn", "check", str(sample)],
                          capture_output=True, text=True, cwd=REPO, timeout=HANG, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "pdn check: " in proc.stderr  # a line even though stderr is a pipe


def test_play_exits_130_on_ctrl_c(monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    def interrupted(_prompt: str = "") -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr("builtins.input", interrupted)
    assert main(["play", "--hash", "1"]) == 130
    captured = capsys.readouterr()
    assert "interrupted" in captured.err and "Traceback" not in captured.err


def test_cb_getmove_names_the_nodes_bound() -> None:
    from protocol.errors import ProtocolError

    with pytest.raises(ProtocolError, match=r"Limit.nodes: \d+ is out of range \(1..9223372036854775807\)"):
        g.parse_command(f"getmove fen={START} nodes=18446744073709551616")


LIGHT = ("perft", "bench", "analyse", "pdn", "emu704", "agree", "match", "tournament")


def _loaded_by(argv: str) -> list[str]:
    code = ("import sys\nfrom samuel.cli import build_parser\n"
            f"build_parser({argv})\n"
            "heavy = ('numpy', 'matplotlib', 'rich', 'emu704.cpu', 'engine.core', 'engine.search')\n"
            "loaded = [m for m in heavy if m in sys.modules]\n"
            "loaded += sorted(m for m in sys.modules\n"
            "                 if m.startswith('matches.') and m != 'matches.defaults')\n"
            "print(' '.join(loaded))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO,
                          timeout=HANG)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.split()


def test_building_the_whole_parser_loads_no_numpy_rich_matches_or_emulator() -> None:
    # serve's module (not in this change) still loads the engine through the protocol package.
    loaded = _loaded_by("")
    assert not set(loaded) - {"engine.core", "engine.search"}, loaded


@pytest.mark.parametrize("name", LIGHT)
def test_building_a_command_parser_loads_no_engine(name: str) -> None:
    assert _loaded_by(repr([name])) == []


def test_constants_repeated_for_a_light_parser_match_their_source() -> None:
    from engine import options
    from engine.learners import book_data
    from engine.search import Mode
    from samuel.commands import agree

    assert agree.SPLITS == book_data.SPLITS
    assert tuple(m.text for m in Mode) == options.MODES  # the option table's, light to import


def test_eval_help_still_lists_the_evaluators(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["analyse", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "evaluator: material, default" in out and "(default: default)" in out


def test_play_exits_130_on_ctrl_c_during_a_search(monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    def interrupted(*_args: object, **_kw: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("engine.runner.SearchRun.wait", interrupted)
    monkeypatch.setattr("builtins.input", lambda _prompt="": "quit")
    assert main(["play", "--color", "white", "--hash", "1"]) == 130  # the engine (Black) moves first
    err = capsys.readouterr().err
    assert "interrupted" in err and "Traceback" not in err


def test_ctrl_c_in_any_command_is_130_with_a_word(monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    import samuel.commands.perft as perft

    def interrupted(_args: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(perft, "run", interrupted)
    assert main(["perft", "--depth", "1"]) == 130
    assert capsys.readouterr().err.strip() == "samuel perft: interrupted"
