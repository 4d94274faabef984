"""Samuel's checkers program in 704 assembly (emu704/programs/checkers.sap), run on the emulated 704:
its perft equals the C core's from the start position and on random positions, with kings and
multiple jumps; its bad input is a named error."""

from __future__ import annotations

import random

import pytest

from engine import core
from engine.board import Board
from engine.errors import FenError
from engine.move import Move
from engine.program704 import (
    EVAL_WEIGHTS,
    JUMP_CREDIT,
    PV_MAX,
    SAMUEL_BREAKS,
    Program704,
    Program704Error,
    board_words,
    line_moves,
    plies_to_end,
)
from engine.types import BLACK

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


TERM_NAMES = core.samuel_term_names()


def _score(board: Board) -> int:
    """EVAL_WEIGHTS over the C core's terms (no parent: the roles swapped stand in for it)."""
    terms = dict(zip(TERM_NAMES, core.samuel_terms(board.raw), strict=True))
    return sum(w * terms[name] for name, w in EVAL_WEIGHTS.items())


def _material(board: Board) -> int:
    """Men 2 and kings 3, the side to move minus the other."""
    r = board.raw
    black = 2 * bin(r.black_men).count("1") + 3 * bin(r.black_kings).count("1")
    white = 2 * bin(r.white_men).count("1") + 3 * bin(r.white_kings).count("1")
    return black - white if r.turn == BLACK else white - black


def _offer(board: Board, moves: list[Move]) -> bool:
    """An exchange offer: some ordinary move leaves the other side a jump."""
    for m in moves:
        board.push(m)
        reply = board.legal_moves
        board.pop()
        if reply and reply[0].is_capture:
            return True
    return False


def samuel_value(board: Board, min_ply: int, breaks: tuple[int, int, int, int] = SAMUEL_BREAKS,
                 ply: int = 0, last_jump: bool = False, alpha: int = -INF, beta: int = INF) -> int:
    """Plain negamax over whole moves with Samuel's 1959 ply rules, written from his text: always to
    the minimum ply; there, evaluate unless the next move is a jump, the last move was a jump or an
    exchange offer is possible; from the first break point, unless a jump or an exchange offer; from
    the second, unless a jump; from the third, also when a side is more than two kings ahead; at the
    last, whatever is pending, a pending jump credited with a man.  No move is a loss at any ply,
    LOSS + ply (a win or loss carries its distance).
    Alpha-beta (fail-hard) only to keep it quick: the value at the root is the minimax value."""
    b1, b2, b3, b4 = breaks
    b4 = max(b4, min_ply)
    moves = board.legal_moves
    if not moves:
        return LOSS + ply
    jump = moves[0].is_capture
    if ply >= min_ply:
        if ply >= b4 or (ply >= b3 and jump and abs(_material(board)) > 6):  # more than two kings ahead
            stop = True
        elif ply >= b2:
            stop = not jump
        elif ply >= b1:
            stop = not jump and not _offer(board, moves)
        else:
            stop = not jump and not last_jump and not _offer(board, moves)
        if stop:
            return _score(board) + (JUMP_CREDIT if jump else 0)
    for m in moves:
        board.push(m)
        value = -samuel_value(board, min_ply, breaks, ply + 1, jump, -beta, -alpha)
        board.pop()
        if value >= beta:
            return beta
        alpha = max(alpha, value)
    return alpha


def _check_search(program: Program704, board: Board, depth: int,
                  breaks: tuple[int, int, int, int] = SAMUEL_BREAKS) -> None:
    found = program.search(board, depth, breaks=breaks)
    want = samuel_value(board.copy(), depth, breaks)
    assert found.score == want, (board.fen(), depth, breaks)
    assert found.nodes > 0
    if depth == 0 or not board.legal_moves:
        return
    # The line's first move starts with the step the program names, and is worth the score.
    line = line_moves(board, found.steps)
    assert line, (board.fen(), found)
    first = line[0]
    assert (first.path[0], first.path[1]) == (found.first_from, found.first_to)
    assert len(found.steps) == PV_MAX or sum(len(m.path) - 1 for m in line) == len(found.steps)
    board.push(first)
    value = -samuel_value(board, depth, breaks, 1, first.is_capture)
    board.pop()
    assert value == want, (board.fen(), str(first), value, want)


def test_search_score_equals_samuels_rules_written_in_python(program: Program704) -> None:
    boards = [Board(), *positions_from_play(150, 5), *random_positions(100, 6)]
    for i, board in enumerate(boards):
        _check_search(program, board, 3 if i % 5 else 4)


@pytest.mark.slow
def test_deeper_searches_equal_samuels_rules(program: Program704) -> None:
    boards = [*positions_from_play(200, 15), *random_positions(100, 16)]
    for i, board in enumerate(boards):
        _check_search(program, board, 5 + i % 2)


def test_search_with_other_break_points_and_depths(program: Program704) -> None:
    boards = [*positions_from_play(30, 7), *random_positions(30, 8)]
    for i, board in enumerate(boards):
        breaks = [(1, 2, 3, 4), (3, 3, 6, 8), (2, 4, 4, 3), (5, 6, 7, 20)][i % 4]
        _check_search(program, board, [0, 1, 2, 3][i % 4], breaks)


def test_exchange_offers_carry_the_look_ahead_on(program: Program704) -> None:
    """Positions where an offer is possible: with the offer rule the program looks further than
    without it (break points that switch it off), and still equals the reference."""
    boards = [b for b in positions_from_play(300, 9)
              if b.legal_moves and not b.legal_moves[0].is_capture and _offer(b, b.legal_moves)]
    assert len(boards) > 20
    deeper = 0
    for board in boards[:40]:
        with_offers = program.search(board, 3)
        without = program.search(board, 3, breaks=(3, 3, 11, 20))  # from ply 3 only jumps go on
        assert with_offers.score == samuel_value(board.copy(), 3)
        assert without.score == samuel_value(board.copy(), 3, (3, 3, 11, 20))
        deeper += with_offers.nodes > without.nodes
    assert deeper > 30


def test_alpha_beta_cuts_the_tree(program: Program704) -> None:
    found = program.search(Board(), 5)
    walked = sum(core.perft(Board().raw, d) for d in range(6))
    assert found.nodes < walked / 2  # cut-offs at work (a full-width walk visits every node and more)
    assert found.score == samuel_value(Board(), 5)


def test_bad_break_points_are_refused(program: Program704) -> None:
    for breaks in [(0, 5, 11, 20), (4, 5, 11, 10**6), (4, 5, 11)]:
        with pytest.raises(Program704Error, match="break points"):
            program.search(Board(), 3, breaks=breaks)  # type: ignore[arg-type]


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
    """The 26 parameters computed by the 704 program equal csrc/samuel_terms.c's (all of them since
    issue 35; tests/test_program704_params.py has positions chosen for each)."""
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


def test_minimum_plies_up_to_the_shallowest_stop_search_the_same_tree(program: Program704) -> None:
    """The program says the shallowest ply at which its rules stopped the look-ahead: every minimum ply
    up to it walks the very same tree (the backend searches it once), and the next one does not."""
    start = program.search(Board(), 1)
    assert (start.nodes, start.stop_ply) == (2644, 5)  # from the start, minimum ply 1 to 5: one tree
    boards = [Board(), *positions_from_play(20, 11), *random_positions(20, 12)]
    for board in boards:
        if not board.legal_moves:
            continue
        found = program.search(board, 1)
        if found.stop_ply is None:  # every line ended in a lost position: no minimum ply changes it
            deeper = program.search(board, 6)
            assert (deeper.nodes, deeper.score, deeper.stop_ply) == (found.nodes, found.score, None)
            continue
        assert found.stop_ply >= 1
        for depth in range(2, min(found.stop_ply, 7) + 1):
            again = program.search(board, depth)
            assert (again.nodes, again.score, again.steps, again.stop_ply) == \
                (found.nodes, found.score, found.steps, found.stop_ply), (board.fen(), depth)
        if found.stop_ply < 7:
            assert program.search(board, found.stop_ply + 1).nodes != found.nodes, board.fen()


def test_a_loss_carries_its_distance(program: Program704) -> None:
    """A side with no move at ply p scores LOSS + p: the nearer loss is the worse one."""
    lost = Board("W:W12:B8,3")  # White's man on 12 has no move: lost at the root
    assert program.search(lost, 0).score == LOSS
    mated = Board("B:W17:BK30,K23")  # Black wins in 5 (the modern core agrees)
    found = program.search(mated, 6)
    assert found.score == -LOSS - 5 and found.plies_to_end == 5
    assert plies_to_end(found.score) == 5 and plies_to_end(1234) is None
