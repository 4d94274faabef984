"""Region patterns in the piece network's first layer (layout version 4, issue 32): the regions, the
same integers from numpy, the C reference, the packed path and the accumulator, and training."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from test_piece_net import random_rows
from test_piece_net_acc import SHOTS, c_scores, row_of, spec_of, starts

from engine import core, evaluators
from engine.board import Board
from engine.errors import OptionError
from engine.learners import piece_net
from engine.limits import Limit
from engine.search import Searcher
from samuel.cli import main as samuel_main

PDN = Path(__file__).parent / "data" / "oca_first60.pdn"
needs_avx2 = pytest.mark.skipif(not core.piecenet_packed_build(), reason="this build has no AVX2 packed path")


def pattern_data(width: int = 64, seed: int = 1, scale: float = 0.05) -> list[int]:
    p = piece_net.init_params(len(piece_net.PHASE_EDGES) + 1, seed, width, patterns=True)
    p["p1"] = (np.random.default_rng(seed).standard_normal(p["p1"].shape) * scale).astype(np.float32)
    return piece_net.quantize(p, piece_net.phase_table())


def test_the_regions_are_nine_4x4_blocks_closed_under_the_half_turn() -> None:
    windows = piece_net.PATTERN_WINDOWS
    assert len(windows) == 9 and all(len(w) == 8 for w in windows)
    assert windows[0] == (1, 2, 5, 6, 9, 10, 13, 14)  # the top left block: rows 0-3, columns 0-3
    turned = {tuple(sorted(33 - s for s in w)) for w in windows}
    assert turned == set(windows)
    # Every square is in one, two or four regions (corners, edges, centre of the 3x3 grid of blocks).
    counts = np.bincount([s for w in windows for s in w], minlength=33)[1:]
    assert set(counts.tolist()) <= {1, 2, 4} and counts.min() >= 1
    assert piece_net.PATTERN_ROWS == core.PIECENET_PATTERN_ROWS == 9 * 6561


def test_pattern_rows_read_the_side_to_move_s_view() -> None:
    rows = random_rows(500, seed=4)
    got = piece_net.pattern_rows(rows)
    assert got.shape == (500, 9)
    assert np.all((got >= np.arange(9) * 6561) & (got < (np.arange(9) + 1) * 6561))
    # A position and its colour-reversed twin (the board turned, colours swapped, the other side to
    # move) read the same patterns.
    def turn(w: np.ndarray) -> np.ndarray:
        bits = np.unpackbits(w.astype("<u4").view(np.uint8).reshape(-1, 4), axis=1, bitorder="little")
        return np.packbits(bits[:, ::-1], axis=1, bitorder="little").view("<u4").ravel()
    twin = np.stack([turn(rows[:, 2]), turn(rows[:, 3]), turn(rows[:, 0]), turn(rows[:, 1]), 1 - rows[:, 4]],
                    axis=1).astype(np.uint32)
    assert np.array_equal(piece_net.pattern_rows(twin), got)
    # The start position from Black's view: region 0 (squares 1 2 5 6 9 10 13 14) holds six of Black's
    # men and two empty squares, digits read from the lowest square.
    start = np.asarray([row_of(Board())], dtype=np.uint32)
    assert piece_net.pattern_rows(start)[0, 0] == sum(3 ** i for i in range(6))


@pytest.mark.parametrize("width", core.PIECENET_WIDTHS)
def test_every_path_gives_the_numpy_reference(width: int) -> None:
    data = pattern_data(width)
    assert data[0] == core.PIECENET_VERSION_PATTERNS
    assert core.piecenet_check(data) == 0
    assert len(data) == core.PIECENET_HEADER + core.piecenet_size(4, width, patterns=True)
    rows = random_rows(3000, seed=width)
    got = c_scores(data, rows)
    assert np.array_equal(got, piece_net.reference_scores(data, rows))
    # The patterns matter: the same network without them scores otherwise.
    assert got.std() > 10
    if core.piecenet_packed_build():
        assert np.array_equal(c_scores(data, rows, packed=True), got)


def test_the_size_word_counts_the_pattern_table() -> None:
    data = pattern_data()
    assert core.piecenet_check([core.PIECENET_VERSION, *data[1:]]) == -3  # version 3 has no table
    assert core.piecenet_check(data[:-1]) == -3


@needs_avx2
def test_the_accumulator_gives_the_reference_over_random_walks() -> None:
    data = pattern_data(seed=5)
    totals = np.zeros(4, dtype=np.int64)
    for i, start in enumerate(starts()):
        totals += core.piecenet_acc_check(spec_of(data), start, plies=10, branch=2, seed=i + 1)
    nodes, wrong, multi, crowns = totals.tolist()
    assert wrong == 0
    assert nodes > 5000 and multi > 0 and crowns > 0


@needs_avx2
def test_whole_searches_are_the_same_on_every_path() -> None:
    ev = evaluators.Evaluator("net-patterns", spec_of(pattern_data(seed=2)))
    boards = [Board(), *(Board(f) for f in SHOTS)]
    got = {}
    for path in core.PIECENET_PATHS:
        searcher = Searcher(ev, hash_mb=4)
        assert core.piecenet_path(searcher._core, path) == path
        got[path] = [(r.info.nodes, r.info.score.value, str(r.best))
                     for r in (searcher.search(b, Limit(depth=8)) for b in boards)]
    assert got["accumulator"] == got["scratch"] == got["reference"]


def test_the_command_trains_a_network_with_patterns(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "pat.json"
    args = ["learn", "tune", "--model", "net", "--patterns", "--pdn", str(PDN), "--games", "30",
            "--out", str(out), "--epochs", "2", "--batch", "256"]
    assert samuel_main(args) == 0
    ev = evaluators.load(out)
    assert ev.spec.data[0] == core.PIECENET_VERSION_PATTERNS
    assert ev.meta["layers"].startswith("120 + 9 region patterns -> 64 ->")
    params, _ = piece_net.unpack(ev.spec.data)
    assert np.count_nonzero(params["p1"]) > 0  # the table learnt something
    assert "int16 network vs float" in capsys.readouterr().out
    result = Searcher(ev, hash_mb=4).search(Board(), Limit(depth=5))
    assert result.best in Board().legal_moves
    # The checkpoint resumes only a run with patterns: the same file without them trains afresh.
    assert samuel_main([*args, "--checkpoint", str(tmp_path / "pat.ckpt.npz")]) == 0
    plain = [a for a in args if a != "--patterns"]
    assert samuel_main([*plain, "--checkpoint", str(tmp_path / "pat.ckpt.npz")]) == 0
    assert evaluators.load(out).spec.data[0] == core.PIECENET_VERSION


def test_patterns_are_for_the_network_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["learn", "tune", "--pdn", str(PDN), "--out", str(tmp_path / "t.json"), "--patterns"]
    assert samuel_main(args) != 0
    assert "--patterns adds region patterns to the piece network's first layer" in capsys.readouterr().err


def test_a_large_network_is_stored_compressed_and_reads_back_the_same(tmp_path: Path) -> None:
    ev = evaluators.Evaluator("pat", spec_of(pattern_data(seed=7)), {"note": "x"})
    path = tmp_path / "pat.json"
    evaluators.save(ev, path)
    stored = json.loads(path.read_text())
    assert stored["data"] == [] and stored["data_zlib"]
    assert path.stat().st_size < len(json.dumps(list(ev.spec.data))) // 2  # well below a JSON list's size
    back = evaluators.load(path)
    assert back.spec == ev.spec and back.meta == ev.meta
    # A small evaluator keeps its JSON list.
    small = evaluators.by_name("piece-net")
    evaluators.save(small, tmp_path / "small.json")
    assert json.loads((tmp_path / "small.json").read_text())["data"] == list(small.spec.data)


@pytest.mark.parametrize("bad", ["not base64!", "aGVsbG8=", ""])
def test_a_damaged_compressed_table_is_named(tmp_path: Path, bad: str) -> None:
    path = tmp_path / "pat.json"
    evaluators.save(evaluators.Evaluator("pat", spec_of(pattern_data(seed=8))), path)
    stored = json.loads(path.read_text())
    stored["data_zlib"] = bad if bad else stored["data_zlib"][:-40]
    path.write_text(json.dumps(stored))
    named = rf"{path.name}: (not a valid evaluator file|not a usable piece network)"
    with pytest.raises(OptionError, match=named):
        evaluators.load(path)
