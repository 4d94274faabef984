"""Alpha's learning on the 704 (issue 35, first slice): the correlation corrections, the count of
nonzero moves, the low-term tally with term replacement and the coefficients, run by checkers.sap,
against the host learner (engine/learners/generalize_state.py) on what a real self-play game gave it.

The program keeps a correlation in units of 2**-34 and divides by a right shift (toward zero), the
host in floating point: the correlations may differ in the last places (bounded, measured here), the
counts, tallies, replacements and coefficients must not."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from engine import program704, samuel_terms
from engine.learners import generalize_state as gs
from engine.learners.generalize import SelfPlay, SelfPlayConfig

NUMBER = {n: i for i, n in enumerate(samuel_terms.TERM_NAMES)}
TOLERANCE = 1e-7
"""Correlations may differ this much (a 2**-34 step rounded at each correction, at most N = 256 of
them still felt: 256 * 2**-34 is 1.5e-8)."""


def _record(monkeypatch: pytest.MonkeyPatch, config: SelfPlayConfig, games: int
            ) -> tuple[gs.PolynomialState, list[tuple[str, tuple[Any, ...], gs.PolynomialState, Any]]]:
    """Play ``games`` host games; every call Alpha's polynomial got, with its state after."""
    run = SelfPlay.start(config)
    start = copy.deepcopy(run.alpha)
    events: list[tuple[str, tuple[Any, ...], gs.PolynomialState, Any]] = []
    for name in ("correct", "count_nonzero", "tally_move"):
        original = getattr(gs.PolynomialState, name)

        def wrapper(self: gs.PolynomialState, *args: Any, _f: Any = original, _n: str = name) -> Any:
            names = self.names
            result = _f(self, *args)
            if self is run.alpha:
                events.append((_n, (names, *args), copy.deepcopy(self), result))
            return result

        monkeypatch.setattr(gs.PolynomialState, name, wrapper)
    for _ in range(games):
        run.play_learning_game()
    return start, events


def _load(learner: program704.Learner704, poly: gs.PolynomialState) -> None:
    r = poly.rules
    learner.load([(NUMBER[t.name], t.correlation, t.uses, t.tally, t.nonzero) for t in poly.active],
                 [NUMBER[n] for n in poly.reserve], tally_limit=r.tally_limit,
                 new_term_interval=r.new_term_interval, tally_reset=r.tally_reset == "replacement",
                 all_terms=r.positive_delta == "all", by_moves=r.times_used == "moves", moves=poly.moves,
                 moves_since_new_term=poly.moves_since_new_term, corrections=poly.corrections)


def _replay(config: SelfPlayConfig, games: int, monkeypatch: pytest.MonkeyPatch) -> dict[str, float]:
    start, events = _record(monkeypatch, config, games)
    learner = program704.Learner704(program704.Program704())
    _load(learner, start)
    worst = 0.0
    counts = {"correct": 0, "corrected": 0, "count_nonzero": 0, "tally_move": 0, "replaced": 0}
    for kind, (names, *args), after, result in events:
        counts[kind] += 1
        if kind == "correct":
            delta, initial, values, weight = args
            any_term, _ = learner.correct(delta, initial, [values.get(n, 0) for n in names], weight)
            assert any_term == bool(result.terms)
            counts["corrected"] += any_term
        elif kind == "count_nonzero":
            (values,) = args
            learner.count_nonzero([values.get(n, 0) for n in names])
        else:
            swap, _ = learner.tally_move()
            want = None if result is None else (NUMBER[result[0]], NUMBER[result[1]])
            assert swap == want
            counts["replaced"] += swap is not None
        got = learner.active()
        assert [g.term for g in got] == [NUMBER[t.name] for t in after.active]
        assert [(g.uses, g.tally, g.nonzero) for g in got] == [(t.uses, t.tally, t.nonzero)
                                                                for t in after.active]
        assert learner.reserve() == [NUMBER[n] for n in after.reserve]
        assert learner.counters() == {"moves": after.moves, "corrections": after.corrections,
                                      "moves_since_new_term": after.moves_since_new_term}
        diff = max(abs(g.correlation / program704.CORRELATION_ONE - t.correlation)
                   for g, t in zip(got, after.active, strict=True))
        assert diff < TOLERANCE
        worst = max(worst, diff)
        coefs, _ = learner.coefficients()
        assert coefs == [after.coefficients()[t.name] for t in after.active]
    assert counts["corrected"] > 0
    return {"worst": worst, **counts}


def test_learning_matches_host_over_a_game(monkeypatch: pytest.MonkeyPatch) -> None:
    """A real game under the default rules: the 704's bookkeeping equals the host's move by move."""
    out = _replay(SelfPlayConfig(depth=2, seed=3, game_plies=50), 1, monkeypatch)
    assert out["tally_move"] > 10


def test_learning_replaces_terms_like_the_host(monkeypatch: pytest.MonkeyPatch) -> None:
    """Term replacement often (limit 2, a new term every 3 moves), the tallies restarting, the first
    series' corrections and N counted by moves: replacements and the reserve list as the host's."""
    config = SelfPlayConfig(depth=2, seed=5, game_plies=50, tally_limit=2, new_term_interval=3,
                            tally_reset="replacement", series=1, times_used="moves", adoption="win")
    out = _replay(config, 2, monkeypatch)
    assert out["replaced"] >= 3


def test_coefficients_round_half_up() -> None:
    """The exponent is round(18 |C| / Cmax) with a half up, as the host's; a zero correlation, 0."""
    learner = program704.Learner704(program704.Program704())
    cs = [0.5, 0.25, -0.125, 0.0, 0.5 / 36 * 17, -0.5 / 36 * 19, 0.5 / 36 * 35, 1e-6] + [0.3] * 8
    names = list(samuel_terms.TERM_NAMES[1:17])
    learner.load([(NUMBER[n], c, 0, 0, 0) for n, c in zip(names, cs, strict=True)], [])
    coefs, run = learner.coefficients()
    want = gs.coefficients_from(dict(zip(names, [learner.active()[k].correlation / program704.CORRELATION_ONE
                                                 for k in range(16)], strict=True)))
    assert coefs == [want[n] for n in names]
    assert coefs[:4] == [1 << 18, 1 << 9, -(1 << 5), 0]
    assert run.cycles > 0
