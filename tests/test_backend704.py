"""backend=704: the 704 program behind the Searcher interface, the protocols, the CLI and matches."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import pytest
from serving import CaptureWriter

from engine.backend704 import Searcher704
from engine.board import Board
from engine.limits import Limit
from engine.program704 import Program704, Program704Error
from matches.engines import parse_engine
from protocol.cb_session import run_cb
from protocol.context import ServerSettings
from protocol.framing import stream_limit
from protocol.hub_session import run_hub
from protocol.session import SessionDefaults
from samuel.cli import main

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def searcher() -> Searcher704:
    return Searcher704()


def test_depth_search_reports_704_time_and_plays_legal_moves(searcher: Searcher704) -> None:
    infos = []
    board = Board("W:W18,19,21,23,24,26,29,30,31,32:B1,2,3,5,6,7,9,10,12,14")
    result = searcher.search(board, Limit(depth=6), on_info=infos.append)
    assert [i.depth for i in infos] == list(range(1, 7))
    assert result.best is not None and board.is_legal(result.best)
    assert infos[-1].machine_time > infos[0].machine_time > 0  # 12 us a cycle, far slower than here
    assert infos[-1].machine_time > infos[-1].time


def test_the_reported_line_is_legal_and_starts_with_the_move_played(searcher: Searcher704) -> None:
    board = Board("B:W18,19,21,23,24,26,29,30,31,32:B1,2,3,5,6,7,9,10,12,14")
    infos = []
    result = searcher.search(board, Limit(depth=5), on_info=infos.append)
    line = infos[-1].pv
    assert len(line) >= 5 and line[0] == result.best  # Samuel's minimum ply, and more where he looks on
    after = board.copy()
    for move in line:
        assert after.is_legal(move)
        after.push(move)
    assert infos[-1].seldepth >= len(line)


def test_stop_and_the_clock_are_seen_between_slices(searcher: Searcher704) -> None:
    board = Board()
    threading.Timer(0.2, searcher.stop).start()
    t0 = time.monotonic()
    result = searcher.search(board, Limit())  # no limit: only the stop ends it
    assert time.monotonic() - t0 < 5 and result.best is not None and board.is_legal(result.best)
    t0 = time.monotonic()
    result = searcher.search(board, Limit(movetime=0.15))
    assert time.monotonic() - t0 < 2 and board.is_legal(result.best)


def test_a_forced_move_and_a_multiple_jump_are_played_whole(searcher: Searcher704) -> None:
    for fen in ("W:W9:B6,14", "B:W10,19,27:BK1", "B:WK28,K20,12:BK3,K7"):
        board = Board(fen)
        result = searcher.search(board, Limit(depth=4))
        assert result.best in board.legal_moves


def _cb(lines: list[str]) -> list[str]:
    async def run() -> list[str]:
        reader = asyncio.StreamReader(limit=stream_limit(4096))
        out = CaptureWriter()
        task = asyncio.create_task(run_cb(reader, out, ServerSettings(defaults=SessionDefaults(hash_mb=1))))
        reader.feed_data("".join(line + "\n" for line in lines).encode())
        got: list[str] = []
        while not any(g.startswith("move") for g in got):
            got.append(await asyncio.wait_for(out.lines.get(), 60))
        reader.feed_eof()
        await asyncio.wait_for(task, 60)
        return got

    return asyncio.run(run())


def test_cb_session_with_backend_704() -> None:
    start = Board()
    got = _cb(["enginecommand set backend 704", f"getmove fen={start.fen()} depth=5"])
    assert got[0] == "reply 1 704"
    assert any(line.startswith("status") and "704-time" in line for line in got)
    move = got[-1].split()[1]
    assert start.parse_move(move) in start.legal_moves


def test_hub_session_with_backend_704() -> None:
    async def run() -> list[str]:
        reader = asyncio.StreamReader(limit=stream_limit(4096))
        out = CaptureWriter()
        task = asyncio.ensure_future(run_hub(reader, out, ServerSettings()))
        reader.feed_data(b"set-param name=backend value=704\ninit\npos start\nlevel depth=4\ngo think\n")
        got: list[str] = []
        while not any(g.startswith("done") for g in got):
            got.append(await asyncio.wait_for(out.lines.get(), 60))
        reader.feed_data(b"quit\n")
        await asyncio.wait_for(task, 60)
        return got

    got = asyncio.run(run())
    assert not any(line.startswith("error") for line in got), got
    assert any(line.startswith("info") and "704-time=" in line for line in got)
    done = got[-1]
    assert done.startswith("done move=")


def test_match_spec_and_cli_take_backend_704(capsys: pytest.CaptureFixture[str]) -> None:
    spec = parse_engine(["name=s704", "backend=704"])
    assert dict(spec.options)["backend"] == "704"
    with pytest.raises(Exception, match="backend= must be modern or 704"):
        parse_engine(["name=x", "backend=705"])
    assert main(["analyse", "--backend", "704", "--depth", "4"]) == 0
    out = capsys.readouterr().out
    assert "bestmove" in out


def test_a_deck_of_ones_own_runs_and_a_bad_one_is_named(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    source = Path(__file__).resolve().parents[1] / "emu704" / "programs"
    deck = tmp_path / "mine.cbn"
    assert main(["emu704", "asm", str(source / "checkers.sap"), "-o", str(deck),
                 "--listing", str(tmp_path / "mine.lst")]) == 0
    own, shipped = Program704(deck), Program704()
    for board in (Board(), Board("W:W18,19,21,23,24,26,29,30,31,32:B1,2,3,5,6,7,9,10,12,14")):
        assert own.search(board, 4) == shipped.search(board, 4)

    (tmp_path / "torn.cbn").write_bytes(deck.read_bytes()[:500])
    (tmp_path / "torn.sym").write_text((tmp_path / "mine.sym").read_text())
    with pytest.raises(Program704Error, match=r"torn\.cbn: cannot be loaded.*card"):
        Program704(tmp_path / "torn.cbn")
    (tmp_path / "alone.cbn").write_bytes(deck.read_bytes())
    with pytest.raises(Program704Error, match=r"alone\.sym: no such symbol file"):
        Program704(tmp_path / "alone.cbn")
    loop = tmp_path / "loop.cbn"
    assert main(["emu704", "asm", str(source / "loop.sap"), "-o", str(loop),
                 "--listing", str(tmp_path / "loop.lst")]) == 0
    with pytest.raises(Program704Error, match="not a checkers program for this host: no ENTRY"):
        Program704(loop)
    with pytest.raises(Program704Error, match="no such deck"):
        Program704(tmp_path / "missing.cbn")
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_info:
        main(["analyse", "--backend", "704", "--deck704", str(tmp_path / "torn.cbn")])
    assert exit_info.value.code == 2
    assert "torn.cbn: cannot be loaded" in capsys.readouterr().err


def test_bad_input_to_a_704_session_is_named_and_the_session_goes_on() -> None:
    async def run() -> list[str]:
        reader = asyncio.StreamReader(limit=stream_limit(4096))
        out = CaptureWriter()
        task = asyncio.ensure_future(run_hub(reader, out, ServerSettings()))
        reader.feed_data(b"set-param name=backend value=704\ninit\n"
                         b"pos pos=Wxyz\n"                        # not a position
                         b"pos start moves=\"11-15 22-18 12-16\"\n"  # 15x22 is compulsory there
                         b"pos pos=Wbbbbbbbbbbbbbeeeeeeewwwwwwwwwwww\n"  # 13 men: more than a side has
                         b"pos start moves=11-15\nlevel depth=3\ngo think\n")
        got: list[str] = []
        while not any(g.startswith("done") for g in got):
            got.append(await asyncio.wait_for(out.lines.get(), 60))
        reader.feed_data(b"quit\n")
        await asyncio.wait_for(task, 60)
        return got

    got = asyncio.run(run())
    errors = [line for line in got if line.startswith("error")]
    assert len(errors) == 3, got
    assert "12-16" in errors[1]
    board = Board()
    board.push(board.parse_move("11-15"))
    move = got[-1].split("move=")[1].split()[0]
    assert board.parse_move(move) in board.legal_moves


def test_a_dxp_game_against_a_704_server(monkeypatch: pytest.MonkeyPatch) -> None:
    """`samuel serve --backend 704`: a DXP client plays a whole game against the 704 program,
    and an illegal move of its own is answered with the game's end, the server going on."""
    import random

    from serving import DxpServerThread
    from test_dxp_session import Client, accept, engine_reply, our_move

    from protocol import dxp_grammar as g
    from protocol import dxp_session

    monkeypatch.setattr(dxp_session, "MESSAGE_GAP", 0.005)
    settings = ServerSettings(dxp_movetime=0.02, defaults=SessionDefaults(backend="704", hash_mb=1),
                              idle_timeout=60.0)
    rng = random.Random(704)
    with DxpServerThread(settings) as server:
        c = Client(server.port)
        try:
            accept(c, follower="W")  # the server plays White: we move first
            board = Board()
            while board.legal_moves and len(board.move_stack) < 160:
                our_move(c, board, rng)
                if not board.legal_moves:
                    break
                engine_reply(c, board)
            assert len(board.move_stack) >= 20
            c.send(g.format_message(g.GameEnd()))
            c.expect("E")
            accept(c, follower="W")
            bad = Board("B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12")
            c.send(g.format_message(g.MoveMsg(0, 11, 20)))  # 11 to 20 is no move
            c.expect("E")
            accept(c, follower="W")  # the session is still there
            our_move(c, bad, rng)
            engine_reply(c, bad)
        finally:
            c.close()


def test_a_stop_before_the_704_search_begins_is_kept_and_a_stale_one_is_not(searcher: Searcher704) -> None:
    board = Board()
    searcher.stop()  # nothing runs or is armed: forgotten
    assert searcher.search(board, Limit(depth=3)).info.depth == 3
    searcher.arm()
    searcher.stop()  # armed: the next search ends at once
    t0 = time.monotonic()
    result = searcher.search(board, Limit())
    assert time.monotonic() - t0 < 2 and board.is_legal(result.best)
    assert searcher.search(board, Limit(depth=2)).info.depth == 2  # that stop was used up
