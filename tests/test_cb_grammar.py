"""The cb dialect's grammar: commands, engine lines, time flags and CheckerBoard's movelist."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import timeman
from engine.board import Board
from engine.limits import Limit
from protocol import cb_grammar as g
from protocol.errors import ProtocolError

START = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"

# ---- requests ----


def test_simple_requests() -> None:
    assert g.parse_command("ping") == g.Ping()
    assert g.parse_command("  QUIT \r") == g.Quit()
    assert g.parse_command("playnow") == g.PlayNow()
    with pytest.raises(ProtocolError, match="no arguments"):
        g.parse_command("ping now")
    with pytest.raises(ProtocolError, match="empty"):
        g.parse_command("   ")


def test_getmove_positional() -> None:
    r = g.parse_command("getmove B:W21-32:B1-12 2.5")
    assert r == g.GetMove("B:W21-32:B1-12", 2.5, 0, 0)
    r = g.parse_command(f"getmove {START} 1 3 0")
    assert isinstance(r, g.GetMove) and r.reset and r.info == 3
    assert r.limit() == Limit(movetime=1.0)


def test_getmove_key_value() -> None:
    r = g.parse_command("getmove fen=B:W21-32:B1-12 depth=6")
    assert r == g.GetMove("B:W21-32:B1-12", None, 0, 0, depth=6)
    assert r.limit() == Limit(depth=6)
    r = g.parse_command("getmove fen=B:W21-32:B1-12 maxtime=0.5 info=2 nodes=1000")
    assert isinstance(r, g.GetMove) and r.limit() == Limit(movetime=0.5, nodes=1000)
    assert g.parse_command("getmove fen=B:W21-32:B1-12").limit().infinite  # type: ignore[union-attr]


@pytest.mark.parametrize("line", [
    "getmove",
    "getmove B:W21-32:B1-12",
    "getmove B:W21-32:B1-12 soon",
    "getmove B:W21-32:B1-12 -1",
    "getmove B:W21-32:B1-12 nan",
    "getmove B:W21-32:B1-12 inf",
    "getmove B:W21-32:B1-12 0",
    "getmove B:W21-32:B1-12 1 x",
    "getmove B:W21-32:B1-12 1 0 0 0",
    "getmove B:W21-32:B1-12 1 99999999999",
    "getmove fen=B:W21-32:B1-12 depth=0",
    "getmove fen=B:W21-32:B1-12 colour=red",
    "getmove maxtime=1",
    "getmove fen=a fen=b",
    "getmove fen= maxtime=1",
    "enginecommand",
])
def test_malformed_requests(line: str) -> None:
    with pytest.raises(ProtocolError):
        g.parse_command(line)


def test_other_lines_are_engine_commands() -> None:
    assert g.parse_command("get hashsize") == g.EngineCommand("get hashsize")
    assert g.parse_command("enginecommand ping") == g.EngineCommand("ping")
    assert g.parse_command("Hello, engine!") == g.EngineCommand("Hello, engine!")


# ---- enginecommand strings ----


@pytest.mark.parametrize(("text", "want"), [
    ("name", g.NameCmd()),
    ("about", g.AboutCmd()),
    ("help", g.HelpCmd()),
    ("get protocolversion", g.GetCmd("protocolversion")),
    ("get gametype", g.GetCmd("gametype")),
    ("set gametype 21", g.SetCmd("gametype", "21")),
    ("get book", g.GetCmd("book")),
    ("set book 3", g.SetCmd("book", "3")),
    ("get hashsize", g.GetCmd("hashsize")),
    ("set hashsize 128", g.SetCmd("hashsize", "128")),
    ("get dbpath", g.GetCmd("dbpath")),
    ("set dbpath C:\\Program Files\\db", g.SetCmd("dbpath", "C:\\Program Files\\db")),
    ("get dbmbytes", g.GetCmd("dbmbytes")),
    ("set dbmbytes 512", g.SetCmd("dbmbytes", "512")),
    ("get allscores", g.GetCmd("allscores")),
    ("set allscores 1", g.SetCmd("allscores", "1")),
    ("get solve", g.GetCmd("solve")),
    ("get enable_wld", g.GetCmd("enable_wld")),
    ("get max_dbpieces", g.GetCmd("max_dbpieces")),
    ("get enable_mtc", g.GetCmd("enable_mtc")),
    ("get mtcpath", g.GetCmd("mtcpath")),
    ("get bookfile", g.GetCmd("bookfile")),
    ("get searchthreads", g.GetCmd("searchthreads")),
    ("get cpus", g.GetCmd("cpus")),
    ("set check_wld_dir D:\\wld", g.SetCmd("check_wld_dir", "D:\\wld")),
    ("get movelist B:W1:B", g.GetMovelistCmd("B:W1:B")),
    (f"set gamehist {START}", g.SetGamehistCmd(START)),
    ("set gamehist B:WK12,K27,30,32:B21,K24,28,K31 24-19 27-24 19-15 12-16",
     g.SetGamehistCmd("B:WK12,K27,30,32:B21,K24,28,K31", ("24-19", "27-24", "19-15", "12-16"))),
    (f"staticevaluation {START}", g.StaticEvalCmd(START)),
    ("set evaluator material", g.SetCmd("evaluator", "material")),
    ("get mode", g.GetCmd("mode")),
    ("what is the meaning of life", g.UnknownCmd("what is the meaning of life")),
    ("name please", g.UnknownCmd("name please")),
    ("get hashsize now", g.UnknownCmd("get hashsize now")),
])
def test_engine_commands(text: str, want: g.EngineRequest) -> None:
    assert g.parse_engine_command(text) == want


@pytest.mark.parametrize("text", [
    "get", "set", "set hashsize", "get movelist", "get movelist a b", "set gamehist",
    "set gamehist B:W21-32:B1-12 11-15 banana", "staticevaluation", "staticevaluation a b",
])
def test_malformed_engine_commands(text: str) -> None:
    with pytest.raises(ProtocolError):
        g.parse_engine_command(text)


# ---- engine lines ----


def test_engine_lines_format_and_parse() -> None:
    assert g.format_reply(1, "samuel 0.1.0") == "reply 1 samuel 0.1.0"
    assert g.format_reply(0, "?") == "reply 0 ?"
    assert g.format_reply(1, "a\nb\\c") == "reply 1 a\\nb\\\\c"
    assert g.parse_engine_line("reply 1 a\\nb\\\\c") == g.Reply(1, "a\nb\\c")
    assert g.parse_engine_line("reply 0") == g.Reply(0, "")
    assert g.parse_engine_line("pong") == g.Pong()
    assert g.parse_engine_line("status depth 3") == g.Status("depth 3")
    line = g.format_move("15x24x31", "WIN", "W:W1:BK31", "depth 9/9 score win in 3")
    assert line == "move 15x24x31 WIN W:W1:BK31 depth 9/9 score win in 3"
    parsed = g.parse_engine_line(line)
    assert parsed == g.MoveLine("15x24x31", "WIN", "W:W1:BK31", "depth 9/9 score win in 3")
    assert isinstance(parsed, g.MoveLine) and parsed.code == g.CB_WIN
    assert g.parse_engine_line("move 11-15 UNKNOWN W:W21:B15") == g.MoveLine("11-15", "UNKNOWN", "W:W21:B15")
    err = g.format_error('bad "thing"\nhere')
    assert err == 'error message="bad \\"thing\\"\\nhere"'
    assert g.parse_engine_line(err) == g.ErrorLine('bad "thing"\nhere')


@pytest.mark.parametrize("line", ["reply 2 x", "reply", "move 11-15", "move 11-15 MAYBE W:W1:B5",
                                  "move eleven UNKNOWN W:W1:B5", "bestmove 11-15", ""])
def test_bad_engine_lines(line: str) -> None:
    with pytest.raises(ProtocolError):
        g.parse_engine_line(line)


def test_result_codes_are_checkerboards() -> None:
    assert g.RESULTS == {"DRAW": 0, "WIN": 1, "LOSS": 2, "UNKNOWN": 3}
    with pytest.raises(ValueError):
        g.format_move("11-15", "MAYBE", START)


def test_status_round_trip() -> None:
    f = g.StatusFields(9, 21, "+0.35", 1.25, 123456, 98765, ("11-15", "23-19"))
    text = g.status_text(f)
    assert text == "depth 9/21 score +0.35 time 1.250 nodes 123456 nps 98765 pv 11-15 23-19"
    assert g.parse_status(text) == {"depth": 9, "seldepth": 21, "score": 0.35, "time": 1.25,
                                    "nodes": 123456, "nps": 98765, "pv": ["11-15", "23-19"]}
    win = g.parse_status("depth 3/5 score win in 5 time 0.001 nodes 10 nps 1")
    assert win["score"] == 100.0 and win["win_in"] == 5
    assert g.parse_status("loss in sight") == {}


# ---- time flags ----


def test_exact_and_average_time() -> None:
    assert g.decode_limit(2.0, g.CB_EXACT_TIME) == Limit(movetime=2.0)
    soft, hard = timeman.budgets(g.decode_limit(2.0, 0))
    # maxtime is an average: stop deepening after about maxtime, never run far past it.
    assert 1800 <= soft <= 2000 and 2000 < hard <= 4000
    with pytest.raises(ProtocolError):
        g.decode_limit(0.0, 0)


@pytest.mark.parametrize(("mode", "unit"), [(1, 0.001), (2, 0.01), (3, 0.1)])
def test_incremental_units(mode: int, unit: float) -> None:
    info = mode << g.CB_INCR_TIME_SHIFT
    clock = g.decode_incremental(info, (1234 << 16) | 56)
    assert clock is not None
    assert clock.remaining == pytest.approx(1234 * unit) and clock.increment == pytest.approx(56 * unit)
    lim = g.decode_limit(0.5, info | g.CB_EXACT_TIME | g.CB_RESET_MOVES, (1234 << 16) | 56)
    assert lim.time == pytest.approx(1234 * unit) and lim.inc == pytest.approx(56 * unit)
    assert lim.movetime is None  # the clock wins over the maxtime hint


def test_incremental_off_and_negative_moreinfo() -> None:
    assert g.decode_incremental(g.CB_EXACT_TIME | g.CB_RESET_MOVES, 12345) is None
    clock = g.decode_incremental(3 << 2, -1)  # a C int with the top bit set
    assert clock == g.Incremental(65535 * 0.1, 65535 * 0.1)


@settings(max_examples=200, deadline=None)
@given(st.floats(0, 6000), st.floats(0, 600))
def test_incremental_round_trip(remaining: float, increment: float) -> None:
    bits, more = g.encode_incremental(remaining, increment)
    clock = g.decode_incremental(bits, more)
    assert clock is not None
    unit = g.INCR_UNITS[bits >> g.CB_INCR_TIME_SHIFT]
    assert abs(clock.remaining - remaining) <= unit / 2 + 1e-9
    assert abs(clock.increment - increment) <= unit / 2 + 1e-9


@pytest.mark.parametrize("limit", [
    Limit(movetime=0.25), Limit(time=60, inc=1), Limit(time=3.5), Limit(depth=5), Limit(nodes=5000),
    Limit(movetime=1, depth=3), Limit(),
])
def test_getmove_line_round_trip(limit: Limit) -> None:
    req = g.parse_command(g.format_getmove(START, limit, reset=True))
    assert isinstance(req, g.GetMove) and req.fen == START and req.reset
    got = req.limit()
    assert (got.depth, got.nodes, got.movetime) == (limit.depth, limit.nodes, limit.movetime)
    if limit.time is not None:
        assert got.time == pytest.approx(limit.time, abs=0.01)
        assert got.inc == pytest.approx(limit.inc or 0.0, abs=0.01)


# ---- get movelist ----


def test_movelist_start_and_none() -> None:
    text = g.format_movelist(g.movelist_entries(Board()))
    assert text.startswith("movelist 7,0,6,6,9,13;")
    assert text.count(";") == 7
    assert g.format_movelist([]) == "movelist 0"
    assert g.parse_movelist("movelist 0") == []


def test_movelist_jumps_and_crowning() -> None:
    # A White king at 22 with two captures, a White man at 14 capturing 10 (landing on 7).
    board = Board("W:W14,K22:B5,6,K10,18,26")
    entries = {(e.from_square, e.to_square): e for e in g.movelist_entries(board)}
    assert entries[(14, 7)] == g.MovelistEntry(5, 5, 14, 7, ((7, 10, 10),))
    assert entries[(22, 31)] == g.MovelistEntry(9, 9, 22, 31, ((31, 26, 6),))
    # A Black man crowning with a capture, and a triple jump listing every landing.
    assert g.movelist_entries(Board("B:W26:B22")) == [g.MovelistEntry(6, 10, 22, 31, ((31, 26, 5),))]
    assert {e.newpiece for e in g.movelist_entries(Board("B:W:B25"))} == {10}
    entries2 = g.movelist_entries(Board("B:W6,14,22:B1"))
    assert entries2 == [g.MovelistEntry(6, 6, 1, 26, ((10, 6, 5), (17, 14, 5), (26, 22, 5)))]
    assert g.format_movelist(entries2) == "movelist 1,3,6,6,1,26,10,6,5,17,14,5,26,22,5;"
    text = g.format_movelist(entries2)
    assert g.parse_movelist(text) == entries2


@pytest.mark.parametrize("text", ["movelist", "movelist x", "moves 0", "movelist 2,0,6,6,9,13;",
                                  "movelist 1,0,6,6,9,13", "movelist 1,1,6,6,9,18;", "movelist 1,a,b;"])
def test_bad_movelists(text: str) -> None:
    with pytest.raises(ProtocolError):
        g.parse_movelist(text)


# ---- properties ----

_words = st.sampled_from(["getmove", "ping", "quit", "playnow", "get", "set", "movelist", "gamehist",
                          "staticevaluation", "enginecommand", "fen=", "maxtime=", "depth=", "info=",
                          "B:W21-32:B1-12", "W:W1:B", "11-15", "0", "-1", "1e9", "nan", "x", "=", "",
                          "hashsize", "name"])


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.text(max_size=80), st.lists(_words, max_size=6).map(" ".join)))
def test_random_text_raises_only_protocol_error(text: str) -> None:
    try:
        req = g.parse_command(text)
    except ProtocolError:
        return
    if isinstance(req, g.EngineCommand):
        with contextlib.suppress(ProtocolError):
            g.parse_engine_command(req.text)
    elif isinstance(req, g.GetMove):
        req.limit()


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_random_engine_lines_raise_only_protocol_error(text: str) -> None:
    with contextlib.suppress(ProtocolError):
        g.parse_engine_line(text)
    with contextlib.suppress(ProtocolError):
        g.parse_movelist(text)


@settings(max_examples=300, deadline=None)
@given(st.text(), st.sampled_from([0, 1]))
def test_reply_and_status_round_trip(text: str, code: int) -> None:
    line = g.format_reply(code, text)
    assert "\n" not in line
    assert g.parse_engine_line(line) == g.Reply(code, text)
    assert g.parse_engine_line(g.format_status(text)) == g.Status(text)
    assert g.parse_engine_line(g.format_error(text)) == g.ErrorLine(text)
    assert g.unescape(g.escape(text)) == text


@settings(max_examples=200, deadline=None)
@given(st.text(), st.sampled_from(sorted(g.RESULTS)))
def test_move_line_round_trip(status: str, result: str) -> None:
    line = g.format_move("9-14", result, START, status)
    assert g.parse_engine_line(line) == g.MoveLine("9-14", result, START, status)
