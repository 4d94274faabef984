"""Shannon's type B search (``mode=shannon-b``, docs/shannon-b.md): legal, repeatable,
selective, tactically deeper than type A at the same base depth, and stoppable."""

from __future__ import annotations

import random
import threading

import pytest

from engine import DEFAULT, MATERIAL, Board, Limit, Mode, Searcher
from engine.errors import OptionError
from engine.options import MODES, TABLE

MIDGAME = "B:W18,19,21,23,24,25,26,28,29,30,32:B1,2,3,4,5,6,8,9,10,11,12"
# White to move: 14-9 5x14 22-17 13x22 26x17x10x3 wins two men for two, then a third:
# a five-ply shot whose point lies past a base of four plies.
SHOT = "W:W14,21,22,24,26,28,29,30,31,32:B1,2,4,5,6,7,8,11,12,13"


def _random_positions(count: int, seed: int) -> list[Board]:
    rng = random.Random(seed)
    boards: list[Board] = []
    while len(boards) < count:
        b = Board()
        for _ in range(rng.randint(0, 60)):
            moves = list(b.legal_moves)
            if not moves:
                break
            b.push(rng.choice(moves))
        if any(True for _ in b.legal_moves):
            boards.append(b)
    return boards


def _b(depth: int, board: Board, evaluator: object = MATERIAL) -> int:
    return Searcher(evaluator, mode=Mode.SHANNON_B, hash_mb=1).search(board, Limit(depth=depth)).info.nodes


@pytest.mark.parametrize("evaluator", [MATERIAL, DEFAULT])
def test_plays_legal_moves_from_many_positions(evaluator: object) -> None:
    s = Searcher(evaluator, mode=Mode.SHANNON_B, hash_mb=1)
    for i, board in enumerate(_random_positions(60, seed=11)):
        depth = 1 + i % 4
        r = s.search(board, Limit(depth=depth))
        assert r.best in board.legal_moves, board
        assert r.info.depth == depth
        # the principal variation is a legal line from the root
        b = board.copy()
        for m in r.info.pv:
            assert m in b.legal_moves, (board, r.info.pv)
            b.push(m)


def test_node_counts_repeat() -> None:
    board = Board(MIDGAME)
    counts = {_b(5, board, DEFAULT) for _ in range(3)}
    s = Searcher(DEFAULT, mode=Mode.SHANNON_B, hash_mb=1)
    s.search(Board(), Limit(depth=3))
    counts.add(s.search(board, Limit(depth=5)).info.nodes)  # the same engine, after another search
    assert len(counts) == 1


@pytest.mark.parametrize("fen", [None, MIDGAME, SHOT])
def test_far_fewer_nodes_than_type_a(fen: str | None) -> None:
    board = Board(fen) if fen else Board()
    a = Searcher(MATERIAL, mode=Mode.SHANNON_A, hash_mb=1).search(board, Limit(depth=7)).info.nodes
    b = _b(7, board)
    assert b * 3 < a, (b, a)


def test_goes_past_the_base_only_selectively() -> None:
    r = Searcher(MATERIAL, mode=Mode.SHANNON_B, hash_mb=1).search(Board(MIDGAME), Limit(depth=4))
    assert r.info.seldepth > 4
    # the tail never reaches beyond ply 20 except to finish captures
    assert r.info.seldepth <= 20 + 12


def test_finds_a_shot_past_the_base_that_type_a_misses() -> None:
    board = Board(SHOT)
    a = Searcher(MATERIAL, mode=Mode.SHANNON_A, hash_mb=1).search(board, Limit(depth=4))
    b = Searcher(MATERIAL, mode=Mode.SHANNON_B, hash_mb=1).search(board, Limit(depth=4))
    assert str(a.best) != "14-9" and a.info.score.value == 0
    assert str(b.best) == "14-9"
    assert b.info.score.value >= 100  # a man up at the end of the line
    assert [str(m) for m in b.info.pv[:5]] == ["14-9", "5x14", "22-17", "13x22", "26x17x10x3"]
    # type A needs the full five plies to see it
    a5 = Searcher(MATERIAL, mode=Mode.SHANNON_A, hash_mb=1).search(board, Limit(depth=5))
    assert str(a5.best) == "14-9"


def test_node_limit_is_exact() -> None:
    r = Searcher(DEFAULT, mode=Mode.SHANNON_B, hash_mb=1).search(Board(MIDGAME), Limit(nodes=5_000))
    assert r.best in Board(MIDGAME).legal_moves
    assert r.info.nodes <= 5_000


def test_clock_iterates_the_base_depth() -> None:
    depths: list[int] = []
    r = Searcher(DEFAULT, mode=Mode.SHANNON_B, hash_mb=1).search(
        Board(), Limit(movetime=0.2), on_info=lambda i: depths.append(i.depth))
    assert r.best in Board().legal_moves
    assert depths and depths == list(range(depths[0], depths[0] + len(depths)))


def test_stop_from_another_thread() -> None:
    s = Searcher(DEFAULT, mode=Mode.SHANNON_B, hash_mb=1)
    stop = threading.Event()
    out: list[object] = []
    t = threading.Thread(target=lambda: out.append(s.search(Board(MIDGAME), Limit(), stop=stop)))
    t.start()
    t.join(0.2)
    stop.set()
    t.join(10)
    assert not t.is_alive()
    assert out and out[0].best in Board(MIDGAME).legal_moves  # type: ignore[attr-defined]


@pytest.mark.parametrize("text", ["shannon-b", "type-b", "Shannon_B", " TYPE_B "])
def test_mode_parses(text: str) -> None:
    assert Mode.parse(text) is Mode.SHANNON_B
    assert Mode.SHANNON_B.text == "shannon-b"


def test_mode_is_listed_wherever_modes_are() -> None:
    with pytest.raises(OptionError, match="shannon-b"):
        Mode.parse("type-c")
    assert "shannon-b" in MODES and TABLE["mode"].choices == MODES
    assert TABLE["mode"].parse("Shannon-B") == "shannon-b"
