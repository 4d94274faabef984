"""Search scores as training targets: each position searched to a fixed depth by an evaluator.

A game's result says who won, hundreds of plies later; a search of the position says what it is
worth now, tactics resolved. Mixed into the target (``piece_net.train``'s ``teacher``), it gives a
network a signal per position instead of per game.

The positions are cut into fixed chunks of ``CHUNK``, and each chunk is searched by a fresh engine
(the C core, GIL released) as an independent task: on threads here (``local_pool``) or as Ray tasks
on a cluster (``matches.ray_pool.open_ray_pool``, handed in by the command; docs/teaching.md).
Since a chunk's labels depend only on the chunk, they are the same whatever the number of workers
and whichever chunk finishes first.  With a
cache folder the labels are kept by the positions, the evaluator and the depth, and every finished
chunk as it comes, so an interrupted run continues where it stopped.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np

from engine import core
from engine.core import EvalSpec
from engine.errors import OptionError
from engine.named_evaluator import Evaluator

ProgressFn = Callable[[int, int], None]

CHUNK = 4096
"""Positions per task: small enough for a live progress bar, large enough to amortise the task.  The
chunks are the unit of determinism: changing CHUNK (or HASH_MB) changes the labels."""
HASH_MB = 16
"""Each chunk's table: a shallow search needs little."""
LOCAL_WORKERS = 8
"""Most threads the local executor starts by default (the cores, up to this)."""


def cache_file(rows: np.ndarray, evaluator: Evaluator, depth: int, cache_dir: str | os.PathLike[str]) -> Path:
    h = hashlib.sha1()
    h.update(np.ascontiguousarray(rows, dtype=np.uint32).tobytes())
    spec = evaluator.spec
    key: tuple[object, ...] = (spec.kind, spec.data, depth)
    tables = (spec.weights, spec.man_table, spec.king_table)
    if any(tables):  # the linear and table kinds: their numbers are here, not in data
        key += tables
    h.update(repr(key).encode())
    return Path(cache_dir) / f"labels-{evaluator.name}-d{depth}-{h.hexdigest()[:16]}.npy"


def label_chunk(part: np.ndarray, spec: EvalSpec, depth: int) -> np.ndarray:
    """One chunk's labels, from a fresh engine: its table, history, killers and network cache all
    start empty, so the result does not depend on what the worker searched before."""
    engine = core.CoreEngine(HASH_MB)
    try:
        engine.set_eval(spec)
        out = np.empty(len(part), dtype=np.int32)
        engine.search_scores(np.ascontiguousarray(part, dtype=np.uint32), depth, out)
        return out
    finally:
        engine.close()


PoolOpener = Callable[[], tuple[concurrent.futures.Executor, int]]
"""Opens the executor the chunks go to, and says how many run at once: called only when some chunk is
left to search.  The engine's own is ``local_pool``; a Ray cluster's comes from the layer above
(``matches.ray_pool.open_ray_pool``), which the engine package does not import."""


def local_pool(workers: int | None = None) -> tuple[concurrent.futures.Executor, int]:
    """``workers`` threads (default: the cores, at most ``LOCAL_WORKERS``)."""
    if workers is not None and workers < 1:
        raise OptionError(f"label workers must be at least 1, got {workers}")
    n = workers or max(1, min(os.cpu_count() or 1, LOCAL_WORKERS))
    return concurrent.futures.ThreadPoolExecutor(n, thread_name_prefix="samuel-labels"), n


def label(rows: np.ndarray, evaluator: Evaluator, depth: int, *, workers: int | None = 2,
          pool: PoolOpener | None = None, cache_dir: str | os.PathLike[str] | None = None,
          progress: ProgressFn | None = None) -> np.ndarray:
    """(N,) int32 scores, centi-men for the side to move (clipped to +-2000), of ``rows`` ((N, 5) square
    sets) searched to ``depth`` plies with ``evaluator`` and no game history.

    The chunks go to ``pool()`` (default: ``local_pool(workers)``); neither the executor nor the
    number of workers changes a label.  With ``cache_dir`` the labels are read from there when a
    run of the same positions, evaluator and depth made them, and the chunks of an unfinished run
    are kept beside them (``<file>.chunks/``) and not searched again.
    """
    rows = np.ascontiguousarray(rows, dtype=np.uint32).reshape(-1, 5)
    if not 1 <= depth <= 64:
        raise ValueError(f"label depth must be 1..64, got {depth}")
    path = cache_file(rows, evaluator, depth, cache_dir) if cache_dir is not None else None
    if path is not None and path.is_file():
        cached = np.load(path)
        if cached.shape == (len(rows),):
            if progress:
                progress(len(rows), len(rows))
            return cached
    out = np.empty(len(rows), dtype=np.int32)
    parts = path.with_name(f"{path.stem}.chunks-{CHUNK}") if path is not None else None
    todo: list[int] = []
    done = 0
    for start in range(0, len(rows), CHUNK):
        n = min(CHUNK, len(rows) - start)
        kept = _read_chunk(parts, start, n)
        if kept is None:
            todo.append(start)
        else:
            out[start:start + n] = kept
            done += n
    if progress:
        progress(done, len(rows))
    if todo:
        executor, running = pool() if pool is not None else local_pool(workers)
        try:
            done = _run(executor, 2 * running, rows, todo, evaluator.spec, depth, out, parts, done, progress)
        finally:
            executor.shutdown(wait=True, cancel_futures=True)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        _save(path, out)
        if parts is not None:
            shutil.rmtree(parts, ignore_errors=True)
    return out


def _run(pool: concurrent.futures.Executor, window: int, rows: np.ndarray, todo: list[int], spec: EvalSpec,
         depth: int, out: np.ndarray, parts: Path | None, done: int, progress: ProgressFn | None) -> int:
    """The chunks starting at ``todo`` through ``pool``, at most ``window`` in flight (so a large set
    does not sit in a cluster's object store at once); each kept in ``parts`` as it arrives."""
    waiting = iter(todo)
    flying: dict[concurrent.futures.Future[np.ndarray], int] = {}

    def submit_next() -> None:
        start = next(waiting, None)
        if start is not None:
            flying[pool.submit(label_chunk, rows[start:start + CHUNK], spec, depth)] = start

    for _ in range(window):
        submit_next()
    while flying:
        finished, _ = concurrent.futures.wait(flying, return_when=concurrent.futures.FIRST_COMPLETED)
        for future in finished:
            start = flying.pop(future)
            n = min(CHUNK, len(rows) - start)
            try:
                labels = future.result()  # a worker's error (a bad position, a lost Ray worker) ends the run
            except ValueError as exc:  # its position is counted within the chunk: say which chunk
                raise ValueError(f"positions {start}..{start + n - 1}: {exc}") from exc
            if labels.shape != (n,):
                raise RuntimeError(f"chunk at {start}: {labels.shape} labels back for {n} positions")
            out[start:start + n] = labels
            if parts is not None:
                parts.mkdir(parents=True, exist_ok=True)
                _save(parts / f"{start:012d}.npy", labels)
            done += n
            if progress:
                progress(done, len(rows))
            submit_next()
    return done


def _read_chunk(parts: Path | None, start: int, n: int) -> np.ndarray | None:
    """A chunk an earlier run finished, or None."""
    if parts is None:
        return None
    f = parts / f"{start:012d}.npy"
    try:
        kept = np.load(f)
    except (OSError, ValueError):  # absent, or cut short by a crash: searched again
        return None
    return kept if kept.shape == (n,) and kept.dtype == np.int32 else None


def _save(path: Path, array: np.ndarray) -> None:
    """Written whole or not at all (an interrupted write leaves no file that looks finished)."""
    tmp = path.with_name(path.name + ".tmp.npy")
    np.save(tmp, array)
    tmp.replace(path)
