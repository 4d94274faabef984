"""The rote memory's bookkeeping (ages, refreshing, forgetting, culling), the SQLite store's
crash safety, and the learner: a memory filled by play makes later searches deeper."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from engine import Board, Limit, Mode, Searcher
from engine.core import rote_key
from engine.learners.rote import AgePolicy, RoteMemory, effective_ply, self_play
from engine.learners.rote_store import SCHEMA_VERSION, Observation, RoteStore, RoteStoreError

ROOT = Path(__file__).resolve().parents[1]


def key(i: int) -> tuple[int, int, int]:
    return (i, i << 16, 0)


def obs(i: int, score: int = 10, ply: int = 3) -> Observation:
    return Observation(key(i), score, ply)


# ---- ages ----


def test_new_positions_age_by_one_each_merge(tmp_path: Path) -> None:
    with RoteStore(tmp_path / "m.db") as s:
        r = s.merge([obs(1), obs(2)], policy=AgePolicy(initial_age=8))
        assert (r.merge, r.added, r.total) == (1, 2, 2)
        assert s.get(key(1)) == (10, 3, 8)
        for expected in (9, 10, 11):
            s.merge()
            assert s.get(key(1)) == (10, 3, expected)
        assert s.merges == 4


def test_a_reference_halves_the_age(tmp_path: Path) -> None:
    with RoteStore(tmp_path / "m.db") as s:
        s.merge([obs(1), obs(2)], policy=AgePolicy(initial_age=8))
        s.merge()
        s.merge()  # age 10
        r = s.merge(refreshed=[key(1)])  # aged to 11, then halved
        assert r.refreshed == 1
        assert s.get(key(1))[2] == 5 and s.get(key(2))[2] == 11
        r = s.merge([obs(2, score=50, ply=5)])  # seen again in play: refreshed and rescored
        assert (r.added, r.updated) == (0, 1)
        assert s.get(key(2)) == (50, 5, 6)
        assert s.get(key(1))[2] == 6


def test_the_deeper_score_wins(tmp_path: Path) -> None:
    with RoteStore(tmp_path / "m.db") as s:
        s.merge([obs(1, score=100, ply=9)])
        s.merge([obs(1, score=-5, ply=3)])
        assert s.get(key(1))[:2] == (100, 9)
        s.merge([obs(1, score=-7, ply=9), obs(1, score=-8, ply=4)])
        assert s.get(key(1))[:2] == (-7, 9)


def test_too_old_positions_are_forgotten(tmp_path: Path) -> None:
    p = AgePolicy(initial_age=2, max_age=4)
    with RoteStore(tmp_path / "m.db") as s:
        s.merge([obs(1), obs(2)], policy=p)  # age 2
        s.merge(policy=p)  # 3
        s.merge(refreshed=[key(1)], policy=p)  # key 1: 4 -> 2, key 2: 4
        r = s.merge(policy=p)  # key 2 reaches 5 > 4
        assert (r.forgotten, r.total) == (1, 1)
        assert r.removed == (key(2),)
        assert s.get(key(2)) is None and s.get(key(1))[2] == 3


def test_culling_drops_the_lowest_plies(tmp_path: Path) -> None:
    p = AgePolicy(max_positions=10, cull_to=0.5)
    with RoteStore(tmp_path / "m.db") as s:
        r = s.merge([obs(i, ply=i) for i in range(1, 13)], policy=p)
        assert (r.added, r.culled, r.total) == (12, 7, 5)
        assert sorted(s.get(key(i))[1] for i in range(8, 13)) == [8, 9, 10, 11, 12]
        assert all(s.get(key(i)) is None for i in range(1, 8))
        stats = s.stats()
        assert stats.positions == 5 and stats.by_ply == {8: 1, 9: 1, 10: 1, 11: 1, 12: 1}


def test_schema_version_is_checked(tmp_path: Path) -> None:
    with RoteStore(tmp_path / "m.db"):
        pass
    db = sqlite3.connect(tmp_path / "m.db")
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.execute("PRAGMA user_version = 99")
    db.close()
    with pytest.raises(RoteStoreError):
        RoteStore(tmp_path / "m.db")
    sqlite3.connect(tmp_path / "other.db").execute("CREATE TABLE t (x)")
    with pytest.raises(RoteStoreError):
        RoteStore(tmp_path / "other.db")


# ---- the memory: store and C table in step ----


def test_memory_table_follows_the_store(tmp_path: Path) -> None:
    p = AgePolicy(initial_age=2, max_age=3, max_positions=50, cull_to=0.8)
    boards = [Board()]
    b = Board()
    for _ in range(70):
        b.push(b.legal_moves[len(b.legal_moves) // 2])
        if b.is_game_over():
            break
        boards.append(b.copy())
    with RoteMemory(tmp_path / "m.db", p) as m:
        for i, board in enumerate(boards):
            m.record(board, i, i % 5)
            if i % 9 == 0:
                old = m.table()
                m.merge()
                assert m.table() is not old  # a fresh table each merge; the old one unchanged
                stored = {k: (s, d) for k, s, d, in ((r[:3], r[3], r[4]) for c in m.store.rows() for r in c)}
                assert {k: (s, d) for k, s, d in m.table().items()} == stored
        m.merge()
        assert len(m) == len(m.store) <= 50
    # Reopened: the table is loaded from the file.
    with RoteMemory(tmp_path / "m.db", p) as m2:
        assert len(m2) == len(m2.store)


def test_searches_refresh_what_they_use(tmp_path: Path) -> None:
    root = Board("B:W30,31:B1,4")
    leaf = root.copy()
    leaf.push(root.legal_moves[0])
    with RoteMemory(tmp_path / "m.db", AgePolicy(initial_age=8)) as m:
        m.record(leaf, -300, 6)
        m.merge()  # age 8
        m.merge()  # 9
        r = Searcher(mode=Mode.PVS, hash_mb=1, rote=m).search(root, Limit(depth=1))
        assert r.info.rote_hits >= 1 and r.info.rote_depth == 7 and r.info.score.value == 299
        assert effective_ply(r) == 7
        res = m.merge()  # 10, halved: 5
        assert res.refreshed == 1
        assert m.store.get(rote_key(leaf.raw)) == (-300, 6, 5)


def test_self_play_learns_and_goes_deeper(tmp_path: Path) -> None:
    """Figure 3: replaying games lets stored scores back up into deeper ones."""
    with RoteMemory(tmp_path / "m.db") as m:
        games = list(self_play(m, 3, depth=3, mode=Mode.PVS, opening_plies=0, max_plies=40, seed=1))
        assert len(m) > 0 and m.store.merges == 3
        assert games[0].rote_hits == 0
        assert games[1].rote_hits > 0
        assert max(g.deepest for g in games[1:]) > 3
        assert m.stats().max_ply > 3


# ---- crash safety ----

CRASHER = textwrap.dedent("""
    import sys, time
    from engine.learners.rote_store import Observation, RoteStore, AgePolicy
    path, first, second = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    store = RoteStore(path)
    store.merge([Observation((i, i << 16, 1), i % 300, 3) for i in range(1, first + 1)])
    print("committed", len(store), flush=True)

    def progress(phase, rows):
        # Inside the second merge's transaction, with rows written: wait here to be killed.
        print("inside", phase, rows, flush=True)
        time.sleep(600)

    big = [Observation((i, i << 16, 2), i % 300, 5) for i in range(1, second + 1)]
    store.merge(big, [(i, i << 16, 1) for i in range(1, first + 1)],
                AgePolicy(max_positions=10), on_progress=progress)
    print("not killed", flush=True)
""")


def test_kill_9_mid_merge_loses_nothing_committed(tmp_path: Path) -> None:
    db = tmp_path / "crash.db"
    first, second = 3000, 60_000
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", CRASHER, str(db), str(first), str(second)],
                            stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().split() == ["committed", str(first)]
        line = proc.stdout.readline()
        assert line.startswith("inside save"), line
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
    assert proc.returncode == -signal.SIGKILL
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    con.close()
    with RoteStore(db) as s:
        assert len(s) == first and s.merges == 1
        assert s.get((5, 5 << 16, 1)) == (5, 3, 8)
        assert s.get((5, 5 << 16, 2)) is None
        r = s.merge([Observation((1, 2, 0), 0, 1)])  # and it still takes merges
        assert (r.merge, r.total) == (2, first + 1)


def test_unopenable_files_are_named_errors(tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not an SQLite file at all" * 40)
    with pytest.raises(RoteStoreError, match=r"junk\.db: cannot open as a rote store"):
        RoteStore(junk)
    with pytest.raises(RoteStoreError, match="cannot open as a rote store"):
        RoteStore(tmp_path / "no" / "such" / "folder" / "r.db")
    assert junk.read_bytes().startswith(b"this is not")  # left as it was


def _open_at_once(path: str, barrier: Any, out: Any) -> None:
    barrier.wait()
    try:
        RoteStore(path)
        out.put("ok")
    except Exception as exc:  # sent back to the test, which names it
        out.put(f"{type(exc).__name__}: {exc}")


def test_processes_opening_a_new_store_at_once_all_open_it(tmp_path: Path) -> None:
    # A server's search processes start together and open the same rote store; switching a new
    # database to WAL could find it locked without SQLite waiting (4 of 120 opens failed before).
    import multiprocessing

    ctx = multiprocessing.get_context("spawn" if sys.platform == "win32" else "fork")
    for trial in range(10):
        path = str(tmp_path / f"store{trial}.sqlite")
        barrier, out = ctx.Barrier(4), ctx.Queue()
        procs = [ctx.Process(target=_open_at_once, args=(path, barrier, out)) for _ in range(4)]
        for p in procs:
            p.start()
        results = [out.get(timeout=60) for _ in procs]
        for p in procs:
            p.join(60)
        assert results == ["ok"] * 4, results


@pytest.mark.parametrize("content", [b"x", b"my notes\n", b"\0" * 50])
def test_a_short_file_that_is_no_store_is_refused_and_kept(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "notes.db"
    path.write_bytes(content)
    with pytest.raises(RoteStoreError, match=r"cannot open as a rote store \(not an SQLite file"):
        RoteStore(path)
    assert path.read_bytes() == content
