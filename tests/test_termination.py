"""engine.termination: one vocabulary of endings, and the words older files wrote read into it."""

from __future__ import annotations

import pytest

from engine.board import Board
from engine.pdn import read_game
from engine.termination import Termination


def test_values_labels_and_the_pdn_tag() -> None:
    assert {t.value for t in Termination} >= {"no-moves", "repetition", "forty-move-rule", "move-cap",
                                              "adjudicated-draw", "resignation", "time-forfeit", "crash",
                                              "stall", "illegal-move", "protocol-error"}  # match logs' words
    assert len({t.label for t in Termination}) == len(Termination)
    assert Termination.MOVE_CAP.describe("200 plies") == "move cap (200 plies)"
    assert Termination.REPETITION.describe() == "threefold repetition"
    assert [t for t in Termination if t.is_fault] == [Termination.CRASH, Termination.STALL,
                                                       Termination.ILLEGAL_MOVE, Termination.PROTOCOL_ERROR]
    for t in Termination:
        assert Termination.read(t.value) is t and Termination.read(t.label) is t
        assert Termination.read(t.describe("some detail (with brackets)")) is t


def test_the_board_reports_its_endings_in_the_same_vocabulary() -> None:
    outcome = Board("W:W5:B1").outcome()
    assert outcome is not None and outcome.termination is Termination.NO_MOVES
    assert [t for t in Termination if t.is_rule] == [Termination.NO_MOVES, Termination.REPETITION,
                                                      Termination.FORTY_MOVES]


@pytest.mark.parametrize(("words", "result", "expected"), [
    ("no legal moves", "1-0", Termination.NO_MOVES),
    ("move cap (300 plies)", "1/2-1/2", Termination.MOVE_CAP),
    ("stopped after 200 plies", "*", Termination.MOVE_CAP),
    ("adjudicated: a lead of 2+ pieces for 10 plies", "0-1", Termination.ADJUDICATED_WIN),
    ("stopped after 60 moves, judged on material", "1-0", Termination.ADJUDICATED_WIN),
    ("stopped after 60 moves, judged on material", "1/2-1/2", Termination.ADJUDICATED_DRAW),
    ("draw by threefold repetition", "1/2-1/2", Termination.REPETITION),
    ("draw by 40-move rule", "1/2-1/2", Termination.FORTY_MOVES),
    ("Black (a) has no legal move", "0-1", Termination.NO_MOVES),
    ("draw at the move cap (400 plies)", "1/2-1/2", Termination.MOVE_CAP),
    ("draw adjudicated on score", "1/2-1/2", Termination.ADJUDICATED_DRAW),
    ("White (b) resigns (adjudicated on score -5.00)", "1-0", Termination.RESIGNATION),
    ("White (b) lost on time: 0.312 s with 0.100 s allowed", "1-0", Termination.TIME_FORFEIT),
    ("Black (a) played an illegal move 9-13", "0-1", Termination.ILLEGAL_MOVE),
    ("White (b) crash: engine 'b' failed during its move", "1-0", Termination.CRASH),
    ("Black (x y) protocol-error: bad line", "0-1", Termination.PROTOCOL_ERROR),
])
def test_words_older_files_wrote(words: str, result: str, expected: Termination) -> None:
    assert Termination.read(words, result) is expected


def test_unknown_words_are_named() -> None:
    with pytest.raises(ValueError, match="unknown game termination 'abandoned'"):
        Termination.read("abandoned")


def test_an_old_pdn_game_tells_how_it_ended() -> None:
    old = read_game('[Event "samuel match"]\n[Result "1-0"]\n'
                    '[Termination "White (b) lost on time: 0.312 s with 0.100 s allowed"]\n1. 9-13 1-0\n')
    assert old.termination is Termination.TIME_FORFEIT
    assert read_game('[Event "x"]\n1. 9-13 *\n').termination is None
    assert read_game('[Termination "abandoned"]\n1. 9-13 *\n').termination is None
