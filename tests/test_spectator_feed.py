"""Live spectating: the feed's snapshot and updates, slow and abusive spectators, the tournament's
game events (real moves and positions), and ``--web-port`` end to end over a WebSocket."""

from __future__ import annotations

import asyncio
import json
import re
import shlex
import sys
import threading
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect

from engine.board import Board
from matches.engines import parse_engine
from matches.game_events import GameEvent, GameFinished, GameStarted, MoveEvent
from matches.ratings import SprtConfig
from matches.referee import GameRules
from matches.store import TournamentStore
from matches.timecontrol import TimeControl
from matches.tournament import Tournament, TournamentConfig
from protocol import spectator_feed as sf
from protocol.spectator_feed import SpectatorFeed
from samuel.spectate import Spectating, standings_parts

REPO = Path(__file__).resolve().parents[1]
FAKE_HUB = REPO / "tests" / "data" / "fake_engines" / "fake_hub.py"
HANG = 60.0
"""Seconds to wait for what should come at once: only a hang gets there."""
START = "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
BALLOT = "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,13"


class FakeChannel:
    """A spectator's connection: what the feed sent (decoded), and a gate that can hold its sends."""

    peer = "test"

    def __init__(self, *, open_gate: bool = True) -> None:
        self.sent: list[dict[str, Any]] = []
        self.inbox: asyncio.Queue[str | None] = asyncio.Queue()
        self.gate = asyncio.Event()
        if open_gate:
            self.gate.set()
        self.sending = asyncio.Event()
        """Set once a send has begun."""
        self.changed = asyncio.Event()
        self.closed: tuple[int, str] | None = None

    async def receive(self) -> str | None:
        return await self.inbox.get()

    async def send(self, text: str) -> None:
        self.sending.set()
        await self.gate.wait()
        self.sent.append(json.loads(text))
        self.changed.set()

    async def close(self, code: int = 1000, reason: str = "") -> None:
        if self.closed is None:
            self.closed = (code, reason)
        self.inbox.put_nowait(None)
        self.changed.set()

    async def until(self, pred: Any) -> None:
        """Wait (on events, not a clock) until ``pred()`` holds."""
        async def wait() -> None:
            while not pred():
                self.changed.clear()
                await self.changed.wait()
        await asyncio.wait_for(wait(), HANG)


def started(feed: SpectatorFeed, game_id: str = "g1") -> None:
    feed.start_game(game_id, black="a", white="b", opening="ACF 1: 9-13", start_fen=START, book=["9-13"],
                    fen=BALLOT, clocks=(60.0, 60.0))


def moved(feed: SpectatorFeed, ply: int, game_id: str = "g1") -> None:
    feed.move(game_id, move="22-18", path=[22, 18], fen=f"B:W{ply}", ply=ply, clocks=(59.0, 58.25),
              seconds=0.5)


# -- the feed ------------------------------------------------------------------------

def test_a_spectator_gets_a_snapshot_then_each_change() -> None:
    async def run() -> None:
        feed = SpectatorFeed("samuel match", loop=asyncio.get_running_loop())
        started(feed)
        moved(feed, 1)
        feed.set_standings(["#", "engine"], [["1", "a"], ["2", "b"]], ["games 0/2"])
        ch = FakeChannel()
        task = asyncio.ensure_future(feed.serve(ch))
        await ch.until(lambda: len(ch.sent) == 1)
        snap = ch.sent[0]
        assert snap["type"] == "snapshot" and snap["title"] == "samuel match" and snap["live"] is True
        assert snap["status"] == "running" and snap["finished"] == []
        assert snap["standings"] == {"columns": ["#", "engine"], "rows": [["1", "a"], ["2", "b"]],
                                     "lines": ["games 0/2"]}
        [game] = snap["games"]
        assert game == {"id": "g1", "black": "a", "white": "b", "opening": "ACF 1: 9-13", "start": START,
                        "book": ["9-13"], "moves": ["22-18"], "fen": "B:W1", "last": [22, 18],
                        "clocks": [59.0, 58.2]}

        moved(feed, 2)
        feed.move("nobody", move="1-5", path=[1, 5], fen="B:W", ply=1)  # not a game in progress: no message
        feed.end_game("g1", result="1-0", reason="no moves left", plies=2)
        feed.set_status("complete")
        await ch.until(lambda: len(ch.sent) == 4)
        move, end, status = ch.sent[1:]
        assert move == {"type": "move", "id": "g1", "ply": 2, "move": "22-18", "path": [22, 18],
                        "fen": "B:W2", "clocks": [59.0, 58.2], "seconds": 0.5}
        assert end == {"type": "end", "game": {"id": "g1", "black": "a", "white": "b",
                                               "opening": "ACF 1: 9-13", "result": "1-0",
                                               "reason": "no moves left", "plies": 2}}
        assert status == {"type": "status", "status": "complete"}
        again = feed.snapshot()
        assert again["games"] == [] and again["finished"] == [end["game"]] and again["status"] == "complete"

        ch.inbox.put_nowait(None)  # the spectator leaves
        await asyncio.wait_for(task, HANG)
        assert feed.spectators == 0

    asyncio.run(run())


def test_a_game_played_elsewhere_is_shown_when_it_ends() -> None:
    feed = SpectatorFeed(live=False)
    feed.end_game("r1:x", result="0-1", reason="time forfeit", black="a", white="b", opening="ACF 2",
                  plies=40)
    snap = feed.snapshot()
    assert snap["live"] is False and snap["games"] == []
    assert snap["finished"] == [{"id": "r1:x", "black": "a", "white": "b", "opening": "ACF 2",
                                 "result": "0-1", "reason": "time forfeit", "plies": 40}]
    for n in range(sf.FINISHED_KEPT + 3):
        feed.end_game(f"g{n}", result="*", reason="", black="a", white="b")
    assert len(feed.snapshot()["finished"]) == sf.FINISHED_KEPT


def test_a_slow_spectator_skips_to_a_snapshot_and_a_stuck_one_is_dropped_never_slowing_the_match() -> None:
    async def run() -> None:
        feed = SpectatorFeed(loop=asyncio.get_running_loop())
        started(feed)
        fast, slow, stuck = FakeChannel(), FakeChannel(open_gate=False), FakeChannel(open_gate=False)
        tasks = [asyncio.ensure_future(feed.serve(c)) for c in (fast, slow, stuck)]
        await asyncio.wait_for(slow.sending.wait(), HANG)  # each is sending its first snapshot
        await asyncio.wait_for(stuck.sending.wait(), HANG)
        ply = 0

        async def play(n: int) -> None:
            """``n`` moves, in runs the fast spectator keeps up with; the feed never waits."""
            nonlocal ply
            for _ in range(n // 16):
                for _ in range(16):
                    ply += 1
                    moved(feed, ply)
                assert all(len(s.outbox) <= sf.OUTBOX for s in feed._spectators)
                await fast.until(lambda last=ply: fast.sent[-1].get("ply") == last)

        await play(sf.OUTBOX + 16)
        assert [m["ply"] for m in fast.sent[1:]] == list(range(1, ply + 1))
        # The slow one missed more than its outbox holds: a fresh snapshot instead of the moves.
        slow.gate.set()
        await slow.until(lambda: len(slow.sent) == 2)
        first, fresh = slow.sent
        assert first["type"] == fresh["type"] == "snapshot"
        assert first["games"][0]["moves"] == [] and len(fresh["games"][0]["moves"]) == ply

        # The stuck one has taken nothing since its first snapshot: dropped after DROP_AFTER more.
        await play(sf.DROP_AFTER - ply)
        assert ply == sf.DROP_AFTER and feed.spectators == 3
        moved(feed, ply + 1)
        assert feed.spectators == 2
        await asyncio.wait_for(tasks[2], HANG)
        assert stuck.closed == (sf.CLOSE_TRY_LATER, "too far behind") and len(stuck.sent) == 0
        await asyncio.wait_for(feed.flush(), HANG)
        assert fast.sent[-1]["ply"] == slow.sent[-1]["ply"] == ply + 1
        for c in (fast, slow):
            c.inbox.put_nowait(None)
        await asyncio.wait_for(asyncio.gather(*tasks), HANG)

    asyncio.run(run())


def test_what_spectators_send_is_ignored_unless_too_big_or_too_often() -> None:
    async def run() -> None:
        now = [100.0]
        feed = SpectatorFeed(loop=asyncio.get_running_loop(), clock=lambda: now[0])
        quiet, big, chatty = FakeChannel(), FakeChannel(), FakeChannel()
        tasks = [asyncio.ensure_future(feed.serve(c)) for c in (quiet, big, chatty)]
        for _ in range(3):  # a few messages, a second apart: ignored
            quiet.inbox.put_nowait("hello")
            await quiet.until(lambda: quiet.inbox.empty())
            now[0] += 1.0
        big.inbox.put_nowait("x" * (sf.MAX_INBOUND + 1))
        for _ in range(sf.INBOUND_PER_SECOND + 1):  # all within the same second
            chatty.inbox.put_nowait("hi")
        await asyncio.wait_for(asyncio.gather(tasks[1], tasks[2]), HANG)
        assert big.closed == (sf.CLOSE_TOO_BIG, "message too big")
        assert chatty.closed == (sf.CLOSE_POLICY, "too many messages")
        assert quiet.closed is None and feed.spectators == 1
        quiet.inbox.put_nowait(None)
        await asyncio.wait_for(tasks[0], HANG)
        assert quiet.closed == (1000, "")

    asyncio.run(run())


def test_changes_told_from_another_thread_are_applied_on_the_feeds_loop() -> None:
    async def run() -> None:
        loop = asyncio.get_running_loop()
        feed = SpectatorFeed(loop=loop)
        ch = FakeChannel()
        task = asyncio.ensure_future(feed.serve(ch))
        await ch.until(lambda: len(ch.sent) == 1)
        applied_on: list[int] = []
        feed_start = feed._start

        def spy(game: Any) -> None:
            applied_on.append(threading.get_ident())
            feed_start(game)

        feed._start = spy  # type: ignore[method-assign]
        thread = threading.Thread(target=started, args=(feed,))
        thread.start()
        await ch.until(lambda: len(ch.sent) == 2)
        thread.join()
        assert applied_on == [threading.get_ident()] and ch.sent[1]["type"] == "start"
        ch.inbox.put_nowait(None)
        await asyncio.wait_for(task, HANG)

    asyncio.run(run())


# -- a real match's events -----------------------------------------------------------

def two_game_match(tmp_path: Path, *, sprt: SprtConfig | None = None) -> Tournament:
    config = TournamentConfig(
        engines=[parse_engine(["name=a", "eval=material"]), parse_engine(["name=b", "eval=default"])],
        format="match", openings_limit=1, rules=GameRules(default_tc=TimeControl.parse("depth=1")),
        bootstrap=0, sprt=sprt)
    return Tournament(config, TournamentStore.create(tmp_path / "t"))


def test_a_match_tells_each_game_start_move_and_end_with_real_moves_and_positions(tmp_path: Path) -> None:
    tournament = two_game_match(tmp_path)
    events: list[GameEvent] = []
    tournament.on_game = events.append
    assert tournament.reports_moves
    assert asyncio.run(tournament.run()) == "complete"

    assert len(tournament.records) == 2
    for record in tournament.records:
        mine = [e for e in events if e.game_id == record.game_id]
        start, *moves, end = mine
        assert isinstance(start, GameStarted) and isinstance(end, GameFinished)
        assert all(isinstance(m, MoveEvent) for m in moves)
        assert start.start_fen == START and start.opening_moves == tuple(record.spec.opening_moves.split())
        assert start.fen == record.spec.fen and start.clocks == (None, None)
        board = Board(start.start_fen)
        board.push_many(start.opening_moves)
        assert board.fen() == start.fen
        for n, m in enumerate(moves, 1):
            assert isinstance(m, MoveEvent)
            assert m.plies == n and m.spec == record.spec
            assert board.notation(m.move) == m.move_pdn
            board.push_pdn(m.move_pdn)
            assert board.fen() == m.fen_after and m.clocks == (None, None) and m.depth is not None
        assert [m.move for m in moves if isinstance(m, MoveEvent)] == \
            list(record.game.moves[record.game.opening_plies:])
        assert (end.result, end.reason, end.plies, end.record) == \
            (record.result, record.reason, record.plies, record)


def test_the_spectating_glue_shows_a_real_match_with_the_terminals_figures(tmp_path: Path) -> None:
    tournament = two_game_match(tmp_path, sprt=SprtConfig(0, 10))
    feed = SpectatorFeed("samuel match")
    spectating = Spectating(feed)
    snapshots: list[dict[str, Any]] = []

    def on_game(event: GameEvent) -> None:
        spectating.on_game(event)
        if isinstance(event, MoveEvent) and event.plies == 3:
            snapshots.append(feed.snapshot())

    tournament.on_game = on_game
    tournament.on_progress = spectating.on_progress
    asyncio.run(tournament.run())

    first = snapshots[0]["games"][0]
    assert first["id"] == tournament.records[0].game_id and len(first["moves"]) == 3
    assert first["book"] == tournament.records[0].spec.opening_moves.split()
    final = feed.snapshot()
    assert final["games"] == [] and final["status"] == "complete"
    assert [f["id"] for f in final["finished"]] == [r.game_id for r in tournament.records]
    assert all(f["result"] in ("1-0", "0-1", "1/2-1/2") for f in final["finished"])
    columns, rows, lines = standings_parts(tournament.standings)
    assert final["standings"] == {"columns": columns, "rows": rows, "lines": lines}
    assert {"games", "points", "W/D/L", "Elo ± (95%)"} <= set(columns)
    assert sorted(row[1] for row in rows) == ["a", "b"] and all(row[2] == "2" for row in rows)
    assert lines[0].startswith("games 2/2") and lines[1].startswith("LLR ")


# -- end to end: samuel match --web-port ----------------------------------------------

def test_match_with_web_port_streams_moves_to_a_websocket_client(tmp_path: Path) -> None:
    go = tmp_path / "go"  # the engines move only once the spectator is watching
    engine = shlex.join([sys.executable, str(FAKE_HUB), "--wait-for", str(go)])

    async def run() -> None:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "samuel", "match", "--openings-limit", "1", "--tc", "depth=1",
            "--maxmoves", "20", "--no-live", "--out", str(tmp_path / "m"), "--web-port", "0",
            "--engine", "name=a", "proto=hub", f"cmd={engine}",
            "--engine", "name=b", "proto=hub", f"cmd={engine}",
            cwd=REPO, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE)
        assert proc.stderr is not None
        try:
            url = None
            while url is None:
                line = (await asyncio.wait_for(proc.stderr.readline(), HANG)).decode()
                assert line, "samuel match ended without serving the page"
                found = re.search(r"watch it live at (http://127\.0\.0\.1:(\d+)/)", line)
                if found:
                    url, port = found[1], int(found[2])
            seen: list[dict[str, Any]] = []
            async with connect(f"ws://127.0.0.1:{port}/live", origin=f"http://127.0.0.1:{port}",  # type: ignore[arg-type]
                               open_timeout=HANG) as ws:
                async def next_message() -> dict[str, Any]:
                    message = json.loads(await asyncio.wait_for(ws.recv(), HANG))
                    seen.append(message)
                    return message

                snap = await next_message()
                assert snap["type"] == "snapshot" and snap["title"] == "samuel match" and snap["live"]
                assert [row[1] for row in snap["standings"]["rows"]] in (["a", "b"], ["b", "a"])
                game = snap["games"][0] if snap["games"] else (await next_message())["game"]
                assert game["black"] == "a" and game["white"] == "b" and game["moves"] == []
                go.touch()
                move = await next_message()
                while move["type"] != "move":
                    move = await next_message()
                board = Board(game["fen"])
                board.push_pdn(move["move"])
                assert move["id"] == game["id"] and move["ply"] == 1 and move["fen"] == board.fen()
                while not any(m["type"] == "end" for m in seen):
                    await next_message()
            _, err = await asyncio.wait_for(proc.communicate(), HANG)
            assert proc.returncode == 0, err.decode()
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()

    asyncio.run(run())
