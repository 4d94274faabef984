"""Samuel's Appendix C parameters and polynomials in 704 assembly (emu704/programs/checkers.sap).

All 26 parameters of ``csrc/samuel_terms.c`` (every one that ``samuel-1959``, ``samuel-alpha``,
``samuel-rote`` or the generalization learner's 38 candidate terms read) equal the C core's on
3,000 seeded positions: random games from the start, king-rich setups played on, setups with a jump
pending for either side, and setups made to hold the patterns of the rarer parameters (bridge,
triangle, cramp, apex, the "system").  The program plays Samuel's polynomials from data words: its
static score equals the C core's ``ckr_samuel_eval`` (the modern backend's, with the position before
the last move as the parent), its search equals the modern backend's ``mode=samuel`` search, and
``backend=704 eval=...`` plays them through the option table.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest
from random_positions import fen_of, play_randomly

from engine import core, evaluators, samuel_terms
from engine.board import Board
from engine.errors import FenError
from engine.evaluators import by_name
from engine.limits import Limit
from engine.named_evaluator import Evaluator
from engine.options import OptionValues
from engine.program704 import (
    NTERMS,
    PARAMS,
    SAMUEL_SHIFT,
    Program704,
    Program704Error,
    polynomial_words,
)
from engine.search import Mode, Searcher
from engine.searchers import build_searcher
from engine.types import BLACK

SQUARES = range(1, 33)
POLYNOMIALS = ("samuel-1959", "samuel-alpha", "samuel-rote")

# Squares of the patterns some parameters look for (csrc/samuel_terms.c), Black's then White's.
PATTERNS = (
    ((1, 3), (30, 32)),                              # BACK, GUARD: the bridge
    ((2, 3, 7), (26, 30, 31)),                       # OREO, GUARD: the triangle
    ((13, 9, 14), (20, 19, 24)),                     # CRAMP: the passive side's squares
    ((17, 21, 22, 25), (8, 11, 12, 16)),             # CRAMP: the active side's
    ((7, 26), (7, 26)),                              # APEX
)


@pytest.fixture(scope="module")
def program() -> Program704:
    return Program704()



def _setup(rng: random.Random, king_share: float, *, even: bool = False) -> Board | None:
    """A random placement, at most 12 a side, each piece a king with probability ``king_share``;
    ``even``: as many of each side (MOVE looks at positions with equal material)."""
    squares = rng.sample(SQUARES, rng.randint(2, 24))
    if even:
        squares = squares[: len(squares) // 2 * 2]
    black: dict[int, bool] = {}
    white: dict[int, bool] = {}
    for i, sq in enumerate(squares):
        pieces = (black if i % 2 else white) if even else black if rng.random() < 0.5 else white
        if len(pieces) < 12:
            pieces[sq] = rng.random() < king_share
    try:
        return Board(fen_of(rng.choice("BW"), black, white))
    except FenError:
        return None


def _pieces(men: int, kings: int) -> dict[int, bool]:
    return {s: bool(kings >> (s - 1) & 1) for s in SQUARES if (men | kings) >> (s - 1) & 1}


def _with_pattern(rng: random.Random) -> Board | None:
    """A random placement overlaid with one side's squares of a pattern (men, or now and then
    kings), sometimes with the other side's active squares of CRAMP as well."""
    board = _setup(rng, 0.1)
    if board is None:
        return None
    raw = board.raw
    black = _pieces(raw.black_men, raw.black_kings)
    white = _pieces(raw.white_men, raw.white_kings)
    colour = rng.randrange(2)
    pattern = rng.choice(PATTERNS)
    own, other = (black, white) if colour == 0 else (white, black)
    for sq in pattern[colour]:
        other.pop(sq, None)
        own[sq] = rng.random() < 0.1
    if pattern is PATTERNS[2] and rng.random() < 0.7:  # the cramping side's squares too
        for sq in PATTERNS[3][colour]:
            own.pop(sq, None)
            other[sq] = False
    for pieces in (black, white):
        while len(pieces) > 12:
            pieces.pop(rng.choice([s for s in pieces if s not in pattern[colour]] or list(pieces)))
    try:
        return Board(fen_of(rng.choice("BW"), black, white))
    except FenError:
        return None



def positions(n: int, seed: int) -> list[Board]:
    """``n`` positions, a quarter of each kind: games from the start, king-rich setups played on a
    few plies (so they have a parent), setups as they are (either side may have a jump pending;
    half of them as many pieces a side), and pattern setups."""
    rng = random.Random(seed)
    out: list[Board] = []
    while len(out) < n:
        kind = len(out) % 4
        if kind == 0:
            board: Board | None = play_randomly(rng, Board(), rng.randint(0, 120))
        elif kind == 1:
            board = _setup(rng, 0.6)
            board = board and play_randomly(rng, board, rng.randint(1, 6))
        elif kind == 2:
            board = _setup(rng, 0.3, even=len(out) % 8 == 6)
        else:
            board = _with_pattern(rng)
        if board is not None:
            out.append(board)
    return out


def _jump_pending(board: Board) -> bool:
    moves = board.legal_moves
    return bool(moves) and moves[0].is_capture


def test_every_parameter_equals_the_c_core(program: Program704) -> None:
    """The 26 parameters on 3,000 positions (about 1 in 3 with a jump pending, thousands with
    kings), each parameter non-zero in enough of them to be tested, and a bad one named."""
    assert tuple(core.samuel_param_names()) == PARAMS
    boards = positions(3000, 35)
    nonzero: Counter[str] = Counter()
    cycles = 0
    for board in boards:
        found, run = program.params(board)
        want = dict(zip(PARAMS, core.samuel_params(board.raw), strict=True))
        wrong = {k: (found[k], want[k]) for k in PARAMS if found[k] != want[k]}
        assert not wrong, f"{board.fen()}: (704, C) {wrong}"
        nonzero.update(k for k in PARAMS if want[k])
        cycles += run.cycles
    pending = sum(_jump_pending(b) for b in boards)
    kings = sum(bool(b.raw.black_kings | b.raw.white_kings) for b in boards)
    assert pending > 600 and kings > 1500, (pending, kings)
    rare = {k: nonzero[k] for k in PARAMS if nonzero[k] < 30}
    assert not rare, f"parameters seldom non-zero here: {rare}"
    assert cycles / len(boards) < 20000


@pytest.mark.slow
def test_every_parameter_on_thirty_thousand_more_positions(program: Program704) -> None:
    for seed in range(100, 110):
        for board in positions(3000, seed):
            found, _ = program.params(board)
            assert list(found.values()) == core.samuel_params(board.raw), board.fen()


@pytest.mark.parametrize("name", [*POLYNOMIALS, "samuel-book-polynomial"])
def test_the_704_scores_a_polynomial_as_the_c_core_does(program: Program704, name: str) -> None:
    """The static score (Samuel's terms as differences from the position before the last move, or
    without one from the same board with the other side to move) equals ckr_samuel_eval's."""
    spec = by_name(name).spec
    program.set_polynomial(spec.weights)
    try:
        for board in positions(600, 36):
            for parent in (board.previous_raw, None):
                got = program.evaluate(board.raw, parent).value
                assert got == core.evaluate(board.raw, spec, parent), (name, board.fen(), parent)
    finally:
        program.set_polynomial(None)


def test_any_coefficients_are_sums_of_entries(program: Program704, tmp_path: Path) -> None:
    """An evaluator file of kind samuel with coefficients that are not powers of two, connectives,
    every parameter and a large PADV weight: each coefficient becomes as many entries as it has
    signed powers of two, and the score is still the C core's."""
    rng = random.Random(37)
    weights = [rng.choice((0, 1)) * rng.randint(-(2**19), 2**19) for _ in range(NTERMS)]
    weights[0] = 3 * 409600 + 7
    ev = Evaluator("odd-704", core.EvalSpec(core.EVAL_SAMUEL, weights=tuple(weights)))
    path = tmp_path / "odd-704.json"
    evaluators.save(ev, path)
    spec = evaluators.load(path).spec
    poly = polynomial_words(spec.weights)
    assert len(poly.entries) > sum(1 for w in weights if w)  # non-powers take several entries
    program.set_polynomial(spec.weights)
    try:
        for board in positions(400, 38):
            want = core.evaluate(board.raw, spec, board.previous_raw)
            assert program.evaluate(board).value == want, board.fen()
    finally:
        program.set_polynomial(None)
    assert SAMUEL_SHIFT == core.SAMUEL_SHIFT and NTERMS == core.SAMUEL_NTERMS


def test_coefficients_past_the_35_bit_word_are_refused() -> None:
    weights = list(samuel_terms.weights({"MOB": 2**30}))
    with pytest.raises(Program704Error, match="35-bit"):
        polynomial_words(weights)
    assert polynomial_words(samuel_terms.weights({"MOB": 2**18}))  # Samuel's largest is fine


def test_the_704_search_equals_the_modern_samuel_search(program: Program704) -> None:
    """Negamax under Samuel's ply rules with samuel-1959 at the leaves (the position before the last
    move as the parent, a jump left pending credited with a man): the same score as the modern
    backend's mode=samuel search at the same minimum ply."""
    ev = by_name("samuel-1959")
    program.set_polynomial(ev.spec.weights)
    modern = Searcher(ev, mode=Mode.SAMUEL, hash_mb=1)
    try:
        boards = [b for b in positions(120, 39) if b.legal_moves]
        compared = 0
        for i, board in enumerate(boards[:60]):
            depth = 2 + i % 2
            found = program.search(board, depth)
            if found.plies_to_end is not None:
                continue  # a win or loss: the backends count its distance alike, tested elsewhere
            want = modern.search(board.copy(), Limit(depth=depth)).info.score.value
            assert found.score == want, (board.fen(), depth, found.score, want)
            compared += 1
        assert compared > 40
    finally:
        program.set_polynomial(None)


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_backend_704_plays_samuels_polynomials_through_the_option_table(name: str) -> None:
    values = OptionValues(backend="704", evaluator=name)
    searcher = build_searcher(values)
    assert searcher.backend == "704" and searcher.evaluator.name == name
    board = Board()
    for move in ("11-15", "23-19", "8-11"):
        board.push(next(m for m in board.legal_moves if str(m) == move))
    mine = searcher.search(board, Limit(depth=2)).info
    modern = Searcher(by_name(name), mode=Mode.SAMUEL, hash_mb=1).search(board, Limit(depth=mine.depth)).info
    assert mine.score == modern.score


def test_backend_704_plays_an_evaluator_file_of_kind_samuel(tmp_path: Path) -> None:
    path = tmp_path / "mine.json"
    mine = samuel_terms.polynomial({"MOB": -(2**14), "DENY": 2**15, "MOC2": 2**12}, name="mine")
    evaluators.save(mine, path)
    searcher = build_searcher(OptionValues(backend="704", evaluator=str(path)))
    assert searcher.evaluator.name == "mine"
    info = searcher.search(Board(), Limit(depth=2)).info
    modern = Searcher(evaluators.load(path), mode=Mode.SAMUEL, hash_mb=1)
    assert info.score == modern.search(Board(), Limit(depth=info.depth)).info.score
    assert json.loads(path.read_text())["kind"] == "samuel"


def test_the_704s_own_polynomial_stays_its_default(program: Program704) -> None:
    """``default`` is still the program's fixed polynomial (64 a man), and switching back to it
    after a Samuel polynomial restores its scores and jump credit."""
    board = Board()
    own = program.evaluate(board).value
    program.set_polynomial(by_name("samuel-rote").spec.weights)
    assert program.centi_men_per_point == 1.0
    program.set_polynomial(None)
    assert program.evaluate(board).value == own and program.centi_men_per_point == 100 / 64
    assert board.turn == BLACK
