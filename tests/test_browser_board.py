"""The board page in a real browser: Playwright driving the system's headless Chromium.

Run on purpose with ``scripts/test-browser`` (it installs Chromium and playwright when
missing). ``SAMUEL_SHOTS=DIR`` keeps the screenshots there (docs/ uses them).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from serving import serve_process

from engine.board import Board

pytestmark = pytest.mark.browser

CHROMIUM = os.environ.get("SAMUEL_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    # Root in a container needs no-sandbox; the rest keep Chromium off the (closed) network.
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
MOVE_WORDS = "n => document.querySelector('#moves').textContent.trim().split(/\\s+/).length >= n"
"""True once the move list holds ``n`` words (move numbers count)."""
WAIT_MS = 120_000
"""How long to wait for an event that should come within a second: only a hang reaches it."""


def shots_dir(tmp_path: Path) -> Path:
    wanted = os.environ.get("SAMUEL_SHOTS")
    path = Path(wanted) if wanted else tmp_path
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright  # the 'browser' extra

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield b
        finally:
            b.close()


def test_play_11_15_and_see_the_engine_reply(browser: Any, tmp_path: Path) -> None:
    with serve_process(tmp_path, "--no-dxp", "--no-cb", "--web-port", "0") as (_, ports):
        page = browser.new_page(viewport={"width": 1100, "height": 760})
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
        page.goto(f"http://127.0.0.1:{ports['web']}/")
        page.wait_for_selector("body[data-state=ready]", timeout=WAIT_MS)
        page.select_option("#level", "0.5")
        assert page.locator("[data-square]").count() == 32
        assert page.locator("[data-piece=man-black]").count() == 12

        page.click("[data-square='11']")
        started = time.monotonic()
        page.click("[data-square='15']")
        page.wait_for_function(MOVE_WORDS, arg=3, timeout=WAIT_MS)
        reply_seconds = time.monotonic() - started
        page.wait_for_selector("body[data-state=ready]", timeout=WAIT_MS)
        moves = page.locator("#moves").inner_text().split()
        assert moves[:2] == ["1.", "11-15"], moves
        assert moves[2] in {"21-17", "22-17", "22-18", "23-18", "23-19", "24-19", "24-20"}, moves
        assert page.locator("[data-piece=man-white]").count() == 12
        assert page.locator("[data-piece=man-black]").count() == 12
        # A second move of the page's side (the first legal one: the reply may force a
        # capture), then a look at the board mid-game.
        board = Board()
        board.push_many(moves[1:3])
        second = board.notation(board.legal_moves[0])
        for square in second.replace("x", "-").split("-"):
            page.click(f"[data-square='{square}']")
        page.wait_for_function(MOVE_WORDS, arg=6, timeout=WAIT_MS)
        page.wait_for_selector("body[data-state=ready]", timeout=WAIT_MS)
        page.screenshot(path=str(shots_dir(tmp_path) / "web-board.png"))
        print(f"first engine reply at 0.5 s a move: {reply_seconds:.2f} s (click to reply on the board)")
        assert not errors, errors
