"""Joint Bradley–Terry rating list, first-move term, bootstrap intervals (matches.ratings.bradley_terry)."""

from __future__ import annotations

import random
import time

import pytest

from matches.ratings import GameResult, RatingsError, elo_from_score, fit, rating_list, score_from_elo

TRUE = {"alpha": 150.0, "beta": 50.0, "gamma": -50.0, "delta": -150.0}  # mean 0
ADVANTAGE = 40.0
DRAW_RATE = 0.3


def _games(
    ratings: dict[str, float], rounds: int, seed: int, advantage: float = ADVANTAGE
) -> list[GameResult]:
    """A double round robin played ``rounds`` times: every ordered (black, white) pair meets ``rounds``
    times.  Draws happen at DRAW_RATE (as long as the expected score allows it)."""
    rng = random.Random(seed)
    games = []
    names = sorted(ratings)
    for _ in range(rounds):
        for black in names:
            for white in names:
                if black == white:
                    continue
                e = score_from_elo(ratings[black] - ratings[white] + advantage)
                draw = min(DRAW_RATE, 2 * e, 2 * (1 - e))
                u = rng.random()
                score = 1.0 if u < e - draw / 2 else 0.5 if u < e + draw / 2 else 0.0
                games.append(GameResult(black, white, score))
    return games


def test_recovers_known_ratings() -> None:
    games = _games(TRUE, rounds=150, seed=1)  # 1800 games, 900 per engine
    ratings, advantage = fit(games)
    assert sum(ratings.values()) == pytest.approx(0.0, abs=1e-9)
    for name, elo in TRUE.items():
        assert ratings[name] == pytest.approx(elo, abs=25.0), name
    assert advantage == pytest.approx(ADVANTAGE, abs=20.0)
    # Without the first-move term the ratings barely change (every pairing is played with both colours).
    plain, none = fit(games, first_move=False)
    assert none == 0.0
    for name in TRUE:
        assert plain[name] == pytest.approx(ratings[name], abs=3.0)


def test_first_move_advantage_is_found_without_rating_differences() -> None:
    games = _games(dict.fromkeys(("a", "b", "c"), 0.0), rounds=300, seed=2, advantage=60.0)
    ratings, advantage = fit(games)
    assert advantage == pytest.approx(60.0, abs=15.0)
    assert max(abs(r) for r in ratings.values()) < 15.0


def test_anchor() -> None:
    games = _games(TRUE, rounds=20, seed=3)
    ratings, advantage = fit(games)
    anchored, anchored_advantage = fit(games, anchor="delta", anchor_elo=1000.0)
    assert anchored["delta"] == 1000.0
    assert anchored_advantage == pytest.approx(advantage)
    for name in TRUE:
        assert anchored[name] - anchored["delta"] == pytest.approx(ratings[name] - ratings["delta"], abs=1e-6)
    with pytest.raises(RatingsError, match="anchor"):
        fit(games, anchor="nobody")


def test_two_engines_agree_with_the_score() -> None:
    # 60 wins, 50 draws, 40 losses for A over 150 games (colours alternating): score 85/150 = 0.5667,
    # Elo(0.5667) = 400·log10(85/65) = 400 × 0.116506 = 46.602.  The plain maximum-likelihood fit (prior 0, no
    # first-move term) solves L(R_A − R_B) = score exactly.
    outcomes = [1.0] * 60 + [0.5] * 50 + [0.0] * 40
    games = [
        GameResult("A", "B", s) if i % 2 else GameResult("B", "A", 1 - s) for i, s in enumerate(outcomes)
    ]
    ratings, advantage = fit(games, first_move=False, prior=0.0)
    assert advantage == 0.0
    assert ratings["A"] - ratings["B"] == pytest.approx(elo_from_score(85 / 150), abs=1e-6)
    assert ratings["A"] - ratings["B"] == pytest.approx(46.602, abs=1e-3)
    assert ratings["A"] == pytest.approx(-ratings["B"])
    # The default prior (one virtual draw per engine against the middle) pulls slightly towards 0.
    shrunk, _ = fit(games, first_move=False)
    assert 44.0 < shrunk["A"] - shrunk["B"] < ratings["A"] - ratings["B"]


def test_sweep_is_finite() -> None:
    games = _games({"x": 0.0, "y": 0.0, "z": 0.0}, rounds=10, seed=4)
    games += [GameResult("champ", o, 1.0) for o in ("x", "y", "z")] * 10
    games += [GameResult(o, "champ", 0.0) for o in ("x", "y", "z")] * 10
    table = rating_list(games, bootstrap=50, seed=1)
    top = table.ratings[0]
    assert top.name == "champ" and top.score == 1.0 and top.games == 60
    for r in table.ratings:
        for value in (r.elo, r.low, r.high, r.margin):
            assert value == value and abs(value) < 5000.0  # finite, not nan
    assert top.elo > table.ratings[1].elo + 300.0
    # Without the prior there is no finite maximum-likelihood rating for the champion.
    with pytest.raises(RatingsError, match="x, y, z lost every game against champ"):
        fit(games, prior=0.0)


def test_rating_list_bookkeeping() -> None:
    games = [
        GameResult("a", "b", 1.0),
        GameResult("b", "a", 0.5),
        GameResult("a", "c", 0.0),
        GameResult("c", "b", 0.5),
    ]
    table = rating_list(games, bootstrap=0)
    by_name = {r.name: r for r in table.ratings}
    assert (by_name["a"].games, by_name["a"].points, by_name["a"].score) == (3, 1.5, 0.5)
    assert (by_name["b"].games, by_name["b"].points) == (3, 1.0)
    assert (by_name["c"].games, by_name["c"].points) == (2, 1.5)
    assert [r.elo for r in table.ratings] == sorted((r.elo for r in table.ratings), reverse=True)
    assert all(r.low != r.low and r.margin != r.margin for r in table.ratings)  # nan without bootstrap
    assert rating_list([]).ratings == []


def test_bootstrap_intervals_contain_the_estimate_and_shrink() -> None:
    small = rating_list(_games(TRUE, rounds=10, seed=5), bootstrap=200, seed=7)
    large = rating_list(_games(TRUE, rounds=90, seed=5), bootstrap=200, seed=7)
    for table in (small, large):
        for r in table.ratings:
            assert r.low < r.elo < r.high
            assert r.margin == pytest.approx((r.high - r.low) / 2)
    margins_small = {r.name: r.margin for r in small.ratings}
    for r in large.ratings:
        # 9x the games: about a third of the width.
        assert r.margin < 0.5 * margins_small[r.name]
    # The same seed gives the same list.
    assert rating_list(_games(TRUE, rounds=10, seed=5), bootstrap=200, seed=7) == small


def test_anchored_bootstrap() -> None:
    table = rating_list(_games(TRUE, rounds=20, seed=6), bootstrap=100, anchor="alpha")
    by_name = {r.name: r for r in table.ratings}
    assert by_name["alpha"].elo == by_name["alpha"].low == by_name["alpha"].high == 0.0
    assert all(r.margin > 0 for r in table.ratings if r.name != "alpha")


def test_bootstrap_is_fast() -> None:
    games = _games(TRUE, rounds=100, seed=8)  # 1200 games, 600 per engine
    start = time.perf_counter()
    rating_list(games, bootstrap=200)
    assert time.perf_counter() - start < 2.0


def test_bad_input() -> None:
    with pytest.raises(RatingsError, match=r"0, 0\.5 or 1"):
        GameResult("a", "b", 0.7)
    with pytest.raises(RatingsError, match="itself"):
        GameResult("a", "a", 1.0)
    games = [GameResult("a", "b", 1.0), GameResult("b", "a", 1.0)]
    with pytest.raises(RatingsError, match="prior"):
        rating_list(games, prior=0.0)
    with pytest.raises(RatingsError, match="bootstrap"):
        rating_list(games, bootstrap=-1)
