"""The Ray executor without Ray: the module imports, and starting says what to install."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

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


def test_an_address_nothing_answers_at_is_named_at_once(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """Every Ray user (the match runner, evolve, the search labels) checks the address before
    ``ray.init``, which would retry a dead address for minutes; the command says so in one line."""
    from matches.ray_executor import check_address
    from samuel.cli import main

    with pytest.raises(ExecutorError, match=r"no Ray cluster answers at 127\.0\.0\.1:1 "):
        check_address("127.0.0.1:1")
    with pytest.raises(ExecutorError, match="is not HOST:PORT"):
        check_address("nowhere")
    pytest.importorskip("ray")
    args = ["learn", "evolve", "--generations", "1", "--parents", "3", "--games", "1", "--depth", "1",
            "--executor", "ray", "--ray-address", "127.0.0.1:1", "--out", str(tmp_path)]
    assert main(args) == 2
    assert "no Ray cluster answers at 127.0.0.1:1" in capsys.readouterr().err
