"""FEN for English checkers, in the PDN form ``B:W21,22,...:B1,2,...,K5``.

Reading is forgiving in the ways real files differ (colour groups in any order,
ranges ``1-12`` as PDN 3.0 allows, spaces, a trailing ``.``); writing is the
canonical CheckerBoard form: side, White's squares, Black's squares, ascending,
kings marked ``K``.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.errors import FenError
from engine.types import BLACK, WHITE, Color, SquareSet, squares_of

START_FEN = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"


@dataclass(frozen=True)
class FenPosition:
    turn: Color
    black_men: SquareSet
    black_kings: SquareSet
    white_men: SquareSet
    white_kings: SquareSet


MAX_PIECES = 12
"""Pieces a side starts with, and so the most it can ever have."""


def _parse_square(token: str, fen: str) -> int:
    if not token.isdigit():
        raise FenError(f"bad square {token!r} in FEN {fen!r}")
    s = int(token)
    if not 1 <= s <= 32:
        raise FenError(f"square {s} out of range 1..32 in FEN {fen!r}")
    return s


def parse_fen(fen: str) -> FenPosition:
    """Parse a FEN; raises FenError saying what is wrong and where."""
    if not isinstance(fen, str):
        raise FenError(f"FEN must be a string, not {type(fen).__name__}")
    text = fen.strip().strip('"').rstrip(".").replace(" ", "")
    if not text:
        raise FenError("empty FEN")
    fields = text.split(":")
    side = fields[0].upper()
    if side not in ("B", "W"):
        raise FenError(f"FEN must start with the side to move B or W, got {fields[0]!r} in {fen!r}")
    turn = BLACK if side == "B" else WHITE
    sets = {"B": [0, 0], "W": [0, 0]}
    seen: dict[int, str] = {}
    seen_groups: set[str] = set()
    for field in fields[1:]:
        if not field:
            continue
        colour = field[0].upper()
        if colour not in sets:
            raise FenError(f"FEN colour group must start with W or B, got {field!r} in {fen!r}")
        if colour in seen_groups:
            raise FenError(f"FEN has two {colour} groups in {fen!r}")
        seen_groups.add(colour)
        for item in field[1:].split(","):
            if not item:
                continue
            king = item[0] in "Kk"
            body = item[1:] if king else item
            if "-" in body:
                lo_s, _, hi_s = body.partition("-")
                lo, hi = _parse_square(lo_s, fen), _parse_square(hi_s, fen)
                if lo > hi:
                    raise FenError(f"bad range {item!r} in FEN {fen!r}")
                squares = range(lo, hi + 1)
            else:
                squares = range(_parse_square(body, fen), _parse_square(body, fen) + 1)
            for s in squares:
                if s in seen:
                    raise FenError(f"square {s} is given twice in FEN {fen!r}")
                seen[s] = colour
                sets[colour][1 if king else 0] |= 1 << (s - 1)
    if not seen_groups:
        raise FenError(f"FEN has no piece groups: {fen!r}")
    (bm, bk), (wm, wk) = sets["B"], sets["W"]
    # Each side starts with 12 pieces and never gains one: more cannot come from a game.
    for name, count in (("Black", (bm | bk).bit_count()), ("White", (wm | wk).bit_count())):
        if count > MAX_PIECES:
            raise FenError(f"{name} has {count} pieces, more than the {MAX_PIECES} a side starts with, "
                           f"in FEN {fen!r}")
    # A man on its own crowning row cannot exist: it would have been crowned.
    if bm & 0xF000_0000 or wm & 0x0000_000F:
        bad = squares_of((bm & 0xF000_0000) | (wm & 0xF))
        raise FenError(f"uncrowned man on its king row at {bad} in FEN {fen!r}")
    return FenPosition(turn, bm, bk, wm, wk)


def _group(men: SquareSet, kings: SquareSet) -> str:
    items = [(s, False) for s in squares_of(men)] + [(s, True) for s in squares_of(kings)]
    return ",".join(("K" if k else "") + str(s) for s, k in sorted(items))


def format_fen(pos: FenPosition) -> str:
    side = "B" if pos.turn == BLACK else "W"
    return f"{side}:W{_group(pos.white_men, pos.white_kings)}:B{_group(pos.black_men, pos.black_kings)}"
