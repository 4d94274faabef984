"""The issue's acceptance gauntlet, in full: slow (about 7 minutes on 2 cores), run on purpose with -m slow.

The default engine against ``material`` and two Samuel-ply-rule players at fixed
depths, over the 144 crossboard ballots in colour-reversed pairs, two games at once.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from engine.pdn import read_games
from matches.store import finished_records, read_events

REPO = Path(__file__).resolve().parents[1]

GAUNTLET = [
    "tournament", "--format", "gauntlet", "--concurrency", "2", "--tc", "depth=6", "--no-live",
    "--engine", "name=default", "eval=default",
    "--engine", "name=material", "eval=material",
    "--engine", "name=samuel-ply3", "mode=samuel", "depth=3",
    "--engine", "name=samuel-ply5", "mode=samuel", "depth=5",
]


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_gauntlet_over_the_144_crossboard_ballots(tmp_path: Path) -> None:
    out = tmp_path / "gauntlet"
    run = subprocess.run([sys.executable, "-m", "samuel", *GAUNTLET, "--out", str(out)], cwd=REPO,
                         capture_output=True, text=True, timeout=1800, stdin=subprocess.DEVNULL)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "Rating list" in run.stdout
    for name in ("default", "material", "samuel-ply3", "samuel-ply5"):
        assert name in run.stdout
    records = finished_records(read_events(out / "events.jsonl"))
    assert len(records) == 3 * 144 * 2
    assert {r.spec.opening_index for r in records} == set(range(144))
    assert all(not r.ending.is_fault for r in records), [r.reason for r in records if r.ending.is_fault]
    text = (out / "games.pdn").read_text()
    assert len(read_games(text)) == 864
    from draughts.PDN import PDNReader

    theirs = PDNReader(pdn_text=text).games
    assert len(theirs) == 864 and all(g.variant == "english" for g in theirs)
