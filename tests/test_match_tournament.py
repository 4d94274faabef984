"""Tournaments end to end, through the ``samuel`` command: formats, PDN, faults, resume, SPRT, TCP."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from serving import serve_process

from engine.pdn import read_games
from engine.termination import Termination
from matches.store import finished_records, read_events

REPO = Path(__file__).resolve().parents[1]
SAMUEL = [sys.executable, "-m", "samuel"]
FAKE_HUB = REPO / "tests" / "data" / "fake_engines" / "fake_hub.py"


HANG = 600.0
"""Seconds for anything that must succeed: only a hang gets there (a busy machine must not fail a test)."""


def samuel(*args: str, timeout: float = HANG) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*SAMUEL, *args], capture_output=True, text=True, timeout=timeout, cwd=REPO,
                          stdin=subprocess.DEVNULL)


def fake(name: str, *flags: str) -> list[str]:
    cmd = shlex.join([sys.executable, str(FAKE_HUB), *flags])
    return ["--engine", f"name={name}", "proto=hub", f"cmd={cmd}"]


def records(out: Path):  # type: ignore[no-untyped-def]
    return finished_records(read_events(out / "events.jsonl"))


def test_gauntlet_in_process_writes_pdn_both_readers_accept_and_a_rating_list(tmp_path: Path) -> None:
    out = tmp_path / "g"
    run = samuel("tournament", "--format", "gauntlet", "--openings-limit", "2", "--concurrency", "2",
                 "--tc", "depth=3", "--out", str(out), "--no-live",
                 "--engine", "name=default", "eval=default",
                 "--engine", "name=material", "eval=material",
                 "--engine", "name=samuel-ply3", "mode=samuel", "depth=3")
    assert run.returncode == 0, run.stderr
    for name in ("default", "material", "samuel-ply3"):
        assert name in run.stdout
    done = records(out)
    assert len(done) == 2 * 2 * 2 and len({r.game_id for r in done}) == 8
    assert all({r.spec.black, r.spec.white} & {"default"} for r in done)  # gauntlet: default plays all
    text = (out / "games.pdn").read_text()
    ours = read_games(text)
    assert len(ours) == 8
    assert all(g.tags["GameType"] == "21" and g.tags["Opening"].startswith("ACF ") for g in ours)
    assert all(g.tags["Termination"] and g.result in ("1-0", "0-1", "1/2-1/2") for g in ours)
    from draughts.PDN import PDNReader

    theirs = PDNReader(pdn_text=text).games
    assert len(theirs) == 8
    assert [g.tags["Black"] for g in theirs] == [g.tags["Black"] for g in ours]
    assert all(g.variant == "english" and len(g.moves) >= 3 for g in theirs)
    assert (out / "report.md").read_text().count("|") > 10


@pytest.mark.parametrize(("flags", "ending"), [
    (("--crash-after", "3"), Termination.CRASH),
    (("--hang-after", "3"), Termination.STALL),
    (("--illegal-after", "3"), Termination.ILLEGAL_MOVE),
])
def test_misbehaving_engine_loses_is_restarted_and_the_tournament_finishes(
        tmp_path: Path, flags: tuple[str, ...], ending: Termination) -> None:
    out = tmp_path / "f"
    # Depth limits: no engine can lose on time however busy the machine, so only the fault decides;
    # the untimed timeout finds the hang, and is far above any answer's delay for the others.
    untimed = "5" if ending is Termination.STALL else "120"
    run = samuel("match", "--openings-limit", "2", "--tc", "depth=2", "--untimed-timeout", untimed,
                 "--out", str(out), "--no-live",
                 "--engine", "name=good", "eval=material", "depth=2", *fake("bad", *flags))
    assert run.returncode == 0, run.stderr
    done = records(out)
    assert len(done) == 4
    for r in done:
        assert r.ending is ending, r.reason
        assert r.score_for("bad") == 0.0 and r.score_for("good") == 1.0
        assert r.sides["bad"].fault == ending.value and "bad" in r.reason
    assert "bad" in run.stdout


def _wait_for_games(events: Path, n: int, proc: subprocess.Popen[bytes], timeout: float = HANG) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if events.exists() and events.read_text().count('"game_finished"') >= n:
            return
        if proc.poll() is not None:
            err = proc.stderr.read().decode() if proc.stderr else ""
            raise AssertionError(f"the tournament ended early: {err}")
        time.sleep(0.05)
    raise AssertionError(f"fewer than {n} games within {timeout} s")


def test_kill_9_then_resume_counts_every_game_once(tmp_path: Path) -> None:
    out = tmp_path / "k"
    args = ["tournament", "--openings-limit", "4", "--concurrency", "2", "--tc", "depth=4", "--out", str(out),
            "--no-live", "--engine", "name=a", "eval=default", "--engine", "name=b", "eval=material",
            "--engine", "name=c", "mode=samuel", "depth=2"]
    proc = subprocess.Popen([*SAMUEL, *args], cwd=REPO, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    try:
        _wait_for_games(out / "events.jsonl", 3, proc)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the tournament and every engine it started
        proc.wait(10)
    before = {r.game_id for r in records(out)}
    assert 3 <= len(before) < 24
    run = samuel("tournament", "--resume", str(out), "--no-live")
    assert run.returncode == 0, run.stderr
    events = read_events(out / "events.jsonl")
    finished = [e["record"]["spec"]["game_id"] for e in events if e["event"] == "game_finished"]
    assert len(finished) == len(set(finished)) == 3 * 4 * 2  # three pairings, four openings, two colours
    assert before <= set(finished)
    assert len(read_games((out / "games.pdn").read_text())) == 24
    assert any(e["event"] == "tournament_resumed" for e in events)


def test_resume_and_out_errors_are_named(tmp_path: Path) -> None:
    run = samuel("tournament", "--resume", str(tmp_path / "nothing"))
    assert run.returncode == 2 and "nothing" in run.stderr and "no tournament" in run.stderr
    run = samuel("match", "--engine", "eval=nonsense", "--engine", "eval=material",
                 "--out", str(tmp_path / "x"))
    assert run.returncode == 2 and "nonsense" in run.stderr
    run = samuel("match", "--engine", "name=a", "--engine", "name=a", "--out", str(tmp_path / "y"))
    assert run.returncode == 2 and "given twice" in run.stderr
    run = samuel("match", "--engine", "name=a", "--engine", "name=b", "--tc", "st=abc",
                 "--out", str(tmp_path / "z"))
    assert run.returncode == 2 and "st=abc" in run.stderr
    # A refused match leaves no directory behind (not even an empty games file).
    assert not any((tmp_path / d).exists() for d in "xyz")


def test_sprt_between_clearly_different_players_stops_early_on_the_right_side(tmp_path: Path) -> None:
    strong = ["--engine", "name=strong", "eval=default", "depth=4"]
    weak = ["--engine", "name=weak", "eval=material", "depth=1"]
    for first, second, verdict in ((strong, weak, "H1"), (weak, strong, "H0")):
        out = tmp_path / verdict
        run = samuel("match", *first, *second, "--sprt", "elo0=0 elo1=40 alpha=0.05 beta=0.05",
                     "--openings", "crossboard", "--shuffle", "7", "--concurrency", "2", "--tc", "depth=4",
                     "--out", str(out), "--no-live")
        assert run.returncode == 0, run.stderr
        events = read_events(out / "events.jsonl")
        last = [e for e in events if e["event"] == "sprt"][-1]
        assert last["decision"] == verdict
        played = len(records(out))
        assert played < 288  # stopped before the deck ran out
        assert events[-1]["event"] == "tournament_finished" and verdict in events[-1]["reason"]


@pytest.mark.parametrize("proto", ["dxp", "cb"])
def test_match_against_an_external_server_over_tcp(tmp_path: Path, proto: str) -> None:
    with serve_process(tmp_path, "--dxp-movetime", "0.05") as (_proc, ports):
        out = tmp_path / proto
        run = samuel("match", "--openings-limit", "1", "--tc", "depth=3", "--out", str(out), "--no-live",
                     "--engine", "name=local", "eval=material", "depth=3",
                     "--engine", f"name=served-{proto}", f"proto={proto}", "host=127.0.0.1",
                     f"port={ports[proto]}")
    assert run.returncode == 0, run.stderr
    done = records(out)
    assert len(done) == 2
    assert all(not r.ending.is_fault for r in done), [r.reason for r in done]
    assert all(r.plies > 0 for r in done)


def test_events_stdout_streams_json_lines(tmp_path: Path) -> None:
    run = samuel("match", "--openings-limit", "1", "--tc", "depth=2", "--out", str(tmp_path / "e"),
                 "--events-stdout", "--no-live", "--engine", "eval=default", "--engine", "eval=material")
    assert run.returncode == 0, run.stderr
    kinds = [json.loads(line)["event"] for line in run.stdout.splitlines()]
    assert kinds[0] == "tournament_started" and kinds[-1] == "tournament_finished"
    assert kinds.count("game_finished") == 2


def test_the_command_line_lists_the_formats_and_executors_the_runner_has() -> None:
    from matches.schedule import FORMATS
    from matches.tournament import EXECUTORS
    from samuel.commands import tournament as command

    assert (*command.FORMATS, "match") == tuple(sorted(FORMATS, key=lambda f: f == "match"))
    assert command.EXECUTORS == EXECUTORS
