"""scripts/build-variant and scripts/depth_nodes.py: the tools behind docs/search-depth.md's tables."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
CAP = 60_000


def _depth_nodes(tree: Path, cwd: Path) -> dict[int, int]:
    script = tree / "scripts" / "depth_nodes.py"
    command = [sys.executable, str(script), "--nodes", str(CAP), "--from-depth", "1"]
    out = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=True, timeout=300)
    assert out.stdout.rstrip().endswith("M nodes per CPU second"), out.stdout
    found = re.findall(r"^d(\d+)\s+([\d,]+) nodes", out.stdout, re.M)
    rows = {int(d): int(n.replace(",", "")) for d, n in found}
    assert rows and list(rows.values()) == sorted(rows.values()), out.stdout  # cumulative
    return rows


HAS_VENV = (REPO / ".venv" / "bin" / "python").exists()
NEEDS_VENV = pytest.mark.skipif(shutil.which("bash") is None or not HAS_VENV,
                                reason="needs bash and the tree's .venv")


BENCH_DEPTH_7_WITHOUT_PROBCUT = 81742
"""The bench signature at depth 7 before ProbCut was on (tests/test_bench_and_sanitize.py's history)."""


@NEEDS_VENV
def test_a_variant_is_built_with_its_define_and_searches_differently(tmp_path: Path) -> None:
    """-DPROBCUT_DEPTH=0 builds the search of the day before ProbCut: its bench signature is that
    search's, and its node counts from the start differ from this tree's."""
    variant = tmp_path / "no-probcut"
    built = subprocess.run([str(REPO / "scripts" / "build-variant"), str(variant), "-DPROBCUT_DEPTH=0"],
                           capture_output=True, text=True, timeout=900)
    assert built.returncode == 0, built.stderr
    assert "-DPROBCUT_DEPTH=0" in built.stdout and (variant / "engine" / "_core.abi3.so").is_file()
    ours, theirs = _depth_nodes(REPO, tmp_path), _depth_nodes(variant, tmp_path)
    assert ours != theirs  # the define reached the compiler
    assert _depth_nodes(REPO, tmp_path) == ours  # and a build's counts are its own, run after run
    bench = subprocess.run([sys.executable, "-m", "samuel", "bench", "--quick", "--depth", "7"], cwd=tmp_path,
                           env={**os.environ, "PYTHONPATH": str(variant)}, capture_output=True, text=True,
                           check=True, timeout=300)
    assert f"Bench: {BENCH_DEPTH_7_WITHOUT_PROBCUT}" in bench.stdout, bench.stdout


@NEEDS_VENV
def test_build_variant_refuses_its_own_tree() -> None:
    """Its copy step empties DIR's engine and csrc first: pointed at the tree itself it must stop."""
    out = subprocess.run([str(REPO / "scripts" / "build-variant"), str(REPO), "-DRAZOR_DEPTH=2"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode != 0
    assert "must not be this tree" in out.stderr
    assert (REPO / "csrc" / "search_pvs.c").is_file()
