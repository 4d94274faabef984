"""matches.standings: counts, pairs, ratings, faults, pace and the SPRT, from synthetic games.

The builders here (``game``, ``pair``, ``match``, ``events_for``) are shared by the
live-view, report and ``samuel ratings`` tests.
"""

from __future__ import annotations

import datetime
import math
import random
import time
from collections.abc import Sequence
from typing import Any

import pytest

from engine.game import GameRecord
from engine.termination import Termination
from matches.ratings import GameResult, SprtConfig, pentanomial, rating_list, sprt_status, trinomial
from matches.record import GameSpec, MatchGame, SideReport
from matches.standings import (
    complete_pairs,
    compute_standings,
    elapsed_from_events,
    llr_history,
    pair_bucket,
    standings_from_events,
)

FEN = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
RESULT = {"W": "1-0", "L": "0-1", "D": "1/2-1/2"}
"""A game's outcome from Black's side."""


def game(black: str, white: str, outcome: str, *, pair_id: str = "p", colour: int = 0, number: int = 0,
         ending: Termination | None = None, sides: dict[str, SideReport] | None = None) -> MatchGame:
    """One finished game; ``outcome`` is W, D or L for Black."""
    result = RESULT[outcome]
    if ending is None:
        ending = Termination.REPETITION if outcome == "D" else Termination.NO_MOVES
    spec = GameSpec(game_id=f"{pair_id}:c{colour}", round=1, pair_id=pair_id, colour=colour, black=black,
                    white=white, opening_index=0, opening_label="ACF 1: 9-13 21-17 5-9", fen=FEN,
                    number=number)
    if sides is None:
        sides = {black: SideReport(moves=20), white: SideReport(moves=20)}
    return MatchGame(spec=spec, game=GameRecord(FEN, (), result, ending, "test"),
                     tags={"Event": "test", "Black": black, "White": white}, seconds=1.0, sides=sides)


def pair(first: str, second: str, outcomes: str, pair_id: str) -> list[MatchGame]:
    """A colour-reversed pair; ``outcomes``: two letters from ``first``'s side, with Black then with White."""
    flip = {"W": "L", "L": "W", "D": "D"}
    return [game(first, second, outcomes[0], pair_id=pair_id, colour=0),
            game(second, first, flip[outcomes[1]], pair_id=pair_id, colour=1)]


def match(first: str, second: str, pairs: Sequence[str], prefix: str = "") -> list[MatchGame]:
    """Pairs in a row, each given as two letters from ``first``'s side."""
    out: list[MatchGame] = []
    for i, outcomes in enumerate(pairs):
        out += pair(first, second, outcomes, f"{prefix}{first}-{second}-{i}")
    return out


def random_tournament(names: Sequence[str], pairs_per_pairing: int, seed: int = 1) -> list[MatchGame]:
    rng = random.Random(seed)
    strength = {n: i for i, n in enumerate(reversed(names))}
    records: list[MatchGame] = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            for k in range(pairs_per_pairing):
                outcomes = ""
                for _ in range(2):
                    r = rng.random() + 0.08 * (strength[a] - strength[b])
                    outcomes += "W" if r > 0.8 else "L" if r < 0.2 else "D"
                records += pair(a, b, outcomes, f"{a}-{b}-{k}")
    return records


def events_for(records: Sequence[MatchGame], engines: Sequence[str], *, sprt: dict[str, Any] | None = None,
               total: int | None = None, seconds_per_game: float = 6.0,
               finished: bool = True) -> list[dict[str, Any]]:
    """The event log a tournament that played ``records`` would have written."""
    t0 = datetime.datetime(2026, 1, 1, 12, 0, 0, tzinfo=datetime.timezone.utc)

    def at(seconds: float) -> str:
        return (t0 + datetime.timedelta(seconds=seconds)).isoformat(timespec="milliseconds")

    config = {"engines": [{"name": n} for n in engines],
              "format": "match" if len(engines) == 2 else "round-robin",
              "sprt": sprt, "concurrency": 2, "time_control": "0.1s/move"}
    events: list[dict[str, Any]] = [{"event": "tournament_started", "time": at(0), "config": config,
                                     "total_games": total if total is not None else len(records)}]
    for i, r in enumerate(records):
        events.append({"event": "game_started", "time": at(i * seconds_per_game), "game_id": r.game_id,
                       "black": r.spec.black, "white": r.spec.white, "opening": r.spec.opening_label})
        events.append({"event": "game_finished", "time": at((i + 1) * seconds_per_game),
                       "record": r.to_dict()})
    if finished:
        events.append({"event": "tournament_finished", "time": at(len(records) * seconds_per_game),
                       "reason": "done"})
    return events


# Counting.


def test_counts_points_and_colours() -> None:
    records = match("a", "b", ["WW", "WD", "LW", "DD"])
    st = compute_standings(records, ["a", "b"], bootstrap=0)
    a, b = (next(s for s in st.engines if s.name == n) for n in "ab")
    assert (a.games, a.wins, a.draws, a.losses, a.points) == (8, 4, 3, 1, 5.5)
    assert (b.games, b.wins, b.draws, b.losses, b.points) == (8, 1, 3, 4, 2.5)
    assert a.score == pytest.approx(5.5 / 8) and a.draw_ratio == pytest.approx(3 / 8)
    assert (a.black_wins, a.white_wins) == (2, 2)
    assert (b.black_wins, b.white_wins) == (0, 1)
    assert st.games_done == 8
    assert st.endings == {"no-moves": 5, "repetition": 3}
    assert [s.name for s in st.engines] == ["a", "b"]
    (p,) = st.pairings
    assert (p.first, p.second, p.wins, p.draws, p.losses) == ("a", "b", 4, 3, 1)


def test_pair_where_each_wins_with_black_is_the_middle_bucket() -> None:
    records = pair("a", "b", "WL", "p0")  # a wins with Black, b wins with Black
    (only,) = complete_pairs(records)
    assert pair_bucket(only, "a") == pair_bucket(only, "b") == 2
    st = compute_standings(records, ["a", "b"], bootstrap=0)
    assert all(s.pentanomial == (0, 0, 1, 0, 0) for s in st.engines)


def test_pentanomial_buckets_from_both_sides() -> None:
    records = match("a", "b", ["LL", "LD", "DD", "WD", "WW", "WW"])
    st = compute_standings(records, ["a", "b"], bootstrap=0)
    by = {s.name: s for s in st.engines}
    assert by["a"].pentanomial == (1, 1, 1, 1, 2)
    assert by["b"].pentanomial == (2, 1, 1, 1, 1)
    assert st.pairings[0].pentanomial == (1, 1, 1, 1, 2)


def test_incomplete_and_mismatched_pairs_are_not_pairs() -> None:
    records = [*pair("a", "b", "WW", "p0"), game("a", "b", "W", pair_id="p1")]
    records.append(game("c", "a", "W", pair_id="p1", colour=1))  # same pair id, other engines: not its pair
    assert len(complete_pairs(records)) == 1


# Ratings.


def test_two_engines_use_the_pentanomial_estimate_mirrored() -> None:
    records = match("a", "b", ["WD", "DD", "WW", "LD", "DW", "WL", "DD", "WD"])
    st = compute_standings(records, ["a", "b"], bootstrap=0)
    est = pentanomial([0, 1, 3, 3, 1])
    by = {s.name: s for s in st.engines}
    assert by["a"].pentanomial == (0, 1, 3, 3, 1)
    assert (by["a"].elo, by["a"].low, by["a"].high, by["a"].margin) == pytest.approx(
        (est.elo, est.low, est.high, est.margin))
    assert (by["b"].elo, by["b"].low, by["b"].high) == pytest.approx((-est.elo, -est.high, -est.low))
    assert by["b"].margin == pytest.approx(est.margin)
    assert by["a"].nelo == pytest.approx(est.nelo) and by["b"].nelo == pytest.approx(-est.nelo)
    assert st.pairings[0].estimate == est
    assert [s.name for s in st.engines] == ["a", "b"]
    assert st.first_move_advantage is not None


def test_two_engines_without_a_complete_pair_use_the_trinomial_estimate() -> None:
    records = [game("a", "b", "W", pair_id="p0"), game("b", "a", "D", pair_id="p1"),
               game("a", "b", "L", pair_id="p2")]
    st = compute_standings(records, ["b", "a"], bootstrap=0)
    est = trinomial(1, 1, 1)  # from b's side (b is first): L, D, W
    assert st.pairings[0].first == "b" and st.pairings[0].estimate == est
    by = {s.name: s for s in st.engines}
    assert by["b"].elo == pytest.approx(est.elo) and by["a"].elo == pytest.approx(-est.elo)
    assert by["b"].pentanomial == (0, 0, 0, 0, 0)


def test_more_engines_use_the_joint_fit() -> None:
    names = ["a", "b", "c", "d"]
    records = random_tournament(names, 6)
    st = compute_standings(records, names, bootstrap=50, seed=3)
    fit = rating_list([GameResult(r.spec.black, r.spec.white, r.score_for(r.spec.black)) for r in records],
                      bootstrap=50, seed=3)
    assert len(st.engines) == 4
    for rating in fit.ratings:
        s = next(s for s in st.engines if s.name == rating.name)
        expected = (rating.elo, rating.low, rating.high, rating.margin)
        assert (s.elo, s.low, s.high, s.margin) == pytest.approx(expected)
    assert [s.elo for s in st.engines] == sorted((s.elo for s in st.engines), reverse=True)
    assert st.first_move_advantage == pytest.approx(fit.first_move_advantage)
    assert len(st.pairings) == 6
    assert all(p.estimate is not None and sum(p.pentanomial) == 6 for p in st.pairings)
    assert [(p.first, p.second) for p in st.pairings][:3] == [("a", "b"), ("a", "c"), ("a", "d")]
    assert all(s.nelo is not None for s in st.engines)


def test_engines_without_games_are_listed_unrated() -> None:
    st = compute_standings(match("a", "b", ["WD"]), ["a", "b", "c"], bootstrap=0)
    assert [s.name for s in st.engines][-1] == "c"
    c = st.engines[-1]
    assert c.games == 0 and math.isnan(c.elo) and c.nelo is None and c.score == 0.5
    empty = compute_standings([], ["a", "b"])
    assert all(math.isnan(s.elo) for s in empty.engines) and empty.pairings == []
    assert empty.games_done == 0 and empty.first_move_advantage is None


def test_an_engine_missing_from_the_list_is_added() -> None:
    st = compute_standings(match("a", "x", ["WW"]), ["a"], bootstrap=0)
    assert {s.name for s in st.engines} == {"a", "x"}


# Faults and time losses.


def test_faults_and_time_losses_are_counted_per_engine() -> None:
    records = [
        game("a", "b", "L", ending=Termination.CRASH, pair_id="p0",
             sides={"a": SideReport(fault="crash"), "b": SideReport()}),
        game("b", "a", "L", ending=Termination.TIME_FORFEIT, pair_id="p0", colour=1,
             sides={"a": SideReport(), "b": SideReport(time_forfeit=True)}),
        game("a", "b", "W", ending=Termination.STALL, pair_id="p1",
             sides={"a": SideReport(), "b": SideReport(fault="stall")}),
        game("b", "a", "W", ending=Termination.ILLEGAL_MOVE, pair_id="p1", colour=1,
             sides={"a": SideReport(fault="illegal-move"), "b": SideReport()}),
        game("a", "b", "W", ending=Termination.PROTOCOL_ERROR, pair_id="p2",
             sides={"b": SideReport(fault="protocol-error")}),  # a's report is missing
        # No side reports at all: the loser of a fault or time loss is blamed.
        game("b", "a", "W", ending=Termination.CRASH, pair_id="p2", colour=1, sides={}),
        game("a", "b", "L", ending=Termination.TIME_FORFEIT, pair_id="p3", sides={}),
    ]
    st = compute_standings(records, ["a", "b"], bootstrap=0)
    by = {s.name: s for s in st.engines}
    a, b = by["a"], by["b"]
    assert (a.crashes, a.stalls, a.illegal_moves, a.protocol_errors, a.time_forfeits) == (2, 0, 1, 0, 1)
    assert (b.crashes, b.stalls, b.illegal_moves, b.protocol_errors, b.time_forfeits) == (0, 1, 0, 1, 1)
    assert a.faults == 3 and b.faults == 2
    assert st.endings["crash"] == 2 and st.endings["time-forfeit"] == 2


# Pace.


def test_games_per_minute_and_eta() -> None:
    records = match("a", "b", ["WD"] * 5)
    st = compute_standings(records, ["a", "b"], total_games=30, elapsed=300.0, bootstrap=0)
    assert st.games_per_minute == pytest.approx(2.0)
    assert st.eta_seconds == pytest.approx(600.0)  # 20 games left at 2 a minute
    assert st.games_total == 30 and st.elapsed == 300.0
    assert compute_standings(records, ["a", "b"], total_games=30, bootstrap=0).eta_seconds is None
    assert compute_standings(records, ["a", "b"], elapsed=60, bootstrap=0).eta_seconds is None
    assert compute_standings(records, ["a", "b"], total_games=10, elapsed=60, bootstrap=0).eta_seconds == 0.0


# SPRT.

SPRT = SprtConfig(elo0=0, elo1=10, model="normalized")


def test_sprt_status_over_the_complete_pairs_of_the_first_two_engines() -> None:
    records = [*match("a", "b", ["WD", "DD", "WW", "LD", "DW"]), game("a", "b", "W", pair_id="open")]
    records += match("a", "c", ["WW"] * 3)  # not part of the test
    st = compute_standings(records, ["a", "b", "c"], sprt=SPRT, bootstrap=0)
    assert st.sprt == sprt_status(SPRT, pentanomial=[0, 1, 1, 2, 1])
    assert compute_standings(records, ["a", "b"], bootstrap=0).sprt is None


def test_sprt_decides_and_stops_the_eta() -> None:
    records = match("a", "b", ["WW", "WD", "DW", "WW", "WD"] * 20)
    st = compute_standings(records, ["a", "b"], sprt=SPRT, total_games=1000, elapsed=60, bootstrap=0)
    assert st.sprt is not None and st.sprt.decision == "H1" and st.sprt.llr >= st.sprt.upper
    assert st.eta_seconds == 0.0


def test_llr_history() -> None:
    records = match("a", "b", ["WD", "DD", "WW", "LD", "DW", "WW"])
    records.insert(3, game("a", "c", "W", pair_id="other"))  # another pairing's game is skipped
    history = llr_history(records, ["a", "b"], SPRT)
    assert [n for n, _ in history] == list(range(1, 13))
    llrs = [llr for _, llr in history]
    assert llrs[0] == 0.0
    for i in range(0, 12, 2):  # a pair's first game does not move the LLR; its second may
        assert llrs[i] == (llrs[i - 1] if i else 0.0)
    assert llrs[-1] == pytest.approx(sprt_status(SPRT, pentanomial=[0, 1, 1, 2, 2]).llr)
    assert llr_history(records, ["a"], SPRT) == []


# Speed and the event log.


def test_live_refresh_is_fast() -> None:
    names = ["a", "b", "c", "d"]
    records = random_tournament(names, 84)  # 6 pairings x 168 games = 1008 games
    # CPU time, not the wall clock: other programs on a busy machine do not slow it down.
    start = time.process_time()
    st = compute_standings(records, names, bootstrap=100, total_games=2000, elapsed=600)
    assert st.games_done == 1008
    assert time.process_time() - start < 1.5


def test_standings_from_events() -> None:
    records = match("a", "b", ["WD", "DD", "WW"])
    events = events_for(records, ["a", "b"], sprt={"elo0": 0, "elo1": 10, "alpha": 0.05, "beta": 0.05,
                                                   "model": "normalized"}, total=10)
    st, config, got = standings_from_events(events, bootstrap=0)
    assert [r.game_id for r in got] == [r.game_id for r in records]
    assert config["format"] == "match"
    assert st.games_total == 10 and st.elapsed == pytest.approx(36.0)
    assert st.sprt == sprt_status(SPRT, pentanomial=[0, 0, 1, 1, 1])


def test_elapsed_counts_each_run_of_a_resumed_tournament() -> None:
    def ev(name: str, minute: int) -> dict[str, Any]:
        return {"event": name, "time": f"2026-01-01T12:{minute:02d}:00.000+00:00"}
    events = [ev("tournament_started", 0), ev("game_finished", 5), ev("tournament_started", 30),
              ev("game_finished", 32), {"event": "error"}]
    assert elapsed_from_events(events) == pytest.approx(7 * 60)
