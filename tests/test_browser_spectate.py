"""The spectator page in a real browser during a two-game match (``samuel match --web-port``).

Run on purpose with ``scripts/test-browser``; ``SAMUEL_SHOTS=DIR`` keeps the screenshot.
The games are timed (0.2 s a move, each some twenty seconds or more), so the page, opened
as soon as the match says where to look, finds them in play however busy the machine is.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_browser_board import WAIT_MS, browser, shots_dir

from engine.board import Board

pytestmark = pytest.mark.browser
REPO = Path(__file__).resolve().parents[1]
__all__ = ["browser"]  # the fixture, imported for this module's tests


def test_the_spectator_page_shows_both_games_and_the_standings(browser: Any, tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "samuel", "match", "--openings-limit", "1", "--tc", "st=0.2",
         "--maxmoves", "60", "--concurrency", "2", "--no-live", "--out", str(tmp_path / "m"),
         "--web-port", "0", "--engine", "name=samuel", "--engine", "name=material", "eval=material"],
        cwd=REPO, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        url = None
        for line in proc.stderr:
            if found := re.search(r"watch it live at (http://\S+/)", line):
                url = found[1]
                break
        assert url, "samuel match ended without serving the page"
        page = browser.new_page(viewport={"width": 1200, "height": 820})
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(url)
        page.wait_for_function("() => document.body.dataset.games === '2'", timeout=WAIT_MS)
        # Both boards move on as the games are played: wait for a few moves in each.
        page.wait_for_function(
            "() => [...document.querySelectorAll('article.game .moves')].every("
            "m => m.textContent.trim().split(/\\s+/).length >= 12)", timeout=WAIT_MS)
        games = page.locator("article.game[data-game]")
        assert games.count() == 2, page.content()[:3000]
        for i in range(2):
            game = games.nth(i)
            assert game.locator(".board").count() == 1
            words = game.locator(".moves").inner_text().split()
            moves = [w for w in words if not re.fullmatch(r"\d+\.", w)]
            board = Board()
            board.push_many(moves)  # every move shown is legal, in order from the start
        rows = page.locator("table#standings tr").all_inner_texts()
        assert any("samuel" in r for r in rows) and any("material" in r for r in rows)
        page.screenshot(path=str(shots_dir(tmp_path) / "web-spectator.png"))
        assert not errors, errors
    finally:
        proc.terminate()
        proc.wait(60)
