"""Openings: the ACF ballot decks, FEN and PDN files, and the cutechess-like order."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.board import Board
from engine.errors import PdnError
from matches import openings
from matches.openings import (
    DECKS,
    DEFAULT_BALLOTS,
    Opening,
    OpeningError,
    ballot_deck,
    load_openings,
    openings_from_file,
    ordered,
)

pytestmark = pytest.mark.skipif(not DEFAULT_BALLOTS.is_file(), reason=f"needs {DEFAULT_BALLOTS}")

HEADER = "number,moves,kind,computer_tough_deck,name,fen\n"
BALLOT_1 = (
    '1,9-13 21-17 5-9,crossboard,no,"",W:W17,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,6,7,8,9,10,11,12,13\n'
)


def test_deck_sizes_are_cumulative() -> None:
    sizes = {deck: len(ballot_deck(deck)) for deck in DECKS}
    assert sizes == {"crossboard": 144, "mailplay": 156, "barred": 174}
    kinds = [b.kind for b in ballot_deck("barred")]
    assert (kinds.count("crossboard"), kinds.count("mailplay"), kinds.count("barred")) == (144, 12, 18)
    assert len({b.number for b in ballot_deck("barred")}) == 174


def test_first_crossboard_ballot() -> None:
    first = ballot_deck()[0]
    assert first == Opening(
        index=0,
        label="ACF 1: 9-13 21-17 5-9",
        fen="W:W17,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,6,7,8,9,10,11,12,13",
        moves="9-13 21-17 5-9",
        start_fen="",
        number=1,
        kind="crossboard",
    )


def test_every_ballot_is_its_moves_from_the_start() -> None:
    for b in ballot_deck("barred"):
        board = Board()
        board.push_many(b.moves.split())
        assert Board(b.fen) == board and board.fen() == b.fen
        assert board.legal_moves
    deck = ballot_deck("mailplay")
    assert [b.index for b in deck] == list(range(156))


def test_unknown_deck() -> None:
    with pytest.raises(ValueError, match="unknown deck 'golden'"):
        ballot_deck("golden")


def test_shuffle_is_a_seeded_permutation() -> None:
    deck = ballot_deck()
    a = ordered(deck, shuffle_seed=7)
    assert a == ordered(deck, shuffle_seed=7)
    assert a != deck and sorted(a, key=lambda o: o.index) == deck
    assert ordered(deck, shuffle_seed=8) != a
    assert ordered(deck) == deck


def test_start_and_limit() -> None:
    deck = ballot_deck()
    assert ordered(deck, start=3, limit=2) == deck[2:4]
    assert ordered(deck, start=144) == deck[-1:]
    assert ordered(deck, limit=500) == deck
    shuffled = ordered(deck, shuffle_seed=1)
    assert ordered(deck, shuffle_seed=1, start=5, limit=3) == shuffled[4:7]
    bad = (({"start": 0}, "number 1"), ({"start": 145}, "only 144"), ({"limit": 0}, "at least 1"))
    for kwargs, message in bad:
        with pytest.raises(ValueError, match=message):
            ordered(deck, **kwargs)  # type: ignore[arg-type]


def test_load_openings_by_deck_name() -> None:
    assert len(load_openings("MAILPLAY")) == 156
    got = load_openings("crossboard", shuffle_seed=3, start=2, limit=4)
    assert got == ordered(ballot_deck(), shuffle_seed=3)[1:5]


def test_ballots_file_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    small = tmp_path / "ballots.csv"
    small.write_text(HEADER + BALLOT_1)
    monkeypatch.setenv("SAMUEL_BALLOTS", str(small))
    assert [b.number for b in ballot_deck()] == [1]
    assert openings.ballots_path(DEFAULT_BALLOTS) == DEFAULT_BALLOTS  # an argument beats the variable
    monkeypatch.setenv("SAMUEL_BALLOTS", str(tmp_path / "gone.csv"))
    with pytest.raises(FileNotFoundError, match=r"gone\.csv.*SAMUEL_BALLOTS"):
        ballot_deck()


def test_fen_file(tmp_path: Path) -> None:
    path = tmp_path / "starts.fen"
    path.write_text(
        "# two positions\n"
        "\n"
        "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12\n"
        "W:WK28:B24,16   # a king hunt\n"
    )
    got = openings_from_file(path)
    assert [o.label for o in got] == ["starts.fen:3", "starts.fen:4"]
    assert [o.index for o in got] == [0, 1]
    assert got[1].fen == Board("W:WK28:B24,16").fen()
    assert got[1].moves == "" and got[1].number is None
    assert load_openings(str(path), limit=1) == got[:1]


def test_pdn_file(tmp_path: Path) -> None:
    path = tmp_path / "lines.pdn"
    path.write_text(
        '[Event "a"]\n1. 11-15 23-19 2. 8-11 *\n\n'
        '[Event "b"]\n[SetUp "1"]\n[FEN "W:WK32:B16,K1"]\n1. 32-27 *\n'
    )
    first, second = openings_from_file(path)
    board = Board()
    board.push_many(["11-15", "23-19", "8-11"])
    assert first == Opening(0, "lines.pdn #1", board.fen(), "11-15 23-19 8-11", "")
    assert second.label == "lines.pdn #2"
    assert second.start_fen == Board("W:WK32:B16,K1").fen()
    assert second.moves == "32-27"
    b2 = Board(second.start_fen)
    b2.push_pdn("32-27")
    assert second.fen == b2.fen()


def test_ballots_csv_as_a_file(tmp_path: Path) -> None:
    path = tmp_path / "mine.csv"
    path.write_text(HEADER + BALLOT_1)
    assert [o.label for o in load_openings(str(path))] == ["ACF 1: 9-13 21-17 5-9"]


# ---- errors ----


def test_missing_files(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"nowhere\.fen"):
        openings_from_file(tmp_path / "nowhere.fen")
    with pytest.raises(FileNotFoundError, match=r"nowhere\.pdn.*crossboard"):
        load_openings(str(tmp_path / "nowhere.pdn"))
    with pytest.raises(FileNotFoundError, match=r"nowhere\.csv"):
        ballot_deck("crossboard", tmp_path / "nowhere.csv")


def test_bad_fen_line_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.fen"
    path.write_text("B:W21,22:B1,2\n\nW:W33:B1\n")
    with pytest.raises(OpeningError, match=r"bad\.fen:3: "):
        openings_from_file(path)


def test_position_without_a_move_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "over.fen"
    path.write_text("B:W21:B\n")
    with pytest.raises(OpeningError, match=r"over\.fen:1: .*no move"):
        openings_from_file(path)


def test_empty_files(tmp_path: Path) -> None:
    (tmp_path / "empty.fen").write_text("# nothing\n")
    with pytest.raises(OpeningError, match="no positions"):
        openings_from_file(tmp_path / "empty.fen")
    (tmp_path / "empty.pdn").write_text("")
    with pytest.raises(OpeningError, match="no games"):
        openings_from_file(tmp_path / "empty.pdn")


def test_bad_pdn_names_the_game(tmp_path: Path) -> None:
    path = tmp_path / "bad.pdn"
    path.write_text('[Event "ok"]\n1. 11-15 *\n\n[Event "bad"]\n1. 11-15 24-20 2. 15-24 *\n')
    with pytest.raises(PdnError, match="game 2"):
        openings_from_file(path)


@pytest.mark.parametrize("body, message", [
    (BALLOT_1.replace("B1,2,3,4,6", "B1,2,3,4,5"), r"ballots\.csv:2: ballot 1: FEN .* is not the position"),
    (BALLOT_1.replace("9-13 21-17", "9-13 21-18"), r"ballots\.csv:2: ballot 1: illegal move"),
    (BALLOT_1.replace("crossboard", "golden"), r"ballots\.csv:2: kind 'golden'"),
    (BALLOT_1.replace("1,9-13", "one,9-13", 1), r"ballots\.csv:2: ballot number 'one'"),
    ("1,9-13 21-17 5-9,crossboard\n", r"ballots\.csv:2: expected at least 6 fields"),
    (BALLOT_1 + BALLOT_1, r"ballots\.csv:3: ballot 1 again"),
    ("", r"no ballots"),
])
def test_corrupt_ballots(tmp_path: Path, body: str, message: str) -> None:
    path = tmp_path / "ballots.csv"
    path.write_text(HEADER + body)
    with pytest.raises(OpeningError, match=message):
        ballot_deck("crossboard", path)


def test_ballots_header_checked(tmp_path: Path) -> None:
    path = tmp_path / "ballots.csv"
    path.write_text("id,moves\n" + BALLOT_1)
    with pytest.raises(OpeningError, match=r"ballots\.csv:1: expected the columns"):
        ballot_deck("crossboard", path)
