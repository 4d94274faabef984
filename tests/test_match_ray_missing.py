"""The Ray executor without Ray: the module imports, and starting says what to install."""

from __future__ import annotations

import asyncio
import sys

import pytest

from matches.executor import ExecutorError
from matches.ray_executor import NEEDS_RAY, RayExecutor
from matches.referee import GameRules


def test_start_without_ray_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # makes `import ray` raise ImportError
    executor = RayExecutor({}, GameRules())
    with pytest.raises(ExecutorError) as caught:
        asyncio.run(executor.start())
    assert str(caught.value) == NEEDS_RAY == "the Ray executor needs Ray: pip install 'samuel[ray]'"
