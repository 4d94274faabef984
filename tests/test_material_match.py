"""scripts/material_match.py plays a colour-reversed pair and writes consistent PDN and JSON."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from engine.pdn import read_games

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "material_match.py"


def _load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("material_match", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["material_match"] = module
    spec.loader.exec_module(module)
    return module


def test_one_ballot_pair(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mm = _load_script()
    if not mm.DEFAULT_BALLOTS.exists():
        pytest.skip(f"no ballots file at {mm.DEFAULT_BALLOTS}")
    pdn, js = tmp_path / "games.pdn", tmp_path / "summary.json"
    code = mm.main(["--games-limit", "1", "--movetime", "0.01", "--concurrency", "1",
                    "--pdn", str(pdn), "--json", str(js)])
    assert code == 0

    summary = json.loads(js.read_text())
    assert summary["games"] == 2 and summary["pairs"] == 1
    assert summary["wins"] + summary["draws"] + summary["losses"] == 2
    assert sum(summary["pentanomial"].values()) == 1
    assert sum(summary["terminations"].values()) == 2
    assert summary["errors"] == [] and summary["anomalies"] == []
    assert summary["score"] == pytest.approx((summary["wins"] + summary["draws"] / 2) / 2)

    games = read_games(pdn.read_text())
    assert len(games) == 2
    first = mm.load_ballots(mm.DEFAULT_BALLOTS)[0]
    assert {(g.tags["Black"], g.tags["White"]) for g in games} == {("default", "material"),
                                                                   ("material", "default")}
    for g, listed in zip(games, summary["game_list"], strict=True):
        assert g.tags["FEN"] == first.fen and g.tags["SetUp"] == "1" and g.tags["GameType"] == "21"
        assert g.result == g.tags["Result"] == listed["result"]
        assert g.ply_count == listed["plies"] > 0

    out = capsys.readouterr().out
    assert "pentanomial" in out and "elo" in out


def test_elo_interval_clamps_a_sweep() -> None:
    mm = _load_script()
    est = mm.elo_interval([1.0] * 10, 10)
    assert est.clamped and 0 < est.elo < 1000
    even = mm.elo_interval([1.0, 0.0, 0.5, 0.5], 4)
    assert even.elo == pytest.approx(0.0) and even.low < 0 < even.high
