"""The piece-square network: C equals the numpy reference, antisymmetry, blob checks, training, search."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from engine import core, evaluators, piece_net_layout
from engine.board import Board
from engine.errors import OptionError
from engine.learners import piece_net
from samuel.cli import main as samuel_main

DATA = Path(__file__).parent / "data"
PDN = DATA / "oca_first60.pdn"


def random_rows(n: int, seed: int = 0) -> np.ndarray:
    """Random boards (men anywhere, crown rows included: the net must skip them), either side to move."""
    rng = np.random.default_rng(seed)
    cls = rng.choice(5, size=(n, 32), p=[0.45, 0.2, 0.05, 0.2, 0.1])  # empty, bm, bk, wm, wk
    rows = np.zeros((n, 5), dtype=np.uint32)
    shifts = np.arange(32, dtype=np.uint64)
    for c in range(1, 5):
        rows[:, c - 1] = ((cls == c).astype(np.uint64) << shifts).sum(axis=1).astype(np.uint32)
    rows[:, 4] = rng.integers(0, 2, n)
    return rows


def random_net(seed: int = 1, scale: float = 3.0) -> piece_net.Params:
    p = piece_net.init_params(len(piece_net.PHASE_EDGES) + 1, seed)
    return {k: (v * scale).astype(np.float32) for k, v in p.items()}


def spec_of(data: list[int]) -> core.EvalSpec:
    return core.EvalSpec(core.EVAL_PIECENET, data=tuple(data))


def c_scores(data: list[int], rows: np.ndarray) -> np.ndarray:
    out = np.empty(len(rows), dtype=np.int32)
    core.piecenet_sets(spec_of(data), np.ascontiguousarray(rows), out)
    return out


def colour_reversed(rows: np.ndarray) -> np.ndarray:
    """Each position turned half round with the colours swapped and the other side to move."""
    def rev(w: np.ndarray) -> np.ndarray:
        bits = piece_net._bits(w)[:, ::-1]
        return (bits.astype(np.uint64) << np.arange(32, dtype=np.uint64)).sum(axis=1).astype(np.uint32)

    out = np.empty_like(rows)
    for i, j in ((0, 2), (1, 3), (2, 0), (3, 1)):
        out[:, i] = rev(rows[:, j])
    out[:, 4] = 1 - rows[:, 4]
    return out


def test_c_equals_the_numpy_reference_and_the_float_model() -> None:
    rows = random_rows(5000)
    params = random_net()
    data = piece_net.quantize(params, piece_net.phase_table())
    got = c_scores(data, rows)
    assert np.array_equal(got, piece_net.reference_scores(data, rows))
    assert got.std() > 30  # not a constant
    drift = np.abs(got - 100.0 * piece_net.predict(params, rows, piece_net.phase_table()))
    assert drift.mean() < 1.5 and drift.max() < 8
    # One at a time through ckr_evaluate (clamped, but these are small) agrees with the batch.
    for i in range(0, 500, 7):
        raw = core.RawPosition(*(int(v) for v in rows[i]))
        assert core.evaluate(raw, spec_of(data)) == got[i]


def test_antisymmetric_by_construction() -> None:
    """Black's view of a position is minus Black's view of its colour-reversed twin (the other side to
    move): scores are the side to move's, and the twin's side to move sees the same board."""
    rows = random_rows(3000, seed=5)
    data = piece_net.quantize(random_net(seed=2), piece_net.phase_table())
    a, b = c_scores(data, rows), c_scores(data, colour_reversed(rows))
    assert np.array_equal(a, b)
    black_view = np.where(rows[:, 4] == 0, a, -a)
    twin_black_view = np.where(rows[:, 4] == 1, b, -b)  # the twin's mover is White where ours is Black
    assert np.array_equal(black_view, -twin_black_view)


def test_blob_validation_gives_clear_errors() -> None:
    good = piece_net.quantize(random_net(), piece_net.phase_table())
    assert core.piecenet_check(good) == 0
    assert core.piecenet_size(4) == len(good) - core.PIECENET_HEADER
    assert core.piecenet_size(0) == 0 == core.piecenet_size(core.PIECENET_MAX_PHASES + 1)
    cases = {
        -1: [99, *good[1:]],
        -2: [good[0], 9, *good[2:]],
        -3: good[:-1],
        -4: [*good[:4], 7, *good[5:]],
        -6: [*good[:3], 32, *good[4:]],
        -5: [*good[:-1], 40000],
    }
    for code, words in cases.items():
        assert core.piecenet_check(words) == code
        d = {"name": "bad", "kind": "piecenet", "data": words}
        problem = evaluators.PIECENET_PROBLEMS[code][:10]
        with pytest.raises(OptionError, match="not a usable piece network: " + problem):
            evaluators.from_dict(d, "bad.json")
        with pytest.raises(ValueError, match="not a usable piece network"):
            core.evaluate(Board().raw, spec_of(words))
    assert core.piecenet_check([]) == -1
    with pytest.raises(ValueError, match="int16"):
        big = random_net()
        big["w3"][0, 0] = 200.0
        piece_net.quantize(big, piece_net.phase_table())


def version_1_of(data: list[int]) -> list[int]:
    """The 32-wide layout of version 1 (no width word), from a network whose first-layer nodes 32.. are
    all zero."""
    head, h1, h2, old = core.PIECENET_HEADER, core.PIECENET_H1, core.PIECENET_H2, piece_net_layout.OLD_H1
    phases = data[1]
    body = data[head:]
    w1 = np.asarray(body[:piece_net.INPUTS * h1]).reshape(piece_net.INPUTS, h1)
    at = piece_net.INPUTS * h1
    b1 = body[at:at + h1]
    at += h1
    out = [*w1[:, :old].ravel().tolist(), *b1[:old]]
    for _ in range(phases):
        w2 = np.asarray(body[at:at + h1 * h2]).reshape(h1, h2)
        at += h1 * h2
        out += [*w2[:old].ravel().tolist(), *body[at:at + 2 * h2 + 1]]
        at += 2 * h2 + 1
    return [1, phases, len(out), *data[4:head], *out]


def test_a_version_1_network_is_upgraded_and_scores_the_same() -> None:
    params = random_net(seed=4)
    old = piece_net_layout.OLD_H1
    params["w1"][:, old:] = 0.0
    params["b1"][old:] = 0.0
    params["w2"][:, old:, :] = 0.0
    data = piece_net.quantize(params, piece_net.phase_table())
    v1 = version_1_of(data)
    assert core.piecenet_check(v1) == -1  # the C core reads only today's layout
    assert piece_net_layout.upgrade(v1) == data
    loaded = evaluators.from_dict({"name": "old-net", "kind": "piecenet", "data": v1}, "old.json")
    assert list(loaded.spec.data) == data
    rows = random_rows(2000, seed=9)
    assert np.array_equal(c_scores(list(loaded.spec.data), rows), piece_net.reference_scores(data, rows))
    # Anything else is left for the checker to name.
    assert piece_net_layout.upgrade(v1[:-1]) == v1[:-1]
    with pytest.raises(OptionError, match="not version"):
        evaluators.from_dict({"name": "bad", "kind": "piecenet", "data": v1[:-1]}, "bad.json")


def test_inputs_layout() -> None:
    # Black to move: Black man on 1 and 28 (own men 0, 27), white man on 5 (opp men 28), kings on 32.
    rows = np.array([[(1 << 0) | (1 << 27), 1 << 31, 1 << 4, 0, 0]], dtype=np.uint32)
    x = piece_net.inputs(rows)[0]
    assert sorted(np.flatnonzero(x).tolist()) == [0, 27, 28, 56 + 31]
    # White to move: White's man on 5 is its relative square 28, Black's men on 1 and 28 its 32 and 5,
    # Black's king on 32 its 1.
    rows[0, 4] = 1
    x = piece_net.inputs(rows)[0]
    assert sorted(np.flatnonzero(x).tolist()) == [27, 28 + 5 - 5, 28 + 32 - 5, 88 + 0]


def test_a_tiny_training_run_lowers_the_loss(tmp_path: Path) -> None:
    data = piece_net.load(PDN, limit_games=60)
    held = (data.game % 10) == 0
    assert len(data) > 300
    ckpt = tmp_path / "ckpt.npz"
    train, held_out = data.select(~held), data.select(held)
    t = piece_net.train(train, held_out, epochs=4, batch=128, lr=5e-3, checkpoint=ckpt)
    assert ckpt.is_file() and len(t.curve) == 5
    assert min(c[1] for c in t.curve[1:]) < t.curve[0][1]  # training loss falls
    # A second call with the same configuration resumes: nothing left to do at 4 epochs.
    again = piece_net.train(train, held_out, epochs=4, batch=128, lr=5e-3, checkpoint=ckpt)
    assert again.curve == t.curve and again.best_epoch == t.best_epoch
    more = piece_net.train(train, held_out, epochs=5, batch=128, lr=5e-3, checkpoint=ckpt)
    assert more.curve[:5] == t.curve and len(more.curve) == 6
    ev = piece_net.evaluator(t)
    assert core.piecenet_check(ev.spec.data) == 0 and ev.meta["best_epoch"] == t.best_epoch
    piece_net.plot(t, tmp_path / "curve.png")
    assert (tmp_path / "curve.png").stat().st_size > 1000


def test_usable_in_search_and_as_a_shipped_file(tmp_path: Path) -> None:
    from engine.limits import Limit
    from engine.search import Searcher

    data = piece_net.quantize(random_net(scale=1.0), piece_net.phase_table())
    ev = evaluators.Evaluator("tiny-net", spec_of(data))
    path = tmp_path / "tiny-net.json"
    evaluators.save(ev, path)
    loaded = evaluators.load(path)
    assert loaded.spec == ev.spec
    searcher = Searcher(loaded, hash_mb=4)
    result = searcher.search(Board(), Limit(depth=6))
    assert result.best in Board().legal_moves and result.info.nodes > 0


def test_the_shipped_network_loads_and_searches() -> None:
    ev = evaluators.by_name("piece-net")
    assert ev.spec.kind == core.EVAL_PIECENET and core.piecenet_check(ev.spec.data) == 0
    assert ev.meta["learner"] == "piece_net"
    # A man up is worth something like a man.
    board = Board("B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11")
    assert ev.evaluate(board) < -40


def test_command_trains_writes_and_resumes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "net.json"
    args = ["learn", "tune", "--model", "net", "--pdn", str(PDN), "--out", str(out), "--epochs", "2",
            "--batch", "256"]
    assert samuel_main(args) == 0
    text = capsys.readouterr().out
    assert "held-out loss: network" in text and "int16 network vs float" in text
    d = json.loads(out.read_text())
    assert d["kind"] == "piecenet" and d["meta"]["train_samples"] > 0
    assert out.with_suffix(".png").is_file() and out.with_suffix(".ckpt.npz").is_file()
    assert samuel_main([*args[:-4], "--epochs", "3", "--batch", "256"]) == 0
    assert json.loads(out.read_text())["meta"]["train_samples"] == d["meta"]["train_samples"]


@pytest.mark.skipif(not core.piecenet_packed_build(), reason="this build has no AVX2 packed path")
def test_the_searchs_packed_path_gives_the_reference_integers() -> None:
    rows = np.ascontiguousarray(random_rows(20000, seed=5))
    nets = [piece_net.quantize(random_net(seed=s), piece_net.phase_table()) for s in (2, 3)]
    nets.append(list(evaluators.by_name("piece-net").spec.data))
    for data in nets:
        packed = np.empty(len(rows), dtype=np.int32)
        core.piecenet_sets(spec_of(data), rows, packed, packed=True)
        assert np.array_equal(packed, c_scores(data, rows))
    # A first-layer column whose 24 largest weights could leave int16 is declined, not wrapped.
    wide = list(nets[0])
    for i in range(24):
        wide[core.lib.CKR_PIECENET_HEADER + i * core.PIECENET_H1] = 2000
    with pytest.raises(ValueError, match="cannot take this network"):
        core.piecenet_sets(spec_of(wide), rows[:10], np.empty(10, dtype=np.int32), packed=True)
    # The search falls back to the reference with such a network.
    from engine.limits import Limit
    from engine.search import Searcher

    wide_net = evaluators.Evaluator("wide-net", spec_of(wide))
    result = Searcher(wide_net, hash_mb=4).search(Board(), Limit(depth=5))
    assert result.best in Board().legal_moves and result.info.nodes > 0


def test_trains_on_self_play_games_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    games = tmp_path / "selfplay.pdn"
    assert samuel_main(["learn", "selfplay", "--games", "6", "--out", str(games), "--nodes", "200"]) == 0
    out = tmp_path / "net.json"
    base = ["learn", "tune", "--model", "net", "--out", str(out), "--epochs", "1", "--batch", "256"]
    assert samuel_main([*base, "--pdn", str(PDN)]) == 0
    only_oca = json.loads(out.read_text())["meta"]
    assert samuel_main([*base, "--pdn", str(PDN), "--selfplay", str(games),
                        "--checkpoint", str(tmp_path / "both.ckpt.npz")]) == 0
    both = json.loads(out.read_text())["meta"]
    size = {k: m["train_samples"] + m["held_out_samples"] for k, m in (("oca", only_oca), ("both", both))}
    added = size["both"] - size["oca"]
    assert added > 0 and "selfplay.pdn" in both["source"]
    capsys.readouterr()
    # A file that is not self-play games, or no games at all, is refused with its name.
    assert samuel_main([*base, "--selfplay", str(PDN)]) != 0
    assert "oca_first60.pdn:1: not a samuel self-play game" in capsys.readouterr().err
    assert samuel_main(base) != 0
    assert "give games to train on" in capsys.readouterr().err


def test_switching_networks_leaves_no_cached_scores_behind() -> None:
    """The search caches leaf scores by position; a new network must not see the old one's."""
    from engine.limits import Limit
    from engine.search import Searcher

    first, second = (
        evaluators.Evaluator(f"net-{s}", spec_of(piece_net.quantize(random_net(seed=s, scale=1.0),
                                                                   piece_net.phase_table())))
        for s in (7, 8)
    )
    board = Board()
    switched = Searcher(first, hash_mb=4)
    switched.search(board, Limit(depth=7))
    switched.set_evaluator(second)
    switched.new_game()
    fresh = Searcher(second, hash_mb=4)
    a, b = switched.search(board, Limit(depth=7)), fresh.search(board, Limit(depth=7))
    assert (a.info.nodes, a.info.score, a.best) == (b.info.nodes, b.info.score, b.best)
