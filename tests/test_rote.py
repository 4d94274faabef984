"""Samuel's rote memory in the C core: standardization, the table, and the search's leaf probe."""

from __future__ import annotations

import random

import pytest

from engine import Board, Limit, Mode, Searcher
from engine.core import WIN, RawPosition, RoteTable, rote_decay, rote_key

# ---- a reference standardization, written from the paper's words ----


def _rc(s: int) -> tuple[int, int]:
    r = (s - 1) // 4
    return r, 2 * ((s - 1) % 4) + (1 if r % 2 == 0 else 0)


def _square(r: int, c: int) -> int:
    return r * 4 + (c - (1 if r % 2 == 0 else 0)) // 2 + 1


def _map(sset: int, f: object) -> int:
    out = 0
    for s in range(1, 33):
        if sset >> (s - 1) & 1:
            out |= 1 << (_square(*f(*_rc(s))) - 1)  # type: ignore[operator]
    return out


def rot180(r: int, c: int) -> tuple[int, int]:
    return 7 - r, 7 - c


def transpose(r: int, c: int) -> tuple[int, int]:
    return c, r


def anti(r: int, c: int) -> tuple[int, int]:
    return 7 - c, 7 - r


def reference_key(p: RawPosition) -> tuple[int, int, int]:
    """Black to move (turn the board and swap colours otherwise); kings only: least reflection."""
    black, white = p.black_men | p.black_kings, p.white_men | p.white_kings
    kings = p.black_kings | p.white_kings
    if p.turn == 1:
        black, white, kings = _map(white, rot180), _map(black, rot180), _map(kings, rot180)
    if kings and kings == black | white:
        variants = [(_map(black, f), _map(white, f)) for f in (transpose, anti, rot180)]
        black, white = min([(black, white), *variants])
        kings = black | white
    return black, white, kings


def reversed_twin(p: RawPosition) -> RawPosition:
    """The same position with the colours reversed: board turned 180 degrees, colours swapped."""
    return RawPosition(_map(p.white_men, rot180), _map(p.white_kings, rot180), _map(p.black_men, rot180),
                       _map(p.black_kings, rot180), 1 - p.turn)


def random_positions(n: int, seed: int) -> list[RawPosition]:
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        b = Board()
        for _ in range(rng.randrange(0, 120)):
            if b.is_game_over():
                break
            b.push(rng.choice(b.legal_moves))
        out.append(b.raw)
    return out


def random_king_positions(n: int, seed: int) -> list[RawPosition]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        squares = rng.sample(range(32), rng.randrange(2, 7))
        cut = rng.randrange(1, len(squares))
        bk = sum(1 << s for s in squares[:cut])
        wk = sum(1 << s for s in squares[cut:])
        out.append(RawPosition(0, bk, 0, wk, rng.randrange(2)))
    return out


# ---- standardization ----


def test_key_matches_the_reference_on_game_positions() -> None:
    for p in random_positions(300, 1):
        assert rote_key(p) == reference_key(p)


def test_colour_reversed_twins_share_a_key() -> None:
    for p in random_positions(300, 2) + random_king_positions(100, 3):
        assert rote_key(p) == rote_key(reversed_twin(p))


def test_reflected_king_positions_share_a_key() -> None:
    for p in random_king_positions(300, 4):
        for f in (transpose, anti, rot180):
            q = RawPosition(0, _map(p.black_kings, f), 0, _map(p.white_kings, f), p.turn)
            assert rote_key(q) == rote_key(p)
        assert rote_key(p) == reference_key(p)


def test_men_are_never_reflected() -> None:
    # Reflected about the long diagonal 4-29, square 1 goes to 28 and square 32 to 5.
    ka = RawPosition(0, 1 << 0, 0, 1 << 31, 0)
    kb = RawPosition(0, 1 << 27, 0, 1 << 4, 0)
    assert rote_key(ka) == rote_key(kb)
    # Men move one way only: the same squares with men are different positions.
    a = RawPosition(1 << 0, 0, 1 << 31, 0, 0)
    b = RawPosition(1 << 27, 0, 1 << 4, 0, 0)
    assert rote_key(a) != rote_key(b)
    # One man among kings is enough to stop the reflections.
    assert rote_key(RawPosition(1 << 8, 1 << 0, 0, 1 << 31, 0)) != rote_key(
        RawPosition(1 << 8, 1 << 27, 0, 1 << 4, 0))


def test_different_positions_have_different_keys() -> None:
    positions = random_positions(400, 5) + random_king_positions(200, 6)
    by_key: dict[tuple[int, int, int], tuple[int, int, int]] = {}
    for p in positions:
        ref = reference_key(p)
        assert by_key.setdefault(rote_key(p), ref) == ref
    assert len(by_key) == len({reference_key(p) for p in positions})
    # Same pieces, other side to move: different positions.
    p = Board("B:W18,24,27,28:B1,3,5,K10").raw
    assert rote_key(p) != rote_key(RawPosition(p.black_men, p.black_kings, p.white_men, p.white_kings, 1))


# ---- the table ----


def test_table_put_get_delete_and_growth() -> None:
    t = RoteTable(4)
    keys = [(i, i << 12, 0) for i in range(1, 3001)]
    t.put_many(keys, [i % 500 for i in range(3000)], [i % 7 for i in range(3000)])
    assert len(t) == 3000
    for k in keys[::2]:
        assert t.delete(k)
    assert not t.delete(keys[0])
    assert len(t) == 1500
    for i, k in enumerate(keys):
        assert t.get(k) == (None if i % 2 == 0 else (i % 500, i % 7))
    t.put(keys[1], -77, 300)  # ply clamps to 255
    assert t.get(keys[1]) == (-77, 255)
    c = t.clone(100_000)
    c.put(keys[0], 5, 5)
    assert t.get(keys[0]) is None and c.get(keys[0]) == (5, 5)
    assert t.count_found(keys) == 1500 and c.count_found(keys) == 1501
    assert sorted(x[0] for x in c.items()) == sorted([keys[0], *keys[1::2]])


def test_lookup_standardizes() -> None:
    t = RoteTable()
    p = random_positions(1, 7)[0]
    t.put(rote_key(p), 123, 6)
    assert t.lookup(p) == (123, 6)
    assert t.lookup(reversed_twin(p)) == (123, 6)


# ---- sense of direction ----


def test_decay_per_ply() -> None:
    assert rote_decay(500, 0) == 500
    assert rote_decay(500, 3) == 497
    assert rote_decay(-500, 3) == -497
    assert rote_decay(2, 5) == 0 and rote_decay(-2, 5) == 0 and rote_decay(0, 4) == 0
    assert rote_decay(WIN - 10, 4) == WIN - 14  # a stored win k plies away is k plies further off
    # Winning, the nearer stored position is worth more; losing, the farther one hurts less.
    assert rote_decay(300, 1) > rote_decay(300, 3)
    assert rote_decay(-300, 1) < rote_decay(-300, 3)


# ---- the search: d-ply stored scores met at the leaves of k-ply searches ----

# Black men on 1 and 4 (three moves between them), White men on 30 and 31: nothing can
# touch within three plies, so every line ends quietly at ply 3 in both modes.
ROOT = "B:W30,31:B1,4"


def _forced_leaves(board: Board) -> list[Board]:
    """After Black's first legal move: for every White reply, the position after Black's first
    move in answer.  Storing all of them makes that line's score forced for Black."""
    first = board.copy()
    first.push(board.legal_moves[0])
    leaves = []
    for reply in first.legal_moves:
        b = first.copy()
        b.push(reply)
        b.push(b.legal_moves[0])
        leaves.append(b)
    return leaves


def _table(entries: list[tuple[Board, int, int]]) -> RoteTable:
    t = RoteTable()
    for b, score, ply in entries:
        t.put(rote_key(b.raw), score, ply)
    return t


class _Source:
    def __init__(self, table: RoteTable) -> None:
        self._table = table

    def table(self) -> RoteTable:
        return self._table


@pytest.mark.parametrize("mode", [Mode.SAMUEL, Mode.PVS])
@pytest.mark.parametrize("stored_ply", [3, 5, 12])
def test_stored_score_backs_up_to_d_plus_k(mode: Mode, stored_ply: int) -> None:
    root = Board(ROOT)
    leaves = _forced_leaves(root)
    # White to move in every leaf and losing 1000 by the memory.
    table = _table([(b, -1000, stored_ply) for b in leaves])
    plain = Searcher(mode=mode, hash_mb=1).search(root, Limit(depth=3))
    assert plain.info.rote_hits == 0 and plain.info.rote_depth == 0
    r = Searcher(mode=mode, hash_mb=1, rote=_Source(table)).search(root, Limit(depth=3))
    assert r.info.depth == 3
    assert r.info.score.value == 1000 - 3  # backed up three plies: three decays
    assert r.info.rote_hits >= len(leaves)
    assert r.info.rote_depth == stored_ply + 3
    end = root.copy()
    end.push_many(r.info.pv)
    assert any(end == b for b in leaves)
    assert set(table.used()) >= {rote_key(b.raw) for b in leaves if b == end}


@pytest.mark.parametrize("mode", [Mode.SAMUEL, Mode.PVS])
def test_off_means_the_same_search(mode: Mode) -> None:
    root = Board(ROOT)
    plain = Searcher(mode=mode, hash_mb=1).search(root, Limit(depth=5))
    empty = Searcher(mode=mode, hash_mb=1, rote=_Source(RoteTable())).search(root, Limit(depth=5))
    assert (plain.info.nodes, plain.info.score) == (empty.info.nodes, empty.info.score)
    assert empty.info.rote_hits == 0


def _all_leaves(board: Board, plies: int) -> list[Board]:
    if plies == 0:
        return [board]
    out = []
    for m in board.legal_moves:
        b = board.copy()
        b.push(m)
        out += _all_leaves(b, plies - 1)
    return out


def test_nearer_stored_scores_are_worth_more() -> None:
    """Sense of direction in the search: the same stored score counts for more the nearer
    the root it is met, so the winner heads for it and the loser puts it off."""
    root = Board(ROOT)
    after = root.copy()
    after.push(root.legal_moves[0])  # White to move, two plies before the leaves
    leaves = _all_leaves(root, 3)  # White to move in each
    for stored in (-1000, 1000):
        table = _table([(b, stored, 4) for b in leaves])
        far = Searcher(mode=Mode.PVS, hash_mb=1, rote=_Source(table)).search(root, Limit(depth=3))
        near = Searcher(mode=Mode.PVS, hash_mb=1, rote=_Source(table)).search(after, Limit(depth=2))
        assert far.info.score.value == -rote_decay(stored, 3)  # for Black, three plies away
        assert near.info.score.value == rote_decay(stored, 2)  # for White, two plies away
        assert abs(near.info.score.value) == abs(far.info.score.value) + 1
        assert (far.info.rote_depth, near.info.rote_depth) == (7, 6)


def test_a_stored_win_keeps_its_distance() -> None:
    root = Board(ROOT)
    leaves = _forced_leaves(root)
    table = _table([(b, -(WIN - 20), 20) for b in leaves])  # White to move, lost in 20
    r = Searcher(mode=Mode.SAMUEL, hash_mb=1, rote=_Source(table)).search(root, Limit(depth=3))
    assert r.info.score.is_win and r.info.score.plies_to_end == 23
