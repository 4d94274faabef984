"""docs/architecture.md names every package and module of the source tree, and nothing else.

A module is a ``.py``, ``.c`` or ``.h`` file under one of ``SOURCE_ROOTS``; a package is a folder
there that holds one (a Python package or a C source folder).  The doc names each by its path from
the repository root in backquotes: ``engine/board.py``, ``engine/learners/``.  A package's entry
stands for its ``__init__.py``.  Paths in backquotes that start with a source root must exist (a
``*`` in one must match something), so a rename shows up as one missing and one extra entry.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
SOURCE_ROOTS = ("engine", "protocol", "matches", "samuel", "emu704", "cbdll", "csrc")
MODULE_SUFFIXES = {".py", ".c", ".h"}
GENERATED = {"engine/_core.c", "emu704/_fast.c"}
"""cffi writes these beside the extension at build time (gitignored)."""
SKIP_DIRS = {"__pycache__", "build"}

_PATH_IN_BACKQUOTES = re.compile(r"`((?:" + "|".join(SOURCE_ROOTS) + r")/[^`\s]*)`")


def tree_entries(root: Path = ROOT) -> set[str]:
    """Every module and package under the source roots, as the doc writes them."""
    found: set[str] = set()
    for top in SOURCE_ROOTS:
        for path in (root / top).rglob("*"):
            rel = path.relative_to(root)
            if SKIP_DIRS & set(rel.parts) or not path.is_file() or path.suffix not in MODULE_SUFFIXES:
                continue
            name = rel.as_posix()
            if name in GENERATED:
                continue
            if path.name != "__init__.py":
                found.add(name)
            # every folder from the root down to this file is a package
            for depth in range(1, len(rel.parts)):
                found.add("/".join(rel.parts[:depth]) + "/")
    return found


def doc_entries(text: str) -> set[str]:
    """The source paths a doc names in backquotes (``engine/`` and ``engine/board.py`` alike)."""
    return {m.group(1) for m in _PATH_IN_BACKQUOTES.finditer(text)}


def compare(named: set[str], present: set[str], root: Path = ROOT) -> tuple[list[str], list[str]]:
    """(missing from the doc, named by the doc but not in the tree)."""
    covered: set[str] = set()
    extra: list[str] = []
    for entry in named:
        if "*" in entry:
            hits = {p.relative_to(root).as_posix() for p in root.glob(entry)}
            if not hits:
                extra.append(entry)
            covered |= hits
            continue
        if (entry.endswith("/") and (root / entry).is_dir()) or (root / entry).is_file():
            covered.add(entry)
        else:
            extra.append(entry)
    return sorted(present - covered), sorted(extra)


def test_the_doc_names_every_package_and_module_and_nothing_else() -> None:
    missing, extra = compare(doc_entries(DOC.read_text(encoding="utf-8")), tree_entries())
    lines = []
    if missing:
        lines.append(f"{len(missing)} missing from docs/architecture.md (add a line for each):")
        lines += [f"  + {m}" for m in missing]
    if extra:
        lines.append(f"{len(extra)} named in docs/architecture.md but not in the tree (remove or rename):")
        lines += [f"  - {e}" for e in extra]
    assert not lines, "\n".join(lines)


def test_a_new_module_and_a_removed_one_are_both_reported(tmp_path: Path) -> None:
    (tmp_path / "engine" / "core").mkdir(parents=True)
    (tmp_path / "engine" / "__init__.py").write_text("")
    (tmp_path / "engine" / "core" / "__init__.py").write_text("")
    (tmp_path / "engine" / "core" / "search.py").write_text("")
    (tmp_path / "engine" / "_core.c").write_text("")  # generated: never asked for
    (tmp_path / "engine" / "__pycache__").mkdir()
    (tmp_path / "engine" / "__pycache__" / "x.py").write_text("")
    doc = "`engine/` the engine; `engine/core.py` the old wrappers; `engine/core/` the bindings"
    missing, extra = compare(doc_entries(doc), tree_entries(tmp_path), tmp_path)
    assert missing == ["engine/core/search.py"]
    assert extra == ["engine/core.py"]


def test_a_glob_covers_what_it_matches_and_must_match_something(tmp_path: Path) -> None:
    (tmp_path / "csrc").mkdir()
    (tmp_path / "csrc" / "search_pvs.c").write_text("")
    (tmp_path / "csrc" / "search_fogel.c").write_text("")
    doc = "`csrc/` `csrc/search_*.c` `csrc/table_*.c`"
    missing, extra = compare(doc_entries(doc), tree_entries(tmp_path), tmp_path)
    assert missing == []
    assert extra == ["csrc/table_*.c"]
