"""Our engine as the DXP initiator: play games against another DXP engine (the follower).

One TCP connection carries the whole match.  Game ``i`` (from 0) starts from
opening ``i // 2`` (cycling through the list; the start position when none is
given) and we play the side to move in even games, the other side in odd
games, so each opening is played with both colours.

Our moves come from an EngineSession searching on this process's event loop
(in a thread); the follower's come through DxpEngine.  A game ends when the
side to move has no move or a draw rule holds (whoever is to move sends the
GAMEEND, as DXP wants), when the follower ends it, or at ``max_plies`` (result
``*``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from engine.board import Board
from engine.fen import START_FEN
from engine.limits import Limit
from engine.move import Move
from engine.pdn import write_game
from engine.types import BLACK, WHITE, Color
from protocol import dxp_grammar as g
from protocol.client.dxp import DEFAULT_MINUTES, EngineGameEndError, connect_dxp
from protocol.context import ENGINE_NAME
from protocol.dxp_session import end_reason
from protocol.session import EngineSession, SessionDefaults

log = logging.getLogger(__name__)

DEFAULT_MAX_PLIES = 400


@dataclass
class GameRecord:
    """One finished game, ready for PDN."""

    number: int
    """1-based."""
    initial_fen: str
    our_color: Color
    opponent: str
    moves: list[Move] = field(default_factory=list)
    result: str = "*"
    """PDN result: ``1-0`` Black won, ``0-1`` White won, ``1/2-1/2``, ``*`` unfinished."""
    termination: str = ""

    def board(self) -> Board:
        b = Board(self.initial_fen)
        for m in self.moves:
            b.push(m)
        return b

    @property
    def our_score(self) -> float | None:
        """1, 0.5 or 0 for us; None when unfinished."""
        if self.result == "1/2-1/2":
            return 0.5
        if self.result == "1-0":
            return 1.0 if self.our_color == BLACK else 0.0
        if self.result == "0-1":
            return 1.0 if self.our_color == WHITE else 0.0
        return None

    def pdn(self, name: str = ENGINE_NAME, event: str = "DXP match") -> str:
        ours, theirs = name, self.opponent
        black, white = (ours, theirs) if self.our_color == BLACK else (theirs, ours)
        tags = {"Event": event, "Round": str(self.number), "Black": black, "White": white}
        if self.termination:
            tags["Termination"] = self.termination
        return write_game(self.board(), tags, result=self.result)


def _result_for(winner: Color | None) -> str:
    if winner is None:
        return "1/2-1/2"
    return "1-0" if winner == BLACK else "0-1"


def _limit_for(limit: Limit | None, clock: float | None) -> Limit:
    if limit is not None:
        return limit
    if clock is not None:
        return Limit(time=max(0.0, clock))
    return Limit(movetime=1.0)


async def play_dxp_games(
    host: str,
    port: int,
    *,
    games: int = 1,
    openings: Sequence[str] | None = None,
    defaults: SessionDefaults | None = None,
    limit: Limit | None = None,
    minutes: int = DEFAULT_MINUTES,
    moves: int = 0,
    frame: str = "literal",
    name: str = ENGINE_NAME,
    max_plies: int = DEFAULT_MAX_PLIES,
    on_move: Callable[[int, Board, Move], None] | None = None,
    on_game: Callable[[GameRecord], None] | None = None,
    connect_timeout: float = 10.0,
) -> list[GameRecord]:
    """Play ``games`` games against the DXP follower at ``host:port``; one record per game.

    ``minutes`` goes into each GAMEREQ (the follower's clock, and ours when
    ``limit`` is None); ``limit`` fixes our own per-move limit instead.
    ``on_move(game_number, board_after, move)`` sees every move of both sides.
    """
    fens = list(openings) if openings else [START_FEN]
    engine = await connect_dxp(host, port, name=name, frame=frame, minutes=minutes, moves=moves,
                               timeout=connect_timeout)
    session = EngineSession(defaults)
    records: list[GameRecord] = []
    try:
        for i in range(games):
            start = Board(fens[(i // 2) % len(fens)])
            ours = start.turn if i % 2 == 0 else start.turn ^ 1
            rec = GameRecord(i + 1, start.initial_fen, ours, engine.name)
            clock = minutes * 60.0 if minutes > 0 else None
            board = start.copy()
            session.new_game()
            while True:
                if len(board.move_stack) >= max_plies:
                    rec.termination = f"stopped after {max_plies} plies"
                    await engine.end_game()
                    break
                if board.turn == ours:
                    reason = end_reason(board)
                    if reason is not None:
                        outcome = board.outcome()
                        assert outcome is not None
                        rec.result = outcome.result()
                        rec.termination = outcome.termination.value
                        await engine.end_game(reason)
                        break
                    t0 = time.monotonic()
                    found = await session.search(board, _limit_for(limit, clock))
                    if clock is not None:
                        clock -= time.monotonic() - t0
                    move = found.best if found.best is not None and board.is_legal(found.best) \
                        else board.legal_moves[0]
                else:
                    try:
                        move = (await engine.play(board, _limit_for(limit, clock))).move
                    except EngineGameEndError as exc:
                        outcome = board.outcome()
                        if outcome is not None:
                            rec.result = outcome.result()
                            rec.termination = outcome.termination.value
                        else:
                            rec.result = _claimed(exc.reason, board.turn)
                            rec.termination = str(exc)
                        break
                board.push(move)
                if on_move is not None:
                    on_move(rec.number, board, move)
            rec.moves = list(board.move_stack)
            rec.opponent = engine.name
            log.info("dxp game %d: %s (%s)", rec.number, rec.result, rec.termination)
            records.append(rec)
            if on_game is not None:
                on_game(rec)
        await engine.quit()
    finally:
        await engine.close()
        await session.close()
    return records


def _claimed(reason: int, follower: Color) -> str:
    """The PDN result of a follower's GAMEEND reason (its own point of view)."""
    if reason == g.REASON_I_LOSE:
        return _result_for(follower ^ 1)
    if reason == g.REASON_I_WIN:
        return _result_for(follower)
    if reason == g.REASON_DRAW:
        return "1/2-1/2"
    return "*"
