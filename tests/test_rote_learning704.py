"""Samuel's rote learning done by the 704 program (engine/learners/rote_704.py, "rote learning on the 704"
in checkers.sap): the same positions, scores, plies and searches' uses give the same memory as the
host's rote store, position for position, score, ply and age, through forgetting and culling; the
program writes its memory to a reel that the next run reads; bad use is named."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from random_positions import play_randomly

from engine import core
from engine.backend704 import RoteReel
from engine.board import Board
from engine.evaluators import by_name
from engine.learners.rote_704 import (
    MAX_POSITIONS,
    PENDING_CAPACITY,
    RoteLearning704,
    RoteTape704,
    held_policy,
)
from engine.learners.rote_store import AgePolicy, Observation, RoteStore
from engine.program704 import ROTE_CAPACITY, ROTE_USED, Program704, Program704Error, read_rote_tape

POLICY = AgePolicy(initial_age=3, max_age=6, max_positions=60, cull_to=0.9)
"""Small enough that a few games forget and cull."""


def _host_memory(store: RoteStore) -> list[tuple[tuple[int, int, int], int, int, int]]:
    rows = store._db.execute("SELECT black, white, kings FROM positions").fetchall()
    out = []
    for row in rows:
        key = (int(row[0]), int(row[1]), int(row[2]))
        got = store.get(key)
        assert got is not None
        out.append((key, *got))
    return sorted(out)


def _program_memory(learner: RoteLearning704) -> list[tuple[tuple[int, int, int], int, int, int]]:
    return [(e.key, e.score, e.ply, e.age) for e in learner.entries()]


def _mark_used(program: Program704, keys: set[tuple[int, int, int]]) -> None:
    """Mark stored positions as a search's look-up marks them (the tag bit RPROBE sets)."""
    mem, rt = program.machine.mem, program.symbols.address("RT")
    for i, e in enumerate(program.rote_entries()):
        if e.key in keys:
            mem[rt - 4 * i - 3] |= ROTE_USED


def test_merges_on_the_704_keep_the_hosts_memory_through_forgetting_and_culling(tmp_path: Path) -> None:
    rng = random.Random(35)
    program = Program704()
    learner = RoteLearning704(program, POLICY)
    store = RoteStore(tmp_path / "host.db")
    forgotten = culled = 0
    for _game in range(10):
        board, observations = Board(), []
        for _ in range(rng.randint(10, 30)):
            board = play_randomly(rng, board, 1)
            if not board.legal_moves:
                break
            for _again in range(1 + (rng.random() < 0.25)):  # some positions saved twice, some deeper
                score, ply = rng.randint(-900, 900), rng.choice([1, 2, 3, rng.randint(1, 12)])
                learner.save(board, score, ply)
                observations.append(Observation(core.rote_key(board.raw), score, ply))
        used = {e.key for e in learner.entries() if rng.random() < 0.25}
        _mark_used(program, used)
        got = learner.merge()
        want = store.merge(observations, sorted(used), POLICY)
        assert (got.added, got.forgotten, got.culled, got.total) == \
            (want.added, want.forgotten, want.culled, want.total)
        assert _program_memory(learner) == _host_memory(store)
        assert learner.pending == 0 and not any(e.used for e in learner.entries())
        forgotten += got.forgotten
        culled += got.culled
    assert forgotten > 0 and culled > 0
    store.close()


def test_searches_on_the_704_learn_by_rote_as_the_host_store_does(tmp_path: Path) -> None:
    """Games searched on the 704 with its memory (samuel-1959, minimum ply 2): every root's score and
    ply saved on the 704 and in the host's store, the positions the searches took from the memory
    refreshed in both, a merge after each game: the same memory after every game.  Each game is played
    twice, so the second meets the first's positions at its leaves."""
    program = Program704()
    program.set_polynomial(by_name("samuel-1959").spec.weights)
    learner = RoteLearning704(program, AgePolicy(initial_age=4, max_age=12, max_positions=200))
    store = RoteStore(tmp_path / "host.db")
    hits = 0
    for game in range(4):
        rng = random.Random(game // 2)
        board, observations = play_randomly(rng, Board(), 4), []
        for _ in range(24):
            if not board.legal_moves:
                break
            found = program.search(board, 2)
            hits += found.rote_hits
            learner.save(board, found.score, 2)
            observations.append(Observation(core.rote_key(board.raw), found.score, 2))
            board = play_randomly(rng, board, 1)
        used = sorted(e.key for e in learner.entries() if e.used)
        learner.merge()
        store.merge(observations, used, learner.policy)
        assert _program_memory(learner) == _host_memory(store)
    assert hits > 0
    store.close()


def test_the_memory_goes_to_tape_and_comes_back(tmp_path: Path) -> None:
    rng = random.Random(3)
    program = Program704()
    learner = RoteLearning704(program)
    board = Board()
    for _ in range(PENDING_CAPACITY):
        board = play_randomly(rng, board, 1) if board.legal_moves else Board()
        learner.save(board, rng.randint(-30000 + 1, 30000 - 1) // 2, rng.randint(0, 30))
    learner.merge()
    before = learner.entries()
    reel = tmp_path / "memory.tap"
    run = learner.write_reel(reel)
    assert run.value == len(before) > PENDING_CAPACITY // 2 and run.cycles > 0
    assert read_rote_tape(reel) == before
    again = Program704()
    assert again.load_rote_tape(reel).value == len(before)
    assert again.rote_entries() == before
    assert len(RoteReel(reel).table()) == len(before)  # the modern backend reads it too
    empty = RoteLearning704(Program704())
    empty.write_reel(tmp_path / "empty.tap")
    assert read_rote_tape(tmp_path / "empty.tap") == []


def test_bad_use_is_named(tmp_path: Path) -> None:
    learner = RoteLearning704(Program704())
    with pytest.raises(Program704Error, match="does not fit the program's V word"):
        learner.save(Board(), 1 << 15, 3)
    with pytest.raises(Program704Error, match="ages 0-126"):
        RoteLearning704(Program704(), AgePolicy(max_age=200))
    assert held_policy(AgePolicy()).max_positions == MAX_POSITIONS
    rng = random.Random(1)
    board = Board()
    for _ in range(PENDING_CAPACITY):
        board = play_randomly(rng, board, 1) if board.legal_moves else Board()
        learner.save(board, 0, 1)
    with pytest.raises(Program704Error, match=r"pending list is full .*merge first"):
        learner.save(Board(), 0, 1)
    with pytest.raises(Program704Error, match=r"nowhere.*no such folder to make the tape file in"):
        learner.write_reel(tmp_path / "nowhere" / "memory.tap")


def test_the_command_learns_by_rote_on_the_704_and_keeps_its_reel(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``samuel learn rote play --backend 704``: the second run reads the first's reel and, replaying the
    same opening, meets its positions at the leaves."""
    from samuel.cli import main

    reel = tmp_path / "memory.tap"
    argv = ["learn", "rote", "play", "--db", str(reel), "--backend", "704", "--games", "1", "--depth", "2",
            "--max-plies", "24", "--seed", "5", "--max-positions", "1000"]
    assert main(argv) == 0
    first = capsys.readouterr().out
    stored = len(read_rote_tape(reel))
    assert "0 hits" in first and f"{stored} positions on the reel" in first and stored > 10
    assert main(argv) == 0
    second = capsys.readouterr().out
    hits = int(second.split(" hits;")[0].rsplit(" ", 1)[-1])
    assert hits > 0 and "704 time" in second
    assert len(read_rote_tape(reel)) >= stored
    assert main([*argv[:4], str(tmp_path / "memory.db"), *argv[5:]]) != 0
    assert "with --backend 704 the memory is a tape reel" in capsys.readouterr().err


def test_a_cull_among_equals_drops_the_least_keys_as_the_host_does(tmp_path: Path) -> None:
    """Positions of one ply and one age, more than the memory keeps: the cull takes the least keys
    first on both machines (the host's order: ply, oldest, then key)."""
    rng = random.Random(11)
    policy = AgePolicy(initial_age=2, max_age=20, max_positions=50, cull_to=0.9)
    learner = RoteLearning704(Program704(), policy)
    store = RoteStore(tmp_path / "host.db")
    for round_ in range(3):
        observations = []
        board = Board()
        while len(observations) < 70:
            board = play_randomly(rng, board, 1) if board.legal_moves else Board()
            ply = 3 if round_ < 2 else rng.choice([2, 3, 4])
            learner.save(board, 10, ply)
            observations.append(Observation(core.rote_key(board.raw), 10, ply))
        got, want = learner.merge(), store.merge(observations, [], policy)
        assert (got.culled, got.total) == (want.culled, want.total) and got.culled > 0
        assert _program_memory(learner) == _host_memory(store)
    store.close()


def _tape_round(rng: random.Random, tape: RoteTape704, n: int) -> list[Observation]:
    """Some ``n`` positions of random play saved on the 704's pending list, a few twice."""
    observations: list[Observation] = []
    board = Board()
    while len(observations) < n:
        board = play_randomly(rng, board, 1) if board.legal_moves else Board()
        if not board.legal_moves:
            continue
        for again in range(1 + (rng.random() < 0.2)):
            score, ply = rng.randint(-500, 500) + again, rng.randint(1, 8)
            tape.save(board, score, ply)
            observations.append(Observation(core.rote_key(board.raw), score, ply))
    return observations


def test_the_whole_memory_on_tape_is_the_hosts_through_merges(tmp_path: Path) -> None:
    """Samuel's tape merge (ETMRG): the pending positions sorted and folded, the reel read on tape 1 and
    the new one written on tape 2, the searches' uses taken from the working part, the cull copied back
    to tape 1: the reel after every merge is the host store, position for position."""
    rng = random.Random(1)
    policy = AgePolicy(initial_age=3, max_age=9, max_positions=300, cull_to=0.9)
    program = Program704()
    tape = RoteTape704(program, tmp_path / "memory.tap", policy)
    store = RoteStore(tmp_path / "host.db")
    forgotten = culled = 0
    for _ in range(12):
        observations = _tape_round(rng, tape, 60)
        tape.load_for(24)
        used = {e.key for e in program.rote_entries() if rng.random() < 0.2}
        _mark_used(program, used)
        got, want = tape.merge(), store.merge(observations, sorted(used), policy)
        assert (got.added, got.forgotten, got.culled, got.total) == \
            (want.added, want.forgotten, want.culled, want.total)
        reel = [(e.key, e.score, e.ply, e.age) for e in read_rote_tape(tape.reel)]
        assert reel == _host_memory(store)
        assert sum(got.by_pieces) == got.total and tape.count() == got.by_pieces
        forgotten, culled = forgotten + got.forgotten, culled + got.culled
    assert forgotten > 0 and culled > 0 and not tape.scratch.exists()
    store.close()


def test_a_memory_larger_than_core_lives_on_tape_and_the_working_part_is_chosen_by_pieces(
        tmp_path: Path) -> None:
    """More positions than the working part's 4,000: all on the reel, the host's; the working part
    holds those of the board's piece count and as many fewer as fit."""
    rng = random.Random(2)
    policy = AgePolicy(initial_age=2, max_age=120)
    program = Program704()
    tape = RoteTape704(program, tmp_path / "memory.tap", policy)
    store = RoteStore(tmp_path / "host.db")
    while True:
        observations = _tape_round(rng, tape, PENDING_CAPACITY - 1)
        got = tape.merge()
        store.merge(observations, [], policy)
        if got.total > ROTE_CAPACITY + 200:
            break
    assert [(e.key, e.score, e.ply, e.age) for e in read_rote_tape(tape.reel)] == _host_memory(store)
    low, high, run = tape.load_for(24)
    loaded = program.rote_entries()
    assert high == 24 and low > 0 and len(loaded) <= ROTE_CAPACITY and run.cycles > 0
    want = [(key, score, ply, age) for key, score, ply, age in _host_memory(store)
            if low <= bin(key[0] | key[1]).count("1") <= high]
    assert [(e.key, e.score, e.ply, e.age) for e in loaded] == want
    assert sum(got.by_pieces[low:high + 1]) == len(loaded) < got.total
    store.close()


def test_a_merge_cut_short_leaves_the_reel_as_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(4)
    program = Program704()
    tape = RoteTape704(program, tmp_path / "memory.tap", AgePolicy())
    _tape_round(rng, tape, 30)
    tape.merge()
    before = tape.reel.read_bytes()
    _tape_round(rng, tape, 30)

    def cut(*_args: object, **_kwargs: object) -> None:
        raise Program704Error("the machine stopped")

    monkeypatch.setattr(program, "run_with_tapes", cut)
    with pytest.raises(Program704Error, match="the machine stopped"):
        tape.merge()
    assert tape.reel.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["memory.tap"]
