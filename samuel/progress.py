"""Progress for long commands: a rich bar on a terminal, plain lines when stderr is a file or pipe.

rich draws nothing live when its console is not a terminal, so a long job piped
to a log looked dead until it finished.  ``progress(...)`` gives the same small
interface either way (``add_task``, ``update``, ``advance``, ``console.print``);
off a terminal it writes one line per task at most every ``PLAIN_INTERVAL``
seconds, and a last one when a task completes.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass, field
from typing import Any, TextIO

PLAIN_INTERVAL = 5.0
"""Seconds between plain progress lines for one task (``SAMUEL_PROGRESS_INTERVAL`` overrides)."""


def _interval() -> float:
    try:
        return max(0.0, float(os.environ.get("SAMUEL_PROGRESS_INTERVAL", PLAIN_INTERVAL)))
    except ValueError:
        return PLAIN_INTERVAL


@dataclass
class _Task:
    description: str
    total: float | None
    completed: float = 0.0
    fields: dict[str, Any] = field(default_factory=dict)
    last_line: float = 0.0
    finished: bool = False
    printed: bool = False


class _PlainConsole:
    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def print(self, *objects: object, **_kw: object) -> None:
        print(*objects, file=self._stream, flush=True)


class PlainProgress:
    """rich.progress.Progress's subset the commands use, as timestamped lines."""

    def __init__(self, stream: TextIO | None = None, *, interval: float | None = None,
                 disable: bool = False) -> None:
        self._stream = stream if stream is not None else sys.stderr
        self.console = _PlainConsole(self._stream)
        self._interval = _interval() if interval is None else interval
        self._disable = disable
        self._tasks: list[_Task] = []
        self._start = time.monotonic()

    def __enter__(self) -> PlainProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        # A task whose total was never reached (a byte count, an early stop) still gets its last word.
        now = time.monotonic()
        for t in self._tasks:
            if t.printed and not t.finished:
                self._line(t, now)

    def add_task(self, description: str, total: float | None = None, completed: float = 0,
                 **fields: Any) -> int:
        self._tasks.append(_Task(description, total, completed, dict(fields), time.monotonic()))
        return len(self._tasks) - 1

    def update(self, task_id: int, *, total: float | None = None, completed: float | None = None,
               advance: float | None = None, description: str | None = None, **fields: Any) -> None:
        t = self._tasks[task_id]
        if total is not None:
            t.total = total
        if completed is not None:
            t.completed = completed
        if advance is not None:
            t.completed += advance
        if description is not None:
            t.description = description
        t.fields.update(fields)
        now = time.monotonic()
        done = t.total is not None and t.total > 0 and t.completed >= t.total
        if done and t.finished:
            return
        if done or now - t.last_line >= self._interval:
            t.last_line = now
            t.finished = done
            self._line(t, now)

    def advance(self, task_id: int, advance: float = 1) -> None:
        self.update(task_id, advance=advance)

    def _line(self, t: _Task, now: float) -> None:
        t.printed = True
        if self._disable:
            return
        if t.total:
            amount = f"{t.completed:g}/{t.total:g} ({100 * t.completed / t.total:.0f}%)"
        else:
            amount = f"{t.completed:g}"
        extra = " ".join(str(v) for v in t.fields.values() if str(v))
        text = f"[{now - self._start:7.1f} s] {t.description}: {amount}"
        print(f"{text}  {extra}".rstrip(), file=self._stream, flush=True)


def progress(*columns: Any, console: Any = None, disable: bool = False, transient: bool = False,
             stream: TextIO | None = None) -> Any:
    """A rich Progress on a terminal, else a PlainProgress writing to ``stream`` (stderr)."""
    out = stream if stream is not None else sys.stderr
    if out.isatty():
        from rich.console import Console
        from rich.progress import Progress

        return Progress(*columns, console=console or Console(file=out), disable=disable,
                        transient=transient)
    return PlainProgress(out, disable=disable)
