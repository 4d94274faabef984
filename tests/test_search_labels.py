"""Search scores as training labels: the C batch equals single searches; the workers, the order chunks
finish in, the cache and a resumed run all give the same labels; bad executors say what is wrong."""

from __future__ import annotations

import dataclasses
import socket
import sys
from pathlib import Path

import numpy as np
import pytest

from engine import evaluators
from engine.board import Board
from engine.errors import OptionError
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
    labels = search_labels.label(rows, ev, 3, workers=1)
    assert labels.shape == (40,) and labels.dtype == np.int32
    # The first position of a call is searched from a cleared table, as a fresh searcher does.
    alone = Searcher(ev, hash_mb=16).search(board_of(rows[0]), Limit(depth=3))
    assert labels[0] == alone.info.score.value
    assert np.abs(labels).max() <= 2000
    assert len(set(labels.tolist())) > 5


def test_workers_and_the_cache_give_the_same_labels(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search_labels, "CHUNK", 16)
    ev = evaluators.by_name("texel-2026-11")
    rows = some_rows(100)
    one = search_labels.label(rows, ev, 2, workers=1)
    seen: list[tuple[int, int]] = []
    two = search_labels.label(rows, ev, 2, workers=2, cache_dir=tmp_path,
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


def test_a_chunk_is_labelled_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each chunk starts from a fresh engine: its labels are the same searched alone, first or after
    others, so neither the number of workers nor the order chunks finish in can change them."""
    monkeypatch.setattr(search_labels, "CHUNK", 16)
    ev = evaluators.by_name("piece-net")
    rows = some_rows(80)
    whole = [search_labels.label(rows, ev, 4, workers=n) for n in (1, 2, 3)]
    assert all(np.array_equal(whole[0], w) for w in whole[1:])
    for start in (0, 16, 64):  # chunks in any order, each from a new engine
        alone = search_labels.label_chunk(rows[start:start + 16], ev.spec, 4)
        assert np.array_equal(alone, whole[0][start:start + 16])


def test_an_interrupted_run_keeps_its_chunks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search_labels, "CHUNK", 16)
    ev = evaluators.by_name("default")
    rows = some_rows(100)  # 7 chunks, the last of 4 positions
    full = search_labels.label(rows, ev, 3, workers=1)

    def stop_after_three(done: int, total: int) -> None:
        if done >= 48:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        search_labels.label(rows, ev, 3, workers=1, cache_dir=tmp_path, progress=stop_after_three)
    [parts] = list(tmp_path.glob("labels-default-d3-*.chunks-16"))
    assert len(list(parts.glob("*.npy"))) == 3 and not list(tmp_path.glob("*.npy"))
    searched: list[int] = []
    real = search_labels.label_chunk

    def counted(part: np.ndarray, spec: object, depth: int) -> np.ndarray:
        searched.append(len(part))
        return real(part, spec, depth)  # type: ignore[arg-type]

    monkeypatch.setattr(search_labels, "label_chunk", counted)
    seen: list[tuple[int, int]] = []
    again = search_labels.label(rows, ev, 3, workers=2, cache_dir=tmp_path,
                                progress=lambda d, t: seen.append((d, t)))
    assert np.array_equal(again, full)
    assert sorted(searched) == [4, 16, 16, 16] and seen[0] == (48, 100) and seen[-1] == (100, 100)
    assert not parts.exists() and len(list(tmp_path.glob("labels-default-d3-*.npy"))) == 1


def test_the_cache_keeps_depths_and_evaluators_apart(tmp_path: Path) -> None:
    rows = some_rows(10)
    ev = evaluators.by_name("texel-2026-11")
    twin = dataclasses.replace(ev, spec=dataclasses.replace(ev.spec, weights=tuple(
        w + 1 for w in ev.spec.weights)))  # the same name, other weights
    files = {search_labels.cache_file(rows, e, d, tmp_path) for e in (ev, twin) for d in (2, 3)}
    assert len(files) == 4


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port  # closed again: nothing answers there


def test_bad_executors_say_what_is_wrong(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine's own pool and the Ray pool the command hands in refuse bad settings by name."""
    from matches.executor import ExecutorError
    from matches.ray_pool import open_ray_pool

    ev = evaluators.by_name("material")
    rows = some_rows(4)
    with pytest.raises(OptionError, match="label workers must be at least 1, got 0"):
        search_labels.label(rows, ev, 2, workers=0)
    port = free_port()
    refused = rf"no Ray cluster answers at 127\.0\.0\.1:{port} \(.*ray start --head"
    with pytest.raises(ExecutorError, match=refused):
        search_labels.label(rows, ev, 2, pool=lambda: open_ray_pool(f"127.0.0.1:{port}", None))
    with pytest.raises(ExecutorError, match="Ray address 'head-node' is not HOST:PORT"):
        search_labels.label(rows, ev, 2, pool=lambda: open_ray_pool("head-node", None))
    with pytest.raises(ExecutorError, match="workers must be at least 1, got 0"):
        open_ray_pool(None, 0)
    monkeypatch.setitem(sys.modules, "ray", None)  # makes `import ray` raise ImportError
    with pytest.raises(ExecutorError, match=r"needs Ray: pip install 'samuel\[ray\]'"):
        search_labels.label(rows, ev, 2, pool=lambda: open_ray_pool(None, 1))


def test_the_command_line_names_a_bad_executor(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["learn", "tune", "--model", "net", "--pdn", str(PDN), "--out", str(tmp_path / "net.json"),
            "--epochs", "1", "--games", "5", "--teacher", "0.5", "--teacher-eval", "material",
            "--teacher-depth", "2"]
    with pytest.raises(SystemExit):
        samuel_main([*args, "--teacher-executor", "dask"])
    assert "--teacher-executor: invalid choice: 'dask'" in capsys.readouterr().err
    port = free_port()
    ray_args = ["--teacher-executor", "ray", "--teacher-ray-address", f"127.0.0.1:{port}"]
    assert samuel_main([*args, *ray_args]) == 2
    assert f"error: no Ray cluster answers at 127.0.0.1:{port}" in capsys.readouterr().err
    assert samuel_main([*args, "--teacher-ray-address", "auto"]) == 2
    assert "--teacher-ray-address needs --teacher-executor ray" in capsys.readouterr().err


def test_a_bad_position_is_found_in_its_chunk(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search_labels, "CHUNK", 16)
    rows = some_rows(40).copy()
    rows[37, 2] |= rows[37, 0]  # a white man on a black man's square
    with pytest.raises(ValueError, match=r"positions 32\.\.39: position 5: a square holds more than one"):
        search_labels.label(rows, evaluators.by_name("material"), 2, workers=2)
