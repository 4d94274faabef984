"""The bench: fixed positions searched to a fixed depth, whose total node count is the engine's
signature (any change to search or evaluation shows in it), and the speed figures beside it."""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field

from engine import core
from engine.board import Board
from engine.evaluators import by_name
from engine.fen import START_FEN
from engine.limits import Limit
from engine.search import Mode, Searcher, SearchInfo

BENCH_POSITIONS: tuple[str, ...] = (
    START_FEN,
    # ACF ballots 1, 19, 59, 99 and 139, after their three moves
    "W:W17,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,6,7,8,9,10,11,12,13",
    "W:W19,21,22,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,7,8,9,10,11,12,13",
    "W:W17,21,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,8,9,10,11,12,14",
    "W:W18,21,22,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,8,9,10,11,12,15",
    "W:W17,21,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,8,9,10,11,12,16",
    # middlegame, endgame and king positions
    "B:W18,19,21,23,24,26,29,30,31,32:B1,2,3,5,6,7,9,10,12,14",
    "W:W14,19,22,25,27,28,30:B3,6,7,9,11,15,20",
    "B:WK10,22,27,28:B5,K19,K20,12",
    "W:WK3,K12,25,29:BK14,K18,K24,16",
    "B:W27,28,30,32:B1,3,5,7",
    "W:WK1,K5,K32:BK9,K19",
)



def perft_speed(depth: int) -> tuple[int, float]:
    board = Board()
    start = time.perf_counter()
    n = core.perft(board.raw, depth, bulk=True)
    return n, time.perf_counter() - start


@dataclass
class BenchProfile:
    """What the fixed-depth bench searches measured: the signature, time, and how the search spent
    its nodes (effective branching factor, move ordering, transposition table)."""

    nodes: int = 0
    seconds: float = 0.0
    iteration_nodes: list[list[int]] = field(default_factory=list)
    """Per position, the nodes of each iteration (depth 1, 2, ...) of its iterative deepening."""
    tt_hits: int = 0
    tt_probes: int = 0
    cutoffs: int = 0
    first_cutoffs: int = 0
    pvs: core.PvsStats = field(default_factory=core.PvsStats)
    """Re-searches and table stores, summed over the positions."""

    def branching_factor(self, span: int = 4) -> float:
        """Effective branching factor: the geometric mean over positions of
        (nodes of the last iteration / nodes of the iteration ``span`` plies before) ** (1 / span)."""
        logs = []
        for costs in self.iteration_nodes:
            if len(costs) > span and costs[-1] > 0 and costs[-1 - span] > 0:
                logs.append(math.log(costs[-1] / costs[-1 - span]) / span)
        return math.exp(sum(logs) / len(logs)) if logs else 0.0

    @property
    def first_cut_rate(self) -> float:
        return self.first_cutoffs / self.cutoffs if self.cutoffs else 0.0

    @property
    def tt_hit_rate(self) -> float:
        return self.tt_hits / self.tt_probes if self.tt_probes else 0.0

    @property
    def start_iterations(self) -> list[int]:
        """The start position's nodes per iteration (depth 1, 2, ...): where the plies go."""
        return self.iteration_nodes[0] if self.iteration_nodes else []


def share(part: int, whole: int) -> float:
    """``part / whole``, 0.0 when ``whole`` is 0."""
    return part / whole if whole else 0.0


def profile(depth: int, evaluator: str = "default", hash_mb: int = 64, mtdf: bool = False) -> BenchProfile:
    """The fixed-depth bench searches (a cleared table before each position), measured."""
    searcher = Searcher(by_name(evaluator), mode=Mode.PVS, hash_mb=hash_mb, mtdf=mtdf)
    out = BenchProfile()
    for fen in BENCH_POSITIONS:
        searcher.new_game()
        seen: dict[int, int] = {}

        def note(i: SearchInfo, seen: dict[int, int] = seen) -> None:
            seen[i.depth] = i.nodes

        start = time.perf_counter()
        result = searcher.search(Board(fen), Limit(depth=depth), on_info=note)
        out.seconds += time.perf_counter() - start
        info = result.info
        out.nodes += info.nodes
        totals = [seen[d] for d in sorted(seen)]
        out.iteration_nodes.append([b - a for a, b in zip([0, *totals], totals, strict=False)])
        out.tt_hits += info.tt_hits
        out.tt_probes += info.tt_probes
        out.cutoffs += info.cutoffs
        out.first_cutoffs += info.first_cutoffs
        out.pvs = out.pvs + info.pvs
    return out


def signature(
    depth: int, evaluator: str = "default", hash_mb: int = 64, mtdf: bool = False
) -> tuple[int, float]:
    """Total nodes (the signature) and seconds for the fixed-depth bench searches."""
    p = profile(depth, evaluator, hash_mb, mtdf)
    return p.nodes, p.seconds


def depth_times(seconds: float, evaluator: str = "default", hash_mb: int = 64,
                mtdf: bool = False) -> list[tuple[int, float, int]]:
    """(depth, seconds, nodes) of each iteration completed within ``seconds`` from the start position."""
    searcher = Searcher(by_name(evaluator), hash_mb=hash_mb, mtdf=mtdf)
    rows: list[tuple[int, float, int]] = []
    searcher.search(Board(), Limit(movetime=seconds),
                    on_info=lambda i: rows.append((i.depth, i.time, i.nodes)))
    best: dict[int, tuple[int, float, int]] = {}
    for row in rows:  # one row per depth: the iteration's last report
        best[row[0]] = row
    return [best[d] for d in sorted(best)]


def random_positions(n: int, seed: int, max_plies: int = 60) -> list[Board]:
    """``n`` positions, each after 0..``max_plies`` random moves from the start, none finished:
    the same list for the same arguments, so speed figures of different builds compare."""
    rng = random.Random(seed)
    out: list[Board] = []
    while len(out) < n:
        board = Board()
        for _ in range(rng.randint(0, max_plies)):
            if not board.legal_moves:
                break
            board.push(rng.choice(board.legal_moves))
        if board.legal_moves:
            out.append(board)
    return out
