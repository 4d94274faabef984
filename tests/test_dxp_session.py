"""The DXP follower over real loopback sockets: framing, errors, take-back, game end, concurrency."""

from __future__ import annotations

import contextlib
import random
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from serving import DxpServerThread as ServerThread

from engine.board import Board
from engine.options import OptionValues
from protocol import dxp_grammar as g
from protocol import dxp_session
from protocol.context import ServerSettings
from protocol.dxp_session import end_reason, ply_of
from protocol.session_engine import SessionDefaults

pytestmark = pytest.mark.timeout(120)

NAME = "tester"


def make_settings(**kw: Any) -> ServerSettings:
    base: dict[str, Any] = {"dxp_movetime": 0.02, "defaults": SessionDefaults(options=OptionValues(hash=1)),
                            "idle_timeout": 60.0}
    base.update(kw)
    return ServerSettings(**base)


class Client:
    """A raw DXP client on a blocking socket."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.buf = b""
        self.chats: list[str] = []

    def send(self, data: str | bytes) -> None:
        raw = data.encode() + b"\0" if isinstance(data, str) else data
        self.sock.sendall(raw)

    def recv(self, timeout: float = 10.0) -> str:
        self.sock.settimeout(timeout)
        while b"\0" not in self.buf:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise EOFError("server closed the connection")
            self.buf += chunk
        frame, self.buf = self.buf.split(b"\0", 1)
        return frame.decode("ascii")

    def expect(self, prefix: str, timeout: float = 10.0) -> str:
        """The next message starting with ``prefix``; chats on the way are kept in ``chats``."""
        while True:
            text = self.recv(timeout)
            if text.startswith(prefix):
                return text
            assert text.startswith("C"), f"expected {prefix!r}, got {text!r}"
            self.chats.append(text[1:])

    def at_eof(self, timeout: float = 10.0) -> bool:
        self.sock.settimeout(timeout)
        try:
            while True:
                chunk = self.sock.recv(4096)
                if not chunk:
                    return True
                self.buf += chunk
        except TimeoutError:
            return False

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()


def gamereq(follower: str = "W", board: Board | None = None, minutes: int = 0, frame: str = "literal") -> str:
    pos = None if board is None else g.position_of(board, frame)
    follower_color = 1 if follower == "W" else 0
    return g.format_message(g.GameReq(NAME, follower_color, minutes, 0, pos))


def accept(c: Client, follower: str = "W", board: Board | None = None, minutes: int = 0) -> None:
    c.send(gamereq(follower, board, minutes))
    acc = c.expect("A")
    assert acc == "A" + g.pad_name("samuel") + "0"


def engine_reply(c: Client, board: Board) -> None:
    msg = g.parse_message(c.expect("M"))
    assert isinstance(msg, g.MoveMsg)
    board.push(g.find_move(board, msg))


def our_move(c: Client, board: Board, rng: random.Random) -> None:
    move = rng.choice(board.legal_moves)
    c.send(g.format_message(g.move_message(move)))
    board.push(move)


@pytest.fixture(autouse=True)
def fast_gap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dxp_session, "MESSAGE_GAP", 0.005)


@pytest.fixture()
def server() -> Iterator[ServerThread]:
    with ServerThread(make_settings()) as srv:
        yield srv


@pytest.fixture()
def client(server: ServerThread) -> Iterator[Client]:
    c = Client(server.port)
    yield c
    c.close()


# ---- framing ----


def test_coalesced_messages_in_one_write(client: Client) -> None:
    board = Board()
    move = board.parse_move("11-15")
    client.send(gamereq("W").encode() + b"\0" + b"CHello\0" + g.format_message(g.move_message(move)).encode()
                + b"\0")
    assert client.expect("A").endswith("0")
    board.push(move)
    engine_reply(client, board)
    assert board.turn == 0


def test_split_messages(client: Client) -> None:
    raw = gamereq("Z").encode() + b"\0"
    for i in range(0, len(raw), 7):
        client.send(raw[i : i + 7])
        time.sleep(0.01)
    assert client.expect("A").endswith("0")
    board = Board()
    engine_reply(client, board)  # the follower plays Black, which moves first


def test_gap_between_gameacc_and_first_move(monkeypatch: pytest.MonkeyPatch, client: Client) -> None:
    monkeypatch.setattr(dxp_session, "MESSAGE_GAP", 0.3)  # generous, so a slow reader still sees it
    client.send(gamereq("Z"))
    client.sock.settimeout(10)
    first = client.sock.recv(4096)
    assert first.count(b"\0") == 1 and first.startswith(b"A")  # never two messages in one write
    engine_reply(client, Board())


def test_oversized_message_then_normal_play(client: Client) -> None:
    client.send("C" + "x" * 300)
    assert client.expect("C").startswith("Cerror: message longer than 127")
    accept(client)


def test_invalid_bytes(client: Client) -> None:
    client.send(b"C\xff\xfe\0")
    assert "byte 0xff at offset 1" in client.expect("C")
    client.send(b"\0")  # an empty message
    assert "1..127" in client.expect("C")
    client.send("Qwhat")
    assert "unknown message type" in client.expect("C")
    accept(client)


# ---- game requests ----


def test_wrong_version(client: Client) -> None:
    client.send("R02" + "future".ljust(32) + "W000000A")
    assert client.expect("A") == "A" + g.pad_name("samuel") + "1"
    accept(client)


def test_start_position_a_and_unplayable_positions(client: Client) -> None:
    client.send("R01" + NAME.ljust(32) + "Z000000A")
    assert client.expect("A").endswith("0")
    engine_reply(client, Board())
    # No legal move for the side to move: declined with 2, with a chat saying why.
    client.send(gamereq("W", Board("B:W23,24:B")))
    assert client.expect("A").endswith("2")
    assert any("no legal moves" in c for c in client.chats)
    # A man on its crowning row cannot be set up.
    client.send("R01" + NAME.ljust(32) + "W000000BZ" + "w" + "e" * 30 + "z")
    assert client.expect("A").endswith("2")
    accept(client)


def test_pydraughts_frame_setting() -> None:
    board = Board("W:W17,22,23,24,25,26,27,28,29,30,31,32:B1,10,11,12,13,2,3,4,6,7,8,9")
    with ServerThread(make_settings(dxp_frame="pydraughts")) as srv:
        c = Client(srv.port)
        c.send(gamereq("W", board, frame="pydraughts"))
        assert c.expect("A").endswith("0")
        engine_reply(c, board)  # legal in the real position: the frame was read as pydraughts writes it
        c.close()


def test_move_before_gamereq(client: Client) -> None:
    client.send("M0000111500")
    assert "without a game" in client.expect("C")
    client.send("K0")
    assert "unexpected BACKACC" in client.expect("C")
    accept(client)


def test_illegal_move_gets_chat_and_gameend(client: Client) -> None:
    accept(client, "W")
    client.send("M0000111800")
    assert "illegal move 11-18" in client.expect("C")
    assert client.recv() == "E00"
    client.send("E00")  # our confirmation: no answer to it
    accept(client, "W")  # and a new game is welcome
    # A second move in the same write arrives while the engine is to move.
    client.send(b"M0000111500\0M0000091300\0")
    assert "out of turn" in client.expect("C")
    assert client.recv() == "E00"


# ---- take-back ----


def test_backreq(client: Client) -> None:
    rng = random.Random(7)
    accept(client, "W")
    board = Board()
    for _ in range(3):
        our_move(client, board, rng)
        engine_reply(client, board)
    client.send("B009Z")  # a move not played yet
    assert client.recv() == "K1"
    client.send("B002W")  # back to White's (the engine's) second move: it moves again
    assert client.recv() == "K0"
    while len(board.move_stack) > 3:
        board.pop()
    engine_reply(client, board)
    client.send("B001Z")  # back to the start, our move
    assert client.recv() == "K0"
    board = Board()
    our_move(client, board, rng)
    engine_reply(client, board)
    assert len(board.move_stack) == 2


def test_backreq_outside_a_game(client: Client) -> None:
    client.send("B001Z")
    assert client.recv() == "K1"


def test_ply_of_numbering() -> None:
    b = Board()
    b.push_many(["11-15", "23-19", "8-11"])
    assert ply_of(b, 1, 0) == 0 and ply_of(b, 1, 1) == 1 and ply_of(b, 2, 0) == 2 and ply_of(b, 2, 1) == 3
    assert ply_of(b, 3, 0) is None
    w = Board("W:W21,22:B1,2")
    w.push_many(["22-18", "1-5"])
    assert ply_of(w, 1, 1) == 0 and ply_of(w, 1, 0) is None and ply_of(w, 2, 0) == 1 and ply_of(w, 2, 1) == 2


# ---- chat during a search ----


def test_chat_and_errors_answered_while_searching() -> None:
    with ServerThread(make_settings(dxp_movetime=1.0)) as srv:
        c = Client(srv.port)
        c.send(gamereq("Z"))
        assert c.expect("A").endswith("0")
        time.sleep(0.1)
        c.send("CHow is it going?")
        c.send("Xjunk")
        # The error comes back before the move: the reader runs while the engine thinks.
        first = c.recv()
        assert first.startswith("Cerror: unknown message type")
        engine_reply(c, Board())
        c.close()


# ---- game end ----


def test_gameend_from_the_initiator(client: Client) -> None:
    accept(client, "W")
    client.send("E01")
    assert client.recv() == "E01"
    # Stop code 1: the server waits for us to close; it does not close first.
    assert not client.at_eof(timeout=0.3)
    accept(client, "W")  # a new game is still possible
    client.send("E00")
    assert client.recv() == "E00"


def test_engine_ends_a_lost_game(client: Client) -> None:
    board = Board("B:W18:B14")
    accept(client, "W", board)
    cap = board.legal_moves[0]
    assert cap.is_capture
    client.send(g.format_message(g.move_message(cap)))
    assert client.recv() == "E10"  # no white piece left: the follower loses
    client.send("E01")  # our confirmation, with stop code 1: not answered
    assert client.at_eof(timeout=0.3) is False
    client.sock.shutdown(socket.SHUT_WR)
    assert client.at_eof()


def test_end_reason() -> None:
    assert end_reason(Board()) is None
    assert end_reason(Board("B:W23,24:B")) == g.REASON_I_LOSE
    b = Board("B:WK28:BK1")
    for _ in range(2):
        b.push_many(["1-5", "28-32", "5-1", "32-28"])
    assert end_reason(b) == g.REASON_DRAW


def test_idle_timeout() -> None:
    with ServerThread(make_settings(idle_timeout=0.3)) as srv:
        c = Client(srv.port)
        assert "idle" in c.expect("C")
        assert c.at_eof()
        c.close()


# ---- two clients ----


def test_two_clients_one_misbehaving(server: ServerThread) -> None:
    stop = threading.Event()

    def pest() -> None:
        p = Client(server.port)
        try:
            while not stop.is_set():
                p.send(b"\xff\xfeM9999\0R01\0" + b"x" * 200 + b"\0")
                time.sleep(0.02)
        except OSError:
            pass
        finally:
            p.close()

    t = threading.Thread(target=pest)
    t.start()
    try:
        good = Client(server.port)
        rng = random.Random(3)
        board = Board("B:W25,26,27:B5,6,7")
        accept(good, "W", board)
        while len(board.move_stack) < 60 and not board.is_game_over():
            our_move(good, board, rng)
            if board.is_game_over():
                break
            engine_reply(good, board)
        good.send("E00")
        end = good.expect("E")
        assert end in ("E00", "E10", "E20")
        good.close()
    finally:
        stop.set()
        t.join(10)


# ---- fuzzing a live server ----


frames = st.lists(st.binary(max_size=160).map(lambda b: b.replace(b"\0", b"")), min_size=1, max_size=4)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(frames)
def test_junk_then_gamereq_still_works(server: ServerThread, junk: list[bytes]) -> None:
    c = Client(server.port)
    try:
        c.send(b"\0".join(junk) + b"\0")
        c.send(gamereq("W"))
        while True:
            text = c.recv()
            if text.startswith("A"):
                assert text.endswith("0")
                break
            assert text[0] in "CEKM", text
    finally:
        c.close()


def test_joclyboard_style_one_request_per_move(client: Client) -> None:
    # JoclyBoard: for every engine move a fresh GAMEREQ (position padded to 50), MOVE, then E00.
    board = Board()
    for _ in range(3):
        pos = g.position_of(board)
        follower = "W" if board.turn == 1 else "Z"
        client.send("R01" + "JoclyBoard".ljust(32) + follower + "000000B" + ("W" if board.turn == 1 else "Z")
                    + pos.pieces + " " * 18)
        assert client.expect("A").endswith("0")
        engine_reply(client, board)
        client.send("E00")
        assert client.expect("E") == "E00"
        board.push(board.legal_moves[0])
