"""The Hub dialect's grammar: pure parsing and formatting, no I/O.

Lines look like ``<command> <arg>=<val> <arg>=<val> ...``; a value may be
double-quoted (no escapes: it ends at the next ``"``) and an argument without
``=`` is a flag.  Everything here raises ProtocolError with a message naming
what was wrong, so a session can answer ``error message="..."`` and go on.

English adaptation of Scan's 10x10 Hub: positions are the side letter plus 32
squares, moves use squares 1..32 (``11-15``, captures ``from x to x captured...``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from engine.board import Board
from engine.errors import SamuelError
from engine.limits import MAX_DEPTH, MAX_MOVES_TO_GO, MAX_NODES, MAX_SECONDS, Limit
from engine.move import Move
from engine.search import SearchInfo
from engine.types import BLACK, WHITE
from protocol.errors import ProtocolError
from protocol.position_strings import board_from, from_frame, pieces_of, swap_color, to_frame

HUB_FRAMES = ("auto", "literal", "pydraughts")

PYDRAUGHTS_START = "W" + "b" * 12 + "e" * 8 + "w" * 12
"""pydraughts' English start position, written in its rotated frame (side letter swapped too)."""
LITERAL_START = "B" + "b" * 12 + "e" * 8 + "w" * 12


_PIECE_CHARS = frozenset("bwBWe")


# ---------------------------------------------------------------- lines


@dataclass(frozen=True)
class HubLine:
    """One parsed line: its command and arguments (a flag maps to None)."""

    command: str
    args: dict[str, str | None] = field(default_factory=dict)
    strays: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Bare tokens starting with a digit, by the argument with a value they follow
    (``moves=11-15 24-20`` without quotes leaves ``24-20`` here): reading that argument is an
    error naming them, where ignoring them would quietly drop moves."""

    def has(self, name: str) -> bool:
        return name in self.args

    def value(self, name: str) -> str | None:
        """The value of ``name``, None when absent; ProtocolError when given as a bare flag or
        followed by stray moves."""
        if name not in self.args:
            return None
        v = self.args[name]
        if v is None:
            raise ProtocolError(f"{self.command}: {name} needs a value ({name}=...)")
        stray = self.strays.get(name)
        if stray:
            # Read on, the line would mean only its first move: the rest would be dropped unseen.
            listed = " ".join(stray)
            if name == "moves" or _all_moves(v):
                fix = f'quote the whole list: {name}="{v} {listed}"'
            elif _all_moves(listed):
                fix = f'moves go in one quoted value: moves="{listed}"'
            else:
                fix = "a value with spaces must be quoted"
            raise ProtocolError(f"{self.command}: stray tokens after {name}=: {listed}; {fix}")
        return v

    def require(self, name: str) -> str:
        v = self.value(name)
        if v is None:
            raise ProtocolError(f"{self.command}: missing {name}=...")
        return v


def _is_blank(ch: str) -> bool:
    return ch in " \t"


_MOVE_TOKEN = re.compile(r"\d{1,2}(?:[-xX]\d{1,2})+")

_STRAY = re.compile(r"\d")
"""A bare token starting with a digit (``24-20``, ``28x19x23``, ``2``) is no flag: Hub flags are
names.  It is what is left of a value with spaces sent without quotes."""


def _all_moves(text: str) -> bool:
    tokens = text.split()
    return bool(tokens) and all(_MOVE_TOKEN.fullmatch(t) for t in tokens)

_ID = re.compile(r'[^ \t="]*')
"""A name or bare value, as Scan reads one: anything printable that is not blank, '=' or '"'.
The pattern admits control characters too: ``tokenize`` refuses those first, and ``_plain`` checks
``isprintable`` (a long game's ``pos`` line is read at C speed, not a character at a time)."""


def _check_controls(text: str) -> None:
    if text.replace("\t", " ").isprintable():
        return  # the usual case, checked in C: a long game's pos line is tens of kilobytes
    for i, ch in enumerate(text):
        if not ch.isprintable() and not _is_blank(ch):
            raise ProtocolError(f"control character 0x{ord(ch):02x} at column {i + 1}")


def _read_id(text: str, i: int) -> tuple[str, int]:
    m = _ID.match(text, i)
    assert m is not None  # the pattern matches the empty string too
    return m.group(), m.end()


def tokenize(text: str) -> HubLine | None:
    """Parse one line; None for a blank line.  ProtocolError for broken syntax."""
    _check_controls(text)
    n = len(text)
    i = 0
    while i < n and _is_blank(text[i]):
        i += 1
    if i == n:
        return None
    command, i = _read_id(text, i)
    if not command:
        raise ProtocolError(f"line must start with a command, found {text[i]!r} at column {i + 1}")
    args: dict[str, str | None] = {}
    strays: dict[str, tuple[str, ...]] = {}
    last = ""  # the last argument with a value: a stray token is charged to it
    while True:
        start = i
        while i < n and _is_blank(text[i]):
            i += 1
        if i == n:
            break
        if i == start:
            raise ProtocolError(f"{command}: expected a space before column {i + 1}")
        name, i = _read_id(text, i)
        if not name:
            raise ProtocolError(f"{command}: expected an argument name at column {i + 1}, found {text[i]!r}")
        if i < n and text[i] == "=":
            i += 1
            if i < n and text[i] == '"':
                end = text.find('"', i + 1)
                if end < 0:
                    raise ProtocolError(f"{command}: unterminated quoted value for {name}")
                value = text[i + 1 : end]
                i = end + 1
            else:
                value, i = _read_id(text, i)
                if not value:
                    found = "end of line" if i == n else repr(text[i])
                    raise ProtocolError(
                        f"{command}: {name}= has no value (found {found}); quote empty values"
                    )
            args[name] = value
            last = name
        elif last and _STRAY.match(name):
            strays[last] = (*strays.get(last, ()), name)
        else:
            args[name] = None
    return HubLine(command, args, strays)


def _plain(value: str) -> bool:
    return bool(value) and value.isprintable() and _ID.fullmatch(value) is not None


def quote(value: str) -> str:
    """A value as Hub writes it: bare when it is a plain name, else double-quoted.

    Hub quotes have no escapes, so a ``"`` inside becomes ``'`` and control characters become spaces.
    """
    if _plain(value):
        return value
    clean = "".join(ch if ch.isprintable() else " " for ch in value).replace('"', "'")
    return f'"{clean}"'


def format_line(
    command: str,
    args: Mapping[str, object | None] | Iterable[tuple[str, object | None]] = (),
    *,
    always_quote: Iterable[str] = (),
) -> str:
    """``command k=v ...``; a None value writes a bare flag; keys in ``always_quote`` are quoted."""
    forced = set(always_quote)
    pairs = args.items() if isinstance(args, Mapping) else args
    parts = [command]
    for key, value in pairs:
        if value is None:
            parts.append(key)
            continue
        text = quote(str(value))
        if key in forced and not text.startswith('"'):
            text = f'"{text}"'
        parts.append(f"{key}={text}")
    return " ".join(parts)


def error_line(message: str) -> str:
    return format_line("error", [("message", message)], always_quote=["message"])


# ---------------------------------------------------------------- moves


def _square(token: str, text: str) -> int:
    if not token.isdigit() or len(token) > 2:
        raise ProtocolError(f"bad square {token!r} in move {text!r}")
    s = int(token)
    if not 1 <= s <= 32:
        raise ProtocolError(f"square {s} out of range 1..32 in move {text!r}")
    return s


def parse_move(board: Board, text: str) -> Move:
    """The legal move that Hub text names in ``board``.

    Quiet ``32-28``; capture ``from x to x captured x ...`` with the captured
    squares in any order.  ``from x to`` alone is accepted when only one capture fits.
    """
    t = text.strip()
    if "-" in t and "x" not in t.lower():
        parts = t.split("-")
        if len(parts) != 2:
            raise ProtocolError(f"bad move {text!r}: a quiet move is from-to, e.g. 11-15")
        a, b = (_square(p, text) for p in parts)
        for m in board.legal_moves:
            if not m.captures and m.path == (a, b):
                return m
        raise ProtocolError(f"illegal move {text!r} in {board.fen()}{_hint(board)}")
    parts = t.lower().split("x")
    if len(parts) < 2:
        raise ProtocolError(f"bad move {text!r}: expected e.g. 11-15 or 28x19x23")
    squares = [_square(p, text) for p in parts]
    start, end, taken = squares[0], squares[1], squares[2:]
    if len(set(taken)) != len(taken):
        raise ProtocolError(f"bad move {text!r}: a captured square is listed twice")
    cands = [
        m for m in board.legal_moves
        if m.captures and m.path[0] == start and m.path[-1] == end
        and (not taken or sorted(m.captures) == sorted(taken))
    ]
    if not cands:
        raise ProtocolError(f"illegal move {text!r} in {board.fen()}{_hint(board)}")
    if len({frozenset(m.captures) for m in cands}) > 1:
        options = ", ".join(format_move(m) for m in cands)
        raise ProtocolError(f"move {text!r} is ambiguous in {board.fen()}: {options}")
    return cands[0]


def _hint(board: Board) -> str:
    legal = board.legal_moves
    if not legal:
        return "; there is no legal move"
    return f"; legal moves: {' '.join(format_move(m) for m in legal)}"


def format_move(move: Move) -> str:
    """Hub text: ``32-28`` or ``from x to x captured...`` (captured squares ascending)."""
    if not move.captures:
        return f"{move.path[0]}-{move.path[-1]}"
    return "x".join(str(s) for s in (move.path[0], move.path[-1], *sorted(move.captures)))


def parse_moves(board: Board, text: str) -> list[Move]:
    """Play the space-separated Hub moves ``text`` on ``board``; ProtocolError names the failing move."""
    played: list[Move] = []
    for i, token in enumerate(text.split(), 1):
        try:
            m = parse_move(board, token)
        except ProtocolError as exc:
            raise ProtocolError(f"moves: move {i} ({token}): {exc}") from None
        board.push(m)
        played.append(m)
    return played


def format_pv(board: Board, pv: Sequence[Move]) -> str:
    """The PV in Hub form, up to its first move that is not legal in sequence."""
    return " ".join(format_move(m) for m in pv[:board.legal_prefix(pv)])


# ---------------------------------------------------------------- positions


def parse_position_string(text: str, frame: str) -> Board:
    """A 33-character position (side ``W``/``B``, 32 of ``wbWBe``) in ``literal``/``pydraughts`` frame."""
    t = text.strip()
    if len(t) != 33:
        extra = " (a 10x10 position? this engine plays 8x8 English checkers)" if len(t) == 51 else ""
        raise ProtocolError(
            f"position must be 33 characters (side W/B + 32 squares), got {len(t)}{extra}"
        )
    side = t[0]
    if side not in "WB":
        raise ProtocolError(f"position must start with the side to move W or B, got {side!r}")
    for i, ch in enumerate(t[1:], 1):
        if ch not in _PIECE_CHARS:
            raise ProtocolError(f"bad piece {ch!r} at square {i} of the position (use w b W B e)")
    turn = BLACK if side == "B" else WHITE
    pieces = tuple(t[1:])
    if frame == "pydraughts":
        pieces = from_frame(pieces, frame)
        turn = swap_color(turn)
    elif frame != "literal":
        raise ProtocolError(f"unknown frame {frame!r}; choose from {', '.join(HUB_FRAMES)}")
    try:
        return board_from(turn, pieces)
    except SamuelError as exc:
        raise ProtocolError(f"bad position {t!r}: {exc}") from None


def _base_board(pos: str, frame: str) -> Board:
    if ":" in pos:
        try:
            return Board(pos)
        except SamuelError as exc:
            raise ProtocolError(f"bad FEN position: {exc}") from None
    return parse_position_string(pos, frame)


def read_position(pos: str, moves: str | None, frame: str) -> tuple[Board, str]:
    """The board ``pos`` plus ``moves`` describe, and the frame it was read in.

    ``pos`` is a 33-character string or a FEN (``B:W...:B...``, always literal).
    The ``auto`` frame: pydraughts' start string ``Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww``
    is its frame; otherwise, with moves, the literal reading is tried and the
    pydraughts frame is used when the moves do not replay legally; without
    moves the string is literal.
    """
    if frame not in HUB_FRAMES:
        raise ProtocolError(f"unknown frame {frame!r}; choose from {', '.join(HUB_FRAMES)}")
    text = pos.strip()
    move_text = moves or ""
    if ":" in text:
        board = _base_board(text, "literal")
        parse_moves(board, move_text)
        return board, "literal"
    if frame != "auto":
        board = parse_position_string(text, frame)
        parse_moves(board, move_text)
        return board, frame
    if text == PYDRAUGHTS_START:
        board = parse_position_string(text, "pydraughts")
        parse_moves(board, move_text)
        return board, "pydraughts"
    if not move_text.strip():
        return parse_position_string(text, "literal"), "literal"
    try:
        board = parse_position_string(text, "literal")
        parse_moves(board, move_text)
        return board, "literal"
    except ProtocolError as literal_error:
        try:
            board = parse_position_string(text, "pydraughts")
            parse_moves(board, move_text)
        except ProtocolError:
            raise literal_error from None
        return board, "pydraughts"


def format_position(board: Board, frame: str = "literal") -> str:
    """``board`` (without its history) as a 33-character string in ``frame``."""
    if frame not in ("literal", "pydraughts"):
        raise ProtocolError(f"cannot write a position in frame {frame!r}")
    turn = board.turn
    pieces = pieces_of(board)
    if frame == "pydraughts":
        pieces = to_frame(pieces, frame)
        turn = swap_color(turn)
    return ("B" if turn == BLACK else "W") + "".join(pieces)


# ---------------------------------------------------------------- levels


def _number(line: HubLine, name: str, *, integer: bool, low: float, high: float) -> float | int:
    text = line.require(name)
    try:
        value: float | int = int(text) if integer else float(text)
    except ValueError:
        kind = "a whole number" if integer else "a number of seconds"
        raise ProtocolError(f"level: {name}={text!r} is not {kind}") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise ProtocolError(f"level: {name}={text!r} is not a finite number")
    if not low <= value <= high:
        raise ProtocolError(f"level: {name}={text} is outside {low:g}..{high:g}")
    return value


def parse_level(line: HubLine) -> Limit:
    """A ``level`` line as a Limit.

    ``depth=``, ``nodes=``, ``move-time=``, ``[moves=] time= [inc=]`` or
    ``infinite``.  Hub adds the increment before the move, so ``time`` + ``inc``
    is the clock for this move.  Forms may be combined (the first limit reached
    ends the search), except ``infinite``.
    """
    known = {"depth", "nodes", "move-time", "moves", "time", "inc", "infinite"}
    given = known & set(line.args)
    if not given:
        raise ProtocolError("level needs one of depth=, nodes=, move-time=, [moves=] time= [inc=], infinite")
    if "infinite" in given:
        if line.args["infinite"] is not None:
            raise ProtocolError("level: infinite is a flag and takes no value")
        if len(given) > 1:
            raise ProtocolError("level: infinite cannot be combined with other limits")
        return Limit()
    if ("moves" in given or "inc" in given) and "time" not in given:
        raise ProtocolError("level: moves= and inc= need time=")
    depth = nodes = moves = None
    movetime = clock = inc = None
    if "depth" in given:
        depth = int(_number(line, "depth", integer=True, low=1, high=MAX_DEPTH))
    if "nodes" in given:
        nodes = int(_number(line, "nodes", integer=True, low=1, high=MAX_NODES))
    if "move-time" in given:
        movetime = float(_number(line, "move-time", integer=False, low=0, high=MAX_SECONDS))
        if movetime <= 0:
            raise ProtocolError("level: move-time must be more than 0 seconds")
    if "time" in given:
        clock = float(_number(line, "time", integer=False, low=0, high=MAX_SECONDS))
    if "inc" in given:
        inc = float(_number(line, "inc", integer=False, low=0, high=MAX_SECONDS))
    if "moves" in given:
        moves = int(_number(line, "moves", integer=True, low=1, high=MAX_MOVES_TO_GO))
    if clock is not None and inc is not None:
        clock += inc  # Hub's time= leaves out the increment this move also earns
        if clock > MAX_SECONDS:
            raise ProtocolError(f"level: time= plus inc= must be at most {MAX_SECONDS:g} seconds, "
                                f"got {clock:g}")
    return Limit(depth=depth, nodes=nodes, movetime=movetime, time=clock, inc=inc, moves_to_go=moves)


def _seconds(x: float) -> str:
    return f"{x:.3f}".rstrip("0").rstrip(".") or "0"


def format_level(limit: Limit) -> str:
    """A ``level`` line for ``limit`` (the clock written without the increment, as Hub expects)."""
    args: list[tuple[str, object | None]] = []
    if limit.time is not None:
        # A clock below the increment (a move overran it within the referee's margin) cannot be
        # written as time - inc: send a smaller increment so that time + inc is still the clock.
        inc = min(limit.inc or 0.0, limit.time)
        if limit.moves_to_go is not None:
            args.append(("moves", limit.moves_to_go))
        args.append(("time", _seconds(max(0.0, limit.time - inc))))
        if inc:
            args.append(("inc", _seconds(inc)))
    if limit.movetime is not None:
        args.append(("move-time", _seconds(limit.movetime)))
    if limit.depth is not None:
        args.append(("depth", limit.depth))
    if limit.nodes is not None:
        args.append(("nodes", limit.nodes))
    if not args:
        args.append(("infinite", None))
    return format_line("level", args)


# ---------------------------------------------------------------- search output


def score_men(info: SearchInfo) -> float:
    """The score in men; a win (loss) in N plies is 100 - N/100 (its negation), as pydraughts reads it."""
    plies = info.score.plies_to_end
    if plies is not None:
        v = 100.0 - min(plies, 999) / 100.0
        return v if info.score.is_win else -v
    return info.score.men


def format_info(board: Board, info: SearchInfo) -> str:
    """``info depth=... mean-depth=... score=... nodes=... time=... nps=... pv="..."`` (every token k=v),
    with ``book=true`` when the move came from the opening book (depth and nodes 0)."""
    return format_line(
        "info",
        [
            ("depth", info.depth),
            ("mean-depth", f"{float(info.depth):.1f}"),
            ("seldepth", info.seldepth),
            ("score", f"{score_men(info):.2f}"),
            ("nodes", info.nodes),
            ("time", f"{info.time:.3f}"),
            ("nps", f"{info.nps / 1e6:.1f}"),
            *([("704-time", f"{info.machine_time:.3f}")] if info.machine_time else []),
            ("pv", format_pv(board, info.pv)),
            *([("book", "true")] if info.book else []),
        ],
        always_quote=["pv"],
    )


def format_done(board: Board, move: Move, ponder: Move | None = None) -> str:
    """``done move=<m> [ponder=<m>]``, ``move=`` first; the ponder move only if legal after ``move``."""
    args: list[tuple[str, object | None]] = [("move", format_move(move))]
    if ponder is not None:
        after = board.copy()
        after.push(move)
        if after.is_legal(ponder):
            args.append(("ponder", format_move(ponder)))
    return format_line("done", args)
