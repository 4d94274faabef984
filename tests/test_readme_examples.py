"""The README's examples run, so they cannot go stale; so do the python examples of docs/.

Every fenced block of README.md is an example: a ``python`` block runs in a fresh interpreter, a
``sh`` block runs under bash (``-e -o pipefail``) and every command in it must call ``samuel``.
Both run in an empty folder with the venv's ``bin`` first on PATH, so ``samuel`` is this checkout's.
A block that needs a running server, a GUI or a long time is marked on the line before its fence:

    <!-- example: skip (why) -->

The reason is required.  Blocks with no language (transcripts, diagrams) are text.  In docs/ only
the ``python`` blocks run, the same way.  No example is timed: the only timeout is one a hang alone
could reach.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
HANG = 1800.0
"""Seconds: only a hang gets here (the README's longest block takes seconds)."""

PYTHON = {"python", "py"}
SHELL = {"sh", "bash", "shell"}
_FENCE = re.compile(r"^(\s*)```(\S*)\s*$")
_MARKER = re.compile(r"^\s*<!--\s*example:\s*skip\b(.*?)-->\s*$")
_REASON = re.compile(r"^\s*\((.+)\)\s*$")

class ExampleError(ValueError):
    """A README block that cannot be classified (a marker without a reason, an unclosed fence)."""


@dataclass(frozen=True)
class Block:
    path: str
    line: int
    """1-based line of the opening fence."""
    lang: str
    code: str
    skip: str | None
    """The marker's reason, or None when the block runs."""

    @property
    def id(self) -> str:
        return f"{self.path}:{self.line}"


def blocks(text: str, path: str) -> list[Block]:
    """The fenced blocks of a Markdown text, with their skip markers."""
    found: list[Block] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        start, lang = i, m.group(2).lower()
        end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == "```"), None)
        if end is None:
            raise ExampleError(f"{path}:{start + 1}: a ``` fence that is never closed")
        skip = None
        if start > 0 and (marker := _MARKER.match(lines[start - 1])):
            reason = _REASON.match(marker.group(1))
            if not reason:
                raise ExampleError(f"{path}:{start}: a skip marker needs a reason: "
                                   "<!-- example: skip (why) -->")
            skip = reason.group(1).strip()
        indent = len(m.group(1))
        code = "\n".join(line[indent:] for line in lines[start + 1:end]) + "\n"
        found.append(Block(path, start + 1, lang, code, skip))
        i = end + 1
    return found


def shell_commands(code: str) -> list[str]:
    """The commands of a shell block: continuation lines joined, comments and blank lines dropped."""
    commands: list[str] = []
    pending = ""
    for raw in code.splitlines():
        line = raw.strip()
        if line.endswith("\\"):
            pending += line[:-1].strip() + " "
            continue
        line = (pending + line).strip()
        pending = ""
        if line and not line.startswith("#"):
            commands.append(line)
    return commands


def not_samuel(code: str) -> list[str]:
    """The commands of a shell block that do not call ``samuel``."""
    return [c for c in shell_commands(code) if not re.search(r"(^|\|\s*)samuel\s", c + " ")]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env["PYTHONPATH"] = str(ROOT)
    env.pop("COLUMNS", None)
    return env


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=_env(), capture_output=True, text=True, timeout=HANG,
                          stdin=subprocess.DEVNULL, check=False)


def _readme_blocks() -> list[Block]:
    return [b for b in blocks(README.read_text(encoding="utf-8"), "README.md") if b.lang in PYTHON | SHELL]


def _docs_python_blocks() -> list[Block]:
    found = []
    for page in sorted(DOCS.rglob("*.md")):
        rel = page.relative_to(ROOT).as_posix()
        found += [b for b in blocks(page.read_text(encoding="utf-8"), rel) if b.lang in PYTHON]
    return found


def _check(block: Block, tmp_path: Path) -> None:
    if block.skip is not None:
        pytest.skip(block.skip)
    if block.lang in PYTHON:
        done = _run([sys.executable, "-c", block.code], tmp_path)
    else:
        strays = not_samuel(block.code)
        assert not strays, (f"{block.id}: a shell example runs only samuel commands; mark the block "
                            f"<!-- example: skip (why) --> or drop: {strays}")
        done = _run(["bash", "-e", "-o", "pipefail", "-c", block.code], tmp_path)
    assert done.returncode == 0, (
        f"{block.id} ({block.lang}) exited {done.returncode}\n--- code\n{block.code}"
        f"--- stdout (tail)\n{done.stdout[-3000:]}\n--- stderr (tail)\n{done.stderr[-3000:]}")


@pytest.mark.parametrize("block", _readme_blocks(), ids=lambda b: b.id)
def test_readme_example_runs(block: Block, tmp_path: Path) -> None:
    _check(block, tmp_path)


@pytest.mark.parametrize("block", _docs_python_blocks(), ids=lambda b: b.id)
def test_docs_python_example_runs(block: Block, tmp_path: Path) -> None:
    _check(block, tmp_path)


def test_the_readme_has_examples_and_few_skips() -> None:
    found = _readme_blocks()
    running = [b for b in found if b.skip is None]
    assert len(running) >= 3, [b.id for b in found]
    assert len(found) - len(running) <= 3, "more skipped README examples than the few allowed: " + ", ".join(
        f"{b.id} ({b.skip})" for b in found if b.skip is not None)


def test_markers_fences_and_shell_commands_are_read_as_written() -> None:
    text = ("intro\n<!-- example: skip (needs a server) -->\n```sh\nnc host 1\n```\n\n"
            "```python\nprint(1)\n```\n  ```sh\n  samuel perft \\\n    --depth 2  # two\n  ```\n"
            "```\ntext\n```\n")
    found = blocks(text, "X.md")
    assert [(b.line, b.lang, b.skip) for b in found] == [
        (3, "sh", "needs a server"), (7, "python", None), (10, "sh", None), (14, "", None)]
    assert shell_commands(found[2].code) == ["samuel perft --depth 2  # two"]
    assert not_samuel(found[0].code) == ["nc host 1"]
    assert not_samuel("printf 'ping\\n' | samuel cb\nsamuel bench --quick\n") == []


def test_a_marker_without_a_reason_and_an_open_fence_are_refused() -> None:
    with pytest.raises(ExampleError, match="needs a reason"):
        blocks("<!-- example: skip -->\n```sh\nx\n```\n", "X.md")
    with pytest.raises(ExampleError, match="never closed"):
        blocks("```python\nprint(1)\n", "X.md")
