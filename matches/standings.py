"""Standings: finished games turned into the numbers the live view, the report and the plot show.

Everything here is a pure function of the GameRecords (plus the clock the caller
passes), so the live view, ``samuel ratings`` reading a stored tournament and the
final report all agree.  Ratings come from ``matches.ratings``:

- more than two engines: the joint Bradley-Terry list (``rating_list``) with a
  first-move term and bootstrap intervals, never an Elo from each engine's score
  against the field;
- exactly two: the pentanomial estimate over the complete colour-reversed pairs
  (the trinomial one while no pair is complete), the second engine mirrored.

A pair is the two games sharing ``spec.pair_id``; its score from one engine's side
(0, ½, 1, 1½ or 2 points) is its pentanomial bucket [LL, LD, WL+DD, WD, WW].
"""

from __future__ import annotations

import datetime
import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from engine.termination import Termination
from matches.ratings import (
    EloEstimate,
    GameResult,
    SprtConfig,
    SprtStatus,
    pentanomial,
    rating_list,
    sprt_status,
    trinomial,
)
from matches.record import MatchGame
from matches.store import finished_records, tournament_config

Pentanomial = tuple[int, int, int, int, int]
NO_PAIRS: Pentanomial = (0, 0, 0, 0, 0)


@dataclass(frozen=True)
class EngineStanding:
    """One engine's line in the standings (counts from its own side)."""

    name: str
    games: int
    wins: int
    draws: int
    losses: int
    points: float
    score: float
    """Points per game, 0..1 (0.5 before any game)."""
    draw_ratio: float
    elo: float
    """NaN while the engine has no rated game."""
    low: float
    high: float
    margin: float
    """Half the width of the 95% interval (``elo ± margin``)."""
    nelo: float | None
    """Normalized Elo: of the match for two engines; of its score against the field for more."""
    pentanomial: Pentanomial
    """Its complete pairs: [LL, LD, WL+DD, WD, WW] from its side."""
    time_forfeits: int
    """Games it lost on time."""
    crashes: int
    stalls: int
    illegal_moves: int
    protocol_errors: int
    black_wins: int
    white_wins: int

    @property
    def faults(self) -> int:
        """Crashes, stalls, illegal moves and protocol errors together."""
        return self.crashes + self.stalls + self.illegal_moves + self.protocol_errors


@dataclass(frozen=True)
class PairingStanding:
    """Two engines' results against each other, from ``first``'s side."""

    first: str
    second: str
    wins: int
    draws: int
    losses: int
    pentanomial: Pentanomial
    estimate: EloEstimate | None
    """Pentanomial estimate over complete pairs (trinomial when none is complete); None with no game."""

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        return self.wins + self.draws / 2


@dataclass(frozen=True)
class Standings:
    """Everything a view needs at one moment of a tournament."""

    engines: list[EngineStanding]
    """Ranked: by Elo, then points, then name."""
    pairings: list[PairingStanding]
    games_done: int
    games_total: int | None
    elapsed: float
    """Seconds since the tournament started."""
    games_per_minute: float
    eta_seconds: float | None
    """Remaining games over the observed rate (which already reflects concurrency); None when unknown."""
    sprt: SprtStatus | None
    """Between the first two engines (over complete pairs) when the tournament runs an SPRT."""
    first_move_advantage: float | None
    """Black's (the first mover's) advantage in Elo from the joint fit."""
    endings: dict[str, int]
    """Termination value (``engine.termination``) -> number of games, most frequent first."""


@dataclass
class _Tally:
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    black_wins: int = 0
    white_wins: int = 0
    time_forfeits: int = 0
    crashes: int = 0
    stalls: int = 0
    illegal_moves: int = 0
    protocol_errors: int = 0

    def add(self, score: float, as_black: bool) -> None:
        self.games += 1
        if score == 1.0:
            self.wins += 1
            if as_black:
                self.black_wins += 1
            else:
                self.white_wins += 1
        elif score == 0.0:
            self.losses += 1
        else:
            self.draws += 1

    @property
    def points(self) -> float:
        return self.wins + self.draws / 2


_FAULT_FIELDS = {
    Termination.CRASH.value: "crashes",
    Termination.STALL.value: "stalls",
    Termination.ILLEGAL_MOVE.value: "illegal_moves",
    Termination.PROTOCOL_ERROR.value: "protocol_errors",
}


def _players(record: MatchGame) -> tuple[str, str]:
    return record.spec.black, record.spec.white


def _black_score(record: MatchGame) -> float:
    return 0.5 if record.result == "1/2-1/2" else (1.0 if record.result == "1-0" else 0.0)


def _fault_and_forfeit(record: MatchGame, name: str) -> tuple[str, bool]:
    """The fault kind (or "") and whether ``name`` lost on time in ``record``.

    From the record's side report when there is one; a record without side
    reports blames the loser of a game that ended in a fault or on time.
    """
    side = record.sides.get(name)
    if side is not None:
        return side.fault, side.time_forfeit
    if record.sides:  # the other side has a report and this one has none: nothing to blame
        return "", False
    lost = record.result != "1/2-1/2" and record.score_for(name) == 0.0
    if not lost:
        return "", False
    if record.ending.is_fault:
        return record.ending.value, False
    return "", record.ending is Termination.TIME_FORFEIT


def complete_pairs(records: Iterable[MatchGame]) -> list[tuple[MatchGame, MatchGame]]:
    """The colour-reversed pairs both of whose games are finished, in the order they completed."""
    first_game: dict[str, MatchGame] = {}
    done: set[str] = set()
    pairs: list[tuple[MatchGame, MatchGame]] = []
    for record in records:
        pid = record.spec.pair_id
        if pid in done:
            continue
        other = first_game.get(pid)
        if other is None:
            first_game[pid] = record
        elif other.game_id != record.game_id and set(_players(other)) == set(_players(record)):
            pairs.append((other, record))
            done.add(pid)
    return pairs


def pair_bucket(pair: tuple[MatchGame, MatchGame], name: str) -> int:
    """0..4: the pentanomial bucket of ``pair`` from ``name``'s side (its points in the pair, doubled)."""
    return round(2 * (pair[0].score_for(name) + pair[1].score_for(name)))


def _pentanomial_of(pairs: Iterable[tuple[MatchGame, MatchGame]], name: str) -> Pentanomial:
    counts = [0, 0, 0, 0, 0]
    for pair in pairs:
        counts[pair_bucket(pair, name)] += 1
    return (counts[0], counts[1], counts[2], counts[3], counts[4])


def _estimate(penta: Pentanomial, losses: int, draws: int, wins: int) -> EloEstimate | None:
    if sum(penta):
        return pentanomial(list(penta))
    if losses + draws + wins:
        return trinomial(losses, draws, wins)
    return None


def _sprt(config: SprtConfig, penta: Pentanomial, games: Sequence[MatchGame] = (),
          name: str = "") -> SprtStatus:
    """Pair counts where the model takes them; cutechess's BayesElo model needs game counts."""
    if config.model == "bayeselo":
        scores = [r.score_for(name) for r in games]
        trinomial = (scores.count(0.0), scores.count(0.5), scores.count(1.0))
        return sprt_status(config, trinomial=trinomial)
    return sprt_status(config, pentanomial=list(penta))


def _ordered(engines: Sequence[str], records: Sequence[MatchGame]) -> list[str]:
    """The engines as listed, then any a record names that the list lacks."""
    names = list(dict.fromkeys(engines))
    seen = set(names)
    for record in records:
        for name in _players(record):
            if name not in seen:
                seen.add(name)
                names.append(name)
    return names


def compute_standings(
    records: Sequence[MatchGame],
    engines: Sequence[str],
    *,
    sprt: SprtConfig | None = None,
    total_games: int | None = None,
    elapsed: float = 0.0,
    bootstrap: int = 200,
    seed: int = 0,
) -> Standings:
    """The standings after ``records`` (finished games, deduplicated, in finishing order).

    ``engines`` fixes the pairings' orientation (the earlier engine is ``first``) and,
    with ``sprt``, which two engines are tested: ``engines[0]`` against ``engines[1]``.
    """
    names = _ordered(engines, records)
    tally = {name: _Tally() for name in names}
    endings = Counter(record.ending.value for record in records)
    head_to_head: dict[frozenset[str], list[MatchGame]] = {}
    for record in records:
        black, white = _players(record)
        tally[black].add(_black_score(record), as_black=True)
        tally[white].add(1.0 - _black_score(record), as_black=False)
        for name in (black, white):
            fault, forfeit = _fault_and_forfeit(record, name)
            t = tally[name]
            if forfeit:
                t.time_forfeits += 1
            if fault in _FAULT_FIELDS:
                field = _FAULT_FIELDS[fault]
                setattr(t, field, getattr(t, field) + 1)
        head_to_head.setdefault(frozenset((black, white)), []).append(record)

    pairs = complete_pairs(records)
    index = {name: i for i, name in enumerate(names)}
    pairings: list[PairingStanding] = []
    for key, games in sorted(head_to_head.items(), key=lambda kv: sorted(index[n] for n in kv[0])):
        if len(key) != 2:  # an engine against itself tells nothing about ratings
            continue
        first, second = sorted(key, key=index.__getitem__)
        scores = [g.score_for(first) for g in games]
        wins, losses = scores.count(1.0), scores.count(0.0)
        draws = len(scores) - wins - losses
        penta = _pentanomial_of((p for p in pairs if set(_players(p[0])) == key), first)
        pairings.append(PairingStanding(first, second, wins, draws, losses, penta,
                                        _estimate(penta, losses, draws, wins)))

    rated = {name for name in names if tally[name].games}
    elo: dict[str, tuple[float, float, float, float]] = {}
    nelo: dict[str, float | None] = {}
    first_move: float | None = None
    if len(rated) >= 2:
        two = len(names) == 2  # the pentanomial estimate rates them; the fit gives the first-move term
        fit = rating_list([GameResult(r.spec.black, r.spec.white, _black_score(r))
                           for r in records if r.spec.black != r.spec.white],
                          bootstrap=0 if two else bootstrap, seed=seed)
        first_move = fit.first_move_advantage
        if two and pairings:
            est = pairings[0].estimate
            assert est is not None
            first, second = pairings[0].first, pairings[0].second
            elo[first] = (est.elo, est.low, est.high, est.margin)
            elo[second] = (-est.elo, -est.high, -est.low, est.margin)
            nelo[first], nelo[second] = est.nelo, -est.nelo
        else:
            for rating in fit.ratings:
                elo[rating.name] = (rating.elo, rating.low, rating.high, rating.margin)
            for name in rated:
                t = tally[name]
                own = _pentanomial_of((p for p in pairs if name in _players(p[0])), name)
                est = _estimate(own, t.losses, t.draws, t.wins)
                nelo[name] = est.nelo if est is not None else None

    nan = math.nan
    standings: list[EngineStanding] = []
    for name in names:
        t = tally[name]
        e, lo, hi, margin = elo.get(name, (nan, nan, nan, nan))
        standings.append(EngineStanding(
            name=name, games=t.games, wins=t.wins, draws=t.draws, losses=t.losses, points=t.points,
            score=t.points / t.games if t.games else 0.5, draw_ratio=t.draws / t.games if t.games else 0.0,
            elo=e, low=lo, high=hi, margin=margin, nelo=nelo.get(name),
            pentanomial=_pentanomial_of((p for p in pairs if name in _players(p[0])), name),
            time_forfeits=t.time_forfeits, crashes=t.crashes, stalls=t.stalls,
            illegal_moves=t.illegal_moves, protocol_errors=t.protocol_errors,
            black_wins=t.black_wins, white_wins=t.white_wins,
        ))
    standings.sort(key=lambda s: (math.isnan(s.elo), -s.elo if not math.isnan(s.elo) else 0.0,
                                  -s.points, index[s.name]))

    status: SprtStatus | None = None
    if sprt is not None and len(names) >= 2:
        key = frozenset(names[:2])
        status = _sprt(sprt, _pentanomial_of((p for p in pairs if set(_players(p[0])) == key), names[0]),
                       [r for r in records if set(_players(r)) == key], names[0])

    done = len(records)
    rate = done / (elapsed / 60) if elapsed > 0 else 0.0
    eta: float | None = None
    if total_games is not None:
        remaining = max(total_games - done, 0)
        if remaining == 0 or (status is not None and status.decision is not None):
            eta = 0.0
        elif rate > 0:
            eta = remaining / rate * 60
    return Standings(
        engines=standings, pairings=pairings, games_done=done, games_total=total_games,
        elapsed=elapsed, games_per_minute=rate, eta_seconds=eta, sprt=status,
        first_move_advantage=first_move, endings=dict(endings.most_common()),
    )


def llr_history(records: Sequence[MatchGame], engines: Sequence[str],
                sprt: SprtConfig) -> list[tuple[int, float]]:
    """(games so far, LLR) after each finished game of ``engines[0]`` against ``engines[1]``.

    In finishing order, over the complete pairs (pentanomial); the LLR only moves
    when a game completes a pair.  Games between other engines are skipped.
    """
    if len(engines) < 2:
        return []
    key = {engines[0], engines[1]}
    ours = [r for r in records if set(_players(r)) == key]
    counts = [0, 0, 0, 0, 0]
    pending: dict[str, MatchGame] = {}
    closed: set[str] = set()
    llr = _sprt(sprt, NO_PAIRS, [], engines[0]).llr
    history: list[tuple[int, float]] = []
    for n, record in enumerate(ours, 1):
        pid = record.spec.pair_id
        other = pending.get(pid)
        if pid not in closed and other is not None and other.game_id != record.game_id:
            counts[pair_bucket((other, record), engines[0])] += 1
            closed.add(pid)
            llr = _sprt(sprt, (counts[0], counts[1], counts[2], counts[3], counts[4])).llr
        elif pid not in closed:
            pending.setdefault(pid, record)
        if sprt.model == "bayeselo":
            llr = _sprt(sprt, NO_PAIRS, ours[:n], engines[0]).llr
        history.append((n, llr))
    return history


def _event_time(event: dict[str, Any]) -> datetime.datetime | None:
    try:
        return datetime.datetime.fromisoformat(str(event["time"]))
    except (KeyError, ValueError):
        return None


def elapsed_from_events(events: Sequence[dict[str, Any]]) -> float:
    """Seconds the tournament ran: from each start (or resume) to the last event before the next one."""
    total = 0.0
    start: datetime.datetime | None = None
    last: datetime.datetime | None = None
    for event in events:
        when = _event_time(event)
        if when is None:
            continue
        if event.get("event") in ("tournament_started", "tournament_resumed"):
            if start is not None and last is not None:
                total += max((last - start).total_seconds(), 0.0)
            start = when
        last = when
    if start is not None and last is not None:
        total += max((last - start).total_seconds(), 0.0)
    return total


def sprt_config(config: dict[str, Any]) -> SprtConfig | None:
    """The SPRT a tournament config asks for (its ``"sprt"`` entry), or None."""
    test = config.get("sprt")
    if not isinstance(test, dict):
        return None
    fields = ("elo0", "elo1", "alpha", "beta", "model")
    return SprtConfig(**{k: test[k] for k in fields if test.get(k) is not None})


def engine_names(config: dict[str, Any]) -> list[str]:
    """The engines of a tournament config, in its order."""
    return [str(e["name"]) for e in config.get("engines", []) if isinstance(e, dict) and "name" in e]


def standings_from_events(events: Sequence[dict[str, Any]], *, bootstrap: int = 200,
                          seed: int = 0) -> tuple[Standings, dict[str, Any], list[MatchGame]]:
    """The standings of a stored tournament (its event log), with its config and finished games."""
    config = tournament_config(events)
    records = finished_records(events)
    total = None
    for event in events:
        if event.get("event") == "tournament_started" and event.get("total_games") is not None:
            total = int(event["total_games"])
    standings = compute_standings(records, engine_names(config), sprt=sprt_config(config), total_games=total,
                                  elapsed=elapsed_from_events(events), bootstrap=bootstrap, seed=seed)
    return standings, config, records
