"""The tournament directory: the event log survives a kill, games are counted once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from matches.record import Ending, GameSpec, MatchGame, SideReport
from matches.store import StoreError, TournamentStore, finished_records, read_events

PDN = '[Event "t"]\n[Result "1-0"]\n1. 9-13 1-0\n'


def record(game_id: str, result: str = "1-0") -> MatchGame:
    spec = GameSpec(game_id=game_id, round=1, pair_id=game_id[:-3], colour=0, black="a", white="b",
                    opening_index=0, opening_label="o", fen="B:W21:B1")
    return MatchGame(spec=spec, result=result, ending=Ending.CRASH, reason="why", plies=3, pdn=PDN,
                      seconds=1.5, sides={"a": SideReport(moves=2), "b": SideReport(fault="crash")})


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
    assert done[0].sides["b"].fault == "crash" and done[0].ending is Ending.CRASH
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
