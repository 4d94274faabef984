"""Search labels on Ray: a local cluster of one CPU and one of two give the labels the local threads give.

Each call starts its own local cluster (on loopback) and shuts it down, since the cluster's size is
what is compared; Ray takes seconds to start, hence slow.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'samuel[ray]')")

from engine import evaluators  # noqa: E402  (after the skip)
from engine.learners import piece_net, search_labels  # noqa: E402
from matches.ray_pool import open_ray_pool  # noqa: E402

PDN = Path(__file__).parent / "data" / "oca_first60.pdn"

pytestmark = pytest.mark.slow


@pytest.fixture
def environment() -> Iterator[None]:
    """Starting a local cluster sets a variable (matches.ray_executor.LOOPBACK_SWITCH); put it back."""
    saved = dict(os.environ)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@pytest.mark.parametrize("workers", [1, 2])
def test_ray_workers_give_the_local_labels(workers: int, environment: None, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search_labels, "CHUNK", 64)  # cut here, in the driver: 5 chunks
    ev = evaluators.by_name("piece-net")
    rows = piece_net.load(PDN, limit_games=20).rows[:300]
    local = search_labels.label(rows, ev, 4, workers=1)
    seen: list[tuple[int, int]] = []
    cpus: list[float] = []

    def follow(done: int, total: int) -> None:
        seen.append((done, total))
        if ray.is_initialized():
            cpus.append(ray.cluster_resources().get("CPU", 0))

    labels = search_labels.label(rows, ev, 4, pool=lambda: open_ray_pool(None, workers), cache_dir=tmp_path,
                                 progress=follow)
    assert labels.tobytes() == local.tobytes()
    assert seen[-1] == (300, 300) and set(cpus) == {workers}, "a local cluster of that many CPUs"
    assert not ray.is_initialized(), "the cluster the labelling started is shut down"
    [cached] = tmp_path.glob("labels-piece-net-d4-*.npy")
    assert np.load(cached).tobytes() == local.tobytes()
