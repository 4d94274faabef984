"""samuel play: a game against the engine in the terminal.

The pure part (drawing the board, handling one line of input, the engine's
turn) is separate from the I/O loop, so it can be tested without a terminal:

* ``render_board(board, bottom=..., last=...)`` -> the board as text;
* ``Game`` holds the position, the human's colour and the view;
* ``handle_line(game, line, engine)`` -> ``Reply`` (messages, quit, redraw);
* ``engine_move(game, engine)`` -> messages, after the engine has moved;
* ``play_loop(game, engine, read, write)`` wires them to input() and print().
"""

from __future__ import annotations

import argparse
import contextlib
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from engine.board import Board, Outcome, Termination
from engine.errors import AmbiguousMoveError, IllegalMoveError, InvalidMoveError, SamuelError
from engine.fen import START_FEN
from engine.limits import Limit
from engine.move import Move, parse_move_text
from engine.runner import move_to_play
from engine.search import EngineSearcher, Score, SearchResult
from engine.types import BLACK, COLOR_NAMES, SQUARES, WHITE, Color, row_col
from samuel.argtypes import positive_float
from samuel.engine_args import add_engine_arguments, make_searcher

ENGINE_NAME = "samuel"
_LOOKS_LIKE_MOVE = re.compile(r"^\s*\d+(?:\s*[-xX:]\s*\d+)+\s*$")
DEFAULT_MOVETIME = 1.0

_GRID: dict[tuple[int, int], int] = {row_col(s): s for s in SQUARES}

HELP_TEXT = """\
Type a move in PDN: 11-15 (a move), 22x15 (a capture), 15x24x31 (a multi-jump;
the short 15x31 is fine when only one jump goes from 15 to 31).
Commands:
  moves   list your legal moves           hint   ask the engine for a move
  undo    take back your last move and the engine's reply
  board   draw the board again             flip   turn the board around
  fen     print the position as FEN        new    start a new game
  help    this text                        quit   leave (also Ctrl-D)
Board: b/w are black/white men, B/W kings, [ ] marks the last move's landing
square; empty dark squares show their numbers, the key on the right numbers all."""


# ---- drawing ----


def color_name(color: Color) -> str:
    return COLOR_NAMES[color]


def render_board(
    board: Board,
    *,
    bottom: Color = WHITE,
    last: Move | None = None,
    names: tuple[str, str] | None = None,
) -> str:
    """The board as text, ``bottom``'s side nearest the reader.

    Dark squares show a piece (b, w, kings B, W) or, when empty, their number;
    a key of all square numbers is drawn to the right.  ``last`` marks the
    landing square of the last move with brackets.  ``names`` labels the
    black and white sides.
    """
    order = range(8) if bottom == WHITE else range(7, -1, -1)
    sep = "  +" + "---+" * 8
    top = WHITE if bottom == BLACK else BLACK
    label = [color_name(BLACK), color_name(WHITE)]
    if names is not None:
        label = [f"{color_name(BLACK)} ({names[0]})", f"{color_name(WHITE)} ({names[1]})"]
    lines = [f"   {label[top].capitalize()}", sep]
    for r in order:
        cells: list[str] = []
        key: list[str] = []
        for c in order:
            sq = _GRID.get((r, c))
            if sq is None:
                cells.append("   ")
                key.append("   ")
                continue
            key.append(f"{sq:>3}")
            piece = board.piece_at(sq)
            if piece is None:
                cells.append(f"{sq:>2} ")
            elif last is not None and sq == last.to_square:
                cells.append(f"[{piece.symbol()}]")
            else:
                cells.append(f" {piece.symbol()} ")
        lines.append("  |" + "|".join(cells) + "|  " + "".join(key).rstrip())
        lines.append(sep)
    lines.append(f"   {label[bottom].capitalize()}")
    return "\n".join(lines)


def describe_score(score: Score, who: str) -> str:
    plies = score.plies_to_end
    if plies is not None:
        unit = "ply" if plies == 1 else "plies"
        return f"{who} sees a {'win' if score.is_win else 'loss'} in {plies} {unit}"
    return f"score {score} for {who}"


def describe_outcome(outcome: Outcome, human: Color) -> str:
    """One line for the end of the game: result, winner, reason, and who that is."""
    result = outcome.result()
    if outcome.winner is None:
        why = "threefold repetition" if outcome.termination == Termination.REPETITION else "the 40-move rule"
        return f"Game over, {result}: a draw by {why}."
    if outcome.termination == Termination.NO_MOVES:
        why = f"{color_name(outcome.winner ^ 1)} has no legal move"
    else:  # not reached with today's rules, but say something true
        why = outcome.termination.label
    who = "You win!" if outcome.winner == human else f"{ENGINE_NAME} wins."
    return f"Game over, {result}: {color_name(outcome.winner)} wins, {why}. {who}"


# ---- the game state ----


class Engine(Protocol):
    """What the game needs from the engine (a Searcher with a limit, or a test double)."""

    def think(self, board: Board) -> SearchResult: ...

    def new_game(self) -> None: ...


class SearchEngine:
    """A Searcher plus the time it may take per move."""

    def __init__(self, searcher: EngineSearcher, limit: Limit) -> None:
        self.searcher = searcher
        self.limit = limit

    def think(self, board: Board) -> SearchResult:
        from engine.runner import SearchRun

        return SearchRun(board, self.limit, self.searcher).wait_interruptibly(reraise=True)

    def new_game(self) -> None:
        self.searcher.new_game()


@dataclass
class Game:
    board: Board
    human: Color = BLACK
    start_fen: str = START_FEN
    flipped: bool = False
    """Whether the board is turned so the engine's side is nearest the reader."""
    engine_note: str | None = None
    """How the engine judged its last move (score, depth), shown with the board."""
    announced: bool = False
    """Whether the end of the game has been announced."""

    @classmethod
    def new(cls, fen: str = START_FEN, human: Color = BLACK) -> Game:
        board = Board(fen)
        return cls(board=board, human=human, start_fen=board.initial_fen)

    @property
    def bottom(self) -> Color:
        """The side drawn nearest the reader: the human's unless flipped."""
        return self.human ^ 1 if self.flipped else self.human

    @property
    def engine_color(self) -> Color:
        return self.human ^ 1

    def outcome(self) -> Outcome | None:
        return self.board.outcome()

    def engine_to_move(self) -> bool:
        return self.board.turn == self.engine_color and self.outcome() is None

    def last_move(self) -> tuple[Color, str] | None:
        """Who made the last move and its PDN text (with what it took), or None at the start."""
        if not self.board.move_stack:
            return None
        before = self.board.copy()
        move = before.pop()
        text = before.notation(move)
        if move.captures:
            text += f" taking {', '.join(str(s) for s in move.captures)}"
        return before.turn, text

    def player_name(self, color: Color) -> str:
        return "you" if color == self.human else ENGINE_NAME

    def render(self) -> str:
        """The board with the last move and whose turn it is."""
        names = (self.player_name(BLACK), self.player_name(WHITE))
        last_move = self.board.move_stack[-1] if self.board.move_stack else None
        lines = [render_board(self.board, bottom=self.bottom, last=last_move, names=names)]
        last = self.last_move()
        if last is not None:
            color, text = last
            note = f"  ({self.engine_note})" if color == self.engine_color and self.engine_note else ""
            lines.append(f"Last move: {color_name(color)} ({self.player_name(color)}) {text}{note}")
        outcome = self.outcome()
        if outcome is None:
            turn = self.board.turn
            lines.append(f"{color_name(turn).capitalize()} to move ({self.player_name(turn)}).")
        else:
            lines.append(describe_outcome(outcome, self.human))
        return "\n".join(lines)

    def prompt(self) -> str:
        return f"{color_name(self.human)}> "


@dataclass
class Reply:
    """What handling one line of input produced."""

    lines: list[str] = field(default_factory=list)
    quit: bool = False
    redraw: bool = False
    """The position or the view changed: draw the board."""


# ---- handling input ----


def move_texts(board: Board, moves: list[Move]) -> list[str]:
    """The PDN of ``moves``, each text once (a king's round trip both ways reads the same)."""
    return list(dict.fromkeys(board.notation(m) for m in moves))


def explain_illegal(board: Board, text: str) -> str:
    """Why ``text`` (valid move syntax) is not a legal move here, for a person."""
    given = parse_move_text(text).squares
    start, end = given[0], given[-1]
    legal = board.legal_moves
    shown = text.strip()
    if not legal:
        return f"illegal move {shown}: the game is over"
    me = color_name(board.turn)
    piece = board.piece_at(start)
    if piece is None:
        return f"illegal move {shown}: there is no piece on {start}"
    if piece.color != board.turn:
        owner = color_name(piece.color)
        return f"illegal move {shown}: the piece on {start} is {owner}'s, and {me} is to move"
    if legal[0].is_capture:
        same_ends = [m.long for m in legal if m.from_square == start and m.to_square == end]
        if same_ends:  # the right ends but a wrong path
            paths = ", ".join(same_ends)
            return f"illegal move {shown}: no jump from {start} to {end} goes that way (try {paths})"
        from_here = move_texts(board, [m for m in legal if m.from_square == start])
        if from_here:
            return f"illegal move {shown}: the jumps from {start} are {', '.join(from_here)}"
        caps = ", ".join(move_texts(board, legal))
        return f"illegal move {shown}: a capture is compulsory ({caps})"
    kind = "king" if piece.king else "man"
    options = move_texts(board, [m for m in legal if m.from_square == start])
    if not options:
        return f"illegal move {shown}: the {kind} on {start} cannot move"
    listed = f"(moves from {start}: {', '.join(options)})"
    forward = 1 if piece.color == BLACK else -1
    if not piece.king and (row_col(end)[0] - row_col(start)[0]) * forward <= 0:
        return f"illegal move {shown}: men only move forward {listed}"
    if board.piece_at(end) is not None:
        return f"illegal move {shown}: square {end} is occupied {listed}"
    return f"illegal move {shown}: the {kind} on {start} cannot go to {end} {listed}"


def parse_human_move(board: Board, text: str) -> Move:
    """The legal move ``text`` names; raises SamuelError with a message fit for the player."""
    try:
        return board.parse_move(text)
    except InvalidMoveError:
        raise InvalidMoveError(
            f"not a move or a command: {text.strip()!r} (type a move like 11-15 or 22x15, or 'help')"
        ) from None
    except AmbiguousMoveError:
        mt = parse_move_text(text)
        options = [
            m.long for m in board.legal_moves
            if m.from_square == mt.squares[0] and m.to_square == mt.squares[-1]
        ]
        raise AmbiguousMoveError(
            f"ambiguous move {text.strip()}: it could be {' or '.join(options)}; type the whole path"
        ) from None
    except IllegalMoveError:
        raise IllegalMoveError(explain_illegal(board, text)) from None


def _undo(game: Game) -> Reply:
    # Take back moves until one of the human's has gone: the engine's reply (if any) and the human's move.
    count = 0
    probe = game.board.copy()
    while probe.move_stack:
        probe.pop()
        count += 1
        if probe.turn == game.human:
            break
    else:
        return Reply(["nothing to undo: you have not moved yet"])
    taken = []
    for _ in range(count):
        before = game.board.copy()
        move = before.pop()
        taken.append(before.notation(move))
        game.board.pop()
    game.engine_note = None
    game.announced = False
    return Reply([f"took back {' '.join(reversed(taken))}"], redraw=True)


def _hint(game: Game, engine: Engine) -> Reply:
    result = engine.think(game.board)
    move = move_to_play(game.board, result)
    note = describe_score(result.info.score, "you")
    where = "book move" if result.info.book else f"depth {result.info.depth}"
    return Reply([f"hint: {game.board.notation(move)}  ({where}, {note})"])


def _moves(game: Game) -> Reply:
    legal = game.board.legal_moves
    texts = move_texts(game.board, legal)
    must = "; a capture is compulsory" if legal and legal[0].is_capture else ""
    return Reply([f"legal moves ({len(texts)}{must}): {' '.join(texts)}"])


def _game_over_reply(outcome: Outcome, what: str) -> Reply:
    return Reply([f"{what}: the game is over ({outcome.result()}); type 'new', 'undo' or 'quit'"])


COMMANDS: dict[str, str] = {
    "quit": "quit", "exit": "quit", "q": "quit", "bye": "quit",
    "help": "help", "h": "help", "?": "help",
    "moves": "moves", "legal": "moves",
    "undo": "undo", "takeback": "undo", "back": "undo", "u": "undo",
    "hint": "hint",
    "fen": "fen",
    "new": "new", "restart": "new",
    "flip": "flip",
    "board": "board", "show": "board",
}


def handle_line(game: Game, line: str, engine: Engine) -> Reply:
    """Apply one line of the player's input to ``game``; never raises for bad input."""
    text = line.strip()
    if not text:
        return Reply()
    command = COMMANDS.get(text.lower())
    if command == "quit":
        return Reply(["bye"], quit=True)
    if command == "help":
        return Reply([HELP_TEXT])
    if command == "fen":
        return Reply([game.board.fen()])
    if command == "board":
        return Reply(redraw=True)
    if command == "flip":
        game.flipped = not game.flipped
        return Reply(redraw=True)
    if command == "new":
        game.board = Board(game.start_fen)
        game.engine_note = None
        game.announced = False
        engine.new_game()
        return Reply([f"new game: you play {color_name(game.human)}"], redraw=True)
    if command == "undo":
        return _undo(game)
    outcome = game.outcome()
    if command in ("moves", "hint"):
        if outcome is not None:
            return _game_over_reply(outcome, f"no {command}")
        if game.board.turn != game.human:
            return Reply([f"it is {ENGINE_NAME}'s turn"])
        return _moves(game) if command == "moves" else _hint(game, engine)
    # Anything else should be a move.
    try:
        parse_move_text(text)
    except InvalidMoveError as exc:
        if _LOOKS_LIKE_MOVE.match(text):  # move syntax with a bad square: say which
            return Reply([str(exc)])
        return Reply([f"unknown command or move {text!r}; type 'help' for commands, 'moves' for your moves"])
    if outcome is not None:
        return _game_over_reply(outcome, f"cannot play {text}")
    if game.board.turn != game.human:
        return Reply([f"it is {ENGINE_NAME}'s turn, not yours"])
    try:
        move = parse_human_move(game.board, text)
    except SamuelError as exc:
        return Reply([str(exc)])
    game.board.push(move)
    return Reply(redraw=True)


def engine_move(game: Game, engine: Engine) -> list[str]:
    """Let the engine make its move; returns what to tell the player."""
    board = game.board
    result = engine.think(board)
    move = result.best if result.best is not None and board.is_legal(result.best) else None
    if move is None:  # a search that found nothing to say still has to move
        move = board.require_moves()[0]
    text = board.notation(move)
    board.push(move)
    info = result.info
    if info.book:
        game.engine_note = f"book move, {describe_score(info.score, ENGINE_NAME)}"
        return [f"{ENGINE_NAME} plays {text}  ({game.engine_note})"]
    game.engine_note = f"depth {info.depth}, {describe_score(info.score, ENGINE_NAME)}"
    return [f"{ENGINE_NAME} plays {text}  ({game.engine_note}, {info.time:.2f} s)"]


# ---- the I/O loop ----


def play_loop(
    game: Game,
    engine: Engine,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
    *,
    echo: bool = False,
) -> int:
    """Play until quit or end of input; ``echo`` repeats each input line (for piped input)."""
    write(f"samuel play: you are {color_name(game.human)}; type 'help' for commands, 'quit' to leave.")
    write(game.render())
    while True:
        if game.engine_to_move():
            write(f"{ENGINE_NAME} is thinking...")
            for line in engine_move(game, engine):
                write(line)
            write(game.render())
            continue
        if game.outcome() is not None and not game.announced:
            game.announced = True
            write("Type 'new' for another game, 'undo' to take back, or 'quit'.")
        try:
            line = read(game.prompt())
        except EOFError:
            write("")
            return 0
        if echo:
            write(line)
        reply = handle_line(game, line, engine)
        for message in reply.lines:
            write(message)
        if reply.quit:
            return 0
        if reply.redraw:
            write(game.render())


# ---- the command ----


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "play",
        help="play a game against the engine in the terminal",
        description="Play checkers against the engine: type moves like 11-15 or 22x15, 'help' for commands.",
    )
    p.add_argument("--color", "--colour", default="black", choices=("black", "white"),
                   help="the side you play; black moves first (default: %(default)s)")
    p.add_argument("--movetime", type=positive_float, default=DEFAULT_MOVETIME, metavar="S",
                   help="the engine's thinking time per move in seconds (default: %(default)s)")
    p.add_argument("--fen", default=START_FEN, help="starting position (default: the start position)")
    add_engine_arguments(p, book_variety=10)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    human = BLACK if args.color == "black" else WHITE
    game = Game.new(args.fen, human)
    engine = SearchEngine(make_searcher(args), Limit(movetime=args.movetime))
    interactive = sys.stdin.isatty()
    if interactive:
        with contextlib.suppress(ImportError):
            import readline  # noqa: F401  (line editing and history for input())

    def write(text: str) -> None:
        print(text, flush=True)

    try:
        return play_loop(game, engine, input, write, echo=not interactive)
    except KeyboardInterrupt:  # Ctrl-C at the prompt or while the engine thinks: stop, no traceback
        write("")
        print("samuel play: interrupted", file=sys.stderr)
        return 130
