"""PDN reading and writing (engine.pdn) and the ``samuel pdn`` command."""

from __future__ import annotations

import io
import itertools
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from shared_data import OCA_FIRST_60, OCA_PDN

from engine.board import Board
from engine.errors import PdnError
from engine.fen import START_FEN
from engine.move import Move
from engine.pdn import (
    PdnGame,
    game_at,
    iter_games,
    movetext,
    read_game,
    read_games,
    write_game,
    write_games,
)
from engine.types import WHITE

OCA = OCA_PDN
OCA_GAMES = 22621
REPO = Path(__file__).resolve().parent.parent

needs_oca = pytest.mark.skipif(not OCA.exists(), reason="OCA_2.0.pdn corpus not available")

OPENING = "1. 11-15 23-19 2. 8-11 22-17 3. 9-13 17-14 4. 10x17 21x14"
OPENING_LONG = ["11-15", "23-19", "8-11", "22-17", "9-13", "17-14", "10x17", "21x14"]


def longs(game: PdnGame) -> list[str]:
    return [m.long for m in game.moves]


# ---- reading ---------------------------------------------------------------


def test_tags_moves_and_result() -> None:
    g = read_game(f'[Event "Test"]\n[Date "1841-??-??"]\n[Black "A"]\n[Result "1-0"]\n{OPENING} 1-0\n')
    assert g.tags == {"Event": "Test", "Date": "1841-??-??", "Black": "A", "Result": "1-0"}
    assert list(g.tags) == ["Event", "Date", "Black", "Result"]
    assert longs(g) == OPENING_LONG
    assert g.result == "1-0"
    assert g.initial_fen == Board().fen()
    assert g.number == 1 and g.line == 1 and g.error is None
    assert all(isinstance(m, Move) for m in g.moves)


def test_board_is_the_final_position_with_history() -> None:
    g = read_game(f"{OPENING} *")
    b = g.board()
    expected = Board()
    for text in OPENING_LONG:
        expected.push_pdn(text)
    assert b.fen() == expected.fen()
    assert b.move_stack == g.moves


def test_tag_escapes() -> None:
    g = read_game('[Event "say \\"hi\\" \\\\ bye"]\n1. 11-15 *')
    assert g.tags["Event"] == 'say "hi" \\ bye'


def test_comments_are_skipped() -> None:
    text = (
        "; a line comment before the game\n"
        '[Event "c"]\n'
        "1. 11-15 {a comment 24-20 with moves\n"
        "over two lines, and ; and ( inside} 23-19 ; to end of line 99-99 }\n"
        "2. 8-11 {} 22-17 1/2-1/2\n"
    )
    g = read_game(text)
    assert longs(g) == ["11-15", "23-19", "8-11", "22-17"]
    assert g.result == "1/2-1/2"


def test_variations_are_skipped_even_nested() -> None:
    text = "1. 11-15 23-19 (1... 24-20 (1... 22-18 {x)} 2. 15x22) 2. 8-11) 2. 8-11 22-17 *"
    assert longs(read_game(text)) == ["11-15", "23-19", "8-11", "22-17"]


def test_nags_and_suffixes_are_skipped() -> None:
    text = "1. 11-15! 23-19?! $1 2. 8-11 !! 22-17 $14 3. 9-13?? 17-14!? *"
    assert longs(read_game(text)) == ["11-15", "23-19", "8-11", "22-17", "9-13", "17-14"]


def test_move_number_styles() -> None:
    text = "1.11-15 1...23-19 2 . 8-11 2. ... 22-17 3... 9-13 17-14 *"
    assert longs(read_game(text)) == ["11-15", "23-19", "8-11", "22-17", "9-13", "17-14"]


def test_full_path_short_form_and_colon_separator() -> None:
    fen = "B:W15,23,24:B11"
    for text in ("11x27", "11x18x27", "11:18:27", "11X27"):
        g = read_game(f'[FEN "{fen}"]\n1. {text} *')
        assert longs(g) == ["11x18x27"]
        assert g.moves[0].captures == (15, 23)


def test_split_multi_jump_is_joined() -> None:
    g = read_game('[FEN "B:W15,23,24,30:B11"]\n1. 11x18 18x27 2. 30-26 *')
    assert longs(g) == ["11x18x27", "30-26"]


def test_split_multi_jump_in_three_segments() -> None:
    # A king's round trip written segment by segment.
    g = read_game('[FEN "B:W15,16,23,24:BK11"]\n1. 11x18 18x27 27x20 20x11 *')
    assert len(g.moves) == 1
    assert g.moves[0].path[0] == 11 and g.moves[0].path[-1] == 11
    assert len(g.moves[0].captures) == 4


def test_consecutive_captures_by_both_sides_are_not_joined() -> None:
    # 15x22 then 25x18 is an exchange (two moves), not one jump.
    text = "1. 11-15 22-18 2. 15x22 25x18 *"
    assert longs(read_game(text)) == ["11-15", "22-18", "15x22", "25x18"]


def test_fen_setup_white_to_move_first() -> None:
    text = '[SetUp "1"]\n[FEN "W:W18,K22:B1-3."]\n[GameType "21,B,8,8,N1,0"]\n1... 18-14 2. 1-5 14-10 *'
    g = read_game(text)
    assert g.initial_fen == "W:W18,K22:B1,2,3"
    assert longs(g) == ["18-14", "1-5", "14-10"]
    assert Board(g.initial_fen).turn == WHITE
    assert g.board().fen() == "B:W10,K22:B2,3,5"


def test_fen_without_setup_tag_is_used() -> None:
    g = read_game('[FEN "B:W18,19:B14"]\n1. 14x23 *')
    assert longs(g) == ["14x23"]


@pytest.mark.parametrize("result", ["1-0", "0-1", "1/2-1/2", "*"])
def test_results(result: str) -> None:
    g = read_game(f"1. 11-15 23-19 {result}")
    assert g.result == result
    assert len(g.moves) == 2


def test_result_token_ends_the_game() -> None:
    games = read_games("1. 11-15 23-19 1-0 1. 9-13 22-18 0-1\n")
    assert [g.result for g in games] == ["1-0", "0-1"]
    assert [longs(g) for g in games] == [["11-15", "23-19"], ["9-13", "22-18"]]


def test_result_tag_used_when_movetext_has_none() -> None:
    games = read_games('[Result "0-1"]\n1. 11-15\n[Result "1-0"]\n1. 9-13\n')
    assert [g.result for g in games] == ["0-1", "1-0"]
    assert [len(g.moves) for g in games] == [1, 1]


def test_several_games_numbers_and_lines() -> None:
    text = (
        '[Event "one"]\n[Result "1-0"]\n1. 11-15 1-0\n\n'
        '[Event "two"]\n[Result "*"]\n1. 9-13 *\n\n'
        '[Event "three"]\n1. 10-14 *\n'
    )
    games = read_games(text)
    assert [g.tags["Event"] for g in games] == ["one", "two", "three"]
    assert [g.number for g in games] == [1, 2, 3]
    assert [g.line for g in games] == [1, 5, 9]


def test_tags_only_game() -> None:
    g = read_game('[Event "empty"]\n[Result "1/2-1/2"]\n')
    assert g.moves == [] and g.result == "1/2-1/2"


def test_bytes_latin1_fallback_and_bom() -> None:
    data = '\ufeff[Event "Café"]\n1. 11-15 *\n'.encode() + '[Event "Müller"]\n1. 9-13 *\n'.encode("latin-1")
    games = read_games(data)
    assert [g.tags["Event"] for g in games] == ["Café", "Müller"]


def test_crlf_line_endings() -> None:
    g = read_game('[Event "x"]\r\n1. 11-15 23-19 *\r\n')
    assert g.tags["Event"] == "x" and len(g.moves) == 2


def test_iter_games_from_path_and_files(tmp_path: Path) -> None:
    text = f'[Event "a"]\n{OPENING} 1-0\n\n[Event "b"]\n1. 9-13 *\n'
    path = tmp_path / "g.pdn"
    path.write_text(text)
    from_path = list(iter_games(path))
    from_str_path = list(iter_games(str(path)))
    from_text = list(iter_games(io.StringIO(text)))
    with path.open("rb") as fh:
        from_bytes = list(iter_games(fh))
    for games in (from_path, from_str_path, from_text, from_bytes):
        assert [g.tags["Event"] for g in games] == ["a", "b"]
        assert longs(games[0]) == OPENING_LONG


def test_iter_games_is_lazy() -> None:
    # An illegal move in game 3 is not reached when only two games are taken.
    text = "1. 11-15 *\n1. 9-13 *\n1. 11-11 *\n"
    games = list(itertools.islice(iter_games(io.StringIO(text)), 2))
    assert len(games) == 2


def test_select_and_game_at(tmp_path: Path) -> None:
    path = tmp_path / "g.pdn"
    path.write_text("1. 11-15 *\n1. 9-13 *\n1. 10-14 *\n1. 12-16 *\n")
    picked = list(iter_games(path, select=lambda n: n % 2 == 0))
    assert [(g.number, longs(g)) for g in picked] == [(2, ["9-13"]), (4, ["12-16"])]
    g3 = game_at(path, 3)
    assert g3 is not None and longs(g3) == ["10-14"]
    assert game_at(path, 5) is None


# ---- errors ----------------------------------------------------------------


def test_illegal_move_names_game_line_and_move() -> None:
    text = '[Event "ok"]\n1. 11-15 *\n\n[Event "bad"]\n[Result "*"]\n1. 11-15 23-19\n2. 8-11 19-15 *\n'
    with pytest.raises(PdnError) as info:
        read_games(text, source="games.pdn")
    msg = str(info.value)
    assert "games.pdn" in msg
    assert "game 2 (line 4)" in msg
    assert "move 2... '19-15'" in msg
    assert "line 7" in msg
    assert "illegal move" in msg


def test_compulsory_capture_is_explained() -> None:
    with pytest.raises(PdnError, match="capture is compulsory"):
        read_game("1. 11-15 22-18 2. 9-13 *")


def test_move_after_the_game_is_over() -> None:
    with pytest.raises(PdnError, match="no legal move"):
        read_game('[FEN "W:W18:B14"]\n1... 18x9 2. 1-5 *')


def test_white_move_label_after_setup() -> None:
    with pytest.raises(PdnError, match=r"move 1\.\.\. '18-13'"):
        read_game('[FEN "W:W18,K22:B1-3"]\n1... 18-13 *')


def test_ambiguous_short_capture() -> None:
    with pytest.raises(PdnError, match=r"ambiguous.*6x13x22, 6x15x22"):
        read_game('[FEN "B:W16,18,10,27,17,9:B6"]\n1. 6x22 *')
    g = read_game('[FEN "B:W16,18,10,27,17,9:B6"]\n1. 6x15x22 *')
    assert g.moves[0].captures == (10, 18)


def test_bad_fen() -> None:
    with pytest.raises(PdnError, match=r"game 1 \(line 1\): bad FEN tag: square 33"):
        read_game('[FEN "B:W33:B1"]\n[Event "x"]\n*')
    with pytest.raises(PdnError, match="bad FEN tag"):
        read_game('[FEN "X:W1:B2"]\n*')


def test_unsupported_game_type() -> None:
    with pytest.raises(PdnError, match="GameType '20'"):
        read_game('[GameType "20"]\n1. 32-28 *')


def test_unterminated_comment() -> None:
    with pytest.raises(PdnError, match=r"game 1 .*unterminated comment '\{' opened at line 2"):
        read_games('[Event "x"]\n1. 11-15 {never closed\n1-0\n\n[Event "y"]\n1. 9-13 *\n')


def test_unterminated_variation() -> None:
    with pytest.raises(PdnError, match="unterminated variation"):
        read_games('[Event "x"]\n1. 11-15 (1. 9-13\n1-0\n\n[Event "y"]\n1. 9-13 *\n')


def test_unreadable_token_and_tag() -> None:
    with pytest.raises(PdnError, match=r"at move 2\., line 1: unreadable token 'eleven'"):
        read_game("1. 11-15 23-19 eleven *")
    with pytest.raises(PdnError, match=r"line 2: unreadable tag"):
        read_game('[Event "x"]\n[Black "no end quote]\n1. 11-15 *')
    with pytest.raises(PdnError, match="unmatched '\\)'"):
        read_game("1. 11-15 ) 23-19 *")
    with pytest.raises(PdnError, match="square 33 out of range"):
        read_game("1. 11-15 33-28 *")


def test_lenient_records_error_and_carries_on() -> None:
    text = (
        '[Event "good"]\n1. 11-15 23-19 *\n\n'
        '[Event "bad"]\n1. 11-15 23-19 2. 11-15 22-17 *\n\n'
        '[Event "also good"]\n1. 9-13 *\n'
    )
    games = read_games(text, strict=False)
    assert [g.tags["Event"] for g in games] == ["good", "bad", "also good"]
    assert games[0].error is None and games[2].error is None
    assert games[1].error is not None and "game 2 (line 4)" in games[1].error
    assert longs(games[1]) == ["11-15", "23-19"]  # the moves before the problem


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        iter_games(tmp_path / "nope.pdn")  # at the call, not at the first next()


# ---- writing ---------------------------------------------------------------


def test_write_tag_order_and_movetext() -> None:
    g = read_game(
        '[Opening "Old Fourteenth"]\n[White "W"]\n[Black "B"]\n[Round "3"]\n[Date "1900.01.02"]\n'
        f'[Site "S"]\n[Event "E"]\n[Result "1-0"]\n{OPENING} 1-0\n'
    )
    text = write_game(g)
    assert text.splitlines() == [
        '[Event "E"]',
        '[Site "S"]',
        '[Date "1900.01.02"]',
        '[Round "3"]',
        '[Black "B"]',
        '[White "W"]',
        '[Result "1-0"]',
        '[GameType "21"]',
        '[Opening "Old Fourteenth"]',
        f"{OPENING} 1-0",
    ]


def test_write_setup_position_and_white_first() -> None:
    b = Board("W:W18,K22:B1,2,3")
    for text in ("18-14", "1-5", "14-10"):
        b.push_pdn(text)
    out = write_game(b, {"Event": "setup"})
    lines = out.splitlines()
    assert lines[:5] == [
        '[Event "setup"]',
        '[Result "*"]',
        '[GameType "21"]',
        '[SetUp "1"]',
        '[FEN "W:W18,K22:B1,2,3"]',
    ]
    assert lines[5] == "1... 18-14 2. 1-5 14-10 *"
    back = read_game(out)
    assert back.moves == b.move_stack and back.initial_fen == b.initial_fen


def test_write_start_position_has_no_fen() -> None:
    g = read_game(f'[FEN "{START_FEN}"]\n[SetUp "1"]\n1. 11-15 *')
    text = write_game(g)
    assert "FEN" not in text and "SetUp" not in text


def test_write_uses_long_notation_only_when_ambiguous() -> None:
    b = Board("B:W16,18,10,27,17,9:B6")
    b.push_pdn("6x15x22")
    assert "1. 6x15x22 *" in write_game(b)
    b = Board("B:W15,23,24:B11")
    b.push_pdn("11x18x27")
    assert "1. 11x27 *" in write_game(b)


def test_write_board_result_from_position() -> None:
    b = Board("W:W18:B14")
    b.push_pdn("18x9")
    assert write_game(b).splitlines()[-1] == "1... 18x9 0-1"


def test_write_lines_at_most_79_chars() -> None:
    b = Board()
    while b.legal_moves and len(b.move_stack) < 120 and not b.is_game_over():
        b.push(b.legal_moves[-1])
    text = write_game(b, {"Event": "long"})
    assert max(len(line) for line in text.splitlines()) <= 79
    assert read_game(text).moves == b.move_stack


def test_write_result_precedence() -> None:
    g = read_game('[Result "1-0"]\n1. 11-15 1-0')
    g.result = "*"
    assert '[Result "*"]' in write_game(g) and write_game(g).endswith("11-15 *\n")
    assert write_game(g, {"Result": "0-1"}).endswith("11-15 0-1\n")
    assert write_game(g, {"Result": "0-1"}, result="1/2-1/2").endswith("11-15 1/2-1/2\n")
    assert write_game(Board(), {"Result": "1-0"}).splitlines()[-1] == "1-0"


def test_write_rejects_bad_result_and_tag_name() -> None:
    with pytest.raises(PdnError, match="bad result"):
        write_game(Board(), result="2-0")
    with pytest.raises(PdnError, match="bad tag name"):
        write_game(Board(), {"Bad Name": "x"})


def test_round_trip() -> None:
    text = (
        '[Event "Round \\"trip\\""]\n[Black "B"]\n[White "W"]\n[Result "0-1"]\n'
        '[GameType "21"]\n[Annotator "me"]\n'
        "1. 11-15 {c} 23-19 (2. 9-14) 2. 8-11 $1 22-17 3. 9-13 17-14 4. 10x17 21x14 0-1\n\n"
        '[FEN "B:W15,23,24,30:B11"]\n[GameType "21"]\n[Result "*"]\n1. 11x18 18x27 2. 30-26 *\n'
    )
    games = read_games(text)
    written = write_games(games)
    again = read_games(written)
    assert [g.moves for g in again] == [g.moves for g in games]
    expected = []
    for g in games:
        tags = dict(g.tags)
        if "FEN" in tags:
            tags.setdefault("SetUp", "1")  # the writer adds SetUp to a set-up game
        expected.append(tags)
    assert [g.tags for g in again] == expected
    assert [g.result for g in again] == [g.result for g in games]
    assert write_games(again) == written


def test_movetext_helper() -> None:
    g = read_game(f"{OPENING} 1-0")
    assert movetext(g) == OPENING
    assert movetext(g, result=True) == f"{OPENING} 1-0"


# ---- the OCA corpus --------------------------------------------------------


def _check_oca(select: Callable[[int], bool] | None = None) -> tuple[int, int, int]:
    """Replay (strictly) the selected games; round-trip every 400th; (games, moves, last number)."""
    games = moves = last = 0
    for g in iter_games(OCA, select=select):
        games += 1
        moves += len(g.moves)
        last = g.number
        assert g.result in ("1-0", "0-1", "1/2-1/2")
        assert g.result == g.tags["Result"]
        if g.number % 400 == 1:
            text = write_game(g)
            back = read_game(text)
            assert back.moves == g.moves
            assert {k: v for k, v in back.tags.items() if k != "GameType"} == g.tags
            assert write_game(back) == text
    return games, moves, last


def test_oca_first_games_replay_from_the_shipped_sample() -> None:
    """The 60 games shipped in tests/data replay legally and round-trip, with or without ../shared."""
    games = list(iter_games(OCA_FIRST_60))
    assert len(games) == 60 and games[0].tags["Event"] == "Manchester 1841"
    for g in games:
        assert g.result in ("1-0", "0-1", "1/2-1/2")
        assert read_game(write_game(g)).moves == g.moves


@needs_oca
def test_oca_sample_replays() -> None:
    """The first 1500 games, every 20th after and the last: all replay legally and round-trip."""
    games, moves, last = _check_oca(lambda n: n <= 1500 or n % 20 == 0 or n == OCA_GAMES)
    assert games == 1500 + (OCA_GAMES // 20 - 1500 // 20) + 1
    assert last == OCA_GAMES
    assert moves > 50 * games


@needs_oca
@pytest.mark.slow
def test_oca_all_games_replay() -> None:
    games, moves, last = _check_oca()
    assert games == last == OCA_GAMES
    assert moves == 1_158_096


# ---- the command -----------------------------------------------------------


def _samuel(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "samuel", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )


def test_cli_check_good_file(tmp_path: Path) -> None:
    path = tmp_path / "good.pdn"
    path.write_text(f'[Event "a"]\n{OPENING} 1-0\n\n[Event "b"]\n1. 9-13 22-18 *\n')
    proc = _samuel("pdn", "check", str(path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["games 2, moves 10, errors 0"]


def test_cli_check_reports_errors(tmp_path: Path) -> None:
    path = tmp_path / "bad.pdn"
    path.write_text(f'[Event "a"]\n{OPENING} 1-0\n\n[Event "b"]\n1. 9-13 9-14 *\n\n[Event "c"]\n1. 11-15 *\n')
    proc = _samuel("pdn", "check", str(path))
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert lines[0] == "games 3, moves 10, errors 1"
    assert "game 2 (line 4)" in lines[1] and "9-14" in lines[1]
    limited = _samuel("pdn", "check", str(path), "--limit", "1")
    assert limited.returncode == 0
    assert limited.stdout.splitlines() == ["games 1, moves 8, errors 0"]


def test_cli_check_missing_file(tmp_path: Path) -> None:
    proc = _samuel("pdn", "check", str(tmp_path / "missing.pdn"))
    assert proc.returncode == 2
    assert "no such file" in proc.stderr and "missing.pdn" in proc.stderr


def test_cli_show(tmp_path: Path) -> None:
    path = tmp_path / "g.pdn"
    path.write_text(f'[Event "a"]\n1. 9-13 *\n\n[Event "b"]\n[Result "1-0"]\n{OPENING} 1-0\n')
    proc = _samuel("pdn", "show", str(path), "--game", "2")
    assert proc.returncode == 0, proc.stderr
    final = read_games(path.read_text())[1].board().fen()
    assert proc.stdout.splitlines() == [
        '[Event "b"]',
        '[Result "1-0"]',
        f"{OPENING} 1-0",
        f"FEN {final}",
    ]
    missing = _samuel("pdn", "show", str(path), "--game", "3")
    assert missing.returncode == 2 and "fewer than 3 games" in missing.stderr
