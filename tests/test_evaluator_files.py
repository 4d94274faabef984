"""Evaluators as data: saved to JSON, loaded back by path or shipped name, bad files named."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import evaluators
from engine.board import Board
from engine.errors import OptionError


def test_round_trip_keeps_the_score_and_the_meta(tmp_path: Path) -> None:
    ev = evaluators.linear({"men": 100, "kings": 150, "mobility": 3}, name="mine")
    ev = evaluators.Evaluator(ev.name, ev.spec, {"trained_on": "nothing"})
    path = tmp_path / "mine.json"
    evaluators.save(ev, path)
    back = evaluators.by_name(str(path))
    assert back == ev and back.meta == {"trained_on": "nothing"}
    board = Board()
    board.push_pdn("11-15")
    assert back.evaluate(board) == ev.evaluate(board)


def test_unknown_names_and_bad_files_are_named(tmp_path: Path) -> None:
    with pytest.raises(OptionError, match="unknown evaluator 'nope'"):
        evaluators.by_name("nope")
    with pytest.raises(OptionError, match="no evaluator file"):
        evaluators.by_name(str(tmp_path / "missing.json"))
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(OptionError, match=r"bad\.json"):
        evaluators.by_name(str(bad))
    bad.write_text('{"name": "x", "kind": "wizardry"}')
    with pytest.raises(OptionError, match="not a valid evaluator file"):
        evaluators.by_name(str(bad))


def test_available_lists_the_builtins_first() -> None:
    assert evaluators.available()[:2] == ["material", "default"]
