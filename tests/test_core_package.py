"""engine.core is a package of bindings, one module per C header (issue 31), that still offers every
name as ``engine.core.X``; only its ``_ffi`` module imports the compiled core."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import tomllib

import engine.core as core

ROOT = Path(__file__).resolve().parents[1]
MODULES = ("position", "evaluation", "search", "rote", "terms", "network", "piecenet", "egdb")


def _public_top_level(module: str) -> set[str]:
    tree = ast.parse((ROOT / "engine" / "core" / f"{module}.py").read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return {n for n in names if not n.startswith("_")}


def test_every_binding_module_is_reexported_whole() -> None:
    for module in MODULES:
        mod = importlib.import_module(f"engine.core.{module}")
        for name in _public_top_level(module):
            assert name in core.__all__, f"engine.core.{module}.{name} is not in engine.core.__all__"
            assert getattr(core, name) is getattr(mod, name)


def test_all_names_resolve_and_include_the_cffi_handles() -> None:
    assert {"ffi", "lib", "CoreEngine", "CoreLimits", "EvalSpec", "RawPosition", "RoteTable",
            "EgdbTables", "eval_kind_flags"} <= set(core.__all__)
    for name in core.__all__:
        assert hasattr(core, name), name


def test_the_search_defaults_are_unchanged() -> None:
    limits = core.CoreLimits()
    assert (limits.mode, limits.depth, limits.driver, limits.samuel_breaks, limits.contempt) == (
        core.MODE_PVS, 0, core.DRIVER_PVS, (4, 5, 11, 20), 0)
    engine = core.CoreEngine(8)  # the size is always the caller's: the default lives in engine.options
    assert engine.hash_mb == 8
    engine.close()


def test_only_the_ffi_module_imports_the_compiled_core() -> None:
    importers = []
    for top in ("engine", "protocol", "matches", "samuel"):
        for path in (ROOT / top).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (isinstance(node, ast.ImportFrom) and node.module == "engine._core") or (
                    isinstance(node, ast.Import) and any(a.name == "engine._core" for a in node.names)
                ):
                    importers.append(path.relative_to(ROOT).as_posix())
    assert importers == ["engine/core/_ffi.py"]


def test_a_wheel_carries_the_package() -> None:
    # setuptools is given its packages by name (pyproject.toml): a subpackage left out would be
    # missing from a non-editable install.
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = config["tool"]["setuptools"]["packages"]
    assert "engine.core" in listed
