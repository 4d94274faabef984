"""The Ray executor: every game a Ray task, on this machine or across a cluster.

Each game runs ``play_with_fresh_engines`` in a Ray worker, with engines
started for that game and gone with it.  What Ray adds over the local pool
(measured in ../shared/reference/matches-and-ratings.md, §3.3):

- a worker (or node) lost mid-game is retried, up to ``max_retries`` times,
  and the game's record comes back once; a game that finished is never
  silently played again;
- cancelling ``play`` (an SPRT stop, Ctrl-C) force-cancels the task, which
  kills its worker and, with it, the engine processes in the worker's process
  group;
- games are scheduled by CPUs (``cpus_per_game``), so a cluster of several
  machines fills up without further set-up.

Ray is an optional extra (``pip install 'samuel[ray]'``), imported only when
the executor starts, so this module imports without it.  Games and engines
cross to the workers as plain dicts (``to_dict``/``from_dict``), and workers
import ``matches`` and ``engine`` themselves: installed, or from this source
tree, which the executor puts on the workers' ``PYTHONPATH``.
"""

from __future__ import annotations

import asyncio
import logging
import math
import os
import socket
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from matches.executor import Executor, ExecutorError
from matches.player import EngineStartError
from matches.record import GameSpec, MatchGame
from matches.referee import GameRules

if TYPE_CHECKING:
    from matches.engines import EngineSpec

log = logging.getLogger(__name__)

NEEDS_RAY = "the Ray executor needs Ray: pip install 'samuel[ray]'"

CONNECT_SECONDS = 10.0
"""How long a Ray address may take to accept a connection: ``ray.init`` itself retries an address
nothing answers at for minutes before it gives up."""

LOOPBACK_SWITCH = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
"""0 keeps a local cluster on 127.0.0.1; otherwise Ray binds the machine's routable address
(``resolve_ip_for_localhost``), which fails where only loopback is allowed.  Ray reads it into
``ray._private.ray_constants.ENABLE_RAY_CLUSTER`` when imported.  Undocumented, so the ``ray``
extra pins the versions it was tested with."""

SOURCE_ROOT = Path(__file__).resolve().parents[1]
"""The directory holding the ``matches`` and ``engine`` packages."""


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ExecutorError(NEEDS_RAY) from None
    return ray


def _attempt() -> int:
    """Which try of the current Ray task this is, counting from 1 (1 when Ray will not say)."""
    try:
        import ray

        worker = ray._private.worker.global_worker
        return int(worker.core_worker.get_current_task_attempt_number()) + 1  # type: ignore[attr-defined]
    except Exception:  # a private API: its absence only costs the count
        return 1


def play_remote(spec: dict[str, Any], engines: dict[str, dict[str, Any]],
                rules: dict[str, Any], first: list[str] | None = None) -> dict[str, Any]:
    """One game inside a Ray worker, from and to plain dicts (the body of the Ray task).

    ``first``: the engines not yet seen to start in this run (EngineStartError if one cannot).
    """
    from matches.engines import EngineSpec
    from matches.executor import play_with_fresh_engines

    record = asyncio.run(play_with_fresh_engines(
        GameSpec.from_dict(spec),
        {name: EngineSpec.from_dict(e) for name, e in engines.items()},
        GameRules.from_dict(rules),
        first or (),
    ))
    record.attempt = _attempt()
    return record.to_dict()


def _stay_on_loopback(ray: Any) -> None:
    """Keep a local cluster on 127.0.0.1 (unless the environment says ``LOOPBACK_SWITCH=1``).

    The cluster's processes read the variable from the environment; this
    process read it when ``ray`` was imported, so the constant is set to match.
    """
    os.environ.setdefault(LOOPBACK_SWITCH, "0")
    if os.environ[LOOPBACK_SWITCH].lower() not in ("1", "true"):  # Ray's own reading of it
        constants = getattr(getattr(ray, "_private", None), "ray_constants", None)
        if constants is not None and hasattr(constants, "ENABLE_RAY_CLUSTER"):
            constants.ENABLE_RAY_CLUSTER = False


def _worker_env() -> dict[str, Any] | None:
    """The job's runtime_env: this source tree on the workers' path, unless the packages are installed."""
    if any(part in ("site-packages", "dist-packages") for part in SOURCE_ROOT.parts):
        return None
    path = str(SOURCE_ROOT)
    if os.environ.get("PYTHONPATH"):
        path += os.pathsep + "${PYTHONPATH}"  # Ray expands it to the worker's own value
    return {"env_vars": {"PYTHONPATH": path}}


def check_address(address: str) -> None:
    """ExecutorError unless something accepts connections at ``address`` (HOST:PORT, or ``auto``,
    which is left to Ray: it says at once when no cluster runs on this machine)."""
    if address == "auto":
        return
    host, sep, port = address.split("://", 1)[-1].rpartition(":")
    if not sep or not host or not port.isdigit():
        raise ExecutorError(f"Ray address {address!r} is not HOST:PORT (or auto)")
    try:
        socket.create_connection((host, int(port)), timeout=CONNECT_SECONDS).close()
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        raise ExecutorError(f"no Ray cluster answers at {address} ({why}); "
                            f"start one there with `ray start --head`") from None


def init_ray(ray: Any, address: str | None, num_cpus: int | None) -> None:
    """Join Ray at ``address``, or start a local cluster on loopback with ``num_cpus``; the
    workers find this source tree.  ExecutorError naming where, when it cannot."""
    kwargs: dict[str, Any] = {
        "include_dashboard": False,
        "logging_level": logging.ERROR,
        "log_to_driver": False,
        "configure_logging": True,
    }
    env = _worker_env()
    if env is not None:
        kwargs["runtime_env"] = env
    if address is None:
        _stay_on_loopback(ray)
        kwargs["num_cpus"] = num_cpus if num_cpus is not None else os.cpu_count() or 1
    else:
        check_address(address)
        kwargs["address"] = address
    try:
        ray.init(**kwargs)
    except Exception as exc:
        where = "a local Ray cluster" if address is None else f"Ray at {address}"
        raise ExecutorError(f"cannot start {where}: {type(exc).__name__}: {exc}") from exc


class RayExecutor(Executor):
    """Games as Ray tasks: on a local cluster it starts (``address=None``) or an existing one.

    ``address`` is passed to ``ray.init``: ``"auto"`` joins the cluster this
    machine belongs to (``ray start --head`` / ``ray start --address=…``),
    ``ray://HOST:10001`` connects as a Ray client (that needs ``ray[client]``,
    which the ``ray`` extra does not install).  ``num_cpus`` sizes a local
    cluster (when None: the cores, or enough for ``concurrency`` games if
    that is more).  ``max_retries`` is how often a game lost with its worker
    is played again; a game that raises is not retried (the referee turns
    engine faults into results, so an exception is a bug).

    If Ray is already initialised in this process the executor uses that
    connection and leaves it open on ``close``; it shuts down only a cluster
    (or connection) that its own ``start`` made, and a connection's shutdown
    leaves the cluster itself running.  ``start``, ``play`` and ``close``
    belong to one event loop.
    """

    def __init__(self, engines: Mapping[str, EngineSpec], rules: GameRules, concurrency: int = 2, *,
                 address: str | None = None, num_cpus: int | None = None, max_retries: int = 3,
                 cpus_per_game: float = 1.0) -> None:
        if concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, got {concurrency}")
        if max_retries < 0:
            raise ValueError(f"max_retries must not be negative, got {max_retries}")
        if cpus_per_game < 0:
            raise ValueError(f"cpus_per_game must not be negative, got {cpus_per_game}")
        self.engines = dict(engines)
        self.rules = rules
        self.concurrency = concurrency
        self.address = address
        self.num_cpus = num_cpus
        self.max_retries = max_retries
        self.cpus_per_game = cpus_per_game
        self._ray: Any = None
        self._task: Any = None
        self._owns_ray = False
        self._slots: asyncio.Semaphore | None = None
        self._running: dict[str, Any] = {}
        """Game id -> ObjectRef of the games in flight."""
        self._closed_on: set[str] = set()
        """Games in flight when ``close`` cancelled them."""
        self._started: set[str] = set()
        """Engines a game has started: a failed start is theirs to lose from then on."""
        self._engine_dicts = {name: e.to_dict() for name, e in self.engines.items()}
        self._rules_dict = rules.to_dict()

    async def start(self) -> None:
        if self._ray is not None:
            return
        ray = _import_ray()
        if not ray.is_initialized():
            # Enough CPUs for ``concurrency`` games at once, as the local pool would play.
            cpus = self.num_cpus if self.num_cpus is not None else max(
                os.cpu_count() or 1, math.ceil(self.concurrency * self.cpus_per_game))
            init_ray(ray, self.address, cpus)
            self._owns_ray = True
        self._task = ray.remote(play_remote)
        self._closed_on.clear()
        self._slots = asyncio.Semaphore(self.concurrency)
        self._ray = ray

    async def play(self, spec: GameSpec) -> MatchGame:
        if self._ray is None or self._slots is None:
            raise ExecutorError("the Ray executor is not started (await executor.start() first)")
        if spec.game_id in self._running:
            raise ExecutorError(f"game {spec.game_id} is already being played")
        missing = [n for n in (spec.black, spec.white) if n not in self._engine_dicts]
        if missing:
            raise ExecutorError(f"game {spec.game_id}: no engine named {', '.join(missing)}")
        async with self._slots:
            ray = self._ray
            if ray is None:
                raise ExecutorError(f"game {spec.game_id} not started: the executor closed")
            first = [n for n in (spec.black, spec.white) if n not in self._started]
            ref = self._task.options(
                name=f"game {spec.game_id}", num_cpus=self.cpus_per_game,
                max_retries=self.max_retries, retry_exceptions=False,
            ).remote(
                spec.to_dict(),
                {n: self._engine_dicts[n] for n in {spec.black, spec.white}},
                self._rules_dict,
                first,
            )
            self._running[spec.game_id] = ref
            try:
                result = await ref
            except asyncio.CancelledError:
                self._cancel(ref)
                raise
            except ray.exceptions.RayError as exc:
                if isinstance(exc, ray.exceptions.TaskCancelledError) or spec.game_id in self._closed_on:
                    # Cancelled by close() or by hand on the cluster.  Killing the worker's process
                    # group can also kill an engine as it starts, and the worker then raises that
                    # start failure before it dies itself: no error of theirs either.
                    raise _cancelled(spec.game_id) from exc
                if isinstance(exc, ray.exceptions.RayTaskError):
                    cause = exc.cause if getattr(exc, "cause", None) is not None else exc
                    if isinstance(cause, EngineStartError):
                        raise EngineStartError(str(cause)) from None
                    raise ExecutorError(f"game {spec.game_id} failed in its Ray worker: "
                                        f"{type(cause).__name__}: {cause}") from exc
                what = type(exc).__name__
                lost = tuple(getattr(ray.exceptions, n) for n in _LOST if hasattr(ray.exceptions, n))
                if isinstance(exc, lost):
                    retries = f"{self.max_retries} retr{'y' if self.max_retries == 1 else 'ies'}"
                    message = f"game {spec.game_id} lost after {retries}: {what}: {_first_line(exc)}"
                else:
                    message = f"game {spec.game_id} could not be played in Ray: {what}: {_first_line(exc)}"
                raise ExecutorError(message) from exc
            except BaseException:
                self._cancel(ref)  # KeyboardInterrupt and the like: do not leave the game running
                raise
            finally:
                self._running.pop(spec.game_id, None)
        if spec.game_id in self._closed_on:
            # Killing the worker's process group can kill the engines first; the worker then
            # returns the game as an engine crash before it dies itself.  That is no result.
            raise _cancelled(spec.game_id)
        record = MatchGame.from_dict(result)
        if record.game_id != spec.game_id:
            raise ExecutorError(f"game {spec.game_id}: the worker returned game {record.game_id}")
        self._started.update(first)  # a record back: every engine in first started
        return record

    def _cancel(self, ref: Any) -> None:
        """Force-cancel: kill the worker, and the engine processes in its process group."""
        if self._ray is None:  # closed: close() cancelled it
            return
        try:
            self._ray.cancel(ref, force=True)
        except Exception as exc:  # already finished, or the cluster is gone
            log.debug("cancelling %s: %s", ref, exc)

    async def close(self) -> None:
        ray = self._ray
        if ray is None:
            return
        self._closed_on.update(self._running)
        for ref in list(self._running.values()):
            self._cancel(ref)
        self._running.clear()
        self._ray = self._task = None
        if self._owns_ray:
            self._owns_ray = False
            ray.shutdown()


_LOST = ("WorkerCrashedError", "NodeDiedError", "LocalRayletDiedError", "ObjectLostError")
"""Ray's errors for a game whose worker or node went away (and was retried as often as allowed)."""


def _cancelled(game_id: str) -> ExecutorError:
    return ExecutorError(f"game {game_id} was cancelled in Ray")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else ""


__all__ = ["NEEDS_RAY", "RayExecutor", "play_remote"]
