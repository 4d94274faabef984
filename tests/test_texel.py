"""Texel tuning: the samples, the scale, the fit and early stopping, the command; the baseline evaluator."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from engine import core, evaluators
from engine.board import Board
from engine.learners import book_data, texel
from engine.pdn import game_results, iter_games
from samuel.cli import main as samuel_main

DATA = Path(__file__).parent / "data"
PDN = DATA / "oca_first60.pdn"


def test_baseline_evaluator_is_the_hand_set_default() -> None:
    """default-2026-11 plays exactly as the default did before tuning: its bench signature is the old
    default's (148292 at depth 7 with the search of 2026-11-26; 135228 with the static-score cut of
    issue 32, 143051 since its margin went to 35, 142530 with ProbCut: the search changed, not the
    weights); texel-2026-11 (the tuned linear default before the network) has the C core's built-in
    weights, and a linear evaluator with them is the built-in one."""
    from engine.bench import signature

    base = evaluators.by_name("default-2026-11")
    assert base.spec.kind == core.EVAL_LINEAR and len(base.spec.weights) == len(evaluators.FEATURE_NAMES)
    assert signature(7, "default-2026-11", hash_mb=16)[0] == 142530
    assert tuple(core.default_weights()) == evaluators.TEXEL_2026_11_WEIGHTS
    default = evaluators.linear([w / core.WEIGHT_ONE for w in core.default_weights()])
    rng = np.random.default_rng(3)
    for _ in range(300):
        board = Board()
        for _ in range(int(rng.integers(0, 60))):
            moves = board.legal_moves
            if not moves:
                break
            board.push(moves[int(rng.integers(len(moves)))])
        assert default.evaluate(board) == evaluators.by_name("texel-2026-11").evaluate(board)
        assert default.evaluate(board) == core.evaluate(board.raw, core.EvalSpec(core.EVAL_DEFAULT))


def test_batch_features_equal_one_at_a_time() -> None:
    positions = book_data.extract(PDN, limit_games=5)
    rows = np.ascontiguousarray(positions.pos.astype(np.uint32))
    out = np.empty((len(rows), len(core.feature_names())), dtype=np.int32)
    core.features_sets(rows, out)
    for i in range(0, len(rows), 7):
        assert out[i].tolist() == core.features(positions.raw(i))
    bad = rows[:1].copy()
    bad[0, 2] = bad[0, 0]  # white men on black men's squares
    with pytest.raises(ValueError, match="position 0"):
        core.features_sets(bad, out)


def test_results_by_game_number() -> None:
    results = game_results(PDN)
    games = list(iter_games(PDN))
    assert len(results) == len(games) and all(results[g.number] == g.result for g in games)


def test_samples_are_quiet_and_scored_for_the_side_to_move() -> None:
    positions = book_data.extract(PDN)
    results = game_results(PDN)
    s = texel.collect(positions, results)
    assert 0 < len(s) < len(positions)
    assert set(np.unique(s.result).tolist()) <= {0.0, 0.5, 1.0}
    quiet = positions.select(~book_data.has_capture(positions.pos.astype(np.uint32)))
    i = 0  # the first quiet position: its result from the side to move's point of view
    black = texel.RESULT_FOR_BLACK[results[int(quiet.game[i])]]
    assert s.result[i] == (black if quiet.pos[i, 4] == 0 else 1 - black)
    assert s.features[i].tolist() == core.features(quiet.raw(i))


def _synthetic(n: int, seed: int) -> tuple[texel.Samples, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.normal(0, 1, (n, 3))
    true_w = np.array([120.0, -40.0, 15.0])
    p = 1 / (1 + np.exp(-0.8 * (x @ true_w) / 100))
    r = (rng.random(n) < p).astype(np.float64)
    return texel.Samples(x, r, np.arange(n)), true_w


def test_scale_and_weights_are_recovered() -> None:
    train, true_w = _synthetic(40000, 1)
    held, _ = _synthetic(20000, 2)
    k = texel.fit_scale(held, true_w)
    assert 0.6 < k < 1.0  # the generating 0.8
    start = np.array([100.0, 0.0, 0.0])
    t = texel.tune(train, held, start, iterations=100)
    assert t.k == pytest.approx(texel.fit_scale(held, start))
    assert min(c[2] for c in t.curve) < t.start_loss[1]
    # K is fixed by the start, so the weights come out in its unit: the direction is what is learned
    w = t.weights / np.linalg.norm(t.weights)
    assert np.allclose(w, true_w / np.linalg.norm(true_w), atol=0.05)
    assert t.curve[t.best_iteration][2] == min(c[2] for c in t.curve)  # early stopping keeps the minimum
    with pytest.raises(ValueError, match="held-out"):
        texel.tune(train, held.select(np.zeros(len(held), dtype=bool)), start)


def test_learn_tune_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "tuned.json"
    assert samuel_main(["learn", "tune", "--pdn", str(PDN), "--out", str(out), "--iterations", "20"]) == 0
    assert out.is_file() and out.with_suffix(".png").is_file()
    data = json.loads(out.read_text())
    assert data["meta"]["learner"] == "texel"
    assert set(data["meta"]["weights"]) == set(evaluators.FEATURE_NAMES)
    ev = evaluators.by_name(str(out))
    assert ev.spec.kind == core.EVAL_LINEAR and "held-out loss" in capsys.readouterr().out
    assert samuel_main(["learn", "tune", "--pdn", str(tmp_path / "none.pdn"), "--out", str(out)]) == 2
    assert "no such PDN file" in capsys.readouterr().err
    assert samuel_main(["learn", "tune", "--pdn", str(PDN), "--out", str(out), "--start", "material"]) == 2


def test_sources_have_their_own_scale_and_weigh_the_same() -> None:
    """Two sources: each gets the K of its own held-out positions, and with ``balance`` repeating
    one source's positions changes nothing (each source is a mean); by positions it does."""
    a_train, _ = _synthetic(6000, 4)
    a_held, _ = _synthetic(3000, 5)
    b_train, _ = _synthetic(6000, 6)
    b_held, _ = _synthetic(3000, 7)
    b_train.features, b_held.features = b_train.features * 0.5, b_held.features * 0.5  # flatter: larger K
    start = np.array([100.0, 0.0, 0.0])
    b3 = texel.Samples.concat([b_train] * 3)
    b3 = texel.Samples(b3.features, b3.result, b3.game)
    once = texel.tune(texel.Samples.concat([a_train, b_train]), texel.Samples.concat([a_held, b_held]), start,
                      iterations=30)
    thrice = texel.tune(texel.Samples.concat([a_train, b3]), texel.Samples.concat([a_held, b_held]), start,
                        iterations=30)
    assert once.scales[0] == pytest.approx(texel.fit_scale(a_held, start))
    assert once.scales[1] == pytest.approx(texel.fit_scale(b_held, start)) and once.scales[1] > once.scales[0]
    assert np.allclose(once.weights, thrice.weights, rtol=1e-4, atol=1e-3)
    assert len(once.held_out_by_source[0]) == 2 and once.balanced
    by_pos = texel.tune(texel.Samples.concat([a_train, b3]), texel.Samples.concat([a_held, b_held]), start,
                        iterations=30, balance=False)
    assert not np.allclose(once.weights, by_pos.weights, rtol=1e-4, atol=1e-3)
