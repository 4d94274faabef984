"""engine.game: the one game loop and game record the learners' self-play uses."""

from __future__ import annotations

import random

import pytest

from engine.board import Board
from engine.game import GameRecord, play_game, rule_ending
from engine.pdn import read_games
from engine.types import BLACK, WHITE


def test_random_games_end_by_the_rules_or_the_cap() -> None:
    rng = random.Random(7)
    seen = set()
    for _ in range(40):
        game = play_game(Board(), lambda b: rng.choice(b.legal_moves), max_plies=120)
        board = game.board()
        assert game.plies == len(board.move_stack) <= 120
        outcome = board.outcome()
        if outcome is not None:
            assert (game.result, game.termination) == (outcome.result(), outcome.termination.value)
        else:
            assert game.plies == 120
            assert (game.result, game.termination) == ("1/2-1/2", "move cap (120 plies)")
        seen.add(game.termination)
        (parsed,) = read_games(game.pdn({"Event": "test"}))
        assert parsed.result == game.result and parsed.ply_count == game.plies
    assert "move cap (120 plies)" in seen and len(seen) > 1


def test_one_chooser_a_side_a_judge_at_the_cap_and_move_hooks() -> None:
    board = Board()
    board.push_pdn("11-15")
    heard = []
    game = play_game(board, {BLACK: lambda b: b.legal_moves[0], WHITE: lambda b: b.legal_moves[-1]},
                     max_plies=6, at_cap=lambda b: ("1-0", "judged"), on_move=lambda b, m: heard.append(m))
    assert game.plies == 6 and (game.result, game.termination) == ("1-0", "judged")
    assert list(game.moves) == heard and board.move_stack[1:] == heard  # the board was played on
    assert game.board().fen() == board.fen()
    assert game.score_for(BLACK) == 1.0 and game.score_for(WHITE) == 0.0 and game.winner == BLACK


def test_an_illegal_choice_is_refused() -> None:
    other = Board()
    other.push_pdn("11-15")
    with pytest.raises(ValueError, match="not a legal move"):
        play_game(Board(), lambda b: other.legal_moves[0])


def test_the_rules_end_and_undecided_games() -> None:
    assert rule_ending(Board("W:W5:B1")) == ("1-0", "no legal moves")
    assert rule_ending(Board()) is None
    assert GameRecord(Board().fen(), (), "*", "stopped").score_for(BLACK) is None
