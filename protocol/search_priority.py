"""How the search processes share the CPU with the server and with everything else.

The server's event loop needs little CPU but needs it at once: a ``ping`` or ``stop`` that
waits behind 32 searches for its turn is answered late.  Measured with
``scripts/serve_load.py`` (32 games at 50 ms a move, 2 cores), the searches' priority
decides the ping's 99th percentile: about 12 ms at nice 10, 8.6 ms at nice 19 and 4.7 ms
in Linux's idle class, with the same nodes a move each time (the searches still get every
cycle the server does not use).

* ``idle``: SCHED_IDLE, the default for ``samuel serve``.  Searches use only CPU nothing
  else wants.  On a machine that also runs another busy program (an opponent engine that
  ponders, a build) they get almost nothing: use ``normal`` there.
* ``low``: nice 10.
* ``normal``: the server's own priority; a fair share against other programs.
"""

from __future__ import annotations

import contextlib
import os

PRIORITIES = ("idle", "low", "normal")
DEFAULT_PRIORITY = "idle"
LOW_NICENESS = 10


def apply_to_process(priority: str) -> str:
    """Lower the calling process (its threads to come inherit it); returns what was done.

    Where the idle class is missing (not Linux) ``idle`` falls back to the lowest nice."""
    if priority not in PRIORITIES:
        raise ValueError(f"search priority {priority!r}: choose from {', '.join(PRIORITIES)}")
    if priority == "normal":
        return "normal"
    if priority == "idle" and hasattr(os, "SCHED_IDLE"):
        try:
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
            return "idle"
        except OSError:
            pass
    niceness = LOW_NICENESS if priority == "low" else 19
    with contextlib.suppress(OSError, AttributeError):
        os.setpriority(os.PRIO_PROCESS, 0, niceness)
        return f"nice {niceness}"
    return "normal (could not lower it)"
