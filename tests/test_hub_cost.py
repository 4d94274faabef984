"""What a Hub session costs the event loop: incremental pos replay, thinned info lines, long games."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest
from serving import CaptureWriter

from engine.board import Board
from engine.options import OptionValues
from protocol import hub_grammar as g
from protocol.context import ServerSettings
from protocol.framing import DEFAULT_MAX_LINE, LONGEST_GAME_PLIES, stream_limit
from protocol.hub_session import HubSession, run_hub
from protocol.server import Server
from protocol.session_engine import SessionDefaults

WAIT = 30.0


def long_game(plies: int) -> Board:
    """A legal game of ``plies`` plies that is not over: random play that avoids giving captures
    and shuffles kings while the 40-move rule allows (deterministic: the first seed that gets there)."""
    for seed in range(200):
        rng = random.Random(seed)
        b = Board()
        while len(b.move_stack) < plies:
            choices = []
            for m in sorted(b.legal_moves, key=lambda m: rng.random()):
                piece = b.piece_at(m.path[0])
                assert piece is not None
                b.push(m)
                over = b.outcome() is not None or not b.legal_moves
                gives = over or any(x.captures for x in b.legal_moves)
                b.pop()
                if not over:
                    choices.append(((gives, not (piece.king and b.quiet_plies < 70)), m))
            if not choices:
                break
            b.push(min(choices, key=lambda c: c[0])[1])
        else:
            return b
    raise AssertionError(f"no game of {plies} plies found")


def hub_moves(board: Board) -> str:
    return " ".join(g.format_move(m) for m in board.move_stack)


def pos_line(board: Board, plies: int | None = None) -> str:
    stack = board.move_stack if plies is None else board.move_stack[:plies]
    return f'pos pos={g.LITERAL_START} moves="{" ".join(g.format_move(m) for m in stack)}"'


class PushCounter:
    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        real = Board.push

        def counting(board: Board, move: Any) -> None:
            self.count += 1
            real(board, move)

        monkeypatch.setattr(Board, "push", counting)

    def take(self) -> int:
        n, self.count = self.count, 0
        return n


def test_a_pos_that_extends_the_last_one_plays_only_the_new_moves(monkeypatch: pytest.MonkeyPatch) -> None:
    game = long_game(60)

    async def main() -> None:
        session = HubSession(CaptureWriter(), ServerSettings())
        pushes = PushCounter(monkeypatch)
        for plies in (10, 11, 12, 20, 60):
            session.handle(pos_line(game, plies))
            assert session.board is not None
            expected, _ = g.read_position(g.LITERAL_START, " ".join(
                g.format_move(m) for m in game.move_stack[:plies]), "auto")
            assert session.board.fen() == expected.fen()
            assert session.board.move_stack == expected.move_stack
        pushes.take()
        session.handle(pos_line(game, 58))  # a take-back is not an extension: replayed from the start
        assert pushes.take() == 58
        session.handle(pos_line(game, 60))
        assert pushes.take() == 2
        session.handle(pos_line(game, 60))  # the same position again: nothing to play
        assert pushes.take() == 0
        session.handle(f"pos pos={g.LITERAL_START}")
        assert session.board is not None and session.board.move_stack == []
        await session.shutdown()

    asyncio.run(main())


def test_an_extension_that_does_not_fit_is_replayed_and_rejected(monkeypatch: pytest.MonkeyPatch) -> None:
    async def main() -> None:
        writer = CaptureWriter()
        session = HubSession(writer, ServerSettings())
        session.handle(f'pos pos={g.PYDRAUGHTS_START} moves="11-15"')  # pydraughts' frame, found by auto
        assert session.board is not None
        full, frame = g.read_position(g.PYDRAUGHTS_START, "11-15 23-19", "auto")
        session.handle(f'pos pos={g.PYDRAUGHTS_START} moves="11-15 23-19"')
        assert frame == "pydraughts" and session.board.fen() == full.fen()
        session.handle(f'pos pos={g.PYDRAUGHTS_START} moves="11-15 23-19 15-19"')  # not legal here
        assert session.board is None
        line = await asyncio.wait_for(writer.lines.get(), WAIT)
        assert line.startswith("error") and "15-19" in line
        session.handle("go think")
        assert "no valid position" in await asyncio.wait_for(writer.lines.get(), WAIT)
        session.handle(f'pos pos={g.PYDRAUGHTS_START} moves="11-15 23-19"')  # after an error: in full
        assert session.board is not None and session.board.fen() == full.fen()
        await session.shutdown()

    asyncio.run(main())


def test_the_default_line_limit_holds_the_longest_legal_game() -> None:
    # Six bytes a move (``32-27 ``) for every ply a legal game can have, plus the line's framing.
    assert LONGEST_GAME_PLIES * 6 + 100 < DEFAULT_MAX_LINE


def test_the_pos_line_of_a_long_game_is_accepted_over_tcp() -> None:
    game = long_game(800)
    line = pos_line(game)
    assert len(line) > 4096  # the old limit

    async def main() -> None:
        st = ServerSettings(dxp_port=0, cb_port=0, defaults=SessionDefaults(options=OptionValues(hash=1)))
        server = Server(st, hub_port=0, dxp=False, cb=False)
        await server.start()
        try:
            r, w = await asyncio.open_connection("127.0.0.1", server.ports["hub"])
            w.write(f"{line}\nlevel depth=2\ngo think\n".encode())
            await w.drain()
            reply = (await asyncio.wait_for(r.readline(), WAIT)).decode()
            while reply.startswith("info"):
                reply = (await asyncio.wait_for(r.readline(), WAIT)).decode()
            assert reply.startswith("done move="), reply
            g.parse_move(game, g.tokenize(reply.strip()).require("move"))  # type: ignore[union-attr]
            w.close()
        finally:
            await server.close()

    asyncio.run(asyncio.wait_for(main(), 60))


async def search_lines(level: str) -> list[str]:
    st = ServerSettings(defaults=SessionDefaults(options=OptionValues(hash=1)))
    reader = asyncio.StreamReader(limit=stream_limit(st.max_line))
    writer = CaptureWriter()
    task = asyncio.ensure_future(run_hub(reader, writer, st))
    reader.feed_data(f"pos pos={g.LITERAL_START} moves=\"11-15 23-19\"\n{level}\ngo think\n".encode())
    lines = []
    while not lines or not lines[-1].startswith("done"):
        lines.append(await asyncio.wait_for(writer.lines.get(), WAIT))
    reader.feed_eof()
    await asyncio.wait_for(task, WAIT)
    return lines


def test_a_quick_search_sends_only_its_final_info() -> None:
    lines = asyncio.run(search_lines("level depth=6"))
    infos = [x for x in lines if x.startswith("info")]
    assert 1 <= len(infos) <= 2, infos  # unthinned: one per depth
    last = g.tokenize(lines[-2])
    assert last is not None and last.command == "info" and last.require("depth") == "6"


def test_info_lines_are_thinned_to_one_per_interval() -> None:
    lines = asyncio.run(search_lines("level move-time=0.6"))
    infos = [x for x in lines if x.startswith("info")]
    # At most one per 0.1 s and the final one; a loaded machine only makes fewer.
    assert 1 <= len(infos) <= 9, infos
    assert lines[-2].startswith("info")
