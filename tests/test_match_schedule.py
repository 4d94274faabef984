"""Schedules: pairings, colour-reversed pairs, stable game ids, Swiss rounds."""

from __future__ import annotations

import pytest

from engine.game import GameRecord
from engine.termination import Termination
from matches.openings import Opening
from matches.record import GameSpec, MatchGame
from matches.schedule import (
    Pairing,
    fixed_schedule,
    gauntlet,
    round_robin,
    swiss_pairings,
    swiss_round,
)

START = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"


def openings(n: int) -> list[Opening]:
    return [Opening(index=i, label=f"o{i}", fen=START) for i in range(n)]


def test_round_robin_and_gauntlet_pairings() -> None:
    assert round_robin(["a", "b", "c"]) == [Pairing("a", "b"), Pairing("a", "c"), Pairing("b", "c")]
    assert gauntlet(["a", "b", "c", "d"]) == [Pairing("a", "b"), Pairing("a", "c"), Pairing("a", "d")]
    assert len(gauntlet(["a", "b", "c", "d"], seeds=2)) == 4
    with pytest.raises(ValueError, match="seeds"):
        gauntlet(["a", "b"], seeds=2)


def test_every_opening_is_a_colour_reversed_pair_with_stable_ids() -> None:
    specs = fixed_schedule(round_robin(["a", "b", "c"]), openings(4), rounds=2)
    assert len(specs) == 3 * 4 * 2 * 2
    assert [s.number for s in specs] == list(range(1, len(specs) + 1))
    assert len({s.game_id for s in specs}) == len(specs)
    by_pair: dict[str, list[GameSpec]] = {}
    for s in specs:
        by_pair.setdefault(s.pair_id, []).append(s)
    for games in by_pair.values():
        a, b = sorted(games, key=lambda g: g.colour)
        assert (a.black, a.white) == (b.white, b.black)
        assert a.opening_index == b.opening_index and a.round == b.round
    assert fixed_schedule(round_robin(["a", "b", "c"]), openings(4), rounds=2) == specs


def _finish(spec: GameSpec, winner: str | None) -> MatchGame:
    result = "1/2-1/2" if winner is None else ("1-0" if winner == spec.black else "0-1")
    return MatchGame(spec=spec, game=GameRecord(spec.fen, (), result, Termination.NO_MOVES))


def test_swiss_pairs_leaders_and_avoids_rematches() -> None:
    names = ["a", "b", "c", "d"]
    first, bye = swiss_round(names, 1, openings(3), [])
    assert bye is None
    assert {frozenset((s.black, s.white)) for s in first} == {frozenset("ab"), frozenset("cd")}
    # a and c win both their games: round 2 pairs the leaders a-c and b-d.
    records = [_finish(s, "a" if "a" in (s.black, s.white) else "c") for s in first]
    second, _ = swiss_round(names, 2, openings(3), records)
    assert {frozenset((s.black, s.white)) for s in second} == {frozenset("ac"), frozenset("bd")}
    assert all(s.opening_index == 1 and s.round == 2 for s in second)
    assert swiss_round(names, 2, openings(3), records) == (second, None)


def test_swiss_odd_player_gets_a_bye_and_no_rematch_when_possible() -> None:
    pairings, bye = swiss_pairings(["a", "b", "c"], {"a": 2, "b": 1, "c": 0}, set(), {})
    assert bye == "c" and pairings == [Pairing("a", "b")]
    pairings, bye = swiss_pairings(["a", "b", "c"], {"a": 2, "b": 1, "c": 0}, set(), {"c": 1})
    assert bye == "b" and pairings == [Pairing("a", "c")]
    met = {frozenset("ab")}
    pairings, _ = swiss_pairings(["a", "b", "c", "d"], {"a": 2, "b": 2}, met, {})
    assert all(frozenset((p.first, p.second)) not in met for p in pairings)
