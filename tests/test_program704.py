"""Samuel's checkers program in 704 assembly (emu704/programs/checkers.sap), run on the emulated 704:
its perft equals the C core's from the start position and on random positions, with kings and
multiple jumps; its bad input is a named error."""

from __future__ import annotations

import random

import pytest

from engine import core
from engine.board import Board
from engine.errors import FenError
from engine.program704 import EVAL_WEIGHTS, Program704, Program704Error, board_words

START_PERFT = [1, 7, 49, 302, 1469, 7361, 36768]


@pytest.fixture(scope="module")
def program() -> Program704:
    return Program704()


def random_positions(n: int, seed: int) -> list[Board]:
    """Random placements (at most 12 a side, men on a king row crowned), either side to move."""
    rng = random.Random(seed)
    out: list[Board] = []
    while len(out) < n:
        squares = rng.sample(range(1, 33), rng.randint(2, 24))
        groups: dict[str, list[str]] = {"W": [], "B": []}
        for sq in sorted(squares):
            letter = rng.choice("bbBwwW")
            colour = letter.upper()
            if len(groups[colour]) == 12:
                continue
            king = letter.isupper() or (colour == "B" and sq >= 29) or (colour == "W" and sq <= 4)
            groups[colour].append(("K" if king else "") + str(sq))
        fen = f"{rng.choice('BW')}:W{','.join(groups['W'])}:B{','.join(groups['B'])}"
        try:
            out.append(Board(fen))
        except FenError:
            continue
    return out


def test_board_words_are_samuels() -> None:
    fa, ba, fp, bp = board_words(Board().raw)
    assert fa == sum(1 << ((s - 1) + (s - 1) // 8) for s in range(1, 13))
    assert ba == 0 and fp == 0  # no kings yet
    assert bp == sum(1 << ((s - 1) + (s - 1) // 8) for s in range(21, 33))
    white = board_words(Board("W:W21,K30:B1,K9").raw)
    assert white[0] == 1 << (29 + 29 // 8)  # White active: FA holds its kings only
    assert white[3] == 1 << (8 + 1)  # BP: Black's king on 9 (bit 9: the ghost at 8 skipped)


@pytest.mark.parametrize("depth", range(7))
def test_perft_from_the_start_equals_the_core(program: Program704, depth: int) -> None:
    run = program.perft(Board(), depth)
    assert run.value == START_PERFT[depth] == core.perft(Board().raw, depth)
    assert run.cycles > 0 and run.seconds_704 == pytest.approx(run.cycles * 12e-6)


def test_perft_on_random_positions_equals_the_core(program: Program704) -> None:
    for board in random_positions(300, 704):
        assert program.perft(board, 3).value == core.perft(board.raw, 3), board.fen()


def test_perft_after_random_games_equals_the_core(program: Program704) -> None:
    """Positions from play: crowded boards, exchanges, kings made in the game."""
    rng = random.Random(1959)
    for _ in range(20):
        board = Board()
        for _ply in range(rng.randint(10, 80)):
            moves = board.legal_moves
            if not moves:
                break
            board.push(rng.choice(moves))
            if _ply % 7 == 0:
                assert program.perft(board, 3).value == core.perft(board.raw, 3), board.fen()


@pytest.mark.slow
def test_deep_perft_and_many_positions(program: Program704) -> None:
    assert program.perft(Board(), 8).value == core.perft(Board().raw, 8)
    for board in random_positions(3000, 1):
        assert program.perft(board, 4).value == core.perft(board.raw, 4), board.fen()


def test_a_line_deeper_than_the_stack_stops_where_the_host_can_tell() -> None:
    """The stack guard (TXH FULL at DOWN), tried on a copy whose stack holds 3 plies."""
    small = Program704()
    down = small.symbols.address("DOWN")
    word = small.machine.read(down)
    decrement = (word >> 18) & 0o77777
    assert decrement == (small.max_ply - 1) * small.symbols.address("RSIZE")
    small.machine.write(down, (word & ~(0o77777 << 18)) | (2 * small.symbols.address("RSIZE")) << 18)
    with pytest.raises(Program704Error, match="deeper than the 704 program's"):
        small.perft(Board(), 5)
    assert small.perft(Board(), 2).value == 49  # shallow lines still fit, and it goes on


def test_a_runaway_is_stopped_by_the_cycle_budget(program: Program704) -> None:
    with pytest.raises(Program704Error, match="budget of 10,000 cycles"):
        program.perft(Board(), 6, max_cycles=10_000)
    assert program.perft(Board(), 2).value == 49


def test_depth_outside_the_stack_is_refused(program: Program704) -> None:
    with pytest.raises(Program704Error, match=r"perft depth must be 0\.\.115"):
        program.perft(Board(), 116)


def _bit(square: int) -> int:
    return 1 << ((square - 1) + (square - 1) // 8)


def _square(bit: int) -> int:
    i = bit.bit_length() - 1
    return i - i // 9 + 1


def _bits(word: int) -> list[int]:
    return [1 << i for i in range(35) if word >> i & 1]


STEPS = (4, 5, -4, -5)


def test_find_all_moves_gives_the_legal_first_steps(program: Program704) -> None:
    for board in [Board(), *random_positions(400, 11)]:
        sets, jumps, run = program.moves(board)
        legal = board.legal_moves
        assert jumps == any(m.is_capture for m in legal), board.fen()
        found = set()
        for word, step in zip(sets, STEPS, strict=True):
            for b in _bits(word):
                to = b << (2 * step) if step > 0 else b >> (-2 * step)
                if not jumps:
                    to = b << step if step > 0 else b >> -step
                found.add((_square(b), _square(to)))
        assert found == {(m.path[0], m.path[1]) for m in legal}, board.fen()
        assert run.cycles > 0


def test_make_a_move_equals_the_engine(program: Program704) -> None:
    for board in [Board(), *random_positions(300, 12)]:
        for move in board.legal_moves:
            words = board_words(board.raw)
            path, caps = list(move.path), list(move.captures)
            over = False
            for k in range(len(path) - 1):
                cap = _bit(caps[k]) if move.is_capture else 0
                words, over, _run = program.make(words, _bit(path[k]), _bit(path[k + 1]), cap)
                assert over == (k == len(path) - 2), (board.fen(), move)
                words = [*words]
            after = board.copy()
            after.push(move)
            # The move is over: the sides change roles, (FA, BA, FP, BP) -> (FP, BP, FA, BA).
            assert [words[2], words[3], words[0], words[1]] == board_words(after.raw), (board.fen(), move)


def test_bit_count_by_table_look_up(program: Program704) -> None:
    rng = random.Random(35)
    for word in [0, 1, (1 << 35) - 1, *(rng.getrandbits(35) for _ in range(500))]:
        assert program.count(word).value == bin(word).count("1")


INF, LOSS = 30000, -20000


QEXT = 17


TERM_NAMES = core.samuel_term_names()


def _score(board: Board) -> int:
    """EVAL_WEIGHTS over the C core's terms (no parent: the roles swapped stand in for it)."""
    terms = dict(zip(TERM_NAMES, core.samuel_terms(board.raw), strict=True))
    return sum(w * terms[name] for name, w in EVAL_WEIGHTS.items())


def reference_value(board: Board, depth: int) -> int:
    """Plain negamax over whole moves with the 704 program's rules and evaluation, written from them:
    to ``depth`` moves, then on through jumps only while one is pending (Samuel's rule), at most QEXT
    moves further; EVAL_WEIGHTS over the C terms at the leaves; no move before the minimum depth loses."""
    moves = board.legal_moves
    if depth <= 0:
        if depth <= -QEXT or not moves or not moves[0].is_capture:
            return _score(board)
    elif not moves:
        return LOSS
    best = -INF
    for m in moves:
        board.push(m)
        best = max(best, -reference_value(board, depth - 1))
        board.pop()
    return best


def test_search_score_equals_a_plain_minimax(program: Program704) -> None:
    boards = [Board(), *positions_from_play(120, 5), *random_positions(60, 6)]
    for i, board in enumerate(boards):
        depth = 4 if i < 20 else 3
        found = program.search(board, depth)
        want = reference_value(board.copy(), depth)
        assert found.score == want, (board.fen(), depth)
        if board.legal_moves:  # the best move's first step starts a move worth the score
            candidates = [m for m in board.legal_moves
                          if (m.path[0], m.path[1]) == (found.first_from, found.first_to)]
            assert candidates, (board.fen(), found)
            values = []
            for m in candidates:
                board.push(m)
                values.append(-reference_value(board, depth - 1))
                board.pop()
            assert want in values
        assert found.nodes > 0


def test_alpha_beta_cuts_the_tree(program: Program704) -> None:
    found = program.search(Board(), 5)
    walked = sum(core.perft(Board().raw, d) for d in range(6))
    assert found.nodes < walked / 2  # cut-offs at work (a full-width walk visits every node and more)
    assert found.score == reference_value(Board(), 5)


def positions_from_play(n: int, seed: int) -> list[Board]:
    rng = random.Random(seed)
    out: list[Board] = []
    while len(out) < n:
        board = Board()
        for _ in range(rng.randint(0, 70)):
            moves = board.legal_moves
            if not moves:
                break
            board.push(rng.choice(moves))
        out.append(board)
    return out


def test_samuels_parameters_equal_the_c_terms(program: Program704) -> None:
    """ADV, CENT, KCENT, MOB, DIA and DYKE computed by the 704 program equal csrc/samuel_terms.c's."""
    names = core.samuel_param_names()
    boards = [Board(), *random_positions(1500, 21), *positions_from_play(1500, 22)]
    for board in boards:
        found, run = program.params(board)
        c_values = dict(zip(names, core.samuel_params(board.raw), strict=True))
        assert found == {k: c_values[k] for k in found}, board.fen()
        assert run.cycles > 0


def test_the_704_evaluation_equals_the_c_terms_value(program: Program704) -> None:
    """32 PADV + ADV + 2 CENT + 2 KCENT - MOB, each term from the C core, on thousands of positions."""
    boards = [Board(), *random_positions(1500, 31), *positions_from_play(1500, 32)]
    nonzero = 0
    for board in boards:
        value = program.evaluate(board).value
        assert value == _score(board), board.fen()
        nonzero += value % 32 != 0  # the positional terms count, not only the material
    assert nonzero > len(boards) // 4
