"""The endgame database (csrc/egdb.c, engine/egdb.py, ``samuel egdb``).

The C tables are compared with a slow, independent solver: the reference move
generator of ``tests/reference_rules.py`` and a fixpoint over the explicit graph
of every position reachable from a signature (won if some move reaches a
position lost for the opponent, lost if every move reaches a won one or there
is none, drawn if neither is ever proved).  Slot counts are compared with a
brute-force enumeration of the positions of a signature.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
import reference_rules as ref

from engine import Board, core, egdb
from samuel.cli import main

ALL = frozenset(range(1, 33))
BLACK_MEN_SQUARES = frozenset(range(1, 29))  # a black man on 29..32 would have been crowned
WHITE_MEN_SQUARES = frozenset(range(5, 33))
Sig = egdb.Signature


@pytest.fixture(scope="module")
def db3(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, egdb.Database]:
    out = tmp_path_factory.mktemp("egdb3")
    return out, egdb.build(3, out)


def _set(squares: tuple[int, ...]) -> int:
    return sum(1 << (s - 1) for s in squares)


def brute_positions(sig: egdb.Signature, side: int) -> Iterator[core.RawPosition]:
    """Every position of a signature, from nothing but the rules of where pieces may stand."""
    for bms in itertools.combinations(sorted(BLACK_MEN_SQUARES), sig.bm):
        for wms in itertools.combinations(sorted(WHITE_MEN_SQUARES - set(bms)), sig.wm):
            rest = sorted(ALL - set(bms) - set(wms))
            for bks in itertools.combinations(rest, sig.bk):
                for wks in itertools.combinations(sorted(set(rest) - set(bks)), sig.wk):
                    yield core.RawPosition(_set(bms), _set(bks), _set(wms), _set(wks), side)


def to_ref(raw: core.RawPosition) -> ref.Position:
    def group(men: int, kings: int) -> str:
        items = [str(s) for s in range(1, 33) if men >> (s - 1) & 1]
        items += [f"K{s}" for s in range(1, 33) if kings >> (s - 1) & 1]
        return ",".join(items)

    white, black = group(raw.white_men, raw.white_kings), group(raw.black_men, raw.black_kings)
    return ref.parse_fen(f"{'BW'[raw.turn]}:W{white}:B{black}")


def ref_solve(starts: list[ref.Position]) -> dict[ref.Position, int]:
    """Value of every position reachable from ``starts``, by the reference generator and a fixpoint."""
    succ: dict[ref.Position, list[ref.Position]] = {}
    stack = list(starts)
    while stack:
        p = stack.pop()
        if p in succ:
            continue
        kids = [ref.apply(p, m) for m in ref.legal_moves(p)]
        succ[p] = kids
        stack.extend(k for k in kids if k not in succ)
    value: dict[ref.Position, int | None] = dict.fromkeys(succ)
    changed = True
    while changed:
        changed = False
        for p, kids in succ.items():
            if value[p] is not None:
                continue
            vs = [value[k] for k in kids]
            if egdb.LOSS in vs:
                value[p] = egdb.WIN
            elif all(v == egdb.WIN for v in vs):
                value[p] = egdb.LOSS
            else:
                continue
            changed = True
    return {p: egdb.DRAW if v is None else v for p, v in value.items()}


def test_build_order_puts_successors_first() -> None:
    sigs = egdb.signatures(5)
    seen: set[egdb.Signature] = set()
    for s in sigs:
        # a crowning (one man fewer, one king more) and a capture (one piece fewer) lead to earlier ones
        for crowned in (Sig(s.bm - 1, s.bk + 1, s.wm, s.wk), Sig(s.bm, s.bk, s.wm - 1, s.wk + 1)):
            if min(crowned.bm, crowned.wm) >= 0:
                assert crowned in seen
        seen.add(s)
    assert len(sigs) == len(set(sigs))
    assert egdb.Signature(0, 1, 0, 1) == sigs[0]


@pytest.mark.parametrize("sig", [Sig(0, 1, 0, 1), Sig(1, 0, 0, 1), Sig(1, 0, 1, 0),
                                 Sig(2, 0, 1, 0), Sig(1, 1, 1, 0), Sig(0, 2, 1, 0)])
def test_slots_hold_exactly_the_brute_force_positions(db3: tuple[Path, egdb.Database], sig: Sig) -> None:
    _, db = db3
    for side in (0, 1):
        brute = set(brute_positions(sig, side))
        slots = dict(db.positions(sig, side))
        assert set(slots.values()) == brute
        assert len(slots) == len(brute)
        for i, raw in slots.items():
            assert core.egdb_index(raw) == i
        _, counts = db.check(sig, side)
        assert counts["win"] + counts["loss"] + counts["draw"] == len(brute)
        assert counts["none"] == sig.size - len(brute)


def test_every_table_is_consistent_with_its_successors(db3: tuple[Path, egdb.Database]) -> None:
    _, db = db3
    sigs = db.signatures()
    assert len(sigs) == len(egdb.signatures(3)) == 16
    for sig in sigs:
        for side in (0, 1):
            bad, _ = db.check(sig, side)
            assert bad == 0, sig


@pytest.mark.parametrize("sig", [Sig(0, 1, 0, 1), Sig(1, 0, 0, 1), Sig(0, 1, 1, 0), Sig(1, 0, 1, 0),
                                 pytest.param(Sig(0, 2, 0, 1), marks=pytest.mark.slow)])
def test_values_match_the_reference_solver(db3: tuple[Path, egdb.Database], sig: Sig) -> None:
    _, db = db3
    raws = [raw for side in (0, 1) for raw in brute_positions(sig, side)]
    refs = [to_ref(raw) for raw in raws]
    solved = ref_solve(refs)
    wrong = [(p.to_fen(), db.probe(raw), solved[p]) for raw, p in zip(raws, refs, strict=True)
             if db.probe(raw) != solved[p]]
    assert wrong == []


def test_known_results(db3: tuple[Path, egdb.Database]) -> None:
    _, db = db3
    # two kings against one: the side with two kings to move wins nearly everywhere
    bad, counts = db.check(egdb.Signature(0, 2, 0, 1), 0)
    assert bad == 0
    assert counts["win"] >= 0.99 * (counts["win"] + counts["draw"] + counts["loss"])
    assert counts["loss"] == 0
    # a king against a king is a draw unless a capture is near (a king caught at the edge)
    _, counts = db.check(egdb.Signature(0, 1, 0, 1), 0)
    assert counts["draw"] > 0.6 * 992 and counts["win"] + counts["loss"] + counts["draw"] == 992
    assert db.probe(Board("B:WK32:BK1").raw) == egdb.DRAW  # both in their double corners
    assert db.probe(Board("B:WK18:BK14").raw) == egdb.WIN  # 14x23 at once
    assert db.probe(Board("B:WK7:BK1").raw) == egdb.WIN  # 1-6 and White must step next to it
    # men: a man one step from crowning against a distant king
    assert db.probe(Board("B:WK32:B27").raw) in (egdb.WIN, egdb.DRAW)
    assert db.probe(Board("B:WK10:BK1,K2").raw) == egdb.WIN
    # four pieces are not in a 3-piece database; a side to move with no pieces has lost
    assert db.probe(Board("B:WK10,K11:BK1,K2").raw) is None


def test_torn_and_foreign_files_are_named_errors_and_rebuilt(tmp_path: Path) -> None:
    egdb.build(2, tmp_path)
    sig = egdb.Signature(0, 1, 0, 1)
    path = egdb.table_path(tmp_path, sig, 0)
    whole = path.read_bytes()
    path.write_bytes(whole[:-10])
    with pytest.raises(egdb.EgdbError, match="torn"):
        egdb.read_table(path)
    with pytest.raises(egdb.EgdbError, match="torn"):
        egdb.Database.open(tmp_path)
    path.write_bytes(whole[:10])
    with pytest.raises(egdb.EgdbError, match="torn"):
        egdb.read_table(path)
    path.write_bytes(b"X" * len(whole))
    with pytest.raises(egdb.EgdbError, match="magic"):
        egdb.read_table(path)
    flipped = bytearray(whole)
    flipped[-1] ^= 0xFF
    path.write_bytes(bytes(flipped))
    with pytest.raises(egdb.EgdbError, match="checksum"):
        egdb.read_table(path)
    # resume: the bad signature is rebuilt, the good ones are kept
    steps: list[egdb.BuildStep] = []
    egdb.build(2, tmp_path, lambda step, _d, _t: steps.append(step))
    assert path.read_bytes() == whole
    rebuilt = {s.signature for s in steps if s.passes > 0}
    assert rebuilt == {sig}
    with pytest.raises(egdb.EgdbError, match="no such endgame database"):
        egdb.Database.open(tmp_path / "nothing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(egdb.EgdbError, match="no endgame tables"):
        egdb.Database.open(tmp_path / "empty")


def test_resume_keeps_valid_files(db3: tuple[Path, egdb.Database]) -> None:
    out, _ = db3
    steps: list[egdb.BuildStep] = []
    egdb.build(3, out, lambda step, _d, _t: steps.append(step))
    assert len(steps) == 16 and all(s.passes == 0 for s in steps)


def test_cli_build_check_probe(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["egdb", "build", "--pieces", "3", "--out", str(tmp_path), "--quiet"]) == 0
    assert "16 signatures" in capsys.readouterr().out
    assert main(["egdb", "check", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "consistent" in out and "0201" in out
    assert main(["egdb", "probe", str(tmp_path), "B:WK10:BK1,K2"]) == 0
    assert capsys.readouterr().out.startswith("win")
    assert main(["egdb", "probe", str(tmp_path), "B:WK10,K11:BK1,K2"]) == 1
    egdb.table_path(tmp_path, egdb.Signature(0, 1, 0, 1), 1).write_bytes(b"short")
    assert main(["egdb", "check", str(tmp_path)]) == 2
    assert "torn" in capsys.readouterr().err


@pytest.mark.slow
def test_four_pieces_build_and_check(tmp_path: Path) -> None:
    db = egdb.build(4, tmp_path)
    sigs = db.signatures()
    assert len(sigs) == len(egdb.signatures(4)) == 41
    assert sum(2 * s.size for s in sigs) == 13_125_184
    for sig in sigs:
        for side in (0, 1):
            assert db.check(sig, side)[0] == 0, (sig, side)
    assert db.probe(Board("B:WK10,K11:BK1,K2").raw) is not None
