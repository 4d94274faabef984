"""Book positions: what every book learner and the agreement indices read.

A *book position* is a position of a game from a PDN file where the side to
move had two or more legal moves (forced positions carry no information about
the expert's choice and are left out, as Samuel and Griffith did).  For each one
we keep:

* the position itself, the position before it (its ``parent``, when the game
  did not start there) and its game ply (plies played before it, counted from
  the game's start position);
* every legal move, in the C generator's order, as (from, to) squares, the
  captured squares and two flags (the mover is a king; the move crowns);
* the index of the move the expert played (the *book move*).

The child positions (after each legal move) are not stored: ``children()``
recomputes them from the parent and the move with numpy, which keeps the
arrays of all of OCA (about 1M positions, 7M moves) near 60 MB.

Arrays (``BookPositions``), N positions and M moves in all:

=================  ==========  ==================================================
``pos``            (N, 5) u32  black men, black kings, white men, white kings
                               (square sets, bit s-1 for square s), side to move
``parent``         (N, 5) u32  the position before ``pos`` (zeros if none)
``has_parent``     (N,) bool   whether ``parent`` is known
``ply``            (N,) i32    plies played before ``pos`` in its game
``game``           (N,) i32    the game's 1-based number in its PDN file
``book``           (N,) i32    index of the book move among the position's moves
``start``          (N+1,) i64  moves of position i are ``start[i]:start[i+1]``
``move_from``      (M,) u8     start square of each legal move (1..32)
``move_to``        (M,) u8     final square
``move_caps``      (M,) u32    captured squares (square set)
``move_flags``     (M,) u8     FLAG_KING (the mover is a king), FLAG_CROWN
=================  ==========  ==================================================

The train / held-out split is by game and fixed: a game whose number in its
file is a multiple of ``HELD_OUT_MODULUS`` (10) is held out ("test"), every
other game is "train".  Every book learner and the reproduction script use it.
A split by game still shares positions (the openings, mostly: half of the
held-out positions of OCA occur in some training game), so the honest test set
is "unseen": the held-out positions that no training game holds.  Learners
that choose settings do so on ``validation()``, carved the same way out of the
training games, never on the held-out ones.

Games that fail to read (an illegal or unreadable move, a bad tag) are skipped
whole and counted in ``BookPositions.skipped``/``errors``; they never abort the
extraction.  A missing file raises FileNotFoundError.
"""

from __future__ import annotations

import hashlib
import os
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engine import core
from engine.fen import START_FEN, parse_fen
from engine.pdn import iter_games
from engine.replacing import replacing

HELD_OUT_MODULUS = 10
"""Game number (1-based, in its file) % 10 == 0: held out for testing."""

FLAG_KING = 1
FLAG_CROWN = 2

SPLITS = ("train", "test", "unseen", "all")
"""``unseen``: the held-out positions that occur in no training game (see ``BookPositions.split``)."""
VALIDATION_REMAINDER = 1
"""Training games whose number % 10 == 1 are the validation part (``validation``)."""

ProgressFn = Callable[[int, int], None]
"""progress(done, total): total is 0 when unknown."""

CACHE_VERSION = 1


def is_held_out(game_number: int) -> bool:
    """Whether a game (1-based number in its file) belongs to the held-out split."""
    return game_number % HELD_OUT_MODULUS == 0


def in_split(game_number: int, split: str) -> bool:
    """Whether a game is read for ``split`` ("unseen" reads every game: it needs the training ones)."""
    if split in ("all", "unseen"):
        return True
    if split == "test":
        return is_held_out(game_number)
    if split == "train":
        return not is_held_out(game_number)
    raise ValueError(f"unknown split {split!r}; choose from {', '.join(SPLITS)}")


Row = tuple[int, int, int, int, int]


@dataclass
class BookPositions:
    """Book positions of a set of games (see the module docstring for the arrays)."""

    pos: np.ndarray
    parent: np.ndarray
    has_parent: np.ndarray
    ply: np.ndarray
    game: np.ndarray
    book: np.ndarray
    start: np.ndarray
    move_from: np.ndarray
    move_to: np.ndarray
    move_caps: np.ndarray
    move_flags: np.ndarray
    games_read: int = 0
    """Games that were read without error (whether or not they gave positions)."""
    skipped: int = 0
    """Games skipped because they could not be read."""
    errors: list[str] = field(default_factory=list)
    """The first few reasons games were skipped."""
    source: str = ""
    _children: np.ndarray | None = field(default=None, repr=False, compare=False)

    # ---- sizes and views ----

    def __len__(self) -> int:
        return len(self.book)

    @property
    def num_moves(self) -> int:
        return len(self.move_from)

    @property
    def counts(self) -> np.ndarray:
        """Legal moves per position."""
        return np.diff(self.start)

    @property
    def owner(self) -> np.ndarray:
        """For each move, the index of its position."""
        return np.repeat(np.arange(len(self), dtype=np.int64), self.counts)

    @property
    def book_move(self) -> np.ndarray:
        """Global move index (into the move arrays) of each position's book move."""
        return self.start[:-1] + self.book

    @property
    def is_book(self) -> np.ndarray:
        """For each move, whether it is the book move of its position (the "strong" ones)."""
        flags = np.zeros(self.num_moves, dtype=bool)
        flags[self.book_move] = True
        return flags

    @property
    def num_games(self) -> int:
        return len(np.unique(self.game))

    def mover(self) -> np.ndarray:
        """Side to move (0 Black, 1 White) of each position."""
        return self.pos[:, 4].astype(np.int8)

    def select(self, mask: np.ndarray) -> BookPositions:
        """The positions where ``mask`` (bool, one per position) holds, in order."""
        idx = np.flatnonzero(mask)
        return self.take(idx)

    def take(self, idx: np.ndarray) -> BookPositions:
        """The positions ``idx`` (position indices), in that order."""
        idx = np.asarray(idx, dtype=np.int64)
        counts = self.counts[idx]
        start = np.zeros(len(idx) + 1, dtype=np.int64)
        np.cumsum(counts, out=start[1:])
        moves = _ranges(self.start[idx], counts)
        return BookPositions(
            pos=self.pos[idx],
            parent=self.parent[idx],
            has_parent=self.has_parent[idx],
            ply=self.ply[idx],
            game=self.game[idx],
            book=self.book[idx],
            start=start,
            move_from=self.move_from[moves],
            move_to=self.move_to[moves],
            move_caps=self.move_caps[moves],
            move_flags=self.move_flags[moves],
            games_read=len(np.unique(self.game[idx])),
            skipped=self.skipped,
            errors=list(self.errors),
            source=self.source,
        )

    def head(self, n: int) -> BookPositions:
        """The first ``n`` positions (in game order): for learning curves."""
        return self.take(np.arange(min(n, len(self))))

    def split(self, split: str) -> BookPositions:
        """The fixed train / held-out ("test") split by game, "all", or "unseen": the held-out
        positions that occur in none of this set's training games (meaningful on a set that holds
        the training games, such as a whole file)."""
        if split == "all":
            return self
        held = (self.game % HELD_OUT_MODULUS) == 0
        if split == "test":
            return self.select(held)
        if split == "train":
            return self.select(~held)
        if split == "unseen":
            test = self.select(held)
            return test.select(~seen_in(test, self.select(~held)))
        raise ValueError(f"unknown split {split!r}; choose from {', '.join(SPLITS)}")

    def sample_games(self, n: int, seed: int = 0) -> BookPositions:
        """The positions of ``n`` games drawn at random (reproducibly from ``seed``)."""
        games = np.unique(self.game)
        if n >= len(games):
            return self
        rng = np.random.default_rng(seed)
        chosen = rng.choice(games, size=n, replace=False)
        return self.select(np.isin(self.game, chosen))

    # ---- positions as the core sees them ----

    def raw(self, i: int) -> core.RawPosition:
        return _raw(self.pos[i])

    def parent_raw(self, i: int) -> core.RawPosition | None:
        return _raw(self.parent[i]) if self.has_parent[i] else None

    def children(self) -> np.ndarray:
        """(M, 5) uint32: the position after each legal move, rows like ``pos``."""
        if self._children is None:
            self._children = child_positions(self.pos[self.owner], self.move_from, self.move_to,
                                             self.move_caps, self.move_flags)
        return self._children

    def child_raw(self, j: int) -> core.RawPosition:
        return _raw(self.children()[j])

    # ---- cache files ----

    def save(self, path: str | Path) -> None:
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        with replacing(target, ".tmp.npz") as tmp:
            self._savez(tmp)

    def _savez(self, tmp: Path) -> None:
        np.savez_compressed(
            tmp,
            version=np.array([CACHE_VERSION]),
            pos=self.pos, parent=self.parent, has_parent=self.has_parent, ply=self.ply, game=self.game,
            book=self.book, start=self.start, move_from=self.move_from, move_to=self.move_to,
            move_caps=self.move_caps, move_flags=self.move_flags,
            meta=np.array([self.games_read, self.skipped]),
            errors=np.array(self.errors[:20], dtype=str),
            source=np.array(self.source),
        )

    @classmethod
    def load(cls, path: str | Path) -> BookPositions:
        with np.load(path) as z:
            if int(z["version"][0]) != CACHE_VERSION:
                raise ValueError(f"{path}: cache version {int(z['version'][0])}, expected {CACHE_VERSION}")
            meta = z["meta"]
            return cls(
                pos=z["pos"], parent=z["parent"], has_parent=z["has_parent"], ply=z["ply"], game=z["game"],
                book=z["book"], start=z["start"], move_from=z["move_from"], move_to=z["move_to"],
                move_caps=z["move_caps"], move_flags=z["move_flags"],
                games_read=int(meta[0]), skipped=int(meta[1]), errors=[str(e) for e in z["errors"]],
                source=str(z["source"]),
            )


def position_keys(positions: BookPositions) -> np.ndarray:
    """One comparable key per position (its pieces and side to move, 20 bytes)."""
    rows = np.ascontiguousarray(positions.pos, dtype=np.uint32)
    return rows.view(np.dtype((np.void, rows.shape[1] * rows.itemsize))).ravel()


def seen_in(positions: BookPositions, training: BookPositions) -> np.ndarray:
    """Per position: does the same position (pieces and side to move) occur in ``training``?  A
    split by game leaves the openings in both halves, so a held-out game is not held-out data:
    agreement is honest only on the positions never seen in training."""
    return np.isin(position_keys(positions), position_keys(training))


def validation(training: BookPositions) -> tuple[BookPositions, BookPositions]:
    """(fit, check): the training games split the way the held-out ones are, for choosing a
    learner's settings: ``check`` holds the positions of the games whose number % 10 == 1 that
    occur in no other training game, ``fit`` the other games."""
    part = (training.game % HELD_OUT_MODULUS) == VALIDATION_REMAINDER
    fit, check = training.select(~part), training.select(part)
    return fit, check.select(~seen_in(check, fit))


def _ranges(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Concatenation of arange(s, s + c) for each (s, c)."""
    total = int(counts.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    offsets = np.repeat(starts - np.concatenate(([0], np.cumsum(counts)[:-1])), counts)
    return np.arange(total, dtype=np.int64) + offsets


def _raw(row: np.ndarray) -> core.RawPosition:
    return core.RawPosition(int(row[0]), int(row[1]), int(row[2]), int(row[3]), int(row[4]))


def child_positions(
    parents: np.ndarray, move_from: np.ndarray, move_to: np.ndarray, caps: np.ndarray, flags: np.ndarray
) -> np.ndarray:
    """The position after each move (vectorized); ``parents`` has one row per move."""
    p = parents.astype(np.uint32)
    one = np.uint32(1)
    fb = one << (move_from.astype(np.uint32) - one)
    tb = one << (move_to.astype(np.uint32) - one)
    caps = caps.astype(np.uint32)
    king = (flags & FLAG_KING) != 0
    becomes_king = king | ((flags & FLAG_CROWN) != 0)
    black = p[:, 4] == 0
    out = p.copy()
    for side, men_col, king_col, opp_men, opp_kings in ((True, 0, 1, 2, 3), (False, 2, 3, 0, 1)):
        sel = black if side else ~black
        men = p[sel, men_col]
        kings = p[sel, king_col]
        f, t, k, bk = fb[sel], tb[sel], king[sel], becomes_king[sel]
        men = np.where(k, men, men & ~f)
        kings = np.where(k, kings & ~f, kings)
        men = np.where(bk, men, men | t)
        kings = np.where(bk, kings | t, kings)
        out[sel, men_col] = men
        out[sel, king_col] = kings
        out[sel, opp_men] = p[sel, opp_men] & ~caps[sel]
        out[sel, opp_kings] = p[sel, opp_kings] & ~caps[sel]
    out[:, 4] = 1 - p[:, 4]
    return out


def child_of(raw: core.RawPosition, move: core.RawMove) -> core.RawPosition:
    """The position after ``move`` (pure Python; agrees with core.apply_move)."""
    fb = 1 << (move.path[0] - 1)
    tb = 1 << (move.path[-1] - 1)
    caps = 0
    for s in move.captures:
        caps |= 1 << (s - 1)
    if raw.turn == 0:
        men, kings, om, ok = raw.black_men, raw.black_kings, raw.white_men, raw.white_kings
    else:
        men, kings, om, ok = raw.white_men, raw.white_kings, raw.black_men, raw.black_kings
    if kings & fb:
        kings = (kings & ~fb) | tb
    else:
        men &= ~fb
        if move.crowns:
            kings |= tb
        else:
            men |= tb
    om &= ~caps
    ok &= ~caps
    if raw.turn == 0:
        return core.RawPosition(men, kings, om, ok, 1)
    return core.RawPosition(om, ok, men, kings, 0)


# ---------------------------------------------------------------------------
# Vectorized position terms (rows like ``BookPositions.pos``), exactly as the core computes them.


def _popcount(x: np.ndarray) -> np.ndarray:
    return np.bitwise_count(x.astype(np.uint32)).astype(np.int64)


def material(rows: np.ndarray) -> np.ndarray:
    """The core's material score (evaluator ``material``) for the side to move of each row."""
    black = rows[:, 4] == 0
    bm, bk, wm, wk = (_popcount(rows[:, k]) for k in range(4))
    b = 2 * bm + 3 * bk
    w = 2 * wm + 3 * wk
    mu = np.where(black, b, w)
    mt = np.where(black, w, b)
    diff = mu - mt
    total = mu + mt
    # C's integer division truncates toward zero.
    frac = np.where(total > 0, np.sign(diff) * ((100 * np.abs(diff)) // np.maximum(total, 1)), 0)
    return 50 * diff + frac


def with_material(table_score: np.ndarray, weight: int, rows: np.ndarray | None) -> np.ndarray:
    """A table evaluator's side-to-move score plus its fixed material part, clamped as the C core does."""
    score = table_score.astype(np.int64)
    if weight:
        if rows is None:
            raise ValueError("the material part needs the positions (rows)")
        score = score + weight * material(rows).astype(np.int64)
    return np.clip(score, -core.WIN_BOUND + 1, core.WIN_BOUND - 1)


def _ghost(squares: np.ndarray) -> np.ndarray:
    """Square sets (bit s-1) to the core's layout (bit s-1 + (s-1)//8), as uint64."""
    x = squares.astype(np.uint64)
    out = np.zeros_like(x)
    for r in range(4):  # 8 squares per block, each block shifted by r ghost bits
        out |= ((x >> np.uint64(8 * r)) & np.uint64(0xFF)) << np.uint64(9 * r)
    return out


_BOARD = np.uint64(0x7FBFDFEFF)


def has_capture(rows: np.ndarray) -> np.ndarray:
    """Whether the side to move of each row has a capture (compulsory jumps pending)."""
    black = rows[:, 4] == 0
    bpieces = _ghost(rows[:, 0] | rows[:, 1])
    wpieces = _ghost(rows[:, 2] | rows[:, 3])
    kings = _ghost(rows[:, 1] | rows[:, 3])
    mine = np.where(black, bpieces, wpieces)
    theirs = np.where(black, wpieces, bpieces)
    empty = _BOARD & ~(mine | theirs)
    fwd = np.where(black, mine, mine & kings)  # pieces that move +4/+5
    back = np.where(black, mine & kings, mine)  # pieces that move -4/-5
    found = np.zeros(len(rows), dtype=bool)
    for n in (np.uint64(4), np.uint64(5)):
        found |= ((((fwd << n) & theirs) << n) & empty) != 0
        found |= ((((back >> n) & theirs) >> n) & empty) != 0
    return found


def relative(squares: np.ndarray, mover: np.ndarray) -> np.ndarray:
    """Squares from the mover's side: Black's as they are, White's s -> 33 - s."""
    s = squares.astype(np.int64)
    return np.where(mover == 0, s, 33 - s)


# ---------------------------------------------------------------------------
# Extraction.


class _Builder:
    def __init__(self) -> None:
        self.pos: list[Row] = []
        self.parent: list[Row] = []
        self.has_parent: list[bool] = []
        self.ply: list[int] = []
        self.game: list[int] = []
        self.book: list[int] = []
        self.counts: list[int] = []
        self.move_from: list[int] = []
        self.move_to: list[int] = []
        self.move_caps: list[int] = []
        self.move_flags: list[int] = []

    def add_game(self, number: int, fen: str, moves: list[tuple[tuple[int, ...], tuple[int, ...]]]) -> None:
        p = parse_fen(fen)
        raw = core.RawPosition(p.black_men, p.black_kings, p.white_men, p.white_kings, p.turn)
        prev: core.RawPosition | None = None
        rows: list[tuple] = []
        for ply, (path, caps) in enumerate(moves):
            legal = core.legal_moves(raw)
            index = next((k for k, m in enumerate(legal) if m.path == path and m.captures == caps), -1)
            if index < 0:  # cannot happen for a game the PDN reader replayed
                raise ValueError(f"game {number}: move {path} not legal at ply {ply}")
            if len(legal) >= 2:
                rows.append((raw, prev, ply, index, legal))
            prev = raw
            raw = child_of(raw, legal[index])
        for raw_, prev_, ply, index, legal in rows:
            self.pos.append(_row(raw_))
            self.parent.append(_row(prev_) if prev_ is not None else (0, 0, 0, 0, 0))
            self.has_parent.append(prev_ is not None)
            self.ply.append(ply)
            self.game.append(number)
            self.book.append(index)
            self.counts.append(len(legal))
            kings = raw_.black_kings if raw_.turn == 0 else raw_.white_kings
            for m in legal:
                self.move_from.append(m.path[0])
                self.move_to.append(m.path[-1])
                c = 0
                for s in m.captures:
                    c |= 1 << (s - 1)
                self.move_caps.append(c)
                self.move_flags.append((FLAG_KING if kings >> (m.path[0] - 1) & 1 else 0)
                                       | (FLAG_CROWN if m.crowns else 0))

    def build(self, games_read: int, skipped: int, errors: list[str], source: str) -> BookPositions:
        start = np.zeros(len(self.counts) + 1, dtype=np.int64)
        np.cumsum(np.asarray(self.counts, dtype=np.int64), out=start[1:])
        return BookPositions(
            pos=np.asarray(self.pos, dtype=np.uint32).reshape(-1, 5),
            parent=np.asarray(self.parent, dtype=np.uint32).reshape(-1, 5),
            has_parent=np.asarray(self.has_parent, dtype=bool),
            ply=np.asarray(self.ply, dtype=np.int32),
            game=np.asarray(self.game, dtype=np.int32),
            book=np.asarray(self.book, dtype=np.int32),
            start=start,
            move_from=np.asarray(self.move_from, dtype=np.uint8),
            move_to=np.asarray(self.move_to, dtype=np.uint8),
            move_caps=np.asarray(self.move_caps, dtype=np.uint32),
            move_flags=np.asarray(self.move_flags, dtype=np.uint8),
            games_read=games_read,
            skipped=skipped,
            errors=errors,
            source=source,
        )


def _row(raw: core.RawPosition) -> Row:
    return (raw.black_men, raw.black_kings, raw.white_men, raw.white_kings, raw.turn)


MAX_ERRORS_KEPT = 20


def extract(
    pdn: str | os.PathLike[str],
    *,
    split: str = "all",
    limit_games: int | None = None,
    sample: float | None = None,
    seed: int = 0,
    progress: ProgressFn | None = None,
) -> BookPositions:
    """Book positions of the games of a PDN file.

    ``split`` keeps only the train or held-out games (the others are only
    tokenized, which is fast); ``limit_games`` stops after that many games of
    the file (counted before the split, so "the first N games" means the same
    games for every split); ``sample`` keeps each game with that probability
    (reproducibly from ``seed``).  ``progress(games_seen, 0)`` is called now
    and then.
    """
    path = os.fspath(pdn)
    if not os.path.exists(path):
        raise FileNotFoundError(2, "No such file or directory", path)
    rng = random.Random(seed)
    keep: dict[int, bool] = {}

    def select(number: int) -> bool:
        if limit_games is not None and number > limit_games:
            return False
        if not in_split(number, split):
            return False
        if sample is not None:
            k = keep.get(number)
            if k is None:
                k = keep[number] = rng.random() < sample
            return k
        return True

    if split == "unseen":
        return extract(pdn, split="all", limit_games=limit_games, sample=sample, seed=seed,
                       progress=progress).split("unseen")
    builder = _Builder()
    read = skipped = 0
    errors: list[str] = []
    for game in _games_until(path, select, limit_games):
        if game.error is not None:
            skipped += 1
            if len(errors) < MAX_ERRORS_KEPT:
                errors.append(game.error)
        else:
            moves = [(m.path, m.captures) for m in game.moves]
            builder.add_game(game.number, game.initial_fen or START_FEN, moves)
            read += 1
        if progress is not None and (read + skipped) % 50 == 0:
            progress(read + skipped, limit_games or 0)
    if progress is not None:
        progress(read + skipped, limit_games or 0)
    return builder.build(read, skipped, errors, path)


def _games_until(path: str, select: Callable[[int], bool], limit: int | None) -> Iterator:
    for game in iter_games(path, strict=False, select=select):
        yield game
        if limit is not None and game.number >= limit:
            return


def cache_path(pdn: str | os.PathLike[str], cache_dir: str | os.PathLike[str], **key: object) -> Path:
    """Where ``load`` caches the extraction of ``pdn`` with these options."""
    st = os.stat(pdn)
    text = f"{os.path.abspath(pdn)}|{st.st_size}|{st.st_mtime_ns}|{CACHE_VERSION}|{sorted(key.items())}"
    digest = hashlib.sha1(text.encode()).hexdigest()[:16]
    return Path(cache_dir) / f"book-{Path(pdn).stem}-{digest}.npz"


def load(
    pdn: str | os.PathLike[str],
    *,
    split: str = "all",
    limit_games: int | None = None,
    sample: float | None = None,
    seed: int = 0,
    cache_dir: str | os.PathLike[str] | None = None,
    progress: ProgressFn | None = None,
) -> BookPositions:
    """``extract`` with an optional .npz cache under ``cache_dir`` (keyed by file and options)."""
    if split == "unseen":  # cut from the whole file (and its cache)
        return load(pdn, split="all", limit_games=limit_games, sample=sample, seed=seed,
                    cache_dir=cache_dir, progress=progress).split("unseen")
    if cache_dir is None:
        return extract(pdn, split=split, limit_games=limit_games, sample=sample, seed=seed,
                       progress=progress)
    if not os.path.exists(pdn):
        raise FileNotFoundError(2, "No such file or directory", os.fspath(pdn))
    target = cache_path(pdn, cache_dir, split=split, limit_games=limit_games, sample=sample, seed=seed)
    if target.is_file():
        try:
            return BookPositions.load(target)
        except (OSError, ValueError, KeyError):
            pass  # a stale or broken cache is rebuilt
    data = extract(pdn, split=split, limit_games=limit_games, sample=sample, seed=seed, progress=progress)
    data.save(target)
    return data


__all__ = [
    "FLAG_CROWN",
    "FLAG_KING",
    "HELD_OUT_MODULUS",
    "SPLITS",
    "BookPositions",
    "cache_path",
    "child_of",
    "child_positions",
    "extract",
    "has_capture",
    "in_split",
    "is_held_out",
    "load",
    "material",
    "relative",
    "seen_in",
    "validation",
]
