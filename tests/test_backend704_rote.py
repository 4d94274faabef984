"""``backend=704`` with Samuel's rote memory: the session's ``--rote`` SQLite memory (or a reel) reaches
the 704 program, which reads up to 4,000 of its positions from a tape reel and looks its stopping
points up in them, scoring and moving as the modern ``mode=samuel`` search with the same memory and
evaluator; a file that is no memory is refused by name."""

from __future__ import annotations

import asyncio
import random
import re
from pathlib import Path

import pytest
from random_positions import play_randomly, positions_below
from test_cb_session import CaptureWriter

from engine import core
from engine.backend704 import RoteReel, Searcher704, memory_entries, program_rote_score
from engine.board import Board
from engine.errors import OptionError
from engine.evaluators import by_name
from engine.learners.rote import RoteMemory
from engine.limits import Limit
from engine.options import OptionValues
from engine.program704 import ROTE_CAPACITY, Program704Error, RoteEntry704, write_rote_tape
from engine.search import Mode, Searcher
from engine.searchers import build_searcher
from protocol import cb_grammar as g
from protocol.cb_session import run_cb
from protocol.context import ServerSettings
from protocol.framing import stream_limit
from protocol.session_engine import SessionDefaults
from samuel.session_args import check_rote_store

pytestmark = pytest.mark.timeout(300)

EVALUATOR = "samuel-1959"


def _roots(n: int, seed: int) -> list[Board]:
    rng = random.Random(seed)
    out: list[Board] = []
    while len(out) < n:
        board = play_randomly(rng, Board(), rng.randint(2, 30))
        if board.legal_moves:
            out.append(board)
    return out



def _memory(path: Path, roots: list[Board], seed: int) -> RoteMemory:
    """Some 3,500 of the positions four and five plies below ``roots`` (where Samuel's rules stop a
    search from these middle-game roots: exchange offers carry it past its minimum ply), with
    random scores and plies, merged into a new SQLite memory (fewer than the working part's 4,000)."""
    rng = random.Random(seed)
    memory = RoteMemory(path)
    below = list({core.rote_key(b.raw): None for r in roots for d in (4, 5) for b in positions_below(r, d)})
    keys = rng.sample(below, min(len(below), 3500))
    for key in keys:
        memory.record_key(key, rng.choice([0, rng.randint(-3000, 3000), rng.randint(-8, 8)]),
                          rng.randint(1, 20))
    memory.merge()
    assert 200 < len(memory) < ROTE_CAPACITY
    return memory


@pytest.fixture(scope="module")
def roots() -> list[Board]:
    return _roots(6, 35)


@pytest.fixture(scope="module")
def memory(roots: list[Board], tmp_path_factory: pytest.TempPathFactory) -> RoteMemory:
    return _memory(tmp_path_factory.mktemp("rote") / "rote.db", roots, 36)


def test_the_704_search_with_the_session_memory_is_the_modern_samuel_search(
        roots: list[Board], memory: RoteMemory) -> None:
    ev = by_name(EVALUATOR)
    searcher = build_searcher(OptionValues(backend="704", evaluator=EVALUATOR), rote=memory)
    assert isinstance(searcher, Searcher704) and searcher.rote is memory
    plain = Searcher704()
    plain.set_evaluator(ev)
    modern = Searcher(ev, mode=Mode.SAMUEL, hash_mb=1, rote=memory)
    hits = changed = 0
    for i, board in enumerate(roots):
        depth = 2 + i % 2
        got = searcher.search(board.copy(), Limit(depth=depth))
        want = modern.search(board.copy(), Limit(depth=depth))
        assert got.info.score == want.info.score, (board.fen(), depth)
        assert got.best == want.best, (board.fen(), depth)
        hits += got.info.rote_hits
        changed += plain.search(board.copy(), Limit(depth=depth)).info.score != got.info.score
    assert searcher.rote_positions == len(memory)
    assert hits > 10 and changed >= 2, (hits, changed)


def test_the_working_part_follows_the_memory_when_it_merges(roots: list[Board], tmp_path: Path) -> None:
    memory = _memory(tmp_path / "rote.db", roots[:2], 37)
    searcher = Searcher704(rote=memory)
    searcher.set_evaluator(by_name(EVALUATOR))
    assert searcher.sync_rote() == len(memory)
    memory.record(roots[0], 1234, 9)
    memory.merge()
    assert searcher.sync_rote() == len(memory)
    assert RoteEntry704(core.rote_key(roots[0].raw), 1234, 9, 8) in searcher.program.rote_entries()


def test_the_youngest_positions_fill_the_working_part(tmp_path: Path) -> None:
    """More positions than asked for: the youngest by Samuel's age go in, then the deeper plies."""
    memory = RoteMemory(tmp_path / "rote.db")
    old = _roots(30, 1)
    for b in old:
        memory.record(b, 10, 3)
    memory.merge()
    memory.merge()  # two merges older
    young = [b for b in _roots(30, 2) if core.rote_key(b.raw) not in {core.rote_key(o.raw) for o in old}]
    for b in young:
        memory.record(b, 20, 5)
    memory.merge()
    picked = memory_entries(memory, limit=len({core.rote_key(b.raw) for b in young}))
    assert {e.key for e in picked} == {core.rote_key(b.raw) for b in young}
    assert all(e.age == 8 and e.score == 20 and e.ply == 5 for e in picked)


def test_scores_in_the_programs_units() -> None:
    assert program_rote_score(250, 1.0) == 250
    assert program_rote_score(-100, 100 / 64) == -64  # its own polynomial: 64 a man
    assert program_rote_score(core.WIN - 7, 1.0) == 20000 - 7  # a win keeps its distance
    assert program_rote_score(-(core.WIN - 12), 100 / 64) == -(20000 - 12)
    assert program_rote_score(28000, 100 / 64) == 9999  # an evaluation stays short of the wins


def test_a_reel_is_a_memory_for_either_backend(roots: list[Board], memory: RoteMemory,
                                               tmp_path: Path) -> None:
    reel = tmp_path / "rote.tap"
    write_rote_tape(reel, memory_entries(memory))
    ev = by_name(EVALUATOR)
    searcher = Searcher704(rote=str(reel))
    assert isinstance(searcher.rote, RoteReel)
    searcher.set_evaluator(ev)
    modern = Searcher(ev, mode=Mode.SAMUEL, hash_mb=1, rote=RoteReel(reel))
    board = roots[1]
    got = searcher.search(board.copy(), Limit(depth=3))
    assert got.info.score == modern.search(board.copy(), Limit(depth=3)).info.score
    assert got.info.rote_hits > 0


def test_a_bad_file_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "not-a-reel.tap"
    bad.write_bytes(b"\x07\x00\x00\x00garbage")
    with pytest.raises(Program704Error, match=re.escape("not-a-reel.tap")):
        Searcher704(rote=bad)
    with pytest.raises(Program704Error, match=re.escape("missing.tap")):
        Searcher704(rote=tmp_path / "missing.tap")
    text = tmp_path / "notes.db"
    text.write_text("not a database\n" * 100)
    with pytest.raises(OptionError, match=re.escape("notes.db")):
        check_rote_store(str(text))


# ---- through a cb session (the server's --rote) ----


class _Cb:
    def __init__(self, defaults: SessionDefaults) -> None:
        self.reader = asyncio.StreamReader(limit=stream_limit(4096))
        self.out = CaptureWriter()
        self.task = asyncio.create_task(run_cb(self.reader, self.out,
                                               ServerSettings(max_line=4096, defaults=defaults)))

    async def ask(self, text: str) -> str:
        self.reader.feed_data(text.encode() + b"\n")
        return await asyncio.wait_for(self.out.lines.get(), 120)

    async def move(self, text: str) -> tuple[g.MoveLine, list[str]]:
        self.reader.feed_data(text.encode() + b"\n")
        seen: list[str] = []
        while True:
            line = await asyncio.wait_for(self.out.lines.get(), 120)
            if line.startswith("move "):
                parsed = g.parse_engine_line(line)
                assert isinstance(parsed, g.MoveLine)
                return parsed, seen
            seen.append(line)

    async def close(self) -> None:
        self.reader.feed_eof()
        await asyncio.wait_for(self.task, 30)


def test_a_cb_session_on_the_704_searches_with_the_servers_memory(roots: list[Board],
                                                                  memory: RoteMemory) -> None:
    ev = by_name(EVALUATOR)
    modern = Searcher(ev, mode=Mode.SAMUEL, hash_mb=1, rote=memory)
    wants = {b.fen(): modern.search(b.copy(), Limit(depth=3)) for b in roots if len(b.legal_moves) > 1}
    assert len(wants) >= 3
    plain = Searcher(ev, mode=Mode.SAMUEL, hash_mb=1)  # the memory changes some of these scores
    assert any(plain.search(Board(fen), Limit(depth=3)).info.score != want.info.score
               for fen, want in wants.items())

    async def main() -> None:
        c = _Cb(SessionDefaults(options=OptionValues(hash=1), rote=str(memory.store.path)))
        try:
            assert await c.ask(f"set evaluator {EVALUATOR}") == f"reply 1 {EVALUATOR}"
            assert await c.ask("set backend 704") == "reply 1 704"
            for fen, want in wants.items():
                m, status = await c.move(f"getmove fen={fen} depth=3")
                assert m.move == g.move_text(want.best), (fen, m, status)
                assert m.status.startswith("depth 3/") and f" score {want.info.score} " in m.status, \
                    (fen, m.status, str(want.info.score))
                assert " 704-time " in m.status
        finally:
            await c.close()

    asyncio.run(main())


def test_the_positions_the_704_took_are_refreshed_in_the_memory(roots: list[Board], tmp_path: Path) -> None:
    """The program's used marks reach the memory's table, so its next merge halves those positions'
    ages (Samuel's refreshing), as a modern search's look-ups do."""
    memory = _memory(tmp_path / "rote.db", roots, 37)
    searcher = build_searcher(OptionValues(backend="704", evaluator=EVALUATOR), rote=memory)
    assert memory.table().used() == []
    hits = sum(searcher.search(b.copy(), Limit(depth=3)).info.rote_hits for b in roots)
    took = {e.key for e in searcher.program.rote_entries() if e.used}
    assert hits > 0 and took and set(memory.table().used()) == took
    before = {k: memory.store.get(k) for k in took}
    result = memory.merge()
    assert result.refreshed == len(took)
    for key, (score, ply, age) in before.items():
        assert memory.store.get(key) == (score, ply, (age + 1) // 2)
    memory.close()
