"""The Hub session: in-process over asyncio streams, and ``samuel hub`` as a subprocess."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from serving import CaptureWriter

from engine.board import Board
from protocol import hub_grammar as g
from protocol.context import ServerSettings
from protocol.errors import ProtocolError
from protocol.framing import stream_limit
from protocol.hub_session import run_hub

WAIT = 30.0
ROOT = Path(__file__).resolve().parent.parent
PYD_START = g.PYDRAUGHTS_START


class Hub:
    """Drives one in-process session."""

    def __init__(self, max_line: int = 4096) -> None:
        self.reader = asyncio.StreamReader(limit=stream_limit(max_line))
        self.writer = CaptureWriter()
        self.settings = ServerSettings(max_line=max_line)
        self.task = asyncio.ensure_future(run_hub(self.reader, self.writer, self.settings))
        self.seen: list[str] = []

    def send(self, *lines: str) -> None:
        for line in lines:
            self.reader.feed_data(line.encode("utf-8") + b"\n")

    def feed(self, data: bytes) -> None:
        self.reader.feed_data(data)

    async def next(self, timeout: float = WAIT) -> str:
        line = await asyncio.wait_for(self.writer.lines.get(), timeout)
        self.seen.append(line)
        return line

    async def until(self, pred: Callable[[str], bool], timeout: float = WAIT) -> list[str]:
        """Lines up to and including the first one matching ``pred``."""
        out = []
        while True:
            line = await self.next(timeout)
            out.append(line)
            if pred(line):
                return out

    async def until_cmd(self, command: str, timeout: float = WAIT) -> list[str]:
        return await self.until(lambda s: s.split(" ", 1)[0] == command, timeout)

    async def ask(self, line: str, command: str) -> list[str]:
        self.send(line)
        return await self.until_cmd(command)

    async def close(self) -> None:
        self.reader.feed_eof()
        await asyncio.wait_for(self.task, WAIT)


@asynccontextmanager
async def hub_session(max_line: int = 4096) -> AsyncIterator[Hub]:
    hub = Hub(max_line)
    try:
        yield hub
    finally:
        await hub.close()


def run(coro_fn: Callable[[], object]) -> None:
    asyncio.run(asyncio.wait_for(coro_fn(), 120))  # type: ignore[arg-type]


def parse(line: str) -> g.HubLine:
    parsed = g.tokenize(line)
    assert parsed is not None
    return parsed


def done_move(board: Board, line: str) -> None:
    parsed = parse(line)
    assert parsed.command == "done"
    assert next(iter(parsed.args)) == "move"
    g.parse_move(board, parsed.require("move"))


# ---- handshake


def test_handshake_declares_variant_options_and_frame() -> None:
    async def main() -> None:
        async with hub_session() as hub:
            lines = await hub.ask("hub", "wait")
            assert lines[0].startswith("id name=samuel version=")
            assert 'author="' in lines[0]
            params = {parse(x).args["name"]: parse(x).args for x in lines if x.startswith("param")}
            assert 'param name=variant value=english type=enum values="english"' in lines
            assert set(params) == {"variant", "evaluator", "mode", "hash", "egdb", "backend", "book",
                                   "book-variety", "contempt", "fogel-draws", "frame"}
            assert params["egdb"]["type"] == "string"
            assert params["hash"]["type"] == "int"
            assert params["frame"]["values"] == "auto literal pydraughts"
            assert params["mode"]["values"] == "pvs samuel shannon-a fogel shannon-b"
            for line in lines:  # pydraughts needs every token after the command to be key=value
                assert all(v is not None for v in parse(line).args.values())
            hub.send("set-param name=variant value=english")
            assert await hub.ask("init", "ready") == ["ready"]
            assert await hub.ask("ping", "pong") == ["pong"]

    run(main)


# ---- levels and searches


@pytest.mark.parametrize("level", [
    "level depth=4", "level nodes=3000", "level move-time=0.05", "level time=5 inc=0.1", "level time=2",
    "level moves=20 time=3", "level moves=20 time=3 inc=0.05",
])
def test_every_level_form_searches_and_finishes(level: str) -> None:
    async def main() -> None:
        async with hub_session() as hub:
            hub.send(f'pos pos={PYD_START} moves="11-15 24-20"', level)
            lines = await hub.ask("go think", "done")
            assert any(x.startswith("info depth=") for x in lines)
            board = Board()
            board.push_many(["11-15", "24-20"])
            done_move(board, lines[-1])

    run(main)


def test_level_infinite_runs_until_stop_and_ping_is_answered_while_searching() -> None:
    async def main() -> None:
        async with hub_session() as hub:
            hub.send("pos pos=" + g.LITERAL_START, "level infinite", "go think")
            await hub.until_cmd("info")
            lines = await hub.ask("ping", "pong")
            assert not any(x.startswith("done") for x in lines)  # pong came first, search still on
            lines = await hub.ask("stop", "done")
            done_move(Board(), lines[-1])
            assert await hub.ask("ping", "pong") == ["pong"]

    run(main)


def test_stop_right_after_go_still_answers_done() -> None:
    async def main() -> None:
        async with hub_session() as hub:
            hub.send("pos pos=" + g.LITERAL_START, "level infinite", "go think", "stop")
            lines = await hub.until_cmd("done")
            done_move(Board(), lines[-1])

    run(main)


def test_ponder_then_ponder_hit_then_done() -> None:
    async def main() -> None:
        async with hub_session() as hub:
            hub.send(f"pos pos={PYD_START} moves=\"11-15\"", "level move-time=0.1", "go ponder")
            await hub.until_cmd("info")
            lines = await hub.ask("ping", "pong")
            assert not any(x.startswith("done") for x in lines)
            lines = await hub.ask("ponder-hit", "done")
            board = Board()
            board.push_pdn("11-15")
            done_move(board, lines[-1])
            hub.send("ponder-hit", "stop")  # after done: ignored, no reply
            assert await hub.ask("ping", "pong") == ["pong"]

    run(main)


def test_ponder_then_stop_and_analyze_then_stop() -> None:
    async def main() -> None:
        async with hub_session() as hub:
            hub.send("pos pos=" + g.LITERAL_START, "level time=100", "go ponder")
            await hub.until_cmd("info")
            done_move(Board(), (await hub.ask("stop", "done"))[-1])
            hub.send("level infinite", "go analyze")
            await hub.until_cmd("info")
            done_move(Board(), (await hub.ask("stop", "done"))[-1])
            hub.send("level depth=3", "go analyze")
            done_move(Board(), (await hub.until_cmd("done"))[-1])  # analysis bounded by depth

    run(main)


def test_set_param_and_new_game() -> None:
    async def main() -> None:
        async with hub_session() as hub:
            hub.send("set-param name=mode value=samuel", "set-param name=hash value=4",
                     "set-param name=evaluator value=material", "set-param name=frame value=literal",
                     "new-game")
            assert await hub.ask("ping", "pong") == ["pong"]  # no errors on the way
            hub.send("pos pos=" + g.LITERAL_START, "level depth=3")
            done_move(Board(), (await hub.ask("go think", "done"))[-1])

    run(main)


# ---- errors: answered, then the session goes on


@pytest.mark.parametrize("lines, fragment", [
    (["go think"], "no position"),
    (["pos pos=Qxx"], "33 characters"),
    (["pos pos=Qxx", "go think"], "last pos was rejected"),
    (['pos moves="11-15"'], "missing pos="),
    ([f'pos pos={g.LITERAL_START} moves="11-15 11-15"'], "move 2"),
    (["level depth=0"], "depth=0"),
    (["pos pos=" + g.LITERAL_START, "level bogus=3"], "level needs"),
    (["pos pos=" + g.LITERAL_START, "level nodes=x", "go think"], "last level was rejected"),
    (["set-param name=variant value=frisian"], "frisian"),
    (["set-param name=hash value=lots"], "hash='lots' is not a whole number"),
    (["set-param name=nosuch value=1"], "unknown option"),
    (["set-param name=frame value=upside"], "frame"),
    (["set-param value=3"], "missing name="),
    (['pos pos="unterminated'], "unterminated"),
    (["pos pos=B:W5,6,10:B1", "go think"], "terminal"),
    (["go think ponder"], "choose one"),
])
def test_bad_input_gets_an_error_line_and_the_session_goes_on(lines: list[str], fragment: str) -> None:
    async def main() -> None:
        async with hub_session() as hub:
            hub.send(*lines)
            out = await hub.ask("ping", "pong")
            errors = [x for x in out if x.startswith("error ")]
            assert errors, out
            message = parse(errors[-1]).require("message")
            assert fragment in message
            hub.send("pos pos=" + g.LITERAL_START, "level depth=2")
            done_move(Board(), (await hub.ask("go think", "done"))[-1])

    run(main)


def test_go_while_searching_is_an_error_and_unknown_commands_are_ignored() -> None:
    async def main() -> None:
        async with hub_session() as hub:
            hub.send("pos pos=" + g.LITERAL_START, "level infinite", "go think")
            await hub.until_cmd("info")
            out = await hub.ask("go think", "error")
            assert "already running" in out[-1]
            hub.send("frobnicate now=yes", "new-game")
            out = await hub.ask("ping", "pong")
            errors = [x for x in out if x.startswith("error")]
            assert len(errors) == 1 and "new-game" in errors[0]
            out = await hub.ask("stop", "done")
            assert sum(1 for x in out if x.startswith("done")) == 1

    run(main)


def test_oversized_line_and_invalid_utf8() -> None:
    async def main() -> None:
        async with hub_session(max_line=256) as hub:
            hub.feed(b"pos pos=" + b"e" * 10_000 + b"\n")
            out = await hub.ask("ping", "pong")
            assert "exceeds the limit" in out[0]
            hub.feed(b"ping \xff\xfe\n")
            out = await hub.ask("ping", "pong")
            assert "UTF-8" in out[0]
            hub.feed(b"hub\r\n")
            await hub.until_cmd("wait")

    run(main)


def test_quit_ends_the_session_and_stops_a_search() -> None:
    async def main() -> None:
        hub = Hub()
        hub.send("pos pos=" + g.LITERAL_START, "level infinite", "go think")
        await hub.until_cmd("info")
        hub.send("quit")
        await asyncio.wait_for(hub.task, WAIT)

    run(main)


junk_line = st.one_of(
    st.text(max_size=60),
    st.builds(lambda c, a: f"{c} {a}", st.sampled_from(
        ["pos", "level", "go", "set-param", "ponder-hit", "stop", "new-game", "init", "hub", "ping"]),
        st.text(max_size=40)),
    st.binary(max_size=60).map(lambda b: b.decode("latin-1")),
)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(junk_line, min_size=1, max_size=8))
def test_junk_lines_never_break_a_live_session(lines: list[str]) -> None:
    async def main() -> None:
        async with hub_session() as hub:
            pings = 0
            for line in lines:
                text = line.replace("\n", " ").replace("\r", " ")
                data = text.encode("utf-8", "surrogatepass")
                try:
                    parsed = g.tokenize(data.decode("utf-8"))
                except (ProtocolError, UnicodeDecodeError):
                    parsed = None
                if parsed is not None and parsed.command == "quit":
                    continue
                pings += parsed is not None and parsed.command == "ping"
                hub.feed(data + b"\n")
            hub.send("stop", "ping")
            # Every junk ping is answered, then ours; then the session must still answer cleanly.
            for _ in range(pings + 1):
                await hub.until_cmd("pong")
            hub.send("stop")
            out = await hub.ask("ping", "pong")
            assert not [x for x in out if x.startswith("error")], out

    run(main)


# ---- the real command


def samuel_cmd() -> list[str]:
    exe = ROOT / ".venv" / "bin" / "samuel"
    if exe.exists():
        return [str(exe)]
    return [sys.executable, "-m", "samuel.cli"]


def test_samuel_hub_subprocess_talks_hub_and_quits(tmp_path: Path) -> None:
    log = tmp_path / "hub.log"
    script = "\n".join([
        "hub", "set-param name=variant value=english", "init",
        f'pos pos={PYD_START} moves="11-15 24-20"', "level move-time=0.05", "go think", "ping",
        "pos pos=Qxx", "quit", "",
    ])
    r = subprocess.run([*samuel_cmd(), "hub", "--log", str(log), "--log-level", "debug"],
                       input=script, capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    out = r.stdout.splitlines()
    assert out[0].startswith("id name=samuel")
    assert "wait" in out and "ready" in out
    done = [x for x in out if x.startswith("done move=")]
    assert len(done) == 1
    board = Board()
    board.push_many(["11-15", "24-20"])
    done_move(board, done[0])
    assert any(x.startswith("error ") and "33 characters" in x for x in out)
    assert "hub << go think" in log.read_text()


def test_samuel_hub_subprocess_exits_on_eof_without_stderr(tmp_path: Path) -> None:
    r = subprocess.run([*samuel_cmd(), "hub", "--frame", "literal"], input="hub\npos pos=Qxx\n",
                       capture_output=True, text=True, timeout=60, cwd=tmp_path,
                       env={**os.environ, "PYTHONWARNINGS": "always"})
    assert r.returncode == 0 and r.stderr == ""
    assert "param name=frame value=literal" in r.stdout
    assert not list(tmp_path.iterdir())  # no log file unless asked
