"""DXP follower: one TCP connection, one engine, any number of games.

The initiator (e.g. pydraughts' DXPEngine) sends GAMEREQ; we accept, play the
follower colour and answer MOVEs with MOVEs.  Reading never stops while the
engine thinks, so CHAT, GAMEEND and BACKREQ are handled mid-search.

Two habits of the real client shape the writing side: pydraughts merges two
messages that arrive in one ``recv()``, so every message is its own write and
two messages the client may not have read in between are at least
``MESSAGE_GAP`` apart (a message that answers our last one, see ``ANSWERS``,
shows that it was read: the next goes at once, so the gap is never charged to
our clock when the opponent moves fast); and it spins forever when the server
closes the socket, so games end with a GAMEEND exchange and the connection
stays open until the client closes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field

from engine.board import Board, Termination
from engine.errors import SamuelError
from engine.limits import Limit
from engine.move import Move
from engine.runner import move_to_play
from engine.types import BLACK, WHITE, Color
from protocol import dxp_grammar as g
from protocol.context import ServerSettings, Writer
from protocol.errors import LineTooLongError, ProtocolError
from protocol.framing import read_frame
from protocol.guard import guard
from protocol.log_limit import LogLimiter
from protocol.session_engine import SessionEngine

log = logging.getLogger(__name__)

MESSAGE_GAP = 0.1
"""Seconds between two messages we send with no answer between them (pydraughts merges
messages read in one recv)."""
ANSWERS: dict[type, tuple[type, ...]] = {
    g.MoveMsg: (g.MoveMsg, g.GameAcc),
    g.GameEnd: (g.GameEnd,),
    g.GameReq: (g.GameEnd, g.GameAcc),
}
"""For a message from the client, the kinds of our last message it answers, so the client has
read it: a MOVE comes after our MOVE (or GAMEACC, when it moves first), a GAMEEND confirms
ours, a GAMEREQ follows the end of the last game (an initiator waits for its confirmation)
or a declined one.  Chats and anything unasked answer nothing."""
SEP = b"\0"
MIN_MOVETIME = 0.01
STOP_GRACE = 30.0
"""After a GAMEEND with stop code 1, seconds we wait for the client to close before we do."""
ERROR_CHAT_INTERVAL = 1.0
"""Seconds between error chats about bad messages: the ones in between are counted and
reported in one chat, so a flood of junk costs no MESSAGE_GAP per frame."""


@dataclass
class _Game:
    board: Board
    color: Color
    """The colour we (the follower) play."""
    clock: float | None
    """Our remaining seconds, or None when the GAMEREQ gave no time (fixed time per move)."""
    moves: int
    """The time control's number of moves (0: the whole game)."""
    turn_started: float = 0.0
    our_moves: int = 0
    time_control: float | None = field(init=False, default=None)
    """The game's whole time per side (seconds, None without a clock): the most the
    opponent may think on one move."""

    def __post_init__(self) -> None:
        self.time_control = self.clock


def color_name(color: Color) -> str:
    return "white" if color == WHITE else "black"


def end_reason(board: Board) -> int | None:
    """The GAMEEND reason for the side to move when its game is over, else None."""
    outcome = board.outcome()
    if outcome is None:
        return None
    if outcome.termination is Termination.NO_MOVES:
        return g.REASON_I_LOSE
    return g.REASON_DRAW


def ply_of(board: Board, move_number: int, turn: Color) -> int | None:
    """The ply (index into the move stack) where move ``move_number`` with ``turn`` to move starts.

    English numbering: a move number covers Black's move then White's; a game
    from a White-to-move position starts with move 1 for White.  None when that
    ply is not in the game so far.
    """
    first = Board(board.initial_fen).turn
    offset = 1 if first == WHITE else 0
    ply = (move_number - 1) * 2 + (0 if turn == BLACK else 1) - offset
    if ply < 0 or ply > len(board.move_stack):
        return None
    return ply


class DxpFollower:
    """The state of one DXP connection: the game, the clock and the running search."""

    def __init__(self, reader: asyncio.StreamReader, writer: Writer, settings: ServerSettings) -> None:
        self.reader = reader
        self.writer = writer
        self.settings = settings
        self.session = SessionEngine(settings.defaults)
        self.game: _Game | None = None
        self._loop = asyncio.get_running_loop()
        self._send_lock = asyncio.Lock()
        self._last_sent = -MESSAGE_GAP
        self._last_kind: type | None = None
        """The kind of our last message; None once the client has answered it."""
        self._think_task: asyncio.Task[None] | None = None
        self._awaiting_ack = False
        """We sent the first GAMEEND and wait for its confirmation."""
        self._generation = 0
        """Bumped whenever a game starts, ends or is rewound: a search of an older one is thrown away."""
        self.closing = False
        self._wake = asyncio.Event()
        """Set whenever we send: how long the client may stay silent is counted from our last message."""
        self._bad_input = LogLimiter(log)
        self._chats: set[asyncio.Task[None]] = set()
        self._last_error_chat = -ERROR_CHAT_INTERVAL
        self._errors_unsent = 0
        self._last_error_text = ""
        self._error_flush: asyncio.TimerHandle | None = None

    # ---- writing ----

    async def send(self, msg: g.Message) -> None:
        text = g.format_message(msg)
        async with self._send_lock:
            wait = self._last_sent + MESSAGE_GAP - self._loop.time() if self._last_kind is not None else 0.0
            if wait > 0:
                await asyncio.sleep(wait)
            if self.writer.is_closing():
                return
            log.debug("dxp >> %s", text)
            self.writer.write(text.encode("ascii") + SEP)
            self._last_kind = type(msg)  # before drain: an answer may be read meanwhile
            await self.writer.drain()
            self._last_sent = self._loop.time()
            self._wake.set()

    async def chat(self, text: str) -> None:
        await self.send(g.Chat(text))

    def _error_chat(self, text: str) -> None:
        """Tell the client about a bad message without making it wait, at most once a second.

        The chat goes out from its own task, so the reader goes on at once; chats
        in between are counted and reported together when the second is up.
        """
        now = self._loop.time()
        if self._error_flush is None and now - self._last_error_chat >= ERROR_CHAT_INTERVAL:
            self._last_error_chat = now
            self._spawn_chat(text)
            return
        self._errors_unsent += 1
        self._last_error_text = text
        if self._error_flush is None:
            delay = self._last_error_chat + ERROR_CHAT_INTERVAL - now
            self._error_flush = self._loop.call_later(max(0.0, delay), self._flush_error_chats)

    def _flush_error_chats(self) -> None:
        self._error_flush = None
        n, self._errors_unsent = self._errors_unsent, 0
        if n:
            self._last_error_chat = self._loop.time()
            more = f" (and {n - 1} more bad messages)" if n > 1 else ""
            self._spawn_chat(self._last_error_text[: g.MAX_MESSAGE - 1 - len(more)] + more)

    def _spawn_chat(self, text: str) -> None:
        async def quietly() -> None:
            with contextlib.suppress(ConnectionError, OSError):  # the reader sees a lost connection
                await self.chat(text)

        task = asyncio.ensure_future(quietly())
        self._chats.add(task)
        task.add_done_callback(self._chats.discard)

    # ---- the connection ----

    async def run(self) -> None:
        read_task: asyncio.Task[bytes | None] | None = None
        try:
            while True:
                if read_task is None:
                    read_task = asyncio.ensure_future(read_frame(self.reader, SEP, g.MAX_MESSAGE))
                timeout = self._read_timeout()
                self._wake.clear()
                waker = asyncio.ensure_future(self._wake.wait())
                try:
                    done, _ = await asyncio.wait({read_task, waker}, timeout=timeout,
                                                 return_when=asyncio.FIRST_COMPLETED)
                finally:
                    waker.cancel()
                if read_task not in done:
                    if waker in done:
                        continue  # we sent something (our move): the client's allowance starts now
                    if self.closing:
                        log.info("dxp client asked to stop but did not close; closing")
                    elif self.game is not None:
                        log.info("dxp client silent for %g s on its move; closing", timeout)
                        await self.chat(f"no move for {timeout:g} s, closing the connection")
                    else:
                        log.info("dxp client idle for %s s outside a game; closing", timeout)
                        await self.chat(f"idle for {timeout:g} s, closing the connection")
                    return
                task, read_task = read_task, None
                try:
                    frame = task.result()
                except LineTooLongError as exc:
                    self._bad_input.warning("dxp: %s", exc)
                    self._error_chat(f"error: message longer than {g.MAX_MESSAGE} characters, ignored")
                    continue
                if frame is None:
                    log.info("dxp client closed the connection")
                    return
                await self.handle_frame(frame)
        finally:
            if read_task is not None:
                read_task.cancel()
            if self._error_flush is not None:
                self._error_flush.cancel()
            for chat in list(self._chats):
                chat.cancel()
            self._bad_input.close()
            await self._cancel_search()
            await self.session.close()

    def _read_timeout(self) -> float | None:
        """Seconds the client may now stay silent, counted from its or our last message.

        None while we think: our move restarts the count.  On the client's move it
        may spend its whole game's time, plus the idle timeout as a margin; without
        a clock, the idle timeout alone.  Outside a game, the idle timeout.
        """
        idle = self.settings.idle_timeout
        if self.closing:
            return STOP_GRACE if idle is None else min(idle, STOP_GRACE)
        game = self.game
        if game is not None and game.board.turn == game.color:
            return None
        if game is not None and idle is not None:
            return idle + (game.time_control or 0.0)
        return idle

    async def handle_frame(self, frame: bytes) -> None:
        try:
            text = g.decode_frame(frame)
            log.debug("dxp << %s", text)
            msg = g.parse_message(text)
            if self._last_kind in ANSWERS.get(type(msg), ()):
                self._last_kind = None  # read: our next message need not keep its distance
        except g.VersionError as exc:
            self._bad_input.warning("dxp: %s", exc)
            await self.send(g.GameAcc(self.settings.name, g.ACCEPT_BAD_VERSION))
            return
        except ProtocolError as exc:
            self._bad_input.warning("dxp: bad message %r: %s", frame[:40], exc)
            self._error_chat(f"error: {exc}")
            return
        if isinstance(msg, g.Chat):
            log.info("dxp chat: %s", msg.text)
        elif isinstance(msg, g.GameReq):
            await self.on_gamereq(msg)
        elif isinstance(msg, g.MoveMsg) and self.game is None:
            # Answered here rather than in on_move: a flood of them is junk like any other.
            self._bad_input.warning("dxp: MOVE outside a game")
            self._error_chat("error: MOVE without a game; send GAMEREQ first")
        elif isinstance(msg, g.MoveMsg):
            await self.on_move(msg)
        elif isinstance(msg, g.GameEnd):
            await self.on_gameend(msg)
        elif isinstance(msg, g.BackReq):
            await self.on_backreq(msg)
        else:
            # GAMEACC and BACKACC answer requests a follower never sends.
            kind = "GAMEACC" if isinstance(msg, g.GameAcc) else "BACKACC"
            self._bad_input.warning("dxp: unexpected %s", kind)
            self._error_chat(f"error: unexpected {kind}; I am the follower and sent no request")

    # ---- messages ----

    async def on_gamereq(self, req: g.GameReq) -> None:
        if self.game is not None:
            log.warning("dxp: GAMEREQ during a game; abandoning it for the new one")
            await self._cancel_search()
            self.game = None
        self._awaiting_ack = False
        self.closing = False
        try:
            board = g.board_of(req.position, self.settings.dxp_frame)
        except ProtocolError as exc:
            log.warning("dxp: declining game: %s", exc)
            await self.chat(f"error: {exc}")
            await self.send(g.GameAcc(self.settings.name, g.ACCEPT_NOT_THIS_GAME))
            return
        if not board.legal_moves:
            log.warning("dxp: declining game: no legal moves in %s", board.fen())
            await self.chat(f"error: no legal moves in {board.fen()}; choose another position")
            await self.send(g.GameAcc(self.settings.name, g.ACCEPT_NOT_THIS_GAME))
            return
        self.session.new_game()
        try:  # the table now (in a thread), so a game we cannot play is declined, not left hanging
            await self.session.prepare()
        except SamuelError as exc:
            log.warning("dxp: declining game: %s", exc)
            await self.chat(f"error: {exc}")
            await self.send(g.GameAcc(self.settings.name, g.ACCEPT_NOT_THIS_GAME))
            return
        clock = req.minutes * 60.0 if req.minutes > 0 else None
        self._generation += 1
        self.game = _Game(board, req.follower, clock, req.moves)
        log.info("dxp game from %r: we play %s, %d min, %d moves, position %s",
                 req.name, color_name(req.follower), req.minutes, req.moves, board.fen())
        await self.send(g.GameAcc(self.settings.name, g.ACCEPT))
        if board.turn == self.game.color:
            self._our_turn()

    async def on_move(self, msg: g.MoveMsg) -> None:
        game = self.game
        if game is None:
            log.warning("dxp: MOVE outside a game")
            await self.chat("error: MOVE without a game; send GAMEREQ first")
            return
        if game.board.turn == game.color:
            log.warning("dxp: MOVE out of turn")
            await self._abort("error: MOVE out of turn, it is my move")
            return
        try:
            move = g.find_move(game.board, msg)
        except ProtocolError as exc:
            log.warning("dxp: %s", exc)
            await self._abort(f"error: {exc}")
            return
        game.board.push(move)
        log.debug("dxp: opponent played %s", move)
        self._our_turn()

    async def on_gameend(self, msg: g.GameEnd) -> None:
        if self._awaiting_ack:
            log.info("dxp: GAMEEND confirmed (reason %d, stop %d)", msg.reason, msg.stop)
            self._awaiting_ack = False
        else:
            log.info("dxp: opponent ends the game (reason %d, stop %d)", msg.reason, msg.stop)
            await self._end_game()
            await self.send(g.GameEnd(g.REASON_NONE, msg.stop))
        if msg.stop == g.STOP_ALL:
            # The client closes; closing first would make pydraughts spin.
            self.closing = True

    async def on_backreq(self, msg: g.BackReq) -> None:
        game = self.game
        ply = None if game is None else ply_of(game.board, msg.move_number, msg.turn)
        if game is None or ply is None:
            log.info("dxp: refusing BACKREQ to move %d %s", msg.move_number, color_name(msg.turn))
            await self.send(g.BackAcc(g.BACK_NOT_SUPPORTED))
            return
        await self._cancel_search()
        self._generation += 1
        while len(game.board.move_stack) > ply:
            game.board.pop()
        game.our_moves = sum(
            1 for i in range(ply) if (i % 2 == 0) == (Board(game.board.initial_fen).turn == game.color)
        )
        log.info("dxp: took back to move %d, %s to move", msg.move_number, color_name(msg.turn))
        await self.send(g.BackAcc(g.BACK_YES))
        if game.board.turn == game.color:
            self._our_turn()

    # ---- playing ----

    def _our_turn(self) -> None:
        """Start thinking (or end the game when it is over); never blocks the reader."""
        game = self.game
        assert game is not None
        game.turn_started = self._loop.time()
        self._think_task = asyncio.create_task(self._think(self._generation))

    def _limit(self, game: _Game) -> Limit:
        if game.clock is None:
            return Limit(movetime=max(MIN_MOVETIME, self.settings.dxp_movetime))
        mtg = game.moves - game.our_moves if game.moves > 0 and game.our_moves < game.moves else None
        return Limit(time=max(0.0, game.clock), moves_to_go=mtg)

    async def _think(self, generation: int) -> None:
        try:
            await self._think_and_move(generation)
        except (ConnectionError, OSError) as exc:
            # The reader sees the end of the stream too; a task must not die with an unread error.
            log.info("dxp: cannot send our move: %s", exc)

    async def _think_and_move(self, generation: int) -> None:
        game = self.game
        assert game is not None
        reason = end_reason(game.board)
        if reason is not None:
            self._think_task = None
            outcome = game.board.outcome()
            log.info("dxp: game over on our move: %s", outcome.termination.label if outcome else "?")
            self.game = None
            self._awaiting_ack = True
            await self.send(g.GameEnd(reason, g.STOP_NEXT_GAME))
            return
        await self.session.wait_idle()
        failure: SamuelError | None = None
        try:
            result = await self.session.search(game.board, self._limit(game))
        except SamuelError as exc:
            # As in Hub: the game goes on with a legal move (a dead search process is replaced,
            # the next search starts afresh), and the client is told this one is unsearched.
            log.warning("dxp: search failed, playing an unsearched move: %s", exc)
            result, failure = None, exc
        if generation != self._generation or self.game is not game:
            return  # the game ended or was rewound meanwhile
        move: Move = move_to_play(game.board, result) if result is not None else game.board.require_moves()[0]
        # From here on the move is ours: nothing may cancel it between push and send.
        self._think_task = None
        used = self._loop.time() - game.turn_started
        if game.clock is not None:
            game.clock -= used
        game.our_moves += 1
        game.board.push(move)
        log.debug("dxp: we play %s after %.3f s", move, used)
        await self.send(g.move_message(move, round(used)))
        if failure is not None:  # after the move, which must not wait for it
            text = f"error: {move} played unsearched, the search failed: {failure}"
            self._spawn_chat(text[: g.MAX_MESSAGE - 1])

    async def _cancel_search(self) -> None:
        task = self._think_task
        self._think_task = None
        if task is not None and not task.done():
            self.session.stop()
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self.session.wait_idle()

    async def _end_game(self) -> None:
        self._generation += 1
        await self._cancel_search()
        self.game = None

    async def _abort(self, text: str) -> None:
        """End the game over the opponent's fault: a chat saying why, then our GAMEEND."""
        await self._end_game()
        await self.chat(text)
        self._awaiting_ack = True
        await self.send(g.GameEnd(g.REASON_NONE, g.STOP_NEXT_GAME))


async def serve_dxp(reader: asyncio.StreamReader, writer: Writer, settings: ServerSettings) -> None:
    """Serve one DXP connection as the follower until the client closes it (or idles out)."""
    # `samuel serve` guards its writers already; `samuel dxp serve` comes straight here.
    writer = guard(writer, settings.write_timeout, f"dxp client {_peer(writer)}")
    follower = DxpFollower(reader, writer, settings)
    try:
        await follower.run()
    except (ConnectionError, OSError) as exc:
        log.info("dxp client went away: %s", exc)
    finally:
        with contextlib.suppress(Exception):
            writer.close()


def _peer(writer: Writer) -> object:
    get = getattr(writer, "get_extra_info", None)
    return get("peername") if get is not None else "?"
