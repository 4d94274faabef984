"""The endgame database in play: distances to conversion, probing in the search, the root.

A 3-piece database with distances is built once (a few seconds).  Distances are
checked against an independent computation from the values of the successors;
the search must keep a won or drawn root's value at any depth, report the
database's verdict, and play won endings out before the 40-move rule.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from engine import Board, core, egdb
from engine.evaluators import Evaluator, by_name
from engine.fen import FenPosition, format_fen
from engine.limits import Limit
from engine.search import Mode, Searcher
from matches.engines import parse_engine
from samuel.cli import main

Sig = egdb.Signature


@pytest.fixture(scope="module")
def db3(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, egdb.Database]:
    out = tmp_path_factory.mktemp("egdb3d")
    return out, egdb.build(3, out, distance=True)


def values_only(directory: Path) -> egdb.Database:
    """The same tables without their distances (win/loss/draw alone)."""
    db = egdb.Database()
    for path in sorted(directory.glob("egdb-*.bin")):
        db.load_file(path)
    return db


def won_positions(db: egdb.Database, n: int, seed: int, *, quiet_only: bool = True,
                  tricky: bool = False) -> list[Board]:
    """``n`` random positions won for the side to move (3 pieces, no capture at the root);
    ``tricky``: only those where some move gives the win away."""
    rng = random.Random(seed)
    sigs = [s for s in db.signatures() if s.pieces == 3]
    out: list[Board] = []
    while len(out) < n:
        sig, side = rng.choice(sigs), rng.randint(0, 1)
        raw = core.egdb_position(sig.bm, sig.bk, sig.wm, sig.wk, side, rng.randrange(sig.size))
        if raw is None or db.probe(raw) != egdb.WIN:
            continue
        board = Board(format_fen(FenPosition(raw.turn, raw.black_men, raw.black_kings, raw.white_men,
                                             raw.white_kings)))
        if quiet_only and any(m.captures for m in board.legal_moves):
            continue
        if tricky and all(db.probe(_after(board, m).raw) in (egdb.LOSS, None) for m in board.legal_moves):
            continue
        out.append(board)
    return out


def reference_distance(db: egdb.Database, raw: core.RawPosition) -> int:
    """The distance rule computed from the successors: 1 + least losing (win) / greatest (loss)."""
    value, sig = db.probe(raw), Sig.of(raw)
    found: list[tuple[int | None, int]] = []
    for k, move in enumerate(core.legal_moves(raw)):
        child = core.apply_move(raw, k)[0]
        converts = bool(move.captures) or Sig.of(child) != sig
        d = 0 if converts else db.distance(child)
        assert d is not None
        found.append((db.probe(child) if child.black_men | child.black_kings and
                      child.white_men | child.white_kings else egdb.LOSS, d))
    if not found:
        return 0
    if value == egdb.WIN:
        return 1 + min(d for v, d in found if v == egdb.LOSS)
    return 1 + max(d for _, d in found)


def test_distances_follow_their_rule(db3: tuple[Path, egdb.Database]) -> None:
    path, db = db3
    assert len(db.distances) == 2 * len(db.signatures())
    rng = random.Random(3)
    seen = 0
    for sig in db.signatures():
        for side in (0, 1):
            assert db.check_distance(sig, side) == 0
            for i in rng.sample(range(sig.size), min(sig.size, 400)):
                raw = core.egdb_position(sig.bm, sig.bk, sig.wm, sig.wk, side, i)
                if raw is None:
                    continue
                v, d = db.probe(raw), db.distance(raw)
                if v == egdb.DRAW:
                    assert d == 0
                    continue
                assert d == reference_distance(db, raw), (sig.name, side, i)
                seen += 1
    assert seen > 2000
    # two kings against one: a known long one (the lone king in the double corner)
    assert db.distance(Board("B:WK1:BK10,K19").raw) is not None
    # files round-trip: a reopened directory holds the same distances
    again = egdb.Database.open(path)
    assert again.distances == db.distances
    raw = Board("B:WK10:BK1,K2").raw
    assert again.distance(raw) == db.distance(raw) > 0


def test_distance_files_are_checked_and_rebuilt(tmp_path: Path) -> None:
    egdb.build(2, tmp_path, distance=True)
    victim = egdb.distance_path(tmp_path, Sig(0, 1, 0, 1), 0)
    victim.write_bytes(victim.read_bytes()[:-3])
    with pytest.raises(egdb.EgdbError, match="torn"):
        egdb.Database.open(tmp_path)
    steps: list[egdb.BuildStep] = []
    egdb.build(2, tmp_path, lambda s, _d, _t: steps.append(s), distance=True)
    assert any(s.passes > 0 for s in steps if s.signature == Sig(0, 1, 0, 1))
    assert egdb.Database.open(tmp_path).check_distance(Sig(0, 1, 0, 1), 0) == 0


def test_search_keeps_a_won_root_won_at_any_depth(db3: tuple[Path, egdb.Database]) -> None:
    path, db = db3
    wld = values_only(path)
    with_db = Searcher(evaluator_by("material"), hash_mb=1, egdb=wld)
    without = Searcher(evaluator_by("material"), mode=Mode.SHANNON_A, hash_mb=1)  # no quiescence
    blunders_without = 0
    for board in won_positions(db, 60, seed=5, tricky=True):
        r = with_db.search(board, Limit(depth=1))
        child = board.copy()
        assert r.best is not None
        child.push(r.best)
        assert db.probe(child.raw) in (egdb.LOSS, None) or child.is_game_over()
        assert r.info.egdb_root == "win"
        assert r.info.score.is_db_win or r.info.score.is_win
        plain = without.search(board, Limit(depth=1))
        assert plain.best is not None
        after = board.copy()
        after.push(plain.best)
        blunders_without += db.probe(after.raw) not in (egdb.LOSS, None)
    assert blunders_without > 0  # the filter is what keeps them: a plain 1-ply search does not


def test_drawn_and_uncovered_roots(db3: tuple[Path, egdb.Database]) -> None:
    _, db = db3
    s = Searcher(hash_mb=1, egdb=db)
    r = s.search(Board("B:WK32:BK1"), Limit(depth=6))
    assert r.info.egdb_root == "draw" and r.info.score.value == 0
    # four pieces: not held at the root, but captures lead into the database
    r = s.search(Board("B:WK14,K23:BK1,K2"), Limit(depth=8))
    assert r.info.egdb_root is None
    assert r.info.egdb_hits > 0
    assert str(r.info.score) != "database win"


def test_no_database_means_no_probes(db3: tuple[Path, egdb.Database]) -> None:
    _, db = db3
    s = Searcher(hash_mb=1, egdb=db)
    s.set_egdb(None)
    assert s.egdb is None
    r = s.search(Board("B:WK10:BK1,K2"), Limit(depth=6))
    assert r.info.egdb_root is None and r.info.egdb_hits == 0


@pytest.mark.parametrize("seed", [11, 12])
def test_won_endings_are_played_out(db3: tuple[Path, egdb.Database], seed: int) -> None:
    _, db = db3
    for board in won_positions(db, 8, seed=seed):
        winner = board.turn
        players = {c: Searcher(hash_mb=1, egdb=db) for c in (board.turn, 1 - board.turn)}
        while not board.is_game_over():
            r = players[board.turn].search(board, Limit(nodes=3000))
            assert r.best is not None
            board.push(r.best)
        outcome = board.outcome()
        assert outcome is not None and outcome.winner == winner, (board.fen(), outcome)


def test_distances_bring_the_conversion_before_the_forty_move_rule(db3: tuple[Path, egdb.Database]) -> None:
    _, db = db3
    # After 70 reversible plies, only moves whose conversion can come within the
    # rule are kept; when none can, the quickest one is played.
    engine = core.CoreEngine(1)
    engine.set_egdb(db.tables, 3)
    history = [random.Random(7).getrandbits(63) for _ in range(70)]
    checked = 0
    for board in won_positions(db, 40, seed=9):
        dist = db.distance(board.raw)
        assert dist is not None
        if dist < 3:
            continue
        n, info = engine.search(board.raw, history, core.CoreLimits(depth=4), None)
        assert n > 0
        best = info.pv[0]
        child = board.copy()
        child.push(next(m for m in board.legal_moves if m.path == best.path))
        converts = bool(best.captures) or best.crowns
        near = [0 if (m.captures or _crowns(board, m)) else db.distance(_after(board, m).raw)
                for m in board.legal_moves if db.probe(_after(board, m).raw) == egdb.LOSS]
        got = 0 if converts else db.distance(child.raw)
        assert got is not None
        assert got + (0 if converts else 71) <= 76 or got == min(d for d in near if d is not None)
        checked += 1
    assert checked > 10


def test_engine_options_name_a_bad_database(tmp_path: Path, db3: tuple[Path, egdb.Database]) -> None:
    path, _ = db3
    with pytest.raises(egdb.EgdbError, match="no such endgame database directory"):
        egdb.check_setting(str(tmp_path / "missing"))
    with pytest.raises(egdb.EgdbError, match="no endgame tables"):
        egdb.check_setting(str(tmp_path))
    assert egdb.resolve("none") is None and egdb.survey("none") is None
    found = egdb.survey(str(path))  # what the file names say, without loading (the cb session's gets)
    assert found is not None and (found.tables, found.max_pieces) == (2 * len(egdb.signatures(3)), 3)
    assert found.nbytes == sum(f.stat().st_size for f in path.iterdir())
    with pytest.raises(egdb.EgdbError, match="no such endgame database directory"):
        egdb.survey(str(tmp_path / "missing"))
    assert egdb.resolve("auto") is None  # the tests' default directory never exists
    assert egdb.resolve(str(path)) is egdb.resolve(str(path))  # loaded once, shared
    with pytest.raises(ValueError, match="no such endgame database directory"):
        parse_engine([f"egdb={tmp_path / 'missing'}"])
    spec = parse_engine([f"egdb={path}", "name=x"])
    assert dict(spec.options)["egdb"] == str(path)


def test_auto_finds_a_database_that_appears_within_its_recheck_time(
        tmp_path: Path, db3: tuple[Path, egdb.Database], monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    path, _ = db3
    target = tmp_path / "egdb"
    target.mkdir()
    monkeypatch.setenv(egdb.ENV_DIRECTORY, str(target))
    monkeypatch.setattr(egdb, "AUTO_RECHECK_S", 60.0)  # however slow the machine
    assert egdb.resolve("auto") is None  # another setting of the variable: looked at at once
    for f in path.glob("egdb-*.bin"):
        shutil.copy(f, target / f.name)
    assert egdb.resolve("auto") is None  # the last look is trusted for AUTO_RECHECK_S
    monkeypatch.setattr(egdb, "AUTO_RECHECK_S", 0.0)
    found = egdb.resolve("auto")
    assert found is not None and found is egdb.resolve(str(target))
    monkeypatch.setenv(egdb.ENV_DIRECTORY, str(tmp_path / "absent"))
    monkeypatch.setattr(egdb, "AUTO_RECHECK_S", 60.0)
    assert egdb.resolve("auto") is None  # the variable changed: a new look, whatever the time


def test_cli_probe_shows_distances(db3: tuple[Path, egdb.Database],
                                   capsys: pytest.CaptureFixture[str]) -> None:
    path, _ = db3
    assert main(["egdb", "probe", str(path), "B:WK10:BK1,K2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("win for the side to move, ") and "plies to the next capture or crowning" in out
    assert main(["egdb", "check", str(path)]) == 0
    assert "dist-bad" in capsys.readouterr().out
    assert main(["analyse", "--fen", "B:WK10:BK1,K2", "--depth", "4", "--egdb", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("endgame database: ") and "database win" in out


# ---- helpers

def evaluator_by(name: str) -> Evaluator:
    return by_name(name)


def _after(board: Board, move: object) -> Board:
    b = board.copy()
    b.push(move)  # type: ignore[arg-type]
    return b


def _crowns(board: Board, move: object) -> bool:
    after = _after(board, move)
    m = move  # type: ignore[assignment]
    return board.piece_at(m.path[0]) != after.piece_at(m.path[-1])  # type: ignore[attr-defined]
