"""DXP messages: every type, the spec's and pydraughts' own examples, frames, and fuzzing."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.board import Board
from engine.move import Move
from engine.types import BLACK, WHITE
from protocol import dxp_grammar as g
from protocol.errors import ProtocolError

PYDRAUGHTS_GAMEREQ = "R01DXP Client                      W010000BZzzzzzzzzzzzzeeeeeeeewwwwwwwwwwww"


# ---- each message type ----


def test_chat() -> None:
    msg = g.parse_message("CWhat do you think about move 35?")
    assert msg == g.Chat("What do you think about move 35?")
    assert g.format_message(msg) == "CWhat do you think about move 35?"


def test_pydraughts_gamereq() -> None:
    msg = g.parse_message(PYDRAUGHTS_GAMEREQ)
    assert isinstance(msg, g.GameReq)
    assert msg.name == "DXP Client"
    assert msg.follower == WHITE
    assert (msg.minutes, msg.moves) == (10, 0)
    assert msg.position == g.Position(BLACK, "zzzzzzzzzzzzeeeeeeeewwwwwwwwwwww")
    assert g.format_message(msg) == PYDRAUGHTS_GAMEREQ
    assert g.board_of(msg.position) == Board()
    assert g.board_of(msg.position, "pydraughts") == Board()


def test_gamereq_start_position_a() -> None:
    text = "R01Tornado voor Windows 4.0        W060065A"
    msg = g.parse_message(text)
    assert isinstance(msg, g.GameReq) and msg.position is None
    assert (msg.name, msg.follower, msg.minutes, msg.moves) == ("Tornado voor Windows 4.0", WHITE, 60, 65)
    assert g.format_message(msg) == text
    assert g.board_of(None) == Board()


def test_gamereq_jocly_padding() -> None:
    pieces = "zzzzzzzzzzzzeeeeeeeewwwwwwwwwwww"
    text = "R01" + "JoclyBoard".ljust(32) + "Z000000BZ" + pieces + " " * 18
    msg = g.parse_message(text)
    assert isinstance(msg, g.GameReq) and msg.position == g.Position(BLACK, pieces)


@pytest.mark.parametrize(("text", "field"), [
    ("R02" + "X".ljust(32) + "W000000A", "version"),
    ("R0a" + "X".ljust(32) + "W000000A", "version"),
    ("R01" + "X".ljust(32) + "Q000000A", "follower colour"),
    ("R01" + "X".ljust(32) + "W0x0000A", "thinking time"),
    ("R01" + "X".ljust(32) + "W000-00A", "number of moves"),
    ("R01" + "X".ljust(32) + "W000000C", "starting position"),
    ("R01" + "X".ljust(32) + "W000000AZ", "position A"),
    ("R01" + "X".ljust(32) + "W000000BQ" + "e" * 32, "colour to move"),
    ("R01" + "X".ljust(32) + "W000000BZ" + "e" * 31, "position"),
    ("R01" + "X".ljust(32) + "W000000BZ" + "e" * 31 + "x", "not one of"),
    ("R01" + "X".ljust(32) + "W000000BZ" + "e" * 50, "10x10"),
    ("R01" + "X".ljust(20), "at least 43"),
])
def test_gamereq_errors_name_the_field(text: str, field: str) -> None:
    with pytest.raises(ProtocolError, match=field):
        g.parse_message(text)


def test_gamereq_other_version_is_a_version_error() -> None:
    with pytest.raises(g.VersionError) as info:
        g.parse_message("R02" + "Future engine".ljust(32) + "W000000A")
    assert info.value.version == "02" and info.value.name == "Future engine"


def test_gameacc() -> None:
    text = "ATornado voor Windows 4.0        0"
    msg = g.parse_message(text)
    assert msg == g.GameAcc("Tornado voor Windows 4.0", 0)
    assert g.format_message(msg) == text
    assert g.format_message(g.GameAcc("x" * 40, 2)) == "A" + "x" * 32 + "2"
    assert g.format_message(g.GameAcc("Mock", 0)) == "AMock" + " " * 28 + "0"
    for bad in ("AMock0", "A" + " " * 32 + "4", "A" + " " * 32 + "00"):
        with pytest.raises(ProtocolError, match="GAMEACC"):
            g.parse_message(bad)


def test_move_examples_from_the_spec() -> None:
    msg = g.parse_message("M0012061100")
    assert msg == g.MoveMsg(12, 6, 11, ())
    assert g.format_message(msg) == "M0012061100"
    msg = g.parse_message("M001205250422122320")
    assert msg == g.MoveMsg(12, 5, 25, (22, 12, 23, 20))
    assert g.format_message(msg) == "M001205250422122320"


@pytest.mark.parametrize(("text", "field"), [
    ("M00120611", "at least 11"),
    ("M00x2061100", "MOVE time"),
    ("M0012331100", "from field"),
    ("M0012060000", "to field"),
    ("M00120611a0", "number captured"),
    ("M0012061101", "with 1 captures"),
    ("M00120611011516", "with 1 captures"),
    ("M00120611011", "with 1 captures"),
    ("M00120611023333", "captured piece 1"),
    ("M00120611021515", "listed twice"),
    ("M001206112100", "more than 20"),
])
def test_move_errors_name_the_field(text: str, field: str) -> None:
    with pytest.raises(ProtocolError, match=field):
        g.parse_message(text)


def test_gameend() -> None:
    for text, reason, stop in (("E00", 0, 0), ("E01", 0, 1), ("E10", 1, 0), ("E21", 2, 1), ("E30", 3, 0)):
        msg = g.parse_message(text)
        assert msg == g.GameEnd(reason, stop)
        assert g.format_message(msg) == text
    for bad in ("E", "E0", "E000", "E40", "E02"):
        with pytest.raises(ProtocolError, match="GAMEEND"):
            g.parse_message(bad)


def test_backreq_and_backacc() -> None:
    assert g.parse_message("B005Z") == g.BackReq(5, BLACK)
    assert g.parse_message("B123W") == g.BackReq(123, WHITE)
    assert g.format_message(g.BackReq(5, BLACK)) == "B005Z"
    for bad, field in (("B000Z", "000"), ("B05Z", "BACKREQ"), ("B005X", "colour"), ("B00aZ", "move number")):
        with pytest.raises(ProtocolError, match=field):
            g.parse_message(bad)
    for code in range(3):
        assert g.parse_message(f"K{code}") == g.BackAcc(code)
        assert g.format_message(g.BackAcc(code)) == f"K{code}"
    for bad in ("K", "K3", "K00"):
        with pytest.raises(ProtocolError, match="BACKACC"):
            g.parse_message(bad)


def test_message_level_errors() -> None:
    for bad, what in (("", "1..127"), ("C" + "x" * 127, "1..127"), ("X12", "unknown message type"),
                      ("C", "empty"), ("Cé", "not DXP text"), ("C\x00", "not DXP text")):
        with pytest.raises(ProtocolError, match=what):
            g.parse_message(bad)
    with pytest.raises(ProtocolError, match="byte 0xc3 at offset 1"):
        g.decode_frame("Cé".encode())
    assert g.decode_frame(b"E00") == "E00"


def test_name_padding_and_truncation() -> None:
    assert g.pad_name("samuel") == "samuel" + " " * 26
    assert g.pad_name(" spaced ") == "spaced" + " " * 26
    assert len(g.pad_name("n" * 100)) == 32
    assert g.pad_name("naïve") == "na?ve" + " " * 27


# ---- frames ----


def test_reference_frame_example() -> None:
    board = Board("B:W6,7,15,23:B1,K32")
    pos = g.position_of(board, "pydraughts")
    assert "Z" + pos.pieces == "ZWeeeeeeeezeeeeeeezeeeeeeezzeeeew"
    assert g.board_of(pos, "pydraughts") == board
    literal = g.position_of(board)
    assert literal.pieces[0] == "z" and literal.pieces[31] == "Z"
    assert g.board_of(literal) == board
    # The same letters read in the other frame are a different position.
    assert g.board_of(pos, "literal") != board


def test_pydraughts_frame_matches_pydraughts() -> None:
    draughts = pytest.importorskip("draughts")
    fen = "W:W17,22,23,24,25,26,27,28,29,30,31,32:B1,10,11,12,13,2,3,4,6,7,8,9"
    ours = g.position_of(Board(fen), "pydraughts")
    theirs = draughts.Board(variant="english", fen=fen)._game.get_dxp_fen()
    assert ours.pieces == theirs


def test_unreadable_position() -> None:
    with pytest.raises(ProtocolError, match="cannot be set up"):
        g.board_of(g.Position(BLACK, "w" + "e" * 31))  # a white man on its crowning row


# ---- moves against a board ----


def test_find_move_any_capture_order() -> None:
    board = Board("W:WK26:B15,16,23,24")  # a king with several jumps
    for m in board.legal_moves:
        msg = g.move_message(m, 3)
        assert g.find_move(board, msg).captures and set(g.find_move(board, msg).captures) == set(m.captures)
        shuffled = g.MoveMsg(0, msg.from_square, msg.to_square, tuple(reversed(msg.captures)))
        found = g.find_move(board, shuffled)
        ends = (found.path[0], found.path[-1], set(found.captures))
        assert ends == (m.path[0], m.path[-1], set(m.captures))


def test_captured_set_disambiguates() -> None:
    # From 15 to 6 over 10 alone, or round the block taking five (in two directions).
    board = Board("B:W10,12,18,19,26,27:BK15")
    ends = [m for m in board.legal_moves if m.path[0] == 15 and m.path[-1] == 6]
    assert len({frozenset(m.captures) for m in ends}) == 2
    for m in ends:
        assert set(g.find_move(board, g.move_message(m)).captures) == set(m.captures)
    assert g.find_move(board, g.MoveMsg(0, 15, 6, (10,))).captures == (10,)
    assert len(g.find_move(board, g.MoveMsg(0, 15, 6, (10, 18, 19, 26, 27))).captures) == 5


def test_find_move_rejects() -> None:
    board = Board()
    assert g.find_move(board, g.MoveMsg(0, 11, 15)) == board.parse_move("11-15")
    with pytest.raises(g.IllegalMoveMessage, match="illegal move 11-18"):
        g.find_move(board, g.MoveMsg(0, 11, 18))
    board.push_many(["11-15", "23-19", "8-11", "22-17"])
    with pytest.raises(g.IllegalMoveMessage):
        g.find_move(board, g.MoveMsg(0, 9, 14, (13,)))


def test_move_message_sends_from_to_and_captures_only() -> None:
    m = Move((15, 24, 31), (19, 28))  # hypothetical path; only ends and captures matter
    assert g.format_message(g.move_message(m, 7)) == "M0007153102" + "1928"
    assert g.move_message(m, 123456).seconds == 9999


# ---- property tests ----


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=140))
def test_random_text_raises_only_protocol_error(text: str) -> None:
    with contextlib.suppress(ProtocolError):
        g.parse_message(text)


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=140))
def test_random_bytes_raise_only_protocol_error(data: bytes) -> None:
    with contextlib.suppress(ProtocolError):
        g.parse_message(g.decode_frame(data))


@settings(max_examples=200, deadline=None)
@given(st.sampled_from("CRAMEBK"), st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126),
                                           max_size=100))
def test_typed_junk_raises_only_protocol_error(kind: str, rest: str) -> None:
    with contextlib.suppress(ProtocolError):
        g.parse_message(kind + rest)


colors = st.sampled_from([BLACK, WHITE])
names = st.text(alphabet=st.characters(min_codepoint=33, max_codepoint=126), min_size=1, max_size=32)
squares = st.integers(1, 32)
messages = st.one_of(
    st.builds(g.Chat, st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), min_size=1,
                              max_size=126).filter(lambda t: t.strip() == t or t[0] != " ")),
    st.builds(g.GameReq, names, colors, st.integers(0, 999), st.integers(0, 999),
              st.one_of(st.none(), st.builds(g.Position, colors, st.text(alphabet="wzWZe", min_size=32,
                                                                         max_size=32)))),
    st.builds(g.GameAcc, names, st.integers(0, 3)),
    st.builds(g.MoveMsg, st.integers(0, 9999), squares, squares,
              st.lists(squares, max_size=12, unique=True).map(tuple)),
    st.builds(g.GameEnd, st.integers(0, 3), st.integers(0, 1)),
    st.builds(g.BackReq, st.integers(1, 999), colors),
    st.builds(g.BackAcc, st.integers(0, 2)),
)


@settings(max_examples=500, deadline=None)
@given(messages)
def test_format_parse_round_trip(msg: g.Message) -> None:
    text = g.format_message(msg)
    assert 1 <= len(text) <= g.MAX_MESSAGE
    assert g.parse_message(text) == msg


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(("literal", "pydraughts")))
def test_position_round_trip_on_real_games(seed: int, frame: str) -> None:
    import random

    rng = random.Random(seed)
    board = Board()
    for _ in range(rng.randrange(0, 60)):
        if board.is_game_over():
            break
        board.push(rng.choice(board.legal_moves))
    pos = g.position_of(board, frame)
    assert g.board_of(pos, frame) == board
