"""IdleClock: it cancels its task only while the task waits for a line, and never when off."""

from __future__ import annotations

import asyncio

import pytest

from protocol.idle_clock import IdleClock


def test_it_cuts_short_only_the_wait_for_a_line() -> None:
    async def main() -> None:
        clock = IdleClock(0.05)
        clock.arm()
        await asyncio.sleep(0.15)  # fired while the task did something else: not cancelled
        assert not clock.expired
        clock.arm()
        with pytest.raises(asyncio.CancelledError):
            await clock.read(asyncio.sleep(10))
        assert clock.expired

    asyncio.run(main())


def test_rearming_starts_it_afresh_and_none_never_fires() -> None:
    async def main() -> None:
        # Lines every 0.05 s keep a 1 s clock from firing though together they outlast it, and
        # the margin is wide (a line due in the same turn as the timer would lose to it).
        clock = IdleClock(1.0)
        for _ in range(25):  # 1.25 s in all
            clock.arm()
            assert await clock.read(asyncio.sleep(0.05, "line")) == "line"
        assert not clock.expired
        short = IdleClock(0.05)
        short.arm()
        short.disarm()
        assert await short.read(asyncio.sleep(0.15, "late")) == "late"  # disarmed: no timeout
        off = IdleClock(None)
        off.arm()
        assert await off.read(asyncio.sleep(0.1, "x")) == "x" and not off.expired

    asyncio.run(main())


def test_a_stopped_clock_stays_off() -> None:
    async def main() -> None:
        clock = IdleClock(0.05)
        clock.arm()
        clock.stop()
        clock.arm()  # a search that ends after the session did
        assert await clock.read(asyncio.sleep(0.15, "x")) == "x" and not clock.expired

    asyncio.run(main())
