"""samuel play: board drawing, one-line command handling, the loop, and a piped game."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from engine.board import Board, Outcome, Termination
from engine.limits import Limit
from engine.move import Move
from engine.search import Score, Searcher, SearchInfo, SearchResult
from engine.types import BLACK, WHITE
from samuel.commands.play import (
    Game,
    Reply,
    SearchEngine,
    describe_outcome,
    describe_score,
    engine_move,
    handle_line,
    play_loop,
    render_board,
)

ROOT = Path(__file__).resolve().parents[1]

# A black king on 16 with two jumps from 16 to 5 that take different men.
AMBIGUOUS_FEN = "B:W9,10,11,18,19:BK16"
# Black to move and win at once: 14x23 leaves White nothing.
ONE_MOVE_WIN_FEN = "B:W18:B14"


class FirstMoveEngine:
    """A stand-in engine: plays the first legal move, counts its calls."""

    def __init__(self) -> None:
        self.calls = 0
        self.new_games = 0

    def think(self, board: Board) -> SearchResult:
        self.calls += 1
        move = board.require_moves()[0]
        info = SearchInfo(depth=3, seldepth=5, score=Score(12), nodes=100, nps=1000, time=0.1, pv=(move,))
        return SearchResult(move, None, info)

    def new_game(self) -> None:
        self.new_games += 1


def content_rows(text: str) -> list[str]:
    """The eight rows of squares of a drawn board."""
    return [line for line in text.splitlines() if line.startswith("  |")]


def cells(row: str) -> list[str]:
    """The eight cells of a drawn row (without the key on the right)."""
    return row.split("|")[1:9]


# ---- drawing ----


def test_render_start_position_black_at_top() -> None:
    text = render_board(Board(), bottom=WHITE)
    rows = content_rows(text)
    assert len(rows) == 8
    assert cells(rows[0]) == ["   ", " b ", "   ", " b ", "   ", " b ", "   ", " b "]
    assert cells(rows[7]) == [" w ", "   ", " w ", "   ", " w ", "   ", " w ", "   "]
    # Empty dark squares carry their numbers; the key on the right numbers every square.
    assert cells(rows[3]) == ["13 ", "   ", "14 ", "   ", "15 ", "   ", "16 ", "   "]
    assert rows[0].split("|")[-1].split() == ["1", "2", "3", "4"]
    assert rows[7].split("|")[-1].split() == ["29", "30", "31", "32"]
    assert text.count(" b ") == 12 and text.count(" w ") == 12
    assert text.splitlines()[0].strip() == "Black" and text.splitlines()[-1].strip() == "White"


def test_render_flipped_puts_black_at_the_bottom() -> None:
    text = render_board(Board(), bottom=BLACK, names=("you", "samuel"))
    rows = content_rows(text)
    assert cells(rows[0]) == ["   ", " w ", "   ", " w ", "   ", " w ", "   ", " w "]
    assert rows[0].split("|")[-1].split() == ["32", "31", "30", "29"]
    assert cells(rows[4]) == ["   ", "16 ", "   ", "15 ", "   ", "14 ", "   ", "13 "]
    assert text.splitlines()[0].strip() == "White (samuel)"
    assert text.splitlines()[-1].strip() == "Black (you)"


def test_render_kings_and_last_move() -> None:
    board = Board("W:WK18,25:BK3,5")
    move = board.parse_move("18-22")
    board.push(move)
    rows = content_rows(render_board(board, last=move))
    assert "[W]" in rows[5]
    assert " B " in rows[0] and " b " in rows[1]
    assert "18 " in cells(rows[4])


def test_describe_score_and_outcome() -> None:
    assert describe_score(Score(25), "samuel") == "score +0.25 for samuel"
    board = Board(ONE_MOVE_WIN_FEN)
    board.push_pdn("14x23")
    outcome = board.outcome()
    assert outcome is not None
    assert describe_outcome(outcome, BLACK) == "Game over, 1-0: black wins, white has no legal move. You win!"
    assert describe_outcome(outcome, WHITE).endswith("samuel wins.")
    draw = Outcome(Termination.REPETITION, None)
    assert describe_outcome(draw, BLACK) == "Game over, 1/2-1/2: a draw by threefold repetition."
    forty = Outcome(Termination.FORTY_MOVES, None)
    assert describe_outcome(forty, WHITE) == "Game over, 1/2-1/2: a draw by the 40-move rule."


# ---- one line of input ----


def test_move_then_engine_reply() -> None:
    game, engine = Game.new(), FirstMoveEngine()
    reply = handle_line(game, "11-15", engine)
    assert reply == Reply(redraw=True)
    assert game.board.move_stack == [Move((11, 15))]
    assert game.engine_to_move()
    lines = engine_move(game, engine)
    assert lines[0].startswith("samuel plays ")
    assert "depth 3" in lines[0] and "+0.12" in lines[0]
    assert len(game.board.move_stack) == 2 and not game.engine_to_move()
    rendered = game.render()
    assert "Last move: white (samuel)" in rendered
    assert "Black to move (you)." in rendered


def test_illegal_moves_are_explained() -> None:
    game, engine = Game.new(), FirstMoveEngine()
    assert handle_line(game, "16-19", engine).lines == ["illegal move 16-19: there is no piece on 16"]
    assert "is white's" in handle_line(game, "22-18", engine).lines[0]
    assert handle_line(game, "8-12", engine).lines == ["illegal move 8-12: the man on 8 cannot move"]
    assert handle_line(game, "1-5", engine).lines == ["illegal move 1-5: the man on 1 cannot move"]
    assert "out of range" in handle_line(game, "11-40", engine).lines[0]
    assert "unknown command or move 'e2e4'" in handle_line(game, "e2e4", engine).lines[0]
    assert game.board.move_stack == []


def test_occupied_square_message() -> None:
    game, engine = Game.new(), FirstMoveEngine()
    game.board.push_many(["11-15", "24-20"])
    assert handle_line(game, "7-10", engine).lines == [
        "illegal move 7-10: square 10 is occupied (moves from 7: 7-11)"
    ]


def test_compulsory_capture_message() -> None:
    game, engine = Game.new(), FirstMoveEngine()
    game.board.push_many(["11-15", "22-18"])
    reply = handle_line(game, "9-13", engine)
    assert reply.lines == ["illegal move 9-13: a capture is compulsory (15x22)"]
    assert handle_line(game, "moves", engine).lines == ["legal moves (1; a capture is compulsory): 15x22"]


def test_men_move_forward_only() -> None:
    game, engine = Game.new("B:W30:B14"), FirstMoveEngine()
    assert handle_line(game, "14-9", engine).lines[0].startswith("illegal move 14-9: men only move forward")


def test_ambiguous_and_full_path_jumps() -> None:
    game, engine = Game.new(AMBIGUOUS_FEN), FirstMoveEngine()
    msg = handle_line(game, "16x5", engine).lines[0]
    assert msg == "ambiguous move 16x5: it could be 16x23x14x5 or 16x7x14x5; type the whole path"
    assert "no jump from 16 to 5 goes that way" in handle_line(game, "16x23x7x5", engine).lines[0]
    assert handle_line(game, "16x7x5", engine).redraw
    assert game.board.move_stack[-1].captures == (11, 10, 9)
    assert "16x7x14x5 taking 11, 10, 9" in game.render()


def test_commands() -> None:
    game, engine = Game.new(), FirstMoveEngine()
    assert handle_line(game, "", engine) == Reply()
    assert handle_line(game, "fen", engine).lines == [Board().fen()]
    assert "undo" in handle_line(game, "help", engine).lines[0]
    moves = handle_line(game, "moves", engine).lines[0]
    assert moves.startswith("legal moves (7): ") and "11-15" in moves
    assert handle_line(game, "hint", engine).lines[0].startswith("hint: 9-13")
    assert engine.calls == 1
    assert game.bottom == BLACK
    assert handle_line(game, "flip", engine).redraw and game.bottom == WHITE
    assert handle_line(game, " QUIT ", engine).quit


def test_undo_takes_back_both_moves() -> None:
    game, engine = Game.new(), FirstMoveEngine()
    assert handle_line(game, "undo", engine).lines == ["nothing to undo: you have not moved yet"]
    handle_line(game, "11-15", engine)
    engine_move(game, engine)
    reply = handle_line(game, "undo", engine)
    assert reply.redraw and reply.lines[0].startswith("took back 11-15 ")
    assert game.board.move_stack == [] and game.engine_note is None


def test_undo_when_engine_moved_first() -> None:
    game, engine = Game.new(human=WHITE), FirstMoveEngine()
    assert game.bottom == WHITE and game.engine_to_move()
    engine_move(game, engine)
    assert handle_line(game, "undo", engine).lines == ["nothing to undo: you have not moved yet"]
    handle_line(game, "22-18", engine)
    engine_move(game, engine)
    handle_line(game, "undo", engine)
    assert len(game.board.move_stack) == 1  # the engine's first move stays


def test_new_game_and_game_over() -> None:
    game, engine = Game.new(ONE_MOVE_WIN_FEN), FirstMoveEngine()
    handle_line(game, "14x23", engine)
    assert game.outcome() is not None and not game.engine_to_move()
    assert "Game over, 1-0" in game.render()
    assert "the game is over (1-0)" in handle_line(game, "moves", engine).lines[0]
    assert "the game is over" in handle_line(game, "14-18", engine).lines[0]
    reply = handle_line(game, "new", engine)
    assert reply.redraw and engine.new_games == 1
    assert game.board.fen() == Board(ONE_MOVE_WIN_FEN).fen() and game.outcome() is None


def test_engine_move_with_a_real_searcher() -> None:
    engine = SearchEngine(Searcher(hash_mb=1), Limit(depth=3))
    game = Game.new(human=WHITE)
    lines = engine_move(game, engine)
    assert lines[0].startswith("samuel plays ") and "depth 3" in lines[0]
    assert len(game.board.move_stack) == 1


# ---- the loop ----


def run_loop(game: Game, inputs: list[str]) -> tuple[int, str]:
    out: list[str] = []
    feed = iter(inputs)

    def read(prompt: str) -> str:
        out.append(prompt)
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    code = play_loop(game, FirstMoveEngine(), read, out.append, echo=True)
    return code, "\n".join(out)


def test_loop_plays_and_ends_cleanly_on_eof() -> None:
    code, text = run_loop(Game.new(), ["11-15", "bogus"])
    assert code == 0
    assert text.count("samuel is thinking...") == 1
    assert "black> \n11-15\n" in text  # the prompt, then the echoed input
    assert "unknown command or move 'bogus'" in text


def test_loop_engine_opens_as_black() -> None:
    code, text = run_loop(Game.new(human=WHITE), ["quit"])
    assert code == 0
    assert "samuel plays 9-13" in text and text.rstrip().endswith("bye")


def test_loop_announces_the_end() -> None:
    code, text = run_loop(Game.new(ONE_MOVE_WIN_FEN), ["14x23"])
    assert code == 0
    assert "You win!" in text and "Type 'new' for another game" in text


# ---- the real command, input piped ----


def samuel(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "samuel", *args],
        input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=600,  # only a hang gets there
    )


def test_piped_game() -> None:
    script = "moves\n11-15\n1-5\nundo\n10-14\nquit\n"
    proc = samuel("play", "--movetime", "0.05", stdin=script)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "legal moves (7): " in out
    assert "black> 11-15" in out  # piped input is echoed after the prompt
    assert out.count("samuel plays ") == 2
    assert "illegal move 1-5: " in out
    assert "took back 11-15 " in out
    assert "Last move: black (you) 10-14" in out
    assert out.rstrip().endswith("bye")
    assert "Traceback" not in proc.stderr


def test_piped_input_ending_exits_zero() -> None:
    proc = samuel("play", "--color", "white", "--movetime", "0.05", stdin="22-18\n")
    assert proc.returncode == 0, proc.stderr
    assert "you are white" in proc.stdout and proc.stdout.count("samuel plays ") == 2
    assert proc.stderr == ""


@pytest.mark.parametrize("args", [["--fen", "X:W1"], ["--movetime", "0"], ["--color", "red"]])
def test_bad_options_exit_2(args: list[str]) -> None:
    proc = samuel("play", *args, stdin="quit\n")
    assert proc.returncode == 2
    assert "error" in proc.stderr
