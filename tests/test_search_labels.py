"""Search scores as training labels: the C batch equals single searches, threads and the cache agree."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine import evaluators
from engine.board import Board
from engine.learners import piece_net, search_labels
from engine.limits import Limit
from engine.search import Searcher
from samuel.cli import main as samuel_main

PDN = Path(__file__).parent / "data" / "oca_first60.pdn"


def some_rows(n: int) -> np.ndarray:
    data = piece_net.load(PDN, limit_games=20)
    return data.rows[:n]


def board_of(row: np.ndarray) -> Board:
    squares = [[s + 1 for s in range(32) if int(w) >> s & 1] for w in row[:4]]
    black = [str(s) for s in squares[0]] + [f"K{s}" for s in squares[1]]
    white = [str(s) for s in squares[2]] + [f"K{s}" for s in squares[3]]
    return Board(f"{'W' if row[4] else 'B'}:W{','.join(white)}:B{','.join(black)}")


def test_a_label_is_the_searchs_score_for_the_side_to_move() -> None:
    ev = evaluators.by_name("default")
    rows = some_rows(40)
    labels = search_labels.label(rows, ev, 3, threads=1)
    assert labels.shape == (40,) and labels.dtype == np.int32
    # The first position of a call is searched from a cleared table, as a fresh searcher does.
    alone = Searcher(ev, hash_mb=16).search(board_of(rows[0]), Limit(depth=3))
    assert labels[0] == alone.info.score.value
    assert np.abs(labels).max() <= 2000
    assert len(set(labels.tolist())) > 5


def test_threads_and_the_cache_give_the_same_labels(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search_labels, "CHUNK", 16)
    ev = evaluators.by_name("texel-2026-11")
    rows = some_rows(100)
    one = search_labels.label(rows, ev, 2, threads=1)
    seen: list[tuple[int, int]] = []
    two = search_labels.label(rows, ev, 2, threads=2, cache_dir=tmp_path,
                              progress=lambda d, t: seen.append((d, t)))
    assert np.array_equal(one, two) and seen[-1] == (100, 100)
    assert len(list(tmp_path.glob("labels-texel-2026-11-d2-*.npy"))) == 1
    seen.clear()
    again = search_labels.label(rows, ev, 2, cache_dir=tmp_path, progress=lambda d, t: seen.append((d, t)))
    assert np.array_equal(one, again) and seen == [(100, 100)]
    with pytest.raises(ValueError, match=r"depth must be 1\.\.64"):
        search_labels.label(rows, ev, 0)


def test_training_with_a_search_teacher(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "net.json"
    args = ["learn", "tune", "--model", "net", "--pdn", str(PDN), "--out", str(out), "--epochs", "1",
            "--batch", "256", "--cache-dir", str(tmp_path / "cache"), "--teacher-eval", "material",
            "--teacher-depth", "2"]
    assert samuel_main(args) == 2
    assert "--teacher F" in capsys.readouterr().err
    assert samuel_main([*args, "--teacher", "0.5"]) == 0
    assert "held-out loss: network" in capsys.readouterr().out
    assert list((tmp_path / "cache").glob("labels-material-d2-*.npy"))
