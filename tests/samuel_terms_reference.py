"""A slow, independent reference for Samuel's 1959 parameters (Appendix C).

Written from the definitions in the paper with the standard 1..32 numbering and
its own (row, col) geometry; it shares nothing with the bitboard code.  Full
capture sequences (for DENY and EXCH) come from ``reference_rules``, the
rules-only move generator.  The decisions on unclear definitions are those of
docs/learners/terms.md; each function's docstring restates the one it follows.

"Active" is the side to move, "passive" the other side.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import reference_rules as rules

PARAM_NAMES: tuple[str, ...] = (
    "ADV", "APEX", "BACK", "CENT", "CNTR", "CORN", "CRAMP", "DENY", "DIA", "DIAV",
    "DYKE", "EXCH", "EXPOS", "FORK", "GAP", "GUARD", "HOLE", "KCENT", "MOB", "MOBIL",
    "MOVE", "NODE", "OREO", "POLE", "RECAP", "THRET",
)  # fmt: skip
CONNECTIVE_PAIRS: tuple[tuple[str, str, tuple[str, str, str, str]], ...] = (
    ("DENY", "MOB", ("DEMO", "DEMMO", "DDEMO", "DDMM")),
    ("MOBIL", "DENY", ("MODE1", "MODE2", "MODE3", "MODE4")),
    ("MOBIL", "CENT", ("MOC1", "MOC3", "MOC2", "MOC4")),
)
TERM_NAMES: tuple[str, ...] = (
    "PADV", *PARAM_NAMES, *(n for _, _, names in CONNECTIVE_PAIRS for n in names)
)

Board = dict[int, str]  # square -> piece letter (reference_rules' b, B, w, W)


def board_of_raw(raw: Any) -> tuple[Board, str]:
    """(board, side to move) of anything with the core's square-set fields (``black_men`` ... ``turn``;
    bit s - 1 for square s), read by attribute only so the reference shares no code with the core."""
    board: Board = {}
    for mask, letter in ((raw.black_men, "b"), (raw.black_kings, "B"), (raw.white_men, "w"),
                         (raw.white_kings, "W")):
        for s in range(1, 33):
            if mask >> (s - 1) & 1:
                board[s] = letter
    return board, "B" if raw.turn == 0 else "W"


def _internal_to_standard(numbers: Sequence[int]) -> frozenset[int]:
    """Samuel's internal numbers (Fig. A-1: 1..35, 9/18/27 unused) as standard squares."""
    return frozenset(s for s in range(1, 33) if s + (s - 1) // 8 in numbers)


CENTRE = _internal_to_standard((11, 12, 15, 16, 20, 21, 24, 25))
DOUBLE_CORNERS = frozenset((1, 5, 28, 32))
BRIDGE = {"B": (1, 3), "W": (30, 32)}
OREO = {"B": (2, 3, 7), "W": (26, 30, 31)}
CRAMP = {  # passive colour: (cramping square, nearby squares, squares the active side holds)
    "B": (13, (9, 14), (17, 21, 22, 25)),
    "W": (20, (19, 24), (8, 11, 12, 16)),
}
DIAGONALS = ((1, 1), (1, -1))  # the two axes: each square has neighbours at +d and -d


def other(colour: str) -> str:
    return "W" if colour == "B" else "B"


def coord(square: int) -> tuple[int, int]:
    return rules.square_to_coord(square)


def square_at(row: int, col: int) -> int | None:
    return rules.coord_to_square((row, col))


def board_of(pos: rules.Position) -> Board:
    board: Board = {}
    for (r, c), piece in pos.pieces():
        s = square_at(r, c)
        assert s is not None
        board[s] = piece
    return board


def neighbour(square: int, dr: int, dc: int) -> int | None:
    r, c = coord(square)
    return square_at(r + dr, c + dc)


def owned(board: Board, square: int | None, colour: str) -> bool:
    return square is not None and square in board and rules.colour_of(board[square]) == colour


def is_empty(board: Board, square: int | None) -> bool:
    return square is not None and square not in board


def material(board: Board, colour: str) -> int:
    return sum(3 if rules.is_king(p) else 2 for p in board.values() if rules.colour_of(p) == colour)


def relative_row(square: int, colour: str) -> int:
    """1 on the colour's own back rank, 8 on its crowning row."""
    row = coord(square)[0]
    return row + 1 if colour == "B" else 8 - row


def steps(board: Board, colour: str) -> list[tuple[int, int]]:
    """Every normal (non-capturing) move of the colour, as (from, to)."""
    out = []
    for s, piece in board.items():
        if rules.colour_of(piece) != colour:
            continue
        for dr, dc in rules.directions(piece):
            t = neighbour(s, dr, dc)
            if is_empty(board, t):
                assert t is not None
                out.append((s, t))
    return out


def after_step(board: Board, frm: int, to: int) -> Board:
    """The board after a normal move (a man reaching the far row is crowned)."""
    b = dict(board)
    piece = b.pop(frm)
    if not rules.is_king(piece) and coord(to)[0] == rules.crowning_row(rules.colour_of(piece)):
        piece = piece.upper()
    b[to] = piece
    return b


def position(board: Board, turn: str) -> rules.Position:
    grid = rules.empty_grid()
    for s, piece in board.items():
        r, c = coord(s)
        grid[r][c] = piece
    return rules.Position(rules.freeze(grid), turn)


def can_jump(board: Board, square: int) -> bool:
    """Whether the piece on ``square`` has a capture available now."""
    piece = board[square]
    for dr, dc in rules.directions(piece):
        over, land = neighbour(square, dr, dc), neighbour(square, 2 * dr, 2 * dc)
        if owned(board, over, other(rules.colour_of(piece))) and is_empty(board, land):
            return True
    return False


def has_capture(board: Board, colour: str) -> bool:
    return any(can_jump(board, s) for s, p in board.items() if rules.colour_of(p) == colour)


def captures(board: Board, colour: str) -> list[tuple[rules.RefMove, Board]]:
    """Every full capture of the colour and the board after it."""
    if not has_capture(board, colour):
        return []
    pos = position(board, colour)
    return [(m, board_of(rules.apply(pos, m))) for m in rules.legal_moves(pos) if m.captures]


def params(board: Board, active: str) -> dict[str, int]:
    """All 26 parameters, with ``active`` to move."""
    passive = other(active)
    act = {s for s, p in board.items() if rules.colour_of(p) == active}
    pas = {s for s, p in board.items() if rules.colour_of(p) == passive}
    pas_men = {s for s in pas if not rules.is_king(board[s])}
    kings = {s for s, p in board.items() if rules.is_king(p)}
    moves = steps(board, active)
    targets = {t for _, t in moves}
    v: dict[str, int] = {}

    # ADV: passive men on rows 5-6 (+1) and 3-4 (-1), counted from passive's side.
    v["ADV"] = sum(
        1 if relative_row(s, passive) in (5, 6) else -1 if relative_row(s, passive) in (3, 4) else 0
        for s in pas_men
    )
    # APEX: no kings, an active man on 7 or 26, no passive man on either.
    apex = (7, 26)
    v["APEX"] = -1 if not kings and any(s in act for s in apex) and not any(s in pas for s in apex) else 0
    bridge = all(s in pas for s in BRIDGE[passive])
    oreo = all(s in pas for s in OREO[passive])
    active_kings = bool(act & kings)
    v["BACK"] = int(not active_kings and bridge)
    v["CENT"] = len(pas_men & CENTRE)
    v["CNTR"] = sum(1 for s in CENTRE if s in act or s in targets)
    v["CORN"] = int(
        material(board, active) <= 6
        and material(board, passive) > material(board, active)
        and bool(targets & DOUBLE_CORNERS)
    )
    cramp_sq, near, held = CRAMP[passive]
    v["CRAMP"] = 2 if cramp_sq in pas and any(s in pas for s in near) and all(s in act for s in held) else 0

    # DENY: every piece that could step onto the square is then taken, with no capture in reply.
    def lost(frm: int, to: int) -> bool:
        b = after_step(board, frm, to)
        return any(to in m.captures and not has_capture(after, active) for m, after in captures(b, passive))

    # EXCH: after the step the passive side must capture, and every capture allows one in reply.
    def exchange(frm: int, to: int) -> bool:
        caps = captures(after_step(board, frm, to), passive)
        return bool(caps) and all(has_capture(after, active) for _, after in caps)

    # THRET: the piece that stepped (crowned if it got there) could capture from its new square.
    def threat(frm: int, to: int) -> bool:
        return can_jump(after_step(board, frm, to), to)

    movers = {t: [f for f, tt in moves if tt == t] for t in targets}
    v["DENY"] = sum(1 for t in targets if all(lost(f, t) for f in movers[t]))
    v["EXCH"] = sum(1 for t in targets if any(exchange(f, t) for f in movers[t]))
    v["RECAP"] = v["EXCH"]
    v["THRET"] = sum(1 for t in targets if any(threat(f, t) for f in movers[t]))

    def files_from_double_diagonal(s: int) -> int:
        r, c = coord(s)
        return (abs(r - c) - 1) // 2  # the double-corner diagonals have row - col = -1 and +1

    v["DIA"] = sum(1 for s in pas if files_from_double_diagonal(s) == 0)
    v["DIAV"] = sum({0: 3, 1: 2, 2: 1}.get(files_from_double_diagonal(s), 0) for s in pas)  # halves
    v["DYKE"] = sum(
        1
        for s in pas
        for dr, dc in DIAGONALS
        if owned(board, neighbour(s, dr, dc), passive) and owned(board, neighbour(s, 2 * dr, 2 * dc), passive)
    )
    v["EXPOS"] = sum(
        1
        for s in pas
        if any(
            is_empty(board, neighbour(s, dr, dc)) and is_empty(board, neighbour(s, -dr, -dc))
            for dr, dc in DIAGONALS
        )
    )

    # FORK: passive pieces side by side in a row; an empty square between them in the next
    # row on one side and the two squares beyond them on the other side empty; an active
    # piece can step onto the first and could then jump either way.
    fork = 0
    for s in pas:
        r, c = coord(s)
        right = square_at(r, c + 2)
        if right is None or right not in pas:
            continue
        for k in (1, -1):
            x, l1, l2 = square_at(r + k, c + 1), square_at(r - k, c - 1), square_at(r - k, c + 3)
            if not (is_empty(board, x) and is_empty(board, l1) and is_empty(board, l2)):
                continue
            for frm, to in moves:
                if to == x and any(dr == -k for dr, _ in rules.directions(after_step(board, frm, to)[to])):
                    fork += 1
                    break
    v["FORK"] = fork

    def separates(e: int) -> bool:
        for dr, dc in DIAGONALS:
            a, b = neighbour(e, dr, dc), neighbour(e, -dr, -dc)
            if (owned(board, a, passive) and (b is None or owned(board, b, passive))) or (
                owned(board, b, passive) and a is None
            ):
                return True
        return False

    empties = [s for s in range(1, 33) if s not in board]
    all_dirs = [(dr, dc) for dr in (1, -1) for dc in (1, -1)]
    v["GAP"] = sum(1 for e in empties if separates(e))
    v["GUARD"] = int(not active_kings and (bridge or oreo))
    v["HOLE"] = sum(1 for e in empties if sum(owned(board, neighbour(e, *d), passive) for d in all_dirs) >= 3)
    v["KCENT"] = len(pas & kings & CENTRE)
    v["MOB"] = len(targets)
    v["MOBIL"] = v["MOB"] - v["DENY"]
    # MOVE: the files starting on the passive side's back-rank squares (1-4 or 29-32).
    back_rank = (1, 2, 3, 4) if passive == "B" else (29, 30, 31, 32)
    files = {coord(s)[1] for s in back_rank}
    in_system = sum(1 for s in board if coord(s)[1] in files)
    even = material(board, active) == material(board, passive)
    v["MOVE"] = int(even and material(board, active) + material(board, passive) < 24 and in_system % 2 == 1)
    v["NODE"] = sum(1 for s in pas if sum(is_empty(board, neighbour(s, *d)) for d in all_dirs) >= 3)
    v["OREO"] = int(not (pas & kings) and oreo)
    v["POLE"] = sum(
        1
        for s in pas_men
        if all(neighbour(s, *d) is None or is_empty(board, neighbour(s, *d)) for d in all_dirs)
    )
    return {name: v[name] for name in PARAM_NAMES}


def params_of_fen(fen: str) -> dict[str, int]:
    pos = rules.parse_fen(fen)
    return params(board_of(pos), pos.turn)


def terms(
    board: Board, turn: str, parent: tuple[Board, str] | None = None,
    now: Mapping[str, int] | None = None, before: Mapping[str, int] | None = None,
) -> dict[str, int]:
    """The 39 terms for the side to move (``now``/``before``: the parameters, if known).

    Samuel's term is param(position) - param(position before the last move),
    credited to the side that just moved; for the side to move it is negated.
    Without a parent, the same board with the other side to move stands in.
    """
    if parent is None:
        parent = (board, other(turn))
    now = params(board, turn) if now is None else now
    before = params(*parent) if before is None else before
    samuel = {n: now[n] - before[n] for n in PARAM_NAMES}
    out = {"PADV": material(board, turn) - material(board, other(turn))}
    out.update({n: -samuel[n] for n in PARAM_NAMES})
    for a, b, names in CONNECTIVE_PAIRS:
        A, B = samuel[a] < 0, samuel[b] < 0  # the sign reading of docs/learners/terms.md
        for name, value in zip(names, (A and B, A and not B, not A and B, not A and not B), strict=True):
            out[name] = -int(value)
    return {n: out[n] for n in TERM_NAMES}


def polynomial(board: Board, turn: str, weights: Sequence[int], term_values: Mapping[str, int]) -> int:
    """Score of a weight vector: floor(sum w*t / 2**13), the trade bonus with PADV, clamped."""
    total = sum(w * term_values[n] for w, n in zip(weights, TERM_NAMES, strict=False))
    score = total // 2**13
    if weights and weights[0]:
        mu, mt = material(board, turn), material(board, other(turn))
        if mu + mt:
            diff = 100 * (mu - mt)
            score += diff // (mu + mt) if diff >= 0 else -(-diff // (mu + mt))
    return max(-28999, min(28999, score))
