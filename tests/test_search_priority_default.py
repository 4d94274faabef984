"""By default the search processes search at the server's own priority (a fair share beside
other programs, so a timed search keeps time on a busy machine); the idle class is an option."""

from __future__ import annotations

import asyncio
import os
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from engine.board import Board
from engine.limits import Limit
from engine.options import OptionValues
from protocol.host_pool import HostPool
from protocol.search_priority import DEFAULT_PRIORITY
from protocol.session_engine import SessionDefaults, SessionEngine

pytestmark = [pytest.mark.timeout(120),
              pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux scheduling classes")]


def thread_classes(pid: int) -> set[tuple[int, int]]:
    """(scheduling policy, nice) of every thread of ``pid``."""
    out = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        tid = int(task.name)
        try:
            out.add((os.sched_getscheduler(tid), os.getpriority(os.PRIO_PROCESS, tid)))
        except (ProcessLookupError, PermissionError):
            continue  # a thread that ended meanwhile
    return out


async def searched_classes(defaults: SessionDefaults) -> set[tuple[int, int]]:
    pool = HostPool(1, defaults)
    await pool.start()
    try:
        s = SessionEngine(replace(defaults, search_hosts=pool))
        assert (await s.search(Board(), Limit(depth=3))).best is not None  # a search thread exists
        classes = thread_classes(pool.pids[0])
        await s.close()
        return classes
    finally:
        await pool.close()


def test_the_default_is_the_servers_own_priority() -> None:
    assert DEFAULT_PRIORITY == "normal" and SessionDefaults().search_priority == "normal"
    own = os.getpriority(os.PRIO_PROCESS, 0)
    classes = asyncio.run(searched_classes(SessionDefaults(options=OptionValues(hash=1, book="none"))))
    assert classes == {(os.SCHED_OTHER, own)}, classes


def test_the_idle_class_is_still_an_option() -> None:
    classes = asyncio.run(searched_classes(
        SessionDefaults(options=OptionValues(hash=1, book="none"), search_priority="idle")))
    assert any(policy == os.SCHED_IDLE for policy, _ in classes), classes
