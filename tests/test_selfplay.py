"""Self-play games for tuning: determinism, resuming, legal games with the right results, bad files,
and `samuel learn tune --selfplay`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.board import Board
from engine.learners import selfplay
from engine.pdn import iter_games
from engine.types import BLACK
from matches.openings import ballot_deck
from samuel.cli import main as samuel_main

OPENINGS = [(o.label, o.moves) for o in ballot_deck()]
FAST = selfplay.Settings(nodes=300, max_plies=90, adjudicate_from=40, adjudicate_hold=6, seed=5)
OCA = Path(__file__).parent / "data" / "oca_first60.pdn"


def _make(path: Path, games: int, settings: selfplay.Settings = FAST, jobs: int = 1) -> selfplay.Report:
    return selfplay.generate(path, games, OPENINGS, settings, jobs=jobs)


def test_same_seed_same_file_whatever_the_jobs(tmp_path: Path) -> None:
    a, b, c = tmp_path / "a.pdn", tmp_path / "b.pdn", tmp_path / "c.pdn"
    report = _make(a, 6)
    assert (report.games, report.played, report.kept) == (6, 6, 0)
    _make(b, 6, jobs=2)
    assert a.read_bytes() == b.read_bytes()
    _make(c, 6, selfplay.Settings(**{**FAST.__dict__, "seed": 6}))
    assert a.read_bytes() != c.read_bytes()
    rounds = [int(g.tags["Round"]) for g in iter_games(a)]
    assert rounds == [1, 2, 3, 4, 5, 6]


def test_a_rerun_keeps_the_games_and_plays_the_rest(tmp_path: Path) -> None:
    whole, part = tmp_path / "whole.pdn", tmp_path / "part.pdn"
    _make(whole, 5)
    _make(part, 2)
    report = _make(part, 5)
    assert (report.kept, report.played, report.games) == (2, 3, 5)
    assert part.read_bytes() == whole.read_bytes()
    assert _make(part, 5).played == 0  # nothing left to do
    # killed while writing game 4: the torn game is dropped and played again
    text = whole.read_text()
    cut = text.index('[Event', text.index('[Round "4"]') - 40) + 120
    part.write_text(text[:cut])
    report = _make(part, 5)
    assert (report.kept, report.played) == (3, 2) and part.read_bytes() == whole.read_bytes()
    # games finished out of order (two jobs) are kept by their number and sorted at the end
    games = text.split("\n\n")
    part.write_text("\n\n".join([games[3], games[0]]) + "\n\n")
    report = _make(part, 5)
    assert (report.kept, report.played) == (2, 3) and part.read_bytes() == whole.read_bytes()


def test_games_are_legal_and_their_results_right(tmp_path: Path) -> None:
    path = tmp_path / "g.pdn"
    settings = selfplay.Settings(nodes=400, max_plies=120, adjudicate_from=50, adjudicate_hold=4, seed=1)
    _make(path, 10, settings)
    games = list(iter_games(path))  # strict: every move is replayed and must be legal
    assert len(games) == 10
    endings = set()
    for i, game in enumerate(games):
        label, moves = OPENINGS[i % len(OPENINGS)]
        assert game.tags["Opening"] == label and game.tags["Generator"] == settings.tag()
        board = Board()
        for text in moves.split():
            assert board.notation(game.moves[board.ply]) == board.notation(board.parse_move(text))
            board.push(game.moves[board.ply])
        for move in game.moves[board.ply:]:
            board.push(move)
        term = game.tags["Termination"]
        endings.add(term.split(" (")[0])
        assert game.termination is not None and term.startswith(game.termination.label)
        if term == "no legal moves":
            assert not board.legal_moves and game.result == ("0-1" if board.turn == BLACK else "1-0")
        elif term == "threefold repetition":
            assert board.is_repetition(3) and game.result == "1/2-1/2"
        elif term == "40-move rule":
            assert board.is_forty_move_draw() and game.result == "1/2-1/2"
        elif term.startswith("adjudicated win"):
            side = selfplay.leader(board, settings.adjudicate_lead)
            assert side is not None and board.ply >= settings.adjudicate_from
            assert game.result == ("1-0" if side == BLACK else "0-1")
            for _ in range(settings.adjudicate_hold - 1):  # the lead was held that long
                board.pop()
                assert selfplay.leader(board, settings.adjudicate_lead) == side
        else:
            assert term == f"move cap ({settings.max_plies} plies)" and len(game.moves) == settings.max_plies
            assert game.result == "1/2-1/2"
    assert len(endings) >= 2


def test_bad_files_give_clear_errors(tmp_path: Path) -> None:
    other = tmp_path / "other.pdn"
    other.write_text(OCA.read_text())
    with pytest.raises(selfplay.SelfPlayError, match="not a samuel self-play game"):
        _make(other, 2)
    assert other.read_text() == OCA.read_text()  # left as it was
    binary = tmp_path / "binary.pdn"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(selfplay.SelfPlayError, match="not UTF-8"):
        selfplay.read_existing(binary)
    mine = tmp_path / "mine.pdn"
    _make(mine, 2)
    with pytest.raises(selfplay.SelfPlayError, match="other settings"):
        _make(mine, 3, selfplay.Settings(**{**FAST.__dict__, "nodes": 301}))
    doubled = tmp_path / "doubled.pdn"
    doubled.write_text(mine.read_text() * 2)
    with pytest.raises(selfplay.SelfPlayError, match="game number 1 again"):
        selfplay.read_existing(doubled)
    with pytest.raises(selfplay.SelfPlayError, match="not a file"):
        selfplay.read_existing(tmp_path)
    with pytest.raises(ValueError, match="exactly one"):
        selfplay.Settings(nodes=100, depth=3)


def test_selfplay_and_tune_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    games = tmp_path / "sp.pdn"
    assert samuel_main(["learn", "selfplay", "--games", "12", "--out", str(games), "--nodes", "200",
                        "--seed", "2"]) == 0
    assert "12 games (kept 0, played 12" in capsys.readouterr().out
    out = tmp_path / "tuned.json"
    assert samuel_main(["learn", "tune", "--pdn", str(OCA), "--selfplay", str(games), "--out", str(out),
                        "--iterations", "10"]) == 0
    text = capsys.readouterr().out
    assert "sp.pdn: K" in text and "oca_first60.pdn: K" in text
    meta = json.loads(out.read_text())["meta"]
    assert set(meta["scales"]) == {"oca_first60.pdn", "sp.pdn"}
    assert set(meta["held_out_loss_by_source"]) == {"oca_first60.pdn", "sp.pdn"}
    assert out.with_suffix(".png").is_file()
    # self-play alone is enough
    alone = ["learn", "tune", "--selfplay", str(games), "--out", str(out), "--iterations", "5"]
    assert samuel_main(alone) == 0
    capsys.readouterr()
    assert samuel_main(["learn", "tune", "--selfplay", str(tmp_path / "none.pdn"), "--out", str(out)]) == 2
    assert "no such self-play file" in capsys.readouterr().err
    assert samuel_main(["learn", "tune", "--selfplay", str(OCA), "--out", str(out)]) == 2
    assert "not a samuel self-play game" in capsys.readouterr().err
    assert samuel_main(["learn", "tune", "--out", str(out)]) == 2
    assert "--selfplay" in capsys.readouterr().err
    assert samuel_main(["learn", "selfplay", "--games", "2", "--out", str(OCA.parent / "oca_first60.pdn"),
                        "--nodes", "200"]) == 2
    assert "not a samuel self-play game" in capsys.readouterr().err
