"""Time controls (cutechess-style text) and the clocks that run them."""

from __future__ import annotations

import pytest

from engine.limits import Limit
from matches.timecontrol import Clock, TimeControl


@pytest.mark.parametrize("text, fields", [
    ("st=0.1", {"movetime": 0.1}),
    ("movetime=2", {"movetime": 2.0}),
    ("tc=60+0.5", {"base": 60.0, "inc": 0.5}),
    ("tc=40/60+0.6", {"base": 60.0, "inc": 0.6, "moves": 40}),
    ("tc=40/60", {"base": 60.0, "moves": 40}),
    ("tc=1:30+1", {"base": 90.0, "inc": 1.0}),
    ("tc=40/1:30", {"base": 90.0, "moves": 40}),
    ("tc=inf depth=6", {"depth": 6}),
    ("depth=6", {"depth": 6}),
    ("nodes=20000", {"nodes": 20000}),
    ("60+0.5", {"base": 60.0, "inc": 0.5}),
    ("60+0.5, depth=8", {"base": 60.0, "inc": 0.5, "depth": 8}),
    ("st=0.1,timemargin=0.2", {"movetime": 0.1, "margin": 0.2}),
    ("st=0.1 timemargin=100ms", {"movetime": 0.1, "margin": 0.1}),
    ("timemargin=0 depth=3", {"depth": 3, "margin": 0.0}),
    ("  ST=250ms  ", {"movetime": 0.25}),
])
def test_parse_forms(text: str, fields: dict[str, float]) -> None:
    assert TimeControl.parse(text) == TimeControl(**fields)  # type: ignore[arg-type]


@pytest.mark.parametrize("text, named", [
    ("tc=abc", "tc=abc"),
    ("st=0", "st=0"),
    ("st=-1", "st=-1"),
    ("tc=0+1", "tc=0+1"),
    ("tc=40/60+-1", "tc=40/60+-1"),
    ("tc=0/60", "tc=0/60"),
    ("tc=1.5/60", "tc=1.5/60"),
    ("depth=0", "depth=0"),
    ("depth=1.5", "depth=1.5"),
    ("nodes=lots", "nodes=lots"),
    ("timemargin=-0.1", "timemargin=-0.1"),
    ("st=nan", "st=nan"),
    ("st=inf", "st=inf"),
    ("st=", "st="),
    ("depth=6 foo=1", "foo=1"),
    ("st=0.1 tc=60", "st=0.1 tc=60"),
])
def test_bad_input_names_the_piece(text: str, named: str) -> None:
    with pytest.raises(ValueError, match="time control") as info:
        TimeControl.parse(text)
    assert repr(named) in str(info.value)


def test_empty_is_an_error() -> None:
    with pytest.raises(ValueError, match="empty time control"):
        TimeControl.parse("  ")


def test_constructor_checks_values() -> None:
    with pytest.raises(ValueError, match="cannot be combined"):
        TimeControl(movetime=1.0, base=60.0)
    with pytest.raises(ValueError, match="need a game time"):
        TimeControl(inc=1.0)
    with pytest.raises(ValueError, match="more than 0"):
        TimeControl(depth=0)


@pytest.mark.parametrize("text, short", [
    ("st=0.1", "st=0.1"),
    ("tc=40/60+0.5", "40/60+0.5"),
    ("tc=60", "60"),
    ("depth=6", "depth=6"),
    ("tc=60+0.5 depth=8", "60+0.5, depth=8"),
    ("tc=inf", "inf"),
    ("nodes=500 st=1", "st=1, nodes=500"),
])
def test_describe(text: str, short: str) -> None:
    tc = TimeControl.parse(text)
    assert tc.describe() == short
    assert TimeControl.parse(short) == tc


def test_merged_engine_fields_win_and_the_clock_goes_as_one() -> None:
    default = TimeControl.parse("tc=60+0.5 timemargin=0.2")
    assert default.merged(None) is default
    # st= replaces the whole clock: no game time left over, no increment.
    assert default.merged(TimeControl.parse("st=0.5")) == TimeControl(movetime=0.5, margin=0.2)
    # depth= adds to the clock.
    assert default.merged(TimeControl.parse("depth=4")) == TimeControl(base=60, inc=0.5, depth=4, margin=0.2)
    # tc=inf states "no clock"; an explicit default-valued margin still wins.
    assert default.merged(TimeControl.parse("tc=inf depth=4")) == TimeControl(depth=4, margin=0.2)
    assert default.merged(TimeControl.parse("timemargin=0.05")).margin == 0.05
    # A control built in code states its non-default fields.
    assert TimeControl(movetime=1).merged(TimeControl(depth=3)) == TimeControl(movetime=1, depth=3)
    assert TimeControl(depth=3).merged(TimeControl(base=10, inc=1)) == TimeControl(base=10, inc=1, depth=3)


def test_dict_round_trip_keeps_what_was_stated() -> None:
    for text in ("st=0.1", "tc=40/60+0.5 depth=3", "tc=inf", "nodes=10 timemargin=0.05"):
        tc = TimeControl.parse(text)
        back = TimeControl.from_dict(tc.to_dict())
        assert back == tc
        other = TimeControl.parse("tc=5+1 timemargin=1")
        assert other.merged(back) == other.merged(tc)
    with pytest.raises(ValueError, match="unknown fields"):
        TimeControl.from_dict({"speed": 1})


def test_bounded() -> None:
    assert TimeControl.parse("st=1").bounded
    assert TimeControl.parse("depth=2").bounded
    assert not TimeControl.parse("tc=inf").bounded


# ---- clocks ----


def test_clock_movetime() -> None:
    clock = Clock(TimeControl.parse("st=0.1"))
    assert clock.remaining is None
    assert clock.limit() == Limit(movetime=0.1)
    assert clock.allowed() == pytest.approx(0.15)
    assert clock.charge(0.12)
    assert clock.charge(0.15)
    assert not clock.charge(0.16)
    assert clock.moves_made == 3
    assert clock.used == pytest.approx(0.43)


def test_clock_base_and_increment() -> None:
    clock = Clock(TimeControl.parse("tc=60+0.5"))
    assert clock.limit() == Limit(time=60.0, inc=0.5)
    assert clock.allowed() == pytest.approx(60.05)
    assert clock.charge(10.0)
    assert clock.remaining == pytest.approx(50.5)
    assert clock.limit() == Limit(time=50.5, inc=0.5)


def test_clock_periods_refill() -> None:
    clock = Clock(TimeControl.parse("tc=40/60"))
    assert clock.limit() == Limit(time=60.0, inc=0.0, moves_to_go=40)
    for _ in range(39):
        assert clock.charge(1.0)
    assert clock.remaining == pytest.approx(21.0)
    assert clock.moves_to_go == 1
    assert clock.charge(1.0)
    assert clock.remaining == pytest.approx(80.0)
    assert clock.moves_to_go == 40
    assert clock.limit().moves_to_go == 40


def test_clock_flag_falls_after_the_margin() -> None:
    clock = Clock(TimeControl.parse("tc=1"))
    assert clock.charge(1.04)  # over, but within the 0.05 s margin
    assert clock.remaining == pytest.approx(-0.04)
    assert clock.limit().time == 0.0  # the engine is never told a negative time
    assert clock.allowed() == pytest.approx(0.05)
    assert not clock.charge(0.06)


def test_clock_flag_is_judged_before_the_increment() -> None:
    clock = Clock(TimeControl.parse("tc=1+5 timemargin=0"))
    assert not clock.charge(1.5)


def test_clock_untimed_and_combined() -> None:
    clock = Clock(TimeControl.parse("depth=6 nodes=1000"))
    assert clock.limit() == Limit(depth=6, nodes=1000)
    assert clock.allowed() is None
    assert clock.charge(1e6)
    combined = Clock(TimeControl.parse("tc=60+1 depth=8"))
    assert combined.limit() == Limit(depth=8, time=60.0, inc=1.0)
