"""scripts/reproduce-agreement: every named evaluator it measures exists."""

from __future__ import annotations

import importlib.machinery
import importlib.util
from pathlib import Path
from types import ModuleType

from engine.evaluators import by_name

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "reproduce-agreement"


def _script() -> ModuleType:
    loader = importlib.machinery.SourceFileLoader("reproduce_agreement", str(SCRIPT))
    spec = importlib.util.spec_from_loader("reproduce_agreement", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def test_every_engine_evaluator_row_names_a_shipped_evaluator() -> None:
    names = [name for name, _paper in _script().ENGINE_EVALUATORS]
    assert {"default", "default-2026-11", "samuel-alpha"} <= set(names)
    for name in names:
        assert by_name(name).name == name
