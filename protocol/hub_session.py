"""The Hub dialect (Scan 3.x "Hub protocol version 2", adapted to English checkers).

``run_hub`` reads lines from any stream (stdin or a TCP connection) and
answers on a Writer.  One SessionEngine does the searching in a thread, so
``ping``, ``stop`` and ``ponder-hit`` are answered while it thinks.  Bad input
is answered with ``error message="..."`` and the session carries on; every
search started with ``go`` ends with exactly one ``done``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from engine.board import Board
from engine.errors import SamuelError
from engine.limits import Limit
from engine.options import session_options
from engine.runner import move_to_play
from engine.search import SearchInfo, SearchResult
from protocol import hub_grammar as g
from protocol.clock_lag import LagMeter
from protocol.context import ENGINE_AUTHOR, ENGINE_COUNTRY, ServerSettings, Writer, engine_version
from protocol.errors import LineTooLongError, ProtocolError
from protocol.framing import decode_text, read_frame
from protocol.guard import is_socket
from protocol.idle_clock import IdleClock
from protocol.log_limit import LogLimiter
from protocol.options import hub_param_fields
from protocol.session_engine import SessionEngine

log = logging.getLogger(__name__)

DEFAULT_LEVEL = Limit(movetime=1.0)
"""What ``go`` uses when no ``level`` was given."""

INFO_INTERVAL = 0.1
"""Seconds between ``info`` lines (the last one always goes out before ``done``): a line
per fast early iteration costs every concurrent session, and GUIs redraw no faster."""

VARIANTS = ("english",)
_VARIANT_ALIASES = {"english": "english", "american": "english", "checkers": "english"}


_PosKey = tuple[str, str, tuple[str, ...]]
"""A pos line as (position, frame setting, moves)."""


class _Quit(Exception):
    """Raised by the ``quit`` handler to end the read loop."""


class HubSession:
    """The state of one Hub client: position, level, frame and the running search."""

    def __init__(self, writer: Writer, settings: ServerSettings) -> None:
        self.writer = writer
        self.settings = settings
        self.engine = SessionEngine(settings.defaults)
        self.frame = settings.hub_frame if settings.hub_frame in g.HUB_FRAMES else "auto"
        self.board: Board | None = None
        self.board_error = "no position: send pos first"
        self.level: Limit | None = DEFAULT_LEVEL
        self.level_error = ""
        self.lag = LagMeter()
        """The clock's lag beyond our searches, learnt from successive levels: added to the margin."""
        self.search_task: asyncio.Task[None] | None = None
        self.init_task: asyncio.Task[None] | None = None
        self.search_mode = ""
        self._open_ended = False
        """The running search has no bound of its own (infinite, ponder): the idle clock runs."""
        self._idle: IdleClock | None = None
        """The idle clock of ``run`` (None before it starts)."""
        self._pos_key: _PosKey | None = None
        """(pos, frame setting, moves) of ``self.board``, to replay only what a new pos adds."""
        self._pos_frame = ""
        self._bad_input = LogLimiter(log)
        self.handlers = {
            "hub": self.on_hub,
            "init": self.on_init,
            "set-param": self.on_set_param,
            "pos": self.on_pos,
            "level": self.on_level,
            "go": self.on_go,
            "ponder-hit": self.on_ponder_hit,
            "stop": self.on_stop,
            "ping": self.on_ping,
            "new-game": self.on_new_game,
            "quit": self.on_quit,
        }

    # ---- output ----

    def send(self, *lines: str) -> None:
        """Lines sent together go out in one write (one system call, one wakeup of the client)."""
        for line in lines:
            log.debug("hub >> %s", line)
        self.writer.write("".join(line + "\n" for line in lines).encode("utf-8"))

    def error(self, message: str) -> None:
        self._bad_input.info("hub error: %s", message)
        self.send(g.error_line(message))

    @property
    def searching(self) -> bool:
        return self.search_task is not None and not self.search_task.done()

    # ---- the loop ----

    async def run(self, reader: asyncio.StreamReader) -> None:
        # Over TCP a silent client is closed after the idle timeout, except while a search that
        # ends by itself runs; on stdin the GUI owns the engine and may leave it idle for hours.
        idle = self._idle = IdleClock(self.settings.idle_timeout if is_socket(self.writer) else None)
        try:
            while True:
                self._arm_idle()
                try:
                    frame = await idle.read(read_frame(reader, b"\n", self.settings.max_line))
                except LineTooLongError as exc:
                    self.error(str(exc))
                    await self.writer.drain()
                    continue
                except asyncio.CancelledError:
                    if not idle.expired:
                        raise
                    log.info("hub client silent for %g s; closing", idle.timeout)
                    self.error(f"idle for {idle.timeout:g} s without a command; closing")
                    with contextlib.suppress(ConnectionError, OSError):
                        await self.writer.drain()
                    break
                idle.disarm()
                if frame is None:
                    log.debug("hub: end of input, quitting")
                    break
                before = self.search_task
                try:
                    self.handle(decode_text(frame))
                except _Quit:
                    break
                except ProtocolError as exc:
                    self.error(str(exc))
                await self.writer.drain()
                started = self.search_task
                if started is not None and started is not before:
                    started.add_done_callback(lambda _: self._arm_idle())
                # One turn of the loop per line: a client that sends many lines at once does not
                # hold the others up, and a search that `go` just created starts (and says whether
                # it ends by itself) before a following `stop` or `ponder-hit` is handled.
                await asyncio.sleep(0)
        finally:
            idle.stop()
            self._bad_input.close()
            await self.shutdown()

    def _arm_idle(self) -> None:
        """Start the idle clock, unless a search that ends by itself runs (its end starts it)."""
        idle = self._idle
        if idle is None:
            return
        if self.searching and not self._open_ended:
            idle.disarm()
        else:
            idle.arm()

    def handle(self, text: str) -> None:
        log.debug("hub << %s", text)
        try:
            line = g.tokenize(text)
        except ProtocolError as exc:
            self.error(str(exc))
            return
        if line is None:
            return
        handler = self.handlers.get(line.command)
        if handler is None:
            log.debug("hub: ignoring unknown command %r", line.command)
            return
        try:
            handler(line)
        except _Quit:
            raise
        except (ProtocolError, SamuelError) as exc:
            self.error(str(exc))

    async def shutdown(self) -> None:
        self._stop_search()
        for task in (self.search_task, self.init_task):
            if task is not None:
                with contextlib.suppress(Exception, asyncio.CancelledError):
                    await task
        await self.engine.close()

    # ---- commands ----

    def on_hub(self, line: g.HubLine) -> None:
        self.send(g.format_line("id", [
            ("name", self.settings.name), ("version", engine_version()),
            ("author", ENGINE_AUTHOR), ("country", ENGINE_COUNTRY),
        ], always_quote=["author"]))
        self.send(g.format_line("param", [
            ("name", "variant"), ("value", "english"), ("type", "enum"), ("values", " ".join(VARIANTS)),
        ], always_quote=["values"]))
        for option in session_options():  # the option table: every option a session may set
            fields = hub_param_fields(option, self.engine.options[option.name])
            self.send(g.format_line("param", fields, always_quote=["values"]))
        self.send(g.format_line("param", [
            ("name", "frame"), ("value", self.frame), ("type", "enum"), ("values", " ".join(g.HUB_FRAMES)),
        ], always_quote=["values"]))
        self.send("wait")

    def on_init(self, line: g.HubLine) -> None:
        if self.searching:
            self.send("ready")
            return
        # The table is allocated now, not on the first move, and in a thread: a big
        # one takes long enough to stall every other client if done on the loop.
        self.init_task = asyncio.ensure_future(self._init())

    async def _init(self) -> None:
        try:
            await self.engine.prepare()
        except SamuelError as exc:
            self.error(f"init: {exc}")
        self.send("ready")
        with contextlib.suppress(ConnectionError, OSError):
            await self.writer.drain()

    def on_set_param(self, line: g.HubLine) -> None:
        name = line.require("name").strip().lower()
        value = line.require("value")
        if name == "variant":
            v = _VARIANT_ALIASES.get(value.strip().lower())
            if v is None:
                raise ProtocolError(f"set-param: variant {value!r} is not supported; this engine plays "
                                    f"{', '.join(VARIANTS)}")
            return
        if name == "frame":
            f = value.strip().lower()
            if f not in g.HUB_FRAMES:
                raise ProtocolError(f"set-param: frame {value!r} is not one of {', '.join(g.HUB_FRAMES)}")
            self.frame = f
            return
        self.engine.set_option(name, value)

    def on_pos(self, line: g.HubLine) -> None:
        previous, self.board = self.board, None
        try:
            # Scan's `pos start` flag means the start position.
            pos = g.LITERAL_START if line.has("start") and not line.has("pos") else line.require("pos")
            moves = tuple((line.value("moves") or "").split())
            key = (pos.strip(), self.frame, moves)
            board, used = self._extend(previous, key) or g.read_position(pos, " ".join(moves), self.frame)
        except ProtocolError as exc:
            self._pos_key = None
            self.board_error = f"no valid position: the last pos was rejected ({exc})"
            raise
        if log.isEnabledFor(logging.DEBUG):  # a FEN costs more than the rest of a pos
            log.debug("hub: position %s (frame %s, %d moves)", board.fen(), used, len(board.move_stack))
        self.board = board
        self._pos_key, self._pos_frame = key, used

    def _extend(self, previous: Board | None, key: _PosKey) -> tuple[Board, str] | None:
        """The previous position plus the new moves, when ``key`` extends the last pos; else None.

        GUIs resend the whole game before every go; replaying it on the event loop
        costs every concurrent session, so a game that grew only plays its new moves.
        A new move that does not fit gives None: the full replay decides (the auto
        frame may choose differently) and names the error.
        """
        old = self._pos_key
        if previous is None or old is None or old[:2] != key[:2] or key[2][: len(old[2])] != old[2]:
            return None
        board = previous.copy()  # a running search may still read the previous board
        try:
            g.parse_moves(board, " ".join(key[2][len(old[2]):]))
        except ProtocolError:
            return None
        return board, self._pos_frame

    def on_level(self, line: g.HubLine) -> None:
        try:
            self.level = g.parse_level(line)
        except ProtocolError as exc:
            self.level = None
            self.level_error = f"no valid level: the last level was rejected ({exc})"
            raise

    def on_go(self, line: g.HubLine) -> None:
        modes = [m for m in ("think", "ponder", "analyze", "analyse") if line.has(m)]
        if len(modes) > 1:
            raise ProtocolError(f"go: choose one of think, ponder, analyze (got {' '.join(modes)})")
        mode = {"analyse": "analyze"}.get(modes[0], modes[0]) if modes else "think"
        if self.searching:
            raise ProtocolError("go: a search is already running; send stop and wait for done")
        if self.board is None:
            raise ProtocolError(f"go: {self.board_error}")
        if self.level is None:
            raise ProtocolError(f"go: {self.level_error}")
        board = self.board
        if not board.legal_moves:
            raise ProtocolError(f"go: the position is terminal, the side to move has no legal move "
                                f"({board.fen()})")
        level = self.level
        if mode == "think":
            limit = self.lag.limit(level)
        else:
            self.lag.reset()  # a ponder hit's clock runs from the hit, not from go
            # Pondering and analysis ignore the clock; depth, nodes and move-time still bound them.
            limit = Limit(depth=level.depth, nodes=level.nodes,
                          movetime=level.movetime if mode == "analyze" else None)
        self.search_mode = mode
        self.search_task = asyncio.ensure_future(self._search(board, limit, level))

    async def _search(self, board: Board, limit: Limit, level: Limit) -> None:
        last: SearchInfo | None = None

        def on_info(info: SearchInfo) -> None:
            nonlocal last
            last = info
            self.send(g.format_info(board, info))

        self._open_ended = limit.depth is None and limit.nodes is None and limit.movetime is None \
            and limit.time is None
        result: SearchResult | None = None
        try:
            result = await self.engine.search(board, limit, on_info, info_interval=INFO_INTERVAL,
                                              use_book=self.search_mode == "think")
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the client still gets its done
            log.warning("hub: search failed: %s", exc)
            self.error(f"search failed: {exc}")
        best = move_to_play(board, result) if result is not None else board.require_moves()[0]
        final: list[str] = []
        if result is None or best != result.best:
            ponder = None
        else:
            ponder = result.ponder
            # Reports are thinned to one per INFO_INTERVAL: the final one always goes out, unless
            # that iteration was reported already (only the totals of time and nodes differ then).
            i = result.info
            if last is None or (last.depth, last.score, last.pv) != (i.depth, i.score, i.pv):
                final.append(g.format_info(board, i))
        if limit.time is not None:  # a clocked go think (a ponder search has no clock)
            self.lag.searched(level, result.info.time if result is not None else 0.0)
        self.search_mode = ""
        self.send(*final, g.format_done(board, best, ponder))
        with contextlib.suppress(ConnectionError, OSError):
            await self.writer.drain()

    def on_ponder_hit(self, line: g.HubLine) -> None:
        if not self.searching or self.search_mode != "ponder":
            log.debug("hub: ponder-hit while not pondering, ignored")
            return
        self.search_mode = "think"
        level = self.level or DEFAULT_LEVEL
        if level.time is None and level.movetime is None:
            return  # depth/nodes bound the search already; infinite goes on until stop
        self.engine.stop_after(level)

    def on_stop(self, line: g.HubLine) -> None:
        if not self.searching:
            log.debug("hub: stop while idle, ignored")
            return
        self._stop_search()

    def _stop_search(self) -> None:
        # Reaches the search even before it has begun (it is armed first), never a later one.
        self.engine.stop()

    def on_ping(self, line: g.HubLine) -> None:
        self.send("pong")

    def on_new_game(self, line: g.HubLine) -> None:
        if self.searching:
            raise ProtocolError("new-game: a search is running; send stop first")
        self.lag.reset()
        self.engine.new_game()

    def on_quit(self, line: g.HubLine) -> None:
        raise _Quit


async def run_hub(reader: asyncio.StreamReader, writer: Writer, settings: ServerSettings) -> None:
    """Serve one Hub client until ``quit`` or the end of its input."""
    session = HubSession(writer, settings)
    await session.run(reader)
