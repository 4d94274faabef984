"""matches.live: the live view renders the standings, the SPRT and the games in play, and keeps quiet
on a console that is not a terminal."""

from __future__ import annotations

import io
import time

from rich.console import Console
from test_match_standings import match, random_tournament

from matches.live import LiveView, RunningGame, format_duration, llr_bar, render, sprt_percent
from matches.ratings import SprtConfig
from matches.standings import compute_standings


def text_of(renderable: object, width: int = 160) -> str:
    console = Console(file=io.StringIO(), width=width, force_terminal=False, color_system=None)
    console.print(renderable)
    return console.file.getvalue()  # type: ignore[attr-defined]


def running() -> list[RunningGame]:
    now = time.monotonic()
    return [RunningGame("r1:a:b:o3:c0", "a", "b", "ACF 3: 9-13 22-17 13x22", 17, now - 65),
            RunningGame("r1:c:d:o3:c1", "d", "c", "ACF 3: 9-13 22-17 13x22", 4, now - 5)]


def test_render_tournament() -> None:
    names = ["alpha", "beta", "gamma", "delta[red]"]  # names are text, never markup
    st = compute_standings(random_tournament(names, 3), names, total_games=72, elapsed=120, bootstrap=20)
    out = text_of(render(st, running(), title="round-robin: alpha, beta, gamma, delta[red]"))
    assert "round-robin: alpha" in out
    assert "games 36/72 (50%)" in out and "18.0 games/min" in out and "elapsed 2:00" in out
    assert "ETA 2:00" in out
    for name in names:
        assert name in out
    for header in ("Elo ± (95%)", "nElo", "Ptnml(0-2)", "W/D/L", "T/O"):
        assert header in out
    assert "in progress: 2" in out and "r1:a:b:o3:c0" in out and "1:05" in out  # no :b: emoji
    assert "LLR" not in out


def test_render_sprt_match() -> None:
    st = compute_standings(match("new", "old", ["WD", "DD", "WW", "LD"]), ["new", "old"],
                           sprt=SprtConfig(0, 10), total_games=1000, elapsed=30, bootstrap=0)
    out = text_of(render(st, []))
    assert "new" in out and "old" in out
    assert "LLR " in out and "bounds [-2.94, +2.94]" in out and "running" in out
    assert "●" in out
    pairs = (["LD"] + ["DD"] * 6 + ["WD"] * 9 + ["WW"] * 4) * 8
    decided = compute_standings(match("new", "old", pairs), ["new", "old"], sprt=SprtConfig(0, 10),
                                bootstrap=0)
    assert "H1 accepted" in text_of(render(decided, []))


def test_llr_bar_and_helpers() -> None:
    bar = llr_bar(0.0, -2.94, 2.94, width=21).plain
    assert bar.startswith("-2.94 ") and bar.endswith(" +2.94") and bar.index("●") == 6 + 10
    assert llr_bar(9.0, -2.94, 2.94, width=21).plain.index("●") == 6 + 20  # clamped to the end
    assert sprt_percent(1.47, -2.94, 2.94) == 50.0 and sprt_percent(-2.94, -2.94, 2.94) == 100.0
    assert (format_duration(59.6), format_duration(3725), format_duration(None)) == ("1:00", "1:02:05", "-")


def test_live_view_on_a_non_terminal_prints_the_final_state_once() -> None:
    console = Console(file=io.StringIO(), width=160, force_terminal=False)
    names = ["a", "b", "c"]
    records = random_tournament(names, 2)
    with LiveView(console, title="three engines", refresh_per_second=20) as view:
        for n in (4, 8, len(records)):
            view.update(compute_standings(records[:n], names, total_games=len(records), elapsed=n,
                                          bootstrap=0), running())
            time.sleep(0.06)
        view.update(running=[])
    out = console.file.getvalue()  # type: ignore[attr-defined]
    assert out.count("three engines") == 1
    assert "games 12/12 (100%)" in out and "in progress" not in out
    assert "\x1b[" not in out


def test_live_view_on_a_terminal_redraws() -> None:
    console = Console(file=io.StringIO(), width=160, force_terminal=True)
    st = compute_standings(match("a", "b", ["WD"]), ["a", "b"], sprt=SprtConfig(0, 10), bootstrap=0)
    with LiveView(console, title="a vs b", refresh_per_second=20) as view:
        assert "starting" in text_of(view.renderable())
        view.update(st, running())
        # Wait for the refresh thread's redraw, however late a busy machine lets it run.
        deadline = time.monotonic() + 600
        while console.file.getvalue().count("a vs b") < 2 and time.monotonic() < deadline:  # type: ignore[attr-defined]
            time.sleep(0.02)
    out = console.file.getvalue()  # type: ignore[attr-defined]
    assert out.count("a vs b") >= 2 and "LLR" in out
