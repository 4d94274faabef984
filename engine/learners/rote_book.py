"""Rote learning from book games: Samuel's "many book games were also followed".

The program plays through expert games from a PDN file.  At each position of
each game it searches as it would in play (Samuel's ply rules, ``Mode.SAMUEL``,
with the rote memory probed at the leaves), saves the position with the score
its search backed up and the ply that score is worth, then plays the *book*
move, not its own, and goes on.  So the memory fills with the positions masters
reach, scored by the program's own look-ahead; as in Samuel's program, no weight
is given to the book move being the masters' choice beyond the fact that it
leads to the next position searched.

Each game is merged into the memory when it ends, in one transaction that also
notes the game (by source and number) as followed: a later run on the same file
skips the games already followed, so a run that is interrupted (Ctrl-C, or
``kill -9``) resumes where its last finished game left off.  A game that cannot
be read (an illegal move, a bad FEN tag) is skipped whole and counted.
"""

from __future__ import annotations

import hashlib
import os
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from engine.board import Board
from engine.learners.rote import RoteMemory, effective_ply
from engine.learners.rote_store import MergeResult
from engine.limits import Limit
from engine.named_evaluator import Evaluator
from engine.pdn import PdnGame, iter_games
from engine.search import Mode, Searcher

__all__ = ["BookGame", "BookRun", "book_source", "follow_book", "follow_game"]


def book_source(path: str | os.PathLike[str]) -> str:
    """The name a PDN file's games are noted under in the store: its file name and a digest of its
    contents (so a moved file keeps its progress and an edited one starts afresh)."""
    p = Path(path)
    digest = hashlib.sha1()
    with p.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return f"{p.name}:{digest.hexdigest()[:16]}"


@dataclass(frozen=True)
class BookGame:
    """One book game followed into the memory (or skipped: ``error`` says why)."""

    number: int
    """The game's 1-based number in its file."""
    plies: int = 0
    """Positions searched and saved (the book moves followed)."""
    agreed: int = 0
    """Positions where the search's own choice was the book move."""
    rote_hits: int = 0
    """Leaves scored from the memory, over the game's searches."""
    deepest: int = 0
    """The largest effective ply of a saved score."""
    merge: MergeResult | None = None
    error: str | None = None


@dataclass
class BookRun:
    """Tallies of a ``follow_book`` run, filled in as it goes."""

    source: str = ""
    selected: int = 0
    """Games chosen to follow in this run (after those already followed)."""
    followed: int = 0
    skipped: int = 0
    """Games that could not be read."""
    already: int = 0
    """Games of the file followed by an earlier run (not followed again)."""
    positions: int = 0
    agreed: int = 0
    errors: list[str] = field(default_factory=list)
    """The first few reasons games were skipped."""


def follow_game(
    searcher: Searcher,
    memory: RoteMemory,
    game: PdnGame,
    limit: Limit,
    *,
    on_move: Callable[[int], None] | None = None,
) -> tuple[int, int, int, int]:
    """Search and save every position of ``game``, playing its book moves.

    Returns (positions saved, searches that chose the book move, rote hits, deepest ply).
    The positions wait in ``memory`` for its next merge.
    """
    board = Board(game.initial_fen)
    searcher.new_game()
    agreed = hits = deepest = 0
    for n, move in enumerate(game.moves, start=1):
        result = searcher.search(board, limit)
        memory.record_search(board, result)
        agreed += result.best == move
        hits += result.info.rote_hits
        deepest = max(deepest, effective_ply(result))
        board.push(move)  # the book's move, whatever the search preferred
        if on_move is not None:
            on_move(n)
    return len(game.moves), agreed, hits, deepest


def _game_numbers(path: str | os.PathLike[str]) -> list[int]:
    """Every game number of the file (tokenized only, not replayed)."""
    numbers: list[int] = []

    def count(n: int) -> bool:
        numbers.append(n)
        return False

    for _ in iter_games(path, strict=False, select=count):
        pass
    return numbers


def follow_book(
    memory: RoteMemory,
    pdn: str | os.PathLike[str],
    evaluator: Evaluator,
    *,
    games: int | None = None,
    depth: int = 3,
    mode: Mode = Mode.SAMUEL,
    seed: int | None = None,
    resume: bool = True,
    only: Callable[[int], bool] | None = None,
    hash_mb: int = 16,
    run: BookRun | None = None,
    on_game_start: Callable[[PdnGame], None] | None = None,
    on_move: Callable[[int], None] | None = None,
) -> Iterator[BookGame]:
    """Follow the games of ``pdn`` into ``memory``; yields each game as it is merged.

    ``games``: how many to follow (default: all that are left).  They are taken in file
    order, or, with ``seed``, drawn at random (seeded) from the games not followed yet and
    then played in file order.  ``only(number)`` limits them to some games (e.g. a training
    split).  ``resume`` skips the games an earlier run noted in the store;
    without it they are followed again.  ``run`` (a ``BookRun``) is filled in as games go by.
    Raises FileNotFoundError at once when ``pdn`` is not there.
    """
    tally = run if run is not None else BookRun()
    source = book_source(pdn)
    if games == 0:
        return
    tally.source = source
    done = memory.store.book_games(source) if resume else set()
    numbers = _game_numbers(pdn)
    if only is not None:
        numbers = [n for n in numbers if only(n)]
    left = [n for n in numbers if n not in done]
    tally.already = len(numbers) - len(left)
    k = len(left) if games is None else min(games, len(left))
    chosen = set(random.Random(seed).sample(left, k) if seed is not None else left[:k])
    tally.selected = k
    if not chosen:
        return
    last = max(chosen)

    searcher = Searcher(evaluator, mode=mode, hash_mb=hash_mb, rote=memory)
    limit = Limit(depth=depth)
    try:
        for game in iter_games(pdn, strict=False, select=chosen.__contains__):
            if game.error is not None:
                tally.skipped += 1
                if len(tally.errors) < 10:
                    tally.errors.append(game.error)
                yield BookGame(game.number, error=game.error)
                if game.number >= last:
                    break
                continue
            if on_game_start is not None:
                on_game_start(game)
            plies, agreed, hits, deepest = follow_game(searcher, memory, game, limit, on_move=on_move)
            merged = memory.merge(book_games=[(source, game.number)])
            tally.followed += 1
            tally.positions += plies
            tally.agreed += agreed
            yield BookGame(game.number, plies, agreed, hits, deepest, merged)
            if game.number >= last:
                break
    finally:
        searcher.close()
