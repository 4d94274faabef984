"""Samuel's rote learning done by the 704 program: saving positions, merging them with his ageing
rules, and writing the memory back to tape.

The host's rote store (``engine.learners.rote_store``) keeps Samuel's rules: a merge ages every
position by one, a position seen again or used by a search has its age halved, the too old are
forgotten and, past the memory's size, the lowest plies culled.  Here the 704 program does the same
to its working part in core ("rote learning on the 704" in ``emu704/programs/checkers.sap``):
``save`` puts a searched position, its score and ply on the program's pending list (the program
works out the standard form itself), ``merge`` merges them in by those rules, and ``write_reel``
has the program write its memory to binary tape 1, a SIMH ``.tap`` that ``Program704.load_rote_tape``
(or ``RoteReel``) reads in the next run.  ``self_play_704`` is ``samuel learn rote play --backend 704``:
games of the program against itself, learning by rote on the machine.  The same positions, scores
and searches' uses give the same memory as the host's store: positions, scores, plies and ages
(tests/test_rote_learning704.py).

The working part is the whole memory here, so it stays within the program's 4,000 positions: a
merge may take in up to ``PENDING_CAPACITY`` positions, so the memory is culled at
``MAX_POSITIONS`` (a policy asking for more is held to it, said by ``held_policy``).
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from engine.board import Board
from engine.evaluators import Evaluator
from engine.game import GameRecord, play_game
from engine.learners.rote_store import AgePolicy
from engine.limits import Limit
from engine.move import Move
from engine.program704 import (
    CYCLE_SECONDS,
    DEFAULT_BUDGET,
    ROTE_CAPACITY,
    ROTE_MAX_AGE,
    Program704,
    Program704Error,
    RoteEntry704,
    Run704,
    board_words,
    colour_word,
)

PENDING_CAPACITY = 150
"""Positions the program's pending list holds between merges (``RPCAP``)."""
MAX_POSITIONS = ROTE_CAPACITY - PENDING_CAPACITY
"""The most positions a merge leaves, so that the next one's new positions fit the working part."""
LEARN_SYMBOLS = ("ERSAV", "ERMRG", "ERTWR", "IRSC", "IRPLY", "ORPN", "ORTN", "ONEW", "OFORG", "OCULL",
                 "RAINI", "RAMAX", "RPMAX", "RCTGT", "RPN", "RSFULL", "RMFULL")
"""The words of the program's rote learning; a deck of one's own without them cannot learn by rote."""


@dataclass(frozen=True)
class Merge704:
    """What one merge on the 704 did, and its cost."""

    added: int
    forgotten: int
    culled: int
    total: int
    cycles: int


def held_policy(policy: AgePolicy) -> AgePolicy:
    """``policy`` as the program can keep it: at most MAX_POSITIONS positions (culled to the same
    fraction), ages up to ROTE_MAX_AGE - 1."""
    if not 0 <= policy.initial_age <= policy.max_age < ROTE_MAX_AGE:
        raise Program704Error(f"ages {policy.initial_age} (new) and {policy.max_age} (most): the 704 program "
                              f"keeps ages 0-{ROTE_MAX_AGE - 1}, a new one no older than the most")
    if policy.max_positions > MAX_POSITIONS:
        return replace(policy, max_positions=MAX_POSITIONS)
    return policy


class RoteLearning704:
    """The 704 program's rote learning on ``program`` (its working part is the memory)."""

    def __init__(self, program: Program704, policy: AgePolicy | None = None) -> None:
        from emu704.host_call import HostCall

        missing = [n for n in LEARN_SYMBOLS if n not in program.symbols.symbols]
        if missing or not program.has_rote:
            raise Program704Error("this 704 deck has no rote learning (no "
                                  + ", ".join(missing or ["RT"]) + ")")
        self.program = program
        self.policy = held_policy(policy or AgePolicy())
        a = program.symbols.address
        self._a = a
        m, ret = program.machine, a("RETURN")
        board_in = [a(n) for n in ("IFA", "IBA", "IFP", "IBP", "ICOL", "IRSC", "IRPLY")]
        self._save = (HostCall(m, board_in, [a("ORPN")], ret), a("ERSAV"))
        self._merge = (HostCall(m, [], [a(n) for n in ("ORTN", "ONEW", "OFORG", "OCULL")], ret), a("ERMRG"))

    @property
    def pending(self) -> int:
        """Positions saved since the last merge."""
        return self.program.machine.mem[self._a("RPN")]

    def save(self, board: Board, score: int, ply: int) -> Run704:
        """Put ``board``'s position on the pending list with its score (the program's units, for the
        side to move) and ply; merged at the next ``merge``.  A full list is refused by name."""
        if abs(score) >= 1 << 15 or not 0 <= ply <= 255:
            raise Program704Error(f"a rote score of {score} or ply of {ply} does not fit the program's "
                                  "V word")
        if self.pending >= PENDING_CAPACITY:
            raise Program704Error(f"the 704 program's pending list is full ({PENDING_CAPACITY} positions): "
                                  "merge first")
        raw = board.raw
        sign = 1 << 35 if score < 0 else 0
        words = [*board_words(raw), colour_word(raw), sign | abs(score), ply]
        return self.program._run(self._save, words, DEFAULT_BUDGET, "saving a rote position")

    def merge(self) -> Merge704:
        """Merge the pending positions into the working part by Samuel's rules (the policy's ages and
        size), as the host store's ``merge`` does."""
        p = self.policy
        mem, a = self.program.machine.mem, self._a
        mem[a("RAINI")] = p.initial_age
        mem[a("RAMAX")] = p.max_age
        mem[a("RPMAX")] = p.max_positions
        mem[a("RCTGT")] = int(p.max_positions * p.cull_to)
        run = self.program._run(self._merge, [], DEFAULT_BUDGET, "merging the rote memory")
        total, added, forgotten, culled = self._merge[0].outputs
        mem[a("ROTEON")] = 1 if total else 0
        return Merge704(added, forgotten, culled, total, run.cycles)

    def entries(self) -> list[RoteEntry704]:
        """The memory as it is in core, in key order."""
        return self.program.rote_entries()

    def write_reel(self, path: str | os.PathLike[str]) -> Run704:
        """Have the program write its memory to tape ROTE_TAPE_UNIT, a new reel at ``path`` (RTWR):
        records of 100 words and a tape mark, what ``load_rote_tape`` reads."""
        return self.program.run_with_tape("ERTWR", path, write=True)


@dataclass(frozen=True)
class Game704:
    """One self-play game on the 704 and what its memory did with it."""

    number: int
    game: GameRecord
    rote_hits: int
    """Leaves the program scored from its memory, over the game's searches."""
    merge: Merge704
    seconds_704: float
    """The 704 time of the game's searches, its saves and its merge."""


def self_play_704(
    reel: str | os.PathLike[str],
    games: int,
    *,
    depth: int = 3,
    evaluator: Evaluator | None = None,
    policy: AgePolicy | None = None,
    opening_plies: int = 4,
    max_plies: int = 200,
    seed: int | None = None,
    on_move: Callable[[int, int], None] | None = None,
) -> Iterator[Game704]:
    """Samuel's rote learning on the 704: ``games`` games of the program against itself, every searched
    position saved by the program with its score and minimum ply and merged by it after each game,
    the memory read from ``reel`` first (when it exists) and written back to it at the end.  The
    first ``opening_plies`` plies of a game are random (seeded), so games differ.  Yields each game."""
    from engine.backend704 import OWN_EVALUATOR, Searcher704, program_rote_score

    searcher = Searcher704()
    searcher.set_evaluator(evaluator or OWN_EVALUATOR)
    program = searcher.program
    learner = RoteLearning704(program, policy)
    path = Path(reel)
    if path.exists():
        program.load_rote_tape(path)
    rng = random.Random(seed)
    limit = Limit(depth=depth)
    try:
        for number in range(1, games + 1):
            hits, seconds = 0, 0.0

            def choose(board: Board) -> Move:
                nonlocal hits, seconds
                if len(board.move_stack) < opening_plies:
                    return rng.choice(board.legal_moves)
                if learner.pending >= PENDING_CAPACITY:
                    seconds += learner.merge().cycles * CYCLE_SECONDS
                result = searcher.search(board, limit)
                info = result.info
                hits += info.rote_hits
                score = program_rote_score(info.score.value, program.centi_men_per_point)
                saved = learner.save(board, score, min(info.depth, 255))
                seconds += info.machine_time + saved.cycles * CYCLE_SECONDS
                return result.best if result.best is not None else board.legal_moves[0]

            def moved(board: Board, _move: Move, number: int = number) -> None:
                if on_move:
                    on_move(number, board.ply)

            game = play_game(Board(), choose, max_plies=max_plies,
                             at_cap=lambda _b: ("*", f"stopped after {max_plies} plies"), on_move=moved)
            merged = learner.merge()
            yield Game704(number, game, hits, merged, seconds + merged.cycles * CYCLE_SECONDS)
    finally:
        learner.write_reel(path)
