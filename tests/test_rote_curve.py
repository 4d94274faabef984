"""scripts/rote-curve's core on a tiny size: the memory grows by stages and each stage's match is
the rote player against the same polynomial without memory, colour-reversed pairs."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

from test_rote_book import TWO_GAMES

from engine.evaluators import by_name
from matches.openings import ballot_deck

ROOT = Path(__file__).resolve().parents[1]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("rote_curve", ROOT / "scripts" / "rote_curve.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["rote_curve"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_curve_grows_the_memory_and_plays_pairs(tmp_path: Path) -> None:
    rc = _script()
    pdn = tmp_path / "two.pdn"
    pdn.write_text(TWO_GAMES)
    openings = ballot_deck("crossboard")[:2]
    ev = by_name("samuel-rote")
    book = rc.run_curve(pdn, [0, 2, 5], tmp_path / "b.db", evaluator=ev, openings=openings,
                        depth=2, max_plies=30)
    assert [s.games for s in book] == [0, 2]  # the file has two games: the curve stops there
    empty, full = book
    assert empty.positions == 0 and full.positions == 26  # 28 plies; both games pass the start and 11-15
    for s in book:
        assert s.wins + s.draws + s.losses == 4 and sum(s.pairs) == 2
    # With no memory the two players are the same program: every pair splits evenly.
    assert empty.score == 0.5 and empty.pairs[2] == 2 and empty.hits_per_game == 0

    selfp = rc.run_curve(pdn, [0, 3], tmp_path / "s.db", evaluator=ev, openings=openings, source="self",
                         depth=2, max_plies=30)
    assert [s.games for s in selfp] == [0, 3] and selfp[1].positions > 0

    (tmp_path / "curve-book.json").write_text(json.dumps({"stages": [vars(s) for s in book]}))
    png = tmp_path / "curve.png"
    rc.plot(rc.load_series(tmp_path, quick=False), png, "test")
    assert png.read_bytes()[:4] == b"\x89PNG"
