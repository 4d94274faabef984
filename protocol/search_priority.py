"""How the search processes share the CPU with the server and with everything else.

The server's event loop needs little CPU but needs it at once: a ``ping`` or ``stop`` that
waits behind 32 searches for its turn is answered late.  Measured with
``scripts/serve_load.py`` (32 games at 50 ms a move, 2 cores), the searches' priority
decides the ping's 99th percentile: about 12 ms at nice 10, 8.6 ms at nice 19 and under
5 ms in Linux's idle class.  The C search's nodes per CPU second are the same in every class;
what the games lost at first was CPU spent on Python per move, since cut to no measurable loss
against the server before search processes (README, "Search speed per game"), though the idle
class still costs about 2% of the nodes a move that ``low`` gets.

* ``idle``: SCHED_IDLE, the default for ``samuel serve``.  Searches use only CPU nothing
  else wants; the process's reading thread runs at nice 19, above them, so a ``stop`` is
  read at once.  On a machine that also runs another busy program (an opponent engine
  that ponders, a build) the searches get almost nothing: use ``normal`` there.
* ``batch``: SCHED_BATCH at nice 19: searches are not preempted at every wakeup of another
  program, and get as many nodes a move as with threads (74 k against 71 k at the paced
  load), but the pings' p99 under the 32-game load is about 8 ms, not under 5.
* ``low``: nice 10.
* ``normal``: the server's own priority; a fair share against other programs.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Callable

PRIORITIES = ("idle", "batch", "low", "normal")
DEFAULT_PRIORITY = "idle"
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
