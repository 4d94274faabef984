"""How the search processes share the CPU with the server and with everything else.

A timed search must keep time on the user's machine, where other programs run too: an
opponent engine that ponders, a browser, a build.  That decides the default.  Measured with
``scripts/busy_getmove.py`` (cb ``getmove <fen> 0.3 2``, two normal-priority busy loops in
the server's own session, as when a GUI or a match runner starts the engines together):
in the idle class a search got no CPU at all and took 1.2-1.6 s before the server answered
for it at its deadline (and then with an unsearched move); at nice 10 it kept time with a
tenth of the nodes; at normal priority it kept time with a fair share (README, "Time on a busy
machine").  The cost is the server's own replies under a full load of the server's own
games: its event loop no longer runs ahead of the searches, so a ``ping`` waits its turn
(``scripts/serve_load.py``: p99 figures in the README).

* ``normal``: the default.  The server's own priority: a fair share against other programs.
* ``low``: nice 10.  Keeps time, but an opponent at normal priority gets ten times the CPU.
* ``batch``: SCHED_BATCH at nice 19: full speed on an otherwise idle machine, starved beside
  busy programs like ``idle``.
* ``idle``: SCHED_IDLE, for a dedicated server and nothing else.  Searches use only CPU
  nothing else wants; the process's reading thread runs at nice 19, above them, so a
  ``stop`` is read at once, and under 32 games of its own the server's ``ping`` p99 is under
  5 ms.  Beside any other busy program (in the same scheduling group) the searches get
  almost nothing, and every timed move is answered by the server's deadline unsearched.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Callable

PRIORITIES = ("idle", "batch", "low", "normal")
DEFAULT_PRIORITY = "normal"
LOW_NICENESS = 10


def thread_nice(niceness: int) -> None:
    """Set the calling thread's nice value.  Only on Linux, where a thread id is a valid
    PRIO_PROCESS target (elsewhere the id could name another process); searching works either way."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), niceness)


def _idle_class() -> bool:
    """Put the calling thread in the idle class (Linux's SCHED_IDLE applies per thread)."""
    if not hasattr(os, "SCHED_IDLE"):
        return False
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
        return True
    except OSError:
        return False


_placed = threading.local()
"""Whether this worker thread is in its search class already (set once, cleared by ``hurry``)."""
_hurried: set[int] = set()
"""Native ids of threads ``hurry`` lifted, which must put themselves back."""


def _once_per_thread(place: Callable[[], None]) -> Callable[[], None]:
    """``place`` run on a worker's first job and after a ``hurry``, not before every search:
    a system call per search is work the searches' CPU pays for."""
    def before_job() -> None:
        if getattr(_placed, "tid", None) is None:
            _placed.tid = threading.get_native_id()
        elif _placed.tid not in _hurried:
            return
        _hurried.discard(_placed.tid)
        place()
    return before_job


def hurry(thread_id: int) -> None:
    """Lift a search thread out of the idle or batch class (to nice 10) once its search is stopped: among
    the process's other searches it would wait its turn to see the stop; now it runs first,
    ends and answers.  The worker puts itself back before its next search."""
    if not hasattr(os, "SCHED_IDLE"):
        return
    _hurried.add(thread_id)
    try:
        os.sched_setscheduler(thread_id, os.SCHED_OTHER, os.sched_param(0))
        os.setpriority(os.PRIO_PROCESS, thread_id, LOW_NICENESS)
    except OSError:  # the thread has ended meanwhile, or the platform refuses: it ends all the same
        pass


def apply_to_process(priority: str) -> Callable[[], None]:
    """Lower the calling (reading) thread of a search process; returns what each search thread
    runs as it starts.

    With ``idle`` the reader stays in the normal class at nice 19: below the server, whose event
    loop it must never keep waiting, yet above the searches, so a ``stop`` is read at once.
    Where the idle class is missing (not Linux) the searches fall back to nice 19 too."""
    if priority not in PRIORITIES:
        raise ValueError(f"search priority {priority!r}: choose from {', '.join(PRIORITIES)}")
    if priority == "normal":
        return lambda: None
    if priority == "low":
        thread_nice(LOW_NICENESS)
        return lambda: None  # threads inherit the reader's nice value
    if priority == "batch":
        thread_nice(19)

        def batch_thread() -> None:
            if hasattr(os, "SCHED_BATCH"):
                with contextlib.suppress(OSError):
                    os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
            thread_nice(19)

        return _once_per_thread(batch_thread)
    thread_nice(19)

    def search_thread() -> None:
        if not _idle_class():
            thread_nice(19)

    return _once_per_thread(search_thread)
