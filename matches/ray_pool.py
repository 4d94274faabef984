"""Any function on Ray tasks, behind ``concurrent.futures.Executor``: how ``samuel learn evolve
--executor ray`` plays a generation's games on a cluster (the match runner has its own executor,
``matches.ray_executor``, with retries and engine pools).  The cluster is started or joined the
same way (``init_ray``)."""

from __future__ import annotations

import concurrent.futures
from collections.abc import Callable
from typing import Any

from matches.executor import ExecutorError
from matches.ray_executor import _import_ray, check_address, init_ray


class RayPool(concurrent.futures.Executor):
    """Each ``submit`` is one Ray task; the workers need the package (or this source tree)."""

    def __init__(self, address: str | None = None, num_cpus: int | None = None) -> None:
        ray = _import_ray()
        self._owns = not ray.is_initialized()
        if self._owns:
            init_ray(ray, address, num_cpus)
        self._ray = ray
        self._remote = ray.remote(_call)

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> concurrent.futures.Future[Any]:
        future: concurrent.futures.Future[Any] = self._remote.remote(fn, args, kwargs).future()
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        if self._owns and self._ray.is_initialized():
            self._ray.shutdown()
            self._owns = False


def _call(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    return fn(*args, **kwargs)


def open_ray_pool(address: str | None, workers: int | None) -> tuple[RayPool, int]:
    """A RayPool and how many tasks to keep running on it: ``workers`` (default: the cluster's CPUs).
    ``address``: None starts a local cluster of ``workers`` CPUs, else ``auto`` or HOST:PORT (checked
    first: Ray retries an address nothing answers at for minutes)."""
    if workers is not None and workers < 1:
        raise ExecutorError(f"workers must be at least 1, got {workers}")
    if address is not None:
        check_address(address)
    pool = RayPool(address, workers)
    if workers is None:
        workers = max(1, int(pool._ray.cluster_resources().get("CPU", 1)))
    return pool, workers
