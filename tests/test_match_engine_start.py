"""An engine that never started is an error, not a game lost; a crash after a real start stays a loss.

``samuel match`` and ``samuel tournament`` stop with exit status 2 and a message
naming the engine, its command or address and the operating system's error when
an engine cannot start before it has started once in the run.  An engine that
started and later fails to restart loses its games as a crash.
"""

from __future__ import annotations

import asyncio
import json
import shlex
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from engine.termination import Termination
from matches.engines import EngineSpec
from matches.executor import LocalPool, play_with_fresh_engines
from matches.player import EngineStartError
from matches.record import GameSpec
from matches.referee import GameRules
from matches.store import finished_records, read_events
from matches.timecontrol import TimeControl

REPO = Path(__file__).resolve().parents[1]
SAMUEL = [sys.executable, "-m", "samuel"]
FAKE_HUB = REPO / "tests" / "data" / "fake_engines" / "fake_hub.py"
GOOD = ["--engine", "name=good", "eval=material", "depth=2"]


def samuel(*args: str) -> subprocess.CompletedProcess[str]:
    # The timeout only catches a hang: a start failure is reported in a second or two.
    return subprocess.run([*SAMUEL, *args], capture_output=True, text=True, timeout=600, cwd=REPO,
                          stdin=subprocess.DEVNULL)


def fake_cmd(*flags: str) -> str:
    return shlex.join([sys.executable, str(FAKE_HUB), *flags])


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_match_against_a_missing_program_is_an_error_naming_it(tmp_path: Path) -> None:
    out = tmp_path / "m"
    missing = tmp_path / "no-such-engine"
    run = samuel("match", "--openings-limit", "1", "--tc", "depth=2", "--out", str(out), "--no-live",
                 *GOOD, "--engine", "name=ghost", "proto=hub", f"cmd={missing}")
    assert run.returncode == 2, run.stdout + run.stderr
    assert "engine 'ghost'" in run.stderr and str(missing) in run.stderr
    assert "No such file or directory" in run.stderr
    assert "Score of" not in run.stdout  # no result is reported
    assert not out.exists()  # a tournament that played nothing leaves nothing


def test_a_tournament_against_a_closed_port_is_an_error_naming_the_address(tmp_path: Path) -> None:
    port = closed_port()
    out = tmp_path / "t"
    run = samuel("tournament", "--openings-limit", "1", "--tc", "depth=2", "--out", str(out), "--no-live",
                 "--concurrency", "2", *GOOD, "--engine", "name=remote", "proto=cb", f"tcp=127.0.0.1:{port}")
    assert run.returncode == 2, run.stdout + run.stderr
    assert f"engine 'remote' (cb: 127.0.0.1:{port}) could not start: cannot connect" in run.stderr
    assert "refused" in run.stderr.lower() or "connect call failed" in run.stderr.lower()
    assert not out.exists()


def test_an_engine_that_exits_before_its_handshake_is_an_error(tmp_path: Path) -> None:
    dead = ["--engine", "name=dead", "proto=hub", f"cmd={fake_cmd('--crash-at-start')}"]
    run = samuel("match", "--openings-limit", "1", "--tc", "depth=2", "--out", str(tmp_path / "x"),
                 "--no-live", *GOOD, *dead)
    assert run.returncode == 2, run.stdout + run.stderr
    assert "engine 'dead'" in run.stderr and "exited with status 3" in run.stderr


def test_a_crash_after_a_real_start_stays_a_loss_even_when_the_restart_fails(tmp_path: Path) -> None:
    started = tmp_path / "started-once"
    out = tmp_path / "c"
    run = samuel("match", "--openings-limit", "2", "--tc", "depth=2", "--untimed-timeout", "600",
                 "--out", str(out), "--no-live", *GOOD, "--engine", "name=flaky", "proto=hub",
                 f"cmd={fake_cmd('--crash-after', '2', '--crash-at-restart', str(started))}")
    assert run.returncode == 0, run.stderr
    assert started.exists()
    done = finished_records(read_events(out / "events.jsonl"))
    assert len(done) == 4
    assert all(r.ending is Termination.CRASH and r.score_for("flaky") == 0.0 for r in done), \
        [r.reason for r in done]
    assert sum("could not start" in r.reason for r in done) == 3  # the crash in game 1, then restarts


def test_a_resumed_tournament_whose_engine_cannot_start_keeps_its_games(tmp_path: Path) -> None:
    started = tmp_path / "started-once"
    out = tmp_path / "r"
    engine = ["--engine", "name=once", "proto=hub", f"cmd={fake_cmd('--crash-at-restart', str(started))}"]
    run = samuel("match", "--openings-limit", "1", "--tc", "depth=2", "--out", str(out), "--no-live",
                 *GOOD, *engine)
    assert run.returncode == 0, run.stderr
    # Forget the last game, so that the resumed run has to start the engine again.
    events = out / "events.jsonl"
    lines = events.read_text().splitlines()
    last = max(i for i, line in enumerate(lines) if json.loads(line)["event"] == "game_finished")
    events.write_text("\n".join(lines[:last]) + "\n")
    run = samuel("match", "--resume", str(out), "--no-live")
    assert run.returncode == 2, run.stdout + run.stderr
    assert "engine 'once'" in run.stderr and "exited with status 3" in run.stderr
    assert f"--resume {out}" in run.stderr
    assert len(finished_records(read_events(events))) == 1


def _spec(black: str, white: str) -> GameSpec:
    from engine.board import Board

    return GameSpec(game_id="g-1", round=1, pair_id="g", colour=0, black=black, white=white,
                    opening_index=0, opening_label="start", fen=Board().fen())


def test_the_local_pool_raises_for_a_first_start_and_forfeits_after_a_real_one(tmp_path: Path) -> None:
    started = tmp_path / "started-once"
    engines = {
        "good": EngineSpec("good", options=(("evaluator", "material"),)),
        "flaky": EngineSpec("flaky", proto="hub",
                            cmd=(sys.executable, str(FAKE_HUB), "--crash-at-restart", str(started))),
    }
    rules = GameRules(default_tc=TimeControl(depth=1), max_plies=4)

    async def main() -> None:
        pool = LocalPool(engines, rules)
        try:
            record = await pool.play(_spec("flaky", "good"))
            assert not record.ending.is_fault, record.reason
            pool._all[0].drop("flaky")  # as after a crash: the next game starts it again, and it fails
            record = await pool.play(_spec("good", "flaky"))
            assert record.ending is Termination.CRASH and record.score_for("flaky") == 0.0
        finally:
            await pool.close()
        fresh = LocalPool(engines, rules)  # a new run: the same failure is now a first start
        try:
            with pytest.raises(EngineStartError, match=r"engine 'flaky'.*exited with status 3"):
                await fresh.play(_spec("good", "flaky"))
        finally:
            await fresh.close()

    asyncio.run(main())


def test_fresh_engines_start_the_unproven_one_first(tmp_path: Path) -> None:
    """A worker's game: an engine in ``first`` that cannot start raises, even as White against a
    Black that cannot start either (so a record back means every engine in ``first`` started)."""
    engines = {
        "broken": EngineSpec("broken", proto="hub", cmd=(str(tmp_path / "missing"),)),
        "dead": EngineSpec("dead", proto="hub", cmd=(sys.executable, str(FAKE_HUB), "--crash-at-start")),
    }
    rules = GameRules(default_tc=TimeControl(depth=1), max_plies=4)

    async def main() -> None:
        with pytest.raises(EngineStartError, match="engine 'dead'"):
            await play_with_fresh_engines(_spec("broken", "dead"), engines, rules, first={"dead"})
        record = await play_with_fresh_engines(_spec("broken", "dead"), engines, rules)
        assert record.ending is Termination.CRASH and "broken" in record.reason

    asyncio.run(main())
