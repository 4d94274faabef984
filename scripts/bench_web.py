#!/usr/bin/env python3
"""How soon the board page shows the engine's reply: headless Chromium against `samuel serve --web-port`.

    scripts/test-browser --co -q >/dev/null   # once: installs Chromium and playwright if missing
    .venv/bin/python scripts/bench_web.py [--level 0.5] [--trials 5]

Two figures, each the median over fresh tabs (a tab is a new cb session, so the first
reply pays for the session's set-up):
* the start position, the page playing 11-15: click to the engine's reply on the board
  (the opening book usually answers);
* a position out of the book (a seeded random walk of 16 plies), the engine to move:
  the Load click to its searched reply on the board, at ``--level`` seconds a move.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from engine.board import Board

CHROMIUM = os.environ.get("SAMUEL_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
MOVE_WORDS = "n => document.querySelector('#moves').textContent.trim().split(/\\s+/).length >= n"
WAIT_MS = 120_000


def out_of_book_fen(seed: int) -> str:
    """Black to move after 16 random plies, with a choice of quiet moves (a search, not a forced reply)."""
    rng = random.Random(seed)
    while True:
        board = Board()
        for _ in range(16):
            moves = board.legal_moves
            if not moves:
                break
            board.push(rng.choice(moves))
        moves = board.legal_moves
        if board.ply == 16 and len(moves) >= 4 and not any(board.notation(m).count("x") for m in moves):
            return board.fen()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--level", default="0.5", help="the page's level: seconds a move (default: %(default)s)")
    ap.add_argument("--trials", type=int, default=5)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        port_file = Path(tmp) / "ports.json"
        server = subprocess.Popen([sys.executable, "-m", "samuel.cli", "serve", "--no-dxp", "--no-cb",
                                   "--web-port", "0", "--port-file", str(port_file), "--log", f"{tmp}/log"])
        try:
            while not port_file.exists():
                if server.poll() is not None:
                    raise SystemExit("samuel serve exited")
                time.sleep(0.05)
            url = f"http://127.0.0.1:{json.loads(port_file.read_text())['web']}/"
            book: list[float] = []
            searched: list[float] = []
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
                for trial in range(args.trials):
                    page = browser.new_page()
                    page.goto(url)
                    page.wait_for_selector("body[data-state=ready]", timeout=WAIT_MS)
                    page.select_option("#level", args.level)
                    page.click("[data-square='11']")
                    t0 = time.monotonic()
                    page.click("[data-square='15']")
                    page.wait_for_function(MOVE_WORDS, arg=3, timeout=WAIT_MS)
                    book.append(time.monotonic() - t0)
                    page.close()

                    page = browser.new_page()
                    page.goto(url)
                    page.wait_for_selector("body[data-state=ready]", timeout=WAIT_MS)
                    page.select_option("#level", args.level)
                    page.select_option("#side", "W")
                    page.wait_for_selector("body[data-state=ready]", timeout=WAIT_MS)
                    page.fill("#pastebox", out_of_book_fen(trial))
                    t0 = time.monotonic()
                    page.click("#paste")
                    page.wait_for_function(MOVE_WORDS, arg=2, timeout=WAIT_MS)
                    searched.append(time.monotonic() - t0)
                    page.close()
                browser.close()
        finally:
            server.terminate()
            server.wait(30)
    print(f"level {args.level} s a move, {args.trials} fresh tabs each, median (min-max):")
    print(f"  start position, 11-15, click to reply:   {statistics.median(book):.3f} s "
          f"({min(book):.3f}-{max(book):.3f})")
    print(f"  out of the book, Load to searched reply: {statistics.median(searched):.3f} s "
          f"({min(searched):.3f}-{max(searched):.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
