"""samuel ratings show/plot on a tournament directory written by hand in the documented format."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from test_match_standings import events_for, match, random_tournament

from samuel import cli

SPRT = {"elo0": 0, "elo1": 10, "alpha": 0.05, "beta": 0.05, "model": "normalized"}


def write(directory: Path, events: Sequence[dict[str, Any]], tail: str = "") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "events.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events) + tail, encoding="utf-8")
    return directory


def samuel(monkeypatch: pytest.MonkeyPatch, *argv: str) -> int:
    if "ratings" not in cli.COMMANDS:
        monkeypatch.setattr(cli, "COMMANDS", [*cli.COMMANDS, "ratings"])
    return cli.main(list(argv))


def test_show_and_markdown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                           capsys: pytest.CaptureFixture[str]) -> None:
    records = match("new", "old", ["WD", "DD", "WW", "LD", "DW", "WW"])
    # A kill mid-write leaves half a line: it is ignored.
    directory = write(tmp_path / "t", events_for(records, ["new", "old"], sprt=SPRT, total=100),
                      tail='{"event": "game_fin')
    md = tmp_path / "report.md"
    assert samuel(monkeypatch, "ratings", "show", str(directory), "--markdown", str(md)) == 0
    out = capsys.readouterr().out
    assert "match: new vs old" in out and "Rating list" in out and "12 of 100 games" in out
    assert "Elo difference:" in out and "SPRT: llr" in out and "no decision" in out
    text = md.read_text(encoding="utf-8")
    assert text.startswith("# match: new vs old") and "## Rating list" in text and "## SPRT" in text


def test_plot_default_and_explicit_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    names = ["a", "b", "c"]
    directory = write(tmp_path / "rr", events_for(random_tournament(names, 2), names))
    assert samuel(monkeypatch, "ratings", "plot", str(directory), "--bootstrap", "20", "--seed", "4") == 0
    default = directory / "ratings.png"
    assert capsys.readouterr().out.strip() == str(default)
    assert default.read_bytes()[:4] == b"\x89PNG"

    sprt_dir = write(tmp_path / "m", events_for(match("x", "y", ["WD", "WW"] * 3), ["x", "y"], sprt=SPRT))
    out = tmp_path / "plots" / "m.png"
    assert samuel(monkeypatch, "ratings", "plot", str(sprt_dir / "events.jsonl"), "-o", str(out)) == 0
    assert capsys.readouterr().out.strip() == str(out)
    assert out.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("case, message", [
    ("missing", "no such file or directory"),
    ("no-log", "no tournament there"),
    ("empty", "no events"),
    ("no-games", "no finished games"),
])
def test_errors_name_the_path(case: str, message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                              capsys: pytest.CaptureFixture[str]) -> None:
    directory = tmp_path / "t"
    if case == "no-log":
        directory.mkdir()
    elif case == "empty":
        write(directory, [])
    elif case == "no-games":
        write(directory, events_for([], ["a", "b"], total=10, finished=False))
    for action in ("show", "plot"):
        assert samuel(monkeypatch, "ratings", action, str(directory)) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"samuel ratings: error: {directory}") and message in err
    assert not (directory / "ratings.png").exists()
