"""Samuel's rote learning (1959): save the positions met in play with their backed-up scores.

The program saves each position it searched at the root, with the score the
search backed up and the ply that score is worth.  Later searches look their
leaves up in the memory (csrc/search.c): a stored position found at a leaf k
plies from the root lends its d-ply score, so the root gets a (d + k)-ply score,
and saving that root in turn lets the next game go deeper still (Fig. 3).

Bookkeeping, as in the paper: a new position gets an age; each merge adds 1 to
every age (forgetting), a position used by a search or seen again has its age
halved (refreshing), a position older than the maximum is deleted, and when
the memory grows past its limit the lowest-ply positions are culled.

``RoteMemory`` ties the SQLite store (``rote_store``) to the C table the search
reads.  Searches read the current table while a merge builds the next one and
then swaps it in, so a search never sees a half-written table; several
sessions (threads) may share one memory, and several processes one file.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from engine import core
from engine.board import Board
from engine.evaluators import Evaluator, default
from engine.game import GameRecord, play_game
from engine.learners.rote_store import AgePolicy, MergeResult, Observation, RoteStore, StoreStats
from engine.limits import Limit
from engine.move import Move
from engine.runner import move_to_play
from engine.search import Mode, Searcher, SearchResult

__all__ = [
    "AgePolicy",
    "MergeResult",
    "RoteMemory",
    "SelfPlayGame",
    "StoreStats",
    "effective_ply",
    "self_play",
    "shared_memory",
]


def effective_ply(result: SearchResult) -> int:
    """The ply a root score is worth: the search depth, or more when the PV's leaf came
    from the memory (its stored ply plus its distance from the root)."""
    return min(max(result.info.depth, result.info.rote_depth), core.ROTE_MAX_PLY)


class RoteMemory:
    """A rote memory: its store, the C table searches probe, and the positions not yet merged.

    Thread-safe.  ``table()`` is what ``Searcher(rote=memory)`` reads before each search.
    ``merge_every`` > 0 merges by itself once that many positions are waiting (Samuel
    merged about every 20 moves); otherwise call ``merge`` (e.g. at the end of a game).
    """

    def __init__(self, path: str | Path, policy: AgePolicy | None = None, *, merge_every: int = 0) -> None:
        self.policy = policy or AgePolicy()
        self.merge_every = merge_every
        self.store = RoteStore(path)
        self._pending: list[Observation] = []
        self._pending_lock = threading.Lock()
        self._merge_lock = threading.Lock()
        self._merger: threading.Thread | None = None
        self.last_merge: MergeResult | None = None
        self._table = self._load()

    # ---- the C table ----

    def _load(self) -> core.RoteTable:
        table = core.RoteTable(max(len(self.store), 1024))
        for chunk in self.store.rows():
            table.put_many([(b, w, k) for b, w, k, _, _ in chunk],
                           [r[3] for r in chunk], [r[4] for r in chunk])
        return table

    def table(self) -> core.RoteTable:
        """The current table (never changed after it is handed out)."""
        return self._table

    def lookup(self, board: Board) -> tuple[int, int] | None:
        """(score for the side to move, ply) if ``board``'s position is in the memory."""
        return self._table.lookup(board.raw)

    def __len__(self) -> int:
        return len(self._table)

    # ---- recording ----

    @property
    def pending(self) -> int:
        with self._pending_lock:
            return len(self._pending)

    def record(self, board: Board, score: int, ply: int) -> None:
        """Save ``board``'s position at the next merge, with its score (side to move) and ply."""
        self.record_key(core.rote_key(board.raw), score, ply)

    def record_key(self, key: core.RoteKey, score: int, ply: int) -> None:
        """``record`` for a position already standardized (``core.rote_key``)."""
        obs = Observation(key, int(score), max(0, min(int(ply), core.ROTE_MAX_PLY)))
        with self._pending_lock:
            self._pending.append(obs)
            due = self.merge_every > 0 and len(self._pending) >= self.merge_every
        if due:
            self.merge_soon()

    def record_search(self, board: Board, result: SearchResult) -> None:
        """Save a searched root position with its backed-up score and effective ply."""
        self.record(board, result.info.score.value, effective_ply(result))

    # ---- merging ----

    def merge(
        self,
        *,
        on_progress: Callable[[str, int], None] | None = None,
        book_games: Iterable[tuple[str, int]] = (),
    ) -> MergeResult:
        """Merge the waiting positions and the searches' references into the store (one
        transaction), then swap in the new table.  Merges run one at a time.  ``book_games``
        (source, number) are noted as followed in the same transaction (``rote_book``)."""
        with self._merge_lock:
            with self._pending_lock:
                batch, self._pending = self._pending, []
            old = self._table
            used = old.used()
            try:
                result = self.store.merge(batch, used, self.policy, on_progress=on_progress,
                                          book_games=book_games)
            except BaseException:
                with self._pending_lock:  # nothing was committed: keep them for the next merge
                    self._pending[:0] = batch
                raise
            if result.continuous:
                table = old.clone(result.total + 1024)
                for o in batch:  # the store's rule: the deeper score wins, ties to the newer
                    have = table.get(o.key)
                    if have is None or o.ply >= have[1]:
                        table.put(o.key, o.score, o.ply)
                for key in result.removed:
                    table.delete(key)
            else:  # another process merged into the file too: read it all again
                table = self._load()
            self._table = table
            self.last_merge = result
            return result

    def merge_soon(self) -> None:
        """Merge in a background thread (no-op when one is already running)."""
        with self._pending_lock:
            if self._merger is not None and self._merger.is_alive():
                return
            self._merger = threading.Thread(target=self._merge_quietly, name="rote-merge", daemon=True)
            self._merger.start()

    def _merge_quietly(self) -> None:
        import logging

        try:
            r = self.merge()
            logging.getLogger(__name__).info(
                "rote merge %d: +%d new, %d updated, %d refreshed, %d forgotten, %d culled, %d stored",
                r.merge, r.added, r.updated, r.refreshed, r.forgotten, r.culled, r.total)
        except Exception:
            logging.getLogger(__name__).exception("rote merge failed")

    def wait_merged(self, timeout: float | None = None) -> None:
        """Wait for a background merge started by ``merge_soon``."""
        with self._pending_lock:
            t = self._merger
        if t is not None:
            t.join(timeout)

    def flush(self) -> MergeResult | None:
        """Wait for a background merge, then merge what still waits (if anything)."""
        self.wait_merged()
        return self.merge() if self.pending else None

    def stats(self) -> StoreStats:
        return self.store.stats()

    def close(self) -> None:
        """Merge what is waiting, then close the store."""
        self.flush()
        self.store.close()

    def __enter__(self) -> RoteMemory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_SHARED: dict[Path, RoteMemory] = {}
_SHARED_LOCK = threading.Lock()


def shared_memory(path: str | Path, policy: AgePolicy | None = None, *, merge_every: int = 0) -> RoteMemory:
    """One RoteMemory per file per process, for sessions that share a memory (the server)."""
    key = Path(path).resolve()
    with _SHARED_LOCK:
        mem = _SHARED.get(key)
        if mem is None:
            mem = _SHARED[key] = RoteMemory(key, policy, merge_every=merge_every)
        return mem


# ---- self-play ----


@dataclass(frozen=True)
class SelfPlayGame:
    """One self-play game (``engine.game.GameRecord``) and what the memory did with it."""

    number: int
    game: GameRecord
    rote_hits: int
    """Leaves scored from the memory, over all the game's searches."""
    deepest: int
    """The largest effective ply of a root score in the game."""
    merge: MergeResult | None

    @property
    def plies(self) -> int:
        return self.game.plies

    @property
    def result(self) -> str:
        return self.game.result


def self_play(
    memory: RoteMemory,
    games: int,
    *,
    depth: int = 3,
    mode: Mode = Mode.SAMUEL,
    evaluator: Evaluator | None = None,
    opening_plies: int = 4,
    max_plies: int = 200,
    seed: int | None = None,
    hash_mb: int = 16,
    starts: Sequence[str] = (),
    on_move: Callable[[int, int], None] | None = None,
) -> Iterator[SelfPlayGame]:
    """Play ``games`` games of the engine against itself, saving every searched position.

    Each game starts from the standard position, or from one of ``starts`` (FENs, e.g. the
    ACF ballots) drawn at random.  The first ``opening_plies`` plies from there are random
    (so the games differ), the rest are searched to ``depth`` with the memory on; the memory
    merges after every game.  ``on_move(game, ply)`` is called after each move.  Yields each
    game's record.
    """
    rng = random.Random(seed)
    searcher = Searcher(evaluator or default(), mode=mode, hash_mb=hash_mb, rote=memory)
    limit = Limit(depth=depth)
    for number in range(1, games + 1):
        searcher.new_game()
        hits = deepest = 0
        board = Board(rng.choice(starts)) if starts else Board()

        def choose(board: Board) -> Move:
            nonlocal hits, deepest
            if len(board.move_stack) < opening_plies:
                return rng.choice(board.legal_moves)
            result = searcher.search(board, limit)
            memory.record_search(board, result)
            hits += result.info.rote_hits
            deepest = max(deepest, effective_ply(result))
            return move_to_play(board, result)

        def moved(board: Board, _move: Move, number: int = number) -> None:
            if on_move:
                on_move(number, board.ply)

        game = play_game(board, choose, max_plies=max_plies,
                         at_cap=lambda _b: ("*", f"stopped after {max_plies} plies"), on_move=moved)
        yield SelfPlayGame(number, game, hits, deepest, memory.merge())
