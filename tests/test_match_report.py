"""matches.report and matches.plot: the final report (terminal and Markdown) and the ratings PNG."""

from __future__ import annotations

from pathlib import Path

from test_match_live import text_of
from test_match_standings import game, match, random_tournament

from engine.termination import Termination
from matches.plot import plot_ratings
from matches.ratings import SprtConfig
from matches.record import SideReport
from matches.report import render_markdown, render_text, tournament_title
from matches.standings import compute_standings, llr_history

SPRT = {"elo0": 0, "elo1": 10, "alpha": 0.05, "beta": 0.05, "model": "normalized"}
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def sprt_match():  # type: ignore[no-untyped-def]
    records = match("new", "old", (["LD"] + ["DD"] * 6 + ["WD"] * 9 + ["WW"] * 4) * 8)
    records.append(game("old", "new", "L", pair_id="x", ending=Termination.TIME_FORFEIT,
                        sides={"old": SideReport(time_forfeit=True), "new": SideReport()}))
    st = compute_standings(records, ["new", "old"], sprt=SprtConfig(0, 10), total_games=400, elapsed=600,
                           bootstrap=0)
    return st, records


def test_text_report_of_a_match() -> None:
    st, _ = sprt_match()
    config = {"engines": [{"name": "new"}, {"name": "old"}], "format": "match", "sprt": SPRT,
              "time_control": "0.1s/move"}
    title = tournament_title(config)
    assert title == "match: new vs old, tc 0.1s/move"
    out = text_of(render_text(st, title=title, config=config))
    assert title in out and "321 of 400 games in 10:00" in out
    assert "Rating list" in out and "new" in out and "old" in out
    assert "Score of new vs old: 137 - 8 - 176 [0.701] 321" in out
    assert "Elo difference: " in out and "LOS: " in out and "DrawRatio: " in out
    assert "Ptnml(0-2): [0, 8, 48, 72, 32]" in out
    assert "SPRT: llr" in out and "[0, 10] nElo (normalized)" in out and "H1 was accepted" in out
    assert "Time losses and faults" in out and "time forfeit" in out  # the ending in words
    assert "First-move (Black) advantage" in out


def test_markdown_report_of_a_tournament() -> None:
    names = ["a", "b", "c"]
    st = compute_standings(random_tournament(names, 4), names, total_games=48, elapsed=90, bootstrap=20)
    config = {"engines": [{"name": n} for n in names], "format": "round-robin", "sprt": None,
              "concurrency": 2, "time_control": "1+0.1"}
    md = render_markdown(st, config, title="RR")
    assert md.startswith("# RR\n")
    assert "- Format: round-robin" in md and "- Concurrency: 2" in md
    assert "## Rating list" in md and "| Rank | Name | Elo |" in md and "|---:|:---|---:|" in md
    assert "## Pairings" in md and "| a | b |" in md and "Ptnml(0-2): [" in md
    assert "## Endings" in md and "## Time losses and faults" in md and "None." in md
    assert "joint Bradley-Terry" in md
    assert "SPRT" not in md
    assert md.count("\n| ") >= 3 + 3 + 1


def test_markdown_report_has_the_sprt() -> None:
    st, _ = sprt_match()
    md = render_markdown(st, {"engines": [{"name": "new"}, {"name": "old"}], "sprt": SPRT}, title="m")
    assert "## SPRT" in md and "H1 was accepted" in md and "| old | 1 | 0 |" in md


def test_plot_with_and_without_llr(tmp_path: Path) -> None:
    st, records = sprt_match()
    llr = llr_history(records, ["new", "old"], SprtConfig(0, 10))
    with_llr = plot_ratings(st, tmp_path / "m.png", llr=llr, title="new vs old")
    names = ["a", "b", "c", "d"]
    plain = plot_ratings(compute_standings(random_tournament(names, 2), names, bootstrap=10),
                         tmp_path / "sub" / "rr.png")
    empty = plot_ratings(compute_standings([], ["a", "b"]), tmp_path / "empty.png", llr=[])
    for path in (with_llr, plain, empty):
        data = path.read_bytes()
        assert data[:8] == PNG_MAGIC and len(data) > 1000
    assert with_llr.stat().st_size != plain.stat().st_size
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["empty.png", "m.png", "rr.png", "sub"]
