"""scripts/test and scripts/serve install only when the sources changed (scripts/lib/ensure-venv.sh)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
LIB = REPO / "scripts" / "lib" / "ensure-venv.sh"

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def _bash(script: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", f". {LIB}; {script}"], cwd=cwd, capture_output=True, text=True,
                          timeout=600, env={**os.environ, "PYTHON": sys.executable, **env})


def _inputs(cwd: Path, extras: str = ".[test,ray]") -> str:
    out = _bash(f"samuel_install_inputs '{extras}'", cwd)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_the_stamp_follows_the_sources_and_the_extras(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    for name in ("pyproject.toml", "setup.py"):
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / name, tree / name)
    shutil.copytree(REPO / "csrc", tree / "csrc", ignore=shutil.ignore_patterns("__pycache__", "*.o"))
    shutil.copytree(REPO / "emu704" / "csrc", tree / "emu704" / "csrc",
                    ignore=shutil.ignore_patterns("__pycache__"))
    first = _inputs(tree)
    assert _inputs(tree) == first  # stable
    assert _inputs(tree, ".") != first  # the extras are part of it
    (tree / "README.txt").write_text("not a build input")
    assert _inputs(tree) == first
    search_c = tree / "csrc" / "search.c"
    search_c.write_text(search_c.read_text() + "\n/* changed */\n")
    assert _inputs(tree) != first  # a C change means a rebuild
    changed = _inputs(tree)
    (tree / "emu704" / "csrc" / "cpu704.h").write_text("/* changed */\n")
    assert _inputs(tree) != changed


def test_an_installed_tree_is_not_reinstalled() -> None:
    """After scripts/test has run (as it has, to run this), setting up again installs nothing."""
    if not (REPO / ".venv" / ".samuel-install").is_file():
        pytest.skip("the .venv was not made by scripts/test")
    for extras in (".[test,ray]", "."):
        out = _bash(f"samuel_ensure_venv '{extras}'", REPO, SAMUEL_SETUP_VERBOSE="1",
                    PIP_NO_INDEX="1")  # and no index: an install would fail here
        assert out.returncode == 0, out.stderr
        assert f"up to date ({extras})" in out.stderr
