"""The real client: pydraughts' DXPEngine plays whole games against our follower.

pydraughts plays random legal moves for its side; every engine move must be
one pydraughts recognises (else its ``play`` would never return, which the
watchdog turns into a failure) and legal on our own Board.
"""

from __future__ import annotations

import random
import threading
import types
from pathlib import Path
from typing import Any

import pytest
from serving import DxpServerThread as ServerThread
from serving import serve_process

from engine.board import Board
from engine.options import OptionValues
from engine.types import BLACK, WHITE, Color
from protocol import dxp_session
from protocol.context import ServerSettings
from protocol.session_engine import SessionDefaults

draughts = pytest.importorskip("draughts")
from draughts.engine import DXPEngine  # noqa: E402
from draughts.engines.dxp_communication import dxp_classes  # noqa: E402

pytestmark = pytest.mark.timeout(180)

PLY_CAP = 200
PLAY_TIMEOUT = 30.0


@pytest.fixture(autouse=True)
def no_quit_sleep(monkeypatch: pytest.MonkeyPatch) -> None:
    # pydraughts sleeps 7 s between shutdown() and close() in quit().
    monkeypatch.setattr(dxp_classes, "time", types.SimpleNamespace(sleep=lambda s: None))


def settings(**kw: Any) -> ServerSettings:
    base: dict[str, Any] = {"dxp_movetime": 0.02, "defaults": SessionDefaults(options=OptionValues(hash=1)),
                            "idle_timeout": 60.0}
    base.update(kw)
    return ServerSettings(**base)


def ours(board: Board, pmove: Any) -> Any:
    """Our Move for a pydraughts move (its landing squares as a full path)."""
    sep = "x" if pmove.captures else "-"
    return board.parse_move(sep.join(str(s) for s in pmove.steps_move))


def play_with_watchdog(engine: DXPEngine, pboard: Any) -> Any:
    """engine.play, failing (not hanging) if pydraughts never sees a move it recognises."""
    box: dict[str, Any] = {}

    def run() -> None:
        box["result"] = engine.play(pboard)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(PLAY_TIMEOUT)
    if t.is_alive():
        sock = engine.sender.socket.sock
        if sock is not None:
            sock.close()  # lets pydraughts' receive thread (and with it play) finish
        t.join(10)
        pytest.fail("pydraughts got no move it recognises from the engine")
    return box["result"]


def play_game(port: int, engine_color: Color, fen: str | None, seed: int) -> Board:
    """One game, pydraughts moving at random; returns our record of it."""
    rng = random.Random(seed)
    engine = DXPEngine(None, {"engine-opened": True, "ip": "127.0.0.1", "port": str(port), "max-moves": 0},
                       initial_time=0)
    pboard = draughts.Board(variant="english", fen=fen or "startpos")
    board = Board(fen)
    try:
        while len(board.move_stack) < PLY_CAP and board.outcome() is None:
            if board.turn == engine_color:
                result = play_with_watchdog(engine, pboard)
                assert result.move is not None
                move = ours(board, result.move)  # raises if illegal for us
                pboard.push(result.move)
                board.push(move)
            else:
                pmove = rng.choice(pboard.legal_moves())
                board.push(ours(board, pmove))
                pboard.push(pmove)
        # Only now does pydraughts learn the last move when it was its own: not needed, it ends here.
    finally:
        engine.quit()
    return board


@pytest.mark.parametrize("engine_color", [BLACK, WHITE], ids=["engine-black", "engine-white"])
def test_pydraughts_full_game(engine_color: Color) -> None:
    with ServerThread(settings()) as srv:
        board = play_game(srv.port, engine_color, None, seed=engine_color + 11)
    assert len(board.move_stack) >= 2
    if board.outcome() is not None and board.outcome().winner is not None:  # type: ignore[union-attr]
        # Against random moves the engine should not be the one losing.
        assert board.outcome().winner == engine_color  # type: ignore[union-attr]


def test_pydraughts_custom_fen_with_pydraughts_frame() -> None:
    # An ACF 3-move ballot (9-13 21-17 5-9), White to move: pydraughts writes it in its rotated frame.
    fen = "W:W17,22,23,24,25,26,27,28,29,30,31,32:B1,10,11,12,13,2,3,4,6,7,8,9"
    with ServerThread(settings(dxp_frame="pydraughts")) as srv:
        for engine_color in (WHITE, BLACK):
            board = play_game(srv.port, engine_color, fen, seed=5 + engine_color)
            assert board.initial_fen == Board(fen).initial_fen
            assert len(board.move_stack) >= 2


def test_quit_handshake_closes_cleanly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dxp_session, "MESSAGE_GAP", 0.1)  # the real gap, as pydraughts needs it
    with ServerThread(settings()) as srv:
        engine = DXPEngine(None, {"engine-opened": True, "ip": "127.0.0.1", "port": str(srv.port)},
                           initial_time=30)  # under a minute: pydraughts sends 000 minutes
        pboard = draughts.Board(variant="english")
        result = play_with_watchdog(engine, pboard)  # the engine (Black) moves first, right after GAMEACC
        assert engine.id["name"] == "samuel"
        pboard.push(result.move)
        engine.quit()
        assert engine.receiver.gameend_sent


def test_pydraughts_plays_whole_games_against_samuel_serve(tmp_path: Path) -> None:
    """The product as shipped: the `samuel serve` process, pydraughts connecting to its DXP port."""
    with serve_process(tmp_path, "--dxp-movetime", "0.02") as (_proc, ports):
        for engine_color in (BLACK, WHITE):
            board = play_game(ports["dxp"], engine_color, None, seed=31 + engine_color)
            assert board.outcome() is not None, f"unfinished after {len(board.move_stack)} plies"
