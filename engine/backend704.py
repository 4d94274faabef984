"""The 704 backend: Samuel's checkers program on the emulated IBM 704, behind the Searcher interface.

Sessions, the command line and matches ask a searcher for a move; with
``backend=704`` that searcher is this one.  It deepens Samuel's minimum ply,
each iteration a whole search inside the 704 program (``engine.program704``,
his ply rules and break points), run a slice of cycles at a time so that a stop
or the clock is seen within a few milliseconds.  An iteration skips the minimum
plies that would search the very tree the last one searched (the program says
how shallow its rules first stopped).  The line the program returns (single
steps, a multiple jump a step a jump) is matched against the legal moves, so
nothing illegal ever leaves here, and every report carries the 704 time beside
the host's.

The program evaluates with its own fixed polynomial (``program704.EVALUATION``)
for evaluator ``default``, or with one of Samuel's polynomials (any evaluator of
kind ``samuel``: ``samuel-1959``, ``samuel-alpha``, ``samuel-rote``, a file),
whose terms and coefficients it takes as data words; ``set_evaluator`` refuses
any other evaluator of the modern core by name.

``pace="704"`` plays at the real machine's speed: every slice, the last of an
iteration too, is held back to 12 microseconds a cycle, and the hold is spent in
steps of at most ``CLOCK_STEP`` that look at the stop flags and the clock, so a
user meets the 1959 machine at its own pace and a move is still on time.
``pace="704-clock"`` reads the time limits on the 704's own clock instead (its cycles at
12 microseconds, from the start of the search), at the emulator's speed: a minute a move,
Samuel's pace, is a minute of 704 time and a few hundredths of a second here, so matches at his
pace can be played.  A stop, and the wall clock's hard limit, still end a search at once.

Samuel's rote memory (``rote=``: the session's ``--rote`` SQLite memory, any
``RoteSource``, or a reel, ``RoteReel``): its positions, up to the working part's
4,000, are written to a tape reel that the program reads itself
(``Program704.load_rote_tape``), and the search looks its stopping points up in
them.  Which 4,000, when the memory holds more: Samuel's measure of a position's
worth, its age (a position used or seen again has its age halved, every merge
adds one), the youngest first; then the deeper ply (his cull drops the lowest
plies first), then the more uses.  The reel is written again when the memory
merges (its table changes) or the evaluation's scale does.

Wins and losses carry their distance, as in the modern backend: the program
scores a side with no move at ply p as -20000 + p.  Deepening goes on past one
until it is exact: when the ply rules stopped no line short of the lost
position, no shorter win (or longer defence) can hide behind a stopped line.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

from engine import core, timeman
from engine.board import Board
from engine.errors import GameOverError
from engine.evaluators import MATERIAL, Evaluator
from engine.limits import Limit
from engine.move import Move
from engine.options import EVALUATORS_704, PACES, TABLE, Evaluator704Error, check_evaluator_704
from engine.program704 import (
    CYCLE_SECONDS,
    LOSS_VALUE,
    ROTE_CAPACITY,
    SLICE_CYCLES,
    Polynomial704,
    Program704,
    Program704Error,
    RoteEntry704,
    Search704,
    line_moves,
    plies_to_end,
    read_rote_tape,
    warm_up,
    write_rote_tape,
)
from engine.search import Mode, RoteSource, Score, SearchInfo, SearchResult

CENTI_MEN_PER_POINT = 100 / 64
"""The program's own score counts 64 a man (32 x PADV, a man 2); reports are in hundredths of a man
(as Samuel's polynomials score already)."""
CLOCK_STEP = 0.02
"""At pace 704, the longest the clock and the stop flags go unseen (seconds): a hold sleeps no longer."""
PACE_SLICE_CYCLES = 2000
"""Cycles a slice at pace 704 and 704-clock (24 ms of 704 time, a fraction of a millisecond here)."""
__all__ = ["EVALUATORS", "OWN_EVALUATOR", "PACES", "Evaluator704Error", "RoteReel", "Searcher704",
           "check_evaluator", "memory_entries", "program_rote_score", "warm_up"]

OWN_EVALUATOR = Evaluator("default", MATERIAL.spec, {"note": "the 704 program's own polynomial (EVALUATION)"})
"""``default`` on the 704 backend: the program's own polynomial (its spec, the modern core's piece
advantage, only stands in for the interface), without loading the modern default's network."""

EVALUATORS = EVALUATORS_704
"""The evaluator names the 704 backend plays (the option table's)."""
check_evaluator = check_evaluator_704
"""Evaluator704Error unless the 704 backend really plays the evaluator named (the option table's check)."""


def _score(value: int, centi_men_per_point: float = CENTI_MEN_PER_POINT) -> Score:
    """A program score as a report's: centi-men, or a win/loss at its distance."""
    distance = plies_to_end(value)
    if distance is not None:
        return Score(core.WIN - distance if value > 0 else -(core.WIN - distance))
    return Score(round(value * centi_men_per_point))


# ---- the rote memory for the program ----------------------------------------------------------


class RoteReel:
    """A rote memory read from a reel (``program704.write_rote_tape``) whose scores are the memory's:
    centi-men for the side to move, a win or loss as the modern core's (``core.WIN`` less its
    distance), as ``memory_entries`` gives them.  Read only; a ``RoteSource`` for either backend."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        try:
            entries = read_rote_tape(self.path)
        except Program704Error:
            raise
        except Exception as exc:  # a missing file, or one that is no SIMH tape
            raise Program704Error(f"{self.path}: not a rote memory reel: {exc}") from None
        if len(entries) > ROTE_CAPACITY:
            raise Program704Error(f"{self.path}: {len(entries):,} positions, more than the 704 program's "
                                  f"working part holds ({ROTE_CAPACITY:,})")
        self.entries = entries
        self._table = core.RoteTable(len(entries) + 16)
        for e in entries:
            self._table.put(e.key, e.score, e.ply)

    def table(self) -> core.RoteTable:
        return self._table


def _store_path(source: RoteSource) -> Path | None:
    """The SQLite file of a ``RoteMemory`` (engine.learners.rote), if ``source`` is one."""
    store = getattr(source, "store", None)
    path = getattr(store, "path", None)
    return Path(path) if path is not None else None


def _by_age(path: Path, limit: int) -> list[tuple[tuple[int, int, int], int]]:
    """The store's positions with their current ages, youngest first, then the deeper ply and the
    more uses (read from the file, as every process sharing the store sees it)."""
    try:
        db = sqlite3.connect(str(path), timeout=60)
        try:
            merges = int(db.execute("SELECT value FROM meta WHERE key = 'merges'").fetchone()[0])
            rows = db.execute(
                "SELECT black, white, kings, age0 + ? - stamp FROM positions "
                "ORDER BY age0 - stamp, ply DESC, uses DESC, black, white, kings LIMIT ?",
                (merges, limit)).fetchall()
        finally:
            db.close()
    except (sqlite3.Error, TypeError) as exc:
        raise Program704Error(f"{path}: cannot read the rote memory for the 704 program: {exc}") from None
    return [((int(b), int(w), int(k)), int(age)) for b, w, k, age in rows]


def memory_entries(source: RoteSource, limit: int = ROTE_CAPACITY) -> list[RoteEntry704]:
    """Up to ``limit`` positions of a rote memory for the program's working part, with the scores
    and plies of the table the modern search reads (the memory's units).  A reel: its positions.  A
    ``RoteMemory``: the youngest by Samuel's age, then the deeper ply, then the more used.  Any other
    source: the deepest plies (ages unknown, 0)."""
    if isinstance(source, RoteReel):
        return source.entries[:limit]
    table = source.table()
    path = _store_path(source)
    out: list[RoteEntry704] = []
    if path is not None:
        for key, age in _by_age(path, limit):
            got = table.get(key)
            if got is not None:  # the table searches read now (a later merge's rows wait for it)
                out.append(RoteEntry704(key, got[0], got[1], max(age, 0)))
        return out
    items = sorted(table.items(), key=lambda kv: (-kv[2], kv[0]))[:limit]
    return [RoteEntry704(key, score, ply, 0) for key, score, ply in items]


EVAL_LIMIT = -LOSS_VALUE // 2 - 1
"""The largest evaluation score the program tells from a win (``program704.plies_to_end``)."""


def program_rote_score(score: int, centi_men_per_point: float) -> int:
    """A memory's score (centi-men, a win as ``core.WIN`` less its distance) as the program's: in
    its points (1 a centi-man with Samuel's polynomials, 64 a man with its own), a win as
    -LOSS_VALUE less the same distance; an evaluation kept short of the wins."""
    if abs(score) >= core.WIN_BOUND:
        value = -LOSS_VALUE - (core.WIN - abs(score))
        return value if score > 0 else -value
    value = round(score / centi_men_per_point)
    return max(-EVAL_LIMIT, min(EVAL_LIMIT, value))


def _exact(found: Search704) -> bool:
    """Whether a deeper minimum ply can change a win or loss score: not when the ply rules stopped
    no line before the ply just short of the lost position (a shorter win, or a longer defence,
    would have to pass a stopped line to be missed)."""
    distance = found.plies_to_end
    if distance is None:
        return False
    return found.stop_ply is None or found.stop_ply >= distance - 1


class Searcher704:
    """A searcher whose every move is found by the 704 program.  Not thread-safe beyond ``stop``.

    ``clock`` and ``sleep`` are the time it plays by (seconds); a test may give its own.  The
    default sleep waits on the search's stop flag, so a ``stop()`` ends a hold at once."""

    backend = "704"

    def __init__(self, *, pace: str = "emulator", max_depth: int = 30, deck: str | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], object] | None = None,
                 rote: RoteSource | str | os.PathLike[str] | None = None,
                 program: Program704 | None = None) -> None:
        pace = str(TABLE["pace"].parse(pace))  # OptionValueError naming the option and its values
        self.program = program if program is not None else Program704(deck)
        """The emulated machine with the program; ``program=`` shares one (the learner's, which
        plays Alpha and Beta by turns)."""
        self.pace = pace
        self.max_depth = min(max_depth, self.program.max_depth)
        self.mode = Mode.SAMUEL
        """The program's own rules: Samuel's 1959 ply rules, with alpha-beta cut-offs."""
        self._evaluator: Evaluator = OWN_EVALUATOR
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._armed: threading.Event | None = None
        """The stop flag of the next search, once armed."""
        self._current: threading.Event | None = None
        """The stop flag ``stop`` sets: the running search's, or the armed one's."""
        self.hash_mb = 0
        """The program keeps no table: its memory is the 704's 32K words."""
        if isinstance(rote, (str, os.PathLike)):
            rote = RoteReel(rote)
        if rote is not None and not self.program.has_rote:
            raise Program704Error(f"the 704 deck {deck} has no rote memory (entries ESTD, ELOOK, ERTLD): "
                                  "it cannot play with rote=")
        self.rote: RoteSource | None = rote
        """Samuel's rote memory, read into the program's working part before a search when it changed."""
        self._rote_loaded: tuple[object, float] | None = None
        """The table and scale the working part was last written from."""
        self.rote_positions = 0
        """Positions in the program's working part now."""

    # -- the Searcher interface the sessions use ----------------------------------------------

    @property
    def evaluator(self) -> Evaluator:
        """The Samuel polynomial the program plays, or with ``default`` a stand-in for the
        interface (the modern core's piece advantage, the nearest it has): what the program then
        evaluates is EVALUATION, in its own assembly."""
        return self._evaluator

    def set_evaluator(self, evaluator: Evaluator) -> None:
        """Play ``default`` (the program's own polynomial) or one of Samuel's (kind ``samuel``),
        set into the program as data words.  Evaluator704Error for any other: the program cannot
        play it, and pretending it does would be a lie."""
        if evaluator.name.strip().lower() == "default":
            self.program.set_polynomial(None)
            self._evaluator = OWN_EVALUATOR
            return
        check_evaluator(evaluator.name, evaluator)
        self.program.set_polynomial(evaluator.spec.weights)
        self._evaluator = evaluator

    def play_written(self, evaluator: Evaluator, polynomial: Polynomial704) -> None:
        """Play ``evaluator``, whose data words the program itself has just written (its learner's
        YPOL): only the host's record of them is set here, nothing is written into the machine."""
        check_evaluator(evaluator.name, evaluator)
        self.program.polynomial = polynomial
        self._evaluator = evaluator

    def set_hash(self, hash_mb: int) -> None:
        return None

    def new_game(self) -> None:
        """Read the rote memory into the program now, if it changed, before the game's clock runs (the
        first search would do it inside its time)."""
        self.sync_rote()

    def arm(self) -> None:
        """Arm the next ``search``: a ``stop()`` from now on ends it, even one sent before it begins."""
        with self._lock:
            if self._armed is None:
                self._armed = threading.Event()
            self._current = self._armed

    def stop(self) -> None:
        """Stop the running or armed search; forgotten when neither (it never ends a later one)."""
        with self._lock:
            if self._current is not None:
                self._current.set()

    def close(self) -> None:
        return None

    def sync_rote(self) -> int:
        """Write the memory's positions to a reel and have the program read it, if the memory merged
        (a new table) or the scale changed since the last time; returns the positions held."""
        if self.rote is None:
            return 0
        scale = self.program.centi_men_per_point
        table = self.rote.table()
        if self._rote_loaded is not None and self._rote_loaded[0] is table and self._rote_loaded[1] == scale:
            return self.rote_positions
        entries = [e._replace(score=program_rote_score(e.score, scale)) for e in memory_entries(self.rote)]
        fd, name = tempfile.mkstemp(prefix="samuel-rote-", suffix=".tap")
        os.close(fd)
        try:
            write_rote_tape(name, entries)
            self.rote_positions = self.program.load_rote_tape(name).value
        finally:
            os.unlink(name)
        self._rote_loaded = (table, scale)
        return self.rote_positions

    def search(
        self,
        board: Board,
        limit: Limit,
        *,
        on_info: Callable[[SearchInfo], None] | None = None,
        stop: threading.Event | None = None,
        info_interval: float = 0.0,
    ) -> SearchResult:
        board.require_moves()
        self.sync_rote()
        with self._lock:  # this search's own flag: a stop before it began is kept, a stale one is not
            own = self._armed or threading.Event()
            self._armed = None
            self._current = own
        try:
            return self._search(board, limit, own, on_info, stop, info_interval)
        finally:
            with self._lock:
                if self._current is own:
                    self._current = None

    def _search(self, board: Board, limit: Limit, own: threading.Event,
                on_info: Callable[[SearchInfo], None] | None, stop: threading.Event | None,
                info_interval: float) -> SearchResult:
        clock = self._clock
        sleep = self._sleep or own.wait
        start = clock()
        soft_ms, hard_ms = timeman.budgets(limit)
        soft = soft_ms / 1000 if soft_ms else None
        hard = hard_ms / 1000 if hard_ms else None
        max_depth = min(limit.depth or self.max_depth, self.max_depth)
        legal = board.legal_moves
        if not legal:
            raise GameOverError(f"no legal moves in {board.fen()}")
        paced = self.pace == "704"
        best_info: SearchInfo | None = None
        nodes = cycles = hits = 0
        progress = [0]  # cycles of the iteration running, as of its last slice
        last_report = 0.0  # the first report, too, waits info_interval (as in the core)

        virtual = self.pace == "704-clock"

        def spent() -> float:
            """The search's time so far: the 704's (every cycle run, the running iteration's too)
            at pace 704-clock, the wall clock's otherwise."""
            if virtual:
                return (cycles + progress[0]) * CYCLE_SECONDS
            return clock() - start

        def stopped() -> bool:
            if own.is_set() or (stop is not None and stop.is_set()):
                return True
            if virtual and hard is not None and clock() - start >= hard:
                return True  # an emulator slower than the 704 (never seen): the move must still come
            return hard is not None and spent() >= hard

        def hold(done: int, finished: bool) -> bool:
            """After a slice: at pace 704 wait until the 704 would have got this far; True to stop."""
            progress[0] = done
            if paced:
                due = start + (cycles + done) * CYCLE_SECONDS  # all iterations so far, from the start
                while True:
                    if stopped():
                        return True
                    wait = due - clock()
                    if wait <= 0:
                        break
                    sleep(min(wait, CLOCK_STEP))
                return False
            return not finished and stopped()

        depth = 1
        while depth <= max_depth:
            found = self.program.search_sliced(board, depth, hold,
                                               slice_cycles=PACE_SLICE_CYCLES if paced or virtual
                                               else SLICE_CYCLES)
            if found is None:  # stopped mid-iteration: the last whole one stands
                if best_info is None:
                    best_info = self._partial(board, depth, nodes, cycles + progress[0], clock() - start)
                    if best_info is not None and on_info is not None:
                        on_info(best_info)
                break
            nodes += found.nodes
            cycles += found.cycles
            hits += found.rote_hits
            line = self._resolve(board, found)
            # Every minimum ply up to the shallowest stop searches this same tree: it stands for them.
            same_to = max_depth if found.stop_ply is None else min(max(found.stop_ply, depth), max_depth)
            elapsed = clock() - start
            info = SearchInfo(depth=same_to, seldepth=max(same_to, len(line)),
                              score=_score(found.score, self.program.centi_men_per_point),
                              nodes=nodes, nps=int(nodes / elapsed) if elapsed > 0 else 0, time=elapsed,
                              pv=line, machine_time=cycles * CYCLE_SECONDS, rote_hits=hits)
            best_info = info
            forced = len(legal) == 1 and soft is not None  # no time to spend on it (as the core does)
            last = same_to >= max_depth or forced or found.stop_ply is None or _exact(found)
            if on_info is not None and (elapsed - last_report >= info_interval or last):
                on_info(info)
                last_report = elapsed
            if last:
                break
            if limit.nodes is not None and nodes >= limit.nodes:
                break
            if soft is not None and spent() >= soft:
                break
            if stopped():
                break
            depth = same_to + 1
        if best_info is None:  # stopped before any root move was searched whole: any legal move
            # The 704 did run until the stop: its time counts the unfinished iteration's cycles too
            # (a loaded host can stop it within its first iteration at a short move time).
            best_info = SearchInfo(depth=0, seldepth=0, score=Score(0), nodes=nodes, nps=0,
                                   time=clock() - start, pv=(legal[0],),
                                   machine_time=(cycles + progress[0]) * CYCLE_SECONDS)
        if hits and self.rote is not None:
            self._carry_marks()
        return SearchResult(best_info.pv[0], None, best_info)

    def _carry_marks(self) -> None:
        """The positions the program took from its working part, marked used in the memory's table
        too, so the memory's next merge refreshes them (Samuel's "used" positions grow younger)."""
        assert self.rote is not None
        table = self.rote.table()
        for entry in self.program.rote_entries():
            if entry.used:
                table.mark_used(entry.key)

    def _partial(self, board: Board, depth: int, nodes: int, cycles: int,
                 elapsed: float) -> SearchInfo | None:
        """The first iteration stopped part way: the best of the root moves it searched whole, if any
        (its score is what the program found for those moves at this minimum ply)."""
        got = self.program.root_best(board)
        if got is None:
            return None
        score, line = got
        return SearchInfo(depth=depth, seldepth=max(depth, len(line)),
                          score=_score(score, self.program.centi_men_per_point), nodes=nodes,
                          nps=int(nodes / elapsed) if elapsed > 0 else 0, time=elapsed, pv=line,
                          machine_time=cycles * CYCLE_SECONDS)

    def _resolve(self, board: Board, found: Search704) -> tuple[Move, ...]:
        """The program's line as legal moves, checked against the rules, never trusted blindly: its
        first move must be legal and start with the step the program names as best."""
        line = tuple(line_moves(board, found.steps))
        step = (found.first_from, found.first_to)
        if not line or (line[0].path[0], line[0].path[1]) != step:
            raise Program704Error(f"the 704 program named {found.first_from}-{found.first_to} "
                                  f"(line {list(found.steps)}), not a legal move in {board.fen()}")
        return line
