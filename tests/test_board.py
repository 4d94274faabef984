"""Board, FEN and move text: reading, writing, legality, errors and draw rules."""

from __future__ import annotations

import pytest

from engine import (
    START_FEN,
    AmbiguousMoveError,
    Board,
    FenError,
    GameOverError,
    IllegalMoveError,
    InvalidMoveError,
    Move,
    Termination,
    core,
)
from engine.types import BLACK, WHITE


def test_start_position() -> None:
    b = Board()
    assert b.fen() == START_FEN
    assert b.turn == BLACK
    assert len(b.legal_moves) == 7
    assert eval(repr(b), {"Board": Board}) == b


@pytest.mark.parametrize(
    ("fen", "canonical"),
    [
        ("B:W21-32:B1-12", START_FEN),
        ("B:B1-12:W21-32.", START_FEN),
        (" W:W18,24,27,28,K10,K15:B12,16,20,K22,K25,K29 ", "W:WK10,K15,18,24,27,28:B12,16,20,K22,K25,K29"),
        ('"B:WK1:BK32"', "B:WK1:BK32"),
        ("W:W:B5", "W:W:B5"),
    ],
)
def test_fen_reading_is_forgiving_and_writing_canonical(fen: str, canonical: str) -> None:
    assert Board(fen).fen() == canonical


@pytest.mark.parametrize(
    ("fen", "message"),
    [
        ("", "empty"),
        ("X:W21:B1", "side to move"),
        ("B:W21,33:B1", "out of range"),
        ("B:W21,abc:B1", "bad square"),
        ("B:W21:B21", "twice"),
        ("B:W21:Q1", "colour group"),
        ("B:W5:B1:W6", "two W groups"),
        ("B:W2:B9", "king row"),
        ("B:W12-5:B1", "bad range"),
        ("B", "no piece groups"),
    ],
)
def test_bad_fens_raise_clear_errors(fen: str, message: str) -> None:
    with pytest.raises(FenError, match=message):
        Board(fen)


def test_push_pop_and_notation() -> None:
    b = Board()
    b.push_pdn("11-15")
    b.push_pdn("23-19")
    b.push_pdn("8-11")
    b.push_pdn("22-17")
    assert b.turn == BLACK
    b.push_pdn("9-13")
    b.push_pdn("17-14")
    # Black must capture: 10x17 is the only capture here
    assert all(m.is_capture for m in b.legal_moves)
    move = b.parse_move("10x17")
    assert move.captures == (14,)
    b.push(move)
    assert b.pop() == move
    assert len(b.move_stack) == 6
    while b.move_stack:
        b.pop()
    assert b.fen() == START_FEN
    with pytest.raises(IndexError):
        b.pop()


def test_illegal_and_invalid_moves() -> None:
    b = Board()
    with pytest.raises(InvalidMoveError, match="not a PDN move"):
        b.parse_move("e2e4")
    with pytest.raises(InvalidMoveError, match="out of range"):
        b.parse_move("11-35")
    with pytest.raises(IllegalMoveError, match="illegal move '11-20'"):
        b.parse_move("11-20")
    with pytest.raises(IllegalMoveError, match="illegal move 22-18"):
        b.push(Move((22, 18)))
    # a quiet move when a capture is compulsory says so
    b2 = Board("B:W18:B14,9")
    with pytest.raises(IllegalMoveError, match="compulsory"):
        b2.parse_move("9-13")


def test_multi_jump_long_and_short_forms() -> None:
    # 1x10 (over 6), 10x19 (over 15), 19x26 (over 23): one triple jump
    b = Board("B:W6,15,23:B1")
    assert [m.path for m in b.legal_moves] == [(1, 10, 19, 26)]
    m = b.legal_moves[0]
    assert m.long == "1x10x19x26" and m.short == "1x26" and m.captures == (6, 15, 23)
    assert b.parse_move("1x26") == b.parse_move("1x10x19x26") == b.parse_move("1x19x26") == m


def test_king_round_trip_is_two_moves_with_same_effect() -> None:
    # A black king on 6 takes 9, 17, 18, 10 round the diamond and lands back on 6, either way
    # round: two distinct moves (perft counts paths) that the short text 6x6 names alike.
    b = Board("B:W9,10,17,18:BK6")
    loops = [m for m in b.legal_moves if m.from_square == m.to_square]
    assert len(loops) == 2
    assert loops[0].path != loops[1].path
    assert set(loops[0].captures) == set(loops[1].captures) == {9, 10, 17, 18}
    assert b.parse_move("6x6") in loops
    assert b.notation(loops[0]) == "6x6"


def test_ambiguous_move_text() -> None:
    # The man on 6 reaches 22 by 6x15x22 (taking 10, 18) or 6x13x22 (taking 9, 17).
    b = Board("B:W9,10,17,18:B6")
    assert sorted(m.path for m in b.legal_moves) == [(6, 13, 22), (6, 15, 22)]
    with pytest.raises(AmbiguousMoveError, match="6x13x22"):
        b.parse_move("6x22")
    for m in b.legal_moves:
        assert b.notation(m) == m.long
        assert b.parse_move(m.long) == m


def test_crowning_ends_the_move() -> None:
    # A black man on 22 jumps 26 to land on 31 (king row) and may not continue over 27.
    b = Board("B:W26,27:B22")
    moves = b.legal_moves
    assert [m.path for m in moves] == [(22, 31)]
    b.push(moves[0])
    assert b.piece_at(31) is not None and b.piece_at(31).king  # type: ignore[union-attr]


def test_no_moves_loses() -> None:
    b = Board("W:W:B1,2")
    out = b.outcome()
    assert out is not None and out.termination is Termination.NO_MOVES and out.winner == BLACK
    assert b.result() == "1-0"
    with pytest.raises(GameOverError):
        b.require_moves()
    with pytest.raises(GameOverError, match="no legal moves"):
        Board("W:W:B1,2").require_a_move()  # counted in C, with no moves built yet
    Board().require_a_move()
    assert Board().has_moves and not Board("W:W:B1,2").has_moves
    # Black's men on 5 and 9 are blocked by 13/14 backed by 17/18... with no move at all Black loses.
    blocked = Board("B:W13,14,17,18:B9")
    assert blocked.legal_moves == []
    assert blocked.outcome() is not None and blocked.outcome().winner == WHITE  # type: ignore[union-attr]


def test_threefold_repetition_and_forty_move_rule() -> None:
    b = Board("B:WK28:BK1")
    shuffle = ["1-6", "28-24", "6-1", "24-28"]
    for _ in range(2):
        b.push_many(shuffle)
    assert b.repetition_count() == 3
    out = b.outcome()
    assert out is not None and out.termination is Termination.REPETITION and out.winner is None
    assert b.result() == "1/2-1/2"

    k = Board("B:WK28,K32:BK1,K5")
    path_b = ["1-6", "6-10", "10-6", "6-1"]
    path_w = ["28-24", "24-19", "19-24", "24-28"]
    plies = 0
    while k.outcome() is None:
        k.push_pdn(path_b[plies // 2 % 4] if k.turn == BLACK else path_w[plies // 2 % 4])
        plies += 1
        if plies > 200:
            break
    out = k.outcome()
    assert out is not None and out.termination in (Termination.REPETITION, Termination.FORTY_MOVES)


def test_forty_move_counter_resets_on_man_move() -> None:
    b = Board("B:WK28,21:BK1,12")
    b.push_pdn("1-6")
    b.push_pdn("28-24")
    assert b.quiet_plies == 2
    b.push_pdn("12-16")
    assert b.quiet_plies == 0


def test_search_history_spans_reversible_moves_only() -> None:
    b = Board("B:WK28,21:BK1,12")
    b.push_pdn("12-16")
    b.push_pdn("28-24")
    b.push_pdn("1-6")
    assert len(b.search_history()) == 2
    assert b.turn == WHITE


def test_copy_is_independent() -> None:
    b = Board()
    c = b.copy()
    c.push_pdn("11-15")
    assert b.fen() == START_FEN and c.fen() != START_FEN


@pytest.mark.parametrize("seed", range(40))
def test_a_trimmed_board_keeps_what_search_and_the_draw_rules_read(seed: int) -> None:
    import pickle
    import random

    rng = random.Random(seed)
    board = Board()
    for _ in range(rng.randrange(1, 160)):
        if not board.legal_moves:
            break
        board.push(rng.choice(board.legal_moves))
    t = board.trimmed()
    assert len(pickle.dumps(t)) <= len(pickle.dumps(board))
    for _ in range(6):  # the same after further moves too
        assert (t.fen(), t.ply, t.quiet_plies, t.previous_raw, t.search_history(), t.repetition_count()) == \
            (board.fen(), board.ply, board.quiet_plies, board.previous_raw, board.search_history(),
             board.repetition_count())
        assert t.legal_moves == board.legal_moves and t.outcome() == board.outcome()
        if not board.legal_moves:
            break
        move = rng.choice(board.legal_moves)
        board.push(move)
        t.push(move)
    assert pickle.loads(pickle.dumps(t)).fen() == t.fen()


def _legal_prefix_slowly(board: Board, moves: list[Move]) -> int:
    b = board.copy()
    for k, m in enumerate(moves):
        if not b.is_legal(m):
            return k
        b.push(m)
    return len(moves)


@pytest.mark.parametrize("seed", range(40))
def test_legal_prefix_matches_pushing_the_moves_one_by_one(seed: int) -> None:
    import random

    rng = random.Random(seed)
    board = Board()
    for _ in range(rng.randrange(0, 60)):
        if board.outcome() is not None:
            break
        board.push(rng.choice(board.legal_moves))
    line: list[Move] = []
    b = board.copy()
    for _ in range(rng.randrange(0, 20)):
        if b.outcome() is not None:
            break
        m = rng.choice(b.legal_moves)
        line.append(m)
        b.push(m)
    expected = len(line)
    k = rng.randrange(len(line)) if line else 0
    # Spoil move k: played backwards it starts from an empty square (not a king's round trip, whose
    # reversed path is the same trip the other way round).
    if line and rng.random() < 0.5 and line[k].path[0] != line[k].path[-1]:
        expected = k
        line[k] = Move(tuple(reversed(line[k].path)), ())
    before = board.fen()
    assert board.legal_prefix(line) == _legal_prefix_slowly(board, line) == expected
    assert core.move_count(b.raw) == len(core.legal_moves(b.raw))
    assert board.fen() == before


def test_legal_prefix_refuses_paths_off_the_board() -> None:
    with pytest.raises(ValueError, match="path"):
        Board().legal_prefix([Move((9, 33), ())])
    assert Board().legal_prefix([]) == 0
