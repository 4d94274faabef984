"""Reading and writing English-checkers games in PDN (Portable Draughts Notation).

Reading is forgiving in the ways real files differ and strict about what the
moves mean: every game is replayed on a :class:`~engine.board.Board`, so a
game that reads is a game that was played legally.

* tags ``[Name "value"]`` (``\\"`` and ``\\\\`` escapes), a ``FEN`` tag sets up
  the start (``SetUp`` is not required), ``GameType`` must be 21 (English);
* movetext: move numbers ``1.``, ``1...``, ``1. ...`` (ignored: the board knows
  whose turn it is), moves ``11-15``, ``22x15``, ``15x31`` or ``15x24x31``
  (also ``:``), a multi-jump split into segments ``11x18 18x25`` is joined;
* skipped: comments ``{...}`` (across lines) and ``;`` to end of line,
  variations ``(...)`` (nested), NAGs ``$n``, ``!``/``?`` suffixes, lines
  starting with ``%``;
* a result ``1-0`` (Black, the first player, won), ``0-1``, ``1/2-1/2`` or
  ``*`` ends the game; a new tag section after movetext also starts a new game;
* a ``Termination`` tag is read into ``engine.termination.Termination``
  (``PdnGame.termination``), in its words or the words older files wrote.

Files are read a line at a time and games are yielded one by one, so a large
file is never held in memory as boards.  Bytes are decoded as UTF-8, falling
back to Latin-1 line by line.

In strict mode (the default) the first problem raises :class:`PdnError` naming
the source, the game number, the line of its first tag, the move and the
reason.  With ``strict=False`` the message is stored in ``PdnGame.error``, the
game keeps the moves before the problem, and reading carries on.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import IO

from engine.board import Board
from engine.errors import AmbiguousMoveError, FenError, IllegalMoveError, InvalidMoveError, PdnError
from engine.fen import START_FEN, parse_fen
from engine.move import Move, parse_move_text
from engine.termination import Termination
from engine.types import WHITE, Color

RESULTS: tuple[str, ...] = ("1-0", "0-1", "1/2-1/2", "*")
STANDARD_TAGS: tuple[str, ...] = ("Event", "Site", "Date", "Round", "Black", "White", "Result")
ENGLISH_GAME_TYPE = "21"
MAX_LINE = 79

PathOrFile = str | os.PathLike[str] | IO[str] | IO[bytes]


@dataclass
class PdnGame:
    """One game as read from (or to be written to) PDN."""

    tags: dict[str, str] = field(default_factory=dict)
    """Tags in file order."""
    moves: list[Move] = field(default_factory=list)
    """The moves played, as legal moves of the replayed positions."""
    result: str = "*"
    """The terminating result token (or the Result tag when the movetext has none)."""
    initial_fen: str = START_FEN
    """The start position, in canonical FEN."""
    line: int = 0
    """Line of the game's first tag (of its first token when it has no tags)."""
    number: int = 0
    """1-based position of the game in its source."""
    error: str | None = None
    """Why the game could not be read to the end (lenient reading only)."""

    def board(self) -> Board:
        """The final position, with the game's moves on its move stack."""
        board = Board(self.initial_fen)
        for move in self.moves:
            board.push(move)
        return board

    @property
    def ply_count(self) -> int:
        return len(self.moves)

    @property
    def termination(self) -> Termination | None:
        """How the game ended, from its ``Termination`` tag (``engine.termination``'s words, or the
        words older files wrote); None without the tag or when its words name no known ending."""
        text = self.tags.get("Termination")
        if not text:
            return None
        try:
            return Termination.read(text, self.result)
        except ValueError:
            return None


# ---------------------------------------------------------------------------
# Tokenizer: lines in, (kind, value, line) out.

_TAG_RE = re.compile(r'\[\s*([A-Za-z0-9_]+)\s*"((?:[^"\\]|\\.)*)"\s*\]')
_ESCAPE_RE = re.compile(r"\\(.)")
_END = r"(?=[\s{};()\[\]$]|$)"
_TOKEN_RE = re.compile(
    r"\s*(?:(?P<punct>[{;()\[])"
    r"|(?P<result>1-0|0-1|1/2-1/2|\*)"
    + _END
    + r"|(?P<number>\d+\s*\.+)"
    + r"|(?P<ellipsis>\.\.+|…)"
    + r"|(?P<move>\d{1,2}(?:[-xX:]\d{1,2})+)(?:[!?]{1,2})?"
    + _END
    + r"|(?P<nag>\$\d+|[!?]{1,2})"
    + _END
    + r"|(?P<other>[^\s{;(\[]+))"
)

# Token kinds handed to the game assembler.
_TAG = "tag"
_MOVE = "move"
_RESULT = "result"
_ERROR = "error"  # breaks the movetext: an unreadable token and the like
_TAG_ERROR = "tag-error"  # a bad tag line: belongs to the tag section


@dataclass
class _Token:
    kind: str
    value: str
    line: int
    name: str = ""


def _tokens(lines: Iterable[tuple[int, str]]) -> Iterator[_Token]:
    comment_line = 0  # line where an open {comment} started, 0 if none
    variation_line = 0  # line of the outermost open (variation)
    depth = 0
    for lineno, line in lines:
        pos = 0
        end = len(line)
        if not comment_line and line.startswith("%"):
            continue  # PGN-style escape line
        while pos < end:
            if comment_line:
                close = line.find("}", pos)
                if close < 0:
                    break
                comment_line = 0
                pos = close + 1
                continue
            m = _TOKEN_RE.match(line, pos)
            if m is None:
                break  # only whitespace is left
            kind = m.lastgroup
            if kind != "punct":
                pos = m.end()
                if depth:
                    continue  # inside a variation only the brackets matter
                if kind == "move":
                    yield _Token(_MOVE, m.group("move"), lineno)
                elif kind == "result":
                    yield _Token(_RESULT, m.group("result"), lineno)
                elif kind == "other":
                    yield _Token(_ERROR, f"unreadable token {m.group('other')!r}", lineno)
                # numbers, ellipses and NAGs carry nothing the replay needs
                continue
            pos = m.start("punct")
            ch = line[pos]
            if ch == "{":
                comment_line = lineno
                pos += 1
                continue
            if ch == ";":
                break
            if ch == "(":
                if depth == 0:
                    variation_line = lineno
                depth += 1
                pos += 1
                continue
            if ch == ")":
                if depth == 0:
                    yield _Token(_ERROR, "unmatched ')'", lineno)
                else:
                    depth -= 1
                pos += 1
                continue
            if ch == "[":
                if depth:
                    yield _Token(
                        _ERROR, f"unterminated variation '(' opened at line {variation_line}", lineno
                    )
                    depth = 0
                m = _TAG_RE.match(line, pos)
                if m is None:
                    yield _Token(_TAG_ERROR, f"unreadable tag {line[pos:].strip()!r}", lineno)
                    break
                yield _Token(_TAG, _ESCAPE_RE.sub(r"\1", m.group(2)), lineno, m.group(1))
                pos = m.end()
    if comment_line:
        yield _Token(_ERROR, f"unterminated comment '{{' opened at line {comment_line}", comment_line)
    elif depth:
        yield _Token(_ERROR, f"unterminated variation '(' opened at line {variation_line}", variation_line)


# ---------------------------------------------------------------------------
# Games: tokens grouped per game, then replayed.


@dataclass
class _RawGame:
    number: int
    line: int
    tags: dict[str, str] = field(default_factory=dict)
    items: list[_Token] = field(default_factory=list)
    result: str | None = None
    movetext: bool = False


def _move_label(ply: int, first: Color) -> str:
    k = ply + (1 if first == WHITE else 0)
    return f"{k // 2 + 1}." if k % 2 == 0 else f"{k // 2 + 1}..."


def _join_segments(board: Board, items: list[_Token], i: int) -> tuple[Move, int] | None:
    """Read ``11x18 18x25`` (a multi-jump written as segments) as one move."""
    try:
        first = parse_move_text(items[i].value)
    except InvalidMoveError:
        return None
    if not first.capture:
        return None
    squares = list(first.squares)
    j = i + 1
    while j < len(items) and items[j].kind == _MOVE:
        try:
            seg = parse_move_text(items[j].value)
        except InvalidMoveError:
            return None
        if not seg.capture or seg.squares[0] != squares[-1]:
            return None
        squares.extend(seg.squares[1:])
        j += 1
        try:
            return board.parse_move("x".join(map(str, squares))), j - i
        except (IllegalMoveError, AmbiguousMoveError):
            continue
    return None


def _replay(raw: _RawGame, source: str, strict: bool) -> PdnGame:
    game = PdnGame(tags=raw.tags, line=raw.line, number=raw.number)
    game.result = raw.result or raw.tags.get("Result", "*")
    where = f"{source}: game {raw.number} (line {raw.line})"

    def fail(message: str) -> PdnGame:
        text = f"{where}: {message}"
        if strict:
            raise PdnError(text) from None
        game.error = text
        return game

    for item in raw.items:
        if item.kind == _TAG_ERROR:
            return fail(f"line {item.line}: {item.value}")
    game_type = raw.tags.get("GameType")
    if game_type is not None and game_type.split(",")[0].strip() != ENGLISH_GAME_TYPE:
        return fail(f"unsupported GameType {game_type!r} (only English checkers, 21, is read)")
    fen = raw.tags.get("FEN")
    try:
        board = Board(fen) if fen is not None else Board()
    except FenError as exc:
        return fail(f"bad FEN tag: {exc}")
    game.initial_fen = board.initial_fen
    first = board.turn
    items = [t for t in raw.items if t.kind != _TAG_ERROR]
    i = 0
    while i < len(items):
        item = items[i]
        label = _move_label(len(game.moves), first)
        if item.kind == _ERROR:
            return fail(f"at move {label}, line {item.line}: {item.value}")
        try:
            move = board.parse_move(item.value)
            used = 1
        except IllegalMoveError as exc:
            joined = _join_segments(board, items, i)
            if joined is None:
                return fail(f"move {label} {item.value!r} at line {item.line}: {exc}")
            move, used = joined
        except (AmbiguousMoveError, InvalidMoveError) as exc:
            return fail(f"move {label} {item.value!r} at line {item.line}: {exc}")
        board.push(move)
        game.moves.append(move)
        i += used
    return game


def _raw_games(tokens: Iterable[_Token]) -> Iterator[_RawGame]:
    count = 0
    cur: _RawGame | None = None
    for tok in tokens:
        if tok.kind == _TAG:
            if cur is not None and cur.movetext:
                yield cur
                cur = None
            if cur is None:
                count += 1
                cur = _RawGame(count, tok.line)
            cur.tags[tok.name] = tok.value
            continue
        if cur is None:
            count += 1
            cur = _RawGame(count, tok.line)
        if tok.kind == _RESULT:
            cur.result = tok.value
            yield cur
            cur = None
            continue
        if tok.kind != _TAG_ERROR:
            cur.movetext = True
        cur.items.append(tok)
    if cur is not None:
        yield cur


def _games(
    tokens: Iterable[_Token], source: str, strict: bool, select: Callable[[int], bool] | None = None
) -> Iterator[PdnGame]:
    for raw in _raw_games(tokens):
        if select is None or select(raw.number):
            yield _replay(raw, source, strict)


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _numbered(lines: Iterable[str | bytes]) -> Iterator[tuple[int, str]]:
    for n, raw in enumerate(lines, start=1):
        line = _decode(raw) if isinstance(raw, bytes) else raw
        if n == 1:
            line = line.lstrip("\ufeff")
        yield n, line.rstrip("\r\n")


def read_games(text: str | bytes, *, strict: bool = True, source: str = "<pdn>") -> list[PdnGame]:
    """Every game in a PDN text."""
    lines: list[str] | list[bytes] = text.splitlines()  # bytes are decoded line by line
    return list(_games(_tokens(_numbered(lines)), source, strict))


def read_game(text: str | bytes, *, strict: bool = True, source: str = "<pdn>") -> PdnGame:
    """The one game of a PDN text (PdnError when it holds none or several)."""
    games = read_games(text, strict=strict, source=source)
    if len(games) != 1:
        raise PdnError(f"{source}: expected one game, found {len(games)}")
    return games[0]


def iter_games(
    source: PathOrFile,
    *,
    strict: bool = True,
    select: Callable[[int], bool] | None = None,
) -> Iterator[PdnGame]:
    """Games from a file name or an open file, read lazily a line at a time.

    ``select(number)`` (numbers count from 1) picks the games to replay and
    yield; the others are only tokenized, which is much faster.  A missing
    file raises FileNotFoundError at once, before iteration starts.
    """
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        os.stat(path)  # fail now, not at the first next()
        return _iter_path(path, strict, select)
    name = str(getattr(source, "name", "<pdn>"))
    return _games(_tokens(_numbered(source)), name, strict, select)


def game_results(source: str | os.PathLike[str]) -> dict[int, str]:
    """Each game's result token (``1-0``, ``0-1``, ``1/2-1/2`` or ``*``) by its number in the file,
    numbered as ``iter_games`` numbers them; the moves are only tokenized, not replayed."""
    path = os.fspath(source)
    with open(path, "rb") as fh:
        return {raw.number: raw.result or raw.tags.get("Result", "*")
                for raw in _raw_games(_tokens(_numbered(fh)))}


def _iter_path(path: str, strict: bool, select: Callable[[int], bool] | None) -> Iterator[PdnGame]:
    with open(path, "rb") as fh:
        yield from _games(_tokens(_numbered(fh)), path, strict, select)


def game_at(source: PathOrFile, number: int, *, strict: bool = True) -> PdnGame | None:
    """Game ``number`` (from 1) of a file, or None if it has fewer games.

    Only that game is replayed; the ones before it are just tokenized.
    """
    for game in iter_games(source, strict=strict, select=lambda n: n == number):
        return game
    return None


# ---------------------------------------------------------------------------
# Writing.


def _quote(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _same_position(a: str, b: str) -> bool:
    try:
        return parse_fen(a) == parse_fen(b)
    except FenError:
        return False


def write_game(
    game: PdnGame | Board,
    tags: Mapping[str, str] | None = None,
    *,
    result: str | None = None,
) -> str:
    """A game as PDN text, ending in a newline.

    ``game`` is a PdnGame or a Board (its move stack from its initial
    position).  ``tags`` add to or override the game's tags.  The result is
    ``result``, else a Result in ``tags``, else ``game.result`` (for a Board,
    ``board.result()``: ``*`` while the game goes on).  Tags come in the
    standard order, then ``GameType``, then ``SetUp``/``FEN`` for a set-up
    position, then the rest in their order; moves are in the shortest
    unambiguous notation, lines at most 79 characters.
    """
    if isinstance(game, Board):
        all_tags: dict[str, str] = {}
        moves = list(game.move_stack)
        initial = game.initial_fen
        default_result = game.result()
    else:
        all_tags = dict(game.tags)
        moves = list(game.moves)
        initial = game.initial_fen
        default_result = game.result
    overrides = dict(tags or {})
    all_tags.update(overrides)
    res = result or overrides.get("Result") or default_result
    if res not in RESULTS:
        raise PdnError(f"bad result {res!r}: expected one of {', '.join(RESULTS)}")
    all_tags["Result"] = res
    for name in all_tags:
        if not re.fullmatch(r"[A-Za-z0-9_]+", name):
            raise PdnError(f"bad tag name {name!r}: letters, digits and _ only")

    out: list[tuple[str, str]] = [(n, all_tags[n]) for n in STANDARD_TAGS if n in all_tags]
    out.append(("GameType", all_tags.get("GameType", ENGLISH_GAME_TYPE)))
    start = Board(initial)
    if not _same_position(start.initial_fen, START_FEN):
        fen = all_tags.get("FEN", "")
        if not _same_position(fen, start.initial_fen):
            fen = start.initial_fen
        out += [("SetUp", "1"), ("FEN", fen)]
    done = {*STANDARD_TAGS, "GameType", "SetUp", "FEN"}
    out += [(n, v) for n, v in all_tags.items() if n not in done]

    lines = [tag_line(n, v) for n, v in out]
    lines += _wrap([*_movetext_units(start, moves), res])
    return "\n".join(lines) + "\n"


def write_games(games: Iterable[PdnGame]) -> str:
    """Several games, separated by blank lines."""
    return "\n".join(write_game(g) for g in games)


def movetext(game: PdnGame, *, result: bool = False) -> str:
    """The game's moves with move numbers, wrapped; with its result when ``result``."""
    units = _movetext_units(Board(game.initial_fen), game.moves)
    if result:
        units.append(game.result)
    return "\n".join(_wrap(units))


def tag_line(name: str, value: str) -> str:
    """``[Name "value"]`` with quotes and backslashes escaped."""
    return f'[{name} "{_quote(value)}"]'


def _movetext_units(board: Board, moves: Iterable[Move]) -> list[str]:
    units: list[str] = []
    first = board.turn
    for ply, move in enumerate(moves):
        text = board.notation(move)
        board.push(move)
        if ply == 0 or (ply + (1 if first == WHITE else 0)) % 2 == 0:
            label = _move_label(ply, first)
            text = f"{label} {text}"
        units.append(text)
    return units


def _wrap(units: list[str]) -> list[str]:
    lines: list[str] = []
    cur = ""
    for unit in units:
        if cur and len(cur) + 1 + len(unit) > MAX_LINE:
            lines.append(cur)
            cur = unit
        else:
            cur = f"{cur} {unit}" if cur else unit
    if cur:
        lines.append(cur)
    return lines


__all__ = [
    "RESULTS",
    "STANDARD_TAGS",
    "PdnGame",
    "game_at",
    "iter_games",
    "movetext",
    "read_game",
    "read_games",
    "tag_line",
    "write_game",
    "write_games",
]
