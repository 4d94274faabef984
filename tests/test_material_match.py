"""The two strength scripts are thin calls of ``samuel match``: they play colour-reversed ballot pairs
with the right engines and leave the match runner's PDN and report."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

from engine.pdn import read_games
from matches.openings import ballot_deck
from samuel.cli import main as samuel_main

ROOT = Path(__file__).resolve().parents[1]


def test_material_match_plays_default_against_material(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("material_match", ROOT / "scripts" / "material_match.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = tmp_path / "mm"
    assert module.main(["--movetime", "0.01", "--concurrency", "1", "--out", str(out),
                        "--openings-limit", "1", "--no-live"]) == 0
    games = read_games((out / "games.pdn").read_text())
    pairs = {(g.tags["Black"], g.tags["White"]) for g in games}
    assert pairs == {("default", "material"), ("material", "default")}
    first = ballot_deck("crossboard")[0]
    assert all(g.tags["Opening"] == first.label for g in games)
    assert "default" in (out / "report.md").read_text()


def test_generalize_strength_plays_the_learned_polynomial(tmp_path: Path) -> None:
    learn = tmp_path / "learn"
    assert samuel_main(["learn", "generalize", "--games", "2", "--seed", "1", "--depth", "2",
                        "--out", str(learn)]) == 0
    out = tmp_path / "strength"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "generalize-strength"), "--state", str(learn / "state.json"),
         "--depth", "2", "--concurrency", "1", "--out", str(out), "--openings-limit", "1", "--no-live"],
        capture_output=True, text=True, cwd=ROOT, timeout=300, env={**os.environ, "SAMUEL_NO_REEXEC": "1"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (out / "learned.json").is_file() and (out / "equal-weight.json").is_file()
    games = read_games((out / "match" / "games.pdn").read_text())
    assert len(games) == 2 and {g.tags["Black"] for g in games} == {"learned", "equal-weight"}
