"""Figures of Samuel's checkers program on the emulated 704 (emu704/programs/checkers.sap).

    .venv/bin/python scripts/bench_704.py [--positions 2000] [--perft-depth 7]

* The timing table of Samuel 1959, Appendix A, beside ours from the 704's cycle
  counter (12 microseconds a cycle): each routine's mean over random positions
  from play, timed alone: the entry's cycles less those of the load entry (the
  position read into the root record, its material counted), which every entry
  does first.  The bit count is the whole count entry (no position to load).
* Samuel's polynomials played from data words (``eval=samuel-1959``,
  ``samuel-alpha``) beside his "evaluation with 16 terms, 7.5 ms": each
  position's score with the position before the last move as its parent, both
  worked out ("cold"), and with the parent's parameters already known, as a
  leaf in the search finds them (its siblings share the parent); the 26
  parameters of the EPARAM entry; and a search with samuel-1959.
* The rote memory (issue 35) beside Appendix A's "to find score for a saved
  board position, 2.3 ms": the standard form, and a look-up (standard form
  and the binary search) in a full working part in core, half of the
  positions stored, each less the load entry; and reading the working part
  from its tape reel.
* Alpha's learning on the 704 (issue 35): a host self-play run (generalization,
  default rules) records every call Alpha's polynomial gets; each is replayed
  by the 704 program (Learner704) and timed: a correction, the nonzero count,
  the low-term tally with term replacement, the coefficients.
* Rote learning on the 704 (issue 35): saving a searched position (its standard
  form onto the pending list), a merge of a game's positions into a working part
  by Samuel's ageing rules (with and without a cull), and writing the memory to
  its tape reel.
* The whole memory on tape (issue 35): a tape-to-tape merge of 60 new positions
  into reels of 4,000, 16,000 and 53,000 positions (Samuel's size), and loading a
  working part from them, in 704 time with the tape's movement.
* The program's size beside Appendix A's (basic play 1,100 instructions, rote
  learning 1,500, learning by generalization 650): the instructions (not the
  data words, tables or blocks) of each part of checkers.sap.
* Wall speed on the C emulator: perft of the start position walked inside the
  704 program, nodes per second of host time and 704 time per node.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import core
from engine.board import Board
from engine.evaluators import by_name
from engine.program704 import (
    CYCLE_SECONDS,
    ROTE_CAPACITY,
    Program704,
    RoteEntry704,
    board_words,
    write_rote_tape,
)

SAMUEL_MS = {"find all moves": 2.6, "make a move": 1.5, "evaluate, 4 terms": 2.4, "bit count": 0.408}
SAMUEL_16_TERMS_MS = 7.5
SAMUEL_ROTE_MS = 2.3
"""Appendix A: "evaluation with 16 terms" (his polynomial: 16 of the 38 terms, and piece advantage)."""
SAMUEL_SIZES = {"basic play": 1100, "rote learning": 1500, "learning by generalization": 650}
"""Appendix A's sizes in instructions (and "statistics 700", which has no counterpart here)."""
SECTIONS = (("basic play", None), ("rote learning", "---- THE ROTE MEMORY (ISSUE 35)"),
            ("learning by generalization", "---- LEARNING BY GENERALIZATION"))
"""The parts of checkers.sap, each from the REM card that begins it (basic play from the top)."""
DATA_OPS = frozenset({"REM", "ORG", "EQU", "SYN", "BSS", "BES", "DEC", "OCT", "PZE", "MZE", "BCI", "END"})


def positions_from_play(n: int, seed: int) -> list[Board]:
    rng = random.Random(seed)
    out: list[Board] = []
    while len(out) < n:
        board = Board()
        for _ in range(rng.randint(0, 60)):
            moves = board.legal_moves
            if not moves:
                break
            board.push(rng.choice(moves))
        if board.legal_moves:
            out.append(board)
    return out


def bit(square: int) -> int:
    return 1 << ((square - 1) + (square - 1) // 8)


def polynomials(program: Program704, boards: list[Board], depth: int) -> None:
    """Samuel's polynomials on the 704 beside Appendix A's 16-term evaluation (module docstring)."""
    loads = [program.load(board).cycles for board in boards]
    load = statistics.fmean(loads)
    rows: list[tuple[str, float]] = []
    for name in ("samuel-1959", "samuel-alpha"):
        weights = by_name(name).spec.weights
        program.set_polynomial(weights)
        terms = sum(1 for w in weights[1:] if w)
        cold = [program.evaluate(board).cycles for board in boards]
        warm = [program.evaluate(board).cycles for board in boards for _ in range(2)][1::2]
        rows.append((f"{name}, {terms} terms + PADV", statistics.fmean(cold) - load))
        rows.append(("  its parent known", statistics.fmean(warm) - load))
    program.set_polynomial(None)
    rows.append(("all 26 parameters", statistics.fmean(program.params(board)[1].cycles for board in boards)))
    print(f"Samuel's polynomials as data words, mean of {len(boards)} positions (the position before the "
          "last move as the parent):")
    print(f"{'routine':30} {'Samuel 1959':>12} {'ours':>10} {'cycles':>8} {'ratio':>6}")
    for what, cycles in rows:
        ms = cycles * CYCLE_SECONDS * 1000
        if what.startswith("samuel") or what.startswith("  its"):
            print(f"{what:30} {SAMUEL_16_TERMS_MS:9.3f} ms {ms:7.3f} ms {cycles:8.1f} "
                  f"{ms / SAMUEL_16_TERMS_MS:6.2f}")
        else:
            print(f"{what:30} {'':>12} {ms:7.3f} ms {cycles:8.1f}")
    program.set_polynomial(by_name("samuel-1959").spec.weights)
    t0 = time.perf_counter()
    found = program.search(Board(), depth)
    wall = time.perf_counter() - t0
    program.set_polynomial(None)
    per_node = found.cycles / found.nodes * CYCLE_SECONDS * 1000
    print(f"search {depth} from the start with samuel-1959: {found.nodes:,} nodes in {wall * 1000:.1f} ms; "
          f"704 time {found.seconds_704:,.1f} s, {per_node:.2f} ms a node")


def rote(program: Program704, boards: list[Board]) -> None:
    """The standard form and a look-up in a full working part, half the positions stored."""
    import tempfile

    stored = {core.rote_key(b.raw) for b in boards[::2]}
    more = positions_from_play(3 * ROTE_CAPACITY, 35)
    for b in more:
        if len(stored) >= ROTE_CAPACITY:
            break
        stored.add(core.rote_key(b.raw))
    entries = [RoteEntry704(k, i % 401 - 200, 4, 8) for i, k in enumerate(sorted(stored))]
    with tempfile.TemporaryDirectory() as tmp:
        reel = Path(tmp) / "rote.tap"
        write_rote_tape(reel, entries)
        run = program.load_rote_tape(reel)
    std, hit, miss = [], [], []
    for board in boards:
        load = program.load(board).cycles
        std.append(program.standard_form(board)[1].cycles - load)
        found, look = program.rote_lookup(board)
        (hit if found else miss).append(look.cycles - load)
    print(f"the rote memory: a working part of {run.value:,} positions in core "
          f"({4 * run.value:,} words), read from tape in {run.seconds_704:.1f} s of 704 time")
    print(f"{'routine':30} {'Samuel 1959':>12} {'ours':>10} {'cycles':>8} {'ratio':>6}")
    for what, cs in (("standard form", std), ("look-up, found", hit), ("look-up, not found", miss),
                     ("look-up, all", hit + miss)):
        mean = statistics.fmean(cs)
        ms = mean * CYCLE_SECONDS * 1000
        ref = f"{SAMUEL_ROTE_MS:9.3f} ms" if what.startswith("look") else ""
        ratio = f"{ms / SAMUEL_ROTE_MS:6.2f}" if what.startswith("look") else ""
        print(f"{what:30} {ref:>12} {ms:7.3f} ms {mean:8.1f} {ratio}")
    program.set_rote(False)


def learning(games: int, depth: int) -> None:
    """704 time of Alpha's bookkeeping, replayed from a host run of ``games`` games."""
    import copy

    from engine import samuel_terms
    from engine.learners import generalize_state as gs
    from engine.learners.generalize import SelfPlay, SelfPlayConfig
    from engine.program704 import Learner704

    number = {n: i for i, n in enumerate(samuel_terms.TERM_NAMES)}
    run = SelfPlay.start(SelfPlayConfig(depth=depth, seed=0))
    start = copy.deepcopy(run.alpha)
    events: list[tuple[str, list[str], tuple[object, ...]]] = []
    saved = {n: getattr(gs.PolynomialState, n) for n in ("correct", "count_nonzero", "tally_move")}

    def recorder(name: str) -> Callable[..., object]:
        def wrapper(self: gs.PolynomialState, *args: object) -> object:
            if self is run.alpha:
                events.append((name, self.names, args))
            return saved[name](self, *args)
        return wrapper

    try:
        for name in saved:
            setattr(gs.PolynomialState, name, recorder(name))
        for _ in range(games):
            run.play_learning_game()
    finally:
        for name, f in saved.items():
            setattr(gs.PolynomialState, name, f)
    learner = Learner704(Program704())
    r = start.rules
    learner.load([(number[t.name], t.correlation, t.uses, t.tally, t.nonzero) for t in start.active],
                 [number[n] for n in start.reserve], tally_limit=r.tally_limit,
                 new_term_interval=r.new_term_interval)
    cycles: dict[str, list[int]] = {"a correction": [], "nonzero count": [], "tally (no replacement)": [],
                                    "tally and a replacement": [], "coefficients": []}
    for name, names, args in events:
        if name == "correct":
            delta, initial, values, weight = args
            cycles["a correction"].append(learner.correct(delta, initial, [values.get(n, 0) for n in names],
                                                          weight)[1].cycles)
            cycles["coefficients"].append(learner.coefficients()[1].cycles)
        elif name == "count_nonzero":
            cycles["nonzero count"].append(learner.count_nonzero([args[0].get(n, 0) for n in names]).cycles)
        else:
            swap, tr = learner.tally_move()
            cycles["tally and a replacement" if swap else "tally (no replacement)"].append(tr.cycles)
    moves = len(cycles["nonzero count"])
    print(f"Alpha's learning on the 704, replayed from {games} host games at depth {depth} "
          f"({moves} Alpha moves):")
    total = 0
    for name, cs in cycles.items():
        if cs:
            total += sum(cs)
            print(f"  {name:24} {len(cs):4} calls, {statistics.fmean(cs):7.1f} cycles = "
                  f"{statistics.fmean(cs) * CYCLE_SECONDS * 1000:6.2f} ms each")
    print(f"  all of it: {total * CYCLE_SECONDS * 1000:.1f} ms of 704 time, "
          f"{total / max(moves, 1) * CYCLE_SECONDS * 1000:.2f} ms an Alpha move")


def rote_learning(boards: list[Board]) -> None:
    """Saving, merging and writing the memory on the 704 (engine.learners.rote_704)."""
    import tempfile

    from engine.learners.rote_704 import MAX_POSITIONS, RoteLearning704
    from engine.learners.rote_store import AgePolicy

    program = Program704()
    learner = RoteLearning704(program, AgePolicy(max_age=126, max_positions=MAX_POSITIONS))
    saves: list[int] = []
    merges: list[tuple[int, int, int]] = []  # (cycles, positions before, positions merged)
    rng = random.Random(35)
    for start in range(0, len(boards), 60):  # a game's worth of positions a merge
        batch = boards[start:start + 60]
        for board in batch:
            saves.append(learner.save(board, rng.randint(-300, 300), rng.randint(2, 8)).cycles)
        before = len(learner.entries())
        merged = learner.merge()
        merges.append((merged.cycles, before, len(batch)))
    with tempfile.TemporaryDirectory() as tmp:
        write = learner.write_reel(Path(tmp) / "memory.tap")
    plain = [c for c, before, _ in merges if before + 60 <= MAX_POSITIONS]
    culls = [c for c, before, _ in merges if before + 60 > MAX_POSITIONS]
    print(f"rote learning on the 704: {len(saves):,} positions saved, merged 60 at a time "
          f"into a memory of up to {MAX_POSITIONS:,}")
    print(f"  a save (standard form onto the pending list): {statistics.fmean(saves):,.0f} cycles = "
          f"{statistics.fmean(saves) * CYCLE_SECONDS * 1000:.2f} ms")
    if plain:
        print(f"  a merge of 60 (ageing every position): mean {statistics.fmean(plain):,.0f} cycles = "
              f"{statistics.fmean(plain) * CYCLE_SECONDS:.2f} s over {len(plain)} merges; the last, into "
              f"{merges[len(plain) - 1][1]:,} positions, {plain[-1] * CYCLE_SECONDS:.2f} s")
    if culls:
        mean = statistics.fmean(culls)
        print(f"  a merge that culls (plies and ages counted, three passes): mean {mean:,.0f} cycles = "
              f"{mean * CYCLE_SECONDS:.1f} s over {len(culls)} merges")
    print(f"  writing the memory to tape ({write.value:,} positions, {4 * write.value:,} words): "
          f"{write.cycles * CYCLE_SECONDS:.1f} s")


def rote_tape(sizes: tuple[int, ...] = (4_000, 16_000, 53_000)) -> None:
    """The whole memory on tape (RoteTape704): a merge of 60 new positions into reels of ``sizes``
    positions (Samuel's was some 53,000), and loading a working part from them, tape time included."""
    import tempfile

    from engine.learners.rote_704 import RoteTape704
    from engine.learners.rote_store import AgePolicy

    rng = random.Random(53)
    keys: set[tuple[int, int, int]] = set()
    while len(keys) < max(sizes) + 60:
        for board in positions_from_play(2000, rng.randrange(1 << 30)):
            keys.add(core.rote_key(board.raw))
    ordered = sorted(keys)
    rng.shuffle(ordered)
    fresh = positions_from_play(4000, 5)
    print("the whole memory on tape: a merge of 60 new positions (reel 1 read, reel 2 written), and the "
          "working part loaded for 24 pieces")
    print(f"{'positions on tape':>18} {'merge (704 time)':>17} {'load (704 time)':>16} {'words read':>11}")
    for size in sizes:
        entries = [RoteEntry704(k, rng.randint(-300, 300), rng.randint(2, 8), rng.randint(0, 20))
                   for k in ordered[:size]]
        with tempfile.TemporaryDirectory() as tmp:
            reel = Path(tmp) / "memory.tap"
            write_rote_tape(reel, entries, limit=None)
            tape = RoteTape704(Program704(), reel, AgePolicy(max_age=60))
            seen = 0
            for board in fresh:
                if seen == 60:
                    break
                if core.rote_key(board.raw) not in keys:
                    tape.save(board, 10, 3)
                    seen += 1
            merged = tape.merge()
            _, _, load = tape.load_for(24, merged.by_pieces)
        print(f"{size:>18,} {merged.cycles * CYCLE_SECONDS:>15.1f} s {load.cycles * CYCLE_SECONDS:>14.1f} s "
              f"{4 * size:>11,}")


def program_sizes() -> None:
    """Instructions in each part of checkers.sap beside Appendix A's sizes."""
    source = Path(__file__).resolve().parent.parent / "emu704" / "programs" / "checkers.sap"
    lines = source.read_text().splitlines()
    starts = [0] + [next(i for i, line in enumerate(lines) if marker in line) for _, marker in SECTIONS[1:]]
    ends = [*starts[1:], len(lines)]
    print(f"the program's size (instructions, not data words or tables; {source.name}):")
    print(f"{'part':28} {'Samuel 1959':>12} {'ours':>6} {'data words':>11}")
    for (name, _), a, b in zip(SECTIONS, starts, ends, strict=True):
        ops = [line[7:].split()[0] for line in lines[a:b]
               if len(line) > 7 and not line.startswith("*") and line[7:].split()]
        code = sum(op not in DATA_OPS for op in ops)
        data = sum(op in ("DEC", "OCT", "PZE", "MZE") for op in ops)
        print(f"{name:28} {SAMUEL_SIZES[name]:12,} {code:6,} {data:11,}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--positions", type=int, default=2000)
    p.add_argument("--perft-depth", type=int, default=7)
    p.add_argument("--search-depth", type=int, default=10)
    p.add_argument("--search-depth-samuel", type=int, default=4)
    p.add_argument("--learn-games", type=int, default=2)
    args = p.parse_args()
    program = Program704()
    boards = positions_from_play(args.positions, 1959)

    cycles: dict[str, list[int]] = {k: [] for k in SAMUEL_MS}
    rng = random.Random(704)
    for board in boards:
        load = program.load(board).cycles
        cycles["find all moves"].append(program.moves(board)[2].cycles - load)
        move = rng.choice(board.legal_moves)
        cap = bit(move.captures[0]) if move.is_capture else 0
        cycles["make a move"].append(program.make(board_words(board.raw), bit(move.path[0]),
                                                  bit(move.path[1]), cap)[2].cycles - load)
        cycles["evaluate, 4 terms"].append(program.evaluate(board).cycles - load)
        cycles["bit count"].append(program.count(rng.getrandbits(35)).cycles)
    print(f"704 time per routine, mean of {len(boards)} positions from random play (12 us a cycle):")
    print(f"{'routine':18} {'Samuel 1959':>12} {'ours':>10} {'cycles':>8} {'ratio':>6}")
    for name, cs in cycles.items():
        mean = statistics.fmean(cs)
        ms = mean * CYCLE_SECONDS * 1000
        print(f"{name:18} {SAMUEL_MS[name]:9.3f} ms {ms:7.3f} ms {mean:8.1f} {ms / SAMUEL_MS[name]:6.2f}")

    polynomials(program, boards, args.search_depth_samuel)
    rote(program, boards)
    learning(args.learn_games, args.search_depth_samuel)
    rote_learning(positions_from_play(6000, 704))
    rote_tape()
    program_sizes()

    board = Board()
    t0 = time.perf_counter()
    run = program.perft(board, args.perft_depth)
    wall = time.perf_counter() - t0
    assert run.value == core.perft(board.raw, args.perft_depth)
    # Nodes walked: every position the walk entered, interior and leaves.
    nodes = sum(core.perft(board.raw, d) for d in range(args.perft_depth + 1))
    print(f"perft {args.perft_depth} from the start inside the 704 program: {run.value:,} leaves, "
          f"{nodes:,} nodes in {wall * 1000:.1f} ms of host time: {nodes / wall / 1e6:.2f} M nodes/s, "
          f"{wall / nodes * 1e6:.3f} us a node")
    print(f"704 time: {run.seconds_704:,.1f} s, {run.cycles / nodes:.0f} cycles = "
          f"{run.cycles / nodes * CYCLE_SECONDS * 1000:.2f} ms a node, {run.instructions:,} instructions "
          f"({run.instructions / wall / 1e6:.0f} M instructions/s)")
    t0 = time.perf_counter()
    found = program.search(board, args.search_depth)
    wall = time.perf_counter() - t0
    print(f"search {args.search_depth} from the start inside the 704 program "
          f"(Samuel's ply rules, alpha-beta): "
          f"{found.nodes:,} nodes in {wall * 1000:.1f} ms: {found.nodes / wall / 1e6:.2f} M nodes/s; "
          f"704 time {found.seconds_704:,.1f} s, {found.cycles / found.nodes * CYCLE_SECONDS * 1000:.2f} ms "
          f"a node")
    return 0


if __name__ == "__main__":
    sys.exit(main())
