"""The engine package never imports the protocol layer and never prints."""

from __future__ import annotations

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[1] / "engine"
FORBIDDEN_IMPORTS = {"protocol", "asyncio", "samuel"}


def _engine_sources() -> list[Path]:
    return sorted(p for p in ENGINE.rglob("*.py"))


def test_engine_has_sources() -> None:
    assert len(_engine_sources()) >= 8


def test_engine_never_imports_protocol_or_prints() -> None:
    problems = []
    for path in _engine_sources():
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                names = []
            for name in names:
                if name.split(".")[0] in FORBIDDEN_IMPORTS:
                    problems.append(f"{path.name}:{node.lineno} imports {name}")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
                problems.append(f"{path.name}:{node.lineno} calls print")
            if isinstance(node, ast.Attribute) and node.attr in ("stdout", "stderr"):
                problems.append(f"{path.name}:{node.lineno} touches sys.{node.attr}")
    assert not problems, problems
