"""The piece network's accumulator and wider first layers (issue 32): every path gives the reference's
integers, in random walks and in whole searches, at every width."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_piece_net import random_rows

from engine import core, evaluators, piece_net_layout
from engine.board import Board
from engine.errors import OptionError
from engine.learners import piece_net
from engine.limits import Limit
from engine.search import Mode, Searcher
from samuel.cli import main as samuel_main

PDN = Path(__file__).parent / "data" / "oca_first60.pdn"
WIDTHS = core.PIECENET_WIDTHS
needs_avx2 = pytest.mark.skipif(not core.piecenet_packed_build(), reason="this build has no AVX2 packed path")

SHOTS = [
    "B:W14,23,29:B9,26,1",  # the double jump 9x18x27, then Black's man on 26 can crown
    "W:W22,6,32:B18,11,3",  # the double jump 22x15x8, then White's man on 6 can crown
    "B:WK10,19,20,28:BK15,K23,12,5",  # kings and men, captures for both sides
]
"""Start positions with captures of several pieces and crowning close at hand."""


def spec_of(data: list[int]) -> core.EvalSpec:
    return core.EvalSpec(core.EVAL_PIECENET, data=tuple(data))


def random_data(width: int, seed: int = 1, scale: float = 3.0) -> list[int]:
    p = piece_net.init_params(len(piece_net.PHASE_EDGES) + 1, seed, width)
    scaled = {k: (v * scale).astype(np.float32) for k, v in p.items()}
    return piece_net.quantize(scaled, piece_net.phase_table())


def row_of(board: Board) -> list[int]:
    raw = board.raw
    return [int(v) for v in (raw.black_men, raw.black_kings, raw.white_men, raw.white_kings, raw.turn)]


def c_scores(data: list[int], rows: np.ndarray, packed: bool = False) -> np.ndarray:
    out = np.empty(len(rows), dtype=np.int32)
    core.piecenet_sets(spec_of(data), np.ascontiguousarray(rows), out, packed=packed)
    return out


# ---- the layout: version 3 names its width ----

@pytest.mark.parametrize("width", WIDTHS)
def test_every_width_scores_as_the_numpy_reference(width: int) -> None:
    data = random_data(width)
    assert data[:4] == [core.PIECENET_VERSION, 4, core.piecenet_size(4, width), width]
    assert core.piecenet_check(data) == 0 and len(data) == core.PIECENET_HEADER + core.piecenet_size(4, width)
    rows = random_rows(4000, seed=width)
    got = c_scores(data, rows)
    assert np.array_equal(got, piece_net.reference_scores(data, rows))
    assert got.std() > 30
    if core.piecenet_packed_build():
        assert np.array_equal(c_scores(data, rows, packed=True), got)


def test_a_width_the_layout_does_not_take_is_named() -> None:
    data = random_data(128)
    assert core.piecenet_size(4, 96) == 0 == core.piecenet_size(4, 512)
    for bad in (0, 96, 512):
        words = [*data[:3], bad, *data[4:]]
        assert core.piecenet_check(words) == -6
        with pytest.raises(OptionError, match=r"first-layer width .* other than 64, 128, 256"):
            evaluators.from_dict({"name": "bad", "kind": "piecenet", "data": words}, "bad.json")
    # The size word must match the width it names.
    assert core.piecenet_check([*data[:3], 64, *data[4:]]) == -3
    with pytest.raises(ValueError, match="first-layer width 96"):
        piece_net.init_params(4, 0, 96)


def test_a_version_2_network_gains_its_width_word_and_scores_the_same() -> None:
    data = random_data(64, seed=6)
    v2 = [2, data[1], data[2], *data[4:]]  # version 2: no width word
    assert core.piecenet_check(v2) == -1
    assert piece_net_layout.upgrade(v2) == data
    loaded = evaluators.from_dict({"name": "v2", "kind": "piecenet", "data": v2}, "v2.json")
    assert list(loaded.spec.data) == data
    # The shipped networks are files of version 2 and still load, as width 64.
    shipped = evaluators.by_name("piece-net")
    assert shipped.spec.data[0] == core.PIECENET_VERSION
    assert piece_net_layout.width_of(shipped.spec.data) == 64


# ---- the accumulator ----

def starts() -> list[list[int]]:
    data = piece_net.load(PDN, limit_games=20)
    picked = data.rows[:: max(1, len(data) // 12)][:12]
    return [row_of(Board())] + [row_of(Board(f)) for f in SHOTS] + [[int(v) for v in r] for r in picked]


@needs_avx2
@pytest.mark.parametrize("width", WIDTHS)
def test_the_accumulator_gives_the_reference_over_random_walks(width: int) -> None:
    nets = [random_data(width, seed=3)]
    if width == 64:
        nets.append(list(evaluators.by_name("piece-net").spec.data))
    totals = np.zeros(4, dtype=np.int64)
    for data in nets:
        for i, start in enumerate(starts()):
            counts = core.piecenet_acc_check(spec_of(data), start, plies=10, branch=2, seed=i + 1)
            totals += counts
    nodes, wrong, multi, crowns = totals.tolist()
    assert wrong == 0
    assert nodes > 5000 and multi > 0 and crowns > 0  # captures of several pieces and crowning were seen


@needs_avx2
def test_the_check_refuses_bad_input() -> None:
    data = random_data(64)
    with pytest.raises(ValueError, match="not a valid start position"):
        core.piecenet_acc_check(spec_of(data), [1, 1, 0, 0, 0], plies=3, branch=1)
    with pytest.raises(ValueError, match="not a valid start position"):
        core.piecenet_acc_check(spec_of(data), row_of(Board()), plies=500, branch=1)


def searched(ev: evaluators.Evaluator, path: str, boards: list[Board], depth: int,
             mode: Mode = Mode.PVS) -> list[tuple[int, int, str]]:
    searcher = Searcher(ev, hash_mb=4, mode=mode)
    assert core.piecenet_path(searcher._core, path) == path
    out = []
    for board in boards:  # one searcher for all, so the stack's slots go stale between roots
        r = searcher.search(board, Limit(depth=depth))
        out.append((r.info.nodes, r.info.score.value, str(r.best)))
    return out


@needs_avx2
@pytest.mark.parametrize("width", WIDTHS)
def test_whole_searches_are_the_same_on_every_path(width: int) -> None:
    """Node counts, scores and moves of the accumulator, the first layer from scratch and the reference."""
    data = list(evaluators.by_name("piece-net").spec.data) if width == 64 else random_data(width, scale=1.0)
    ev = evaluators.Evaluator(f"net-{width}", spec_of(data))
    middle = Board("B:W18,21,22,24,25,26,27,28,30,32:B1,2,3,5,6,9,10,12,14")
    boards = [Board(), *(Board(f) for f in SHOTS), middle]
    depth = 9 if width == 64 else 7
    paths = {path: searched(ev, path, boards, depth) for path in core.PIECENET_PATHS}
    assert paths["accumulator"] == paths["scratch"] == paths["reference"]
    # The other searchers keep the line too (Shannon's type B scores children at every node).
    for mode in (Mode.SHANNON_B, Mode.SAMUEL):
        got = {path: searched(ev, path, boards[:2], 4, mode) for path in ("accumulator", "reference")}
        assert got["accumulator"] == got["reference"]


def test_an_unknown_path_is_named() -> None:
    searcher = Searcher(evaluators.by_name("piece-net"), hash_mb=4)
    with pytest.raises(ValueError, match="unknown piece network path 'fast'"):
        core.piecenet_path(searcher._core, "fast")
    # A network the packed path declines always runs the reference.
    wide = random_data(64)
    for i in range(24):
        wide[core.PIECENET_HEADER + i * 64] = 2000
    declined = Searcher(evaluators.Evaluator("wide", spec_of(wide)), hash_mb=4)
    assert core.piecenet_path(declined._core, "accumulator") == "reference"


# ---- training at any width ----

@pytest.mark.parametrize("width", (128, 256))
def test_the_command_trains_a_wider_network(width: int, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / f"net{width}.json"
    args = ["learn", "tune", "--model", "net", "--pdn", str(PDN), "--games", "30", "--out", str(out),
            "--epochs", "1", "--batch", "256", "--width", str(width)]
    assert samuel_main(args) == 0
    ev = evaluators.load(out)
    assert piece_net_layout.width_of(ev.spec.data) == width
    assert ev.meta["layers"].startswith(f"120 -> {width} ->")
    result = Searcher(ev, hash_mb=4).search(Board(), Limit(depth=5))
    assert result.best in Board().legal_moves
    capsys.readouterr()
    # A checkpoint of another width is not resumed: the same file trains afresh at 64.
    same_checkpoint = str(tmp_path / f"net{width}.ckpt.npz")
    assert samuel_main([*args[:-2], "--width", "64", "--checkpoint", same_checkpoint]) == 0
    assert piece_net_layout.width_of(evaluators.load(out).spec.data) == 64


def test_width_is_for_the_network_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["learn", "tune", "--pdn", str(PDN), "--out", str(tmp_path / "t.json"), "--width", "128"]
    assert samuel_main(args) != 0
    assert "--width sets the piece network's first layer" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        samuel_main([*args[:-2], "--model", "net", "--width", "100"])
    assert "invalid choice: 100" in capsys.readouterr().err


def test_a_wider_network_trains_with_self_play_and_a_search_teacher(tmp_path: Path) -> None:
    """The options the real wider networks are trained with, together: --selfplay, --teacher,
    --teacher-eval and --teacher-depth at width 256."""
    games = tmp_path / "selfplay.pdn"
    assert samuel_main(["learn", "selfplay", "--games", "4", "--out", str(games), "--nodes", "200"]) == 0
    out = tmp_path / "net.json"
    assert samuel_main(["learn", "tune", "--model", "net", "--pdn", str(PDN), "--games", "20",
                        "--selfplay", str(games), "--teacher", "0.5", "--teacher-eval", "default",
                        "--teacher-depth", "2", "--width", "256", "--epochs", "1", "--batch", "256",
                        "--out", str(out), "--cache-dir", str(tmp_path / "cache")]) == 0
    meta = evaluators.load(out).meta
    assert meta["layers"].startswith("120 -> 256 ->") and meta["teacher_source"] == (
        f"search:default={evaluators.DEFAULT_NETWORK}@2")  # the network `default` plays, named
    assert "selfplay.pdn" in meta["source"]
