"""Hosting Samuel's Alpha in protocol sessions: the named polynomial learns and is saved per game."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from engine import BLACK, Board, Limit, evaluators
from engine.learners.generalize_host import AlphaStore, HostedAlpha, merge
from engine.learners.generalize_state import PolynomialState, TermRecord
from engine.options import OptionValues
from protocol.session_engine import SessionDefaults, SessionEngine


async def _play(session: SessionEngine, plies: int = 24) -> Board:
    """The engine plays both sides' moves for Alpha's colour (Black) and a fixed reply for White."""
    board = Board()
    while board.ply < plies and board.legal_moves:
        if board.turn == BLACK:  # the engine plays Black, as Alpha
            found = await session.search(board, Limit(depth=3))
            assert found.best is not None
            board.push(found.best)
        else:
            board.push(board.legal_moves[-1])
    return board


def test_session_alpha_saves_after_a_game(tmp_path: Path) -> None:
    async def main() -> None:
        session = SessionEngine(SessionDefaults(options=OptionValues(mode="samuel"), alpha="club",
                                                alpha_dir=str(tmp_path)))
        await _play(session)
        session.new_game()  # the game is over: Alpha's polynomial is saved
        saved = json.loads((tmp_path / "club.json").read_text())
        assert saved["games"] == 1 and saved["alpha"]["moves"] >= 10
        ev = evaluators.load(tmp_path / "club.evaluator.json")
        assert ev.name == "club"
        # The second game starts from the saved polynomial and saves on close.
        await _play(session, 10)
        await session.close()
        again = json.loads((tmp_path / "club.json").read_text())
        assert again["games"] == 2 and again["alpha"]["moves"] > saved["alpha"]["moves"]

    asyncio.run(main())


def test_two_concurrent_games_of_one_name_merge(tmp_path: Path) -> None:
    store = AlphaStore(tmp_path, "shared")
    a, b = HostedAlpha(store), HostedAlpha(store)
    for host in (a, b):
        board = Board()
        board.push_many(["11-15", "23-19"])
        host.learn(board, 0, ())
        board.push_many(["8-11", "22-17"])
        host.learn(board, -300, ())
    first = a.end_game()
    second = b.end_game()
    assert first is not None and second is not None
    assert (first.generation, second.generation) == (1, 2)
    saved = json.loads(store.path.read_text())
    assert saved["games"] == 2
    # Both games' moves count: nothing learned by the first is lost to the second.
    assert saved["alpha"]["moves"] == 4


def test_merge_adds_one_games_changes() -> None:
    start = PolynomialState([TermRecord("A", 0.1, 3, 0), TermRecord("B", 0.2, 1, 0)], ["C"])
    end = PolynomialState([TermRecord("A", 0.3, 5, 1), TermRecord("C", 0.05, 1, 0)], ["B"], moves=4)
    saved = PolynomialState([TermRecord("A", -0.1, 10, 2), TermRecord("B", 0.4, 2, 0)], ["C"], moves=7)
    out = merge(saved, start, end)
    assert out.names == ["A", "B"]  # the saved term list wins
    a = out.record("A")
    assert abs(a.correlation - 0.1) < 1e-12 and a.uses == 12 and a.tally == 3
    assert out.record("B").correlation == 0.4  # B left the other game: unchanged here
    assert out.moves == 11


def test_an_alpha_dir_that_cannot_be_made_is_an_error_at_start(tmp_path: Path) -> None:
    from samuel.cli import main

    blocker = tmp_path / "file"
    blocker.write_text("a file where the folder should go")
    assert main(["cb", "--alpha", "x", "--alpha-dir", str(blocker / "alpha")]) == 2
