"""Engine specs (cutechess-style tokens and TOML) and the players that run them.

The client players run against real subprocesses: ``samuel hub``, ``samuel cb``,
``samuel serve`` (cb and DXP over TCP) and the fake Hub engine in
``tests/data/fake_engines/fake_hub.py``, which crashes, hangs or cheats on cue.
"""

from __future__ import annotations

import asyncio
import fnmatch
import json
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from serving import serve_process

from engine import evaluators
from engine.board import Board
from engine.limits import Limit
from engine.search import Mode
from engine.termination import Termination
from matches.engines import (
    ClientPlayer,
    EngineSpec,
    InProcessPlayer,
    load_engines_toml,
    make_player,
    parse_engine,
)
from matches.player import Player, PlayerFault
from matches.timecontrol import TimeControl

ROOT = Path(__file__).resolve().parent.parent
FAKE_HUB = ROOT / "tests" / "data" / "fake_engines" / "fake_hub.py"
PY = sys.executable
HANG = 600.0
"""Seconds for a wait that must succeed: only a hang gets there (a busy machine must not fail a test)."""


def run(fn: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(asyncio.wait_for(fn(), HANG))  # type: ignore[arg-type]


def fake(*args: str, name: str = "fake", extra: tuple[str, ...] = ()) -> EngineSpec:
    return parse_engine([f"name={name}", "proto=hub", f"cmd={PY} {FAKE_HUB} {' '.join(args)}", *extra])


# ---------------------------------------------------------------------------
# Specs from tokens.


def test_in_process_defaults() -> None:
    spec = parse_engine([])
    assert spec == EngineSpec("default", "inproc", options=(("evaluator", "default"),))
    spec = parse_engine(["eval=material", "mode=Samuel1959", "hash=8", "depth=6"])
    assert spec.name == "material-samuel-d6"
    assert dict(spec.options) == {"evaluator": "material", "mode": "samuel", "hash": "8"}
    assert spec.tc == TimeControl(depth=6)


def test_client_forms() -> None:
    hub = parse_engine(["proto=hub", "cmd=samuel hub --eval 'my file.json'", "arg=--log", "arg=x.log",
                        "option.Frame=literal", "evaluator=material", "st=0.2", "timemargin=0.1"])
    assert hub.cmd == ("samuel", "hub", "--eval", "my file.json", "--log", "x.log")
    assert hub.name == "samuel"
    assert hub.options == (("Frame", "literal"), ("evaluator", "material"))
    assert hub.tc == TimeControl(movetime=0.2, margin=0.1)
    assert parse_engine(["proto=hub", f"cmd={PY} -u {FAKE_HUB}"]).name == "fake_hub"
    assert parse_engine(["proto=hub", f"cmd={PY} -m samuel hub"]).name == "samuel"
    cb = parse_engine(["proto=cb", "tcp=10.0.0.2:9000", "name=remote"])
    assert (cb.host, cb.port, cb.name) == ("10.0.0.2", 9000, "remote")
    assert parse_engine(["proto=cb", "host=h"]).port == 27532
    dxp = parse_engine(["proto=dxp", "host=h"])
    assert (dxp.host, dxp.port, dxp.name, dxp.describe()) == ("h", 27531, "h:27531", "dxp: h:27531")
    assert parse_engine(["proto=dxp", "port=5"]).host == "127.0.0.1"
    assert parse_engine(["proto=hub", "cmd=e", "dir=/tmp"]).cwd == str(Path("/tmp").resolve())


def test_weights_file(tmp_path: Path) -> None:
    path = tmp_path / "mine.json"
    evaluators.save(evaluators.linear({FEATURE: 100.0}, name="mine"), path)
    spec = parse_engine([f"weights={path}", "mode=shannon-a"])
    assert spec.name == "mine-shannon-a"
    assert dict(spec.options)["evaluator"] == str(path.resolve())
    assert parse_engine([f"eval={path}"]).name == "mine"


FEATURE = evaluators.FEATURE_NAMES[0]


@pytest.mark.parametrize("tokens, message", [
    (["speed=9"], "unknown key 'speed'"),
    (["material"], "expected key=value, got 'material'"),
    (["proto=uci", "cmd=x"], "unknown proto 'uci'"),
    (["cmd=samuel hub"], "proto=hub, proto=cb or proto=dxp"),
    (["proto=hub"], "needs cmd="),
    (["proto=hub", "cmd=x", "host=h", "port=1"], "not both"),
    (["proto=hub", "host=h"], "needs port="),
    (["proto=dxp", "cmd=x"], "a dxp engine is a server"),
    (["proto=dxp", "host=h", "option.x=1"], "DXP has no engine options"),
    (["proto=hub", "cmd=x", "weights=w.json"], "weights= loads an evaluator into this process"),
    (["eval=nosuch"], "unknown evaluator 'nosuch'"),
    (["eval=/no/such/file.json"], "no evaluator file"),
    (["mode=alphabeta"], "mode=alphabeta is not one of pvs, samuel"),
    (["hash=0"], "hash=0 is out of range (1..4096)"),
    (["hash=big"], "hash='big' is not a whole number"),
    (["option.ponder=on"], "in-process engine takes the options"),
    (["dir=/tmp"], "add proto="),
    (["eval=material", "weights=x.json"], "not both"),
    (["proto=cb", "port=99999"], "port=99999 is out of range (1..65535)"),
    (["proto=cb", "tcp=nohost"], "HOST:PORT"),
    (["proto=hub", "cmd='unclosed"], "cmd="),
    (["arg=x", "proto=hub", "host=h", "port=1"], "arg= adds to cmd="),
    (["tc=abc"], "time control 'tc=abc'"),
    (["st=0.1", "tc=60"], "cannot be combined"),
    (["name="], "name= is empty"),
])
def test_parse_errors(tokens: list[str], message: str) -> None:
    with pytest.raises(ValueError, match="--engine") as info:
        parse_engine(tokens)
    assert message in str(info.value)


def test_each_applies_under_the_engine() -> None:
    spec = parse_engine(["name=a", "st=0.5"], each=["tc=60+1", "eval=material", "timemargin=0.3"])
    assert dict(spec.options) == {"evaluator": "material"}
    assert spec.tc == TimeControl(movetime=0.5, margin=0.3)  # st= replaced the clock of --each
    assert parse_engine(["name=b", "depth=3"], each=["tc=60+1"]).tc == TimeControl(base=60, inc=1, depth=3)


def test_spec_round_trips_through_json() -> None:
    for spec in (parse_engine(["eval=material", "tc=40/60+1", "depth=9"]),
                 parse_engine(["proto=hub", "cmd=samuel hub", "option.mode=samuel", "name=x"]),
                 parse_engine(["proto=dxp", "tcp=127.0.0.1:27531"])):
        back = EngineSpec.from_dict(json.loads(json.dumps(spec.to_dict())))
        assert back == spec
        base = TimeControl.parse("st=1 timemargin=1")
        assert base.merged(back.tc) == base.merged(spec.tc)


# ---------------------------------------------------------------------------
# TOML.

TOML = """
[tournament]
rounds = 2
openings = "crossboard"

[each]
tc = "10+0.1"

[[engine]]
name = "hubby"
proto = "hub"
cmd = ["samuel", "hub"]
dir = "engines"
[engine.options]
evaluator = "material"
hash = 8

[[engine]]
name = "local"
option.mode = "samuel"
eval = "material"
st = 0.05

[[engine]]
"option.hash" = 4
"""


def test_toml(tmp_path: Path) -> None:
    path = tmp_path / "match.toml"
    path.write_text(TOML)
    specs, settings = load_engines_toml(path)
    assert settings == {"tournament": {"rounds": 2, "openings": "crossboard"}}
    hubby, local, third = specs
    assert hubby.cmd == ("samuel", "hub")
    assert hubby.cwd == str((tmp_path / "engines").resolve())
    assert hubby.options == (("evaluator", "material"), ("hash", "8"))
    assert hubby.tc == TimeControl(base=10, inc=0.1)
    assert dict(local.options) == {"mode": "samuel", "evaluator": "material"}
    assert local.tc == TimeControl(movetime=0.05)
    assert third.name == "default" and dict(third.options)["hash"] == "4"


@pytest.mark.parametrize("text, message", [
    ("[[engine]\nname=1", "not valid TOML"),
    ("engine = 3", "array of tables"),
    ("each = 3\n[[engine]]\nname='a'", "'each' must be a table"),
    ("[[engine]]\nname='a'\n[[engine]]\nname='a'", "both named 'a'"),
    ("[[engine]]\nname='z'\nspeed=1", "engine 1 (z): unknown key 'speed'"),
    ("[[engine]]\ncmd=['a', 1, {x=1}]\nproto='hub'", "cmd= needs a single value"),
])
def test_toml_errors(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ValueError, match=r"bad\.toml") as info:
        load_engines_toml(path)
    assert message in str(info.value)


def test_toml_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"none\.toml"):
        load_engines_toml(tmp_path / "none.toml")


# ---------------------------------------------------------------------------
# Players.


def test_make_player_merges_time_controls() -> None:
    default = TimeControl.parse("tc=60+1")
    p = make_player(parse_engine(["name=a", "st=0.5"]), default)
    assert isinstance(p, InProcessPlayer) and p.tc == TimeControl(movetime=0.5)
    q = make_player(parse_engine(["name=b", "proto=hub", "cmd=x"]), default)
    assert isinstance(q, ClientPlayer) and q.tc == default
    assert make_player(parse_engine(["name=c"])).tc is None


async def play_some(player: Player, plies: int, limit: Limit, timeout: float | None = HANG) -> Board:
    """``plies`` moves of ``player`` against itself from the start; each must be legal."""
    board = Board()
    for _ in range(plies):
        played = await player.play(board, limit, timeout)
        assert board.is_legal(played.move)
        board.push(played.move)
    return board


def test_in_process_player() -> None:
    async def main() -> None:
        mat = make_player(parse_engine(["eval=material", "mode=samuel"]))
        dflt = make_player(parse_engine(["name=d", "hash=1"]))
        assert isinstance(mat, InProcessPlayer) and isinstance(dflt, InProcessPlayer)
        await mat.start()
        await dflt.start()
        assert mat.searcher is not None and dflt.searcher is not None
        assert mat.searcher.evaluator.name == "material" and mat.searcher.mode == Mode.SAMUEL
        assert dflt.searcher.evaluator.name == "default" and dflt.searcher.hash_mb == 1
        await mat.new_game()
        board = Board()
        board.push_pdn("11-15")
        played = await dflt.play(board, Limit(depth=2), None)
        assert board.is_legal(played.move)
        assert played.depth == 2 and played.nodes and played.score is not None
        await play_some(mat, 4, Limit(depth=2))
        await mat.close()
        await dflt.close()
        assert not mat.alive

    run(main)


def test_in_process_stall_stops_the_search_and_can_go_on() -> None:
    async def main() -> None:
        player = make_player(parse_engine(["name=slow", "hash=1"]))
        await player.start()
        with pytest.raises(PlayerFault) as info:
            await player.play(Board(), Limit(), 0.2)  # no limit: only our timeout ends it
        assert info.value.ending == Termination.STALL
        assert "engine 'slow' (inproc: default, pvs) did not move within 0.20 s" in str(info.value)
        # Alive: the stall stopped the endless search (else the player would be given up).
        assert player.alive and isinstance(player, InProcessPlayer)
        assert player._run is not None and player._run.done()
        await play_some(player, 2, Limit(depth=1))
        player.kill()
        assert not player.alive
        with pytest.raises(PlayerFault) as dead:
            await player.play(Board(), Limit(depth=1), None)
        assert dead.value.ending == Termination.CRASH
        await player.close()

    run(main)


def test_in_process_cancelled_search_is_stopped() -> None:
    async def main() -> None:
        player = make_player(parse_engine(["name=c", "hash=1"]))
        await player.start()
        task = asyncio.create_task(player.play(Board(), Limit(), None))
        await asyncio.sleep(0.1)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        cancelled = player._run if isinstance(player, InProcessPlayer) else None
        # Waits for the cancelled (endless) search to stop first: a search that did not stop
        # would leave the player given up (an earlier search does not stop).
        await play_some(player, 1, Limit(depth=1))
        assert cancelled is not None and cancelled.done() and player.alive
        await player.close()

    run(main)


@pytest.mark.parametrize("proto", ["hub", "cb"])
def test_client_player_against_samuel(proto: str) -> None:
    async def main() -> None:
        spec = parse_engine([f"proto={proto}", f"cmd={PY} -m samuel {proto} --hash 1",
                             "eval=material", "mode=samuel", f"dir={ROOT}"])
        player = make_player(spec)
        assert isinstance(player, ClientPlayer)
        await player.start()
        assert player.protocol is not None
        if proto == "cb":
            assert player.protocol.options["evaluator"].endswith("material")
        await player.new_game()
        await play_some(player, 4, Limit(movetime=0.03))
        await player.close()
        assert not player.alive
        proc = player.protocol.channel.process
        assert proc is not None and proc.returncode == 0

    run(main)


def test_client_player_options_reach_the_engine() -> None:
    async def main() -> None:
        spec = parse_engine(["name=picky", "proto=hub", f"cmd={PY} -m samuel hub", f"dir={ROOT}",
                             "option.evaluator=nosuch"])
        player = make_player(spec)
        with pytest.raises(PlayerFault) as info:
            await player.start()
        assert info.value.ending == Termination.PROTOCOL_ERROR
        assert "engine 'picky'" in str(info.value) and "nosuch" in str(info.value)
        assert not player.alive
        assert isinstance(player, ClientPlayer) and player.protocol is not None
        proc = player.protocol.channel.process
        assert proc is not None and proc.returncode is not None  # nothing left running

    run(main)


@pytest.mark.parametrize("args, ending, message", [
    (("--crash-after", "2"), Termination.CRASH, "engine 'f' (hub: python* fake_hub.py --crash-after 2) "
                                           "exited with code 3 during its move"),
    (("--illegal-after", "2"), Termination.ILLEGAL_MOVE, "engine 'f' (hub: * played '*', which is not legal"),
    (("--error-after", "2"), Termination.PROTOCOL_ERROR,
     "engine 'f' (hub: *): fake: fake cannot think today"),
    (("--hang-after", "2"), Termination.STALL, "engine 'f' (hub: *) did not move within 0.50 s"),
])
def test_fake_engine_faults(args: tuple[str, ...], ending: Termination, message: str) -> None:
    async def main() -> None:
        player = make_player(fake(*args, name="f"))
        await player.start()
        await player.new_game()
        await play_some(player, 1, Limit(movetime=0.05))
        # The hang is found by our 0.5 s wait; the other faults must not race it on a busy machine.
        wait = 0.5 if ending is Termination.STALL else HANG
        with pytest.raises(PlayerFault) as info:
            await play_some(player, 1, Limit(movetime=0.05), wait)
        assert info.value.ending == ending
        assert fnmatch.fnmatch(str(info.value), message + "*"), str(info.value)
        assert player.alive == (ending in (Termination.ILLEGAL_MOVE, Termination.PROTOCOL_ERROR))
        await player.close()
        assert not player.alive

    run(main)


def test_fake_engine_delay_and_restart() -> None:
    async def main() -> None:
        player = make_player(fake("--delay", "0.3", "--crash-after", "2", name="slowpoke"))
        await player.start()
        t0 = time.monotonic()
        await play_some(player, 1, Limit(movetime=0.05))
        assert time.monotonic() - t0 >= 0.3
        with pytest.raises(PlayerFault):
            await play_some(player, 1, Limit(movetime=0.05))
        assert not player.alive
        await player.start()  # the same player starts a fresh process
        assert player.alive
        await play_some(player, 1, Limit(movetime=0.05))
        await player.close()

    run(main)


def test_engines_that_cannot_start(tmp_path: Path) -> None:
    async def main() -> None:
        cases = [
            (fake("--crash-at-start", name="dead"), Termination.CRASH, "engine 'dead' (hub: "),
            (parse_engine(["name=none", "proto=hub", f"cmd={tmp_path / 'no-engine'}"]), Termination.CRASH,
             "engine 'none' (hub: no-engine) could not start"),
            (parse_engine(["name=shut", "proto=cb", "tcp=127.0.0.1:1"]), Termination.CRASH,
             "engine 'shut' (cb: 127.0.0.1:1) could not start: cannot connect"),
            (fake("--reject-params", name="rej", extra=("option.x=1",)), Termination.PROTOCOL_ERROR,
             "engine 'rej' (hub: "),
        ]
        for spec, ending, message in cases:
            player = make_player(spec)
            with pytest.raises(PlayerFault) as info:
                await player.start()
            assert info.value.ending == ending
            assert message in str(info.value)
            assert not player.alive
            await player.close()

    run(main)


def test_kill_is_immediate() -> None:
    async def main() -> None:
        player = make_player(fake(name="k"))
        await player.start()
        assert isinstance(player, ClientPlayer) and player.protocol is not None
        proc = player.protocol.channel.process
        assert proc is not None
        player.kill()
        assert not player.alive
        assert await asyncio.wait_for(proc.wait(), HANG) == -9
        with pytest.raises(PlayerFault) as info:
            await player.play(Board(), Limit(movetime=0.05), 1.0)
        assert info.value.ending == Termination.CRASH
        await player.close()

    run(main)


def test_tcp_engines(tmp_path: Path) -> None:
    """cb and DXP over TCP against ``samuel serve``; DXP is told the game is over."""
    with serve_process(tmp_path, "--dxp-movetime", "0.05") as (_, ports):
        async def main() -> None:
            cb = make_player(parse_engine(["name=cbt", "proto=cb", f"tcp=127.0.0.1:{ports['cb']}",
                                           "eval=material"]))
            await cb.start()
            await cb.new_game()
            await play_some(cb, 3, Limit(movetime=0.03))
            await cb.close()

            dxp = make_player(parse_engine(["name=dx", "proto=dxp", f"tcp=127.0.0.1:{ports['dxp']}"]))
            await dxp.start()
            await dxp.new_game()
            board = Board()
            for _ in range(2):
                board.push(board.legal_moves[0])  # we play Black ourselves
                played = await dxp.play(board, Limit(movetime=0.05), HANG)
                assert board.is_legal(played.move)
                board.push(played.move)
            await dxp.end_game("1/2-1/2")
            assert isinstance(dxp, ClientPlayer) and dxp.protocol is not None
            assert getattr(dxp.protocol, "game", "?") is None
            await dxp.close()
            assert not dxp.alive

        run(main)


def test_a_dxp_engine_takes_its_frame() -> None:
    spec = parse_engine(["proto=dxp", "tcp=127.0.0.1:27531", "frame=pydraughts"])
    assert spec.frame == "pydraughts" and EngineSpec.from_dict(spec.to_dict()) == spec
    assert parse_engine(["proto=dxp", "tcp=127.0.0.1:27531"]).frame == "literal"
    with pytest.raises(ValueError, match="frame= must be literal or pydraughts"):
        parse_engine(["proto=dxp", "tcp=127.0.0.1:27531", "frame=rotated"])
    with pytest.raises(ValueError, match="frame= is for DXP engines"):
        parse_engine(["proto=hub", "cmd=x", "frame=pydraughts"])
