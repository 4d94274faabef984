"""The cb session: run_cb in-process over a fed StreamReader, and ``samuel cb`` as a subprocess."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from collections.abc import Awaitable, Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from serving import CaptureWriter

from engine.board import Board
from engine.options import OptionValues
from protocol import cb_grammar as g
from protocol.cb_session import run_cb
from protocol.context import ServerSettings
from protocol.framing import stream_limit
from protocol.session_engine import SessionDefaults

pytestmark = pytest.mark.timeout(60)

START = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
SAMUEL = [sys.executable, "-m", "samuel"]


class Client:
    def __init__(self, max_line: int = 4096, idle: float | None = None) -> None:
        self.settings = ServerSettings(max_line=max_line, idle_timeout=idle,
                                       defaults=SessionDefaults(options=OptionValues(hash=1)))
        self.reader = asyncio.StreamReader(limit=stream_limit(max_line))
        self.out = CaptureWriter()
        self.task = asyncio.create_task(run_cb(self.reader, self.out, self.settings))

    def send(self, data: str | bytes) -> None:
        self.reader.feed_data(data if isinstance(data, bytes) else data.encode() + b"\n")

    async def line(self, timeout: float = 20) -> str:
        return await asyncio.wait_for(self.out.lines.get(), timeout)

    async def ask(self, text: str) -> str:
        self.send(text)
        return await self.line()

    async def until(self, prefix: str, timeout: float = 30) -> tuple[str, list[str]]:
        """The first line starting with ``prefix``, and the lines before it."""
        seen: list[str] = []
        while True:
            line = await self.line(timeout)
            if line.startswith(prefix):
                return line, seen
            seen.append(line)

    async def close(self) -> None:
        self.reader.feed_eof()
        await asyncio.wait_for(self.task, 30)


def run(test: Callable[[Client], Awaitable[None]], **kw: object) -> None:
    async def main() -> None:
        c = Client(**kw)  # type: ignore[arg-type]
        try:
            await test(c)
        finally:
            await c.close()

    asyncio.run(main())


# ---- enginecommand ----

CB177 = [
    ("name", r"reply 1 samuel \S+"),
    ("about", r"reply 1 samuel .*\\n.*opening book none \(variety 0\), no endgame database"),
    ("help", r"reply 0 \?"),
    ("get protocolversion", r"reply 1 2"),
    ("get gametype", r"reply 1 21"),
    ("set gametype 21", r"reply 1 21"),
    ("set gametype 22", r"reply 0 .*English checkers only.*"),
    ("get book", r"reply 1 0"),
    ("set book 3", r"reply 1 3"),
    ("get book", r"reply 1 3"),
    ("set book 7", r"reply 0 book stays 3: 7 is not 0..3"),
    ("set book 0", r"reply 1 0"),
    ("get hashsize", r"reply 1 1"),
    ("get dbpath", r"reply 1 .*egdb-absent"),
    ("set dbpath C:\\db files", r"reply 0 egdb stays auto: .*db files: no such endgame database directory"),
    ("get dbmbytes", r"reply 1 0"),
    ("set dbmbytes 256", r"reply 0 .*dbmbytes not used"),
    ("get allscores", r"reply 0 \?"),
    ("set allscores 1", r"reply 0 .*no allscores mode.*"),
    ("get solve", r"reply 0 \?"),
    ("set solve 1", r"reply 0 .*no solve mode.*"),
    ("get enable_wld", r"reply 1 0"),
    ("set enable_wld 1", r"reply 1 auto"),
    ("get max_dbpieces", r"reply 1 0"),
    ("get enable_mtc", r"reply 0 \?"),
    ("get mtcpath", r"reply 0 \?"),
    ("get bookfile", r"reply 1 default"),
    ("set bookfile book.odb", r"reply 0 bookfile stays default: book: book.odb: no such opening book file"),
    ("get searchthreads", r"reply 1 1"),
    ("set searchthreads 4", r"reply 0 .*one thread.*"),
    ("get cpus", r"reply 1 [1-9]\d*"),
    ("set check_wld_dir D:\\wld", r"reply 1 no endgame database there: .*no such endgame database directory"),
    ("set check_mtc_dir D:\\mtc", r"reply 1 .*no MTC directory"),
    ("get movelist B:W1:B", r"reply 1 movelist 0"),
    (f"get movelist {START}", r"reply 1 movelist 7,(0,6,6,\d+,\d+;){7}"),
    (f"set gamehist {START}", r"reply 1 gamehist 0 moves .*"),
    ("set gamehist B:WK12,K27,30,32:B21,K24,28,K31 24-19 27-24 19-15 12-16", r"reply 1 gamehist 4 moves .*"),
    (f"staticevaluation {START}",
     r"reply 1 static evaluation [+-]\d+\.\d\d for Black \(to move\), evaluator default"),
    ("get evaluator", r"reply 1 default"),
    ("set evaluator material", r"reply 1 material"),
    ("get mode", r"reply 1 pvs"),
    ("set mode samuel", r"reply 1 samuel"),
    ("set mode shannon-b", r"reply 1 shannon-b"),
    ("set mode samuel", r"reply 1 samuel"),
    ("get backend", r"reply 1 modern"),
    ("set evaluator nonsense", r"reply 0 evaluator stays material: .*"),
    ("Hello engine, how are you?", r"reply 0 \?"),
    ("get favourite_colour", r"reply 0 \?"),
    ("enginecommand ping", r"reply 0 \?"),
]


def test_every_checkerboard_command_gets_its_reply() -> None:
    async def t(c: Client) -> None:
        for command, pattern in CB177:
            reply = await c.ask(command)
            assert re.fullmatch(pattern, reply), (command, reply)

    run(t)


def test_hashsize_really_resizes() -> None:
    async def t(c: Client) -> None:
        assert await c.ask("set hashsize 8") == "reply 1 8"
        assert await c.ask("get hashsize") == "reply 1 8"
        assert await c.ask("set hash 2") == "reply 1 2"
        assert await c.ask("get hash") == "reply 1 2"
        assert (await c.ask("set hashsize 999999")).startswith("reply 0 hashsize stays 2 MB")
        # a refusal is a reply 0 naming the option, whatever is wrong with the value
        assert await c.ask("set hashsize lots") == \
            "reply 0 hashsize stays 2 MB: hash='lots' is not a whole number"
        assert await c.ask("get hashsize") == "reply 1 2"

    run(t)


def test_the_table_is_readied_before_the_first_getmove(monkeypatch: pytest.MonkeyPatch) -> None:
    # cb says nothing before its first getmove: the session readies its table on connecting,
    # so that move's time does not pay for building it (or for starting a search process).
    from protocol.session_engine import SessionEngine

    readied = asyncio.Event()
    prepare = SessionEngine.prepare

    async def spy(self: SessionEngine) -> int:
        mb = await prepare(self)
        readied.set()
        return mb

    monkeypatch.setattr(SessionEngine, "prepare", spy)

    async def t(c: Client) -> None:
        await asyncio.wait_for(readied.wait(), 30)  # no command sent yet
        assert await c.ask("get hashsize") == "reply 1 1"

    run(t)


def test_bad_fens_are_errors() -> None:
    async def t(c: Client) -> None:
        for command in ("get movelist X:Y", "staticevaluation B:W33:B1", "set gamehist Q:W1:B5",
                        f"set gamehist {START} 11-16 22-18 16-20 18-14 20-24 14-10 24-28 10-6x",
                        f"set gamehist {START} 24-20"):
            line = await c.ask(command)
            assert line.startswith('error message="'), (command, line)
        assert await c.ask("ping") == "pong"

    run(t)


# ---- getmove ----


async def _move(c: Client, fen: str, command: str) -> g.MoveLine:
    c.send(command)
    line, before = await c.until("move ")
    assert all(b.startswith("status") for b in before), before
    parsed = g.parse_engine_line(line)
    assert isinstance(parsed, g.MoveLine)
    board = Board(fen)
    after = board.copy()
    after.push(board.parse_move(parsed.move))
    assert Board(parsed.fen) == after
    return parsed


@pytest.mark.parametrize("args", [
    "0.2",                    # average time
    "0.2 2",                  # CB_EXACT_TIME
    "0.2 3",                  # exact and CB_RESET_MOVES
    f"0 {1 << 2} {(2000 << 16) | 100}",    # incremental, 0.001 s units: 2 s + 0.1 s
    f"0 {2 << 2} {(300 << 16) | 10}",      # 0.01 s units: 3 s + 0.1 s
    f"1 {3 << 2} {(30 << 16) | 1}",        # 0.1 s units: 3 s + 0.1 s
])
def test_getmove_time_forms(args: str) -> None:
    async def t(c: Client) -> None:
        m = await _move(c, START, f"getmove {START} {args}")
        assert m.result == "UNKNOWN" and m.status.startswith("depth")

    run(t)


def test_getmove_key_value_depth_and_nodes() -> None:
    async def t(c: Client) -> None:
        m = await _move(c, START, f"getmove fen={START} depth=3")
        assert m.status.startswith("depth 3/")
        await _move(c, START, f"getmove fen={START} nodes=2000 maxtime=5")

    run(t)


def test_forced_win_and_draw_results() -> None:
    async def t(c: Client) -> None:
        m = await _move(c, "B:W26:B22", "getmove B:W26:B22 1")
        assert (m.move, m.result) == ("22x31", "WIN")
        # Black's king on 4 has one move; the history makes 4-8 a third repetition.
        shuffle = "4-8 1-5 8-4 5-1"
        assert (await c.ask(f"set gamehist B:WK1:BK4 {shuffle} {shuffle}")).startswith("reply 1")
        m = await _move(c, "B:WK1:BK4", "getmove B:WK1:BK4 0.1 2")
        assert (m.move, m.result) == ("4-8", "DRAW")
        # History that leads elsewhere is not used: the same move is no repetition then.
        assert (await c.ask("set gamehist B:WK2:BK4 4-8")).startswith("reply 1")
        m = await _move(c, "B:WK1:BK4", "getmove B:WK1:BK4 0.1 2")
        assert m.result != "DRAW"
        # A multi-jump is written in long form.
        m = await _move(c, "B:W6,14,22:B1", "getmove B:W6,14,22:B1 0.1")
        assert m.move == "1x10x17x26"

    run(t)


def test_proven_win_is_claimed() -> None:
    async def t(c: Client) -> None:
        m = await _move(c, "W:WK18,K19:B3", "getmove W:WK18,K19:B3 2 2")
        assert m.result == "WIN"

    run(t)


def test_ping_during_a_long_search_and_playnow() -> None:
    async def t(c: Client) -> None:
        c.send(f"getmove {START} 60")
        await c.until("status")
        c.send("ping")
        line, before = await c.until("pong")
        assert not any(b.startswith("move") for b in before)
        c.send(f"getmove {START} 1")
        busy, _ = await c.until("error", 20)
        assert "search is running" in busy
        c.send("playnow")
        line, _ = await c.until("move ", 20)
        assert g.parse_engine_line(line)
        assert await c.ask("ping") == "pong"
        c.send("playnow")  # idle: ignored, no answer
        assert await c.ask("ping") == "pong"

    run(t)


def test_no_legal_moves_and_bad_getmoves_are_errors() -> None:
    async def t(c: Client) -> None:
        for command in ("getmove W:W5:B1 1", "getmove B:W21-32:B1-12", "getmove nonsense 1",
                        "getmove B:W21-32:B1-12 0", "getmove B:W1-5,1:B20 1"):
            line = await c.ask(command)
            assert line.startswith('error message="'), (command, line)
        assert "no legal moves" in await c.ask("getmove W:W5:B1 1")
        assert await c.ask("ping") == "pong"

    run(t)


def test_oversized_and_invalid_utf8_lines() -> None:
    async def t(c: Client) -> None:
        c.send(b"get " + b"x" * 500 + b"\n")
        assert "exceeds the limit of 64" in await c.line()
        c.send(b"name \xff\xfe\n")
        assert "not valid UTF-8" in await c.line()
        c.send(b"\r\n\n")
        assert await c.ask("ping\r") == "pong"

    run(t, max_line=64)


def test_quit_and_idle_timeout_end_the_session() -> None:
    async def t() -> None:
        c = Client()
        c.send("quit")
        await asyncio.wait_for(c.task, 10)
        d = Client(idle=0.3)
        line = await d.line(10)
        assert line.startswith("error") and "idle" in line
        await asyncio.wait_for(d.task, 10)

    asyncio.run(t())


_junk = st.one_of(
    st.binary(max_size=120).map(lambda b: b.replace(b"\n", b" ")),
    st.lists(st.sampled_from(["getmove", "fen=", "B:W21-32:B1-12", "W:W1:B", "set", "get", "gamehist",
                              "movelist", "hashsize", "-1", "1e400", "x", "11-15", "info=7",
                              "staticevaluation", "0", "2"]), max_size=6).map(lambda w: " ".join(w).encode()),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_junk, min_size=1, max_size=4))
def test_junk_gets_answers_and_the_session_goes_on(lines: list[bytes]) -> None:
    async def t(c: Client) -> None:
        for raw in lines:
            if raw.strip().lower().startswith((b"quit", b"getmove")):
                continue  # quit ends the session; a valid getmove would start a search
            c.send(raw + b"\n")
        c.send("playnow")
        c.send("ping")
        _line, before = await c.until("pong")
        assert all(b.startswith(("reply ", "error message=")) for b in before), before

    run(t)


# ---- samuel cb as a subprocess ----


def _samuel_cb(stdin: bytes, *extra: str, timeout: float = 60) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    return subprocess.run([*SAMUEL, "cb", "--hash", "1", *extra], input=stdin, capture_output=True,
                          timeout=timeout, env=env, check=False)


def test_samuel_cb_subprocess_script(tmp_path: object) -> None:
    script = (
        "name\nget protocolversion\nget gametype\nset hashsize 4\nget hashsize\n"
        f"set gamehist {START}\ngetmove {START} 0.2 3\nping\n"
    ).encode()
    r = _samuel_cb(script, "--book", "none")  # a search that end of input stops, not a book move
    assert r.returncode == 0
    assert r.stderr == b""
    lines = r.stdout.decode().splitlines()
    assert lines[:5] == [lines[0], "reply 1 2", "reply 1 21", "reply 1 4", "reply 1 4"]
    assert lines[0].startswith("reply 1 samuel")
    # End of input stops the search at once, and its move still comes.
    assert "pong" in lines and lines[-1].startswith("move ")


def test_samuel_cb_eof_still_answers_the_move_and_logs_only_to_file(tmp_path: os.PathLike[str]) -> None:
    log = os.path.join(tmp_path, "cb.log")
    # --book none: the move must come from a search still running while the errors are answered.
    r = _samuel_cb(b"getmove B:W21-32:B1-12 30\n" + b"x" * 100 + b"\n\xff\n", "--max-line", "50",
                   "--log", log, "--log-level", "debug", "--book", "none")
    assert r.returncode == 0 and r.stderr == b""
    lines = r.stdout.decode().splitlines()
    assert sum(ln.startswith("error") for ln in lines) == 2
    assert lines[-1].startswith("move ")
    assert os.path.getsize(log) > 0


def test_operator_evaluator_file_is_the_sessions_default(tmp_path: os.PathLike[str]) -> None:
    """`samuel cb --eval FILE.json`: the file's evaluator plays, under its own name."""
    from engine import evaluators

    path = os.path.join(tmp_path, "Mine.json")
    evaluators.save(evaluators.linear({"men": 100, "kings": 130}, name="Mine"), path)
    r = _samuel_cb(f"get evaluator\ngetmove {START} 0.05 3\n".encode(), "--eval", path)
    assert r.returncode == 0 and r.stderr == b""
    lines = r.stdout.decode().splitlines()
    assert lines[0] == "reply 1 mine" and lines[-1].startswith("move ")


def test_a_getmove_pauses_the_idle_clock_and_its_move_restarts_it() -> None:
    async def t() -> None:
        c = Client(idle=0.3)
        sent = asyncio.get_running_loop().time()
        c.send(f"getmove {START} 1.0")
        move, before = await c.until("move ")  # no idle error while it searched
        # The move outlasted the idle timeout: a 1 s search (or, on a starved machine, the deadline
        # answering for it) ends no sooner, however busy the machine; its own time may be less.
        assert asyncio.get_running_loop().time() - sent > 0.3, move
        assert not any(x.startswith("error") for x in before)
        closing = await c.line(10)  # and after the move the clock runs again
        assert closing.startswith("error") and "idle for 0.3 s" in closing
        await asyncio.wait_for(c.task, 10)

    asyncio.run(t())
