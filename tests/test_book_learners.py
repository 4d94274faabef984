"""Griffith's move-phase tables and four-rule heuristic; samuel agree and samuel learn book end to end."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from book_scoring import SMALL_PDN as SMALL

from engine import core, evaluators
from engine.board import Board
from engine.learners import agreement, book_data, heuristic, move_phase
from engine.limits import Limit
from engine.search import Searcher
from samuel.cli import main


@pytest.fixture(scope="module")
def small() -> book_data.BookPositions:
    return book_data.extract(SMALL)


# ---- move-phase tables ----


def brute_counts(small: book_data.BookPositions) -> tuple[dict, dict]:
    """Strong and weak counts by (phase, relative from, relative to), one move at a time."""
    strong: dict[tuple[int, int, int], int] = {}
    weak: dict[tuple[int, int, int], int] = {}
    for i in range(len(small)):
        raw = small.raw(i)
        phase = min(int(small.ply[i]) // 10, 5)
        for k, m in enumerate(core.legal_moves(raw)):
            f, t = m.path[0], m.path[-1]
            if raw.turn == 1:  # White's squares from its own side
                f, t = 33 - f, 33 - t
            target = strong if k == small.book[i] else weak
            target[(phase, f, t)] = target.get((phase, f, t), 0) + 1
    return strong, weak


def test_move_phase_counts(small: book_data.BookPositions) -> None:
    strong, weak = move_phase.counts(small)
    bs, bw = brute_counts(small)
    assert strong.sum() == len(small) == sum(bs.values())
    assert weak.sum() == small.num_moves - len(small) == sum(bw.values())
    for (ph, f, t), n in bs.items():
        assert strong[ph, f - 1, t - 1] == n
    for (ph, f, t), n in bw.items():
        assert weak[ph, f - 1, t - 1] == n
    # Black's 11-15 and White's 22-18 share the entry 11-15.
    assert strong[0, 10, 14] == bs[(0, 11, 15)] >= 4


def test_move_phase_entries_and_unseen_prior(small: book_data.BookPositions) -> None:
    strong, weak = move_phase.counts(small)
    s, w = int(strong[0, 10, 14]), int(weak[0, 10, 14])
    value = move_phase.tables(strong, weak, prior_weight=0.0)
    assert value[0, 10, 14] == pytest.approx(s / (s + w))
    p0 = strong[0].sum() / (strong[0].sum() + weak[0].sum())
    assert strong[0, 31, 27] + weak[0, 31, 27] == 0  # 32-28 backward: never seen in phase 0
    assert value[0, 31, 27] == pytest.approx(p0)
    smoothed = move_phase.tables(strong, weak, prior_weight=1.0)
    assert smoothed[0, 10, 14] == pytest.approx((s + p0) / (s + w + 1))


def test_phase_evaluator_matches_python(small: book_data.BookPositions) -> None:
    ev = move_phase.train(small)
    batch = move_phase.batch_scores(ev, small)
    table = move_phase.entries(ev)
    children = small.children()
    mat = book_data.material(children)
    for j in range(small.num_moves):
        i = int(small.owner[j])
        parent, ply = small.raw(i), int(small.ply[i])
        c = core.evaluate(small.child_raw(j), ev.spec, parent, ply + 1)
        assert -c == batch[j]
        mover = parent.turn
        rf = int(small.move_from[j]) if mover == 0 else 33 - int(small.move_from[j])
        rt = int(small.move_to[j]) if mover == 0 else 33 - int(small.move_to[j])
        phase = min(ply // 10, 5)
        assert c == mat[j] - int(table[phase, rf - 1, rt - 1]) * 100 // 10000


def test_phase_boundaries_and_fallback() -> None:
    value = np.zeros((6, 32, 32))
    for ph in range(6):
        value[ph, 10, 14] = (ph + 1) / 10  # 11-15
    ev = move_phase.evaluator_from_tables(value, material=False)
    board = Board()
    parent = board.raw
    board.push_pdn("11-15")
    # The last move was ply game_ply - 1: plies 0-9 are phase 0, 10-19 phase 1, 50 on phase 5.
    assert core.evaluate(board.raw, ev.spec, parent, 10) == -10
    assert core.evaluate(board.raw, ev.spec, parent, 11) == -20
    assert core.evaluate(board.raw, ev.spec, parent, 51) == -60
    assert core.evaluate(board.raw, ev.spec, parent, 300) == -60
    assert core.evaluate(board.raw, ev.spec, None, 5) == 0  # no parent: material only (off here)
    with_material = move_phase.evaluator_from_tables(value, material=True)
    assert core.evaluate(board.raw, with_material.spec, None, 5) == core.evaluate(
        board.raw, evaluators.MATERIAL.spec)


# ---- the four-rule heuristic ----


def level_after(fen: str, move: str, reading: heuristic.Reading = heuristic.DEFAULT_READING) -> int:
    ev = heuristic.evaluator(reading, material=False, scale=1)
    board = Board(fen)
    board.push_pdn(move)
    return -ev.evaluate(board)


@pytest.mark.parametrize(("fen", "move", "level"), [
    ("B:W32:BK18", "18-23", 4),        # rule 1: a king moves
    ("B:W32:B11", "11-15", 3),         # rule 2: along the long diagonal
    ("B:W32:B10", "10-14", 3),         # rule 2: into the centre
    ("B:W32:B9", "9-13", 2),           # rule 4: anything else
    ("B:W32:B2", "2-6", 2),            # square 2 is not part of the bridge
    ("B:W32:B1", "1-6", 1),            # rule 3: leaves the bridge (relative 1)
    ("B:W32:B3", "3-8", 1),            # rule 3: leaves the bridge (relative 3)
    ("B:W20:B12", "12-16", 1),         # rule 3: White can then jump 20x11
    ("B:W32:B27", "27-31", 3),         # crowning counts under rule 2 by default
    ("W:W22:B1", "22-18", 3),          # White on the long diagonal
    ("W:W32:B5", "32-28", 1),          # White's 32 is its relative 1
    ("W:W30:B5", "30-26", 1),          # White's 30 is its relative 3
    ("W:W31:B5", "31-27", 2),          # White's 31 (relative 2) is not
])
def test_heuristic_rules(fen: str, move: str, level: int) -> None:
    assert level_after(fen, move) == level


def test_heuristic_readings() -> None:
    assert level_after("B:W32:B27", "27-31", heuristic.Reading(crowning=False)) == 2
    assert level_after("B:W32:B10", "10-14", heuristic.Reading(centre="far2")) == 2
    assert level_after("B:W32:B14", "14-18", heuristic.Reading(centre="far2")) == 3
    # A king move that gives a jump: the listed order keeps rule 1, "caution-all" puts rule 3 first.
    fen, move = "B:W27:BK18", "18-23"
    assert level_after(fen, move) == 4
    assert level_after(fen, move, heuristic.Reading(precedence="caution")) == 4
    assert level_after(fen, move, heuristic.Reading(precedence="caution-all")) == 1
    # A man's diagonal move that gives a jump: listed keeps rule 2, caution puts rule 3 first.
    fen, move = "B:W19:B11", "11-15"
    assert level_after(fen, move) == 3
    assert level_after(fen, move, heuristic.Reading(precedence="caution")) == 1


def test_heuristic_python_matches_c(small: book_data.BookPositions) -> None:
    for reading in (heuristic.DEFAULT_READING, heuristic.Reading("near2", False, "caution-all")):
        ev = heuristic.evaluator(reading)
        batch = heuristic.batch_scores(ev, small)
        for j in range(small.num_moves):
            i = int(small.owner[j])
            c = core.evaluate(small.child_raw(j), ev.spec, small.raw(i), int(small.ply[i]) + 1)
            assert -c == batch[j]


def test_heuristic_train_picks_a_reading(small: book_data.BookPositions) -> None:
    ev = heuristic.train(small, seed=1)
    assert ev.meta["reading"] in {r.label() for r in heuristic.readings()}
    assert len(ev.meta["train_C"]) == len(heuristic.readings())
    default = heuristic.train(small, choose=False)
    assert default.meta["reading"] == heuristic.DEFAULT_READING.label()


# ---- search and shipped files ----


@pytest.mark.parametrize("make", [
    lambda p: move_phase.train(p),
    lambda p: heuristic.evaluator(),
])
def test_search_with_each_new_evaluator(small: book_data.BookPositions, make) -> None:  # type: ignore[no-untyped-def]
    ev = make(small)
    board = Board()
    board.push_many(["11-15", "23-19", "8-11", "22-17"])
    result = Searcher(ev, hash_mb=1).search(board, Limit(depth=5))
    assert result.best in board.legal_moves
    assert agreement.static_scores(ev, small.head(3)).shape == (small.head(3).num_moves,)


SHIPPED = {
    "griffith-phase": core.EVAL_PHASE,
    "griffith-heuristic": core.EVAL_HEURISTIC,
    "samuel-signature": core.EVAL_SIGNATURE,
    "samuel-tabulated": core.EVAL_TABULATED,
    "samuel-book-polynomial": core.EVAL_SAMUEL,
    "samuel-alpha": core.EVAL_SAMUEL,
    "evolved-blondie": core.EVAL_NETWORK,
    "piece-net": core.EVAL_PIECENET,
    "piece-net-oca": core.EVAL_PIECENET,
    "piece-net-sp1": core.EVAL_PIECENET,
    "piece-net-sp2": core.EVAL_PIECENET,
    "piece-net-t6-m75": core.EVAL_PIECENET,
    "piece-net-r8-pat": core.EVAL_PIECENET,
    "default-2026-12": core.EVAL_PIECENET,
}


def test_every_shipped_evaluator_is_known_here() -> None:
    assert sorted(p.stem for p in evaluators.LEARNED_DIR.glob("*.json")) == sorted(SHIPPED)


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_shipped_evaluators(name: str) -> None:
    path = evaluators.LEARNED_DIR / f"{name}.json"
    ev = evaluators.by_name(name)
    # A network with region patterns holds 3.8 M numbers, stored compressed (about 4 MB).
    patterns = ev.spec.kind == core.EVAL_PIECENET and ev.spec.data[0] == core.PIECENET_VERSION_PATTERNS
    assert path.is_file() and path.stat().st_size < (5_000_000 if patterns else 1_000_000)
    assert ev.spec.kind == SHIPPED[name] and name in evaluators.available()
    board = Board()
    board.push_pdn("11-15")
    assert Searcher(ev, hash_mb=1).search(board, Limit(depth=4)).best in board.legal_moves


# ---- the commands ----


def test_samuel_agree_end_to_end(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["agree", "--eval", "material", "--pdn", str(SMALL), "--split", "all", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "C  Samuel ties" in out and "C  Griffith ties" in out and "D  book move" in out
    assert "9 games" in out and "1 unreadable games skipped" in out


def test_samuel_agree_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["agree", "--eval", "material", "--pdn", str(tmp_path / "none.pdn")]) == 2
    assert "no such file" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["agree", "--eval", "no-such-evaluator", "--pdn", str(SMALL)])
    assert "unknown evaluator" in capsys.readouterr().err


def test_samuel_learn_book_end_to_end(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "phase-small.json"
    assert main(["learn", "book", "--method", "phase", "--pdn", str(SMALL), "--out", str(out),
                 "--measure"]) == 0
    text = capsys.readouterr().out
    assert "trained phase" in text and "held out" in text
    saved = json.loads(out.read_text())
    assert saved["name"] == "phase-small" and saved["kind"] == "phase"
    assert main(["agree", "--eval", str(out), "--pdn", str(SMALL), "--depth", "1", "--games", "3",
                 "--split", "all"]) == 0
    assert "search depth 1" in capsys.readouterr().out


@pytest.mark.parametrize(("method", "kind"), [
    ("heuristic", core.EVAL_HEURISTIC), ("signature", core.EVAL_SIGNATURE),
    ("tabulated", core.EVAL_TABULATED), ("polynomial", core.EVAL_SAMUEL),
])
def test_every_book_method_trains_a_searchable_evaluator(
    method: str, kind: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / f"{method}-small.json"
    assert main(["learn", "book", "--method", method, "--pdn", str(SMALL), "--out", str(out),
                 "--measure"]) == 0
    assert f"trained {method}" in capsys.readouterr().out
    ev = evaluators.load(out)
    assert ev.spec.kind == kind and ev.name == f"{method}-small"
    board = Board()
    board.push_many(["11-15", "23-19"])
    assert Searcher(ev, hash_mb=1).search(board, Limit(depth=4)).best in board.legal_moves

