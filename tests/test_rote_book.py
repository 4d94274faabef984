"""Following book games into the rote memory (engine/learners/rote_book.py, ``samuel learn rote book``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Board, Limit, Mode, Searcher
from engine.core import rote_key
from engine.evaluators import by_name
from engine.learners.rote import AgePolicy, RoteMemory, effective_ply
from engine.learners.rote_book import BookRun, follow_book
from engine.pdn import read_games
from samuel.cli import main as samuel_main

TWO_GAMES = """[Event "one"]
[Result "0-1"]
1. 11-15 24-20 2. 8-11 28-24 3. 9-13 22-18 4. 15x22 25x18 5. 4-8 26-22 6. 10-14
18x9 7. 5x14 22-18 8. 1-5 18x9 9. 5x14 29-25 0-1

[Event "two"]
[Result "1/2-1/2"]
1. 11-15 23-18 2. 8-11 26-23 3. 10-14 30-26 4. 7-10 24-19 5. 15x24 28x19 1/2-1/2
"""

BAD_GAME = """[Event "bad"]
[Result "*"]
1. 11-15 24-20 2. 8-11 27-23 *
"""


@pytest.fixture
def pdn(tmp_path: Path) -> Path:
    f = tmp_path / "two.pdn"
    f.write_text(TWO_GAMES)
    return f


def _positions(game_text: str) -> list[tuple[Board, str]]:
    """Every position of the game (a board with its history) and the book move played there."""
    (game,) = read_games(game_text)
    board = Board(game.initial_fen)
    out = []
    for move in game.moves:
        out.append((board.copy(), str(move)))
        board.push(move)
    return out


def test_book_positions_are_saved_with_their_search_scores(pdn: Path, tmp_path: Path) -> None:
    ev = by_name("samuel-rote")
    games_text = TWO_GAMES.split("\n\n")
    with RoteMemory(tmp_path / "m.db", AgePolicy(max_age=1000)) as memory:
        first = next(follow_book(memory, pdn, ev, games=1, depth=3))
        # The first game is searched with the memory still empty (it merges at the game's end):
        # the same searches by a fresh searcher give the same scores and plies.
        s = Searcher(ev, mode=Mode.SAMUEL, hash_mb=16)
        expected: dict[object, tuple[int, int]] = {}
        disagreed = 0
        for board, book_move in _positions(games_text[0]):
            r = s.search(board, Limit(depth=3))
            disagreed += str(r.best) != book_move
            key = rote_key(board.raw)
            old = expected.get(key)
            if old is None or effective_ply(r) >= old[1]:
                expected[key] = (r.info.score.value, effective_ply(r))
        stored = {key: memory.table().get(key) for key in expected}
        assert stored == expected
        assert len(memory) == len(expected) == first.merge.total  # type: ignore[union-attr]
        assert first.plies == 18 and first.agreed == 18 - disagreed
        assert disagreed > 0  # the program had ideas of its own, yet only the book's positions are saved

        second = next(follow_book(memory, pdn, ev, depth=3))  # resumes at game 2
        assert second.number == 2 and second.plies == 10
        book_keys = {rote_key(b.raw) for text in games_text for b, _ in _positions(text)}
        assert {k for chunk in memory.store.rows() for k in ((r[0], r[1], r[2]) for r in chunk)} == book_keys
        assert list(follow_book(memory, pdn, ev)) == []  # both followed: nothing left
        again = list(follow_book(memory, pdn, ev, resume=False))
        assert [g.number for g in again] == [1, 2]


def test_unreadable_games_are_skipped_and_counted(tmp_path: Path) -> None:
    f = tmp_path / "mixed.pdn"
    f.write_text(TWO_GAMES + "\n" + BAD_GAME)
    run = BookRun()
    with RoteMemory(tmp_path / "m.db") as memory:
        got = list(follow_book(memory, f, by_name("samuel-rote"), depth=2, run=run))
    assert [(g.number, g.error is None) for g in got] == [(1, True), (2, True), (3, False)]
    assert (run.followed, run.skipped, run.positions) == (2, 1, 28)
    assert "27-23" in run.errors[0] and "game 3" in run.errors[0]


def test_cli_book_and_its_errors(pdn: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "c.db")
    assert samuel_main(["learn", "rote", "book", "--db", db, "--pdn", str(pdn), "--quiet",
                        "--depth", "2"]) == 0
    out = capsys.readouterr().out
    assert "2 games followed, 28 positions searched and saved" in out and "0 skipped" in out
    assert samuel_main(["learn", "rote", "book", "--db", db, "--pdn", str(pdn), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "0 games followed" in out and "2 followed before" in out

    missing = tmp_path / "nope.pdn"
    assert samuel_main(["learn", "rote", "book", "--db", db, "--pdn", str(missing), "--quiet"]) == 2
    assert f"{missing} does not exist" in capsys.readouterr().err

    junk = tmp_path / "junk.pdn"
    junk.write_text("this is not a PDN file\n")
    assert samuel_main(["learn", "rote", "book", "--db", db, "--pdn", str(junk), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert str(junk) in err and "could be read" in err

    empty = tmp_path / "empty.pdn"
    empty.write_text("")
    assert samuel_main(["learn", "rote", "book", "--db", db, "--pdn", str(empty), "--quiet"]) == 2
    assert "no games in the file" in capsys.readouterr().err


def test_a_store_from_before_book_games_gets_the_table(tmp_path: Path) -> None:
    import sqlite3

    from engine.learners.rote_store import RoteStore

    path = tmp_path / "old.db"
    RoteStore(path).close()
    db = sqlite3.connect(path)
    db.execute("DROP TABLE book_games")  # what a store written before the table looks like
    db.commit()
    db.close()
    with RoteStore(path) as store:
        assert store.book_games("x.pdn:0") == set()
        store.merge(book_games=[("x.pdn:0", 7)])
        assert store.book_games("x.pdn:0") == {7}
