"""A rote memory named by a file for searches that only read it: ``rote=FILE`` on a match engine, ``samuel
analyse --rote FILE``, and the 704 backend's ``pace=`` on a match engine (``704-clock`` plays Samuel's pace
of a minute a move at the emulator's speed)."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest
from random_positions import positions_below

from engine.board import Board
from engine.learners.rote import RoteMemory
from engine.learners.rote_file import RoteFileError, close_rote, open_rote
from engine.limits import Limit
from engine.program704 import RoteEntry704, write_rote_tape
from engine.search import Mode, Searcher
from matches.engines import EngineSpec, InProcessPlayer, parse_engine
from samuel.cli import main

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A memory of the positions two to four plies below the start, with random scores (a search from the
    start at minimum ply 2 stops in them now and then: exchange offers carry most lines deeper)."""
    path = tmp_path_factory.mktemp("rote") / "memory.db"
    root = Board()
    rng = random.Random(7)
    with RoteMemory(path) as memory:
        for d in (2, 3, 4):
            for board in positions_below(root, d):
                memory.record(board, rng.randint(-400, 400), rng.randint(2, 8))
        memory.merge()
    return path


def test_open_rote_reads_a_store_and_a_reel_and_names_what_is_neither(store: Path, tmp_path: Path) -> None:
    source = open_rote(store)
    try:
        assert len(source.table()) > 100
        reel = tmp_path / "memory.tap"
        write_rote_tape(reel, [RoteEntry704(k, score, ply, 0) for k, score, ply in source.table().items()])
    finally:
        close_rote(source)
    from_reel = open_rote(reel)
    assert sorted(from_reel.table().items()) == sorted(open_rote(store).table().items())
    close_rote(from_reel)  # a reel holds nothing open: nothing to do, and no error

    with pytest.raises(RoteFileError, match=r"nowhere\.db: no such rote memory"):
        open_rote(tmp_path / "nowhere.db")
    assert not (tmp_path / "nowhere.db").exists()  # never made
    (tmp_path / "empty.db").write_bytes(b"")
    with pytest.raises(RoteFileError, match=r"empty\.db: an empty file"):
        open_rote(tmp_path / "empty.db")
    (tmp_path / "text.db").write_text("not a database at all\n" * 20)
    with pytest.raises(RoteFileError, match=r"text\.db: not a rote memory"):
        open_rote(tmp_path / "text.db")
    (tmp_path / "text.tap").write_text("not a reel\n")
    with pytest.raises(RoteFileError, match=r"text\.tap: not a rote memory reel"):
        open_rote(tmp_path / "text.tap")


def test_match_specs_take_rote_and_pace_in_this_process_only(store: Path, tmp_path: Path) -> None:
    spec = parse_engine(["name=r", "eval=samuel-1959", "mode=samuel", f"rote={store}"])
    assert spec.rote == str(store.resolve()) and "rote memory.db" in spec.describe()
    assert EngineSpec.from_dict(spec.to_dict()) == spec
    paced = parse_engine(["backend=704", "pace=704-clock", "eval=samuel-alpha"])
    assert dict(paced.options)["pace"] == "704-clock"
    assert EngineSpec.from_dict(paced.to_dict()) == paced

    with pytest.raises(ValueError, match=r"rote=: .*missing\.db: no such rote memory"):
        parse_engine([f"rote={tmp_path / 'missing.db'}"])
    with pytest.raises(ValueError, match="pace= sets the 704 backend's speed; add backend=704"):
        parse_engine(["pace=704"])
    with pytest.raises(ValueError, match="pace=704-fast is not one of emulator, 704, 704-clock"):
        parse_engine(["backend=704", "pace=704-fast"])
    with pytest.raises(ValueError, match="rote= and pace= are for an engine in this process"):
        parse_engine(["proto=hub", "cmd=samuel hub", f"rote={store}"])


def test_an_in_process_engine_searches_with_its_memory_and_never_writes_it(store: Path) -> None:
    before = store.read_bytes()
    board = Board()
    for backend in ("modern", "704"):
        spec = parse_engine(["eval=samuel-1959", "mode=samuel", f"backend={backend}", f"rote={store}"])
        player = InProcessPlayer(spec)

        async def play(player: InProcessPlayer = player) -> int:
            await player.start()
            try:
                assert player.searcher is not None and player.searcher.rote is not None
                played = await player.play(board.copy(), Limit(depth=2), timeout=None)
                assert played.move in board.legal_moves
                return player.searcher.search(board.copy(), Limit(depth=2)).info.rote_hits
            finally:
                await player.close()

        assert asyncio.run(play()) > 0, backend
    assert store.read_bytes() == before

    expected = Searcher(rote=open_rote(store))
    expected.mode = Mode.SAMUEL
    from engine.evaluators import by_name

    expected.set_evaluator(by_name("samuel-1959"))
    assert expected.search(board, Limit(depth=2)).info.rote_hits > 0


def test_analyse_takes_a_rote_memory(store: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["analyse", "--depth", "2", "--eval", "samuel-1959", "--mode", "samuel",
                 "--rote", str(store)]) == 0
    out = capsys.readouterr().out
    hits = [line for line in out.splitlines() if line.startswith("info rote hits ")]
    assert len(hits) == 1 and int(hits[0].split()[-1]) > 0 and "bestmove" in out
    assert main(["analyse", "--depth", "2", "--rote", str(tmp_path / "gone.db")]) != 0
    assert "gone.db: no such rote memory" in capsys.readouterr().err



def test_a_server_reads_a_reel_as_its_memory_and_never_writes_it(store: Path, tmp_path: Path) -> None:
    """``samuel serve|cb --rote FILE.tap``: every search reads the reel, either backend; nothing is
    saved to it (a reel is the 704 program's to write); a reel that is missing or is none is named."""
    from test_backend704_rote import _Cb

    from engine.backend704 import memory_entries
    from engine.errors import OptionError
    from engine.options import OptionValues
    from protocol import cb_grammar as g
    from protocol.session_engine import SessionDefaults
    from samuel.session_args import check_rote_store

    source = open_rote(store)
    reel = tmp_path / "memory.tap"
    write_rote_tape(reel, memory_entries(source))
    close_rote(source)
    before = reel.read_bytes()
    check_rote_store(str(reel))
    want = Searcher(rote=open_rote(reel))
    want.mode = Mode.SAMUEL
    from engine.evaluators import by_name

    want.set_evaluator(by_name("samuel-1959"))
    expected = want.search(Board(), Limit(depth=2))
    assert expected.info.rote_hits > 0

    async def main() -> None:
        c = _Cb(SessionDefaults(options=OptionValues(hash=1, evaluator="samuel-1959", mode="samuel"),
                                rote=str(reel)))
        try:
            for _ in range(2):  # the second search too: nothing learned in between
                m, _status = await c.move(f"getmove fen={Board().fen()} depth=2")
                assert m.move == g.move_text(expected.best)
        finally:
            await c.close()

    asyncio.run(main())
    assert reel.read_bytes() == before
    with pytest.raises(OptionError, match=r"--rote: .*gone\.tap: no such rote memory"):
        check_rote_store(str(tmp_path / "gone.tap"))
    (tmp_path / "bad.tap").write_text("no reel\n")
    with pytest.raises(OptionError, match=r"--rote: .*bad\.tap: not a rote memory reel"):
        check_rote_store(str(tmp_path / "bad.tap"))
