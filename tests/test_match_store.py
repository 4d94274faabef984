"""The tournament directory: the event log survives a kill, games are counted once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.board import Board
from engine.game import GameEnd, GameRecord
from engine.termination import Termination
from matches.record import GameSpec, MatchGame, RecordError, SideReport
from matches.store import StoreError, TournamentStore, finished_records, read_events

PDN = '[Event "t"]\n[Result "1-0"]\n[GameType "21"]\n[Termination "crash (why)"]\n1. 9-13 1-0\n'


def record(game_id: str, result: str = "1-0") -> MatchGame:
    spec = GameSpec(game_id=game_id, round=1, pair_id=game_id[:-3], colour=0, black="a", white="b",
                    opening_index=0, opening_label="o", fen="B:W21:B1")
    board = Board()
    board.push_pdn("9-13")
    game = GameRecord.of(board, GameEnd(result, Termination.CRASH, "why"))
    return MatchGame(spec=spec, game=game, tags={"Event": "t"}, seconds=1.5,
                     sides={"a": SideReport(moves=2), "b": SideReport(fault="crash")})


def test_round_trip_and_resume_rewrites_pdn(tmp_path: Path) -> None:
    store = TournamentStore.create(tmp_path / "t")
    store.append({"event": "tournament_started", "config": {"x": 1}, "total_games": 2})
    store.finished(record("g:c0"))
    store.finished(record("g:c0", "0-1"))  # a retried game reported twice: the first counts
    with open(store.games, "a") as fh:
        fh.write('[Event "half written')  # the kill came mid-PDN
    with open(store.events, "a") as fh:
        fh.write('{"event": "game_fini')  # ... or mid-event
    again, config, done = TournamentStore.reopen(tmp_path / "t")
    assert config == {"x": 1}
    assert [r.game_id for r in done] == ["g:c0"] and done[0].result == "1-0"
    assert done[0].sides["b"].fault == "crash" and done[0].ending is Termination.CRASH
    assert again.games.read_text() == PDN + "\n"


def test_refuses_to_overwrite_and_names_missing_dirs(tmp_path: Path) -> None:
    store = TournamentStore.create(tmp_path / "t")
    store.append({"event": "tournament_started", "config": {}, "total_games": 0})
    with pytest.raises(StoreError, match="--resume"):
        TournamentStore.create(tmp_path / "t")
    with pytest.raises(StoreError, match="no tournament"):
        TournamentStore.reopen(tmp_path / "nothing")


def test_damage_before_the_last_line_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    path.write_text('{"event": "a"}\nnot json\n{"event": "b"}\n')
    with pytest.raises(StoreError, match=r"events.jsonl:2"):
        read_events(path)
    finished = {"event": "game_finished", "record": record("x:c1").to_dict()}
    path.write_text('{"event": "a"}\n' + json.dumps(finished))
    assert [r.game_id for r in finished_records(read_events(path))] == ["x:c1"]


# A game_finished record as the event log held it before a match game contained its game record:
# result, ending, reason, plies and PDN side by side (the ballot's three moves in the PDN).
OLD_RECORD = {
    "spec": {"game_id": "r1:a:b:o0:c0", "round": 1, "pair_id": "r1:a:b:o0", "colour": 0, "black": "a",
             "white": "b", "opening_index": 0, "opening_label": "ACF 1: 9-13 21-17 5-9",
             "fen": "W:W17,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,6,7,8,9,10,11,12,13",
             "opening_moves": "9-13 21-17 5-9", "start_fen": "", "number": 1},
    "result": "1-0", "ending": "time-forfeit",
    "reason": "White (b) lost on time: 0.312 s with 0.100 s allowed", "plies": 2,
    "pdn": ('[Event "samuel match"]\n[Site "samuel"]\n[Date "2026.11.20"]\n[Round "1"]\n[Black "a"]\n'
            '[White "b"]\n[Result "1-0"]\n[GameType "21"]\n[Opening "ACF 1: 9-13 21-17 5-9"]\n'
            '[TimeControl "movetime=0.1"]\n'
            '[Termination "White (b) lost on time: 0.312 s with 0.100 s allowed"]\n'
            '[GameId "r1:a:b:o0:c0"]\n1. 9-13 21-17 2. 5-9 17-14 3. 10x17 1-0\n'),
    "seconds": 3.5, "sides": {"a": {"moves": 1, "seconds": 0.1, "depth_sum": 3, "nodes": 100,
                                    "time_forfeit": False, "fault": ""},
                              "b": {"moves": 2, "seconds": 0.4, "depth_sum": 6, "nodes": 200,
                                    "time_forfeit": True, "fault": ""}},
    "attempt": 1,
}


def test_an_event_log_from_before_the_game_record_still_loads(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    path.write_text(json.dumps({"event": "game_finished", "record": OLD_RECORD}) + "\n")
    (old,) = finished_records(read_events(path))
    assert (old.result, old.ending, old.plies) == ("1-0", Termination.TIME_FORFEIT, 2)
    assert old.game.opening_plies == 3 and [m.long for m in old.game.moves] == \
        ["9-13", "21-17", "5-9", "17-14", "10x17"]
    assert old.tags["Date"] == "2026.11.20" and old.tags["GameId"] == "r1:a:b:o0:c0"
    assert old.reason == "time forfeit (White (b) lost on time: 0.312 s with 0.100 s allowed)"
    assert old.sides["b"].time_forfeit and old.seconds == 3.5
    again = MatchGame.from_dict(json.loads(json.dumps(old.to_dict())))  # the new form round-trips
    assert again.to_dict() == old.to_dict() and again.pdn == old.pdn


def test_a_record_reads_back_without_replaying_and_a_bad_move_is_named() -> None:
    board = Board("B:W18,30:B14,K22")
    board.push_pdn("14x23")  # a jump keeps the squares it took
    board.push_pdn("30-26")
    rec = record("x:c0")
    rec.game = GameRecord.of(board, GameEnd("1-0", Termination.NO_MOVES))
    d = json.loads(json.dumps(rec.to_dict()))
    assert d["game"]["moves"] == ["14x23/18", "30-26"]
    assert MatchGame.from_dict(d).game == rec.game
    for bad in ("9-13x/5", "9-13/10", "0-4", "a-b", "14x23/18x19"):
        d["game"]["moves"] = ["14x23/18", bad]
        with pytest.raises(RecordError, match=f"game x:c0: '{bad}' is not a stored move"):
            MatchGame.from_dict(d)
    d["game"]["moves"] = ["14x23", "30-26"]  # jumps without their captures are replayed
    assert MatchGame.from_dict(d).game == rec.game
    d["game"]["moves"] = ["14x23", "22-26"]
    with pytest.raises(RecordError, match="game x:c0: its moves do not replay"):
        MatchGame.from_dict(d)
