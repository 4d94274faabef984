"""Samuel's rote memory in the 704 program (issue 35): the standard form worked out on the 704 equals
the host's (``core.rote_key``) bit for bit, the working part is read from a tape reel the host
writes, a look-up finds exactly the stored positions with their score, ply and age, and the 704
search with the memory scores as the modern backend's search with the same memory."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from random_positions import fen_of, play_randomly, positions_below

from engine import core
from engine.board import Board
from engine.errors import FenError
from engine.evaluators import by_name
from engine.limits import Limit
from engine.program704 import (
    ROTE_CAPACITY,
    Program704,
    Program704Error,
    RoteEntry704,
    read_rote_tape,
    rote_entry,
    rote_word,
    write_rote_tape,
)
from engine.search import Mode, Searcher

SQUARES = range(1, 33)


@pytest.fixture(scope="module")
def program() -> Program704:
    return Program704()



def _setup(rng: random.Random, king_share: float) -> Board | None:
    black: dict[int, bool] = {}
    white: dict[int, bool] = {}
    for sq in rng.sample(list(SQUARES), rng.randint(2, 24)):
        pieces = black if rng.random() < 0.5 else white
        if len(pieces) < 12:
            pieces[sq] = rng.random() < king_share
    if not black or not white:
        return None
    try:
        return Board(fen_of(rng.choice("BW"), black, white))
    except FenError:
        return None



def positions(n: int, seed: int) -> list[Board]:
    """Games from the start, setups with some kings, and setups of kings only (the standard form
    reflects those), either side to move."""
    rng = random.Random(seed)
    out: list[Board] = []
    while len(out) < n:
        kind = len(out) % 3
        board = (play_randomly(rng, Board(), rng.randint(0, 100)) if kind == 0
                 else _setup(rng, 0.3) if kind == 1 else _setup(rng, 1.0))
        if board is not None:
            out.append(board)
    return out


def test_the_standard_form_is_the_hosts(program: Program704) -> None:
    boards = positions(3000, 35)
    kings_only = 0
    for board in boards:
        raw = board.raw
        key, _ = program.standard_form(board)
        assert key == core.rote_key(raw), board.fen()
        kings_only += raw.black_men == raw.white_men == 0
    assert kings_only > 900


def test_the_v_word_keeps_score_ply_age_and_the_used_mark() -> None:
    for score, ply, age, used in [(0, 0, 0, False), (-1, 3, 8, True), (20000 - 7, 255, 127, False),
                                  (-19993, 17, 24, True), (512, 6, 200, False)]:
        e = rote_entry([1, 2, 3, rote_word(score, ply, age, used)])
        assert e == RoteEntry704((1, 2, 3), score, ply, min(age, 127), used)
    with pytest.raises(Program704Error):
        rote_word(1 << 15, 0, 0)


def _memory(boards: list[Board], rng: random.Random) -> list[RoteEntry704]:
    keys = {core.rote_key(b.raw) for b in boards}
    return [RoteEntry704(k, rng.choice([0, rng.randint(-3000, 3000), rng.randint(-8, 8)]),
                         rng.randint(0, 255), rng.randint(0, 30)) for k in sorted(keys)]


def test_the_working_part_is_read_from_tape_and_looked_up(program: Program704, tmp_path: Path) -> None:
    rng = random.Random(7)
    boards = positions(1200, 36)
    stored, other = boards[:800], boards[800:]
    entries = _memory(stored, rng)
    reel = tmp_path / "rote.tap"
    write_rote_tape(reel, entries)
    assert read_rote_tape(reel) == sorted(entries)
    run = program.load_rote_tape(reel)
    assert run.value == len(entries)
    by_key = {e.key: e for e in entries}
    try:
        for board in stored:
            found, _ = program.rote_lookup(board)
            assert found == by_key[core.rote_key(board.raw)], board.fen()
        for board in other:
            found, _ = program.rote_lookup(board)
            assert (found is None) == (core.rote_key(board.raw) not in by_key), board.fen()
        assert program.rote_entries() == sorted(entries)
    finally:
        _unload(program, tmp_path)


def _unload(program: Program704, tmp_path: Path) -> None:
    empty = tmp_path / "empty.tap"
    write_rote_tape(empty, [])
    assert program.load_rote_tape(empty).value == 0
    program.set_rote(False)


def test_a_reel_past_the_working_part_is_refused(program: Program704, tmp_path: Path) -> None:
    from emu704.tape import write_tape

    reel = tmp_path / "big.tap"
    words = [w for i in range(ROTE_CAPACITY + 1) for w in (i + 1, 1, 0, 5)]
    write_tape(reel, [words[i:i + 100] for i in range(0, len(words), 100)] + [None])
    with pytest.raises(Program704Error, match="working part holds"):
        program.load_rote_tape(reel)
    _unload(program, tmp_path)


class _Table:
    """A RoteSource over a C table of the same positions."""

    def __init__(self, entries: list[RoteEntry704]) -> None:
        self._table = core.RoteTable(len(entries) + 16)
        for e in entries:
            self._table.put(e.key, e.score, e.ply)

    def table(self) -> core.RoteTable:
        return self._table



def test_the_704_search_with_the_memory_scores_as_the_modern_search(program: Program704,
                                                                     tmp_path: Path) -> None:
    """samuel-1959 at the leaves, Samuel's ply rules, a memory holding about half of the positions
    two and three moves below each root with random scores: the same score (and a hit at a leaf
    takes the stored score moved a point toward zero a ply, as the modern core's)."""
    rng = random.Random(11)
    ev = by_name("samuel-1959")
    program.set_polynomial(ev.spec.weights)
    roots = [b for b in positions(60, 37)[::3] if b.legal_moves][:16]
    below = [b for r in roots for d in (2, 3) for b in positions_below(r, d)]
    chosen = [b for b in below if rng.random() < 0.5]
    entries = _memory(chosen, rng)
    rng.shuffle(entries)
    entries = entries[:ROTE_CAPACITY]
    reel = tmp_path / "rote.tap"
    write_rote_tape(reel, entries)
    program.load_rote_tape(reel)
    modern = Searcher(ev, mode=Mode.SAMUEL, hash_mb=1, rote=_Table(entries))
    try:
        hits = changed = 0
        for i, board in enumerate(roots):
            depth = 2 + i % 2
            found = program.search(board, depth)
            want = modern.search(board.copy(), Limit(depth=depth)).info
            assert found.score == want.score.value, (board.fen(), depth, found.score, want.score.value)
            hits += found.rote_hits
            program.set_rote(False)
            changed += program.search(board, depth).score != found.score
            program.set_rote(True)
        assert hits > 20 and changed >= 3, (hits, changed)
        assert 0 < sum(e.used for e in program.rote_entries()) <= hits
    finally:
        program.set_polynomial(None)
        _unload(program, tmp_path)
