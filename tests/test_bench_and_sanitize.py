"""The bench prints a stable signature; the sanitizer build of the core runs clean."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _bench(*args: str) -> str:
    out = subprocess.run(
        [sys.executable, "-m", "samuel", "bench", *args], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return out.stdout


def test_bench_signature_is_stable() -> None:
    a = _bench("--quick", "--depth", "7")
    b = _bench("--quick", "--depth", "7")
    sig = [line for line in a.splitlines() if line.startswith("Bench: ")]
    assert sig and sig == [line for line in b.splitlines() if line.startswith("Bench: ")]
    assert int(sig[0].split()[1]) > 0


@pytest.mark.slow
def test_bench_full_run_prints_all_figures() -> None:
    out = _bench("--depth", "9", "--perft-depth", "9", "--think", "0.2")
    assert "M leaves/s" in out and "M nodes/s" in out and "depth   reached" in out


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("cc") is None and shutil.which("gcc") is None, reason="needs a C compiler")
def test_sanitizer_build_runs_perft_and_search_clean() -> None:
    out = subprocess.run(
        [str(ROOT / "scripts" / "sanitize"), "7"], capture_output=True, text=True, cwd=ROOT, timeout=600
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "runtime error" not in out.stderr and "ERROR: AddressSanitizer" not in out.stderr
    assert out.stdout.strip().endswith("OK")
