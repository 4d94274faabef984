"""``samuel learn generalize --backend 704``: both players search on the emulated 704 and Alpha's
bookkeeping is the 704 program's (engine/learners/generalize_704.py), against the host learner.

The same seed gives the same games and the same coefficients after every game; the correlations
differ only in the last places (the program keeps them in units of 2**-34 and divides by a right
shift).  Where two root moves score the same, the program keeps the first in the host's order (its
root jumps go piece by piece, as the host's generator lists them): seed 1 parted there at ply 6,
where Beta's two captures score the same, before the program searched its root jumps in that order."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import samuel_terms
from engine.backend704 import Searcher704
from engine.board import Board
from engine.learners.generalize import SelfPlay, SelfPlayConfig, padv_weight
from engine.learners.generalize_704 import Machine704, PolynomialState704
from engine.limits import Limit
from engine.search import Mode, Searcher
from samuel.cli import main as cli_main

TOLERANCE = 1e-9
"""Measured: at most 1.3e-10 after two games (seeds 0, 3, 5, 7)."""


def _pair(seed: int) -> tuple[SelfPlay, SelfPlay, Machine704]:
    cfg = SelfPlayConfig(depth=2, seed=seed, game_plies=40)
    host, on704 = SelfPlay.start(cfg), SelfPlay.start(cfg)
    machine = Machine704()
    on704.use_704(machine)
    assert isinstance(on704.alpha, PolynomialState704)
    return host, on704, machine


@pytest.mark.parametrize("seed", [0, 1, 3])
def test_the_same_seed_gives_the_same_coefficients_game_by_game(seed: int) -> None:
    host, on704, machine = _pair(seed)
    for _ in range(2):
        a, b = host.play_learning_game(), on704.play_learning_game()
        assert a.moves == b.moves
        assert a.coefficients == b.coefficients
        assert (a.corrections, a.replaced, a.result, a.adopted) == \
            (b.corrections, b.replaced, b.result, b.adopted)
        assert host.alpha.names == on704.alpha.names and host.alpha.reserve == on704.alpha.reserve
        hc, mc = host.alpha.correlations(), on704.alpha.correlations()
        assert max(abs(hc[n] - mc[n]) for n in hc) < TOLERANCE
        assert [(t.uses, t.tally, t.nonzero) for t in host.alpha.active] == \
            [(t.uses, t.tally, t.nonzero) for t in on704.alpha.active]
    assert host.beta == on704.beta
    assert machine.searches == sum(g.plies - 1 for g in on704.history)  # every move but the opening
    assert machine.learner_calls > 100 and machine.search_seconds > 0
    assert machine.seconds_704 > machine.search_seconds


def test_a_tie_of_root_captures_is_broken_as_the_host_breaks_it() -> None:
    """Seed 1's first game at ply 6: Beta's two captures score the same on both machines, and both now
    take the same one (the first in the host's generator order)."""
    host, _, _ = _pair(1)
    a = host.play_learning_game()
    board = Board()
    for mv in a.moves[:6]:
        board.push(next(m for m in board.legal_moves if m.long == mv))
    captures = [m for m in board.legal_moves if m.captures]
    assert len(captures) == 2
    beta = samuel_terms.polynomial(host.initial, name="samuel-beta", padv=padv_weight(host.alpha.rules))
    modern = Searcher(beta, mode=Mode.SAMUEL, hash_mb=4)
    scores = []
    for capture in captures:  # each capture alone: the same score
        after = board.copy()
        after.push(capture)
        scores.append(-modern.search(after, Limit(depth=1)).info.score.value)
    assert scores[0] == scores[1]
    s704 = Searcher704()
    s704.set_evaluator(beta)
    got = s704.search(board.copy(), Limit(depth=2))
    want = modern.search(board.copy(), Limit(depth=2))
    assert got.info.score == want.info.score
    assert got.best == want.best == captures[0] == Board(board.fen()).legal_moves[0]


def test_the_command_prints_the_704_time(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "g"
    assert cli_main(["learn", "generalize", "--games", "1", "--depth", "2", "--seed", "0",
                     "--game-plies", "30", "--backend", "704", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    line = next(x for x in text.splitlines() if x.startswith("704 time"))
    assert float(line.split()[2].replace(",", "")) > 0 and "learner calls" in line
    assert (out / "state.json").exists()


@pytest.mark.parametrize("seed", [0, 1])
def test_penalties_and_adoptions_are_the_programs_and_the_hosts_alike(seed: int) -> None:
    """The referee in 704 code (EYREF): over 12 short games seed 0 gives Alpha a third black mark (its
    leading term zeroed) and seed 1 Beta an adoption; every game, the moves, coefficients, penalty,
    adoption, Beta and the referee's counters are the host's."""
    cfg = SelfPlayConfig(depth=1, seed=seed, game_plies=30)
    host, on704 = SelfPlay.start(cfg), SelfPlay.start(cfg)
    on704.use_704(Machine704())
    for _ in range(12):
        a, b = host.play_learning_game(), on704.play_learning_game()
        assert (a.moves, a.coefficients, a.adopted, a.penalized) == \
            (b.moves, b.coefficients, b.adopted, b.penalized)
        assert host.beta == on704.beta and host.referee.to_dict() == on704.referee.to_dict()
    penalties = [g.penalized is not None for g in host.history]
    events = penalties if seed == 0 else [g.adopted for g in host.history]
    assert any(events)


def test_the_decision_and_the_referee_in_704_code_match_the_hosts_call_by_call() -> None:
    """YDEC against ``PolynomialState.decide`` and YREF against ``Referee.record`` on seeded inputs:
    scores at and around the minimum delta, sure outcomes, ratio changes; results in every order."""
    import random

    from engine.learners.generalize_state import PolynomialState, Referee
    from engine.program704 import Learner704, Program704

    rng = random.Random(35)
    cfg = SelfPlayConfig(depth=2, seed=3, game_plies=20)
    run = SelfPlay.start(cfg)
    run.play_learning_game()  # correlations that are not all equal
    learner = Learner704(Program704())
    names = [t.name for t in run.alpha.active]
    weights: list[int] = []
    for _ in range(300):
        host = PolynomialState.from_dict(run.alpha.to_dict())
        host.rules = run.alpha.rules
        minimum = host.minimum_delta() / (1 << samuel_terms.SHIFT)
        near = round(minimum)
        retained = rng.choice([0, near, near - 1, rng.randint(-400, 400)]) * rng.choice([1, -1])
        backed_up = retained + rng.choice([0, 1, near, near - 1, 299, 300, rng.randint(-900, 900)])
        if rng.random() < 0.05:
            backed_up = rng.choice([29001, -29500, 29000])
        values = {n: rng.choice([0, 0, 1, -1, rng.randint(-6, 6)]) for n in names}
        changed = rng.random() < 0.3
        want = host.decide(backed_up, retained, values, lambda changed=changed: changed)
        on = PolynomialState704.on(PolynomialState.from_dict(run.alpha.to_dict()), learner)
        on.rules = run.alpha.rules
        got = on.decide(backed_up, retained, values, lambda changed=changed: changed)
        assert (got.initial, got.delta, got.minimum, got.correction) == \
            (want.initial, want.delta, want.minimum, want.correction)
        assert [(t.name, t.uses) for t in on.active] == [(t.name, t.uses) for t in host.active]
        weights.append(want.correction.weight if want.correction is not None else 0)
    assert {0, 1, 2, 4} <= set(weights)  # no correction, and corrections of every weight
    for adoption in ("majority", "win", "never"):
        referee = Referee(adoption=adoption)
        marks = games = wins = 0
        for result in [rng.choice([1, 0, -1]) for _ in range(60)]:
            adopt, penalize = referee.record(result)
            got, _ = learner.referee(result, marks, games, wins, adoption)
            assert (got.adopted, got.penalized is not None) == (adopt, penalize)
            assert (got.black_marks, got.games_since_adoption, got.wins_since_adoption) == \
                (referee.black_marks, referee.games_since_adoption, referee.wins_since_adoption)
            marks, games, wins = got.black_marks, got.games_since_adoption, got.wins_since_adoption


def test_the_program_writes_its_own_evaluation_words_from_the_coefficients() -> None:
    """YPOL: from Alpha's correlations (coefficients worked out first) or Beta's table, the data words
    SEVAL plays are the host's ``polynomial_words`` of the same polynomial: parameters needed, one
    entry a power of two, the flags.  A run's searches check this before every move as well."""
    import random

    from engine.program704 import Learner704, Program704, Program704Error, polynomial_words

    rng = random.Random(704)
    learner = Learner704(Program704())
    for _ in range(100):
        terms = rng.sample(range(1, 39), 16)
        learner.load([(t, rng.choice([0.0, rng.uniform(-1, 1)]), 0, 0, 0) for t in terms], [])
        coefs, _ = learner.coefficients()
        weights = [0] * 39
        weights[0] = padv_weight(SelfPlayConfig().rules())
        for t, c in zip(terms, coefs, strict=True):
            weights[t] = c
        want = polynomial_words(weights)
        learner.load_beta(list(zip(terms, coefs, strict=True)), weights[0])
        for beta in (False, True):
            got, run = learner.build_polynomial(beta)
            assert (got.need, sorted(got.entries), got.bonus, got.connectives, got.want) == \
                (want.need, sorted(want.entries), want.bonus, want.connectives, want.want)
            assert run.cycles > 0
    with pytest.raises(Program704Error, match="power of two"):
        learner.load_beta([(1, 3)], 409600)
