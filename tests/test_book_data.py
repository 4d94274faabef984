"""Book positions from PDN: positions, book move index, children, split, skipped games, cache."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from book_scoring import SMALL_PDN as SMALL
from shared_data import oca_first_games

from engine import core
from engine.board import Board
from engine.learners import book_data

OCA = oca_first_games()


@pytest.fixture(scope="module")
def small() -> book_data.BookPositions:
    return book_data.extract(SMALL)


def test_bad_games_are_skipped_and_counted(small: book_data.BookPositions) -> None:
    assert small.games_read == 9
    assert small.skipped == 1
    assert "game 2" in small.errors[0] and "15-24" in small.errors[0]
    assert 2 not in set(small.game.tolist())


def test_positions_have_a_choice_and_the_book_move(small: book_data.BookPositions) -> None:
    assert (small.counts >= 2).all()
    assert ((small.book >= 0) & (small.book < small.counts)).all()
    # The first position of game 1 is the start, Black played 11-15.
    assert small.ply[0] == 0 and small.game[0] == 1 and not small.has_parent[0]
    board = Board()
    assert small.raw(0) == board.raw
    legal = board.legal_moves
    k = int(small.book[0])
    assert legal[k].long == "11-15"
    assert len(legal) == small.counts[0] == 7
    assert small.has_parent[1] and small.parent_raw(1) == board.raw


def test_replay_matches_the_board(small: book_data.BookPositions) -> None:
    # Game 3 (Carluke) replayed on a Board: every position with a choice is stored with its ply.
    board = Board()
    moves = ["11-15", "23-18", "8-11", "26-23", "10-14", "30-26", "7-10", "24-19", "15x24", "28x19", "2-7",
             "22-17", "4-8", "26-22", "11-16", "27-24", "16-20", "32-28", "20x27", "31x24", "8-11", "24-20"]
    rows = np.flatnonzero(small.game == 3)
    expected = []
    for ply, text in enumerate(moves):
        if len(board.legal_moves) >= 2:
            expected.append((ply, board.raw, board.legal_moves.index(board.parse_move(text))))
        board.push_pdn(text)
    assert len(rows) == len(expected)
    for i, (ply, raw, book) in zip(rows, expected, strict=True):
        assert small.ply[i] == ply and small.raw(int(i)) == raw and small.book[i] == book


def test_children_agree_with_the_core(small: book_data.BookPositions) -> None:
    for j in range(small.num_moves):
        i = int(small.owner[j])
        child, _ = core.apply_move(small.raw(i), j - int(small.start[i]))
        assert small.child_raw(j) == child


def test_split_is_fixed_disjoint_and_complete(small: book_data.BookPositions) -> None:
    train, test = small.split("train"), small.split("test")
    assert set(test.game.tolist()) == {10}
    assert set(train.game.tolist()) == {1, 3, 4, 5, 6, 7, 8, 9}
    assert len(train) + len(test) == len(small)
    assert book_data.is_held_out(20) and not book_data.is_held_out(21)
    only_test = book_data.extract(SMALL, split="test")
    assert np.array_equal(only_test.pos, test.pos) and np.array_equal(only_test.book, test.book)
    again = book_data.extract(SMALL, split="train")
    assert np.array_equal(again.pos, train.pos)
    assert np.array_equal(again.move_from, train.move_from)


def test_unseen_split_and_validation_share_no_position_with_training(
        small: book_data.BookPositions, tmp_path: Path) -> None:
    train, test = small.split("train"), small.split("test")
    unseen = small.split("unseen")
    keys = set(book_data.position_keys(train).tolist())
    assert 0 < len(unseen) < len(test)  # the opening positions of game 10 are in the others
    assert not keys & set(book_data.position_keys(unseen).tolist())
    held = set(book_data.position_keys(test).tolist())
    assert {k for k in held if k not in keys} == set(book_data.position_keys(unseen).tolist())
    for loaded in (book_data.extract(SMALL, split="unseen"),
                   book_data.load(SMALL, split="unseen", cache_dir=tmp_path)):
        assert np.array_equal(loaded.pos, unseen.pos) and np.array_equal(loaded.book, unseen.book)
    fit, check = book_data.validation(train)
    assert set(check.game.tolist()) <= {1} and set(fit.game.tolist()) == {3, 4, 5, 6, 7, 8, 9}
    assert not set(book_data.position_keys(fit).tolist()) & set(book_data.position_keys(check).tolist())


def test_take_keeps_moves_with_their_positions(small: book_data.BookPositions) -> None:
    sub = small.take(np.array([5, 2]))
    assert sub.raw(0) == small.raw(5) and sub.raw(1) == small.raw(2)
    assert sub.counts.tolist() == [small.counts[5], small.counts[2]]
    s = int(small.start[2])
    assert sub.move_from[int(sub.start[1]):].tolist() == small.move_from[s:s + int(small.counts[2])].tolist()


def test_limit_and_cache(tmp_path: Path, small: book_data.BookPositions) -> None:
    first = book_data.extract(SMALL, limit_games=3)
    assert set(first.game.tolist()) == {1, 3}
    a = book_data.load(SMALL, cache_dir=tmp_path)
    assert list(tmp_path.glob("*.npz"))
    b = book_data.load(SMALL, cache_dir=tmp_path)
    for name in ("pos", "parent", "ply", "game", "book", "start", "move_from", "move_to", "move_caps"):
        assert np.array_equal(getattr(a, name), getattr(b, name))
    assert b.skipped == 1 and b.games_read == 9


def test_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        book_data.extract(tmp_path / "nope.pdn")
    with pytest.raises(FileNotFoundError):
        book_data.load(tmp_path / "nope.pdn", cache_dir=tmp_path)


def test_vectorized_terms_agree_with_the_core(small: book_data.BookPositions) -> None:
    children = small.children()
    mat = book_data.material(children)
    caps = book_data.has_capture(children)
    spec = core.EvalSpec(core.EVAL_MATERIAL)
    for j in range(small.num_moves):
        raw = small.child_raw(j)
        assert mat[j] == core.evaluate(raw, spec)
        assert caps[j] == any(m.captures for m in core.legal_moves(raw))


def test_a_few_oca_games() -> None:
    d = book_data.extract(OCA, limit_games=20)
    assert d.games_read + d.skipped == 20
    assert 600 < len(d) < 1200
    assert 5 < d.counts.mean() < 10
