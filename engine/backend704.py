"""The 704 backend: Samuel's checkers program on the emulated IBM 704, behind the Searcher interface.

Sessions, the command line and matches ask a searcher for a move; with
``backend=704`` that searcher is this one.  It deepens Samuel's minimum ply one
move at a time, each iteration a whole search inside the 704 program
(``engine.program704``, his ply rules and break points), run a million cycles
at a slice so that a stop or the clock is seen within a few milliseconds.  The
line the program returns (single steps, a multiple jump a step a jump) is
matched against the legal moves, so nothing illegal ever leaves here, and every
report carries the 704 time beside the host's.

``pace="704"`` plays at the real machine's speed: each slice is held back to
12 microseconds a cycle, so a user meets the 1959 machine at its own pace.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from engine import core, timeman
from engine.board import Board
from engine.errors import GameOverError
from engine.evaluators import MATERIAL, Evaluator
from engine.limits import Limit
from engine.move import Move
from engine.program704 import CYCLE_SECONDS, LOSS_VALUE, Program704, Program704Error, Search704, line_moves
from engine.search import Mode, Score, SearchInfo, SearchResult

PACES = ("emulator", "704")
CENTI_MEN_PER_POINT = 100 / 64
"""The program's score counts 64 a man (32 x PADV, a man 2); reports are in hundredths of a man."""


def _score(value: int, depth: int) -> Score:
    if value <= LOSS_VALUE // 2:
        return Score(-(core.WIN - depth))  # lost within the search's depth
    if value >= -LOSS_VALUE // 2:
        return Score(core.WIN - depth)
    return Score(round(value * CENTI_MEN_PER_POINT))


class Searcher704:
    """A searcher whose every move is found by the 704 program.  Not thread-safe beyond ``stop``."""

    backend = "704"

    def __init__(self, *, pace: str = "emulator", max_depth: int = 30, deck: str | None = None) -> None:
        if pace not in PACES:
            raise ValueError(f"pace must be one of {', '.join(PACES)}, not {pace!r}")
        self.program = Program704(deck)
        self.pace = pace
        self.max_depth = min(max_depth, self.program.max_depth)
        self.mode = Mode.SAMUEL
        """The program's own rules: Samuel's 1959 ply rules, with alpha-beta cut-offs."""
        self._evaluator: Evaluator = MATERIAL
        self._lock = threading.Lock()
        self._armed: threading.Event | None = None
        """The stop flag of the next search, once armed."""
        self._current: threading.Event | None = None
        """The stop flag ``stop`` sets: the running search's, or the armed one's."""
        self.hash_mb = 0
        """The program keeps no table: its memory is the 704's 32K words."""
        self.rote = None

    # -- the Searcher interface the sessions use ----------------------------------------------

    @property
    def evaluator(self) -> Evaluator:
        return self._evaluator

    def set_evaluator(self, evaluator: Evaluator) -> None:
        """Kept for the interface: the 704 program evaluates by piece advantage, its own way."""
        self._evaluator = evaluator

    def set_hash(self, hash_mb: int) -> None:
        return None

    def new_game(self) -> None:
        return None

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
        start = time.monotonic()
        soft_ms, hard_ms = timeman.budgets(limit)
        soft = soft_ms / 1000 if soft_ms else None
        hard = hard_ms / 1000 if hard_ms else None
        max_depth = min(limit.depth or self.max_depth, self.max_depth)
        legal = board.legal_moves
        if not legal:
            raise GameOverError(f"no legal moves in {board.fen()}")
        best_info: SearchInfo | None = None
        nodes = cycles = 0
        last_report = 0.0  # the first report, too, waits info_interval (as in the core)

        def stopped() -> bool:
            if own.is_set() or (stop is not None and stop.is_set()):
                return True
            return hard is not None and time.monotonic() - start >= hard

        for depth in range(1, max_depth + 1):
            slice_start = [time.monotonic(), 0]

            def pace(done: int, marks: list[float] = slice_start) -> None:
                if self.pace == "704":  # hold each slice back to the real machine's 12 us a cycle
                    due = marks[0] + (done - marks[1]) * CYCLE_SECONDS
                    wait = due - time.monotonic()
                    if wait > 0:
                        own.wait(wait)

            found = self.program.search_sliced(board, depth, stopped, on_slice=pace)
            if found is None:
                break  # stopped mid-iteration: the last whole one stands
            nodes += found.nodes
            cycles += found.cycles
            line = self._resolve(board, found)
            elapsed = time.monotonic() - start
            info = SearchInfo(depth=depth, seldepth=max(depth, len(line)), score=_score(found.score, depth),
                              nodes=nodes, nps=int(nodes / elapsed) if elapsed > 0 else 0, time=elapsed,
                              pv=line, machine_time=cycles * CYCLE_SECONDS)
            best_info = info
            if on_info is not None and (elapsed - last_report >= info_interval or depth == max_depth):
                on_info(info)
                last_report = elapsed
            if len(legal) == 1 or info.score.is_win or info.score.is_loss:
                break
            if limit.nodes is not None and nodes >= limit.nodes:
                break
            if soft is not None and time.monotonic() - start >= soft:
                break
            if stopped():
                break
        if best_info is None:  # stopped before the first iteration ended: any legal move
            best_info = SearchInfo(depth=0, seldepth=0, score=Score(0), nodes=nodes, nps=0,
                                   time=time.monotonic() - start, pv=(legal[0],),
                                   machine_time=cycles * CYCLE_SECONDS)
        return SearchResult(best_info.pv[0], None, best_info)

    def _resolve(self, board: Board, found: Search704) -> tuple[Move, ...]:
        """The program's line as legal moves, checked against the rules, never trusted blindly: its
        first move must be legal and start with the step the program names as best."""
        line = tuple(line_moves(board, found.steps))
        step = (found.first_from, found.first_to)
        if not line or (line[0].path[0], line[0].path[1]) != step:
            raise Program704Error(f"the 704 program named {found.first_from}-{found.first_to} "
                                  f"(line {list(found.steps)}), not a legal move in {board.fen()}")
        return line
