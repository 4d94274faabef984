"""The real client: pydraughts' HubEngine drives ``samuel hub`` through whole games.

Every engine move is checked twice: pydraughts' Move constructor raises KeyError
on an illegal move, and our own Board must accept it too.
"""

from __future__ import annotations

import contextlib
import random
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

draughts = pytest.importorskip("draughts")
from draughts.engine import HubEngine, Limit  # noqa: E402

from engine.board import Board  # noqa: E402
from matches.openings import read_ballots  # noqa: E402
from protocol import hub_grammar as g  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SAMUEL = ROOT / ".venv" / "bin" / "samuel"
PLY_CAP = 150

pytestmark = pytest.mark.skipif(not SAMUEL.exists(), reason="needs the installed samuel script")


def ballot_fen() -> str:
    """The first ballot with White to move (from the ballots the package ships)."""
    return next(o.fen for o in read_ballots() if o.fen.startswith("W:"))


@pytest.fixture
def engine() -> Iterator[HubEngine]:
    e = HubEngine([str(SAMUEL), "hub"])
    try:
        assert e.id["name"] == "samuel"
        assert "english" in e.variants
        e.configure({"variant": "english"})
        e.init()
        e.ping()
        yield e
    finally:
        with contextlib.suppress(Exception):
            e.quit()
        with contextlib.suppress(ProcessLookupError, OSError):
            e.kill_process()


def play_game(engine: HubEngine, board: draughts.Board, limit: Limit, engine_turns: set[int],
              rng: random.Random, ponder: bool = False) -> int:
    """Play to the end (or the ply cap); returns the number of engine moves."""
    mirror = Board(board.initial_fen)
    for m in board.move_stack:
        mirror.push(g.parse_move(mirror, m.hub_move))
    engine_moves = 0
    while not board.is_over() and len(board.move_stack) < PLY_CAP:
        if board.turn in engine_turns:
            result = engine.play(board, limit, ponder)
            move = result.move
            engine_moves += 1
        else:
            move = rng.choice(board.legal_moves())
        mirror.push(g.parse_move(mirror, move.hub_move))  # legal for us too
        board.push(move)
        assert mirror.fen().split(":")[0] == ("B" if board.turn == draughts.BLACK else "W")
    if not board.is_over():
        assert len(board.move_stack) >= PLY_CAP  # called a draw at the cap
    return engine_moves


def test_engine_plays_both_sides_from_the_start(engine: HubEngine) -> None:
    board = draughts.Board(variant="english")
    n = play_game(engine, board, Limit(movetime=0.02), {draughts.WHITE, draughts.BLACK}, random.Random(1))
    assert n == len(board.move_stack) > 0
    assert "depth" in engine.info and isinstance(engine.info["score"], dict)


@pytest.mark.parametrize("limit", [
    Limit(time=0.6, inc=0.01), Limit(time=0.6), Limit(movetime=0.02), Limit(depth=3), Limit(nodes=2000),
], ids=["time+inc", "time", "movetime", "depth", "nodes"])
def test_every_limit_against_a_random_mover(engine: HubEngine, limit: Limit) -> None:
    for side, seed in ((draughts.BLACK, 2), (draughts.WHITE, 3)):
        board = draughts.Board(variant="english")
        assert play_game(engine, board, limit, {side}, random.Random(seed)) > 0


def test_ballot_start_engine_replies_in_auto_frame(engine: HubEngine) -> None:
    # The random mover moves first, so moves= is never empty and auto finds the frame.
    board = draughts.Board(variant="english", fen=ballot_fen())
    assert board._game.initial_hub_fen != g.format_position(Board(ballot_fen()))
    opener = draughts.WHITE if board.turn == draughts.WHITE else draughts.BLACK
    other = draughts.BLACK if opener == draughts.WHITE else draughts.WHITE
    assert play_game(engine, board, Limit(movetime=0.02), {other}, random.Random(4)) > 0


def test_ballot_start_both_sides_with_the_pydraughts_frame(engine: HubEngine) -> None:
    engine.configure({"frame": "pydraughts"})
    board = draughts.Board(variant="english", fen=ballot_fen())
    play_game(engine, board, Limit(movetime=0.02), {draughts.WHITE, draughts.BLACK}, random.Random(5))
    assert len(board.move_stack) > 0


def test_ponder_then_ponderhit_or_stop(engine: HubEngine) -> None:
    board = draughts.Board(variant="english")
    mirror = Board()
    for i in range(6):
        box: dict[str, object] = {}
        limit = Limit(movetime=0.05)

        def think() -> None:
            box["result"] = engine.play(board, limit, True)  # noqa: B023

        t = threading.Thread(target=think, daemon=True)
        t.start()
        if i % 2:
            engine.ponderhit()  # waits until `go ponder` went out; the search then runs on the clock
        else:
            deadline = time.monotonic() + 30
            while engine._last_sent != "go ponder" and time.monotonic() < deadline:
                time.sleep(0.001)
            engine.stop()
        t.join(30)
        assert not t.is_alive(), "no done after ponder-hit/stop"
        move = box["result"].move  # type: ignore[attr-defined]
        mirror.push(g.parse_move(mirror, move.hub_move))
        board.push(move)
    # A ponder search bounded by depth may finish before the GUI's ponder-hit, which then comes late.
    result = engine.play(board, Limit(depth=2), True)
    engine.ponderhit()
    engine.ping()
    board.push(result.move)
    assert engine.play(board, Limit(depth=2), False).move is not None


def test_backend_704_plays_whole_games_for_pydraughts() -> None:
    """pydraughts' HubEngine against `samuel hub` with backend=704: Samuel's 704 program plays both sides,
    then each side against a random mover, every move checked legal by both move generators."""
    e = HubEngine([str(SAMUEL), "hub"])
    try:
        assert "backend" in e.options  # declared by the engine's param lines
        e.configure({"variant": "english", "backend": "704"})
        e.init()
        board = draughts.Board(variant="english")
        n = play_game(e, board, Limit(movetime=0.02), {draughts.WHITE, draughts.BLACK}, random.Random(7))
        assert n == len(board.move_stack) > 0
        assert "704-time" in e.info  # the 704 program answered, not the modern core
        for side, seed in ((draughts.BLACK, 8), (draughts.WHITE, 9)):
            board = draughts.Board(variant="english")
            assert play_game(e, board, Limit(depth=4), {side}, random.Random(seed)) > 0
    finally:
        with contextlib.suppress(Exception):
            e.quit()
        with contextlib.suppress(ProcessLookupError, OSError):
            e.kill_process()
