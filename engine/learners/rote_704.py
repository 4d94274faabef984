"""Samuel's rote learning done by the 704 program: saving positions, merging them with his ageing
rules, the whole memory on tape and the working part in core.

The host's rote store (``engine.learners.rote_store``) keeps Samuel's rules: a merge ages every
position by one, a position seen again or used by a search has its age halved, the too old are
forgotten and, past the memory's size, the lowest plies culled.  Here the 704 program does the same
("rote learning on the 704" and "the whole memory on tape" in ``emu704/programs/checkers.sap``):

* ``RoteTape704`` is Samuel's arrangement: the whole memory on a tape reel in key order, of any size,
  merged tape to tape (ETMRG: the pending positions sorted and folded, reel 1 read and reel 2
  written, the culled copied back), and the working part in core loaded from it by piece count (ETLW).
  ``self_play_704`` is ``samuel learn rote play --backend 704`` with it.
* ``RoteLearning704`` saves positions (ERSAV: the program works out the standard form itself) and can
  merge them into the working part alone, in core (ERMRG: for a memory of at most MAX_POSITIONS), and
  write that out (ERTWR).

The same positions, scores and searches' uses give the same memory as the host's store: positions,
scores, plies and ages (tests/test_rote_learning704.py).
"""

from __future__ import annotations

import os
import random
import shutil
from collections.abc import Callable, Iterator, Sequence
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

PENDING_CAPACITY = 70
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
    merge: TapeMerge704
    seconds_704: float
    """The 704 time of the game's searches, its saves, its loads of the working part and its merges."""


TAPE_SYMBOLS = ("ETMRG", "ETLW", "ETCT", "OWHER", "OPCB", "IPLO", "IPHI")
"""The words of the whole memory on tape; a deck of one's own without them keeps it in core only."""
MAX_PIECES = 24


@dataclass(frozen=True)
class TapeMerge704:
    """What one merge of the whole memory on tape did: its counts, the positions by number of pieces
    after it, and its 704 time (tape movement included)."""

    added: int
    forgotten: int
    culled: int
    total: int
    by_pieces: tuple[int, ...]
    """Positions with 0 ... 24 pieces."""
    cycles: int


class RoteTape704:
    """Samuel's arrangement: the whole memory on a tape reel (any size, in key order), merged tape to
    tape by the program with his rules (ETMRG: the pending positions sorted and folded, the reel read
    on tape 1 and the new one written on tape 2, the culled copied back), and the working part in core
    loaded from it by piece count (ETLW) for the game's stage.  ``reel`` is the memory; a merge reads a
    copy of it and writes a scratch reel beside it, and the one that holds the new memory replaces it,
    so a merge cut short leaves the reel as it was."""

    def __init__(self, program: Program704, reel: str | os.PathLike[str],
                 policy: AgePolicy | None = None) -> None:
        missing = [n for n in TAPE_SYMBOLS if n not in program.symbols.symbols]
        if missing:
            raise Program704Error("this 704 deck has no memory on tape (no " + ", ".join(missing) + ")")
        self.learner = RoteLearning704(program, policy)  # its saves; it refuses ages the V word cannot hold
        self.program = program
        self.policy = policy or AgePolicy()  # the tape holds any number: no cap from the working part
        self.reel = Path(reel)
        self.scratch = self.reel.with_name(self.reel.name + ".merge.tap")
        if not self.reel.exists():  # an empty memory: a reel with only its tape mark
            from engine.program704 import write_rote_tape

            write_rote_tape(self.reel, [])
        self.window: tuple[int, int] | None = None

    def save(self, board: Board, score: int, ply: int) -> Run704:
        return self.learner.save(board, score, ply)

    @property
    def pending(self) -> int:
        return self.learner.pending

    def _by_pieces(self) -> tuple[int, ...]:
        mem, a = self.program.machine.mem, self.program.symbols.address
        return tuple(mem[a("OPCB") - n] for n in range(MAX_PIECES + 1))

    def count(self) -> tuple[int, ...]:
        """The memory's positions by number of pieces, counted by the program reading the reel (ETCT)."""
        self.program.run_with_tape("ETCT", self.reel, write=False)
        return self._by_pieces()

    def merge(self) -> TapeMerge704:
        """Merge the pending positions into the reel by Samuel's rules (ETMRG); the working part's used
        marks refresh the positions the searches took.  The working part is not reloaded here."""
        p = self.policy
        mem, a = self.program.machine.mem, self.program.symbols.address
        mem[a("RAINI")], mem[a("RAMAX")] = p.initial_age, p.max_age
        mem[a("RPMAX")], mem[a("RCTGT")] = p.max_positions, int(p.max_positions * p.cull_to)
        # Tape 1 is a copy: a cull writes back onto it, and the reel must survive a merge cut short.
        source = self.reel.with_name(self.reel.name + ".merge-in.tap")
        shutil.copyfile(self.reel, source)
        self.scratch.unlink(missing_ok=True)
        try:
            run = self.program.run_with_tapes("ETMRG", [(1, source, True), (2, self.scratch, True)])
            result, spare = (self.scratch, source) if mem[a("OWHER")] == 2 else (source, self.scratch)
            os.replace(result, self.reel)
            spare.unlink(missing_ok=True)
        finally:
            source.unlink(missing_ok=True)
            self.scratch.unlink(missing_ok=True)
        self.window = None
        return TapeMerge704(mem[a("ONEW")], mem[a("OFORG")], mem[a("OCULL")], mem[a("ORTN")],
                            self._by_pieces(), run.cycles)

    def load_for(self, pieces: int, by_pieces: Sequence[int] | None = None) -> tuple[int, int, Run704]:
        """Load the working part for a position of ``pieces`` pieces: the positions of ``pieces`` down to
        as few as the working part holds (the search meets no more pieces than the board has, and the
        fewer the farther ahead).  Returns the window (fewest, most) and the run (ETLW)."""
        counts = list(by_pieces) if by_pieces is not None else list(self.count())
        high = max(0, min(int(pieces), MAX_PIECES))
        low, held = high, counts[high]
        while low > 0 and held + counts[low - 1] <= ROTE_CAPACITY:
            low -= 1
            held += counts[low]
        if held > ROTE_CAPACITY:  # one piece count alone overfills it: its first positions
            raise Program704Error(f"{held:,} positions of {high} pieces: more than the working part holds "
                                  f"({ROTE_CAPACITY:,})")
        mem, a = self.program.machine.mem, self.program.symbols.address
        mem[a("IPLO")], mem[a("IPHI")] = low, high
        run = self.program.run_with_tape("ETLW", self.reel, write=False)
        self.window = (low, high)
        return low, high, run


def _pieces(board: Board) -> int:
    raw = board.raw
    return bin(raw.black_men | raw.black_kings | raw.white_men | raw.white_kings).count("1")


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
    """Samuel's rote learning on the 704: ``games`` games of the program against itself.  The whole
    memory is the reel (``RoteTape704``, made empty if new); the working part in core is loaded from it
    for the board's number of pieces, again when the game gets below it.  Every searched position is
    saved by the program with its score and minimum ply and merged tape to tape after each game (and
    when the pending list fills).  The first ``opening_plies`` plies of a game are random (seeded), so
    games differ.  Yields each game."""
    from engine.backend704 import OWN_EVALUATOR, Searcher704, program_rote_score

    searcher = Searcher704()
    searcher.set_evaluator(evaluator or OWN_EVALUATOR)
    program = searcher.program
    tape = RoteTape704(program, reel, policy)
    counts = tape.count()
    rng = random.Random(seed)
    limit = Limit(depth=depth)
    for number in range(1, games + 1):
        hits, seconds = 0, 0.0

        def choose(board: Board) -> Move:
            nonlocal hits, seconds, counts
            if len(board.move_stack) < opening_plies:
                return rng.choice(board.legal_moves)
            if tape.pending >= PENDING_CAPACITY:
                merged = tape.merge()
                counts = merged.by_pieces
                seconds += merged.cycles * CYCLE_SECONDS
            pieces = _pieces(board)
            if tape.window is None or pieces < tape.window[0]:
                seconds += tape.load_for(pieces, counts)[2].cycles * CYCLE_SECONDS
            result = searcher.search(board, limit)
            info = result.info
            hits += info.rote_hits
            score = program_rote_score(info.score.value, program.centi_men_per_point)
            saved = tape.save(board, score, min(info.depth, 255))
            seconds += info.machine_time + saved.cycles * CYCLE_SECONDS
            return result.best if result.best is not None else board.legal_moves[0]

        def moved(board: Board, _move: Move, number: int = number) -> None:
            if on_move:
                on_move(number, board.ply)

        game = play_game(Board(), choose, max_plies=max_plies,
                         at_cap=lambda _b: ("*", f"stopped after {max_plies} plies"), on_move=moved)
        merged = tape.merge()
        counts = merged.by_pieces
        yield Game704(number, game, hits, merged, seconds + merged.cycles * CYCLE_SECONDS)
