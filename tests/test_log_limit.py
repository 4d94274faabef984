"""Bad input is logged a few times per session, then counted: junk cannot flood the log."""

from __future__ import annotations

import asyncio
import logging

import pytest
from serving import CaptureWriter

from engine.options import OptionValues
from protocol.cb_session import run_cb
from protocol.context import ServerSettings
from protocol.framing import stream_limit
from protocol.hub_session import run_hub
from protocol.log_limit import FIRST, LogLimiter
from protocol.session_engine import SessionDefaults


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_limiter_logs_the_first_lines_then_counts(caplog: pytest.LogCaptureFixture) -> None:
    clock = Clock()
    limiter = LogLimiter(logging.getLogger("t"), first=3, every=10.0, clock=clock)
    with caplog.at_level(logging.INFO, logger="t"):
        for i in range(200):
            limiter.warning("bad %d", i)
            clock.now += 0.1  # 20 s of junk: one summary on the way, one at close
        limiter.close()
    messages = [r.getMessage() for r in caplog.records]
    assert messages[:3] == ["bad 0", "bad 1", "bad 2"]
    assert len(messages) == 5
    assert messages[3].startswith("101 more") and "not logged" in messages[3]
    assert messages[-1].endswith("(200 in all)")
    assert all(r.levelno == logging.WARNING for r in caplog.records)
    counted = sum(int(m.split()[0]) for m in messages[3:])
    assert counted == 197


def test_a_limiter_with_nothing_held_back_says_nothing_at_close(caplog: pytest.LogCaptureFixture) -> None:
    limiter = LogLimiter(logging.getLogger("t"))
    with caplog.at_level(logging.INFO, logger="t"):
        limiter.info("one")
        limiter.close()
    assert [r.getMessage() for r in caplog.records] == ["one"]


@pytest.mark.parametrize("dialect", ["hub", "cb"])
def test_a_session_fed_junk_logs_a_bounded_number_of_lines(dialect: str,
                                                          caplog: pytest.LogCaptureFixture) -> None:
    async def main() -> list[str]:
        st = ServerSettings(max_line=4096, idle_timeout=None,
                            defaults=SessionDefaults(options=OptionValues(hash=1)))
        reader = asyncio.StreamReader(limit=stream_limit(st.max_line))
        writer = CaptureWriter()
        session = run_hub if dialect == "hub" else run_cb
        task = asyncio.ensure_future(session(reader, writer, st))
        reader.feed_data(b"\xff\xfe junk\n" * 300 + b"ping\n")
        out = []
        while not out or out[-1] != "pong":
            out.append(await asyncio.wait_for(writer.lines.get(), 30))
        reader.feed_eof()
        await asyncio.wait_for(task, 30)
        return out

    with caplog.at_level(logging.DEBUG, logger="protocol"):
        out = asyncio.run(main())
    assert sum(1 for line in out if line.startswith("error")) == 300  # every bad line is answered
    logged = [r for r in caplog.records if r.levelno >= logging.INFO and "error" in r.getMessage()]
    assert FIRST <= len(logged) <= FIRST + 2
