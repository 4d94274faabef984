"""cb sessions never hold a slot for ever, report the table they really have, and never keep a
hash size that could not be allocated."""

from __future__ import annotations

import asyncio
import os
import resource
import subprocess
import sys
from typing import Any

import pytest
from test_cb_session import START, Client

from engine import timeman
from engine.search import Searcher
from protocol import cb_grammar as g

pytestmark = pytest.mark.timeout(120)

HANG = 60.0


def test_a_huge_maxtime_is_bounded() -> None:
    for info in (g.CB_EXACT_TIME, 0):
        limit = g.decode_limit(1.0e6, info)
        soft_ms, hard_ms = timeman.budgets(limit)
        assert 0 < hard_ms <= g.MAX_SEARCH_SECONDS * 1000, (info, soft_ms, hard_ms)
    # An ordinary maxtime is untouched.
    assert g.decode_limit(2.0, g.CB_EXACT_TIME).movetime == 2.0
    assert g.decode_limit(2.0, 0).movetime is None


def test_a_huge_maxtime_ends_at_the_bound_then_the_idle_clock_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(g, "MAX_SEARCH_SECONDS", 0.8)  # an hour in the server; less for a test

    async def t() -> None:
        c = Client(idle=0.5)
        c.send(f"getmove {START} 1000000 2")
        _move, before = await c.until("move ", HANG)  # the search ended by itself, at the bound
        assert not any(x.startswith("error") for x in before)
        closing = await c.line(HANG)
        assert closing.startswith("error") and "idle for 0.5 s" in closing
        await asyncio.wait_for(c.task, HANG)

    asyncio.run(t())


@pytest.mark.parametrize("getmove", [f"getmove fen={START}", f"getmove fen={START} depth=99"])
def test_a_silent_client_is_closed_even_while_its_search_runs(getmove: str) -> None:
    async def t() -> None:
        c = Client(idle=0.5)
        c.send(getmove)
        line, _ = await c.until("error", HANG)
        assert "idle for 0.5 s" in line
        await asyncio.wait_for(c.task, HANG)  # the session ended, its search stopped

    asyncio.run(t())


def test_a_client_that_speaks_keeps_its_long_search() -> None:
    async def t() -> None:
        c = Client(idle=0.5)
        c.send(f"getmove fen={START}")
        for _ in range(4):
            await asyncio.sleep(0.25)
            c.send("ping")
            await c.until("pong", HANG)  # status lines may come first
        assert not c.task.done()
        c.send("playnow")
        await c.until("move ", HANG)
        await c.close()

    asyncio.run(t())


def test_get_hash_is_the_table_allocated() -> None:
    async def t() -> None:
        c = Client()
        assert await c.ask("set hash 3") == "reply 1 2"
        assert await c.ask("get hash") == "reply 1 2"
        assert await c.ask("get hashsize") == "reply 1 2"
        await c.close()

    asyncio.run(t())


def test_about_names_the_backend() -> None:
    async def t() -> None:
        c = Client()
        about = await c.ask("about")
        assert "backend modern" in about and "hash 1 MB" in about
        assert (await c.ask("set backend 704")).startswith("reply 1")
        about = await c.ask("about")
        assert "backend 704" in about and "IBM 704" in about
        await c.close()

    asyncio.run(t())


def test_a_refused_first_table_does_not_stick(monkeypatch: pytest.MonkeyPatch) -> None:
    real = Searcher.__init__

    def small_only(self: Searcher, *a: Any, hash_mb: int = 16, **kw: Any) -> None:
        if hash_mb > 8:
            raise MemoryError
        real(self, *a, hash_mb=hash_mb, **kw)

    monkeypatch.setattr(Searcher, "__init__", small_only)

    async def t() -> None:
        c = Client()
        reply = await c.ask("set hash 64")
        assert reply.startswith("reply 0") and "cannot allocate a 64 MB" in reply and "stays 1 MB" in reply
        assert await c.ask("get hash") == "reply 1 1"
        c.send(f"getmove {START} 0.05 2")
        await c.until("move ", HANG)
        await c.close()

    asyncio.run(t())


def _limit_memory() -> None:
    limit = 1_500_000_000
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS as Linux counts it")
def test_a_table_the_machine_refuses_is_named_and_the_session_plays_on() -> None:
    """The issue's own case: ``samuel cb`` under a 1.5 GB address-space limit asked for 2 GB."""
    script = f"set hash 2048\nget hash\ngetmove {START} 0.05 2\n".encode()
    r = subprocess.run([sys.executable, "-m", "samuel", "cb", "--hash", "16"], input=script,
                       capture_output=True, timeout=HANG * 2, preexec_fn=_limit_memory,
                       env={**os.environ, "PYTHONFAULTHANDLER": "1"}, check=False)
    lines = r.stdout.decode().splitlines()
    assert r.returncode == 0, r.stderr.decode()
    assert lines[0].startswith("reply 0") and "2048 MB" in lines[0], lines
    assert lines[1] == "reply 1 16", lines
    assert lines[-1].startswith("move "), lines
