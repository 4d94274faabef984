"""The bench's re-search, table and per-iteration figures (issue 32, docs/search-depth.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from engine.bench import profile, share
from engine.board import Board
from engine.evaluators import by_name
from engine.limits import Limit
from engine.search import Mode, Searcher

ROOT = Path(__file__).resolve().parents[1]


def test_profile_counts_researches_and_stores() -> None:
    p = profile(7, hash_mb=16)
    s = p.pvs
    assert 0 <= s.zw_researches <= s.zw_searches and s.zw_searches > 0
    assert 0 <= s.lmr_researches <= s.lmr_searches <= s.zw_searches and s.lmr_searches > 0
    assert 0 <= s.asp_fails <= s.asp_searches and s.asp_searches > 0  # windows from depth 4
    assert 0 <= s.tt_evict_deep <= s.tt_evictions <= s.tt_stores <= p.nodes and s.tt_stores > 0
    assert s.pruned > 0  # the static-score cut (RFP_DEPTH) is on by default
    assert s.qs_threats == 0  # the quiescence candidate is off
    assert p.start_iterations == p.iteration_nodes[0] and len(p.start_iterations) == 7


def test_mtdf_opens_no_aspiration_window() -> None:
    assert profile(5, hash_mb=16, mtdf=True).pvs.asp_searches == 0


def test_other_modes_report_no_pvs_figures() -> None:
    """The figures are reset by each search, so a Samuel-mode search after a PVS one reports none."""
    searcher = Searcher(by_name("default"), mode=Mode.PVS, hash_mb=16)
    assert searcher.search(Board(), Limit(depth=6)).info.pvs.zw_searches > 0
    searcher.mode = Mode.SAMUEL  # the same C engine
    assert searcher.search(Board(), Limit(depth=3)).info.pvs.zw_searches == 0


def test_share_of_nothing_is_zero() -> None:
    assert share(0, 0) == 0.0 and share(1, 4) == 0.25


def test_bench_prints_researches_table_and_start_iterations() -> None:
    out = subprocess.run([sys.executable, "-m", "samuel", "bench", "--quick", "--depth", "5"],
                         capture_output=True, text=True, check=True, cwd=ROOT).stdout
    lines = {line.split()[0]: line for line in out.splitlines() if line.strip()}
    assert "zero-window fails re-searched" in lines["re-search"]
    assert "aspiration windows failed" in lines["re-search"]
    assert "stores" in lines["table"] and "pruned" in lines["table"]
    start = lines["start"].split(": ", 1)[1].split(", ")
    assert [item.split()[0] for item in start] == ["d1", "d2", "d3", "d4", "d5"]
    assert all(int(item.split()[1]) > 0 for item in start)
