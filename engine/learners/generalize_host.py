"""Alpha against whoever connects: a named, saved polynomial that learns during server games.

"Program Alpha is used to play against human opponents" (Samuel 1959).  A server started with an
Alpha name plays every game with that name's polynomial and adjusts it after each of its moves, just
as in self-play (``generalize.Alpha.learn``); between games the polynomial lives in
``DIR/NAME.json`` (with ``DIR/NAME.evaluator.json`` beside it, usable as ``--eval``).

Concurrency, one lock per name (per resolved file, process-wide, and an flock on
``NAME.json.lock`` for other processes):

* a game loads the saved polynomial when its first search starts, then learns on a private copy;
* at the game's end (the session's next ``new_game`` or its close) it saves under the lock, with a
  write-then-rename so a reader never sees half a file;
* two games of the same name at once: each started from the polynomial saved when it began.  The
  first to end saves its polynomial as it is.  One ending later finds the file changed since it
  loaded, so it *merges*: onto the saved polynomial it adds its own change of each term's correlation
  (clamped to [-1, 1]), times used and low-term tally, for the terms active both in the saved
  polynomial and at its own start and end; its own term replacements are dropped (the saved
  polynomial's term list wins), and its move and correction counts are added.  No game's learning
  is lost, and the result never depends on anything but the order in which games end.
"""

from __future__ import annotations

import contextlib
import json
import random
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine import evaluators
from engine.board import Board
from engine.evaluators import Evaluator
from engine.learners.generalize import Alpha, MoveLearning, initial_order
from engine.learners.generalize_state import PolynomialState
from engine.move import Move
from engine.replacing import replacing

HOST_VERSION = 1
_LOCKS: dict[Path, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


def _lock_for(path: Path) -> threading.Lock:
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(path, threading.Lock())


@contextlib.contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    """Held across processes too (a server's search processes share the polynomial's file):
    an exclusive flock on ``NAME.json.lock`` beside it.  Without fcntl (Windows) only the
    process-wide lock guards it."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".lock"), "a") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def valid_name(name: str) -> str:
    """A polynomial name: letters, digits, ``-``, ``_`` and ``.``, not starting with a dot."""
    if not name or name.startswith(".") or not all(c.isalnum() or c in "-_." for c in name):
        raise ValueError(f"Alpha name {name!r}: use letters, digits, '-', '_' and '.' only")
    return name


@dataclass(frozen=True)
class Snapshot:
    """The saved polynomial as a game loaded it."""

    poly: PolynomialState
    games: int
    generation: int
    """Saves so far; a game that finds a later generation at its end merges."""


class AlphaStore:
    """One named Alpha polynomial on disk."""

    def __init__(self, directory: str | Path, name: str) -> None:
        self.name = valid_name(name)
        self.path = (Path(directory) / f"{name}.json").resolve()
        self.evaluator_path = self.path.with_name(f"{name}.evaluator.json")
        self.lock = _lock_for(self.path)

    def _read(self) -> Snapshot:
        if not self.path.exists():
            poly = PolynomialState.start(initial_order("samuel", random.Random(0)))
            return Snapshot(poly, 0, 0)
        d = json.loads(self.path.read_text(encoding="utf-8"))
        if d.get("version") != HOST_VERSION:
            raise ValueError(f"{self.path}: version {d.get('version')!r}, expected {HOST_VERSION}")
        return Snapshot(PolynomialState.from_dict(d["alpha"]), int(d["games"]), int(d["generation"]))

    def load(self) -> Snapshot:
        with self.lock, _file_lock(self.path):
            return self._read()

    def _write(self, poly: PolynomialState, games: int, generation: int) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        data = {"version": HOST_VERSION, "name": self.name, "games": games, "generation": generation,
                "coefficients": poly.coefficients(), "alpha": poly.to_dict()}
        with replacing(self.path) as tmp:
            tmp.write_text(json.dumps(data, separators=(",", ":")), encoding="utf-8")
        alpha = Alpha(poly, name=self.name)
        ev = alpha.evaluator()
        evaluators.save(Evaluator(ev.name, ev.spec, {"learner": "samuel-1959-generalization",
                                                     "hosted": True, "games": games,
                                                     "terms": poly.coefficients()}), self.evaluator_path)

    def commit(self, start: Snapshot, end: PolynomialState) -> Snapshot:
        """Save a finished game's polynomial (merging when another game saved meanwhile)."""
        with self.lock, _file_lock(self.path):
            current = self._read()
            fresh = current.generation == start.generation
            merged = end if fresh else merge(current.poly, start.poly, end)
            saved = Snapshot(merged, current.games + 1, current.generation + 1)
            self._write(saved.poly, saved.games, saved.generation)
            return saved


def merge(saved: PolynomialState, start: PolynomialState, end: PolynomialState) -> PolynomialState:
    """``saved`` plus what one game changed from ``start`` to ``end`` (see the module docstring)."""
    out = PolynomialState.from_dict(saved.to_dict())
    before = {t.name: t for t in start.active}
    after = {t.name: t for t in end.active}
    for t in out.active:
        b, a = before.get(t.name), after.get(t.name)
        if b is None or a is None:
            continue
        t.correlation = max(-1.0, min(1.0, t.correlation + a.correlation - b.correlation))
        t.uses = max(0, t.uses + a.uses - b.uses)
        t.tally = max(0, t.tally + a.tally - b.tally)
    out.moves += end.moves - start.moves
    out.corrections += end.corrections - start.corrections
    return out


class HostedAlpha:
    """A session's games as Alpha with one named polynomial.

    ``evaluator()`` before each search, ``learn()`` after it, ``end_game()`` when the game is over
    (it saves; the next search starts a new game from the saved polynomial).  ``learn`` may run in a
    search thread: the session never searches twice at once.
    """

    def __init__(self, store: AlphaStore) -> None:
        self.store = store
        self._start: Snapshot | None = None
        self._alpha: Alpha | None = None
        self._last: tuple[str, tuple[Move, ...]] | None = None
        self._guard = threading.Lock()
        self.version = 0
        """Bumped whenever the polynomial may have changed (the searcher's table is then stale)."""

    def _game(self) -> Alpha:
        if self._alpha is None:
            self._start = self.store.load()
            self._alpha = Alpha(PolynomialState.from_dict(self._start.poly.to_dict()), name=self.store.name)
            self._last = None
            self.version += 1
        return self._alpha

    def evaluator(self) -> Evaluator:
        with self._guard:
            return self._game().evaluator()

    def learn(self, board: Board, score: int, pv: Sequence[Move]) -> MoveLearning:
        """Learn from a search of ``board`` (Alpha = the side to move there).

        A position that does not continue the last one learned from (another game, an analysed
        position) starts a new span, so delta is never taken across unrelated positions.
        """
        with self._guard:
            alpha = self._game()
            moves = tuple(board.move_stack)
            last = self._last
            continues = (last is not None and last[0] == board.initial_fen
                         and moves[: len(last[1])] == last[1] and len(moves) > len(last[1])
                         and alpha.color == board.turn)
            if not continues:
                alpha.new_game(board.turn)
            before = alpha.coefficients()
            learned = alpha.learn(board, score, pv)
            if alpha.coefficients() != before:
                self.version += 1
            self._last = (board.initial_fen, moves)
            return learned

    def end_game(self) -> Snapshot | None:
        """Save this game's learning; None when no game was played since the last save."""
        with self._guard:
            if self._alpha is None or self._start is None:
                return None
            alpha, start = self._alpha, self._start
            self._alpha = self._start = None
            self._last = None
            if alpha.poly.moves == start.poly.moves:
                return None  # nothing learned (no search completed)
            return self.store.commit(start, alpha.poly)

    def describe(self) -> dict[str, Any]:
        return {"name": self.store.name, "file": str(self.store.path)}
