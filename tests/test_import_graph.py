"""The packages' import graph: no cycles, and the layers import downward only.

Every import counts, at module level or inside a function (a cycle broken by a late import is still
a cycle in the design); imports under ``if TYPE_CHECKING:`` do not, as they never run.  An edge goes
to the module named (``from a.b import c`` is an edge to ``a.b.c`` when that is a module, else to
``a.b``); compiled extensions are not in the graph.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "protocol", "matches", "samuel", "emu704")
MAY_NOT_IMPORT = {
    "engine": {"protocol", "matches", "samuel"},
    "protocol": {"matches", "samuel"},
    "matches": {"samuel"},
    "emu704": {"engine", "protocol", "matches", "samuel"},
}
"""csrc -> engine -> protocol -> matches -> samuel; the emulator stands alone."""

UPPER_SUBPACKAGES = ("engine.learners", "protocol.client")
"""Layers inside a package: the learners build on the engine and the client library on the
protocol formats, so no module of the package outside them may import them (at any depth,
inside a function too)."""


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def all_modules() -> dict[str, Path]:
    return {module_name(p): p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")}


def _is_type_checking(test: ast.expr) -> bool:
    return "TYPE_CHECKING" in ast.unparse(test)


def imports_of(path: Path, modules: dict[str, Path]) -> set[str]:
    me = module_name(path)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    found: set[str] = set()

    def walk(nodes: list[ast.stmt]) -> None:
        for node in nodes:
            if isinstance(node, ast.If) and _is_type_checking(node.test):
                walk(node.orelse)
                continue
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names if a.name in modules)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join(parts + ([base] if base else []))
                for alias in node.names:
                    if f"{base}.{alias.name}" in modules:
                        found.add(f"{base}.{alias.name}")
                    elif base in modules:
                        found.add(base)
            walk([child for child in ast.iter_child_nodes(node) if isinstance(child, ast.stmt)])

    walk(ast.parse(path.read_text(encoding="utf-8")).body)
    found.discard(me)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = all_modules()
    return {name: imports_of(path, modules) for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> Iterator[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    yield sorted(component)


def test_the_graph_sees_imports_of_every_kind() -> None:
    graph = import_graph()
    assert "engine.core" in graph["engine.board"]  # module level
    assert "engine.backend704" in graph["protocol.local_engine"]  # inside a method
    assert "engine.learners.book_data" not in graph["engine.learners.registry"]  # only under TYPE_CHECKING


def test_no_import_cycles() -> None:
    found = list(cycles(import_graph()))
    assert not found, "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


def test_a_cycle_would_be_found() -> None:
    assert list(cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}})) == [["a", "b", "c"]]


def upward_within_packages(graph: dict[str, set[str]]) -> list[str]:
    def inside(name: str, sub: str) -> bool:
        return name == sub or name.startswith(sub + ".")

    return sorted(
        f"{name} imports {target}"
        for name, targets in graph.items()
        for target in targets
        for sub in UPPER_SUBPACKAGES
        if inside(target, sub) and inside(name, sub.rpartition(".")[0]) and not inside(name, sub)
    )


def test_no_module_imports_an_upper_layer_of_its_own_package() -> None:
    wrong = upward_within_packages(import_graph())
    assert not wrong, "\n".join(wrong)


def test_an_upward_import_inside_a_function_would_be_found() -> None:
    graph = {"engine.board": {"engine.core"}, "engine.evaluators": {"engine.learners.samuel_terms"},
             "engine.learners.rote": {"engine.board"}, "protocol.client.hub": {"protocol.framing"},
             "protocol.local_engine": {"engine.learners.rote"}}  # another package's layer: allowed
    assert upward_within_packages(graph) == ["engine.evaluators imports engine.learners.samuel_terms"]


def test_layers_import_downward_only() -> None:
    wrong = [
        f"{name} imports {target}"
        for name, targets in import_graph().items()
        for target in targets
        if target.split(".")[0] in MAY_NOT_IMPORT.get(name.split(".")[0], set())
    ]
    assert not wrong, "\n".join(sorted(wrong))
