"""The rote memory's store: standardized positions in SQLite (WAL), one transaction per merge.

Samuel kept his memory on tape and rewrote the tape at each merge; here the
"tape" is an SQLite file.  A merge (new positions, refreshed ones, ageing,
forgetting, culling) is one ``BEGIN IMMEDIATE`` transaction, so a process
killed in the middle of a merge loses only that merge, never anything already
committed, and several processes can share one file (the write lock is
SQLite's).

Ages.  Samuel adds 1 to every age at each merge.  Rewriting every row at every
merge would make a merge cost as much as the whole store, so the age is kept
as ``age0`` at merge number ``stamp`` and read as ``age0 + merges - stamp``
(``merges`` is in the ``meta`` table): bumping ``merges`` ages every position
at once.  Refreshing sets ``age0`` to half the current age and ``stamp`` to
the current merge.

Schema (version 1, also in ``PRAGMA user_version``)::

    meta(key TEXT PRIMARY KEY, value)          schema, merges, created
    positions(black, white, kings,             the standardized position (square
                                                sets, bit s-1 = square s, Black to move)
              score, ply,                      backed-up score for the side to move,
                                                the ply it was backed up over
              age0, stamp,                     age = age0 + merges - stamp
              pieces, uses)                    piece count (Samuel's records), references
        PRIMARY KEY (black, white, kings) WITHOUT ROWID
    index positions_age  (age0 - stamp)         forgetting
    index positions_cull (ply, age0 - stamp DESC) culling: lowest ply, oldest first
    book_games(source, game)                   the book games followed into the memory
        PRIMARY KEY (source, game) WITHOUT ROWID  (``samuel learn rote book`` resumes past them)

``book_games`` came after the first stores were written: it is created (empty) when a store
without it is opened, so the schema version stays 1.
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from engine.core import RoteKey
from engine.errors import SamuelError

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value);
CREATE TABLE IF NOT EXISTS positions (
    black INTEGER NOT NULL,
    white INTEGER NOT NULL,
    kings INTEGER NOT NULL,
    score INTEGER NOT NULL,
    ply INTEGER NOT NULL,
    age0 INTEGER NOT NULL,
    stamp INTEGER NOT NULL,
    pieces INTEGER NOT NULL,
    uses INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (black, white, kings)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS positions_age ON positions (age0 - stamp);
CREATE INDEX IF NOT EXISTS positions_cull ON positions (ply, age0 - stamp DESC);
"""

_BOOK_GAMES = """
CREATE TABLE IF NOT EXISTS book_games (
    source TEXT NOT NULL,
    game INTEGER NOT NULL,
    PRIMARY KEY (source, game)
) WITHOUT ROWID
"""

_UPSERT = """
INSERT INTO positions (black, white, kings, score, ply, age0, stamp, pieces, uses)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0)
ON CONFLICT (black, white, kings) DO UPDATE SET
    score = CASE WHEN excluded.ply >= positions.ply THEN excluded.score ELSE positions.score END,
    ply = MAX(positions.ply, excluded.ply),
    age0 = (positions.age0 + excluded.stamp - positions.stamp) / 2,
    stamp = excluded.stamp,
    uses = positions.uses + 1
"""

_REFRESH = """
UPDATE positions SET age0 = (age0 + ?1 - stamp) / 2, stamp = ?1, uses = uses + 1
WHERE black = ?2 AND white = ?3 AND kings = ?4
"""

_DELETE = "DELETE FROM positions WHERE black = ? AND white = ? AND kings = ?"

BATCH = 20_000
"""Rows per executemany call inside a merge (progress is reported between batches)."""


class RoteStoreError(SamuelError):
    """The file is not a rote store of a version this code reads."""


@dataclass(frozen=True)
class AgePolicy:
    """Samuel's bookkeeping constants ("arbitrary" in the paper)."""

    initial_age: int = 8
    """Age given to a newly saved position."""
    max_age: int = 24
    """A position older than this is forgotten at the next merge."""
    max_positions: int = 1_000_000
    """When a merge leaves more positions than this, the lowest-ply ones are culled ..."""
    cull_to: float = 0.9
    """... down to this fraction of ``max_positions``."""


@dataclass(frozen=True)
class Observation:
    """A position met at the root of a search, with its backed-up score and ply."""

    key: RoteKey
    score: int
    ply: int


@dataclass(frozen=True)
class MergeResult:
    merge: int
    """The merge's number (the store's merge count after it)."""
    added: int
    updated: int
    refreshed: int
    forgotten: int
    culled: int
    total: int
    seconds: float
    removed: tuple[RoteKey, ...] = ()
    """Keys deleted by forgetting and culling (for keeping a C table in step)."""
    continuous: bool = True
    """False when another writer merged since this store last did: reload the table."""


@dataclass(frozen=True)
class StoreStats:
    positions: int
    merges: int
    file_bytes: int
    by_pieces: dict[int, int] = field(default_factory=dict)
    by_ply: dict[int, int] = field(default_factory=dict)
    by_age: dict[int, int] = field(default_factory=dict)
    uses: int = 0
    max_ply: int = 0


def _pieces(key: RoteKey) -> int:
    return (key[0] | key[1]).bit_count()


SQLITE_MAGIC = b"SQLite format 3\0"


def _refuse_other_files(path: Path) -> None:
    """A file that is there and not empty must be an SQLite file: SQLite itself takes one shorter
    than its header for a new database and would write a store over it."""
    try:
        with path.open("rb") as f:
            head = f.read(len(SQLITE_MAGIC))
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError):
        return  # no file yet (a new store), or SQLite names the problem below
    except OSError:
        return
    if head and head != SQLITE_MAGIC:
        raise RoteStoreError(f"{path}: cannot open as a rote store (not an SQLite file; it is left as it is)")


class RoteStore:
    """One SQLite rote store.  Thread-safe: one connection, used under a lock."""

    def __init__(self, path: str | Path, *, timeout: float = 60.0) -> None:
        import threading

        self.path = Path(path)
        self._lock = threading.RLock()
        _refuse_other_files(self.path)
        try:
            self._db = sqlite3.connect(str(self.path), timeout=timeout, isolation_level=None,
                                       check_same_thread=False)
            self._wal(timeout)
        except sqlite3.Error as exc:  # a missing folder, no permission, a file that is not SQLite
            raise RoteStoreError(f"{self.path}: cannot open as a rote store ({exc})") from None
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA cache_size=-65536")  # 64 MB: a million-row merge stays in memory
        with self._transaction():
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            tables = {r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if version == 0 and not tables:
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        self._db.execute(statement)
                self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                self._db.executemany("INSERT INTO meta VALUES (?, ?)", [
                    ("schema", SCHEMA_VERSION), ("merges", 0), ("created", time.time())])
            elif version != SCHEMA_VERSION or "positions" not in tables:
                raise RoteStoreError(f"{self.path}: not a rote store of schema {SCHEMA_VERSION} "
                                     f"(user_version {version})")
            if "book_games" not in tables:
                self._db.execute(_BOOK_GAMES)
        self._seen_merges = self.merges

    # ---- plumbing ----

    def _wal(self, timeout: float) -> None:
        """Switch to WAL.  Two processes opening a new store at once (a server's search processes
        starting together) can find the switch locked without SQLite waiting on its busy timeout:
        try again until the timeout."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                self._db.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() >= deadline:
                    raise
                time.sleep(0.01)

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> RoteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- reading ----

    @property
    def merges(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT value FROM meta WHERE key = 'merges'").fetchone()[0])

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT count(*) FROM positions").fetchone()[0])

    def get(self, key: RoteKey) -> tuple[int, int, int] | None:
        """(score, ply, current age) of a stored position, or None."""
        with self._lock:
            row = self._db.execute(
                "SELECT score, ply, age0 + (SELECT value FROM meta WHERE key = 'merges') - stamp "
                "FROM positions WHERE black = ? AND white = ? AND kings = ?", key).fetchone()
        return (int(row[0]), int(row[1]), int(row[2])) if row else None

    def rows(self, chunk: int = 100_000) -> Iterator[list[tuple[int, int, int, int, int]]]:
        """Every position as (black, white, kings, score, ply), in chunks, from one snapshot."""
        with self._lock:
            self._db.execute("BEGIN")
            try:
                cur = self._db.execute("SELECT black, white, kings, score, ply FROM positions")
                self._seen_merges = int(
                    self._db.execute("SELECT value FROM meta WHERE key = 'merges'").fetchone()[0])
                while True:
                    batch = cur.fetchmany(chunk)
                    if not batch:
                        break
                    yield batch
            finally:
                self._db.execute("COMMIT")

    def book_games(self, source: str) -> set[int]:
        """The numbers of the games of ``source`` already followed into this store."""
        with self._lock:
            return {int(r[0]) for r in self._db.execute(
                "SELECT game FROM book_games WHERE source = ?", (source,))}

    def stats(self) -> StoreStats:
        with self._lock:
            db = self._db
            merges = self.merges
            n = len(self)
            by_pieces = dict(db.execute("SELECT pieces, count(*) FROM positions GROUP BY pieces"))
            by_ply = dict(db.execute("SELECT ply, count(*) FROM positions GROUP BY ply"))
            by_age = dict(db.execute(
                "SELECT age0 + ? - stamp AS a, count(*) FROM positions GROUP BY a", (merges,)))
            uses, max_ply = db.execute("SELECT coalesce(sum(uses), 0), coalesce(max(ply), 0) "
                                       "FROM positions").fetchone()
        size = sum(p.stat().st_size for p in (self.path, Path(f"{self.path}-wal")) if p.exists())
        return StoreStats(n, merges, size, by_pieces, by_ply, by_age, int(uses), int(max_ply))

    # ---- writing ----

    def merge(
        self,
        observations: Iterable[Observation] = (),
        refreshed: Iterable[RoteKey] = (),
        policy: AgePolicy | None = None,
        *,
        on_progress: Callable[[str, int], None] | None = None,
        book_games: Iterable[tuple[str, int]] = (),
    ) -> MergeResult:
        """One merge, one transaction: age everything by 1, save ``observations`` (a position
        seen again is refreshed and keeps the deeper of its two scores), refresh the positions
        the searches used (``refreshed``), forget the too old, cull the lowest plies, and
        note the ``book_games`` (source, game number) whose positions these are as followed.

        ``on_progress(phase, rows)`` is called inside the transaction between batches.
        """
        p = policy or AgePolicy()
        start = time.perf_counter()
        latest: dict[RoteKey, Observation] = {}
        for o in observations:
            old = latest.get(o.key)
            if old is None or o.ply >= old.ply:
                latest[o.key] = o
        seen = set(latest)
        refresh = [k for k in dict.fromkeys(refreshed) if k not in seen]
        with self._transaction() as db:
            merges = int(db.execute("SELECT value FROM meta WHERE key = 'merges'").fetchone()[0])
            continuous = merges == self._seen_merges
            m = merges + 1
            db.execute("UPDATE meta SET value = ? WHERE key = 'merges'", (m,))
            before = int(db.execute("SELECT count(*) FROM positions").fetchone()[0])
            # In key order, the B-tree fills page by page instead of at random.
            rows = [(*k, o.score, o.ply, p.initial_age, m, _pieces(k)) for k, o in sorted(latest.items())]
            for i in range(0, len(rows), BATCH):
                db.executemany(_UPSERT, rows[i:i + BATCH])
                if on_progress:
                    on_progress("save", min(i + BATCH, len(rows)))
            after_save = int(db.execute("SELECT count(*) FROM positions").fetchone()[0])
            added = after_save - before
            n_refreshed = 0
            for i in range(0, len(refresh), BATCH):
                cur = db.executemany(_REFRESH, [(m, *k) for k in refresh[i:i + BATCH]])
                n_refreshed += max(cur.rowcount, 0)
                if on_progress:
                    on_progress("refresh", min(i + BATCH, len(refresh)))
            doomed = [tuple(r) for r in db.execute(
                "SELECT black, white, kings FROM positions WHERE age0 - stamp > ?", (p.max_age - m,))]
            db.executemany(_DELETE, doomed)
            total = after_save - len(doomed)
            culled: list[tuple[int, ...]] = []
            if total > p.max_positions:
                excess = total - int(p.max_positions * p.cull_to)
                culled = [tuple(r) for r in db.execute(
                    "SELECT black, white, kings FROM positions "
                    "ORDER BY ply, age0 - stamp DESC, black, white, kings LIMIT ?",
                    (excess,))]
                db.executemany(_DELETE, culled)
                total -= len(culled)
            db.executemany("INSERT OR IGNORE INTO book_games VALUES (?, ?)",
                           [(str(src), int(g)) for src, g in book_games])
            if on_progress:
                on_progress("commit", total)
        self._seen_merges = m
        removed: Sequence[RoteKey] = [(int(a), int(b), int(c)) for a, b, c in doomed + culled]
        return MergeResult(
            merge=m, added=added, updated=len(rows) - added, refreshed=n_refreshed,
            forgotten=len(doomed), culled=len(culled), total=total,
            seconds=time.perf_counter() - start, removed=tuple(removed), continuous=continuous,
        )
