"""The cb dialect's grammar: CheckerBoard's engine API as text lines, parse and format only.

No I/O here.  ``parse_command`` turns a client line into a typed request,
``parse_engine_command`` splits an ``enginecommand`` string into what the
session acts on, and the ``format_*``/``parse_*`` pairs write and read the
engine's lines (``reply``, ``status``, ``move``, ``error``).  The time flags
of ``getmove`` (``info``/``moreinfo``) are decoded into a Limit here, and
encoded back for the client.  See docs/protocols/cb.md.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from engine.board import Board
from engine.errors import InvalidMoveError
from engine.limits import Limit
from engine.move import Move, parse_move_text
from engine.types import BLACK, WHITE
from protocol.errors import ProtocolError

# ---- CheckerBoard constants (cb_interface.h) ----

CB_WHITE = 1
CB_BLACK = 2
CB_MAN = 4
CB_KING = 8

CB_DRAW = 0
CB_WIN = 1
CB_LOSS = 2
CB_UNKNOWN = 3

CB_RESET_MOVES = 1
CB_EXACT_TIME = 2
CB_INCR_TIME_SHIFT = 2
INCR_UNITS: dict[int, float] = {1: 0.001, 2: 0.01, 3: 0.1}
"""Bits 2-3 of ``info``: the unit of the times packed into ``moreinfo``."""

GT_ENGLISH = 21
PROTOCOL_VERSION = 2
ENGINECOMMAND_REPLY_SIZE = 1024

RESULTS: dict[str, int] = {"DRAW": CB_DRAW, "WIN": CB_WIN, "LOSS": CB_LOSS, "UNKNOWN": CB_UNKNOWN}
"""Result words of the ``move`` line and the getmove() return value each stands for."""

AVERAGE_TIME_FACTOR = 5.0
"""Without CB_EXACT_TIME maxtime is an average: the search gets a clock of this many
maxtimes with one move to go, which the time manager turns into a soft budget of
about maxtime (no new iteration after it) and a hard one of about 1.65 x maxtime."""

MAX_MAXTIME = 1.0e6
"""Seconds; longer is surely a mistake (and overflows nothing downstream)."""

MAX_SEARCH_SECONDS = 3600.0
"""The longest a timed getmove searches, whatever its maxtime: a larger one is read as this
(CheckerBoard's own levels stay far below; a silent client's search must not hold a slot of
the server for days)."""


# ---- requests (client -> engine) ----


@dataclass(frozen=True)
class Ping:
    pass


@dataclass(frozen=True)
class Quit:
    pass


@dataclass(frozen=True)
class PlayNow:
    pass


@dataclass(frozen=True)
class GetMove:
    """``getmove``: search ``fen`` and answer with a move line."""

    fen: str
    maxtime: float | None = None
    info: int = 0
    moreinfo: int = 0
    depth: int | None = None
    nodes: int | None = None

    @property
    def reset(self) -> bool:
        return bool(self.info & CB_RESET_MOVES)

    def limit(self) -> Limit:
        return decode_limit(self.maxtime, self.info, self.moreinfo, depth=self.depth, nodes=self.nodes)


@dataclass(frozen=True)
class EngineCommand:
    """Any other line: an ``enginecommand`` string, verbatim."""

    text: str


Request = Ping | Quit | PlayNow | GetMove | EngineCommand

_GETMOVE_KEYS = ("fen", "maxtime", "info", "moreinfo", "depth", "nodes")


def parse_command(line: str) -> Request:
    """One client line (without its newline) as a request; ProtocolError when malformed."""
    text = line.strip()
    if not text:
        raise ProtocolError("empty line")
    word, _, rest = text.partition(" ")
    verb = word.lower()
    rest = rest.strip()
    if verb in ("ping", "quit", "playnow"):
        if rest:
            raise ProtocolError(f"{verb} takes no arguments, got {rest!r}")
        simple: dict[str, Ping | Quit | PlayNow] = {"ping": Ping(), "quit": Quit(), "playnow": PlayNow()}
        return simple[verb]
    if verb == "getmove":
        return _parse_getmove(rest)
    if verb == "enginecommand":
        if not rest:
            raise ProtocolError("enginecommand needs the command string")
        return EngineCommand(rest)
    return EngineCommand(text)


def _parse_getmove(rest: str) -> GetMove:
    tokens = rest.split()
    if not tokens:
        raise ProtocolError("getmove needs a position: getmove <fen> <maxtime> [<info> [<moreinfo>]]")
    if any("=" in t for t in tokens):
        return _parse_getmove_keys(tokens)
    if len(tokens) < 2:
        raise ProtocolError(f"getmove needs a FEN and maxtime, got {rest!r}")
    if len(tokens) > 4:
        raise ProtocolError(f"getmove takes at most 4 arguments (fen maxtime info moreinfo): {rest!r}")
    fen = tokens[0]
    maxtime = _seconds(tokens[1], "maxtime")
    info = _int32(tokens[2], "info") if len(tokens) > 2 else 0
    moreinfo = _int32(tokens[3], "moreinfo") if len(tokens) > 3 else 0
    return _checked_getmove(GetMove(fen, maxtime, info, moreinfo))


def _parse_getmove_keys(tokens: list[str]) -> GetMove:
    values: dict[str, str] = {}
    for t in tokens:
        key, eq, value = t.partition("=")
        key = key.lower()
        if not eq or key not in _GETMOVE_KEYS:
            raise ProtocolError(
                f"getmove: unexpected {t!r}; keys are {', '.join(_GETMOVE_KEYS)} (key=value, no spaces)"
            )
        if key in values:
            raise ProtocolError(f"getmove: {key} given twice")
        if not value:
            raise ProtocolError(f"getmove: {key}= has no value")
        values[key] = value
    if "fen" not in values:
        raise ProtocolError("getmove: fen= is missing")
    req = GetMove(
        fen=values["fen"],
        maxtime=_seconds(values["maxtime"], "maxtime") if "maxtime" in values else None,
        info=_int32(values["info"], "info") if "info" in values else 0,
        moreinfo=_int32(values["moreinfo"], "moreinfo") if "moreinfo" in values else 0,
        depth=_positive(values["depth"], "depth") if "depth" in values else None,
        nodes=_positive(values["nodes"], "nodes") if "nodes" in values else None,
    )
    return _checked_getmove(req)


def _checked_getmove(req: GetMove) -> GetMove:
    try:
        req.limit()
    except ValueError as exc:  # LimitError included
        raise ProtocolError(f"getmove: {exc}") from None
    return req


def _seconds(text: str, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ProtocolError(f"getmove: {what} {text!r} is not a number of seconds") from None
    if not math.isfinite(value) or value < 0 or value > MAX_MAXTIME:
        raise ProtocolError(f"getmove: {what} {text!r} must be a number of seconds in 0..{MAX_MAXTIME:g}")
    return value


def _int32(text: str, what: str) -> int:
    try:
        value = int(text, 0) if text.lower().startswith(("0x", "-0x")) else int(text)
    except ValueError:
        raise ProtocolError(f"getmove: {what} {text!r} is not an integer") from None
    if not -(2**31) <= value < 2**32:
        raise ProtocolError(f"getmove: {what} {value} does not fit in 32 bits")
    return value


def _positive(text: str, what: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise ProtocolError(f"getmove: {what} {text!r} is not a whole number") from None
    if value < 1:
        raise ProtocolError(f"getmove: {what} must be at least 1, got {value}")
    return value  # the upper bound is the Limit's (_checked_getmove names it)


# ---- time flags ----


@dataclass(frozen=True)
class Incremental:
    remaining: float
    increment: float


def decode_incremental(info: int, moreinfo: int) -> Incremental | None:
    """The Fischer clock packed in ``moreinfo`` when bits 2-3 of ``info`` select a unit, else None."""
    mode = (info >> CB_INCR_TIME_SHIFT) & 3
    if mode == 0:
        return None
    unit = INCR_UNITS[mode]
    packed = moreinfo & 0xFFFF_FFFF  # a C int: negative when the top bit is set
    return Incremental(((packed >> 16) & 0xFFFF) * unit, (packed & 0xFFFF) * unit)


def encode_incremental(remaining: float, increment: float) -> tuple[int, int]:
    """(info bits, moreinfo) for a Fischer clock, in the finest unit both times fit (16 bits each)."""
    if remaining < 0 or increment < 0:
        raise ValueError("clock times must be >= 0")
    for mode in (1, 2, 3):
        unit = INCR_UNITS[mode]
        r, i = round(remaining / unit), round(increment / unit)
        if r <= 0xFFFF and i <= 0xFFFF:
            break
    else:
        r, i = min(r, 0xFFFF), min(i, 0xFFFF)  # longer than 6553.5 s: clamp, the engine still moves
    return mode << CB_INCR_TIME_SHIFT, (r << 16) | i


def decode_limit(
    maxtime: float | None,
    info: int = 0,
    moreinfo: int = 0,
    *,
    depth: int | None = None,
    nodes: int | None = None,
) -> Limit:
    """getmove's time arguments as a search Limit.

    Incremental bits set: the packed clock (maxtime is then only CheckerBoard's hint).
    CB_EXACT_TIME: exactly maxtime.  Otherwise maxtime is an average (see
    AVERAGE_TIME_FACTOR).  ``depth``/``nodes`` (the key=value form) add to either.
    A maxtime of 0 without a clock is refused: the core would read it as "no limit".
    """
    clock = decode_incremental(info, moreinfo)
    if clock is not None:
        return Limit(depth=depth, nodes=nodes, time=clock.remaining, inc=clock.increment)
    if maxtime is None:
        return Limit(depth=depth, nodes=nodes)
    if maxtime <= 0:
        raise ProtocolError("maxtime must be > 0 (or give an incremental clock in info/moreinfo)")
    if info & CB_EXACT_TIME:
        return Limit(depth=depth, nodes=nodes, movetime=min(maxtime, MAX_SEARCH_SECONDS))
    # The average's hard budget is about 1.65 maxtimes: past the bound, a move time caps it.
    cap = MAX_SEARCH_SECONDS if maxtime * AVERAGE_TIME_FACTOR / 3 > MAX_SEARCH_SECONDS else None
    return Limit(depth=depth, nodes=nodes, time=maxtime * AVERAGE_TIME_FACTOR, moves_to_go=1, movetime=cap)


def encode_limit(limit: Limit) -> tuple[float | None, int, int]:
    """(maxtime, info, moreinfo) standing for ``limit``'s time (depth/nodes travel as keys)."""
    if limit.movetime is not None:
        return limit.movetime, CB_EXACT_TIME, 0
    if limit.time is not None:
        inc = limit.inc or 0.0
        bits, more = encode_incremental(limit.time, inc)
        hint = max(0.001, min(limit.time, limit.time / 30.0 + inc))
        return hint, bits, more
    return None, 0, 0


def format_getmove(fen: str, limit: Limit, *, reset: bool = False) -> str:
    """The getmove line for ``limit``: positional when only time is given, key=value otherwise."""
    maxtime, info, more = encode_limit(limit)
    if reset:
        info |= CB_RESET_MOVES
    if maxtime is not None and limit.depth is None and limit.nodes is None:
        return f"getmove {fen} {_num(maxtime)} {info} {more}"
    parts = [f"getmove fen={fen}"]
    if maxtime is not None:
        parts.append(f"maxtime={_num(maxtime)}")
    if info:
        parts.append(f"info={info}")
    if more:
        parts.append(f"moreinfo={more}")
    if limit.depth is not None:
        parts.append(f"depth={limit.depth}")
    if limit.nodes is not None:
        parts.append(f"nodes={limit.nodes}")
    return " ".join(parts)


def _num(x: float) -> str:
    return repr(float(x)) if x != int(x) else str(int(x))


# ---- enginecommand strings ----


@dataclass(frozen=True)
class NameCmd:
    pass


@dataclass(frozen=True)
class AboutCmd:
    pass


@dataclass(frozen=True)
class HelpCmd:
    pass


@dataclass(frozen=True)
class GetCmd:
    """``get <name>``: an option or attribute."""

    name: str


@dataclass(frozen=True)
class SetCmd:
    """``set <name> <value>``; the value is the rest of the line (paths may hold spaces)."""

    name: str
    value: str


@dataclass(frozen=True)
class GetMovelistCmd:
    fen: str


@dataclass(frozen=True)
class SetGamehistCmd:
    fen: str
    moves: tuple[str, ...] = ()


@dataclass(frozen=True)
class StaticEvalCmd:
    fen: str


@dataclass(frozen=True)
class UnknownCmd:
    """Free text the engine does not handle (the API's ``return 0``, reply ``?``)."""

    text: str


EngineRequest = (
    NameCmd | AboutCmd | HelpCmd | GetCmd | SetCmd | GetMovelistCmd | SetGamehistCmd | StaticEvalCmd
    | UnknownCmd
)


def parse_engine_command(text: str) -> EngineRequest:
    """Split an enginecommand string; ProtocolError when a known command lacks its argument."""
    stripped = text.strip()
    words = stripped.split()
    if not words:
        return UnknownCmd(stripped)
    head = words[0].lower()
    if len(words) == 1 and head in ("name", "about", "help"):
        bare: dict[str, NameCmd | AboutCmd | HelpCmd] = {
            "name": NameCmd(), "about": AboutCmd(), "help": HelpCmd()}
        return bare[head]
    if head == "staticevaluation":
        if len(words) != 2:
            raise ProtocolError("staticevaluation needs exactly one FEN: staticevaluation <fen>")
        return StaticEvalCmd(words[1])
    if head == "get":
        if len(words) < 2:
            raise ProtocolError("get needs a name: get <name>")
        name = words[1].lower()
        if name == "movelist":
            if len(words) != 3:
                raise ProtocolError("get movelist needs exactly one FEN: get movelist <fen>")
            return GetMovelistCmd(words[2])
        if len(words) != 2:
            return UnknownCmd(stripped)  # no get takes a value: not one this engine handles
        return GetCmd(name)
    if head == "set":
        if len(words) < 2:
            raise ProtocolError("set needs a name and a value: set <name> <value>")
        name = words[1].lower()
        if name == "gamehist":
            if len(words) < 3:
                raise ProtocolError("set gamehist needs a FEN: set gamehist <fen> [moves...]")
            moves = tuple(words[3:])
            for m in moves:
                try:
                    parse_move_text(m)
                except InvalidMoveError as exc:
                    raise ProtocolError(f"set gamehist: {exc}") from None
            return SetGamehistCmd(words[2], moves)
        if len(words) < 3:
            raise ProtocolError(f"set {name} needs a value: set {name} <value>")
        value = stripped.split(None, 2)[2].strip()
        return SetCmd(name, value)
    return UnknownCmd(stripped)


# ---- engine lines (engine -> client) ----


def escape(text: str) -> str:
    """Reply and status text on one line: backslash, newline and CR escaped."""
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")


_UNESCAPE = {"\\": "\\", "n": "\n", "r": "\r", '"': '"'}


def unescape(text: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            nxt = text[i + 1]
            out.append(_UNESCAPE.get(nxt, nxt))
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


@dataclass(frozen=True)
class Reply:
    """An enginecommand's answer: the API's int return and its reply string."""

    code: int
    text: str


@dataclass(frozen=True)
class Status:
    text: str


@dataclass(frozen=True)
class MoveLine:
    """getmove's answer: the move, the claimed result, the position after it, the final status."""

    move: str
    result: str
    fen: str
    status: str = ""

    @property
    def code(self) -> int:
        return RESULTS[self.result]


@dataclass(frozen=True)
class ErrorLine:
    message: str


@dataclass(frozen=True)
class Pong:
    pass


EngineLine = Reply | Status | MoveLine | ErrorLine | Pong


def format_reply(code: int, text: str) -> str:
    if code not in (0, 1):
        raise ValueError(f"an enginecommand returns 0 or 1, not {code}")
    return f"reply {code} {escape(text)}" if text else f"reply {code}"


def format_status(text: str) -> str:
    return f"status {escape(text)}" if text else "status"


def format_move(move: str, result: str, fen: str, status: str = "") -> str:
    if result not in RESULTS:
        raise ValueError(f"result must be one of {', '.join(RESULTS)}, not {result!r}")
    line = f"move {move} {result} {fen}"
    return f"{line} {escape(status)}" if status else line


def format_error(message: str) -> str:
    quoted = escape(message).replace('"', '\\"')
    return f'error message="{quoted}"'


PONG = "pong"

_ERROR_RE = re.compile(r'^error\s+message="((?:[^"\\]|\\.)*)"\s*$', re.DOTALL)


def parse_engine_line(line: str) -> EngineLine:
    """One engine line as a value; ProtocolError for anything the dialect does not define."""
    text = line.rstrip("\r")
    word, _, rest = text.partition(" ")
    if word == "pong" and not rest.strip():
        return Pong()
    if word == "reply":
        code_text, _, body = rest.partition(" ")
        if code_text not in ("0", "1"):
            raise ProtocolError(f"reply needs 0 or 1 first, got {line!r}")
        return Reply(int(code_text), unescape(body))
    if word == "status":
        return Status(unescape(rest))
    if word == "move":
        parts = rest.split(" ", 3)
        if len(parts) < 3:
            raise ProtocolError(f"move line needs a move, a result and a FEN: {line!r}")
        move, result, fen = parts[0], parts[1].upper(), parts[2]
        if result not in RESULTS:
            raise ProtocolError(f"move line: unknown result {parts[1]!r} in {line!r}")
        try:
            parse_move_text(move)
        except InvalidMoveError as exc:
            raise ProtocolError(f"move line: {exc}") from None
        return MoveLine(move, result, fen, unescape(parts[3]) if len(parts) > 3 else "")
    if word == "error":
        m = _ERROR_RE.match(text)
        if m:
            return ErrorLine(unescape(m.group(1)))
        return ErrorLine(unescape(rest.strip()))  # lenient: a bare error text still is an error
    raise ProtocolError(f"not a cb engine line: {line[:80]!r}")


# ---- status text (CheckerBoard's status bar) ----


@dataclass(frozen=True)
class StatusFields:
    depth: int
    seldepth: int
    score: str
    """``+0.12`` (men, side to move), ``win in 5`` or ``loss in 7`` (plies)."""
    time: float
    nodes: int
    nps: int
    pv: tuple[str, ...] = field(default=())
    machine_time: float = 0.0
    """Seconds of IBM 704 time (the 704 backend), shown when not 0."""


def status_text(f: StatusFields) -> str:
    text = f"depth {f.depth}/{f.seldepth} score {f.score} time {f.time:.3f} nodes {f.nodes} nps {f.nps}"
    if f.machine_time:
        text += f" 704-time {f.machine_time:.3f}"
    return f"{text} pv {' '.join(f.pv)}" if f.pv else text


_STATUS_RE = re.compile(
    r"depth (?P<depth>\d+)(?:/(?P<seldepth>\d+))?"
    r"(?: score (?P<score>[+-]?\d+(?:\.\d+)?|(?:win|loss) in \d+))?"
    r"(?: time (?P<time>\d+(?:\.\d+)?))?"
    r"(?: nodes (?P<nodes>\d+))?"
    r"(?: nps (?P<nps>\d+))?"
    r"(?: 704-time (?P<machine>\d+(?:\.\d+)?))?"
    r"(?: pv (?P<pv>.*))?"
)


def parse_status(text: str) -> dict[str, object]:
    """The fields of a status text written by ``status_text`` (an empty dict for free text).

    ``score`` comes back in men for the side to move, a win as +100 and a loss as -100
    (as samuel's Score.men); ``pv`` as a list of move texts.
    """
    m = _STATUS_RE.search(text)
    if not m:
        return {}
    out: dict[str, object] = {"depth": int(m["depth"])}
    if m["seldepth"]:
        out["seldepth"] = int(m["seldepth"])
    if m["score"]:
        s = m["score"]
        if s.startswith("win"):
            out["score"] = 100.0
            out["win_in"] = int(s.split()[-1])
        elif s.startswith("loss"):
            out["score"] = -100.0
            out["loss_in"] = int(s.split()[-1])
        else:
            out["score"] = float(s)
    if m["time"]:
        out["time"] = float(m["time"])
    if m["nodes"]:
        out["nodes"] = int(m["nodes"])
    if m["nps"]:
        out["nps"] = int(m["nps"])
    if m["pv"] is not None:
        out["pv"] = m["pv"].split()
    return out


# ---- get movelist ----


def piece_code(board: Board, square: int) -> int:
    """CheckerBoard's piece value on ``square`` (0 empty, 5/6 white/black man, 9/10 kings)."""
    p = board.piece_at(square)
    if p is None:
        return 0
    return (CB_BLACK if p.color == BLACK else CB_WHITE) | (CB_KING if p.king else CB_MAN)


def _crowns(color: int, square: int) -> bool:
    return (color == BLACK and square >= 29) or (color == WHITE and square <= 4)


@dataclass(frozen=True)
class MovelistEntry:
    """One move as CheckerBoard's CBmove carries it, squares in English numbering."""

    oldpiece: int
    newpiece: int
    from_square: int
    to_square: int
    jumps: tuple[tuple[int, int, int], ...] = ()
    """Per captured piece: (square landed on, square captured, captured piece)."""


def movelist_entries(board: Board) -> list[MovelistEntry]:
    out = []
    for m in board.legal_moves:
        old = piece_code(board, m.from_square)
        new = old
        if not old & CB_KING and _crowns(board.turn, m.to_square):
            new = (old & (CB_BLACK | CB_WHITE)) | CB_KING
        jumps = tuple(
            (landed, cap, piece_code(board, cap)) for landed, cap in zip(m.path[1:], m.captures, strict=False)
        )
        out.append(MovelistEntry(old, new, m.from_square, m.to_square, jumps))
    return out


def format_movelist(entries: list[MovelistEntry]) -> str:
    """``movelist <n>,<move>;<move>;...`` with each move
    ``<njumps>,<oldpiece>,<newpiece>,<from>,<to>[,<landed>,<captured>,<cappiece>]...;``,
    or ``movelist 0`` when there is no move (CheckerBoard's probe wants exactly that)."""
    if not entries:
        return "movelist 0"
    parts = []
    for e in entries:
        nums = [len(e.jumps), e.oldpiece, e.newpiece, e.from_square, e.to_square]
        for triple in e.jumps:
            nums.extend(triple)
        parts.append(",".join(str(n) for n in nums) + ";")
    return f"movelist {len(entries)}," + "".join(parts)


def parse_movelist(text: str) -> list[MovelistEntry]:
    """Read ``format_movelist``'s output back (for clients and tests); ProtocolError when malformed."""
    body = text.strip()
    if not body.startswith("movelist "):
        raise ProtocolError(f"not a movelist reply: {text[:60]!r}")
    body = body[len("movelist "):].strip()
    if body == "0":
        return []
    count_text, sep, rest = body.partition(",")
    if not sep or not count_text.isdigit():
        raise ProtocolError(f"movelist: bad move count in {text[:60]!r}")
    chunks = rest.split(";")
    if chunks[-1].strip():
        raise ProtocolError("movelist: the last move is not terminated by ';'")
    entries = []
    for chunk in chunks[:-1]:
        try:
            nums = [int(x) for x in chunk.split(",")]
        except ValueError:
            raise ProtocolError(f"movelist: non-numeric field in {chunk!r}") from None
        if len(nums) < 5 or len(nums) != 5 + 3 * nums[0]:
            raise ProtocolError(f"movelist: move {chunk!r} has the wrong number of fields")
        jumps = tuple((nums[i], nums[i + 1], nums[i + 2]) for i in range(5, len(nums), 3))
        entries.append(MovelistEntry(nums[1], nums[2], nums[3], nums[4], jumps))
    if len(entries) != int(count_text):
        raise ProtocolError(f"movelist: says {count_text} moves, lists {len(entries)}")
    return entries


def move_text(move: Move) -> str:
    """The move as the move line writes it: PDN, long form (every landing square) for multi-jumps."""
    return move.long
