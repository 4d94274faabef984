"""The Ray executor on a local two-CPU cluster: games, a worker killed mid-game, cancellation.

One cluster serves the whole module (Ray takes seconds to start); each test
makes its own executor on it.  Engine processes are found through /proc by a
marker in their argv (the fake Hub engine's ``--name``), and their parent is
the Ray worker playing the game.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'samuel[ray]')")

from engine.board import Board  # noqa: E402  (after the skip)
from engine.fen import START_FEN  # noqa: E402
from engine.pdn import read_game  # noqa: E402
from engine.termination import Termination  # noqa: E402
from matches.engines import EngineSpec  # noqa: E402
from matches.executor import ExecutorError  # noqa: E402
from matches.player import EngineStartError  # noqa: E402
from matches.ray_executor import RayExecutor  # noqa: E402
from matches.record import GameSpec, MatchGame  # noqa: E402
from matches.referee import GameRules  # noqa: E402
from matches.timecontrol import TimeControl  # noqa: E402

T = TypeVar("T")

HANG = 600.0
"""Seconds for any wait in these tests: only a hang gets there (Ray workers start slowly on a busy
machine; a limit a slow start could reach made tests fail under load)."""

FAKE_HUB = Path(__file__).resolve().parent / "data" / "fake_engines" / "fake_hub.py"
OPENINGS = ("9-13 21-17", "9-14 22-18", "10-14 24-20", "11-15 23-19", "12-16 24-19", "11-16 22-18")

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="finds processes through /proc")


@pytest.fixture(scope="module")
def cluster() -> Iterator[RayExecutor]:
    """A local cluster on loopback, started (and at the end shut down) by an executor that owns it."""
    saved = dict(os.environ)
    owner = RayExecutor({}, GameRules(), num_cpus=2)
    try:
        asyncio.run(owner.start())
        assert ray.util.get_node_ip_address() == "127.0.0.1", "the local cluster left loopback"
        yield owner
    finally:
        asyncio.run(owner.close())
        os.environ.clear()
        os.environ.update(saved)


def spec(game_id: str, black: str, white: str, opening: str = OPENINGS[0], colour: int = 0) -> GameSpec:
    board = Board(START_FEN)
    board.push_many(opening.split())
    return GameSpec(game_id=game_id, round=1, pair_id=game_id.rsplit("-", 1)[0], colour=colour,
                    black=black, white=white, opening_index=0, opening_label=opening,
                    fen=board.fen(), opening_moves=opening)


def inproc(name: str, evaluator: str) -> EngineSpec:
    return EngineSpec(name=name, proto="inproc", options=(("evaluator", evaluator),))


def fake_hub(marker: str, delay: float) -> EngineSpec:
    return EngineSpec(name=marker, proto="hub",
                      cmd=(sys.executable, str(FAKE_HUB), "--name", marker, "--delay", str(delay)))


def slow_rules(marker: str, max_plies: int) -> GameRules:
    """The in-process engine at depth 2; the fake at 1 s a move, of which it takes its delay."""
    return GameRules(default_tc=TimeControl(depth=2), time_controls={marker: TimeControl(movetime=1.0)},
                     max_plies=max_plies)


def processes_with(marker: str) -> dict[int, int]:
    """pid -> parent pid of the live processes whose argv holds ``marker``."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            argv = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if marker.encode() in argv and fields[0] != "Z":
            found[int(entry)] = int(fields[1])
    return found


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


async def wait_for(what: str, check: Callable[[], T], timeout: float = HANG) -> T:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        await asyncio.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def test_small_tournament_returns_every_game_once(cluster: RayExecutor) -> None:
    engines = {"mat": inproc("mat", "material"), "s59": inproc("s59", "samuel-1959")}
    rules = GameRules(default_tc=TimeControl(depth=2), max_plies=120)
    specs = [spec(f"r1-{i}-{c}", *(("mat", "s59") if c == 0 else ("s59", "mat")), opening=o, colour=c)
             for i, o in enumerate(OPENINGS[:3]) for c in (0, 1)]

    async def run() -> list[MatchGame]:
        executor = RayExecutor(engines, rules, concurrency=2)
        await executor.start()
        try:
            return await asyncio.gather(*(executor.play(s) for s in specs))
        finally:
            await executor.close()

    records = asyncio.run(run())
    assert ray.is_initialized(), "an executor that did not start the cluster must leave it up"
    assert Counter(r.game_id for r in records) == Counter(s.game_id for s in specs)
    for s, r in zip(specs, records, strict=True):
        assert r.spec == s
        assert r.attempt == 1
        assert r.result in ("1-0", "0-1", "1/2-1/2")
        assert set(r.sides) == {"mat", "s59"}
        game = read_game(r.pdn)
        assert game.tags["GameId"] == s.game_id
        assert game.result == r.result
        assert len(game.moves) == len(s.opening_moves.split()) + r.plies


def test_killed_worker_is_retried_and_its_engine_dies(cluster: RayExecutor) -> None:
    marker = f"fake-{uuid.uuid4().hex[:12]}"
    engines = {marker: fake_hub(marker, 0.2), "mat": inproc("mat", "material")}

    async def run() -> tuple[MatchGame, int]:
        executor = RayExecutor(engines, slow_rules(marker, 16), concurrency=1)
        await executor.start()
        try:
            game = asyncio.ensure_future(executor.play(spec("kill-1", marker, "mat")))
            first = await wait_for("the fake engine", lambda: processes_with(marker))
            (engine_pid, worker_pid), = first.items()
            await asyncio.sleep(0.5)  # into the game
            assert not game.done()
            os.kill(worker_pid, signal.SIGKILL)
            record = await asyncio.wait_for(game, HANG)
            return record, engine_pid
        finally:
            await executor.close()

    record, engine_pid = asyncio.run(run())
    assert record.game_id == "kill-1"
    assert record.attempt == 2
    assert record.plies == 16 and record.result == "1/2-1/2"
    assert read_game(record.pdn).tags["GameId"] == "kill-1"
    assert not alive(engine_pid), "the killed worker's engine outlived it"
    assert not processes_with(marker)


def test_worker_lost_after_all_retries_is_an_executor_error(cluster: RayExecutor) -> None:
    marker = f"fake-{uuid.uuid4().hex[:12]}"
    engines = {marker: fake_hub(marker, 0.2), "mat": inproc("mat", "material")}

    async def run() -> None:
        executor = RayExecutor(engines, slow_rules(marker, 400), concurrency=1, max_retries=0)
        await executor.start()
        try:
            game = asyncio.ensure_future(executor.play(spec("lost-1", "mat", marker)))
            (_, worker_pid), = (await wait_for("the fake engine", lambda: processes_with(marker))).items()
            os.kill(worker_pid, signal.SIGKILL)
            with pytest.raises(ExecutorError, match="game lost-1 lost after 0 retries"):
                await asyncio.wait_for(game, HANG)
        finally:
            await executor.close()

    asyncio.run(run())
    asyncio.run(wait_for("the engine to go", lambda: not processes_with(marker)))


def test_cancelled_play_kills_the_engine(cluster: RayExecutor) -> None:
    marker = f"fake-{uuid.uuid4().hex[:12]}"
    engines = {marker: fake_hub(marker, 0.2), "mat": inproc("mat", "material")}

    async def run() -> tuple[int, int]:
        executor = RayExecutor(engines, slow_rules(marker, 400), concurrency=1)
        await executor.start()
        try:
            game = asyncio.ensure_future(executor.play(spec("cancel-1", marker, "mat")))
            (pids, ) = (await wait_for("the fake engine", lambda: processes_with(marker))).items()
            game.cancel()
            with pytest.raises(asyncio.CancelledError):
                await game
            await wait_for("the engine and its worker to go", lambda: not any(map(alive, pids)))
            return pids
        finally:
            await executor.close()

    engine_pid, worker_pid = asyncio.run(run())
    assert not alive(engine_pid) and not alive(worker_pid)
    assert not processes_with(marker)


def test_close_cancels_the_games_in_flight(cluster: RayExecutor) -> None:
    marker = f"fake-{uuid.uuid4().hex[:12]}"
    engines = {marker: fake_hub(marker, 0.2), "mat": inproc("mat", "material")}

    async def run() -> None:
        executor = RayExecutor(engines, slow_rules(marker, 400), concurrency=2)
        await executor.start()
        game = asyncio.ensure_future(executor.play(spec("close-1", marker, "mat")))
        queued = asyncio.ensure_future(executor.play(spec("close-2", "mat", marker)))
        await wait_for("the fake engines", lambda: len(processes_with(marker)) == 2)
        await executor.close()
        for task, game_id in ((game, "close-1"), (queued, "close-2")):
            with pytest.raises(ExecutorError, match=f"game {game_id} was cancelled in Ray"):
                await task
        await wait_for("the engines to go", lambda: not processes_with(marker))

    asyncio.run(run())
    assert ray.is_initialized()


def test_an_engine_killed_by_close_before_its_worker_is_a_cancellation(
        cluster: RayExecutor, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """close() kills each worker's process group; when an engine dies before its worker, the worker
    reports that engine's failed start.  After close() that is a cancellation, not an engine's error.
    The order is forced: close() cancels nothing here, and the engine dies only after close()."""
    marker = f"fake-{uuid.uuid4().hex[:12]}"
    gate = tmp_path / "close-called"
    dies = EngineSpec(name=marker, proto="hub",
                      cmd=("/bin/sh", "-c", f"while [ ! -e '{gate}' ]; do sleep 0.05; done; exit 3", marker))
    engines = {marker: dies, "mat": inproc("mat", "material")}

    async def run() -> None:
        executor = RayExecutor(engines, GameRules(default_tc=TimeControl(depth=1)))
        await executor.start()
        monkeypatch.setattr(executor, "_cancel", lambda ref: None)
        game = asyncio.ensure_future(executor.play(spec("killed-1", marker, "mat")))
        await wait_for("the engine", lambda: len(processes_with(marker)) == 1)
        await executor.close()
        gate.touch()
        with pytest.raises(ExecutorError, match="game killed-1 was cancelled in Ray"):
            await game

    asyncio.run(run())


def test_a_game_that_raises_is_not_retried(cluster: RayExecutor) -> None:
    engines = {"mat": inproc("mat", "material"), "s59": inproc("s59", "samuel-1959")}
    bad = GameSpec(game_id="bad-1", round=1, pair_id="bad", colour=0, black="mat", white="s59",
                   opening_index=0, opening_label="wrong", fen=START_FEN, opening_moves="9-13")

    async def run() -> None:
        executor = RayExecutor(engines, GameRules(default_tc=TimeControl(depth=1)))
        await executor.start()
        try:
            with pytest.raises(ExecutorError, match=r"game bad-1 failed in its Ray worker: ValueError: .*"
                                                    r"do not reach"):
                await executor.play(bad)
            with pytest.raises(ExecutorError, match="no engine named nobody"):
                await executor.play(spec("bad-2", "mat", "nobody"))
        finally:
            await executor.close()

    asyncio.run(run())


def test_an_engine_that_never_starts_is_an_error_and_one_that_started_loses(
        cluster: RayExecutor, tmp_path: Path) -> None:
    started = tmp_path / "started-once"
    engines = {"mat": inproc("mat", "material"),
               "missing": EngineSpec(name="missing", proto="hub", cmd=(str(tmp_path / "no-engine"),)),
               "once": EngineSpec(name="once", proto="hub",
                                  cmd=(sys.executable, str(FAKE_HUB), "--crash-at-restart", str(started)))}
    rules = GameRules(default_tc=TimeControl(depth=1), max_plies=4)

    async def run() -> None:
        executor = RayExecutor(engines, rules)
        await executor.start()
        try:
            with pytest.raises(EngineStartError, match=r"engine 'missing' .*No such file or directory"):
                await executor.play(spec("never-1", "mat", "missing"))
            record = await executor.play(spec("once-1", "once", "mat"))  # its first start: it plays
            assert not record.ending.is_fault, record.reason
            record = await executor.play(spec("once-2", "mat", "once"))  # a failed restart: a loss
            assert record.ending is Termination.CRASH and record.score_for("once") == 0.0
        finally:
            await executor.close()

    asyncio.run(run())


def test_play_before_start_is_an_error() -> None:
    executor = RayExecutor({}, GameRules())
    with pytest.raises(ExecutorError, match="not started"):
        asyncio.run(executor.play(spec("x", "a", "b")))


def test_a_tournament_through_the_ray_executor(cluster: RayExecutor, tmp_path: Path) -> None:
    """The whole runner (schedule, log, standings) on Ray: three engines, two ballots, each game once."""
    from matches.store import TournamentStore, finished_records, read_events
    from matches.tournament import Tournament, TournamentConfig

    config = TournamentConfig(
        engines=[inproc("default", "default"), inproc("material", "material"),
                 inproc("samuel", "samuel-1959")],
        format="round-robin", openings_limit=2, executor="ray", concurrency=2,
        rules=GameRules(default_tc=TimeControl(depth=2)), bootstrap=20)
    store = TournamentStore.create(tmp_path / "t")
    reason = asyncio.run(Tournament(config, store).run())
    assert reason == "complete"
    done = finished_records(read_events(store.events))
    assert len(done) == 3 * 2 * 2 and len({r.game_id for r in done}) == 12
    assert ray.is_initialized()  # the tournament's executor left the test's cluster running
