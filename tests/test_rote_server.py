"""The server's rote option: games played through a real cb session grow the shared memory,
and later searches find their positions in it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from serving import CaptureWriter

from engine import Board, Limit, Mode, Searcher
from engine.learners.rote import RoteMemory
from engine.options import OptionValues
from protocol import cb_grammar as g
from protocol.cb_session import run_cb
from protocol.context import ServerSettings
from protocol.framing import stream_limit
from protocol.session_engine import SessionDefaults
from samuel.cli import build_parser
from samuel.session_args import session_defaults

pytestmark = pytest.mark.timeout(120)


class CbClient:
    def __init__(self, settings: ServerSettings) -> None:
        self.reader = asyncio.StreamReader(limit=stream_limit(settings.max_line))
        self.out = CaptureWriter()
        self.task = asyncio.create_task(run_cb(self.reader, self.out, settings))

    async def move(self, fen: str, reset: bool) -> str:
        """The engine's move for ``fen``; returns the position after it."""
        info = g.CB_RESET_MOVES if reset else 0  # a new game
        self.reader.feed_data(f"getmove fen={fen} depth=4 info={info}\n".encode())
        while True:
            line = await asyncio.wait_for(self.out.lines.get(), 30)
            if line.startswith("move "):
                parsed = g.parse_engine_line(line)
                assert isinstance(parsed, g.MoveLine)
                return parsed.fen
            assert line.startswith("status"), line

    async def close(self) -> None:
        self.reader.feed_eof()
        await asyncio.wait_for(self.task, 60)


async def _play(settings: ServerSettings, plies: int, fens: list[str]) -> None:
    c = CbClient(settings)
    try:
        for game in range(2):
            fen = Board().fen()
            for ply in range(plies):
                if game == 0:
                    fens.append(fen)
                fen = await c.move(fen, reset=ply == 0)
    finally:
        await c.close()


def test_serve_rote_option_reaches_the_sessions(tmp_path: Path) -> None:
    args = build_parser().parse_args(["serve", "--rote", str(tmp_path / "r.db"), "--rote-merge-every", "7"])
    d = session_defaults(args)
    assert (d.rote, d.rote_merge_every) == (str(tmp_path / "r.db"), 7)
    assert session_defaults(build_parser().parse_args(["serve"])).rote == ""


def test_two_games_through_a_cb_session_grow_the_memory(tmp_path: Path) -> None:
    db = tmp_path / "server-rote.db"
    settings = ServerSettings(idle_timeout=None,
                              defaults=SessionDefaults(options=OptionValues(hash=1), rote=str(db)))
    fens: list[str] = []
    plies = 8
    asyncio.run(_play(settings, plies, fens))
    # A forced move is played without a search, so only positions with a choice are stored.
    boards = [Board(f) for f in fens]
    searched = [b for b in boards if len(b.legal_moves) > 1]
    assert len(searched) >= plies // 2
    with RoteMemory(db) as memory:
        stats = memory.stats()
        # Both games searched the same positions: the second refreshed and rescored them.
        assert stats.positions >= len(searched)
        assert stats.merges >= 2 and stats.uses >= 1
        assert all(memory.lookup(b) is not None for b in searched)
        # A later search, one ply before a game position, scores its leaves from the memory.
        searcher = Searcher(mode=Mode.PVS, hash_mb=1, rote=memory)
        hits = [searcher.search(b, Limit(depth=1)).info.rote_hits for b in boards[:-1]]
        assert sum(hits) > 0
