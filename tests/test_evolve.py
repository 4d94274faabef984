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
from engine.fen import START_FEN
from engine.game import GameRecord
from engine.learners import evolve
from engine.learners.evolve import Evolution, EvolveConfig, generations, mutate
from engine.learners.evolve_games import GameJob, judged_at_cap, play
from engine.learners.evolve_panel import FREEZE_EVERY, MATERIAL, generation_zero
from engine.learners.network import Network, size, subsquares
from engine.limits import Limit
from engine.options import OptionValues
from engine.search import Mode, Searcher
from engine.searchers import apply_options
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


@pytest.mark.parametrize("preset", ["blondie", "spatial"])
def test_exact_scores_are_the_output_sum_and_never_saturate(preset: str) -> None:
    rng = np.random.default_rng(8)
    rounded = Network.random(preset, rng, scale=0.6)
    exact = Network(preset, rounded.weights, rounded.king, None, exact=True)
    ev = exact.evaluator()
    assert Network.from_evaluator(ev).exact and not Network.from_evaluator(rounded.evaluator()).exact
    for board in random_positions(30, 9, max_plies=70):
        for side in (0, 1):
            total = core.network_sum(board.raw, ev.spec, side)
            assert total == pytest.approx(exact.output_sum(board, side), abs=1e-4)
            assert core.network_output(board.raw, ev.spec, side) == pytest.approx(exact.output(board, side),
                                                                                   abs=1e-5)
        assert abs(ev.evaluate(board) - exact.value(board, board.turn)) <= 1  # float32 against float64
        total = core.network_sum(board.raw, ev.spec, board.turn)
        assert ev.evaluate(board) == round(core.NETWORK_SCALE * total)
    # Eight men against one: a paper-start network's rounded score is stuck at 1000, its exact one
    # still tells the boards apart.
    start = Network.random(preset, rng)
    boards = [Board(f"B:W32:B1,2,3,4,5,6,7,{last}") for last in (8, 9, 10, 11)]
    assert {start.evaluator().evaluate(b) for b in boards} == {1000}
    exact_start = Network(preset, start.weights, start.king, None, exact=True).evaluator()
    values = {exact_start.evaluate(b) for b in boards}
    assert len(values) == 4 and min(values) > 4000


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


def test_a_capped_game_is_adjudicated_on_pieces_only_when_asked() -> None:
    two_ahead, one_ahead = Board("W:W32:B1,2,3"), Board("W:W31,32:B1,2,3")
    assert judged_at_cap(0, 200)(two_ahead).result == "1/2-1/2"
    win = judged_at_cap(2, 200)(two_ahead)
    assert win.result == "1-0" and win.termination.value == "adjudicated-win"
    assert "2 pieces ahead" in win.detail
    assert judged_at_cap(2, 200)(one_ahead).result == "1/2-1/2"
    assert judged_at_cap(1, 200)(Board("B:W5,6,7:B27")).result == "0-1"
    net = Network.random("blondie", np.random.default_rng(2))
    capped = play(GameJob(net, MATERIAL, START_FEN, depth=1, max_moves=3, adjudicate=1))
    assert capped.plies == 6 and capped.result == "1/2-1/2"  # nobody is a piece ahead after three moves


def test_a_search_that_sees_draws_converts_where_theirs_repeats(monkeypatch: pytest.MonkeyPatch) -> None:
    # Three kings against one: their search, blind to repetition, shuffles into a threefold
    # repetition under real rules; scoring a repetition as a draw, the side ahead plays on and wins.
    fen = "W:WK32:BK1,K5,K9"
    blind = play(GameJob(MATERIAL, MATERIAL, fen, depth=4, max_moves=100, draws=True))
    assert blind.result == "1/2-1/2" and blind.termination.value == "repetition"
    seeing = play(GameJob(MATERIAL, MATERIAL, fen, depth=4, max_moves=100, draws=True, search_draws=True))
    assert seeing.result == "1-0" and seeing.termination.value == "no-moves"
    searcher = Searcher(evaluators.by_name(MATERIAL), mode=Mode.FOGEL, hash_mb=1)
    assert not searcher.fogel_draws  # theirs by default, so the shipped champion plays as before
    values = OptionValues()
    values.set("fogel-draws", "on")
    apply_options(searcher, values)
    assert searcher.fogel_draws  # the engine option every protocol and match sets
    searcher.close()
    with pytest.raises(OptionError, match="search_draws needs the modern preset"):
        EvolveConfig(search_draws=True)
    config = EvolveConfig(preset="modern", parents=2, games=1, depth=1, max_moves=6, seed=3,
                          search_draws=True, panel_every=0)
    seen: list[GameJob] = []

    def spy(jobs: list[GameJob], *rest: object) -> list[GameRecord]:
        seen.extend(jobs)
        return [play(job) for job in jobs]

    monkeypatch.setattr(evolve, "play_all", spy)
    run = Evolution.start(config)
    run.play_pool(run.parents)
    assert seen and all(job.search_draws and job.draws for job in seen)


PANEL = EvolveConfig(parents=3, games=1, depth=1, max_moves=12, seed=11, panel_every=1, panel_pairs=1,
                     panel_gen0=1)
BALLOTS = ["B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
           "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,12,15"]


def test_the_panel_is_fixed_and_chooses_and_freezes_champions(tmp_path: Path) -> None:
    run = Evolution.start(PANEL)
    gen0 = generation_zero(PANEL)
    assert all(np.array_equal(a.weights, b.weights) for a, b in zip(gen0, run.parents, strict=True))
    for entry in generations(run, FREEZE_EVERY, panel_openings=BALLOTS, save_to=tmp_path / "run"):
        point = [r for r in run.panel.results if r.generation == entry.generation]
        assert [r.opponent for r in point][:2] == [MATERIAL, "generation 0 #1"]
        assert all(r.games == 2 for r in point)  # one ballot pair each
    assert len(run.panel.frozen) == 1 and run.panel.frozen[0][0] == FREEZE_EVERY
    assert run.panel.frozen[0][1].sigma is None  # frozen: it no longer evolves
    best, how = run.chosen()
    assert best is run.panel.champion and how.startswith("panel (generation ")
    scores = {r.generation: r for r in run.panel.results if r.opponent == MATERIAL}
    assert run.panel.champion_generation in scores
    resumed = Evolution.load(tmp_path / "run")
    assert resumed.panel.results == run.panel.results
    assert resumed.panel.champion_generation == run.panel.champion_generation
    assert resumed.panel.champion is not None and run.panel.champion is not None
    assert np.array_equal(resumed.panel.champion.weights, run.panel.champion.weights)
    names = [name for name, _p, _f in resumed.panel.opponents(PANEL)]
    assert names == [MATERIAL, "generation 0 #1", f"champion of generation {FREEZE_EVERY}"]
    # the panel draws nothing at random: the run goes on as one without it would
    plain = Evolution.start(EvolveConfig(parents=3, games=1, depth=1, max_moves=12, seed=11, panel_every=0))
    list(generations(plain, FREEZE_EVERY))
    assert [e.best for e in plain.log] == [e.best for e in run.log] and not plain.panel.results
    assert plain.chosen()[1].startswith("points")


def test_exact_scores_and_adjudication_carry_through_a_run(tmp_path: Path) -> None:
    config = EvolveConfig(parents=3, games=1, depth=1, max_moves=8, seed=5, scores="exact", adjudicate=1)
    run = Evolution.start(config)
    run.step()
    run.save(tmp_path / "run")
    assert all(p.exact for p in Evolution.load(tmp_path / "run").parents)
    with pytest.raises(OptionError, match="unknown network scores"):
        EvolveConfig(scores="fuzzy")
    with pytest.raises(OptionError, match="adjudicate must not be negative"):
        EvolveConfig(adjudicate=-1)


def test_lifetime_fitness_keeps_each_parents_record_and_resumes(tmp_path: Path) -> None:
    config = EvolveConfig(parents=3, games=2, depth=1, max_moves=10, seed=6, lifetime=True, panel_every=0)
    run = Evolution.start(config)
    run.step()
    first = {id(p): r for p, r in zip(run.parents, run.record, strict=True)}
    assert len(run.record) == 3 and all(games >= 2 for _points, games in run.record)  # two as Black at least
    run.save(tmp_path / "run")
    run.step()
    kept = [(first[id(p)], r) for p, r in zip(run.parents, run.record, strict=True) if id(p) in first]
    assert kept, "no parent survived a generation with this seed"
    assert all(now[1] >= before[1] + 2 for before, now in kept)  # a survivor's games add up
    resumed = Evolution.load(tmp_path / "run")
    resumed.step()
    assert resumed.record == run.record
    pairs = zip(resumed.parents, run.parents, strict=True)
    assert all(np.array_equal(a.weights, b.weights) for a, b in pairs)


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
    assert champion.meta["chosen by"] == "points (generation 2)"  # no panel point yet
    assert main(["analyse", "--eval", str(out / "champion.json"), "--mode", "fogel", "--depth", "2"]) == 0
    assert "bestmove" in capsys.readouterr().out
    assert main([*args[:-2], "--out", str(out), "--preset", "modern"]) == 2  # other settings: refused
    paneled = tmp_path / "paneled"
    assert main([*args[:-2], "--out", str(paneled), "--panel-every", "1", "--panel-pairs", "1",
                 "--panel-gen0", "1", "--scores", "exact", "--adjudicate", "2"]) == 0
    lines = [json.loads(line) for line in (paneled / "panel.jsonl").read_text().splitlines()]
    assert [(r["generation"], r["opponent"]) for r in lines] == [(1, "material"), (1, "generation 0 #1")]
    assert all(r["wins"] + r["draws"] + r["losses"] == 2 for r in lines)
    assert (paneled / "panel.png").stat().st_size > 1000
    chosen = evaluators.load(paneled / "champion.json")
    assert chosen.meta["chosen by"] == "panel (generation 1)" and Network.from_evaluator(chosen).exact
    assert chosen.meta["search draws"] is False
    seeing = tmp_path / "seeing"
    assert main([*args[:-2], "--out", str(seeing), "--search-draws"]) == 2  # the paper's games have none
    assert "search_draws needs the modern preset" in capsys.readouterr().err
    assert main([*args[:-2], "--out", str(seeing), "--search-draws", "--preset", "modern"]) == 0
    assert evaluators.load(seeing / "champion.json").meta["search draws"] is True


@pytest.mark.slow
def test_ray_plays_the_same_generations_as_one_core() -> None:
    pytest.importorskip("ray")
    from matches.ray_pool import RayPool

    local = Evolution.start(PANEL)
    list(generations(local, 2, panel_openings=BALLOTS))
    pool = RayPool(num_cpus=2)
    try:
        remote = Evolution.start(PANEL)
        list(generations(remote, 2, panel_openings=BALLOTS, executor=pool))
    finally:
        pool.shutdown()
    assert [e.best for e in remote.log] == [e.best for e in local.log]
    pairs = zip(remote.parents, local.parents, strict=True)
    assert all(np.array_equal(a.weights, b.weights) and a.king == b.king for a, b in pairs)
    assert remote.panel.results == local.panel.results and len(local.panel.results) == 4
    assert remote.rng.bit_generator.state == local.rng.bit_generator.state


def test_the_shipped_champion_is_a_network_usable_by_name() -> None:
    champion = evaluators.by_name("evolved-blondie")
    assert champion.spec.kind == core.EVAL_NETWORK and champion.meta["generation"] == 250
    net = Network.from_evaluator(champion)
    assert net.preset == "blondie" and 1.0 <= net.king <= 3.0
    found = Searcher(champion, mode=Mode.FOGEL, hash_mb=1).search(Board(), Limit(depth=4))
    assert found.best in Board().legal_moves
