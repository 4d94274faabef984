"""The endgame database built on several threads (csrc/egdb.c, ``samuel egdb build --threads``),
and six-piece tables downstream (loading, surveys, the search, the CLI, CheckerBoard).

Values and distances are unique (a fixpoint, and layers), so the files must be
the same bytes for any number of threads.  The digests pinned here are those of
the files the single-threaded builder wrote before threads came in (commit
b7715e9), so both "1 thread is unchanged" and "N threads = 1 thread" are checked.
"""

from __future__ import annotations

import asyncio
import hashlib
from pathlib import Path

import pytest
from serving import CaptureWriter

from engine import Board, egdb
from engine.limits import Limit
from engine.options import OptionValues
from engine.search import Searcher
from protocol.cb_session import run_cb
from protocol.context import ServerSettings
from protocol.framing import stream_limit
from protocol.session_engine import SessionDefaults
from samuel.cli import main

Sig = egdb.Signature

# sha256 over (file name, file bytes) of every file, in name order, as the unchanged builder wrote them.
VALUES_2_3 = "d884bcee19b7ff5606d1162a7b4bfc742339ed5cb1be01dbdcc5c095b8f4e753"
DISTANCES_2_3 = "e16108ef308af30fda467eeab3d478ed286ab74658c978728aea22899a208ad5"
VALUES_2_4 = "ec49806fae61eb63ee58b1e3c36704941333fc55c7c27211e12428f783d98c21"
# sha256 of the values and distances (side 0, then 1, each signature in turn) of 0104, 1004, 0203,
# solved over the 2..4-piece values.
FIVE_SUBSET = "f2882054faa0ee372b6ffd08703a91552f51e555ef9101765bb5ac2a1ae2c9a1"


def digest(directory: Path, pattern: str) -> str:
    h = hashlib.sha256()
    for path in sorted(directory.glob(pattern)):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_three_pieces_same_files_on_any_threads(tmp_path: Path, threads: int) -> None:
    egdb.build(3, tmp_path, distance=True, threads=threads)
    assert digest(tmp_path, "egdb-*.bin") == VALUES_2_3
    assert digest(tmp_path, "egdb-*.dtc") == DISTANCES_2_3


@pytest.mark.parametrize("threads", [pytest.param(1, marks=pytest.mark.slow), 2,
                                     pytest.param(3, marks=pytest.mark.slow)])
def test_four_pieces_same_files_on_any_threads(tmp_path: Path, threads: int) -> None:
    egdb.build(4, tmp_path, threads=threads)
    assert digest(tmp_path, "egdb-*.bin") == VALUES_2_4


@pytest.fixture(scope="module")
def four(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("egdb4")
    egdb.build(4, out, threads=2)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("threads", [1, 2, 3])
def test_five_piece_signatures_same_on_any_threads(four: Path, threads: int) -> None:
    db = egdb.Database.open(four)
    h = hashlib.sha256()
    for sig in (Sig(0, 1, 0, 4), Sig(1, 0, 0, 4), Sig(0, 2, 0, 3)):
        db.tables.build(sig.bm, sig.bk, sig.wm, sig.wk, threads)
        db.tables.build_distance(sig.bm, sig.bk, sig.wm, sig.wk, threads)
        for side in (0, 1):
            h.update(db.tables.get_data(sig.bm, sig.bk, sig.wm, sig.wk, side))
            h.update(db.tables.get_distance(sig.bm, sig.bk, sig.wm, sig.wk, side))
    assert h.hexdigest() == FIVE_SUBSET


@pytest.mark.parametrize("bad", ["0", "-1", "two", "1.5", ""])
def test_bad_threads_are_named_usage_errors(tmp_path: Path, bad: str,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["egdb", "build", "--pieces", "2", "--threads", bad, "--out", str(tmp_path), "--quiet"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "argument --threads" in err
    assert "out of range (1 or more)" in err or "expected a whole number" in err
    assert not any(tmp_path.iterdir())


def test_library_refuses_bad_threads(tmp_path: Path) -> None:
    for bad in (0, -2, True, 1.0):
        with pytest.raises(ValueError, match="threads must be a whole number"):
            egdb.build(2, tmp_path, threads=bad)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="threads must be a whole number"):
            egdb.Database().tables.build(0, 1, 0, 1, bad)  # type: ignore[arg-type]


def test_cli_threads_and_default(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build = ["egdb", "build", "--pieces", "3", "--quiet", "--out"]
    assert main([*build, str(tmp_path / "a"), "--threads", "2"]) == 0
    assert main([*build, str(tmp_path / "b")]) == 0  # the machine's cores
    assert "16 signatures" in capsys.readouterr().out
    assert digest(tmp_path / "a", "egdb-*.bin") == digest(tmp_path / "b", "egdb-*.bin") == VALUES_2_3


def test_check_counts_the_same_on_any_threads(tmp_path: Path) -> None:
    db = egdb.build(3, tmp_path, distance=True)
    sig = Sig(0, 2, 0, 1)
    for side in (0, 1):
        one = db.check(sig, side, 1)
        assert one[0] == 0 and db.check(sig, side, 3) == one
        assert db.check_distance(sig, side, 1) == db.check_distance(sig, side, 3) == 0
    # a wrong value and a wrong distance are found on every number of threads
    data = bytearray(db.tables.get_data(sig.bm, sig.bk, sig.wm, sig.wk, 0))
    data[100] ^= 0x03  # a win becomes a draw, or a loss a none, ...
    db.tables.put_data(sig.bm, sig.bk, sig.wm, sig.wk, 0, bytes(data))
    dist = bytearray(db.tables.get_distance(sig.bm, sig.bk, sig.wm, sig.wk, 1))
    dist[5000] ^= 0x40
    db.tables.put_distance(sig.bm, sig.bk, sig.wm, sig.wk, 1, bytes(dist))
    for threads in (1, 2, 3):
        assert db.check(sig, 0, threads)[0] >= 1
        assert db.check_distance(sig, 1, threads) >= 1
    assert db.check(sig, 0, 1) == db.check(sig, 0, 3)


def test_cli_check_threads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    egdb.build(2, tmp_path)
    assert main(["egdb", "check", str(tmp_path), "--threads", "2"]) == 0
    assert capsys.readouterr().out.rstrip().endswith("consistent")
    with pytest.raises(SystemExit) as exc:
        main(["egdb", "check", str(tmp_path), "--threads", "0"])
    assert exc.value.code == 2 and "argument --threads: 0 is out of range" in capsys.readouterr().err


# ---- loading by mapping the files (shared by every process, not copied)

def test_loaded_tables_are_mappings_that_outlive_a_rebuild(tmp_path: Path) -> None:
    built = egdb.build(3, tmp_path, distance=True)
    assert len(built.tables._views) == 2 * len(built.loaded) == 64  # each file mapped once written
    db = egdb.Database.open(tmp_path)
    assert len(db.tables._views) == 2 * len(db.loaded)  # values and distances: no copies
    probes = ["B:WK10:BK1,K2", "B:WK32:BK1", "W:WK18:B14", "B:W27:BK32"]
    before = [(db.probe(Board(f).raw), db.distance(Board(f).raw)) for f in probes]
    assert before == [(built.probe(Board(f).raw), built.distance(Board(f).raw)) for f in probes]
    # a build replaces files by renaming new ones over them: the mapped old ones stay whole
    for path in tmp_path.glob("egdb-*"):
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_bytes(b"\0" * path.stat().st_size)
        tmp.replace(path)
    assert [(db.probe(Board(f).raw), db.distance(Board(f).raw)) for f in probes] == before
    sig = Sig(0, 2, 0, 1)
    assert db.check(sig, 0)[0] == 0 and db.check_distance(sig, 1) == 0
    with pytest.raises(egdb.EgdbError, match="bad magic"):
        egdb.Database.open(tmp_path)


def test_a_view_must_fit_its_signature() -> None:
    tables = egdb.Database().tables
    with pytest.raises(ValueError, match="do not fit the signature"):
        tables.put_view(0, 1, 0, 1, 0, bytes(247))
    with pytest.raises(ValueError, match="distance table 0101: 991 bytes do not fit"):
        tables.put_view(0, 1, 0, 1, 0, bytes(991), distance=True)
    tables.put_view(0, 1, 0, 1, 0, bytes(248))
    tables.put_data(0, 1, 0, 1, 0, bytes([0x55]) * 248)  # a copy replaces the view (not freed by C)
    assert tables.value_at(0, 1, 0, 1, 0, 7) == egdb.WIN


# ---- six pieces downstream

def fake_six(directory: Path) -> None:
    """A 6-piece table pair with made-up values (one black king against five white kings: lost for
    Black to move, won for White), enough for everything that only loads, surveys or probes."""
    sig = Sig(0, 1, 0, 5)
    n = (sig.size + 3) // 4
    egdb.write_table(egdb.table_path(directory, sig, 0), sig, 0, bytes([0xAA]) * n)  # loss: 2 in every slot
    egdb.write_table(egdb.table_path(directory, sig, 1), sig, 1, bytes([0x55]) * n)  # win: 1


SIX_WHITE_TO_MOVE = "W:WK1,K2,K3,K4,K5:BK32"


def test_six_piece_tables_load_survey_and_probe(tmp_path: Path) -> None:
    egdb.build(2, tmp_path)
    fake_six(tmp_path)
    db = egdb.Database.open(tmp_path)
    assert db.max_pieces == 6
    assert Sig(0, 1, 0, 5) in db.signatures()
    assert egdb.describe(db).startswith("endgame database: 10 tables, 2-6 pieces")
    found = egdb.survey(str(tmp_path))
    assert found is not None and found.max_pieces == 6 and found.tables == 10
    assert db.probe(Board(SIX_WHITE_TO_MOVE).raw) == egdb.WIN
    assert db.probe(Board("B:WK1,K2,K3,K4,K5:BK32").raw) == egdb.LOSS
    # the search holds a 6-piece root (ckr_engine_set_egdb with 6 pieces)
    s = Searcher(hash_mb=1, egdb=db)
    r = s.search(Board(SIX_WHITE_TO_MOVE), Limit(depth=2))
    assert r.info.egdb_root == "win"
    s.set_egdb(db, max_pieces=5)  # capped below: the root is not probed
    assert s.search(Board(SIX_WHITE_TO_MOVE), Limit(depth=2)).info.egdb_root is None


def test_checkerboard_reports_six_pieces(tmp_path: Path) -> None:
    egdb.build(2, tmp_path)
    fake_six(tmp_path)

    async def talk() -> list[str]:
        settings = ServerSettings(max_line=4096, idle_timeout=None,
                                  defaults=SessionDefaults(options=OptionValues(hash=1)))
        reader = asyncio.StreamReader(limit=stream_limit(4096))
        out = CaptureWriter()
        task = asyncio.create_task(run_cb(reader, out, settings))
        replies = []
        for command in (f"set dbpath {tmp_path}", "get max_dbpieces", "get enable_wld",
                        f"set check_wld_dir {tmp_path}"):
            reader.feed_data(command.encode() + b"\n")
            replies.append(await asyncio.wait_for(out.lines.get(), 60))
        reader.feed_eof()
        await asyncio.wait_for(task, 60)
        return replies

    replies = asyncio.run(talk())
    assert replies[1] == "reply 1 6" and replies[2] == "reply 1 1"
    assert "2-6 pieces" in replies[3]


@pytest.mark.slow
def test_a_real_six_piece_signature_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # One king against five kings: the only 6-piece signature with no crowning chain of 6-piece
    # ones behind it that is this small (5.4 M slots a side, about 25 s of CPU).
    db = egdb.Database()
    for k in range(1, 6):
        sig = Sig(0, 1, 0, k)
        db.tables.build(0, 1, 0, k, 2)
        for side in (0, 1):
            egdb.write_table(egdb.table_path(tmp_path, sig, side), sig, side,
                             db.tables.get_data(0, 1, 0, k, side))
    assert main(["egdb", "check", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "0105" in out and out.rstrip().endswith("consistent")
    assert main(["egdb", "probe", str(tmp_path), SIX_WHITE_TO_MOVE]) == 0
    assert capsys.readouterr().out.startswith("win for the side to move")
    loaded = egdb.Database.open(tmp_path)
    assert loaded.max_pieces == 6
    r = Searcher(hash_mb=1, egdb=loaded).search(Board(SIX_WHITE_TO_MOVE), Limit(depth=4))
    assert r.info.egdb_root == "win" and str(r.info.score) == "database win"
