"""Training on distinct positions (issue 32): each position once with its means, and a held-out split by
the position, so that no held-out position is one the network was trained on."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine import evaluators
from engine.learners import piece_net
from samuel.cli import main as samuel_main

PDN = Path(__file__).parent / "data" / "oca_first60.pdn"


def test_each_position_once_with_the_means_of_its_occurrences() -> None:
    rows = np.asarray([[1, 0, 2, 0, 0], [3, 0, 4, 0, 1], [1, 0, 2, 0, 0], [1, 0, 2, 0, 1]], dtype=np.uint32)
    data = piece_net.Data(rows, np.asarray([1.0, 0.5, 0.0, 1.0]), np.asarray([7, 8, 9, 10]),
                          np.asarray([10.0, 20.0, 30.0, 40.0]), np.asarray([100.0, 0.0, 300.0, 5.0]))
    got = piece_net.unique_positions(data)
    assert len(got) == 3
    by_row = {tuple(int(v) for v in r): i for i, r in enumerate(got.rows)}
    first = by_row[(1, 0, 2, 0, 0)]  # the two occurrences merge; the other side to move stays apart
    assert got.result[first] == 0.5 and got.linear[first] == 20.0 and got.searched is not None
    assert got.searched[first] == 200.0 and got.game[first] == 7
    assert got.result[by_row[(1, 0, 2, 0, 1)]] == 1.0


def test_the_split_is_by_the_position_and_about_one_in_ten() -> None:
    data = piece_net.load(PDN)
    held = piece_net.held_out_by_position(data.rows)
    assert 0.06 < held.mean() < 0.14
    keys = piece_net.position_keys(data.rows)
    # A position repeated anywhere is on one side of the split only.
    assert not set(keys[held].tolist()) & set(keys[~held].tolist())
    assert np.array_equal(piece_net.held_out_by_position(data.rows[::-1]), held[::-1])


def test_the_command_trains_on_distinct_positions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "d.json"
    assert samuel_main(["learn", "tune", "--model", "net", "--distinct", "--pdn", str(PDN), "--out", str(out),
                        "--epochs", "1", "--batch", "256"]) == 0
    meta = evaluators.load(out).meta
    everything = piece_net.load(PDN)
    distinct = len(np.unique(piece_net.position_keys(everything.rows)))
    assert meta["train_samples"] + meta["held_out_samples"] == distinct < len(everything)
    assert meta["distinct_positions"] is True
    capsys.readouterr()
    linear = ["learn", "tune", "--pdn", str(PDN), "--out", str(tmp_path / "t.json"), "--distinct"]
    assert samuel_main(linear) != 0
    assert "--distinct is for the piece network's training" in capsys.readouterr().err
