"""Samuel's Alpha/Beta learner end to end: Alpha's per-move step, self-play, resume, the CLI."""

from __future__ import annotations

import itertools
import json
from dataclasses import replace
from pathlib import Path

import pytest

from engine import BLACK, WHITE, Board, evaluators, samuel_terms
from engine.learners.generalize import (
    FIRST_SERIES_GAMES,
    Alpha,
    LearningGame,
    SelfPlay,
    SelfPlayConfig,
    direct_evaluation,
    initial_order,
    initial_search,
    leading_changes,
    leading_terms,
    material,
    ratio_changed,
)
from engine.learners.generalize_state import ACTIVE_TERMS, PolynomialState
from engine.termination import Termination
from samuel.cli import main as cli_main

CFG = SelfPlayConfig(depth=2, seed=7)


def _alpha() -> Alpha:
    import random

    return Alpha(PolynomialState.start(initial_order("samuel", random.Random(1))))


def test_initial_order_is_the_38_terms() -> None:
    import random

    for how in ("samuel", "random"):
        order = initial_order(how, random.Random(3))
        assert sorted(order) == sorted(samuel_terms.TERM_NAMES[1:])
    assert "PADV" not in initial_order("samuel", random.Random(3))[:ACTIVE_TERMS]


def test_initial_search_scores_a_quiet_position_as_it_stands() -> None:
    alpha = _alpha()
    board = Board()
    board.push_many(["11-15", "23-19"])
    ev = alpha.evaluator()
    score, kept = initial_search(board, ev, BLACK, 1)
    assert score == ev.evaluate(board)
    assert kept.pov == 1 and kept.leaf == board.raw
    assert kept.values == dict(zip(samuel_terms.TERM_NAMES, samuel_terms.terms(board), strict=True))


def test_initial_search_plays_out_a_pending_jump() -> None:
    alpha = _alpha()
    board = Board()
    board.push_many(["11-15", "24-19"])  # Black must take 15x24
    score, kept = initial_search(board, alpha.evaluator(), BLACK, 1)
    assert kept.leaf != board.raw
    # White recaptures at once (28x19 or 27x20), so the quiet leaf has Black to move again.
    assert kept.material == material(kept.leaf, BLACK)
    assert kept.pov in (1, -1)
    assert isinstance(score, int)


def test_piece_ratio() -> None:
    assert not ratio_changed((24, 24), (22, 22))  # an even trade when level
    assert ratio_changed((24, 22), (22, 20))  # a trade when ahead
    assert ratio_changed((24, 24), (24, 22))


def test_alpha_span_and_correction() -> None:
    alpha = _alpha()
    alpha.new_game(BLACK)
    board = Board()
    board.push_many(["11-15", "23-19"])
    first = alpha.learn(board, 0)
    assert first.delta is None and first.span == 0 and first.correction is None
    kept = alpha._retained
    assert kept is not None
    board.push_many(["8-11", "22-17"])
    # A delta below the minimum: no change, the span grows and the old position stays retained.
    retained_score = alpha._score(kept)
    small = alpha.learn(board, retained_score + 10)
    assert small.minimum == 32.0  # all 16 coefficients at 2^18, in centi-men (>> 13)
    assert small.delta is not None and 0 < abs(small.delta) < small.minimum
    assert small.correction is None
    assert alpha._retained is kept
    board.push_many(["9-13", "17-14"])
    # A large negative delta: a correction over a span of two moves, credit to the earlier position.
    big = alpha.learn(board, -250)
    assert big.span == 2
    assert big.initial == (0 if abs(retained_score) < 32 else retained_score)
    assert big.delta == -250 - (big.initial or 0)
    assert big.correction is not None and big.correction.terms
    assert alpha._retained is not kept and alpha._retained is not None
    assert alpha._retained.move == 3


def test_two_games_same_seed_are_identical() -> None:
    runs = []
    for _ in range(2):
        sp = SelfPlay.start(CFG)
        sp.play_learning_game()
        sp.play_learning_game()
        runs.append(json.dumps(sp.to_dict(), sort_keys=True))
    assert runs[0] == runs[1]
    state = json.loads(runs[0])
    assert state["games"] == 2
    assert state["history"][0]["alpha_color"] == "white" and state["history"][1]["alpha_color"] == "black"
    assert all(len(g["moves"]) == g["plies"] <= 70 for g in state["history"])


def test_resume_after_one_game_equals_two_games() -> None:
    straight = SelfPlay.start(CFG)
    straight.play_learning_game()
    straight.play_learning_game()
    first = SelfPlay.start(CFG)
    first.play_learning_game()
    resumed = SelfPlay.from_dict(json.loads(json.dumps(first.to_dict())))
    resumed.play_learning_game()
    assert json.dumps(resumed.to_dict(), sort_keys=True) == json.dumps(straight.to_dict(), sort_keys=True)


def test_padv_is_fixed_and_never_learned() -> None:
    sp = SelfPlay.start(CFG)
    sp.play_learning_game()
    assert "PADV" not in sp.alpha.names and "PADV" not in sp.alpha.reserve
    weights = sp.alpha_evaluator().spec.weights
    assert weights[0] == samuel_terms.PADV_WEIGHT


def test_cli_writes_state_evaluator_and_figure(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    assert cli_main(["learn", "generalize", "--games", "1", "--depth", "2", "--seed", "3",
                     "--out", str(out)]) == 0
    state = json.loads((out / "state.json").read_text())
    assert state["games"] == 1
    assert (out / "figure4.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    ev = evaluators.load(out / "samuel-alpha.json")
    assert ev.spec.kind == samuel_terms.polynomial({}).spec.kind
    assert isinstance(ev.evaluate(Board()), int)
    assert "polynomial" in capsys.readouterr().out
    # Resuming to two games plays one more from the saved state.
    assert cli_main(["learn", "generalize", "--games", "2", "--out", str(out)]) == 0
    assert json.loads((out / "state.json").read_text())["games"] == 2
    assert not list(out.glob("*.tmp"))


def test_alpha_colour_alternates_and_beta_is_fixed_within_a_game() -> None:
    sp = SelfPlay.start(CFG)
    beta_before = dict(sp.beta)
    rec = sp.play_learning_game()
    assert rec.alpha_color == "white"
    assert sp.beta == (rec.coefficients if rec.adopted else beta_before)
    assert WHITE != BLACK


# ---------------------------------------------------------------------------
# The switchable readings (issue 15): each one recorded in the state, deterministic, and really
# changing the run.

VARIANTS = [
    {"tally_limit": 32, "new_term_interval": 0},
    {"tally_reset": "replacement"},
    {"exponent_rule": "ratio"},
    {"min_delta_scale": 0.5},
    {"padv_scale": 4.0},
    {"correction_weights": "flat"},
    {"times_used": "moves"},
    {"series": 1, "initial_terms": "random", "new_term_interval": 0, "adoption": "win"},
]


def _run(cfg: SelfPlayConfig, games: int = 2) -> str:
    sp = SelfPlay.start(cfg)
    for _ in range(games):
        sp.play_learning_game()
    return json.dumps(sp.to_dict(), sort_keys=True)


@pytest.mark.parametrize("change", VARIANTS, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
def test_each_reading_is_deterministic_recorded_and_resumable(change: dict[str, object]) -> None:
    cfg = replace(CFG, **change)  # type: ignore[arg-type]
    a, b = _run(cfg), _run(cfg)
    assert a == b
    state = json.loads(a)
    for key, value in change.items():
        assert state["config"][key] == value
    resumed = SelfPlay.from_dict(state)
    assert resumed.config == cfg and resumed.alpha.rules == cfg.rules()
    assert resumed.referee.adoption == cfg.adoption


def test_the_readings_change_the_learner() -> None:
    base = _run(CFG)
    for change in VARIANTS:
        cfg = replace(CFG, **change)  # type: ignore[arg-type]
        run = json.loads(_run(cfg))
        assert run["alpha"] != json.loads(base)["alpha"], change


def test_old_states_load_with_todays_readings() -> None:
    state = json.loads(_run(CFG, games=1))
    for key in ("tally_limit", "new_term_interval", "tally_reset", "exponent_rule", "min_delta_scale",
                "padv_scale", "times_used", "correction_weights", "adoption", "series"):
        del state["config"][key]
    del state["first_series"]
    assert SelfPlay.from_dict(state).config == CFG


@pytest.mark.parametrize(("words", "result", "termination", "detail"), [
    ("threefold repetition", 0, Termination.REPETITION, ""),
    ("no legal moves", -1, Termination.NO_MOVES, ""),
    ("stopped after 60 moves, judged on material", 1, Termination.ADJUDICATED_WIN,
     "stopped after 60 moves, judged on material"),
    ("stopped after 60 moves, judged on material", 0, Termination.ADJUDICATED_DRAW,
     "stopped after 60 moves, judged on material"),
])
def test_games_stored_before_the_vocabulary_of_endings_load(words: str, result: int, termination: Termination,
                                                              detail: str) -> None:
    state = json.loads(_run(CFG, games=1))
    old = state["history"][0]
    del old["detail"]  # states written before kept the ending as words only
    old["termination"], old["result"] = words, result
    game = SelfPlay.from_dict(state).history[0]
    assert (game.termination, game.detail) == (termination, detail)
    assert LearningGame.from_dict(game.to_dict()) == game


def test_padv_scale_reaches_both_players_and_the_evaluator() -> None:
    sp = SelfPlay.start(replace(CFG, padv_scale=2.0))
    assert sp.alpha_evaluator().spec.weights[0] == 2 * samuel_terms.PADV_WEIGHT
    assert Alpha(sp.alpha).evaluator().spec.weights[0] == 2 * samuel_terms.PADV_WEIGHT


def test_first_series_start_plays_our_first_series_then_starts_from_its_terms() -> None:
    cfg = replace(CFG, initial_terms="first-series")
    seen = []
    sp = SelfPlay.start(cfg, on_first_series_game=seen.append)
    assert len(seen) == FIRST_SERIES_GAMES == 28
    earlier = SelfPlay.start(cfg.first_series())
    for _ in range(FIRST_SERIES_GAMES):
        earlier.play_learning_game()
    ranked = sorted(earlier.alpha.active, key=lambda t: -abs(t.correlation))
    assert sp.alpha.names == [t.name for t in ranked]
    assert sp.alpha.reserve == earlier.alpha.reserve
    # "no attention was paid to their previously assigned weights"
    assert set(sp.alpha.coefficients().values()) == {2**18}
    assert sp.first_series is not None and sp.first_series["games"] == 28
    assert sp.first_series["won"] + sp.first_series["drawn"] + sp.first_series["lost"] == 28
    kept = SelfPlay.start(replace(CFG, initial_terms="first-series-weights"))
    assert kept.alpha.correlations() == {t.name: t.correlation for t in ranked}
    assert all(t.tally == 0 for t in kept.alpha.active)


def test_first_series_config_and_direct_evaluation() -> None:
    first = CFG.first_series()
    got = (first.series, first.initial_terms, first.tally_limit, first.new_term_interval, first.adoption)
    assert got == (1, "random", 8, 0, "win")
    rules = first.rules()
    assert (rules.positive_delta, rules.span, rules.initial_eval) == ("all", "one", "direct")
    alpha = _alpha()
    board = Board()
    board.push_many(["11-15", "24-19"])  # a pending jump: the direct score does not play it out
    score, kept = direct_evaluation(board, alpha.evaluator(), BLACK, 1)
    assert kept.leaf == board.raw and score == alpha.evaluator().evaluate(board)


def test_leading_changes_counts_game_to_game() -> None:
    sp = SelfPlay.start(CFG)
    for _ in range(3):
        sp.play_learning_game()
    leads = leading_terms(sp.history)
    assert len(leads) == 3
    assert leading_changes(sp.history) == sum(a != b for a, b in itertools.pairwise(leads))


def test_cli_rule_options_are_kept_in_the_state(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert cli_main(["learn", "generalize", "--games", "1", "--depth", "2", "--seed", "3", "--out", str(out),
                     "--tally-limit", "32", "--new-term-every", "0", "--tally-reset", "replacement",
                     "--exponent-rule", "ratio", "--min-delta-scale", "0.75", "--padv-scale", "2",
                     "--correction-weights", "flat", "--adoption", "never", "--series", "1",
                     "--times-used", "moves"]) == 0
    cfg = json.loads((out / "state.json").read_text())["config"]
    assert (cfg["tally_limit"], cfg["new_term_interval"], cfg["tally_reset"], cfg["exponent_rule"],
            cfg["min_delta_scale"], cfg["padv_scale"], cfg["correction_weights"], cfg["adoption"],
            cfg["series"], cfg["times_used"]) == \
        (32, 0, "replacement", "ratio", 0.75, 2.0, "flat", "never", 1, "moves")
    meta = evaluators.load(out / "samuel-alpha.json").meta
    assert meta["config"]["exponent_rule"] == "ratio"


def test_no_adoption_keeps_betas_starting_polynomial() -> None:
    sp = SelfPlay.start(replace(CFG, adoption="never"))
    for _ in range(3):
        assert not sp.play_learning_game().adopted
    assert sp.beta == sp.initial
