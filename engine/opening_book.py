"""The opening book: expert moves from OCA games, checked by the engine's own analysis.

Not to be confused with Samuel's *book learning* (``engine.learners.book_*``),
which fits an evaluation to book moves; this book is probed at the root and,
when the position is in it, a move is played without searching.

File layout (all little-endian; the full description is docs/opening-book.md)::

    header, 64 bytes:
      magic "SMLOBOOK" | version u16 | header size u16 | record size u16 | flags u16
      | entries u32 | positions u32 | source games u32 | max ply u16 | min games u16
      | analysis nodes u32 | drop margin u16 | reserved u16 | crc32 u32 | 20 reserved bytes
    entries, 48 bytes each, sorted by (key_hi, key_lo, from, to, captures):
      key_hi u64 | key_lo u64 | captures u32 | games u32 | wins u32 | draws u32 | losses u32
      | score i16 | depth u8 | flags u8 | from u8 | to u8 | 6 reserved bytes

The crc32 covers the whole file with its own four bytes read as zero.  The
position key is exact (two positions never share one), built from the square
sets (bit ``s-1`` for square ``s``) and the side to move::

    key_hi = black_men | side << 31 | white_men << 32      (side 0: Black to move)
    key_lo = black_kings | white_kings << 32

A black man never stands on 29-32 (it would be crowned), so bit 31 of
``black_men`` is free for the side to move.
"""

from __future__ import annotations

import functools
import itertools
import math
import mmap
import os
import random
import struct
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from engine import core
from engine.board import Board
from engine.errors import SamuelError
from engine.fen import FenPosition, format_fen
from engine.limits import Limit
from engine.move import Move
from engine.replacing import replacing
from engine.types import BLACK, Color, square_set

if TYPE_CHECKING:
    import numpy as np

    from engine.search import SearchResult

MAGIC = b"SMLOBOOK"
VERSION = 1
HEADER = struct.Struct("<8sHHHHIIIHHIHHI20x")
"""magic, version, header size, record size, flags, entries, positions, source games, max ply,
min games, analysis nodes, drop margin, reserved, crc32 (64 bytes)."""
CRC_OFFSET = 40
"""Where the crc32 sits in the header (it is read as zero while the checksum is computed)."""

RECORD_FIELDS: tuple[tuple[str, str], ...] = (
    ("key_hi", "<u8"), ("key_lo", "<u8"), ("captures", "<u4"), ("games", "<u4"), ("wins", "<u4"),
    ("draws", "<u4"), ("losses", "<u4"), ("score", "<i2"), ("depth", "u1"), ("flags", "u1"),
    ("from", "u1"), ("to", "u1"), ("reserved", "V6"),
)
"""One book move, as a numpy structured dtype."""
RECORD_SIZE = 48


@functools.cache
def record_dtype() -> Any:
    """The entries' numpy dtype (numpy is imported only once a book is used: the command line's
    parsers import this module and must stay light)."""
    import numpy as np

    dtype = np.dtype(list(RECORD_FIELDS))
    assert dtype.itemsize == RECORD_SIZE
    return dtype

FLAG_ANALYSED = 1
"""The move's ``score`` comes from a search (otherwise it is 0 and means nothing)."""
FLAG_ENGINE = 2
"""The engine's own move, added where the experts' moves were thin (``games`` is 0)."""

EXPERT_WEIGHT = 100
"""Centi-men that a move's expected game score (0..1, from the experts' results) is worth
around 0.5 when moves are ranked (see ``BookMove.value``)."""
POPULARITY_WEIGHT = 10
"""Centi-men a move gains each time the number of games it was played in doubles."""
MAX_VARIETY = 100
"""Variety N plays any book move whose value is within N centi-men of the best."""

DEFAULT_FILE = Path(__file__).parent / "data" / "opening-book.bin"
"""The book shipped with the package, built from OCA 2.0 by ``samuel openings build``."""
DEFAULT_NAME = "default"
NONE_NAMES = ("none", "off", "false", "no", "0", "")
DEFAULT_NAMES = (DEFAULT_NAME, "on", "true", "yes", "1")


class BookError(SamuelError):
    """An opening book file that is missing, torn or not an opening book (the message names it)."""


# ---------------------------------------------------------------------------
# Keys.


def position_key(raw: core.RawPosition) -> tuple[int, int]:
    """The exact key of a position: (key_hi, key_lo), as described at the top of this module."""
    return (raw.black_men | (raw.turn << 31) | (raw.white_men << 32),
            raw.black_kings | (raw.white_kings << 32))


def position_of_key(key_hi: int, key_lo: int) -> core.RawPosition:
    """The position a key stands for (the key is exact, so this inverts ``position_key``)."""
    mask = 0xFFFF_FFFF
    return core.RawPosition(key_hi & 0x7FFF_FFFF, key_lo & mask, key_hi >> 32, key_lo >> 32,
                            (key_hi >> 31) & 1)


def board_of_key(key_hi: int, key_lo: int) -> Board:
    r = position_of_key(key_hi, key_lo)
    return Board(format_fen(FenPosition(r.turn, r.black_men, r.black_kings, r.white_men, r.white_kings)))


MoveId = tuple[int, int, int]
"""A move as the book stores it: from square, to square, captured squares as a square set.
Two moves with the same three lead to the same position."""


def move_id(move: Move) -> MoveId:
    return move.path[0], move.path[-1], square_set(move.captures)


# ---------------------------------------------------------------------------
# Entries.


@dataclass(frozen=True)
class BookMove:
    """One move of a book position, with what the experts and the engine made of it."""

    move: Move
    games: int
    """Games of the source in which it was played here."""
    wins: int
    draws: int
    losses: int
    """Results of those games from the mover's side (games without a result count in none)."""
    score: int
    """The engine's analysis of the position after the move, centi-men for the mover."""
    depth: int
    flags: int

    @property
    def expected(self) -> float:
        """The mover's expected game score, 0..1, from the results (one win and one loss added,
        so a move seen once is not taken for a sure win)."""
        return (self.wins + self.draws / 2 + 1) / (self.wins + self.draws + self.losses + 2)

    @property
    def value(self) -> float:
        """What moves are ranked by, in centi-men: the analysis score, plus the experts' results,
        plus how often they played it::

            value = score + EXPERT_WEIGHT * (expected - 0.5) + POPULARITY_WEIGHT * log2(1 + games)
        """
        return (self.score + EXPERT_WEIGHT * (self.expected - 0.5)
                + POPULARITY_WEIGHT * math.log2(1 + self.games))

    @property
    def engine_added(self) -> bool:
        return bool(self.flags & FLAG_ENGINE)


@dataclass(frozen=True)
class BookInfo:
    """The header's description of how the book was built."""

    entries: int
    positions: int
    source_games: int
    max_ply: int
    min_games: int
    analysis_nodes: int
    drop_margin: int


class OpeningBook:
    """A loaded book: records sorted by key, probed by binary search."""

    def __init__(self, records: np.ndarray, info: BookInfo, path: str = "<memory>") -> None:
        self.records = records
        self.info = info
        self.path = path
        import numpy as np

        self._hi = np.ascontiguousarray(records["key_hi"])

    def __len__(self) -> int:
        return int(self.records.shape[0])

    def __repr__(self) -> str:
        return f"<OpeningBook {self.path}: {self.info.positions} positions, {len(self)} moves>"

    # ---- reading ----

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> OpeningBook:
        """Load and verify a book file; BookError naming the file and the fault otherwise."""
        name = os.fspath(path)
        try:
            with open(name, "rb") as fh:
                size = os.fstat(fh.fileno()).st_size
                if size < HEADER.size:
                    raise BookError(f"{name}: not an opening book: {size} bytes, shorter than "
                                    f"the {HEADER.size}-byte header")
                with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
                    data = bytes(mm)
        except FileNotFoundError:
            raise BookError(f"{name}: no such opening book file") from None
        except IsADirectoryError:
            raise BookError(f"{name}: is a directory, not an opening book file") from None
        except OSError as exc:
            raise BookError(f"{name}: cannot read the opening book: {exc.strerror or exc}") from None
        return cls.from_bytes(data, name)

    @classmethod
    def from_bytes(cls, data: bytes, name: str = "<bytes>") -> OpeningBook:
        if len(data) < HEADER.size:
            raise BookError(f"{name}: not an opening book: {len(data)} bytes, shorter than "
                            f"the {HEADER.size}-byte header")
        (magic, version, header_size, record_size, _flags, entries, positions, games, max_ply,
         min_games, nodes, margin, _reserved, crc) = HEADER.unpack_from(data)
        if magic != MAGIC:
            raise BookError(f"{name}: not an opening book (magic {magic!r}, expected {MAGIC!r})")
        if version != VERSION:
            raise BookError(f"{name}: opening book version {version}; this samuel reads version {VERSION}")
        if header_size != HEADER.size or record_size != RECORD_SIZE:
            raise BookError(f"{name}: header says {header_size}-byte header and {record_size}-byte "
                            f"entries; version {VERSION} has {HEADER.size} and {RECORD_SIZE}")
        want = HEADER.size + entries * RECORD_SIZE
        if len(data) != want:
            what = "truncated" if len(data) < want else "has trailing bytes"
            raise BookError(f"{name}: {what}: {len(data)} bytes, the header's {entries} entries "
                            f"need {want}")
        zeroed = data[:CRC_OFFSET] + b"\0\0\0\0" + data[CRC_OFFSET + 4:]
        actual = zlib.crc32(zeroed)
        if actual != crc:
            raise BookError(f"{name}: checksum mismatch (stored {crc:08x}, computed {actual:08x}): "
                            "the file is corrupt; rebuild it with samuel openings build")
        import numpy as np

        records = np.frombuffer(data, dtype=record_dtype(), count=entries, offset=HEADER.size)
        keys = _sort_keys(records)
        if entries > 1 and not _is_sorted(keys):
            raise BookError(f"{name}: entries are not sorted by key (a writer bug or a hand-edited file)")
        distinct = _count_positions(records)
        if distinct != positions:
            raise BookError(f"{name}: header says {positions} positions, the entries hold {distinct}")
        info = BookInfo(entries, positions, games, max_ply, min_games, nodes, margin)
        return cls(records, info, name)

    # ---- writing ----

    @classmethod
    def from_moves(cls, moves: Iterable[tuple[core.RawPosition, BookMove]], info: BookInfo) -> OpeningBook:
        """A book from (position, move) pairs; they are sorted here, ``info``'s counts are set here."""
        import numpy as np

        rows = []
        for raw, bm in moves:
            hi, lo = position_key(raw)
            f, t, caps = move_id(bm.move)
            rows.append((hi, lo, caps, bm.games, bm.wins, bm.draws, bm.losses,
                         max(-32767, min(32767, bm.score)), min(255, bm.depth), bm.flags, f, t, b"\0" * 6))
        records = np.array(rows, dtype=record_dtype()) if rows else np.zeros(0, dtype=record_dtype())
        order = np.lexsort(tuple(reversed(_sort_keys(records)))) if rows else np.zeros(0, dtype=np.intp)
        records = records[order]
        full = BookInfo(len(records), _count_positions(records), info.source_games, info.max_ply,
                        info.min_games, info.analysis_nodes, info.drop_margin)
        return cls(records, full)

    def to_bytes(self) -> bytes:
        i = self.info
        header = HEADER.pack(MAGIC, VERSION, HEADER.size, RECORD_SIZE, 0, len(self), i.positions,
                             i.source_games, i.max_ply, i.min_games, i.analysis_nodes, i.drop_margin, 0, 0)
        body = self.records.tobytes()
        crc = zlib.crc32(body, zlib.crc32(header))
        return header[:CRC_OFFSET] + struct.pack("<I", crc) + header[CRC_OFFSET + 4:] + body

    def write(self, path: str | os.PathLike[str]) -> None:
        """Write atomically: a cut-off write leaves the old file (or none), never a torn one."""
        with replacing(path) as tmp, open(tmp, "wb") as fh:
            fh.write(self.to_bytes())

    # ---- probing ----

    def rows(self, raw: core.RawPosition) -> np.ndarray:
        """The records of a position (none when it is not in the book)."""
        import numpy as np

        hi, lo = position_key(raw)
        a = int(np.searchsorted(self._hi, np.uint64(hi), "left"))
        b = int(np.searchsorted(self._hi, np.uint64(hi), "right"))
        block = self.records[a:b]
        return block[block["key_lo"] == np.uint64(lo)]

    def probe(self, board: Board) -> list[BookMove]:
        """The book moves of ``board``, best value first; only moves legal there are returned."""
        rows = self.rows(board.raw)
        if not len(rows):  # most positions of a game: no moves to list
            return []
        by_id = {move_id(m): m for m in board.legal_moves}
        found = []
        for r in rows:
            move = by_id.get((int(r["from"]), int(r["to"]), int(r["captures"])))
            if move is None:
                continue  # cannot happen with an exact key; a damaged entry is skipped, not played
            found.append(BookMove(move, int(r["games"]), int(r["wins"]), int(r["draws"]), int(r["losses"]),
                                  int(r["score"]), int(r["depth"]), int(r["flags"])))
        found.sort(key=lambda m: (-m.value, -m.games, m.move.path, m.move.captures))
        return found

    def choose(self, board: Board, variety: int = 0, rng: random.Random | None = None) -> BookMove | None:
        """The book move to play, or None when ``board`` is not in the book.

        Variety 0 always plays the best-valued move.  Variety N > 0 draws among the moves
        whose value is within N centi-men of the best, in proportion to how often the experts
        played them (a move the engine added counts as played once).
        """
        moves = self.probe(board)
        if not moves:
            return None
        if variety <= 0:
            return moves[0]
        best = moves[0].value
        pool = [m for m in moves if m.value >= best - variety]
        weights = [m.games + 1 for m in pool]
        return (rng or random.Random()).choices(pool, weights)[0]

    def positions(self) -> Iterator[tuple[int, int, np.ndarray]]:
        """Every position's key and records, in key order."""
        import numpy as np

        keys = np.stack([self.records["key_hi"], self.records["key_lo"]], axis=1) if len(self) else None
        if keys is None:
            return
        starts = np.flatnonzero(np.any(keys[1:] != keys[:-1], axis=1)) + 1
        bounds = [0, *starts.tolist(), len(self)]
        for a, b in itertools.pairwise(bounds):
            yield int(keys[a, 0]), int(keys[a, 1]), self.records[a:b]


def _sort_keys(records: np.ndarray) -> tuple[np.ndarray, ...]:
    return (records["key_hi"], records["key_lo"], records["from"], records["to"], records["captures"])


def _is_sorted(keys: tuple[np.ndarray, ...]) -> bool:
    import numpy as np

    # Lexicographic: each adjacent pair is ordered by its first differing column.
    n = len(keys[0])
    decided = np.zeros(n - 1, dtype=bool)
    for col in keys:
        a, b = col[:-1], col[1:]
        if np.any(~decided & (a > b)):
            return False
        decided |= a < b
    return True


def _count_positions(records: np.ndarray) -> int:
    if len(records) == 0:
        return 0
    import numpy as np

    hi, lo = records["key_hi"], records["key_lo"]
    return int(1 + np.count_nonzero((hi[1:] != hi[:-1]) | (lo[1:] != lo[:-1])))


# ---------------------------------------------------------------------------
# Naming a book: a file, the shipped one, or none.


@functools.lru_cache(maxsize=8)
def _load_cached(path: str, mtime_ns: int, size: int) -> OpeningBook:
    return OpeningBook.open(path)


def load(spec: str) -> OpeningBook | None:
    """The book ``spec`` names: ``default`` (the shipped book), ``none``, or a file.

    Loaded books are cached by path and modification time, so sessions share one copy.
    """
    text = spec.strip()
    if text.lower() in NONE_NAMES:
        return None
    path = str(DEFAULT_FILE) if text.lower() in DEFAULT_NAMES else os.path.expanduser(text)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        shipped = path == str(DEFAULT_FILE)
        what = "the shipped opening book is missing" if shipped else "no such opening book file"
        raise BookError(f"{path}: {what}") from None
    except OSError as exc:
        raise BookError(f"{path}: cannot read the opening book: {exc.strerror or exc}") from None
    return _load_cached(path, st.st_mtime_ns, st.st_size)


def canonical(spec: str) -> str:
    """The canonical text of a book setting: ``default``, ``none``, or the file as given."""
    text = spec.strip()
    if text.lower() in NONE_NAMES:
        return "none"
    if text.lower() in DEFAULT_NAMES:
        return DEFAULT_NAME
    return text


# ---------------------------------------------------------------------------
# Building.


@dataclass(frozen=True)
class BuildSettings:
    max_ply: int = 24
    """Positions up to this many plies into a game are collected."""
    min_games: int = 3
    """A position, and a move of it, must come from at least this many games."""
    nodes: int = 20_000
    """Nodes each analysis search may use (0: no analysis, only the experts' statistics)."""
    drop_margin: int = 60
    """Moves that analysis scores more than this many centi-men below the best are dropped."""
    thin_games: int = 12
    """Where the experts' moves come from fewer games than this, the engine's best move is added."""


@dataclass
class _Counts:
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0


@dataclass
class Collected:
    """Move statistics of every position seen, before the minimum-count filter."""

    positions: dict[tuple[int, int], dict[MoveId, _Counts]] = field(default_factory=dict)
    games: int = 0


Progress = Callable[[str, int, int], None]
"""``(stage, done, total)``: the build reports its progress through this."""


def _score_of(result: str, mover: Color) -> int | None:
    """+1 win, 0 draw, -1 loss for the mover; None for an unfinished game."""
    if result == "1/2-1/2":
        return 0
    if result == "1-0":
        return 1 if mover == BLACK else -1
    if result == "0-1":
        return -1 if mover == BLACK else 1
    return None


def collect(games: Iterable[tuple[str, list[Move], str]], max_ply: int,
            on_game: Callable[[int], None] | None = None) -> Collected:
    """Count each (position, move) of the games' first ``max_ply`` plies.

    ``games`` yields (start FEN, moves, result) triples.
    """
    out = Collected()
    for fen, moves, result in games:
        out.games += 1
        board = Board(fen)
        for move in moves[:max_ply]:
            key = position_key(board.raw)
            c = out.positions.setdefault(key, {}).setdefault(move_id(move), _Counts())
            c.games += 1
            s = _score_of(result, board.turn)
            if s == 1:
                c.wins += 1
            elif s == 0:
                c.draws += 1
            elif s == -1:
                c.losses += 1
            board.push(move)
        if on_game is not None:
            on_game(out.games)
    return out


class Searching(Protocol):
    """What the build analyses with (``engine.search.Searcher``)."""

    def search(self, board: Board, limit: Limit) -> SearchResult: ...


def _analyse(searcher: Searching, board: Board, move: Move, limit: Limit) -> tuple[int, int]:
    """(score for the mover, depth) of the position after ``move``."""
    child = board.copy()
    child.push(move)
    if not child.legal_moves:
        return core.WIN, 0  # the move wins at once
    info = searcher.search(child, limit).info
    return -info.score.value, info.depth


def build(collected: Collected, settings: BuildSettings, searcher: Searching | None = None,
          on_progress: Progress | None = None) -> OpeningBook:
    """The book from collected statistics, analysed with ``searcher`` (when settings.nodes > 0).

    Every kept move is scored by a search of the position after it; moves that score more
    than ``drop_margin`` below the best are dropped, and where the experts' moves come from
    fewer than ``thin_games`` games, the engine's own best move is added.
    """
    report = on_progress or (lambda stage, done, total: None)
    kept: list[tuple[tuple[int, int], dict[MoveId, _Counts]]] = []
    for key, moves in sorted(collected.positions.items()):
        total = sum(c.games for c in moves.values())
        good = {m: c for m, c in moves.items() if c.games >= settings.min_games}
        if total >= settings.min_games and good:
            kept.append((key, good))
    out: list[tuple[core.RawPosition, BookMove]] = []
    limit = Limit(nodes=settings.nodes) if settings.nodes > 0 else None
    for done, (key, good) in enumerate(kept):
        report("analysing", done, len(kept))
        board = board_of_key(*key)
        by_id = {move_id(m): m for m in board.legal_moves}
        cands = {mid: c for mid, c in good.items() if mid in by_id}
        if not cands:
            continue
        scored: dict[MoveId, tuple[int, int, int]] = {}
        if limit is not None and searcher is not None:
            for mid in cands:
                scored[mid] = (*_analyse(searcher, board, by_id[mid], limit), FLAG_ANALYSED)
            top = max(s for s, _, _ in scored.values())
            total = sum(c.games for c in cands.values())
            if total < settings.thin_games and len(by_id) > 1:
                # Thin expert evidence: the engine's own move joins when analysis prefers it.
                best = searcher.search(board, limit).best
                if best is not None and move_id(best) not in cands:
                    score, depth = _analyse(searcher, board, best, limit)
                    if score > top:
                        cands[move_id(best)] = _Counts()
                        scored[move_id(best)] = (score, depth, FLAG_ANALYSED | FLAG_ENGINE)
                        top = score
            cands = {mid: c for mid, c in cands.items() if scored[mid][0] >= top - settings.drop_margin}
        raw = board.raw
        for mid, c in cands.items():
            score, depth, flag = scored.get(mid, (0, 0, 0))
            out.append((raw, BookMove(by_id[mid], c.games, c.wins, c.draws, c.losses, score, depth, flag)))
    report("analysing", len(kept), len(kept))
    info = BookInfo(0, 0, collected.games, settings.max_ply, settings.min_games, settings.nodes,
                    settings.drop_margin)
    return OpeningBook.from_moves(out, info)
