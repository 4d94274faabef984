"""The referee: rules, move cap, adjudication, time losses and faults, each scored and explained."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from engine.board import Board
from engine.limits import Limit
from engine.pdn import read_game
from engine.termination import Termination
from matches.player import Played, Player, PlayerFault
from matches.record import GameSpec
from matches.referee import Adjudication, GameRules, play_match_game
from matches.timecontrol import TimeControl

BALLOT_FEN = "W:W17,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,6,7,8,9,10,11,12,13"


def spec(moves: str = "9-13 21-17 5-9", fen: str = BALLOT_FEN) -> GameSpec:
    return GameSpec(game_id="r1:a:b:o0:c0", round=1, pair_id="r1:a:b:o0", colour=0, black="a", white="b",
                    opening_index=0, opening_label="ACF 1: 9-13 21-17 5-9", fen=fen, opening_moves=moves,
                    number=1)


class Scripted(Player):
    """Plays the first legal move (or what ``choose`` picks), reporting ``score``; can misbehave."""

    def __init__(self, name: str, *, score: float | None = 0.0, delay: float = 0.0,
                 fault_at: int | None = None, fault: Termination = Termination.CRASH,
                 choose: Callable[[Board], object] | None = None) -> None:
        super().__init__(name)
        self.score, self.delay, self.fault_at, self.fault = score, delay, fault_at, fault
        self.choose = choose
        self.moves = 0
        self.limits: list[Limit] = []
        self.ended: str | None = None

    async def start(self) -> None:
        return None

    async def new_game(self) -> None:
        return None

    async def play(self, board: Board, limit: Limit, timeout: float | None) -> Played:
        self.moves += 1
        self.limits.append(limit)
        if self.fault_at is not None and self.moves >= self.fault_at:
            raise PlayerFault(self.fault, f"{self.name} misbehaved on move {self.moves}")
        if self.delay:
            await asyncio.sleep(self.delay)
        move = self.choose(board) if self.choose else board.legal_moves[0]
        return Played(move, score=self.score, depth=3, nodes=100)  # type: ignore[arg-type]

    async def end_game(self, result: str) -> None:
        self.ended = result

    async def close(self) -> None:
        return None

    def kill(self) -> None:
        return None


def run(black: Player, white: Player, rules: GameRules | None = None, s: GameSpec | None = None):  # type: ignore[no-untyped-def]
    rules = rules or GameRules(default_tc=TimeControl(depth=1))
    return asyncio.run(play_match_game(s or spec(), black, white, rules))


def test_a_game_to_its_end_under_the_rules_writes_readable_pdn() -> None:
    rec = run(Scripted("a"), Scripted("b"))
    assert rec.ending in (Termination.NO_MOVES, Termination.REPETITION, Termination.FORTY_MOVES,
                          Termination.MOVE_CAP)
    game = read_game(rec.pdn)
    assert game.tags["GameType"] == "21" and game.tags["Opening"] == "ACF 1: 9-13 21-17 5-9"
    assert game.tags["Black"] == "a" and game.tags["Termination"] == rec.reason
    assert [m.long for m in game.moves[:3]] == ["9-13", "21-17", "5-9"]  # the ballot is in the game
    assert len(game.moves) == rec.plies + 3 and game.result == rec.result
    assert rec.sides["a"].moves + rec.sides["b"].moves == rec.plies


def test_move_cap_is_a_draw_counted_from_the_opening() -> None:
    rec = run(Scripted("a"), Scripted("b"), GameRules(default_tc=TimeControl(depth=1), max_plies=6))
    assert (rec.result, rec.ending, rec.plies) == ("1/2-1/2", Termination.MOVE_CAP, 6)


@pytest.mark.parametrize("fault", [t for t in Termination if t.is_fault])
def test_a_fault_loses_for_the_engine_at_fault(fault: Termination) -> None:
    # The ballot leaves White to move: White (b) faults on its second move.
    rec = run(Scripted("a"), Scripted("b", fault_at=2, fault=fault))
    assert (rec.result, rec.ending) == ("1-0", fault)
    assert rec.sides["b"].fault == fault.value and rec.sides["a"].fault == ""
    assert "White (b)" in rec.reason and "move 2" in rec.reason


def test_an_illegal_move_a_player_let_through_is_caught() -> None:
    def bad(board: Board) -> object:
        return Board().legal_moves[0]  # 9-13 is not legal after the ballot

    rec = run(Scripted("a", choose=bad), Scripted("b"), s=spec())
    assert (rec.result, rec.ending, rec.plies) == ("0-1", Termination.ILLEGAL_MOVE, 1)
    assert rec.sides["a"].fault == "illegal-move" and "Black (a)" in rec.reason


def test_loss_on_time_is_recorded_and_margin_respected() -> None:
    rules = GameRules(default_tc=TimeControl(movetime=0.02, margin=0.01))
    rec = run(Scripted("a"), Scripted("b", delay=0.2), rules)
    assert (rec.result, rec.ending) == ("1-0", Termination.TIME_FORFEIT)
    assert rec.sides["b"].time_forfeit and not rec.sides["a"].time_forfeit
    assert "lost on time" in rec.reason


def test_engines_get_their_clock() -> None:
    a, b = Scripted("a"), Scripted("b")
    rules = GameRules(default_tc=TimeControl(base=60, inc=1), time_controls={"b": TimeControl(depth=4)},
                      max_plies=4)
    run(a, b, rules)
    assert a.limits[0].time is not None and a.limits[0].time <= 60 and a.limits[0].inc == 1
    assert b.limits[0].depth == 4 and b.limits[0].time is None


def test_adjudication_draw_and_resign() -> None:
    draw = GameRules(default_tc=TimeControl(depth=1),
                     adjudication=Adjudication.parse(draw="movenumber=1 movecount=3 score=0.5"))
    rec = run(Scripted("a", score=0.1), Scripted("b", score=-0.1), draw)
    assert rec.ending is Termination.ADJUDICATED_DRAW and rec.result == "1/2-1/2" and rec.plies >= 6
    resign = GameRules(default_tc=TimeControl(depth=1),
                       adjudication=Adjudication.parse(resign="movecount=2 score=3"))
    rec = run(Scripted("a", score=5.0), Scripted("b", score=-5.0), resign)
    assert (rec.result, rec.ending) == ("1-0", Termination.RESIGNATION)
    assert "White (b) resigns" in rec.reason
    two = GameRules(default_tc=TimeControl(depth=1), max_plies=20,
                    adjudication=Adjudication.parse(resign="movecount=2 score=3 twosided=true"))
    rec = run(Scripted("a", score=0.0), Scripted("b", score=-5.0), two)
    assert rec.ending is not Termination.RESIGNATION  # the winner never agreed


def test_adjudication_specs_are_checked() -> None:
    with pytest.raises(ValueError, match="unknown key"):
        Adjudication.parse(draw="moves=3")
    with pytest.raises(ValueError, match="not an integer"):
        Adjudication.parse(resign="movecount=x score=3")
    with pytest.raises(ValueError, match="key=value"):
        Adjudication.parse(draw="movecount")


def test_end_game_is_told_the_result() -> None:
    a, b = Scripted("a"), Scripted("b")
    rec = run(a, b)
    assert a.ended == b.ended == rec.result


def test_rules_round_trip() -> None:
    rules = GameRules(default_tc=TimeControl.parse("tc=40/60+0.5"), time_controls={"x": TimeControl(depth=3)},
                      adjudication=Adjudication.parse("movenumber=30 movecount=4 score=0.2"), max_plies=300)
    assert GameRules.from_dict(rules.to_dict()) == rules


class FailsToBegin(Scripted):
    async def new_game(self) -> None:
        raise PlayerFault(Termination.CRASH, f"{self.name} died between games")


def test_an_engine_that_cannot_begin_a_game_loses_it_even_in_a_finished_position() -> None:
    rec = run(Scripted("a"), FailsToBegin("b"))
    assert (rec.result, rec.ending, rec.plies) == ("1-0", Termination.CRASH, 0)
    assert rec.sides["b"].fault == "crash" and "White (b): b died between games" in rec.reason
    # White to move with no move: the rules would give Black the game, but White's engine failed first
    over = spec(moves="", fen="W:W5:B1,9")
    rec = run(FailsToBegin("a"), Scripted("b"), s=over)
    assert (rec.result, rec.ending, rec.sides["a"].fault) == ("0-1", Termination.CRASH, "crash")
