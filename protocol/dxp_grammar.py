"""DXP (DamExchange) messages: parsing and formatting, no I/O.

DXP is a 10x10 protocol; English checkers use the adaptation pydraughts speaks:
a 32-character position and two-digit squares ``01``..``32``.  Colours are
``W`` (White) and ``Z`` (zwart, Black); Black moves first in English checkers.

Every message is 1..127 ASCII characters (codes 1..127), its first character
its type.  Field widths are exact: anything short, long or non-numeric where
digits belong raises ProtocolError naming the field.  See docs/protocols/dxp.md.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.board import Board
from engine.errors import FenError
from engine.move import Move
from engine.types import BLACK, WHITE, Color
from protocol.errors import ProtocolError
from protocol.position_strings import FRAMES, board_from, from_frame, pieces_of, to_frame

MAX_MESSAGE = 127
"""Longest message, NUL excluded (the spec's limit)."""
NAME_LEN = 32
VERSION = "01"
SQUARES = 32
JOCLY_POSITION_LEN = 50
"""JoclyBoard sends the 32 squares padded with blanks to the 10x10 length."""

PIECE_CHARS = "wzWZe"
"""DXP piece letters: white man, black (zwart) man, white king, black king, empty."""

# DXP piece letters <-> protocol.position_strings letters (``b`` for black there).
_TO_FRAMES = {"w": "w", "z": "b", "W": "W", "Z": "B", "e": "e"}
_FROM_FRAMES = {v: k for k, v in _TO_FRAMES.items()}

# GAMEEND reasons (from the sender's point of view) and stop codes.
REASON_NONE = 0
REASON_I_LOSE = 1
REASON_DRAW = 2
REASON_I_WIN = 3
STOP_NEXT_GAME = 0
STOP_ALL = 1

# GAMEACC codes.
ACCEPT = 0
ACCEPT_BAD_VERSION = 1
ACCEPT_NOT_THIS_GAME = 2
ACCEPT_NO_GAMES = 3

# BACKACC codes.
BACK_YES = 0
BACK_NOT_SUPPORTED = 1
BACK_CONTINUE = 2


@dataclass(frozen=True)
class Chat:
    text: str


@dataclass(frozen=True)
class Position:
    """A GAMEREQ position as sent: side to move and 32 DXP piece letters, square 1 first."""

    turn: Color
    pieces: str


@dataclass(frozen=True)
class GameReq:
    name: str
    """The initiator's name, trailing blanks removed."""
    follower: Color
    """The colour the follower (the receiver) plays."""
    minutes: int
    """Thinking time per player for the game, 0..999 (``000``: none given)."""
    moves: int
    """Moves of the time control, 0..999 (``000``: no limit)."""
    position: Position | None = None
    """None: the start position (``A``)."""
    version: str = VERSION


@dataclass(frozen=True)
class GameAcc:
    name: str
    code: int


@dataclass(frozen=True)
class MoveMsg:
    seconds: int
    """Time used, informational (0..9999)."""
    from_square: int
    to_square: int
    captures: tuple[int, ...] = ()


@dataclass(frozen=True)
class GameEnd:
    reason: int = REASON_NONE
    stop: int = STOP_NEXT_GAME


@dataclass(frozen=True)
class BackReq:
    move_number: int
    turn: Color


@dataclass(frozen=True)
class BackAcc:
    code: int


Message = Chat | GameReq | GameAcc | MoveMsg | GameEnd | BackReq | BackAcc


class VersionError(ProtocolError):
    """A GAMEREQ of a protocol version other than 01 (answered with GAMEACC code 1)."""

    def __init__(self, version: str, name: str) -> None:
        super().__init__(f"GAMEREQ version {version!r} is not supported (expected {VERSION})")
        self.version = version
        self.name = name


# ---------------------------------------------------------------------------
# Parsing.


def decode_frame(frame: bytes) -> str:
    """A received frame as text: ProtocolError for a byte outside 1..127 or a bad length."""
    for i, b in enumerate(frame):
        if not 1 <= b <= 127:
            raise ProtocolError(f"byte 0x{b:02x} at offset {i} is not DXP text (ASCII 1..127)")
    text = frame.decode("ascii")
    _check_length(text)
    return text


def _check_length(text: str) -> None:
    if not 1 <= len(text) <= MAX_MESSAGE:
        raise ProtocolError(f"a DXP message has 1..{MAX_MESSAGE} characters, got {len(text)}")


def _digits(text: str, start: int, width: int, field: str) -> int:
    part = text[start : start + width]
    if len(part) != width or not (part.isascii() and part.isdigit()):
        raise ProtocolError(f"{field}: expected {width} digits at offset {start}, got {part!r}")
    return int(part)


def _square(text: str, start: int, field: str) -> int:
    s = _digits(text, start, 2, field)
    if not 1 <= s <= SQUARES:
        raise ProtocolError(f"{field}: square {s:02d} at offset {start} is outside 01..{SQUARES}")
    return s


def _color(text: str, at: int, field: str) -> Color:
    ch = text[at : at + 1]
    if ch == "W":
        return WHITE
    if ch == "Z":
        return BLACK
    raise ProtocolError(f"{field}: expected W or Z at offset {at}, got {ch!r}")


def _exact_length(text: str, length: int, what: str) -> None:
    if len(text) != length:
        raise ProtocolError(f"{what}: expected {length} characters, got {len(text)}")


def _code(text: str, at: int, allowed: str, field: str) -> int:
    ch = text[at : at + 1]
    if len(ch) != 1 or ch not in allowed:
        raise ProtocolError(f"{field}: expected one of {', '.join(allowed)} at offset {at}, got {ch!r}")
    return int(ch)


def _name(text: str, start: int, field: str) -> str:
    part = text[start : start + NAME_LEN]
    if len(part) != NAME_LEN:
        raise ProtocolError(f"{field}: expected {NAME_LEN} characters (blank padded), got {len(part)}")
    return part.rstrip(" ")


def parse_message(text: str) -> Message:
    """One message (without its NUL); ProtocolError naming the bad field."""
    if not isinstance(text, str):
        raise ProtocolError(f"a DXP message is text, got {type(text).__name__}")
    _check_length(text)
    for i, ch in enumerate(text):
        if not 1 <= ord(ch) <= 127:
            raise ProtocolError(f"character {ch!r} at offset {i} is not DXP text (ASCII 1..127)")
    kind = text[0]
    if kind == "C":
        if len(text) < 2:
            raise ProtocolError("CHAT: the text is empty (1..126 characters expected)")
        return Chat(text[1:])
    if kind == "R":
        return _parse_gamereq(text)
    if kind == "A":
        _exact_length(text, 34, "GAMEACC")
        return GameAcc(_name(text, 1, "GAMEACC name"), _code(text, 33, "0123", "GAMEACC acceptance code"))
    if kind == "M":
        return _parse_move(text)
    if kind == "E":
        _exact_length(text, 3, "GAMEEND")
        return GameEnd(_code(text, 1, "0123", "GAMEEND reason"), _code(text, 2, "01", "GAMEEND stop code"))
    if kind == "B":
        _exact_length(text, 5, "BACKREQ")
        number = _digits(text, 1, 3, "BACKREQ move number")
        if number == 0:
            raise ProtocolError("BACKREQ move number: 000 (moves are numbered from 001)")
        return BackReq(number, _color(text, 4, "BACKREQ colour to move"))
    if kind == "K":
        _exact_length(text, 2, "BACKACC")
        return BackAcc(_code(text, 1, "012", "BACKACC acceptance code"))
    raise ProtocolError(f"unknown message type {kind!r} (expected one of C R A M E B K)")


def _parse_gamereq(text: str) -> GameReq:
    version = text[1:3]
    if len(version) != 2 or not (version.isascii() and version.isdigit()):
        raise ProtocolError(f"GAMEREQ version: expected 2 digits at offset 1, got {version!r}")
    if version != VERSION:
        # Read the name if it is there, so the refusal can say whom it refuses.
        raise VersionError(version, text[3:35].rstrip(" "))
    if len(text) < 43:
        raise ProtocolError(f"GAMEREQ: expected at least 43 characters, got {len(text)}")
    name = _name(text, 3, "GAMEREQ initiator name")
    follower = _color(text, 35, "GAMEREQ follower colour")
    minutes = _digits(text, 36, 3, "GAMEREQ thinking time")
    moves = _digits(text, 39, 3, "GAMEREQ number of moves")
    start = text[42]
    if start == "A":
        _exact_length(text, 43, "GAMEREQ with position A")
        return GameReq(name, follower, minutes, moves, None, version)
    if start != "B":
        raise ProtocolError(f"GAMEREQ starting position: expected A or B at offset 42, got {start!r}")
    turn = _color(text, 43, "GAMEREQ colour to move")
    board = text[44:]
    if len(board) == JOCLY_POSITION_LEN and board[SQUARES:].strip(" ") == "":
        board = board[:SQUARES]
    if len(board) == JOCLY_POSITION_LEN:
        raise ProtocolError("GAMEREQ position: 50 squares is a 10x10 board; this engine plays 8x8 (32)")
    if len(board) != SQUARES:
        raise ProtocolError(f"GAMEREQ position: expected {SQUARES} squares at offset 44, got {len(board)}")
    for i, ch in enumerate(board):
        if ch not in PIECE_CHARS:
            raise ProtocolError(
                f"GAMEREQ position: {ch!r} for square {i + 1} (offset {44 + i}) is not one of w z W Z e"
            )
    return GameReq(name, follower, minutes, moves, Position(turn, board), version)


def _parse_move(text: str) -> MoveMsg:
    if len(text) < 11:
        raise ProtocolError(f"MOVE: expected at least 11 characters, got {len(text)}")
    seconds = _digits(text, 1, 4, "MOVE time")
    frm = _square(text, 5, "MOVE from field")
    to = _square(text, 7, "MOVE to field")
    n = _digits(text, 9, 2, "MOVE number captured")
    if n > 20:
        raise ProtocolError(f"MOVE number captured: {n} is more than 20")
    _exact_length(text, 11 + 2 * n, f"MOVE with {n} captures")
    caps = tuple(_square(text, 11 + 2 * i, f"MOVE captured piece {i + 1}") for i in range(n))
    if len(set(caps)) != n:
        raise ProtocolError(f"MOVE: a captured square is listed twice in {caps}")
    return MoveMsg(seconds, frm, to, caps)


# ---------------------------------------------------------------------------
# Formatting.


def _ascii(text: str) -> str:
    """Text as DXP can carry it: printable-ish ASCII, nothing that is NUL."""
    return "".join(ch if 32 <= ord(ch) <= 126 else "?" for ch in text)


def pad_name(name: str) -> str:
    """A name as DXP sends it: exactly 32 characters, blank padded, not starting with a blank."""
    return _ascii(name.strip())[:NAME_LEN].ljust(NAME_LEN)


def _color_char(color: Color) -> str:
    return "W" if color == WHITE else "Z"


def _field(value: int, width: int, what: str) -> str:
    if not 0 <= value < 10**width:
        raise ValueError(f"{what} {value} does not fit {width} digits")
    return f"{value:0{width}d}"


def format_message(msg: Message) -> str:
    """The message text (without NUL); ValueError for a field out of range."""
    if isinstance(msg, Chat):
        text = _ascii(msg.text)[: MAX_MESSAGE - 1]
        return "C" + (text or " ")
    if isinstance(msg, GameReq):
        out = "R" + msg.version + pad_name(msg.name) + _color_char(msg.follower)
        out += _field(msg.minutes, 3, "minutes") + _field(msg.moves, 3, "moves")
        if msg.position is None:
            return out + "A"
        pieces = msg.position.pieces
        if len(pieces) != SQUARES or any(ch not in PIECE_CHARS for ch in pieces):
            raise ValueError(f"a position is {SQUARES} letters of {PIECE_CHARS}, got {pieces!r}")
        return out + "B" + _color_char(msg.position.turn) + pieces
    if isinstance(msg, GameAcc):
        return "A" + pad_name(msg.name) + _field(msg.code, 1, "acceptance code")
    if isinstance(msg, MoveMsg):
        for s in (msg.from_square, msg.to_square, *msg.captures):
            if not 1 <= s <= SQUARES:
                raise ValueError(f"square {s} is outside 1..{SQUARES}")
        return (
            "M" + _field(min(msg.seconds, 9999), 4, "time") + f"{msg.from_square:02d}{msg.to_square:02d}"
            + _field(len(msg.captures), 2, "number captured") + "".join(f"{s:02d}" for s in msg.captures)
        )
    if isinstance(msg, GameEnd):
        return "E" + _field(msg.reason, 1, "reason") + _field(msg.stop, 1, "stop code")
    if isinstance(msg, BackReq):
        if not 1 <= msg.move_number <= 999:
            raise ValueError(f"move number {msg.move_number} is outside 1..999")
        return f"B{msg.move_number:03d}{_color_char(msg.turn)}"
    if isinstance(msg, BackAcc):
        return "K" + _field(msg.code, 1, "acceptance code")
    raise TypeError(f"not a DXP message: {msg!r}")


# ---------------------------------------------------------------------------
# Positions and moves against the engine's Board.


def board_of(position: Position | None, frame: str = "literal") -> Board:
    """The Board a GAMEREQ sets up; ProtocolError when the position cannot exist.

    ``frame`` says how the 32 letters are laid out (protocol.position_strings); the colour
    to move is always in real colours (pydraughts too sends it that way).
    """
    if frame not in FRAMES:
        raise ValueError(f"unknown frame {frame!r}; choose from {', '.join(FRAMES)}")
    if position is None:
        return Board()
    pieces = tuple(_TO_FRAMES[ch] for ch in position.pieces)
    try:
        return board_from(position.turn, from_frame(pieces, frame))
    except FenError as exc:
        raise ProtocolError(f"GAMEREQ position cannot be set up: {exc}") from None


def position_of(board: Board, frame: str = "literal") -> Position:
    """The GAMEREQ position of ``board`` (its current position) written in ``frame``."""
    pieces = to_frame(pieces_of(board), frame)
    return Position(board.turn, "".join(_FROM_FRAMES[p] for p in pieces))


def move_message(move: Move, seconds: int = 0) -> MoveMsg:
    """The MOVE for an engine move: from, to and the captured squares only."""
    return MoveMsg(max(0, min(seconds, 9999)), move.path[0], move.path[-1], tuple(move.captures))


class IllegalMoveMessage(ProtocolError):
    """A MOVE that names no legal move of the position."""


def find_move(board: Board, msg: MoveMsg) -> Move:
    """The legal move a MOVE names: same from, to and set of captured squares.

    Moves that share all three end in the same position (a king's round trip
    taken in two directions), so the first is as good as any.
    """
    caps = frozenset(msg.captures)
    for m in board.legal_moves:
        if (m.path[0] == msg.from_square and m.path[-1] == msg.to_square
                and len(m.captures) == len(msg.captures) and frozenset(m.captures) == caps):
            return m
    if msg.captures:
        desc = f"{msg.from_square}x{msg.to_square} capturing {','.join(map(str, msg.captures))}"
    else:
        desc = f"{msg.from_square}-{msg.to_square}"
    raise IllegalMoveMessage(f"illegal move {desc} in {board.fen()}")
