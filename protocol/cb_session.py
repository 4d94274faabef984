"""One cb session: CheckerBoard's engine API as lines, over stdin/stdout or a TCP connection.

The session keeps reading while a ``getmove`` search runs, so ``ping`` and
``playnow`` are answered at once; status lines stream as the search deepens and
the move line ends it.  Every bad line gets one ``error`` line and the session
goes on.  See docs/protocols/cb.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os

from engine import egdb, evaluators, timeman
from engine.board import Board, Termination
from engine.errors import SamuelError
from engine.limits import Limit
from engine.options import find
from engine.search import Score, SearchInfo
from engine.types import BLACK
from protocol import cb_grammar as g
from protocol.context import ServerSettings, Writer, engine_version
from protocol.errors import LineTooLongError, ProtocolError
from protocol.framing import decode_text, read_frame
from protocol.idle_clock import IdleClock
from protocol.log_limit import LogLimiter
from protocol.session_engine import SearchBusyError, SessionEngine

log = logging.getLogger(__name__)

# Commands CheckerBoard 1.77 may send about features samuel lacks.  A ``get`` answers
# the API's "not supported" (return 0, reply "?"), which greys the control out in
# CheckerBoard's options dialog; a ``set`` says what is missing.
STATUS_INTERVAL = 0.1
"""Seconds between status lines: CheckerBoard refreshes its status bar every 0.1 s,
and a line per fast early iteration would cost every concurrent session."""

_NO_DATABASE = ("enable_mtc", "mtcpath")
CB_BOOK_NONE = 0
CB_BOOK_ALL_KINDS_MOVES = 1
CB_BOOK_GOOD_MOVES = 2
CB_BOOK_BEST_MOVES = 3
CB_BOOK_VARIETY: dict[int, int] = {CB_BOOK_BEST_MOVES: 0, CB_BOOK_GOOD_MOVES: 10, CB_BOOK_ALL_KINDS_MOVES: 50}
"""CheckerBoard's book setting as the ``book-variety`` option: best moves only, moves within 0.10
of the best, moves within 0.50 (none turns the book off)."""
_NO_MODE = ("allscores", "solve")


class _Output:
    """Lines to the client; a vanished client makes writing a no-op, never an exception."""

    def __init__(self, writer: Writer) -> None:
        self._writer = writer
        self._lock = asyncio.Lock()
        self.closed = False
        self.bad_input = LogLimiter(log)

    def line(self, *texts: str) -> None:
        """Write these lines (one write: one send to the client, one wakeup of it)."""
        if self.closed or self._writer.is_closing():
            self.closed = True
            return
        try:
            self._writer.write("".join(t + "\n" for t in texts).encode("utf-8", errors="replace"))
        except (ConnectionError, OSError, RuntimeError):
            self.closed = True

    async def send(self, *texts: str) -> None:
        self.line(*texts)
        await self.drain()

    async def drain(self) -> None:
        if self.closed:
            return
        async with self._lock:  # StreamWriter.drain must not run twice at once
            try:
                await self._writer.drain()
            except (ConnectionError, OSError, RuntimeError):
                self.closed = True

    async def error(self, message: str) -> None:
        self.bad_input.info("cb: error sent: %s", message)
        await self.send(g.format_error(message))


class CbSession:
    """The state of one client: engine, game history and the running getmove."""

    def __init__(self, out: _Output, settings: ServerSettings) -> None:
        self.out = out
        self.settings = settings
        self.engine = SessionEngine(settings.defaults)
        self.history: Board | None = None
        self._history_key: tuple[str, tuple[str, ...]] | None = None
        self.search_task: asyncio.Task[None] | None = None
        self.search_ends: float | None = None
        """Loop time by which the running getmove's search must end (None: open-ended)."""
        book = self.engine.options.text("book")
        self._book_file = book if book != "none" else "default"
        """The book ``set book 1..3`` turns back on (``set bookfile`` names it)."""

    @property
    def searching(self) -> bool:
        return self.search_task is not None and not self.search_task.done()

    # ---- dispatch ----

    async def handle(self, req: g.Request) -> None:
        if isinstance(req, g.Ping):
            await self.out.send(g.PONG)
        elif isinstance(req, g.PlayNow):
            if self.searching:
                self.engine.stop()
            else:
                log.debug("cb: playnow while idle, ignored")
        elif isinstance(req, g.GetMove):
            await self.getmove(req)
        elif isinstance(req, g.EngineCommand):
            await self.enginecommand(req.text)

    async def enginecommand(self, text: str) -> None:
        try:
            cmd = g.parse_engine_command(text)
        except ProtocolError as exc:
            await self.out.error(str(exc))
            return
        try:
            code, reply = self.answer(cmd)
        except (ProtocolError, SamuelError) as exc:
            await self.out.error(str(exc))
            return
        if code == 1 and isinstance(cmd, g.SetCmd) and cmd.name in ("hashsize", "hash"):
            code, reply = await self._resize_table()
        elif code == 1 and isinstance(cmd, g.SetCmd) and cmd.name == "backend" and reply == "704":
            code, reply = await self._build_704()
        await self.out.send(g.format_reply(code, reply))

    async def _resize_table(self) -> tuple[int, str]:
        """Resize now (in a thread) and report the real size; the old size stays on failure."""
        try:
            return 1, str(await self.engine.prepare())
        except SamuelError as exc:
            return 0, f"hashsize stays {self.engine.hash_mb} MB: {exc}"

    async def _build_704(self) -> tuple[int, str]:
        """Build the 704 program before the reply, so CheckerBoard's next getmove has its whole time."""
        try:
            await self.engine.warmed()
        except SamuelError as exc:
            self.engine.set_option("backend", "modern")
            return 0, f"backend stays modern: {exc}"
        return 1, "704"

    # ---- enginecommand ----

    def answer(self, cmd: g.EngineRequest) -> tuple[int, str]:
        """(return value, reply) of enginecommand; SamuelError for bad FENs and moves."""
        name = f"{self.settings.name} {engine_version()}"
        if isinstance(cmd, g.NameCmd):
            return 1, name
        if isinstance(cmd, g.AboutCmd):
            return 1, self.about(name)
        if isinstance(cmd, g.HelpCmd):
            return 0, "?"  # no HTML help file ships with the engine
        if isinstance(cmd, g.GetMovelistCmd):
            return 1, self.movelist(cmd.fen)
        if isinstance(cmd, g.SetGamehistCmd):
            board, done = self._history_prefix(cmd.fen, cmd.moves)
            for i, m in enumerate(cmd.moves[done:], done + 1):
                try:
                    board.push_pdn(m)
                except SamuelError as exc:
                    raise ProtocolError(f"set gamehist, move {i}: {exc}") from None
            self.history = board
            self._history_key = (cmd.fen, tuple(cmd.moves))
            return 1, f"gamehist {len(cmd.moves)} moves to {board.fen()}"
        if isinstance(cmd, g.StaticEvalCmd):
            return 1, self.static_evaluation(cmd.fen)
        if isinstance(cmd, g.GetCmd):
            return self.get(cmd.name)
        if isinstance(cmd, g.SetCmd):
            return self.set(cmd.name, cmd.value)
        return 0, "?"

    def about(self, name: str) -> str:
        """The About box: what really plays (the backend decides which of the options count)."""
        o = self.engine.options
        head = f"{name}\nEnglish checkers engine after Arthur L. Samuel's 1959 program.\n"
        if o.text("backend") == "704":
            return head + ("backend 704: Samuel's program in 704 assembly on the emulated IBM 704, "
                           f"his search, scoring evaluator {o.text('evaluator')} on the 704 "
                           "(no opening book, table or endgame database)")
        try:
            db = egdb.survey(o.text("egdb"))
        except (SamuelError, OSError):
            db = None
        database = db.describe() if db is not None else "no endgame database"
        return head + (
            f"backend modern: evaluator {o.text('evaluator')}, search {o.text('mode')}, "
            f"hash {self.engine.hash_mb} MB\n"
            f"opening book {o.text('book')} (variety {o.text('book-variety')}), {database}"
        )

    def movelist(self, fen: str) -> str:
        try:
            board = Board(fen)
        except SamuelError:
            # CheckerBoard probes with "get movelist B:W1:B": a White man on its own
            # crowning row, which samuel's FEN reader refuses, but the side to move
            # has no piece at all, so the answer it wants is clear.
            if _side_to_move_has_no_pieces(fen):
                return "movelist 0"
            raise
        return g.format_movelist(g.movelist_entries(board))

    def static_evaluation(self, fen: str) -> str:
        board = Board(fen)
        evaluator = evaluators.by_name(self.engine.options.text("evaluator"))
        score = evaluator.evaluate(board)
        side = "Black" if board.turn == BLACK else "White"
        return f"static evaluation {score / 100:+.2f} for {side} (to move), evaluator {evaluator.name}"

    def get(self, name: str) -> tuple[int, str]:
        o = self.engine.options
        if name == "protocolversion":
            return 1, str(g.PROTOCOL_VERSION)
        if name == "gametype":
            return 1, str(g.GT_ENGLISH)
        if name in ("hashsize", "hash"):  # the table allocated (a power of two), not the size asked
            return 1, str(self.engine.hash_mb)
        if name == "book":
            return 1, str(self.cb_book())
        if name == "bookfile":
            return 1, self._book_file
        if name == "searchthreads":
            return 1, "1"
        if name in ("dbpath", "enable_wld", "max_dbpieces", "dbmbytes"):
            return self._get_database(name)
        if name == "cpus":
            return 1, str(os.cpu_count() or 1)
        if _is_session_option(name):
            return 1, o.text(name)
        return 0, "?"

    def set(self, name: str, value: str) -> tuple[int, str]:
        if name == "gametype":
            if value.strip() == str(g.GT_ENGLISH):
                return 1, str(g.GT_ENGLISH)
            return 0, f"samuel plays English checkers only (gametype {g.GT_ENGLISH}), not {value}"
        if name in ("hashsize", "hash"):
            return self._set_option("hash", value, f"hashsize stays {self.engine.options.text('hash')} MB")
        if name == "book":  # CheckerBoard's 0..3; a name or file (samuel.ini's book = ...) is bookfile's
            level = value.strip()
            if level.lstrip("-").isdigit():
                return self._set_cb_book(value)
            return self._set_bookfile(value)
        if name == "bookfile":
            return self._set_bookfile(value)
        if _is_session_option(name):
            return self._set_option(name, value, f"{name} stays {self.engine.options.text(name)}")
        if name == "searchthreads":
            if value.strip() == "1":
                return 1, "1"
            return 0, "samuel searches on one thread: searchthreads stays 1"
        if name == "check_wld_dir":
            try:
                found = egdb.survey(value.strip() or "none")
                return 1, found.describe() if found is not None else "no endgame database there"
            except (SamuelError, OSError) as exc:
                return 1, f"no endgame database there: {exc}"
        if name == "check_mtc_dir":
            return 1, "samuel keeps distances to conversion beside its win/loss/draw tables: no MTC directory"
        if name in ("dbpath", "enable_wld"):
            setting = value.strip() if name == "dbpath" else "auto" if value.strip() == "1" else "none"
            return self._set_option("egdb", setting, f"egdb stays {self.engine.options.text('egdb')}")
        if name in ("max_dbpieces", "dbmbytes"):
            return 0, f"samuel probes every table it holds, in memory: {name} not used"
        if name in _NO_DATABASE:
            return 0, f"samuel has no MTC database: {name} not used"
        if name in _NO_MODE:
            return 0, f"samuel has no {name} mode"
        return 0, "?"

    def _get_database(self, name: str) -> tuple[int, str]:
        # From the file names alone: this runs on the event loop, and loading waits for a search.
        setting = self.engine.options.text("egdb")
        try:
            db = egdb.survey(setting)
        except (SamuelError, OSError) as exc:
            return 0, str(exc)
        if name == "dbpath":
            where = db.directory if db is not None else egdb.default_directory() if setting == "auto" else ""
            return 1, str(where)
        if name == "enable_wld":
            return 1, "1" if db is not None else "0"
        if name == "max_dbpieces":
            return 1, str(db.max_pieces if db is not None else 0)
        return 1, str(db.nbytes >> 20 if db is not None else 0)

    def _set_option(self, name: str, value: str, kept: str) -> tuple[int, str]:
        option = find(name, per_session=True)
        token = value.strip() if option.kind == "egdb" else value.split()[0] if value.split() else value
        try:
            canonical = self.engine.set_option(name, token)
        except (SamuelError, SearchBusyError) as exc:
            return 0, f"{kept}: {exc}"
        return 1, option.text(canonical)

    def cb_book(self) -> int:
        """The book option and its variety as CheckerBoard's book setting."""
        o = self.engine.options
        if o.text("book") == "none":
            return CB_BOOK_NONE
        variety = o.book_variety
        if variety <= CB_BOOK_VARIETY[CB_BOOK_BEST_MOVES]:
            return CB_BOOK_BEST_MOVES
        if variety <= CB_BOOK_VARIETY[CB_BOOK_GOOD_MOVES]:
            return CB_BOOK_GOOD_MOVES
        return CB_BOOK_ALL_KINDS_MOVES

    def _set_cb_book(self, value: str) -> tuple[int, str]:
        kept = f"book stays {self.cb_book()}"
        try:
            level = int(value.strip())
        except ValueError:
            return 0, f"{kept}: {value!r} is not 0..3"
        try:
            if level == CB_BOOK_NONE:
                self.engine.set_option("book", "none")
            elif level in CB_BOOK_VARIETY:
                self.engine.set_option("book", self._book_file)
                self.engine.set_option("book-variety", CB_BOOK_VARIETY[level])
            else:
                return 0, f"{kept}: {level} is not 0..3"
        except (SamuelError, SearchBusyError) as exc:
            return 0, f"{kept}: {exc}"
        return 1, str(level)

    def _set_bookfile(self, value: str) -> tuple[int, str]:
        try:
            canonical = self.engine.set_option("book", value.strip())
        except (SamuelError, SearchBusyError) as exc:
            return 0, f"bookfile stays {self._book_file}: {exc}"
        if canonical != "none":
            self._book_file = str(canonical)
        return 1, str(canonical)

    # ---- getmove ----

    async def getmove(self, req: g.GetMove) -> None:
        if self.searching:
            await self.out.error("getmove while a search is running; send playnow and wait for its move")
            return
        try:
            board = Board(req.fen)
            limit = req.limit()
        except (SamuelError, ValueError) as exc:
            await self.out.error(f"getmove: {exc}")
            return
        if self.history is not None and self.history == board:
            board = self.history.copy()  # the game so far: repetitions count
        else:
            if self.history is not None:
                log.debug("cb: gamehist leads to %s, not to getmove's %s", self.history.fen(), board.fen())
        if not board.legal_moves:
            await self.out.error(f"getmove: no legal moves in {board.fen()} (the side to move has lost)")
            return
        if req.reset:
            self.engine.new_game()
        hard_ms = timeman.budgets(limit)[1]
        self.search_ends = asyncio.get_running_loop().time() + hard_ms / 1000.0 if hard_ms else None
        self.search_task = asyncio.create_task(self._search(board, limit))

    def silence_allowed(self) -> float:
        """Seconds the client may stay silent beyond the idle timeout: while a timed search runs,
        the time it may still take (the client is waiting for its move); none while an open-ended
        one runs (a client that left it running and went silent is gone), nor when idle."""
        if not self.searching or self.search_ends is None:
            return 0.0
        return max(0.0, self.search_ends - asyncio.get_running_loop().time())

    def _history_prefix(self, fen: str, moves: tuple[str, ...] | list[str]) -> tuple[Board, int]:
        """A board to continue from, and how many of ``moves`` it already holds.

        Clients resend the whole game before every getmove; replaying it costs
        tens of microseconds a move, which adds up over many concurrent games,
        so a history that extends the previous one only plays the new moves.
        """
        key = self._history_key
        if (
            key is not None and self.history is not None and key[0] == fen
            and len(moves) >= len(key[1]) and tuple(moves[: len(key[1])]) == key[1]
        ):
            return self.history.copy(), len(key[1])
        return Board(fen), 0

    async def _search(self, board: Board, limit: Limit) -> None:
        last = ""

        def on_info(info: SearchInfo) -> None:
            nonlocal last
            last = _status_of(board, info)
            self.out.line(g.format_status(last))

        moves = board.legal_moves
        score: Score | None = None
        final: list[str] = []
        try:
            if len(moves) == 1:
                best = moves[0]  # nothing to think about: answer at once, as CheckerBoard engines do
                last = f"forced move {g.move_text(best)}"
                final.append(g.format_status(last))
            else:
                result = await self.engine.search(board, limit, on_info, info_interval=STATUS_INTERVAL)
                best = result.best if result.best is not None and board.is_legal(result.best) else moves[0]
                score = result.info.score
                # Reports are thinned to one per STATUS_INTERVAL (none in a shorter search): the
                # final one always goes out, in the same write as the move.
                status = _status_of(board, result.info)
                if status != last:
                    last = status
                    final.append(g.format_status(last))
        except SamuelError as exc:  # no move, or no table to search with
            await self.out.error(f"getmove: {exc}")
            return
        except Exception as exc:
            log.exception("cb: search of %s failed", board.fen())
            await self.out.error(f"getmove: the search failed: {exc}")
            return
        after = board.copy()
        after.push(best)
        final.append(g.format_move(g.move_text(best), _result(after, score), after.fen(), last))
        await self.out.send(*final)

    async def close(self) -> None:
        self.engine.stop()
        if self.search_task is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(asyncio.shield(self.search_task), 30)
        await self.engine.close()


def _status_of(board: Board, info: SearchInfo) -> str:
    book = f"book move {g.move_text(info.pv[0])}: " if info.book and info.pv else ""
    pv = [g.move_text(m) for m in info.pv[:board.legal_prefix(info.pv)]]
    fields = g.StatusFields(info.depth, info.seldepth, str(info.score), info.time, info.nodes, info.nps,
                            tuple(pv), info.machine_time)
    return book + g.status_text(fields)


def _result(after: Board, score: Score | None) -> str:
    """The getmove result for the side that just moved: proven by rules or by the search."""
    outcome = after.outcome()
    if outcome is not None:
        if outcome.termination is Termination.NO_MOVES:
            return "WIN"  # the opponent cannot move
        return "DRAW"  # repetition or the 40-move rule
    if score is not None and score.is_win:
        return "WIN"
    if score is not None and score.is_loss:
        return "LOSS"
    return "UNKNOWN"


def _side_to_move_has_no_pieces(fen: str) -> bool:
    fields = [f.strip() for f in fen.strip().strip('"').rstrip(".").split(":")]
    if not fields or fields[0].upper() not in ("B", "W"):
        return False
    side = fields[0].upper()
    groups = [f for f in fields[1:] if f and f[0].upper() == side]
    return all(not f[1:].strip(", ") for f in groups)


async def run_cb(reader: asyncio.StreamReader, writer: Writer, settings: ServerSettings) -> None:
    """Serve one cb client until ``quit``, end of stream or the idle timeout."""
    out = _Output(writer)
    state = CbSession(out, settings)
    # cb says nothing before its first getmove, so the table (and a search process) is readied
    # now, off the loop: otherwise that first move's time pays for it.
    state.engine.warm_up()
    # A silent client is closed after the idle timeout, searching or not; a timed getmove's
    # own time is added (its client is waiting for the move), and the clock starts afresh
    # when the move is sent.
    idle = IdleClock(settings.idle_timeout)
    try:
        while not out.closed:  # a write that failed or timed out ends the session
            idle.arm(state.silence_allowed())
            try:
                frame = await idle.read(read_frame(reader, b"\n", settings.max_line))
            except asyncio.CancelledError:
                if not idle.expired:
                    raise
                await out.error(f"idle for {settings.idle_timeout:g} s without a command; closing")
                return
            except LineTooLongError as exc:
                await out.error(str(exc))
                continue
            except (ConnectionError, OSError) as exc:
                log.info("cb: connection lost: %s", exc)
                return
            idle.disarm()
            if frame is None:
                # End of input acts as playnow then quit: a piped script still gets its move.
                state.engine.stop()
                if state.search_task is not None:
                    with contextlib.suppress(Exception):
                        await asyncio.shield(state.search_task)
                return
            try:
                text = decode_text(frame)
                if not text.strip():
                    continue
                req = g.parse_command(text)
            except ProtocolError as exc:
                await out.error(str(exc))
                continue
            if isinstance(req, g.Quit):
                out.closed = True  # a search still running ends without a move line
                return
            before = state.search_task
            await state.handle(req)
            if out.closed:
                return
            started = state.search_task
            if started is not None and started is not before:
                started.add_done_callback(lambda _: idle.arm())
            # One turn of the loop per line: a client that sends many lines at once does not hold
            # the others up, and a getmove's search starts before a following playnow is handled.
            await asyncio.sleep(0)
    finally:
        idle.stop()
        out.bad_input.close()
        await state.close()


def _is_session_option(name: str) -> bool:
    """Whether ``name`` is an option of the table a session may set (cb ``get``/``set`` it by name)."""
    try:
        find(name, per_session=True)
    except SamuelError:
        return False
    return True
