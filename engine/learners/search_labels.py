"""Search scores as training targets: each position searched to a fixed depth by an evaluator.

A game's result says who won, hundreds of plies later; a search of the position says what it is
worth now, tactics resolved. Mixed into the target (``piece_net.train``'s ``teacher``), it gives a
network a signal per position instead of per game. The searches run in the C core (the GIL is
released), one engine per thread, in chunks so a progress bar can follow; labels are cached by the
positions, the evaluator and the depth, since millions of them take minutes.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np

from engine import core
from engine.named_evaluator import Evaluator

ProgressFn = Callable[[int, int], None]

CHUNK = 4096
"""Positions per C call: small enough for a live progress bar, large enough to amortise the call."""
HASH_MB = 16
"""Each thread's table: a shallow search needs little."""


def cache_file(rows: np.ndarray, evaluator: Evaluator, depth: int, cache_dir: str | os.PathLike[str]) -> Path:
    h = hashlib.sha1()
    h.update(np.ascontiguousarray(rows, dtype=np.uint32).tobytes())
    h.update(repr((evaluator.spec.kind, evaluator.spec.data, depth)).encode())
    return Path(cache_dir) / f"labels-{evaluator.name}-d{depth}-{h.hexdigest()[:16]}.npy"


def label(rows: np.ndarray, evaluator: Evaluator, depth: int, *, threads: int = 2,
          cache_dir: str | os.PathLike[str] | None = None, progress: ProgressFn | None = None) -> np.ndarray:
    """(N,) int32 scores, centi-men for the side to move (clipped to +-2000), of ``rows`` ((N, 5) square
    sets) searched to ``depth`` plies with ``evaluator`` and no game history."""
    rows = np.ascontiguousarray(rows, dtype=np.uint32).reshape(-1, 5)
    if not 1 <= depth <= 64:
        raise ValueError(f"label depth must be 1..64, got {depth}")
    if threads < 1:
        raise ValueError(f"threads must be at least 1, got {threads}")
    path = cache_file(rows, evaluator, depth, cache_dir) if cache_dir is not None else None
    if path is not None and path.is_file():
        cached = np.load(path)
        if cached.shape == (len(rows),):
            if progress:
                progress(len(rows), len(rows))
            return cached
    out = np.empty(len(rows), dtype=np.int32)
    chunks = list(range(0, len(rows), CHUNK))
    lock = threading.Lock()
    done = [0]
    errors: list[BaseException] = []

    def work(mine: list[int]) -> None:
        engine = core.CoreEngine(HASH_MB)
        try:
            engine.set_eval(evaluator.spec)
            for start in mine:
                if errors:
                    return
                part = rows[start:start + CHUNK]
                engine.search_scores(part, depth, out[start:start + CHUNK])
                with lock:
                    done[0] += len(part)
                    if progress:
                        progress(done[0], len(rows))
        except BaseException as exc:  # handed to the caller below
            errors.append(exc)
        finally:
            engine.close()

    # Interleaved chunks, so every thread meets early and late positions alike.
    workers = [threading.Thread(target=work, args=(chunks[t::threads],), daemon=True) for t in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    if errors:
        raise errors[0]
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp.npy")
        np.save(tmp, out)
        tmp.replace(path)
    return out
