"""Hub grammar: tokenising, quoting, moves, positions and frames, levels, info/done lines."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from engine.board import Board
from engine.limits import Limit
from engine.move import Move
from engine.search import Score, SearchInfo
from protocol import hub_grammar as g
from protocol.errors import ProtocolError

BALLOT_FEN = "W:W17,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,6,7,8,9,10,11,12,13"
BALLOT_PYD = "Bbbbbbbbbbbbeeeebeeewwwwwwwwewwww"
"""pydraughts' ``initial_hub_fen`` for BALLOT_FEN (rotated, colours and side swapped)."""


# ---- tokeniser and formatter


def test_tokenize_command_values_quotes_and_flags() -> None:
    line = g.tokenize('pos pos=Wbbb moves="11-15 24-20" start')
    assert line == g.HubLine("pos", {"pos": "Wbbb", "moves": "11-15 24-20", "start": None})
    assert g.tokenize("  ping\t") == g.HubLine("ping", {})
    assert g.tokenize('error message=""') == g.HubLine("error", {"message": ""})
    assert g.tokenize("   ") is None
    assert g.tokenize("") is None


@pytest.mark.parametrize(("text", "name", "fragment"), [
    # An unquoted list of moves: only its first move was read, the rest dropped without a word.
    ("pos pos=X moves=11-15 24-20 15-19", "moves",
     'stray tokens after moves=: 24-20 15-19; quote the whole list: moves="11-15 24-20 15-19"'),
    ('pos pos=X moves="11-15 24-20" 15-19', "moves", 'moves="11-15 24-20 15-19"'),
    ("pos moves=11-15 24-2O start pos=X", "moves", "stray tokens after moves=: 24-2O"),
    # Moves with no moves= at all, and any other value with spaces sent unquoted.
    ("pos pos=X 11-15 24-20", "pos", 'stray tokens after pos=: 11-15 24-20; moves go in one quoted value: '
                                     'moves="11-15 24-20"'),
    ("level moves=40 time=60 7", "time", "stray tokens after time=: 7; a value with spaces must be quoted"),
    ("set-param name=hash value=64 128", "value", "stray tokens after value=: 128"),
])
def test_stray_tokens_after_a_value_are_an_error_naming_them(text: str, name: str, fragment: str) -> None:
    line = g.tokenize(text)
    assert line is not None
    with pytest.raises(ProtocolError, match="^" + line.command + ": ") as err:
        line.value(name)
    assert fragment in str(err.value)
    with pytest.raises(ProtocolError, match="stray tokens"):
        line.require(name)


def test_quoted_lists_and_flags_that_are_names_are_no_strays() -> None:
    line = g.tokenize('pos pos=X moves="11-15 24-20 15-19" start future-flag')
    assert line is not None and line.value("moves") == "11-15 24-20 15-19"
    assert line.has("start") and line.has("future-flag") and not line.strays
    line = g.tokenize("level moves=40 time=60")
    assert line is not None and (line.value("moves"), line.value("time")) == ("40", "60")
    line = g.tokenize("go 11-15 think")  # before any value: an unknown flag, ignored as Hub asks
    assert line is not None and line.has("think") and not line.strays


@pytest.mark.parametrize("text", [
    'pos pos="unterminated',
    "=x",
    '"quoted" x',
    "level depth=",
    "level depth= 3",
    "level a=b=c",
    'set-param name="a"b',
    "ping\x00",
    "go\x1bthink",
])
def test_tokenize_rejects_broken_syntax(text: str) -> None:
    with pytest.raises(ProtocolError):
        g.tokenize(text)


def _id_char_slowly(ch: str) -> bool:
    return ch.isprintable() and ch not in ' \t="'


@given(st.text(st.characters(codec="utf-8"), max_size=40))
@example('a=b"c\x00d\te\u2028f')
def test_names_and_plain_values_read_as_scan_reads_them(text: str) -> None:
    # The reference: a character at a time, by Scan's rule.  The tokeniser reads only lines that
    # passed its control-character check; ``_plain`` sees anything.
    assert g._plain(text) == (bool(text) and all(_id_char_slowly(ch) for ch in text))
    clean = "".join(ch if ch.isprintable() or ch in " \t" else "?" for ch in text)
    for i in range(len(clean) + 1):
        j = i
        while j < len(clean) and _id_char_slowly(clean[j]):
            j += 1
        assert g._read_id(clean, i) == (clean[i:j], j)


def test_format_line_quotes_only_when_needed() -> None:
    assert g.format_line("id", [("name", "samuel"), ("author", "a b")]) == 'id name=samuel author="a b"'
    assert g.format_line("x", [("k", ""), ("f", None), ("e", "a=b")]) == 'x k="" f e="a=b"'
    line = g.format_line("param", [("values", "english")], always_quote=["values"])
    assert line == 'param values="english"'
    assert g.error_line('say "hi"') == "error message=\"say 'hi'\""


@given(st.dictionaries(
    st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Zs", "Zl", "Zp", "Cf", "Co", "Cn")),
            min_size=1, max_size=8).filter(lambda k: '"' not in k and "=" not in k),
    st.text(max_size=20).filter(lambda v: '"' not in v and all(c.isprintable() for c in v)),
    max_size=5,
))
def test_format_then_tokenize_round_trips(args: dict[str, str]) -> None:
    line = g.tokenize(g.format_line("cmd", args))
    assert line is not None and line.command == "cmd"
    # Blanks other than space/tab are kept inside quotes, so values survive exactly.
    assert line.args == args


# ---- moves


def test_moves_quiet_and_capture_forms() -> None:
    b = Board()
    b.push_many(["11-15", "24-20", "15-19"])
    m = g.parse_move(b, "23x16x19")
    assert m.path == (23, 16) and m.captures == (19,)
    assert g.format_move(m) == "23x16x19"
    assert g.parse_move(b, "23x16") == m  # from x to alone when it is unique
    with pytest.raises(ProtocolError, match="illegal"):
        g.parse_move(b, "22-18")  # a capture is compulsory
    with pytest.raises(ProtocolError, match="illegal"):
        g.parse_move(b, "23x16x20")


def test_multi_capture_captured_in_any_order() -> None:
    b = Board("W:WK28:B24,16,8,K15")
    moves = [m for m in b.legal_moves if len(m.captures) >= 2]
    assert moves
    m = moves[0]
    text = "x".join(str(s) for s in (m.path[0], m.path[-1], *reversed(sorted(m.captures))))
    assert g.parse_move(b, text).captures == m.captures or set(g.parse_move(b, text).captures) == set(
        m.captures)
    assert g.format_move(m).split("x")[2:] == [str(s) for s in sorted(m.captures)]


@pytest.mark.parametrize("text", ["", "11", "11-", "-15", "11-15-19", "0-4", "33-28", "abc", "1x", "x",
                                  "11x15x15x15", "999-1", "11--15"])
def test_bad_move_text(text: str) -> None:
    with pytest.raises(ProtocolError):
        g.parse_move(Board(), text)


def test_parse_moves_names_the_failing_move() -> None:
    with pytest.raises(ProtocolError, match=r"move 2 \(11-15\)"):
        g.parse_moves(Board(), "11-15 11-15")


def test_format_pv_stops_at_an_illegal_move() -> None:
    b = Board()
    pv = (b.parse_move("11-15"), b.parse_move("9-13"))
    assert g.format_pv(b, pv) == "11-15"


# ---- positions and frames


def test_literal_start_and_pydraughts_start() -> None:
    assert g.parse_position_string(g.LITERAL_START, "literal") == Board()
    assert g.parse_position_string(g.PYDRAUGHTS_START, "pydraughts") == Board()
    b, frame = g.read_position(g.PYDRAUGHTS_START, None, "auto")
    assert b == Board() and frame == "pydraughts"
    b, frame = g.read_position(g.LITERAL_START, "11-15", "auto")
    assert frame == "literal" and b.move_stack == [Board().parse_move("11-15")]
    # Taken literally, pydraughts' start string is the start position with White to move.
    b, frame = g.read_position(g.PYDRAUGHTS_START, None, "literal")
    assert frame == "literal" and b.fen().startswith("W:")


def test_auto_falls_back_to_pydraughts_when_moves_do_not_replay() -> None:
    b, frame = g.read_position(BALLOT_PYD, "25-21", "auto")
    assert frame == "pydraughts"
    expected = Board(BALLOT_FEN)
    expected.push_pdn("25-21")
    assert b == expected
    literal = g.format_position(Board(BALLOT_FEN))
    b, frame = g.read_position(literal, "25-21", "auto")
    assert frame == "literal" and b == expected
    assert g.format_position(Board(BALLOT_FEN), "pydraughts") == BALLOT_PYD


def test_auto_without_moves_is_literal_and_fen_is_accepted() -> None:
    b, frame = g.read_position(BALLOT_PYD, None, "auto")
    assert frame == "literal" and b != Board(BALLOT_FEN)
    b, frame = g.read_position(BALLOT_FEN, "25-21", "pydraughts")
    assert frame == "literal" and len(b.move_stack) == 1


def test_moves_that_replay_in_neither_frame_report_the_literal_error() -> None:
    with pytest.raises(ProtocolError, match="moves: move 1"):
        g.read_position(g.LITERAL_START, "24-28", "auto")


@pytest.mark.parametrize("pos", [
    "", "W", "X" + "e" * 32, "B" + "e" * 31, "B" + "x" * 32, "B" + "e" * 50,
    "Bbbbbbbbbbbbbeeeeeeeewwwwwwwwwwwb",
    "B:W33:B1", "B:Q1", ":", "W" + "b" * 28 + "bbbb",
])
def test_bad_positions(pos: str) -> None:
    with pytest.raises(ProtocolError):
        g.read_position(pos, None, "auto")


def test_unknown_frame() -> None:
    with pytest.raises(ProtocolError):
        g.read_position(g.LITERAL_START, None, "sideways")


# ---- levels


def level(text: str) -> Limit:
    line = g.tokenize(text)
    assert line is not None
    return g.parse_level(line)


def test_every_level_form() -> None:
    assert level("level depth=6") == Limit(depth=6)
    assert level("level nodes=20000") == Limit(nodes=20000)
    assert level("level move-time=0.5") == Limit(movetime=0.5)
    assert level("level time=58 inc=2") == Limit(time=60.0, inc=2.0)  # Hub adds inc before the move
    assert level("level time=30") == Limit(time=30.0)
    assert level("level moves=9 time=291.587") == Limit(time=291.587, moves_to_go=9)
    assert level("level moves=9 time=10 inc=1") == Limit(time=11.0, inc=1.0, moves_to_go=9)
    assert level("level infinite") == Limit()
    assert level("level depth=4 move-time=1 bogus=7") == Limit(depth=4, movetime=1.0)


@pytest.mark.parametrize("text", [
    "level", "level bogus=1", "level depth=0", "level depth=x", "level depth=2.5", "level depth",
    "level nodes=-1", "level move-time=0", "level move-time=nan", "level time=inf", "level time=-1",
    "level moves=3", "level inc=2", "level moves=0 time=5", "level infinite depth=3", "level infinite=1",
    "level depth=99999999",
])
def test_bad_levels(text: str) -> None:
    with pytest.raises(ProtocolError):
        level(text)


@pytest.mark.parametrize("limit", [
    Limit(depth=6), Limit(nodes=100), Limit(movetime=0.25), Limit(time=60, inc=2), Limit(time=10),
    Limit(time=100, moves_to_go=20), Limit(),
])
def test_format_level_round_trips(limit: Limit) -> None:
    assert level(g.format_level(limit)) == limit


# ---- output


def info(score: int = 25, pv: tuple[Move, ...] = ()) -> SearchInfo:
    return SearchInfo(depth=7, seldepth=12, score=Score(score), nodes=123456, nps=2_345_678, time=0.0526,
                      pv=pv)


def test_format_info_and_done() -> None:
    b = Board()
    pv = (b.parse_move("11-15"),)
    line = g.format_info(b, info(pv=pv))
    assert line == ('info depth=7 mean-depth=7.0 seldepth=12 score=0.25 nodes=123456 time=0.053 nps=2.3 '
                    'pv="11-15"')
    parsed = g.tokenize(line)
    assert parsed is not None and all(v is not None for v in parsed.args.values())
    after = b.copy()
    after.push(pv[0])
    reply = after.parse_move("23-19")
    assert g.format_done(b, pv[0], reply) == "done move=11-15 ponder=23-19"
    assert g.format_done(b, pv[0], pv[0]) == "done move=11-15"  # an illegal ponder move is dropped


def test_win_scores_read_as_wins_by_pydraughts() -> None:
    from engine import core

    win = info(score=core.WIN - 5)
    assert g.score_men(win) == pytest.approx(99.95)
    assert g.score_men(info(score=-(core.WIN - 5))) == pytest.approx(-99.95)


# ---- property tests: junk raises ProtocolError or parses, never anything else

junk = st.text(max_size=80)
move_junk = st.one_of(st.text(max_size=20), st.from_regex(r"[0-9x\- X]{0,16}", fullmatch=True))
pos_junk = st.one_of(
    st.text(max_size=60),
    st.from_regex(r"[WB][wbWBe]{30,34}", fullmatch=True),
    st.from_regex(r"[WB]:[WB][K0-9,]{0,30}:[WB][K0-9,]{0,30}", fullmatch=True),
)


@settings(max_examples=300, deadline=None)
@given(junk)
def test_tokenize_never_crashes(text: str) -> None:
    with contextlib.suppress(ProtocolError):
        g.tokenize(text)


@settings(max_examples=300, deadline=None)
@given(move_junk)
def test_parse_move_never_crashes(text: str) -> None:
    b = Board()
    b.push_many(["11-15", "24-20", "15-19"])
    try:
        m = g.parse_move(b, text)
    except ProtocolError:
        return
    assert b.is_legal(m)


@settings(max_examples=300, deadline=None)
@given(pos_junk, st.one_of(st.none(), move_junk), st.sampled_from(g.HUB_FRAMES))
def test_read_position_never_crashes(pos: str, moves: str | None, frame: str) -> None:
    with contextlib.suppress(ProtocolError):
        g.read_position(pos, moves, frame)


LEVEL_KEYS = ["depth", "nodes", "move-time", "moves", "time", "inc", "infinite", "x"]


@settings(max_examples=300, deadline=None)
@example({"time": "1", "inc": "10000000"})  # each in range, their sum (the clock this move) is not
@given(st.dictionaries(st.sampled_from(LEVEL_KEYS),
                       st.one_of(st.none(), st.text(max_size=12),
                                 st.floats(allow_nan=True).map(str), st.integers().map(str)),
                       max_size=4))
def test_parse_level_never_crashes(args: dict[str, str | None]) -> None:
    with contextlib.suppress(ProtocolError):
        g.parse_level(g.HubLine("level", args))
