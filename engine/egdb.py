"""The endgame database: win, loss or draw for every position of a few pieces.

The tables are solved in C (``csrc/egdb.c``) and kept one file per material
signature and side to move.  A file is a 32-byte header followed by the packed
values, four 2-bit values a byte::

    magic "SMLEGDB\\0" | version u32 | bm bk wm wk side u8 | 3 pad | slots u64 | crc32 u32

``bm`` black men, ``bk`` black kings, ``wm`` white men, ``wk`` white kings;
``side`` 0 when Black is to move.  A file whose length, header or checksum
does not match is rejected with :class:`EgdbError` naming it, so a build that
was cut off is rebuilt rather than trusted.
"""

from __future__ import annotations

import mmap
import os
import struct
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from engine import core
from engine.errors import SamuelError

MAGIC = b"SMLEGDB\0"
DISTANCE_MAGIC = b"SMLEDTC\0"
"""Distance files (``egdb-NAME-b.dtc``): the same header, then a byte a slot."""
VERSION = 1
HEADER = struct.Struct("<8sI5B3xQI")
"""magic, version, bm, bk, wm, wk, side, slots, crc32 of the packed values (32 bytes)."""

DRAW: int = core.EGDB_DRAW
WIN: int = core.EGDB_WIN
LOSS: int = core.EGDB_LOSS
NONE: int = core.EGDB_NONE
VALUE_NAMES: dict[int, str] = {DRAW: "draw", WIN: "win", LOSS: "loss", NONE: "none"}
MAX_PIECES = 8


class EgdbError(SamuelError):
    """An endgame table file that is missing, torn, or not an endgame table."""


@dataclass(frozen=True)
class Signature:
    """Material: black men, black kings, white men, white kings (both sides to move share it)."""

    bm: int
    bk: int
    wm: int
    wk: int

    @property
    def pieces(self) -> int:
        return self.bm + self.bk + self.wm + self.wk

    @property
    def men(self) -> int:
        return self.bm + self.wm

    @property
    def size(self) -> int:
        """Index slots of one side to move's table."""
        return core.egdb_size(self.bm, self.bk, self.wm, self.wk)

    @property
    def name(self) -> str:
        return f"{self.bm}{self.bk}{self.wm}{self.wk}"

    def describe(self) -> str:
        def side(men: int, kings: int) -> str:
            parts = [f"{men}m"] if men else []
            return "".join(parts + ([f"{kings}k"] if kings else []))

        return f"B {side(self.bm, self.bk)} v W {side(self.wm, self.wk)}"

    @classmethod
    def of(cls, raw: core.RawPosition) -> Signature:
        return cls(raw.black_men.bit_count(), raw.black_kings.bit_count(),
                   raw.white_men.bit_count(), raw.white_kings.bit_count())


def signatures(max_pieces: int) -> list[Signature]:
    """Every signature of 2..max_pieces pieces with a piece on each side, in build order.

    Fewer pieces first (a capture removes one), then fewer men (a crowning turns a
    man into a king), so every signature a move leads out to comes earlier.
    """
    if not 2 <= max_pieces <= MAX_PIECES:
        raise ValueError(f"pieces must be 2..{MAX_PIECES}, got {max_pieces}")
    out: list[Signature] = []
    for total in range(2, max_pieces + 1):
        for men in range(total + 1):
            for bm in range(men + 1):
                wm = men - bm
                for bk in range(total - men + 1):
                    wk = total - men - bk
                    if bm + bk and wm + wk:
                        out.append(Signature(bm, bk, wm, wk))
    return out


def table_path(directory: Path, sig: Signature, side: int) -> Path:
    return directory / f"egdb-{sig.name}-{'bw'[side]}.bin"


def distance_path(directory: Path, sig: Signature, side: int) -> Path:
    return directory / f"egdb-{sig.name}-{'bw'[side]}.dtc"


def write_table(path: Path, sig: Signature, side: int, data: bytes, *, distance: bool = False) -> None:
    """Write a table file (values, or distances) atomically (a temporary file renamed into place)."""
    magic = DISTANCE_MAGIC if distance else MAGIC
    header = HEADER.pack(magic, VERSION, sig.bm, sig.bk, sig.wm, sig.wk, side, sig.size, zlib.crc32(data))
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "wb") as f:
        f.write(header)
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def read_table(path: Path, *, distance: bool = False) -> tuple[Signature, int, bytes]:
    """(signature, side, packed values or distances) of a table file; EgdbError when it is
    not a whole table of that kind."""
    blob = Path(path).read_bytes()
    sig, side = _validate(path, blob, distance)
    return sig, side, blob[HEADER.size:]


def map_table(path: Path, *, distance: bool = False) -> tuple[Signature, int, memoryview]:
    """As :func:`read_table`, but the data is a read-only mapping of the file, not a copy: every
    process that maps a table shares one copy in the page cache (a 6-piece database is 1.4 GB of
    values, 5.4 GB of distances).  Table files are only ever replaced (renamed over), never
    rewritten in place, so a mapping stays whole while a build writes new files."""
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size <= HEADER.size:
            _validate(path, f.read(), distance)  # names what is wrong
        mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    view = memoryview(mapped)
    sig, side = _validate(path, view, distance)
    return sig, side, view[HEADER.size:]


def _validate(path: Path, blob: bytes | memoryview, distance: bool) -> tuple[Signature, int]:
    """(signature, side) of a whole table file's bytes; EgdbError naming what is wrong."""
    if len(blob) < HEADER.size:
        raise EgdbError(f"{path}: torn endgame table ({len(blob)} bytes, shorter than its header)")
    magic, version, bm, bk, wm, wk, side, slots, crc = HEADER.unpack_from(blob)
    if magic != (DISTANCE_MAGIC if distance else MAGIC):
        raise EgdbError(f"{path}: not an endgame {'distance ' if distance else ''}table (bad magic)")
    if version != VERSION:
        raise EgdbError(f"{path}: endgame table version {version}, this build reads {VERSION}")
    sig = Signature(bm, bk, wm, wk)
    if side not in (0, 1) or sig.size < 0 or slots != sig.size:
        raise EgdbError(f"{path}: header does not describe a table ({sig.name}, side {side}, {slots} slots)")
    data = memoryview(blob)[HEADER.size:]
    want = slots if distance else (slots + 3) // 4
    if len(data) != want:
        raise EgdbError(f"{path}: torn endgame table ({len(data)} of {want} data bytes)")
    if zlib.crc32(data) != crc:
        raise EgdbError(f"{path}: endgame table checksum mismatch")
    return sig, side


@dataclass(frozen=True)
class BuildStep:
    """One signature of a build: solved now (passes > 0) or loaded from a valid file (passes 0)."""

    signature: Signature
    positions: int
    passes: int
    seconds: float


class Database:
    """Endgame tables in memory, loaded from a directory or built into one."""

    def __init__(self) -> None:
        self.tables = core.EgdbTables()
        self.loaded: set[tuple[Signature, int]] = set()
        self.directory: Path | None = None
        """Where the tables were loaded from (None when built in memory)."""
        self.distances: set[tuple[Signature, int]] = set()
        """The tables whose distances to conversion are held too."""

    @classmethod
    def open(cls, directory: str | Path) -> Database:
        """Load every table file in a directory; EgdbError when it holds none or a bad one."""
        d = Path(directory)
        if not d.is_dir():
            raise EgdbError(f"{d}: no such endgame database directory")
        db = cls()
        db.directory = d
        for path in sorted(d.glob("egdb-*.bin")):
            db.load_file(path)
        for path in sorted(d.glob("egdb-*.dtc")):
            db.load_distance_file(path)
        if not db.loaded:
            raise EgdbError(f"{d}: no endgame tables in this directory")
        return db

    def load_file(self, path: Path) -> tuple[Signature, int]:
        """Map a table file (read only, shared with other processes) and use it in place."""
        sig, side, data = map_table(path)
        self.tables.put_view(sig.bm, sig.bk, sig.wm, sig.wk, side, data)
        self.loaded.add((sig, side))
        return sig, side

    def load_distance_file(self, path: Path) -> tuple[Signature, int]:
        sig, side, data = map_table(path, distance=True)
        if (sig, side) not in self.loaded:
            raise EgdbError(f"{path}: distances of {sig.name} without its values")
        self.tables.put_view(sig.bm, sig.bk, sig.wm, sig.wk, side, data, distance=True)
        self.distances.add((sig, side))
        return sig, side

    def distance(self, raw: core.RawPosition) -> int | None:
        """Plies to the next capture or crowning under best play, None when not held."""
        d = self.tables.distance(raw)
        return None if d < 0 else d

    @property
    def nbytes(self) -> int:
        """Bytes of tables held (values, and distances where loaded)."""
        return sum((s.size + 3) // 4 for s, _ in self.loaded) + sum(s.size for s, _ in self.distances)

    @property
    def max_pieces(self) -> int:
        """The most pieces of any loaded table (0 when empty)."""
        return max((s.pieces for s, _ in self.loaded), default=0)

    def signatures(self) -> list[Signature]:
        """The loaded signatures (with both sides to move present), in build order."""
        have = {s for s, side in self.loaded if (s, 1 - side) in self.loaded}
        return [s for s in signatures(max(self.max_pieces, 2)) if s in have]

    def probe(self, raw: core.RawPosition) -> int | None:
        """WIN, LOSS or DRAW for the side to move, or None when no table covers the position."""
        v = self.tables.probe(raw)
        return None if v < 0 else v

    def value_at(self, sig: Signature, side: int, index: int) -> int:
        return self.tables.value_at(sig.bm, sig.bk, sig.wm, sig.wk, side, index)

    def check(self, sig: Signature, side: int, threads: int = 1) -> tuple[int, dict[str, int]]:
        """(inconsistent positions, count of each value) for one table, on ``threads`` threads."""
        bad, counts = self.tables.check(sig.bm, sig.bk, sig.wm, sig.wk, side, threads)
        if bad < 0:
            raise EgdbError(f"checking {sig.name}: a table it leads to is not loaded")
        return bad, {VALUE_NAMES[v]: counts[v] for v in (WIN, LOSS, DRAW, NONE)}

    def check_distance(self, sig: Signature, side: int, threads: int = 1) -> int:
        """Positions whose distance to conversion disagrees with their successors' (0: none)."""
        bad = self.tables.check_distance(sig.bm, sig.bk, sig.wm, sig.wk, side, threads)
        if bad < 0:
            raise EgdbError(f"checking the distances of {sig.name}: a table it needs is not loaded")
        return bad

    def positions(self, sig: Signature, side: int) -> Iterator[tuple[int, core.RawPosition]]:
        """(slot, position) of every slot that holds a position (slow: for tests and tools)."""
        for i in range(sig.size):
            raw = core.egdb_position(sig.bm, sig.bk, sig.wm, sig.wk, side, i)
            if raw is not None:
                yield i, raw


def build(max_pieces: int, out: str | Path,
          on_step: Callable[[BuildStep, int, int], None] | None = None, *,
          distance: bool = False, threads: int = 1) -> Database:
    """Build (or resume) a database of 2..max_pieces pieces in directory ``out``.

    A signature whose two files are whole and valid is loaded, not rebuilt; a
    torn or foreign file is rebuilt.  ``on_step(step, done_slots, total_slots)``
    follows each signature.  With ``distance``, each signature's distances to
    conversion are solved (or loaded) too, and written beside its values.
    Each signature is solved on ``threads`` threads; the files are the same for
    any number (only the passes reported may differ).
    """
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ValueError(f"threads must be a whole number, 1 or more, got {threads!r}")
    d = Path(out)
    d.mkdir(parents=True, exist_ok=True)
    db = Database()
    sigs = signatures(max_pieces)
    total = sum(2 * s.size for s in sigs)
    done = 0
    for sig in sigs:
        start = time.perf_counter()
        paths = [table_path(d, sig, side) for side in (0, 1)]
        passes = 0
        try:
            for path in paths:
                if db.load_file(path)[0] != sig:
                    raise EgdbError(f"{path}: holds another signature")
        except (OSError, EgdbError):
            passes = db.tables.build(sig.bm, sig.bk, sig.wm, sig.wk, threads)
            for side in (0, 1):  # distances of the old values are stale now
                distance_path(d, sig, side).unlink(missing_ok=True)
            for side, path in enumerate(paths):
                write_table(path, sig, side, db.tables.get_data(sig.bm, sig.bk, sig.wm, sig.wk, side))
                # The file, mapped, replaces the solved copy: the build's own memory stays that of
                # one signature (the page cache holds the rest), and the file is read back whole.
                db.load_file(path)
        if distance:
            passes = max(passes, _distances(db, d, sig, threads))
        done += 2 * sig.size
        if on_step is not None:
            on_step(BuildStep(sig, 2 * sig.size, passes, time.perf_counter() - start), done, total)
    return db


def _distances(db: Database, d: Path, sig: Signature, threads: int) -> int:
    """Load a signature's distance files, or solve and write them; the layers solved (0: loaded)."""
    paths = [distance_path(d, sig, side) for side in (0, 1)]
    try:
        for path in paths:
            if db.load_distance_file(path)[0] != sig:
                raise EgdbError(f"{path}: holds another signature")
        return 0
    except (OSError, EgdbError):
        layers = db.tables.build_distance(sig.bm, sig.bk, sig.wm, sig.wk, threads)
        for side, path in enumerate(paths):
            write_table(path, sig, side, db.tables.get_distance(sig.bm, sig.bk, sig.wm, sig.wk, side),
                        distance=True)
            db.load_distance_file(path)  # as the values: mapped in place of the solved copy
        return layers + 1


# ---- where engines find a database ----

ENV_DIRECTORY = "SAMUEL_EGDB"
"""Environment variable naming the database directory engines load by default."""


def default_directory() -> Path:
    """``$SAMUEL_EGDB``, else ``$XDG_DATA_HOME/samuel/egdb`` (``~/.local/share/samuel/egdb``).

    ``samuel egdb build`` writes here unless told otherwise, and engines load
    what is here unless told otherwise: build once, and every engine has it.
    """
    env = os.environ.get(ENV_DIRECTORY)
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "samuel" / "egdb"


_shared: dict[Path, Database] = {}
_shared_lock = threading.Lock()


def shared(directory: str | Path) -> Database:
    """The database in ``directory``, loaded once per process and shared by every engine.

    Engines only read the tables, so one copy serves every search thread (a
    5-piece database is 73 MB).  EgdbError when the directory holds no valid tables.
    """
    # Found again as named, without resolving the path (a relative name with the directory it was
    # relative to: a server whose working directory has gone still finds an absolute one).
    name = os.fspath(directory)
    named = (name, "" if os.path.isabs(os.path.expanduser(name)) else os.getcwd())
    db = _shared_by_name.get(named)
    if db is not None:
        return db
    key = Path(directory).expanduser().resolve()
    with _shared_lock:
        db = _shared.get(key)
        if db is None:
            db = Database.open(key)
            _shared[key] = db
        _shared_by_name[named] = db
        return db


_shared_by_name: dict[tuple[str, str], Database] = {}


def resolve(setting: str) -> Database | None:
    """The database an ``egdb`` setting names.

    ``none`` (or ``off``): none.  ``auto``: the default directory's, when it
    holds tables (absent, the engine plays without one).  Anything else is a
    directory, which must hold tables: EgdbError naming it otherwise.
    """
    text = setting.strip()
    if text.lower() in _OFF:
        return None
    if text.lower() != "auto":
        return shared(text)
    # Every search asks, so the answer is kept for AUTO_RECHECK_S: looking (environment, paths,
    # a directory listing) cost a search process about a third of its Python work per move.
    global _auto_seen
    where = tuple(os.environ.get(k) for k in _AUTO_ENVIRONMENT)
    now = time.monotonic()
    seen = _auto_seen
    if seen is not None and seen[1] == where and now - seen[0] < AUTO_RECHECK_S:
        return seen[2]
    d = default_directory()
    db = shared(d) if d.is_dir() and any(d.glob("egdb-*.bin")) else None
    _auto_seen = (now, where, db)
    return db


AUTO_RECHECK_S = 2.0
"""How long ``resolve("auto")`` trusts its last look: a database built while a server runs is
found within this time."""
_AUTO_ENVIRONMENT = (ENV_DIRECTORY, "XDG_DATA_HOME", "HOME")
_auto_seen: tuple[float, tuple[str | None, ...], Database | None] | None = None


_OFF = ("none", "off", "false", "0", "")
"""Settings that mean no database."""


@dataclass(frozen=True)
class Survey:
    """What a directory's table files say by their names and sizes (nothing is read or checked)."""

    directory: Path
    tables: int
    max_pieces: int
    nbytes: int

    def describe(self) -> str:
        return f"endgame database: {self.tables} tables, 2-{self.max_pieces} pieces ({self.directory})"


def survey(setting: str) -> Survey | None:
    """The files an ``egdb`` setting names, from a directory listing alone (cheap enough for an
    event loop, unlike loading); None for none, or for ``auto`` with nothing there.  EgdbError
    naming a directory that holds no tables."""
    text = setting.strip()
    if text.lower() in _OFF:
        return None
    auto = text.lower() == "auto"
    d = default_directory() if auto else Path(text).expanduser()
    files = sorted(d.glob("egdb-*.bin")) if d.is_dir() else []
    if not files:
        if auto:
            return None
        check_setting(text)  # names what is wrong
    pieces = [sum(int(c) for c in f.name.split("-")[1]) for f in files]
    nbytes = sum(f.stat().st_size for f in files) + sum(f.stat().st_size for f in d.glob("egdb-*.dtc"))
    return Survey(d, len(files), max(pieces), nbytes)


def check_setting(setting: str) -> str:
    """An ``egdb`` setting, checked without loading anything: EgdbError naming a directory
    that holds no tables."""
    text = setting.strip()
    if text.lower() in (*_OFF, "auto"):
        return text.lower() or "none"
    d = Path(text).expanduser()
    if not d.is_dir():
        raise EgdbError(f"{d}: no such endgame database directory")
    if not any(d.glob("egdb-*.bin")):
        raise EgdbError(f"{d}: no endgame tables in this directory")
    return text


def describe(db: Database | None) -> str:
    """One line saying what an engine probes: ``endgame database: 170 tables, 2-5 pieces (DIR)``."""
    if db is None:
        return "endgame database: none"
    where = f" ({db.directory})" if db.directory is not None else ""
    return f"endgame database: {len(db.loaded)} tables, 2-{db.max_pieces} pieces{where}"
