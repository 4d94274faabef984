"""samuel analyse: line formatting, PV notation, argument handling, and the real command."""

from __future__ import annotations

import argparse
import dataclasses
import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

from engine import core
from engine.board import Board
from engine.errors import FenError, GameOverError, IllegalMoveError, InvalidMoveError
from engine.limits import Limit
from engine.move import Move
from engine.search import Score, Searcher, SearchInfo, SearchResult
from samuel.commands.analyse import (
    analyse,
    format_bestmove,
    format_info,
    limit_from_args,
    pv_notation,
    require_game_on,
    setup_board,
)

ROOT = Path(__file__).resolve().parents[1]
AMBIGUOUS_FEN = "B:W9,10,11,18,19:BK16"
DEPTH_LINE = re.compile(
    r"^depth +(\d+) +seldepth +\d+ +score +(\S+|(?:win|loss) in \d+) +nodes +\d+ +nps +\d+ "
    r"+time +\d+\.\d{3} +pv( \S+)+$"
)


def info(pv: tuple[Move, ...], score: int = 12) -> SearchInfo:
    return SearchInfo(depth=4, seldepth=9, score=Score(score), nodes=1234, nps=56789, time=0.25, pv=pv)


def test_pv_notation_short_long_and_illegal_tail() -> None:
    board = Board()
    pv = (Move((11, 15)), Move((22, 18)), Move((15, 22), (18,)), Move((1, 5)))
    assert pv_notation(board, pv) == ["11-15", "22-18", "15x22"]  # 1-5 is illegal there: stop
    amb = Board(AMBIGUOUS_FEN)
    jump = amb.parse_move("16x23x14x5")
    assert pv_notation(amb, (jump,)) == ["16x23x14x5"]  # 16x5 would be ambiguous


def test_format_info_and_bestmove() -> None:
    board = Board()
    pv = (Move((11, 15)), Move((22, 18)))
    line = format_info(board, info(pv))
    assert line == (
        "depth  4  seldepth  9  score     +0.12  nodes       1234  nps     56789  time   0.250  "
        "pv 11-15 22-18"
    )
    assert DEPTH_LINE.match(line)
    assert "score  win in 7" in format_info(board, info(pv, score=core.WIN - 7))
    on_704 = dataclasses.replace(info(pv), machine_time=61.5)  # the 704 backend: its machine's time too
    assert "time   0.250  704-time    61.500  pv 11-15 22-18" in format_info(board, on_704)
    result = SearchResult(pv[0], pv[1], info(pv))
    assert format_bestmove(board, result) == "bestmove 11-15 ponder 22-18"
    assert format_bestmove(board, SearchResult(pv[0], None, info(pv[:1]))) == "bestmove 11-15"


def test_setup_board_and_errors() -> None:
    board = setup_board(Board().fen(), "11-15 23-19, 8-11")
    assert len(board.move_stack) == 3
    with pytest.raises(IllegalMoveError, match=r"--moves, move 2: illegal move '11-15'"):
        setup_board(Board().fen(), "11-15 11-15")
    with pytest.raises(InvalidMoveError, match="--moves, move 1"):
        setup_board(Board().fen(), "e2e4")
    with pytest.raises(FenError):
        setup_board("nonsense")
    with pytest.raises(GameOverError, match="game is over: 0-1"):
        require_game_on(Board("B:W18:B"))


def test_limit_from_args() -> None:
    ns = argparse.Namespace(depth=None, nodes=None, movetime=None)
    assert limit_from_args(ns) == Limit(movetime=1.0)
    assert limit_from_args(argparse.Namespace(depth=5, nodes=None, movetime=None)) == Limit(depth=5)
    assert limit_from_args(argparse.Namespace(depth=None, nodes=900, movetime=None)) == Limit(nodes=900)


def test_analyse_writes_one_line_per_depth() -> None:
    out = io.StringIO()
    result = analyse(Board(), Searcher(hash_mb=1), Limit(depth=4), out)
    lines = out.getvalue().splitlines()
    assert [int(DEPTH_LINE.match(x).group(1)) for x in lines[:-1]] == [1, 2, 3, 4]  # type: ignore[union-attr]
    assert result.best is not None
    assert lines[-1].startswith(f"bestmove {Board().notation(result.best)}")


# ---- the real command ----


def samuel(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "samuel", *args], capture_output=True, text=True, cwd=ROOT, timeout=60
    )


def test_analyse_depth_6() -> None:
    proc = samuel("analyse", "--depth", "6")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    depths = []
    for line in lines[:-1]:
        m = DEPTH_LINE.match(line)
        assert m, line
        depths.append(int(m.group(1)))
    assert depths == [1, 2, 3, 4, 5, 6]
    m = re.fullmatch(r"bestmove (\S+) ponder (\S+)", lines[-1])
    assert m, lines[-1]
    board = Board()
    board.push_pdn(m.group(1))
    board.push_pdn(m.group(2))


def test_analyse_after_moves_with_other_engine_options() -> None:
    proc = samuel("analyse", "--moves", "11-15 22-18", "--nodes", "5000", "--eval", "material",
                  "--mode", "pvs")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1].startswith("bestmove 15x22")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--fen", "X:W1:B2"], "FEN must start with the side to move"),
        (["--moves", "11-15 11-15"], "illegal move '11-15'"),
        (["--fen", "B:W18:B"], "the game is over"),
        (["--depth", "0"], "0 is out of range (1 or more)"),
        (["--depth", "3", "--nodes", "100"], "not allowed with argument"),
    ],
)
def test_analyse_errors_exit_2(args: list[str], message: str) -> None:
    proc = samuel("analyse", *args)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    if message not in ("not allowed with argument", "0 is out of range (1 or more)"):  # argparse adds usage
        assert len(proc.stderr.strip().splitlines()) == 1  # one clear line
