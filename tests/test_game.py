"""engine.game: the one game loop (learners' self-play and the match referee) and the game record."""

from __future__ import annotations

import random

import pytest

from engine.board import Board
from engine.game import GameEnd, GameLoop, GameRecord, MoveHook, MoveReply, play_game, rule_ending
from engine.pdn import read_games
from engine.termination import Termination
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
            assert (game.result, game.termination) == (outcome.result(), outcome.termination)
        else:
            assert game.plies == 120
            assert game.end == GameEnd("1/2-1/2", Termination.MOVE_CAP, "120 plies")
        seen.add(game.termination)
        (parsed,) = read_games(game.pdn({"Event": "test"}))
        assert parsed.result == game.result and parsed.ply_count == game.plies
        assert parsed.termination is game.termination
    assert Termination.MOVE_CAP in seen and len(seen) > 1


def test_one_chooser_a_side_a_judge_at_the_cap_and_move_hooks() -> None:
    board = Board()
    board.push_pdn("11-15")
    heard = []
    game = play_game(board, {BLACK: lambda b: b.legal_moves[0], WHITE: lambda b: b.legal_moves[-1]},
                     max_plies=6, at_cap=lambda b: GameEnd("1-0", Termination.ADJUDICATED_WIN, "judged"),
                     on_move=lambda b, m: heard.append(m))
    assert game.plies == 6 and (game.result, game.termination, game.detail) == \
        ("1-0", Termination.ADJUDICATED_WIN, "judged")
    assert game.opening_plies == 1 and list(game.moves[1:]) == heard and board.move_stack[1:] == heard
    assert game.board().fen() == board.fen()
    assert game.score_for(BLACK) == 1.0 and game.score_for(WHITE) == 0.0 and game.winner == BLACK


def test_an_old_style_judge_at_the_cap_is_read_into_the_vocabulary() -> None:
    game = play_game(Board(), lambda b: b.legal_moves[0], max_plies=4,
                     at_cap=lambda b: ("*", "stopped after 4 plies"))
    assert game.end == GameEnd("*", Termination.MOVE_CAP, "stopped after 4 plies")
    assert game.score_for(BLACK) is None


def test_an_illegal_choice_is_refused() -> None:
    other = Board()
    other.push_pdn("11-15")
    with pytest.raises(ValueError, match="not a legal move"):
        play_game(Board(), lambda b: other.legal_moves[0])


def test_the_loop_scores_an_illegal_move_as_a_loss_for_its_side() -> None:
    black_moves = Board().legal_moves
    loop = GameLoop(Board())
    loop.reply(MoveReply(black_moves[0]))
    loop.reply(MoveReply(black_moves[1]))  # White answers with a move of Black's
    assert loop.record is not None and loop.record.end == GameEnd("1-0", Termination.ILLEGAL_MOVE,
                                                                  loop.record.detail)
    assert loop.record.plies == 1 and "not a legal move" in loop.record.detail
    with pytest.raises(RuntimeError, match="over"):
        loop.reply(MoveReply(black_moves[2]))


class _Recorder(MoveHook):
    """Hears every hook call; ends the game on time at White's ``lose_at``-th answer."""

    def __init__(self, lose_at: int) -> None:
        self.calls: list[str] = []
        self.white_answers = 0
        self.lose_at = lose_at

    def before_move(self, board: Board) -> GameEnd | None:
        self.calls.append(f"before {board.ply}")
        return None

    def on_reply(self, board: Board, reply: MoveReply) -> GameEnd | None:
        self.calls.append(f"reply {board.ply} {reply.seconds}")
        if board.turn == WHITE:
            self.white_answers += 1
            if self.white_answers == self.lose_at:
                return GameEnd.loss_for(WHITE, Termination.TIME_FORFEIT, "too slow")
        return None

    def after_move(self, board: Board, reply: MoveReply) -> GameEnd | None:
        self.calls.append(f"after {board.ply}")
        return None


def test_hooks_around_each_move_can_end_the_game_before_it_is_played() -> None:
    hook = _Recorder(lose_at=2)
    loop = GameLoop(Board(), hooks=[hook])
    while not loop.over:
        loop.reply(MoveReply(loop.board.legal_moves[0], seconds=0.5))
    record = loop.record
    assert record is not None and (record.result, record.termination) == ("1-0", Termination.TIME_FORFEIT)
    assert record.plies == 3  # White's second move never counted
    assert hook.calls == ["before 0", "reply 0 0.5", "after 1", "before 1", "reply 1 0.5", "after 2",
                          "before 2", "reply 2 0.5", "after 3", "before 3", "reply 3 0.5"]
    assert record.pdn().count("time forfeit (too slow)") == 1


def test_a_source_that_fails_ends_the_game_and_an_ended_loop_says_so() -> None:
    loop = GameLoop(Board())
    loop.end(GameEnd.loss_for(BLACK, Termination.CRASH, "Black (x): gone"))
    assert loop.over and loop.record is not None and loop.record.result == "0-1"
    with pytest.raises(RuntimeError, match="over already"):
        loop.end(GameEnd.draw(Termination.ADJUDICATED_DRAW))


def test_the_rules_end_and_undecided_games() -> None:
    assert rule_ending(Board("W:W5:B1")) == GameEnd("1-0", Termination.NO_MOVES)
    assert rule_ending(Board()) is None
    assert rule_ending(Board(), max_plies=0) == GameEnd("1/2-1/2", Termination.MOVE_CAP, "0 plies")
    assert GameRecord(Board().fen(), (), "*", Termination.MOVE_CAP).score_for(BLACK) is None
    # words an older caller gave are read into the vocabulary
    old = GameRecord(Board().fen(), (), "1/2-1/2", "threefold repetition")  # type: ignore[arg-type]
    assert old.termination is Termination.REPETITION
