"""Searcher: runs the C search on a Board and reports through callbacks.

The search never prints or writes to a stream; progress arrives as
``SearchInfo`` values passed to ``on_info``.  ``stop()`` may be called from
any thread, and the C search releases the GIL while it runs.
"""

from __future__ import annotations

import enum
import logging
import random
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from engine import core, timeman
from engine.board import Board
from engine.errors import GameOverError
from engine.evaluators import Evaluator, default
from engine.limits import Limit
from engine.move import Move
from engine.opening_book import BookMove, OpeningBook
from engine.options import CONTEMPT_LIMIT, HASH_DEFAULT_MB, TABLE

__all__ = [
    "CONTEMPT_LIMIT",
    "DEFAULT_CONTEMPT",
    "EngineSearcher",
    "Mode",
    "RoteSource",
    "Score",
    "SearchInfo",
    "SearchResult",
    "Searcher",
]

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from engine.egdb import Database


class Mode(enum.Enum):
    PVS = core.MODE_PVS
    SAMUEL = core.MODE_SAMUEL
    SHANNON_A = core.MODE_SHANNON_A
    FOGEL = core.MODE_FOGEL
    SHANNON_B = core.MODE_SHANNON_B

    @property
    def text(self) -> str:
        """The name options and the command line use: ``pvs``, ``shannon-a``, ``shannon-b``, ..."""
        return self.name.lower().replace("_", "-")

    @classmethod
    def parse(cls, text: str) -> Mode:
        """The mode a name (or another spelling the option table knows) gives; OptionError naming
        the mode option and its values otherwise."""
        name = str(TABLE["mode"].parse(text))
        return cls[name.upper().replace("-", "_")]


@dataclass(frozen=True)
class Score:
    """A score for the side to move: centi-men, or a win/loss in ``plies``."""

    value: int

    @property
    def is_win(self) -> bool:
        return self.value > core.WIN_BOUND

    @property
    def is_db_win(self) -> bool:
        """A win the endgame database knows, at a distance the search has not seen."""
        return core.DB_BOUND < self.value <= core.WIN_BOUND

    @property
    def is_db_loss(self) -> bool:
        return -core.WIN_BOUND <= self.value < -core.DB_BOUND

    @property
    def is_loss(self) -> bool:
        return self.value < -core.WIN_BOUND

    @property
    def plies_to_end(self) -> int | None:
        if self.is_win or self.is_loss:
            return core.WIN - abs(self.value)
        return None

    @property
    def men(self) -> float:
        """The score in men (a win or loss is reported as +/-100)."""
        if self.is_win:
            return 100.0
        if self.is_loss:
            return -100.0
        return self.value / 100.0

    def __str__(self) -> str:
        p = self.plies_to_end
        if p is not None:
            return f"{'win' if self.is_win else 'loss'} in {p}"
        if self.is_db_win or self.is_db_loss:
            return "database win" if self.is_db_win else "database loss"
        return f"{self.value / 100:+.2f}"


@dataclass(frozen=True)
class SearchInfo:
    depth: int
    seldepth: int
    score: Score
    nodes: int
    nps: int
    time: float
    pv: tuple[Move, ...]
    rote_hits: int = 0
    """Search leaves scored from the rote memory."""
    rote_depth: int = 0
    """Effective ply of the rote-memory score at the PV's end (stored ply + distance), or 0."""
    machine_time: float = 0.0
    """Seconds the emulated IBM 704 would have taken (the 704 backend; 0 for the modern core)."""
    tt_hits: int = 0
    tt_probes: int = 0
    """Transposition-table probes and hits (the modern search; 0 in Samuel's and the other modes)."""
    cutoffs: int = 0
    first_cutoffs: int = 0
    """Beta cutoffs, and those made by the first move tried (the share measures move ordering)."""
    egdb_hits: int = 0
    """Positions scored from the endgame database."""
    egdb_root: str | None = None
    """The root's value in the endgame database (``win``, ``draw``, ``loss``), None when not held."""
    pvs: core.PvsStats = field(default_factory=core.PvsStats)
    """Re-searches and table stores of the modern search (``samuel bench`` prints them)."""
    book: bool = False
    """The move came from the opening book, without a search (``pv`` is that move and the reply
    the book expects, if it has one; ``score`` the book's analysis of the move; depth and nodes 0)."""


@dataclass(frozen=True)
class SearchResult:
    best: Move | None
    ponder: Move | None
    info: SearchInfo


def _to_info(ci: core.CoreInfo) -> SearchInfo:
    return SearchInfo(
        depth=ci.depth,
        seldepth=ci.seldepth,
        score=Score(ci.score),
        nodes=ci.nodes,
        nps=ci.nps,
        time=ci.time_ms / 1000.0,
        pv=tuple(Move(m.path, m.captures) for m in ci.pv),
        rote_hits=ci.rote_hits,
        rote_depth=ci.rote_depth,
        tt_hits=ci.tt_hits,
        tt_probes=ci.tt_probes,
        cutoffs=ci.cutoffs,
        first_cutoffs=ci.first_cutoffs,
        egdb_hits=ci.egdb_hits,
        egdb_root=_EGDB_VALUES.get(ci.egdb_root),
        pvs=ci.pvs,
    )


_EGDB_VALUES = {core.EGDB_WIN: "win", core.EGDB_DRAW: "draw", core.EGDB_LOSS: "loss"}


class RoteSource(Protocol):
    """Where a Searcher gets its rote memory (engine.learners.rote.RoteMemory)."""

    def table(self) -> core.RoteTable:
        """The current table; never edited once returned (a merge swaps in a new one)."""
        ...


DEFAULT_CONTEMPT: int = int(TABLE["contempt"].default)
"""Centi-men a draw costs the root's side by default (``Searcher(contempt=)``): the option table's."""


class EngineSearcher(Protocol):
    """What the front ends use of a searcher, whichever backend: ``Searcher`` (the modern core)
    and ``engine.backend704.Searcher704`` both are one.  ``engine.options.build_searcher`` makes one."""

    backend: str
    """``modern`` or ``704`` (the ``backend`` option)."""
    mode: Mode
    rote: RoteSource | None

    @property
    def evaluator(self) -> Evaluator: ...

    @property
    def hash_mb(self) -> int: ...

    def set_evaluator(self, evaluator: Evaluator) -> None: ...

    def set_hash(self, hash_mb: int) -> None: ...

    def new_game(self) -> None: ...

    def arm(self) -> None: ...

    def stop(self) -> None: ...

    def close(self) -> None: ...

    def search(self, board: Board, limit: Limit, *, on_info: Callable[[SearchInfo], None] | None = None,
               stop: threading.Event | None = None, info_interval: float = 0.0) -> SearchResult: ...


class Searcher:
    """A configured engine: evaluator, search mode and transposition table."""

    backend = "modern"

    def __init__(
        self,
        evaluator: Evaluator | None = None,
        *,
        mode: Mode = Mode.PVS,
        hash_mb: int = HASH_DEFAULT_MB,
        samuel_breaks: tuple[int, int, int, int] = (4, 5, 11, 20),
        mtdf: bool = False,
        rote: RoteSource | None = None,
        egdb: Database | None = None,
        book: OpeningBook | None = None,
        book_variety: int = 0,
        book_seed: int | None = None,
        contempt: int = DEFAULT_CONTEMPT,
        fogel_draws: bool = False,
    ) -> None:
        self._core = core.CoreEngine(hash_mb)
        self._egdb: Database | None = None
        self.set_egdb(egdb)
        self.rote = rote
        """Samuel's rote memory, probed at the search leaves (None: off)."""
        self.mode = mode
        self.mtdf = mtdf
        """Drive the PVS mode with MTD(f) zero-window passes instead of aspiration windows."""
        self.samuel_breaks = samuel_breaks
        self.book = book
        """The opening book probed at the root before searching (None: off)."""
        self.book_variety = book_variety
        """0: always the book's best move; N: any book move within N centi-men of it, at random."""
        self.book_random = random.Random(book_seed)
        self.contempt = contempt
        self.fogel_draws = fogel_draws
        """Mode.FOGEL: a repetition or the 40-move rule scores a draw in the search (theirs was
        blind to both, as their games had neither; the modern search always sees them)."""
        self.set_evaluator(evaluator or default())

    @property
    def evaluator(self) -> Evaluator:
        return self._evaluator

    @property
    def contempt(self) -> int:
        """Centi-men a draw (repetition, the 40-move rule, a drawn database position) costs the side
        to move at the root in the modern search: above 0 it plays on in level positions against a
        weaker opponent, below 0 it steers for draws against a stronger one."""
        return self._contempt

    @contempt.setter
    def contempt(self, centi_men: int) -> None:
        self._contempt = int(TABLE["contempt"].parse(centi_men))  # the table's bounds and wording

    def set_evaluator(self, evaluator: Evaluator) -> None:
        self._evaluator = evaluator
        self._core.set_eval(evaluator.spec)

    def set_hash(self, hash_mb: int) -> None:
        self._core.set_hash(hash_mb)
        self._core.prepare()  # a new table: faulted in now, not on the next move's clock

    def prepare_table(self) -> None:
        """Fault the table into memory now (its contents kept): the first search after a new or
        cleared table otherwise pays for it on its clock.  ``new_game`` and ``set_hash`` do it."""
        self._core.prepare()

    @property
    def egdb(self) -> Database | None:
        """The endgame database the search probes (None: none)."""
        return self._egdb

    def set_egdb(self, db: Database | None, max_pieces: int | None = None) -> None:
        """Probe ``db`` (positions of up to ``max_pieces`` pieces; all it holds by default) in
        the modern search; None turns it off.  Waits for a running search."""
        pieces = 0 if db is None else db.max_pieces if max_pieces is None else min(max_pieces, db.max_pieces)
        self._core.set_egdb(db.tables if db is not None else None, pieces)
        self._egdb = db if pieces >= 2 else None

    @property
    def hash_mb(self) -> int:
        """The size asked for, in MB."""
        return self._core.hash_mb

    @property
    def table_mb(self) -> int:
        """The size of the table allocated, in MB (a power of two, at most ``hash_mb``)."""
        return self._core.table_mb

    def new_game(self) -> None:
        """Forget the transposition table, killers and history, and fault the fresh table in
        (before the game's clock starts)."""
        self._core.clear()
        self._core.prepare()

    def stop(self) -> None:
        """Stop the running search, or the coming one once ``arm`` (or ``search``) armed it.

        A stop while no search runs or is armed is forgotten: it never ends a later search.
        """
        self._core.stop()

    def arm(self) -> None:
        """Arm the next ``search``: a ``stop()`` from now on ends it, even one sent before
        it begins (it then returns at once with the first legal move).

        ``search`` arms by itself; a caller whose stop may come from another thread
        before ``search`` is entered arms first and checks its own flag after that, so
        no stop falls between the check and the search.
        """
        self._core.arm()

    def close(self) -> None:
        """Free the transposition table now rather than at garbage collection.

        Waits for a running search to end; the searcher cannot search afterwards.
        """
        self._core.close()

    def search(
        self,
        board: Board,
        limit: Limit,
        *,
        on_info: Callable[[SearchInfo], None] | None = None,
        stop: threading.Event | None = None,
        info_interval: float = 0.0,
    ) -> SearchResult:
        """Search ``board`` within ``limit``; raises GameOverError when there is no move.

        ``info_interval`` (seconds) thins the ``on_info`` reports: the core skips an
        iteration that completes sooner than that after the last report (or the start:
        a search, or book move, quicker than that reports nothing), without entering
        Python, so many concurrent searches stay cheap.  The final information is
        always in the result.
        """
        board.require_a_move()
        if self.book is not None and not limit.infinite:
            chosen = self.book_move(board)
            if chosen is not None:
                return self._play_book(board, chosen, on_info if info_interval <= 0 else None)
        # A fresh table after every merge: take the current one for this search.
        self._core.set_rote(self.rote.table() if self.rote is not None else None)
        budget = timeman.plan(limit)
        lim = core.CoreLimits(
            mode=self.mode.value,
            depth=limit.depth or 0,
            nodes=limit.nodes or 0,
            soft_ms=budget.soft_ms,
            hard_ms=budget.hard_ms,
            optimum_ms=budget.optimum_ms,
            maximum_ms=budget.maximum_ms,
            samuel_breaks=self.samuel_breaks,
            driver=core.DRIVER_MTDF if self.mtdf else core.DRIVER_PVS,
            info_ms=round(info_interval * 1000),
            game_ply=board.ply,
            parent=board.previous_raw,
            contempt=self.contempt,
            fogel_draws=self.fogel_draws,
        )
        cb = (lambda ci: on_info(_to_info(ci))) if on_info else None
        # Stops from here on reach this search, even before the core has begun it.
        ticket = self._core.arm()
        watcher = None
        done = threading.Event()
        if stop is not None and stop.is_set():
            self._core.stop(ticket)  # returns at once with the first legal move
        elif stop is not None:
            def watch() -> None:
                while not done.is_set():
                    if stop.wait(0.005):
                        self._core.stop(ticket)  # this search only: never a later one
                        return

            watcher = threading.Thread(target=watch, daemon=True)
            watcher.start()
        try:
            n, ci = self._core.search(board.raw, board.search_history(), lim, cb)
        finally:
            done.set()
            if watcher:
                watcher.join()
        if n == 0:
            raise GameOverError(f"no legal moves in {board.fen()}")
        info = _to_info(ci)
        best = info.pv[0] if info.pv else None
        ponder = info.pv[1] if len(info.pv) > 1 else None
        return SearchResult(best, ponder, info)

    def book_move(self, board: Board) -> BookMove | None:
        """The opening book's move for ``board`` under this searcher's variety, or None.

        An open-ended search (no limit: analysis or pondering) never plays from the book;
        ``search`` asks here only when the search has a limit.
        """
        if self.book is None:
            return None
        chosen = self.book.choose(board, self.book_variety, self.book_random)
        if chosen is not None:
            log.debug("book move %s (%d games, score %+d) in %s", chosen.move, chosen.games, chosen.score,
                      board.fen())
        return chosen

    def _play_book(self, board: Board, chosen: BookMove,
                   on_info: Callable[[SearchInfo], None] | None) -> SearchResult:
        # A one-ply core search takes the armed ticket as any search would, so a stop sent
        # after this answer can never fall on the next search (see ``arm``).
        lim = core.CoreLimits(mode=self.mode.value, depth=1, nodes=0, soft_ms=0, hard_ms=0,
                              samuel_breaks=self.samuel_breaks, driver=core.DRIVER_PVS, info_ms=0,
                              game_ply=board.ply, parent=board.previous_raw)
        self._core.set_rote(None)
        self._core.search(board.raw, board.search_history(), lim, None)
        # The reply the book expects (its best move after ours) is the move to ponder on.
        after = board.copy()
        after.push(chosen.move)
        reply = self.book.choose(after, 0) if self.book is not None and after.legal_moves else None
        pv = (chosen.move,) if reply is None else (chosen.move, reply.move)
        info = SearchInfo(depth=0, seldepth=0, score=Score(chosen.score), nodes=0, nps=0, time=0.0,
                          pv=pv, book=True)
        if on_info is not None:
            on_info(info)
        return SearchResult(chosen.move, reply.move if reply is not None else None, info)
