"""Perft: the C core against published counts, and against an independent Python oracle.

``tests/data/perft/english.perft`` holds the start position's published counts
and hand-built tricky positions whose counts were computed with
``tests/reference_rules.py`` (and agree with the C core, bulk and not).

The normal run checks the C core on every entry up to a cost limit, the
reference generator on the shallow entries, and move-by-move agreement between
the two on many random positions; the deep start-position counts run under
``-m slow``.  Depths 13 and 14 of the start position are in the file for the
benchmark only.
"""

from __future__ import annotations

import random
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import reference_rules as ref
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Board, core

PERFT_FILE = Path(__file__).parent / "data" / "perft" / "english.perft"
REPO_ROOT = Path(__file__).resolve().parent.parent

START_ID = "start"

# Cost limits in leaves.  The C core counts ~100M leaves/s in bulk and ~35M/s
# making every leaf; the reference counts ~100k leaves/s.
C_BULK_LIMIT = 20_000_000  # start position to depth 10
C_NOBULK_LIMIT = 4_000_000  # start position to depth 9
C_SLOW_BULK_LIMIT = 400_000_000  # start position depths 11 and 12
C_SLOW_NOBULK_LIMIT = 100_000_000  # start position depths 10 and 11
REF_LIMIT = 40_000  # per entry; the whole reference check stays around 3 s
REF_SLOW_LIMIT = 400_000  # under -m slow, about a minute in all


# ---------------------------------------------------------------------------
# The .perft file (python-chess style: id / fen / perft DEPTH COUNT lines)


@dataclass
class PerftEntry:
    id: str
    fen: str
    counts: dict[int, int] = field(default_factory=dict)


def load_perft_file(path: Path) -> list[PerftEntry]:
    """Read entries separated by blank lines; lines starting with ``#`` are comments."""
    entries: list[PerftEntry] = []
    current: PerftEntry | None = None
    pending_id: str | None = None
    for lineno, raw_line in enumerate(path.read_text().splitlines(), 1):
        line = raw_line.strip()
        if line.startswith("#"):
            continue
        if not line:
            if current is not None:
                entries.append(current)
            current, pending_id = None, None
            continue
        key, _, value = line.partition(" ")
        value = value.strip()
        if key == "id":
            if current is not None:
                raise ValueError(f"{path}:{lineno}: 'id' inside an entry (missing blank line?)")
            pending_id = value
        elif key == "fen":
            if current is not None:
                raise ValueError(f"{path}:{lineno}: two 'fen' lines in one entry")
            current = PerftEntry(pending_id or f"line{lineno}", value)
        elif key == "perft":
            if current is None:
                raise ValueError(f"{path}:{lineno}: 'perft' before 'fen'")
            depth_s, count_s = value.split()
            depth = int(depth_s)
            if depth in current.counts:
                raise ValueError(f"{path}:{lineno}: depth {depth} given twice")
            current.counts[depth] = int(count_s)
        else:
            raise ValueError(f"{path}:{lineno}: unknown key {key!r}")
    if current is not None:
        entries.append(current)
    return entries


ENTRIES = load_perft_file(PERFT_FILE)
CASES: list[tuple[str, str, int, int]] = [
    (e.id, e.fen, d, n) for e in ENTRIES for d, n in sorted(e.counts.items())
]


def _cases(lo: int, hi: int) -> list[object]:
    """pytest params for the entries with lo < count <= hi (or count == 0 when lo < 0)."""
    return [
        pytest.param(fen, depth, count, id=f"{eid}-d{depth}")
        for eid, fen, depth, count in CASES
        if lo < count <= hi
    ]


def test_perft_file_is_well_formed() -> None:
    ids = [e.id for e in ENTRIES]
    assert len(ids) == len(set(ids)), "duplicate ids"
    start = next(e for e in ENTRIES if e.id == START_ID)
    assert start.fen == ref.START_FEN
    published = [7, 49, 302, 1469, 7361, 36768, 179740, 845931, 3963680, 18391564, 85242128,
                 388623673, 1766623630, 7978439499]
    assert [start.counts[d] for d in range(1, 15)] == published
    for e in ENTRIES:
        Board(e.fen)  # every FEN is accepted by the engine
        assert sorted(e.counts) == list(range(1, len(e.counts) + 1)), e.id
        assert e.id == START_ID or len(e.counts) >= 3, f"{e.id}: give several depths"
    # The tricky positions the file promises are there.
    for wanted in ("diamond", "crown", "kings", "long", "no-moves"):
        assert any(wanted in i for i in ids), wanted


# ---------------------------------------------------------------------------
# The C core against the file


@pytest.mark.parametrize(("fen", "depth", "expected"), _cases(-1, C_BULK_LIMIT))
def test_core_perft_bulk(fen: str, depth: int, expected: int) -> None:
    assert core.perft(Board(fen).raw, depth, bulk=True) == expected


@pytest.mark.parametrize(("fen", "depth", "expected"), _cases(-1, C_NOBULK_LIMIT))
def test_core_perft_no_bulk(fen: str, depth: int, expected: int) -> None:
    assert core.perft(Board(fen).raw, depth, bulk=False) == expected


@pytest.mark.slow
@pytest.mark.parametrize(("fen", "depth", "expected"), _cases(C_BULK_LIMIT, C_SLOW_BULK_LIMIT))
def test_core_perft_bulk_deep(fen: str, depth: int, expected: int) -> None:
    assert core.perft(Board(fen).raw, depth, bulk=True) == expected


@pytest.mark.slow
@pytest.mark.parametrize(("fen", "depth", "expected"), _cases(C_NOBULK_LIMIT, C_SLOW_NOBULK_LIMIT))
def test_core_perft_no_bulk_deep(fen: str, depth: int, expected: int) -> None:
    assert core.perft(Board(fen).raw, depth, bulk=False) == expected


def test_core_perft_depth_zero_and_negative() -> None:
    raw = Board().raw
    assert core.perft(raw, 0) == 1
    assert core.perft(raw, 0, bulk=False) == 1
    with pytest.raises(ValueError):
        core.perft(raw, -1)


# ---------------------------------------------------------------------------
# The reference generator against the file


@pytest.mark.parametrize(("fen", "depth", "expected"), _cases(-1, REF_LIMIT))
def test_reference_perft(fen: str, depth: int, expected: int) -> None:
    assert ref.perft(ref.parse_fen(fen), depth) == expected


@pytest.mark.slow
@pytest.mark.parametrize(("fen", "depth", "expected"), _cases(REF_LIMIT, REF_SLOW_LIMIT))
def test_reference_perft_deep(fen: str, depth: int, expected: int) -> None:
    assert ref.perft(ref.parse_fen(fen), depth) == expected


def test_every_entry_is_checked_by_the_reference() -> None:
    """Each tricky position has at least two depths cheap enough for the oracle."""
    for e in ENTRIES:
        cheap = [d for d, n in e.counts.items() if n <= REF_LIMIT]
        assert len(cheap) >= 2, e.id


# ---------------------------------------------------------------------------
# Rules the tricky positions are about, checked in both generators


def _engine_moves(fen: str) -> set[tuple[tuple[int, ...], tuple[int, ...]]]:
    return {(m.path, m.captures) for m in Board(fen).legal_moves}


def _ref_moves(fen: str) -> set[tuple[tuple[int, ...], tuple[int, ...]]]:
    return {(m.path, m.captures) for m in ref.legal_moves(ref.parse_fen(fen))}


def _entry_fen(eid: str) -> str:
    return next(e.fen for e in ENTRIES if e.id == eid)


@pytest.mark.parametrize("moves", [_engine_moves, _ref_moves], ids=["engine", "reference"])
def test_king_round_trip_in_two_orders(moves: object) -> None:
    got = moves(_entry_fen("diamond-black-king"))  # type: ignore[operator]
    assert got == {
        ((10, 17, 26, 19, 10), (14, 22, 23, 15)),
        ((10, 19, 26, 17, 10), (15, 23, 22, 14)),
    }
    # ... and on through the start square and out again.
    got = moves(_entry_fen("diamond-through-start"))  # type: ignore[operator]
    assert got == {
        ((10, 17, 26, 19, 10, 3), (14, 22, 23, 15, 7)),
        ((10, 19, 26, 17, 10, 3), (15, 23, 22, 14, 7)),
        ((10, 3), (7,)),
    }


@pytest.mark.parametrize("moves", [_engine_moves, _ref_moves], ids=["engine", "reference"])
def test_crowning_ends_the_capture(moves: object) -> None:
    # Black 15x22x31 crowns on 31; a king could go on over 27, a man may not.
    assert moves(_entry_fen("crown-stops-capture-black")) == {  # type: ignore[operator]
        ((15, 22, 31), (18, 26)),
    }
    # White 18x9x2 crowns on 2; a king could go on over 7.
    assert moves(_entry_fen("crown-stops-capture-white")) == {  # type: ignore[operator]
        ((18, 9, 2), (14, 6)),
    }


def test_crowned_piece_is_a_king_after_the_move() -> None:
    fen = _entry_fen("crown-stops-capture-black")
    board = Board(fen)
    board.push(board.legal_moves[0])
    piece = board.piece_at(31)
    assert piece is not None and piece.king
    pos = ref.apply(ref.parse_fen(fen), ref.legal_moves(ref.parse_fen(fen))[0])
    assert board.fen() == pos.to_fen()


@pytest.mark.parametrize("moves", [_engine_moves, _ref_moves], ids=["engine", "reference"])
def test_long_king_tour(moves: object) -> None:
    got = moves(_entry_fen("long-king-tour"))  # type: ignore[operator]
    assert max(len(caps) for _, caps in got) == 9
    nine = [(path, caps) for path, caps in got if len(caps) == 9]
    assert len(nine) == 6
    assert all(len(set(caps)) == 9 for _, caps in nine)  # nobody is taken twice


@pytest.mark.parametrize("eid", ["no-moves-blocked", "no-pieces"])
def test_no_moves(eid: str) -> None:
    fen = _entry_fen(eid)
    assert Board(fen).legal_moves == []
    assert ref.legal_moves(ref.parse_fen(fen)) == []
    outcome = Board(fen).outcome()
    assert outcome is not None and outcome.winner == Board(fen).turn ^ 1


# ---------------------------------------------------------------------------
# Move-by-move agreement on random positions

MoveSet = set[tuple[tuple[int, ...], tuple[int, ...]]]


def _assert_same_moves(fen: str) -> tuple[Board, ref.Position]:
    board = Board(fen)
    pos = ref.parse_fen(fen)
    engine_moves = board.legal_moves
    ref_moves = ref.legal_moves(pos)
    assert len(engine_moves) == len({(m.path, m.captures) for m in engine_moves}), f"duplicates in {fen}"
    eng: MoveSet = {(m.path, m.captures) for m in engine_moves}
    want: MoveSet = {(m.path, m.captures) for m in ref_moves}
    assert eng == want, (
        f"{fen}: engine only {sorted(eng - want)}, reference only {sorted(want - eng)}"
    )
    assert board.fen() == pos.to_fen()
    return board, pos


def _assert_same_perft(board: Board, pos: ref.Position, depth: int) -> None:
    expected = ref.perft(pos, depth)
    assert core.perft(board.raw, depth, bulk=True) == expected, f"{board.fen()} perft {depth}"
    assert core.perft(board.raw, depth, bulk=False) == expected, f"{board.fen()} perft {depth} no-bulk"


def _fen_from_pieces(turn: str, pieces: dict[int, str]) -> str:
    """FEN from {square: 'b'|'B'|'w'|'W'}; a man on its crowning row becomes a king.

    A side gets at most 12 pieces (a FEN with more is refused): the rest are left off.
    """
    groups: dict[str, list[str]] = {"W": [], "B": []}
    for square in sorted(pieces):
        letter = pieces[square]
        colour = letter.upper()
        if len(groups[colour]) == 12:
            continue
        king = letter.isupper() or (colour == "B" and square >= 29) or (colour == "W" and square <= 4)
        groups[colour].append(("K" if king else "") + str(square))
    return f"{turn}:W{','.join(groups['W'])}:B{','.join(groups['B'])}"


piece_maps = st.dictionaries(
    keys=st.integers(min_value=1, max_value=32),
    values=st.sampled_from(["b", "b", "B", "w", "w", "W"]),
    min_size=2,
    max_size=24,
)


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(turn=st.sampled_from(["B", "W"]), pieces=piece_maps)
def test_random_placements_agree(turn: str, pieces: dict[int, str]) -> None:
    board, pos = _assert_same_moves(_fen_from_pieces(turn, pieces))
    _assert_same_perft(board, pos, 3 if len(pieces) > 8 else 4)


def _random_placement(rng: random.Random) -> str:
    n = rng.randint(2, 24)
    pieces = {s: rng.choice("bbBwwW") for s in rng.sample(range(1, 33), n)}
    return _fen_from_pieces(rng.choice("BW"), pieces)


def _walk(fen: str, rng: random.Random, max_plies: int, perft_every: int) -> int:
    """Play random moves, checking both generators agree at every ply; returns plies played."""
    board = Board(fen)
    pos = ref.parse_fen(fen)
    for ply in range(max_plies):
        board, pos = _assert_same_moves(board.fen())
        if ply % perft_every == 0:
            _assert_same_perft(board, pos, 3)
        moves = board.legal_moves
        if not moves:
            return ply
        move = rng.choice(moves)
        board.push(move)
        pos = ref.apply(pos, ref.RefMove(move.path, move.captures))
        assert board.fen() == pos.to_fen(), f"after {move.long}"
    return max_plies


@pytest.mark.parametrize("seed", range(16))
def test_random_games_from_start_agree(seed: int) -> None:
    rng = random.Random(1000 + seed)
    played = sum(_walk(ref.START_FEN, rng, 200, 7) for _ in range(6))
    assert played > 100


@pytest.mark.parametrize("seed", range(16))
def test_random_walks_from_random_placements_agree(seed: int) -> None:
    rng = random.Random(2000 + seed)
    for _ in range(40):
        _walk(_random_placement(rng), rng, 30, 10)


_SWAP_COLOURS = str.maketrans("bBwW", "wWbB")


def _flip(fen: str) -> str:
    """The same position with colours swapped and the board turned round (square s -> 33 - s)."""
    pos = ref.parse_fen(fen)
    pieces: dict[int, str] = {}
    for (r, c), piece in pos.pieces():
        square = ref.coord_to_square((7 - r, 7 - c))
        assert square is not None
        pieces[square] = piece.translate(_SWAP_COLOURS)
    return _fen_from_pieces("W" if pos.turn == "B" else "B", pieces)


@pytest.mark.parametrize("seed", range(4))
def test_colour_flip_symmetry(seed: int) -> None:
    rng = random.Random(3000 + seed)
    for _ in range(50):
        fen = _random_placement(rng)
        flipped = _flip(fen)
        assert _flip(flipped) == Board(fen).fen()
        a, b = Board(fen).raw, Board(flipped).raw
        assert core.perft(a, 4) == core.perft(b, 4), f"{fen} vs {flipped}"
        assert ref.perft(ref.parse_fen(fen), 2) == core.perft(b, 2)


# ---------------------------------------------------------------------------
# samuel perft on the command line


def _samuel(*args: str) -> list[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "samuel", "perft", *args],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO_ROOT,
        timeout=60,
    )
    return proc.stdout.strip().splitlines()


def test_cli_perft() -> None:
    assert _samuel("--depth", "5")[-1] == "7361"
    assert _samuel("--depth", "5", "--no-bulk")[-1] == "7361"


def test_cli_perft_divide() -> None:
    lines = _samuel("--depth", "5", "--divide")
    total = int(lines[-1])
    parts = [line.rsplit(":", 1) for line in lines[:-1]]
    assert total == 7361
    assert len(parts) == 7
    assert sum(int(n) for _, n in parts) == total
    assert {m.strip() for m, _ in parts} == {"9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16"}


def test_cli_perft_divide_matches_reference() -> None:
    fen = _entry_fen("diamond-through-start")
    lines = _samuel("--fen", fen, "--depth", "4", "--divide")
    pos = ref.parse_fen(fen)
    divided = ref.divide(pos, 4)
    assert int(lines[-1]) == sum(divided.values()) == ref.perft(pos, 4)
    cli_counts = Counter(int(line.rsplit(":", 1)[1]) for line in lines[:-1])
    assert cli_counts == Counter(divided.values())


def test_cli_entry_point() -> None:
    script = Path(sys.executable).parent / "samuel"
    if not script.exists():
        pytest.skip("no samuel console script beside the interpreter")
    out = subprocess.run(
        [str(script), "perft", "--depth", "5"], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    assert out.strip().splitlines()[-1] == "7361"
