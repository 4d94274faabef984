"""Samuel's 1959 parameters and terms (csrc/samuel_terms.c) against hand-worked
positions and against the slow reference (tests/samuel_terms_reference.py).

Board geometry used in the hand calculations (row, col), row 0 = Black's back rank:
    row 0: 1(c1) 2(c3) 3(c5) 4(c7)      row 4: 17(c1) 18(c3) 19(c5) 20(c7)
    row 1: 5(c0) 6(c2) 7(c4) 8(c6)      row 5: 21(c0) 22(c2) 23(c4) 24(c6)
    row 2: 9(c1) 10(c3) 11(c5) 12(c7)   row 6: 25(c1) 26(c3) 27(c5) 28(c7)
    row 3: 13(c0) 14(c2) 15(c4) 16(c6)  row 7: 29(c0) 30(c2) 31(c4) 32(c6)
"""

from __future__ import annotations

import random
from functools import cache

import pytest
import samuel_terms_reference as ref

from engine import core, evaluators
from engine import samuel_terms as st
from engine.board import Board
from engine.errors import OptionError
from engine.limits import Limit
from engine.search import Mode, Searcher

# ---- helpers ----


def p(fen: str) -> dict[str, int]:
    """The C parameters of a FEN, checked against the reference on the way."""
    got = dict(zip(st.PARAM_NAMES, st.params(Board(fen)), strict=True))
    assert got == ref.params_of_fen(fen), fen
    return got


def rotated(raw: core.RawPosition) -> core.RawPosition:
    """The same position with the colours swapped and the board turned round (s -> 33 - s)."""

    def turn(mask: int) -> int:
        return sum(1 << (32 - s) for s in range(1, 33) if mask >> (s - 1) & 1)

    return core.RawPosition(turn(raw.white_men), turn(raw.white_kings), turn(raw.black_men),
                            turn(raw.black_kings), raw.turn ^ 1)


def ref_board(raw: core.RawPosition) -> tuple[ref.Board, str]:
    return ref.board_of_raw(raw)


@cache
def ref_params(raw: core.RawPosition) -> dict[str, int]:
    return ref.params(*ref_board(raw))


def ref_terms(raw: core.RawPosition, parent: core.RawPosition | None) -> list[int]:
    board, turn = ref_board(raw)
    before = ref_params(parent) if parent is not None else ref.params(board, ref.other(turn))
    values = ref.terms(board, turn, None if parent is None else ref_board(parent), ref_params(raw), before)
    return [values[n] for n in ref.TERM_NAMES]


Pair = tuple[core.RawPosition, core.RawPosition]


def playout_pairs(seed: int, games: int, max_plies: int = 120) -> list[Pair]:
    """(position, position before the last move) along random games from the start."""
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        raw = Board().raw
        for _ in range(max_plies):
            moves = core.legal_moves(raw)
            if not moves:
                break
            nxt, _ = core.apply_move(raw, rng.randrange(len(moves)))
            out.append((nxt, raw))
            raw = nxt
    return out


def random_placement(rng: random.Random) -> core.RawPosition:
    """Random pieces anywhere legal (no man on its own crowning row), either side to move."""
    squares = rng.sample(range(1, 33), rng.randint(2, 24))
    sets = [0, 0, 0, 0]
    for s in squares:
        kind = rng.randrange(4)  # black man, black king, white man, white king
        if (kind == 0 and s >= 29) or (kind == 2 and s <= 4):
            kind += 1
        sets[kind] |= 1 << (s - 1)
    return core.RawPosition(*sets, rng.randrange(2))


# ---- names and API ----


def test_names_and_sizes() -> None:
    assert st.PARAM_NAMES == ref.PARAM_NAMES
    assert st.TERM_NAMES == ref.TERM_NAMES
    assert len(st.PARAM_NAMES) == 26 and len(st.CONNECTIVE_NAMES) == 12 and len(st.TERM_NAMES) == 39
    assert st.CONNECTIVE_NAMES[8:] == ("MOC1", "MOC3", "MOC2", "MOC4")


# ---- one hand-worked position per parameter ----


def test_adv() -> None:
    # White to move, passive Black: men on 17 (row 5 from Black) and 21, 24 (row 6) +3, 9 (row 3) -1.
    assert p("W:W32:B9,17,21,24")["ADV"] == 2
    # Black to move, passive White: 9 (row 6 from White), 13, 14 (row 5) +3, 17 (row 4) -1; kings don't count.
    assert p("B:W9,13,14,17,K21:B1")["ADV"] == 2


def test_apex() -> None:
    assert p("B:W30:B7")["APEX"] == -1  # active man on 7, no kings, no passive man on 7 or 26
    assert p("B:W26,30:B7")["APEX"] == 0  # passive man on 26
    assert p("B:W30:B7,K1")["APEX"] == 0  # a king on the board


def test_back() -> None:
    assert p("B:W30,32:B5")["BACK"] == 1  # passive White holds its bridge 30, 32
    assert p("B:W30,32:BK5")["BACK"] == 0  # an active king
    assert p("W:W22:B1,3")["BACK"] == 1  # passive Black holds 1 and 3
    assert p("W:W22:B1,2")["BACK"] == 0


def test_cent_and_kcent() -> None:
    # Centre = Samuel's internal 11,12,15,16,20,21,24,25 = standard 10,11,14,15,18,19,22,23.
    # Passive Black men on 10, 11, 14 (the king on 15 is not a man; 1 is not central).
    v = p("W:W30:B1,10,11,14,K15")
    assert v["CENT"] == 3 and v["KCENT"] == 1
    assert p("W:W30:B12,16,20,21,24,25")["CENT"] == 0  # the printed numbers read as standard ones
    assert p("W:W30:BK14,K15,K1,10")["KCENT"] == 2


def test_cntr() -> None:
    # Black to move: man 6 steps to 9, 10; king 19 (central) steps to 15, 16, 23, 24.
    # Central: 19 (held), 10, 15, 23 (reachable) = 4.
    assert p("B:W30:B6,K19")["CNTR"] == 4


def test_corn() -> None:
    # Black (active) king 6 (3 units <= 6), White ahead (9 units), 6 can step into the double corner 1.
    assert p("B:WK10,K20,K23:BK6")["CORN"] == 1
    assert p("B:WK20:BK6")["CORN"] == 0  # White not ahead
    assert p("B:WK10,K20,K23:BK7")["CORN"] == 0  # 7 reaches 2, 3, 11 (10 is taken): no double corner


def test_cramp() -> None:
    assert p("W:W17,21,22,25:B13,14")["CRAMP"] == 2  # passive Black on 13 and 14, White on 17, 21, 22, 25
    assert p("W:W17,21,22:B13,14")["CRAMP"] == 0  # 25 empty
    assert p("B:W20,24:B8,11,12,16")["CRAMP"] == 2  # passive White on 20 and 24 (the "19 or 24" reading)
    assert p("B:W20,19:B8,11,12,16")["CRAMP"] == 2
    assert p("B:W20:B8,11,12,16")["CRAMP"] == 0


def test_deny_mob_mobil() -> None:
    # Black 10 may go to 14 or 15; on 15 White's 19 takes it (19x10, over 15) and Black has nothing left.
    v = p("B:W19:B10")
    assert (v["MOB"], v["DENY"], v["MOBIL"]) == (2, 1, 1)
    # With Black on 7 (and 3, so that 19x10 cannot go on over 7), 19x10 is answered by 7x14:
    # an exchange, not a denial.  MOB: 14, 15 (from 10), 11 (from 7), 8 (from 3).
    v = p("B:W19:B3,7,10")
    assert (v["MOB"], v["DENY"], v["MOBIL"]) == (4, 0, 4)
    # Black on 6 does not help: 19x10 goes on over 6 to 1 and takes both.
    assert p("B:W19:B6,10")["DENY"] == 1


def test_mob_ignores_jumps() -> None:
    # Black king 18 could jump 22 (to 25), but MOB counts its steps 14, 15, 23 and man 1's 5, 6.
    assert p("B:W22,30:B1,K18")["MOB"] == 5


def test_dia_and_diav() -> None:
    # Passive Black on 1, 6 (double-corner diagonal 1-28), 2 (one file away), 3 (two away).
    v = p("W:W30:B1,2,3,6")
    assert v["DIA"] == 2
    assert v["DIAV"] == 3 + 3 + 2 + 1  # in halves: 4.5
    assert p("W:W30:B4,K29")["DIAV"] == 0  # single corners, three files away


def test_dyke() -> None:
    assert p("W:W32:B6,10,15")["DYKE"] == 1
    assert p("W:W32:B6,10,15,19")["DYKE"] == 2  # two strings of three: 6-10-15 and 10-15-19
    assert p("W:W32:B6,10,19")["DYKE"] == 0


def test_exch_recap_thret() -> None:
    # Black 10-15 forces 19x10, and 7x14 recaptures: one exchange square; on 15 the man
    # also threatens 19 (jump to 24).
    v = p("B:W19:B3,7,10")
    assert (v["EXCH"], v["RECAP"], v["THRET"]) == (1, 1, 1)
    v = p("B:W19:B10")  # no recapture: no exchange
    assert (v["EXCH"], v["THRET"]) == (0, 1)


def test_expos() -> None:
    # 14 is flanked by empty 9/18 (and 10/17); 13 on the edge has no two-sided diagonal.
    assert p("W:W32:B13,14")["EXPOS"] == 1


def test_fork() -> None:
    # White 18, 19 side by side; Black steps 11-15 and attacks both (landings 22, 24 empty).
    assert p("B:W18,19:B11")["FORK"] == 1
    # A Black king that can step to 23 attacks them from the other side too (landings 14, 16).
    assert p("B:W18,19:B11,K27")["FORK"] == 2
    assert p("B:W18,19,24:B11")["FORK"] == 0  # landing 24 taken


def test_gap() -> None:
    # Empty 14 between 9 and 18; empty 5 and 13 between 9 and the edge.
    assert p("W:W32:B9,18")["GAP"] == 3


def test_guard_and_oreo() -> None:
    v = p("B:W26,30,31:B5")  # passive White holds its triangle 26, 30, 31
    assert (v["GUARD"], v["OREO"], v["BACK"]) == (1, 1, 0)
    v = p("B:W26,30,31:BK5")  # an active king: no GUARD; OREO only asks for no passive kings
    assert (v["GUARD"], v["OREO"]) == (0, 1)
    assert p("W:W32:B2,3,7")["OREO"] == 1
    assert p("W:W32:B2,3,7,K20")["OREO"] == 0


def test_hole() -> None:
    assert p("W:W32:B9,10,18")["HOLE"] == 1  # empty 14 has passive 9, 10, 18 around it


def test_move() -> None:
    assert p("W:W29:B1")["MOVE"] == 1  # even, 4 < 24, Black's system (files of 1-4) holds 1 piece
    assert p("W:W25:B1")["MOVE"] == 0  # 1 and 25 both in the system: even
    assert p("B:W29:B1")["MOVE"] == 1  # passive White: files of 29-32 hold 29 only
    assert p("W:W29,30:B1")["MOVE"] == 0  # pieces not even


def test_node() -> None:
    assert p("W:W32:B14")["NODE"] == 1
    assert p("W:W32:B9,10,14")["NODE"] == 2  # 9 and 10 have three empty neighbours, 14 two


def test_pole() -> None:
    # 14 has no neighbours; 5 on the edge has only empty ones; the king on 19 is not a man.
    assert p("W:W32:B5,14,K19")["POLE"] == 2


def test_start_position() -> None:
    v = p(Board().fen())
    # Passive White: men on 21-24 are on its row 3 (-4); 22, 23 central; 23, 24, 27, 28, 32 on the
    # double diagonal; Black's men 9-12 have seven moves, onto the four squares 13-16 (MOB 4).
    assert (v["ADV"], v["CENT"], v["DIA"], v["MOB"], v["BACK"], v["OREO"]) == (-4, 2, 5, 4, 1, 1)


# ---- terms: difference convention, sign, fallback, connectives ----


def test_difference_convention_and_sign() -> None:
    board = Board("B:W32:BK9")
    board.push_pdn("9-14")
    t = dict(zip(st.TERM_NAMES, st.terms(board), strict=True))
    # Samuel: KCENT(now: passive Black king on 14) - KCENT(before: passive White, none) = +1,
    # credited to Black, which just moved; for White, to move, the term is -1.
    assert t["KCENT"] == -1
    assert t["PADV"] == 2 - 3
    now, before = st.params(board), st.params(Board("B:W32:BK9"))
    assert st.terms(board)[1:27] == [b - n for b, n in zip(before, now, strict=True)]
    # samuel-1959 has KCENT at +2**16: worth -8 centi-men to White here.
    only_kcent = st.polynomial({"KCENT": 2**16}, padv=0)
    assert only_kcent.evaluate(board) == -(2**16) >> st.SHIFT == -8


def test_parent_fallback_is_the_swapped_board() -> None:
    raw = Board("B:W19,30:B6,10").raw
    swapped = core.RawPosition(raw.black_men, raw.black_kings, raw.white_men, raw.white_kings, 1)
    assert st.terms(raw) == st.terms(raw, swapped)
    assert st.terms(Board(Board("B:W19,30:B6,10").fen())) == st.terms(raw)  # no history: no parent


def test_connectives_by_hand() -> None:
    board = Board("B:W19:B10")
    board.push_pdn("10-14")  # now White to move, Black (passive) just moved
    t = dict(zip(st.TERM_NAMES, st.terms(board), strict=True))
    # Now (White active: 19 steps to 15, 16; Black 14 cannot take either): MOB 2, DENY 0, MOBIL 2,
    # CENT 1 (passive Black man on 14).  Before (Black active: 10 to 14, 15, and 15 is lost to
    # 19x10): MOB 2, DENY 1, MOBIL 1, CENT 1 (passive White man on 19).
    # Samuel's values (now - before): DENY -1, MOB 0, MOBIL +1, CENT 0; ours are the negations.
    assert (t["DENY"], t["MOB"], t["MOBIL"], t["CENT"]) == (1, 0, -1, 0)
    # A = (Samuel's value < 0).  DENY-MOB: A true, B false -> DEMMO (A.~B).  MOBIL-DENY: A false,
    # B true -> MODE3 (~A.B).  MOBIL-CENT: A false, B false -> ~A.~B, which is MOC4.
    hits = {n for n in st.CONNECTIVE_NAMES if t[n]}
    assert hits == {"DEMMO", "MODE3", "MOC4"} and all(t[n] == -1 for n in hits)


def test_connectives_rule_on_random_positions() -> None:
    for raw, parent in playout_pairs(seed=7, games=20):
        t = dict(zip(st.TERM_NAMES, st.terms(raw, parent), strict=True))
        for (a, b, names) in ref.CONNECTIVE_PAIRS:
            A, B = -t[a] < 0, -t[b] < 0  # Samuel's value (-t) below zero
            values = [A and B, A and not B, not A and B, not A and not B]
            assert [t[n] for n in names] == [-int(v) for v in values]
            assert sum(t[n] for n in names) == -1


def test_published_polynomial_is_registered() -> None:
    e = evaluators.by_name("samuel-1959")
    assert e is st.SAMUEL_1959 and "samuel-1959" in evaluators.available()
    assert e.spec.kind == core.EVAL_SAMUEL
    w = dict(zip(st.TERM_NAMES, e.spec.weights, strict=True))
    assert w["MOC2"] == -(2**18) and w["KCENT"] == 2**16 and w["MOC3"] == 16 and w["PADV"] == st.PADV_WEIGHT
    assert sum(1 for n, v in w.items() if v and n != "PADV") == 12
    # Material dominates: a man up is worth about a man.
    assert 60 < e.evaluate(Board("B:W32:B1,5")) < 200


def test_polynomial_rejects_unknown_terms() -> None:
    with pytest.raises(OptionError):
        st.polynomial({"KCENT": 1, "NOPE": 2})


def test_evaluator_json_round_trip() -> None:
    e = st.polynomial({"MOB": 4, "MOC2": -(2**18)}, name="x")
    back = evaluators.from_dict(evaluators.to_dict(e))
    assert back.spec == e.spec


# ---- C against the reference ----


def test_params_match_reference_on_playouts() -> None:
    seen = set()
    for raw, _ in playout_pairs(seed=1, games=25):
        if raw in seen:
            continue
        seen.add(raw)
        assert st.params(raw) == [ref_params(raw)[n] for n in ref.PARAM_NAMES], raw
    assert len(seen) > 1500


def test_params_match_reference_on_random_placements() -> None:
    rng = random.Random(2)
    for _ in range(1500):
        raw = random_placement(rng)
        assert st.params(raw) == [ref_params(raw)[n] for n in ref.PARAM_NAMES], raw


def test_params_are_colour_symmetric() -> None:
    rng = random.Random(3)
    for _ in range(1000):
        raw = random_placement(rng)
        assert st.params(raw) == st.params(rotated(raw))


def test_terms_match_reference() -> None:
    pairs = playout_pairs(seed=1, games=25)  # the same positions as above: reference params cached
    for raw, parent in pairs:
        assert st.terms(raw, parent) == ref_terms(raw, parent)
    rng = random.Random(4)
    for _ in range(300):
        raw = random_placement(rng)
        assert st.terms(raw) == ref_terms(raw, None)


def test_batch_equals_single() -> None:
    pairs = playout_pairs(seed=5, games=6)
    rng = random.Random(5)
    positions = [r for r, _ in pairs] + [random_placement(rng) for _ in range(200)]
    parents: list[core.RawPosition | None] = [q for _, q in pairs] + [None] * 200
    rows = st.terms_batch(positions, parents)
    assert rows == [st.terms(r, q) for r, q in zip(positions, parents, strict=True)]
    board = Board()
    board.push_many(["11-15", "23-19"])
    assert st.terms_batch([board]) == [st.terms(board)]
    assert st.terms_batch([]) == []
    with pytest.raises(ValueError):
        core.samuel_terms_batch([core.RawPosition(1, 1, 0, 0, 0)])


def test_polynomial_matches_reference() -> None:
    rng = random.Random(6)
    pairs = playout_pairs(seed=1, games=25)
    for i, (raw, parent) in enumerate(pairs):
        chosen = rng.sample(st.TERM_NAMES[1:], rng.randint(1, 16))
        coefficients = {n: rng.choice((-1, 1)) * 2 ** rng.randint(0, 18) for n in chosen}
        if i % 3 == 0:
            coefficients["PADV"] = 0
        e = st.polynomial(coefficients)
        board, turn = ref_board(raw)
        values = dict(zip(ref.TERM_NAMES, ref_terms(raw, parent), strict=True))
        expected = ref.polynomial(board, turn, e.spec.weights, values)
        assert core.evaluate(raw, e.spec, parent) == expected


# ---- the evaluator inside the C search ----


@pytest.mark.parametrize("mode", list(Mode))
def test_search_with_samuel_1959_plays_legal_moves(mode: Mode) -> None:
    searcher = Searcher(st.SAMUEL_1959, mode=mode, hash_mb=4)
    for moves in ([], ["11-15", "23-19", "8-11", "22-17"]):
        board = Board()
        board.push_many(moves)
        for _ in range(6):
            result = searcher.search(board, Limit(depth=4))
            assert result.best is not None and board.is_legal(result.best)
            board.push(result.best)
