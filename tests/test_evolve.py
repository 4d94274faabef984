"""Chellapilla and Fogel's network in the C core, their search mode, and the evolution."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from engine import core, evaluators
from engine.bench import random_positions
from engine.board import Board
from engine.errors import OptionError
from engine.learners.evolve import Evolution, EvolveConfig, mutate
from engine.learners.network import Network, size, subsquares
from engine.limits import Limit
from engine.search import Mode, Searcher
from samuel.cli import main


@pytest.mark.parametrize("preset", ["blondie", "spatial"])
def test_the_c_network_equals_the_reference(preset: str) -> None:
    net = Network.random(preset, np.random.default_rng(7), scale=0.6)
    net.king = 2.41
    ev = net.evaluator()
    for board in random_positions(40, 8, max_plies=70):
        for side in (0, 1):
            c_value = core.network_output(board.raw, ev.spec, side)
            assert c_value == pytest.approx(net.output(board, side), abs=1e-5)
        value = ev.evaluate(board)  # the plain evaluator: for the side to move
        assert value == round(core.NETWORK_SCALE * core.network_output(board.raw, ev.spec, board.turn))


def test_sizes_and_sub_squares() -> None:
    assert size("blondie") == 1741 and size("spatial") == 5046
    subs = subsquares()
    assert len(subs) == 91 and sum(len(s) for s in subs) == 854
    assert [len(s) for s in subs].count(32) == 1 and len(subs[0]) in (4, 5)


def test_a_bad_network_file_is_refused_with_a_reason(tmp_path: Path) -> None:
    net = Network.random("blondie", np.random.default_rng(1))
    good = evaluators.to_dict(net.evaluator("net"))
    cases = {
        "wrong number of weights": {**good, "data": good["data"][:-1]},
        "not a finite number": {**good, "data": [*good["data"][:10], 0x7FC00000, *good["data"][11:]]},
        "king value K outside": {**good, "data": [*good["data"][:3], int(np.float32(3.5).view(np.int32)),
                                                  *good["data"][4:]]},
        "unknown preset": {**good, "data": [good["data"][0], 7, *good["data"][2:]]},
    }
    for reason, doc in cases.items():
        path = tmp_path / "bad.json"
        path.write_text(json.dumps(doc))
        with pytest.raises(OptionError, match=reason):
            evaluators.load(path)
    with pytest.raises(OptionError, match="1741 weights"):
        Network("blondie", np.zeros(10))
    with pytest.raises(OptionError, match="not a finite number"):
        Network("blondie", np.full(1741, np.nan))
    with pytest.raises(OptionError, match="unknown network preset"):
        Network.random("conv", np.random.default_rng(1))
    assert Network.from_evaluator(net.evaluator()).weights == pytest.approx(net.weights, abs=1e-6)


def _reference(board: Board, ev: evaluators.Evaluator, depth: int, root: int, ply: int = 0,
               forced: int = 0, active: int = 0, alpha: int = -32000, beta: int = 32000) -> int:
    """Their search as csrc/search.c reads it, written again: fail-soft alpha-beta, the root side's
    forced moves extending by even steps (at most 4 plies), jumps at the horizon played out."""
    moves = board.legal_moves
    if not moves:
        return -30000 + ply
    if len(moves) == 1 and board.turn == root:
        forced += 1
    depth_here = depth + min(2 * ((forced + 1) // 2) + active, 4)
    if ply >= depth_here:
        if not moves[0].is_capture:
            v = round(core.NETWORK_SCALE * core.network_output(board.raw, ev.spec, root))
            return v if board.turn == root else -v
        active += 2
    best = -32000
    for m in moves:
        board.push(m)
        v = -_reference(board, ev, depth, root, ply + 1, forced, active, -beta, -alpha)
        board.pop()
        if v > best:
            best = v
            if v > alpha:
                alpha = v
                if v >= beta:
                    break
    return best


def test_their_search_equals_a_reference_written_from_the_rules() -> None:
    net = Network.random("blondie", np.random.default_rng(3), scale=0.5)
    ev = net.evaluator()
    searcher = Searcher(ev, mode=Mode.FOGEL, hash_mb=1)
    for i, board in enumerate(random_positions(30, 4, max_plies=70)):
        depth = 2 + i % 2
        found = searcher.search(board, Limit(depth=depth))
        assert found.info.score.value == _reference(board.copy(), ev, depth, board.turn), board.fen()
        assert board.is_legal(found.best)


def test_mutation_follows_the_paper() -> None:
    rng = np.random.default_rng(5)
    parent = Network.random("blondie", rng)
    cfg = EvolveConfig()
    assert cfg.tau == pytest.approx(0.1095, abs=1e-4)
    kings = []
    for _ in range(200):
        child = mutate(parent, rng, cfg.tau)
        assert 1.0 <= child.king <= 3.0 and child.sigma is not None
        kings.append(child.king)
    ratio = np.log(child.sigma / parent.sigma)
    assert ratio.std() == pytest.approx(cfg.tau, rel=0.1)  # sigma' = sigma exp(tau N(0,1))
    # K' = K exp(N(0,1)/sqrt 2) from K = 2, reset to the limit it passed: both limits are met often
    assert 0.15 < kings.count(3.0) / len(kings) < 0.45 and 0.05 < kings.count(1.0) / len(kings) < 0.3


SMALL = EvolveConfig(parents=3, games=1, depth=1, max_moves=12, seed=11)


def test_a_run_is_deterministic_and_resumes_exactly(tmp_path: Path) -> None:
    straight = Evolution.start(SMALL)
    straight.step()
    straight.step()
    split = Evolution.start(SMALL)
    split.step()
    split.save(tmp_path / "run")
    resumed = Evolution.load(tmp_path / "run")
    resumed.step()
    assert [e.best for e in resumed.log] == [e.best for e in straight.log]
    for a, b in zip(resumed.parents, straight.parents, strict=True):
        assert np.array_equal(a.weights, b.weights) and a.king == b.king
    assert resumed.rng.bit_generator.state == straight.rng.bit_generator.state


def test_a_modern_generation_uses_ballot_pairs_and_a_hall_of_fame() -> None:
    run = Evolution.start(EvolveConfig(preset="modern", parents=3, games=1, depth=1, max_moves=10, seed=2))
    pairs = run.pairings(6, ["B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"])
    assert len(pairs) == 12
    reversed_pairs = zip(pairs[::2], pairs[1::2], strict=True)
    assert all(a.black == b.white and a.white == b.black for a, b in reversed_pairs)
    run.step()
    assert len(run.hall) == 1
    later = [p for _ in range(20) for p in run.pairings(6, ["B:W21,22:B1,2"])]
    assert any(p.black < 0 or p.white < 0 for p in later)  # the champion is drawn as an opponent


def test_a_corrupt_or_missing_state_is_named(tmp_path: Path) -> None:
    with pytest.raises(OptionError, match="no saved evolution"):
        Evolution.load(tmp_path / "nothing")
    run = Evolution.start(SMALL)
    run.save(tmp_path / "run")
    (tmp_path / "run" / "state.json").write_text("{not json")
    with pytest.raises(OptionError, match="corrupt"):
        Evolution.load(tmp_path / "run")
    with pytest.raises(OptionError, match="unknown evolution preset"):
        EvolveConfig(preset="lamarck")


def test_the_command_runs_resumes_and_leaves_a_usable_champion(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "evo"
    args = ["learn", "evolve", "--generations", "1", "--parents", "3", "--games", "1", "--depth", "1",
            "--max-moves", "10", "--seed", "4", "--workers", "2", "--out", str(out)]
    assert main(args) == 0
    assert main(args) == 0  # resumes: a second generation
    log = [json.loads(line) for line in (out / "generations.jsonl").read_text().splitlines()]
    assert [e["generation"] for e in log] == [1, 2]
    assert (out / "evolution.png").stat().st_size > 1000
    champion = evaluators.load(out / "champion.json")
    assert champion.spec.kind == core.EVAL_NETWORK and champion.meta["generation"] == 2
    assert main(["analyse", "--eval", str(out / "champion.json"), "--mode", "fogel", "--depth", "2"]) == 0
    assert "bestmove" in capsys.readouterr().out
    assert main([*args[:-2], "--out", str(out), "--preset", "modern"]) == 2  # other settings: refused


@pytest.mark.slow
def test_ray_plays_the_same_generation() -> None:
    pytest.importorskip("ray")
    from matches.ray_pool import RayPool

    local = Evolution.start(SMALL)
    local.step()
    pool = RayPool(num_cpus=2)
    try:
        remote = Evolution.start(SMALL)
        remote.step(executor=pool)
    finally:
        pool.shutdown()
    assert [e.best for e in remote.log] == [e.best for e in local.log]
    pairs = zip(remote.parents, local.parents, strict=True)
    assert all(np.array_equal(a.weights, b.weights) for a, b in pairs)


def test_the_shipped_champion_is_a_network_usable_by_name() -> None:
    champion = evaluators.by_name("evolved-blondie")
    assert champion.spec.kind == core.EVAL_NETWORK and champion.meta["generation"] == 250
    net = Network.from_evaluator(champion)
    assert net.preset == "blondie" and 1.0 <= net.king <= 3.0
    found = Searcher(champion, mode=Mode.FOGEL, hash_mb=1).search(Board(), Limit(depth=4))
    assert found.best in Board().legal_moves
