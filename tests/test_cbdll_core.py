"""samuel.dll's portable core (cbdll/cb_shim.c), built natively and checked against the engine's own rules."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from cffi import FFI
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.board import Board
from protocol import cb_grammar as g

ROOT = Path(__file__).resolve().parents[1]
SHIM = ROOT / "cbdll" / "cb_shim.c"


def cdef_of(header: Path) -> str:
    """The header as cffi reads it: declarations and integer #defines (guards, includes and the string
    constants dropped), so the test binds exactly what the DLL compiles against."""
    keep = []
    for line in header.read_text().splitlines():
        if line.startswith("#") and not re.match(r"#define \w+ \d+\b", line):
            continue
        keep.append(line)
    return "\n".join(keep)


ffi = FFI()
ffi.cdef(cdef_of(SHIM.with_suffix(".h")))
CB = ffi.dlopen(None)  # only for the header's constants (ABI mode binds them without a library)
OTHER, REPLY, STATUS, MOVE, ERROR, PONG = (getattr(CB, f"CBS_LINE_{k}")
                                           for k in ("OTHER", "REPLY", "STATUS", "MOVE", "ERROR", "PONG"))
WHITE, BLACK, MAN, KING = CB.CB_WHITE, CB.CB_BLACK, CB.CB_MAN, CB.CB_KING


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> Any:
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    out = tmp_path_factory.mktemp("cbshim") / "libcbshim.so"
    # UBSan is linked in (it needs no preloading, unlike ASan): undefined behaviour aborts the test.
    subprocess.run([cc, "-std=c99", "-O1", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC",
                    "-fsanitize=undefined", "-fno-sanitize-recover=all", "-o", str(out),
                    str(SHIM)], check=True)
    return ffi.dlopen(str(out))


def coords(lib: Any, n: int) -> tuple[int, int]:
    x, y = ffi.new("int *"), ffi.new("int *")
    assert lib.cbs_square_coords(n, x, y) == 0
    return x[0], y[0]


def to_fen(lib: Any, board: Any, color: int) -> str | None:
    out = ffi.new("char[]", 128)
    n = lib.cbs_board_to_fen(board, color, out, 128)
    return None if n < 0 else ffi.string(out).decode()


def from_fen(lib: Any, fen: str) -> tuple[list[list[int]], int] | None:
    board, color = ffi.new("int[8][8]"), ffi.new("int *")
    if lib.cbs_fen_to_board(fen.encode(), board, color) != 0:
        return None
    return [[board[x][y] for y in range(8)] for x in range(8)], color[0]


def test_squares_sit_where_cb_interface_puts_them(lib: Any) -> None:
    assert [coords(lib, n) for n in (1, 4, 5, 29, 32)] == [(6, 0), (0, 0), (7, 1), (7, 7), (1, 7)]
    seen = set()
    for n in range(1, 33):
        x, y = coords(lib, n)
        assert lib.cbs_coords_square(x, y) == n
        seen.add((x, y))
    assert len(seen) == 32
    assert all(lib.cbs_coords_square(x, y) == 0 for x in range(8) for y in range(8) if (x, y) not in seen)
    assert lib.cbs_square_coords(0, ffi.new("int *"), ffi.new("int *")) == -1
    assert lib.cbs_coords_square(8, 0) == 0


def boards() -> st.SearchStrategy[tuple[dict[int, int], int]]:
    pieces = st.sampled_from([WHITE | MAN, WHITE | KING, BLACK | MAN, BLACK | KING])
    squares = st.dictionaries(st.integers(1, 32), pieces, max_size=24)
    return st.tuples(squares, st.sampled_from([BLACK, WHITE]))


@settings(max_examples=200, deadline=None)
@given(boards())
def test_board_and_fen_round_trip_and_agree_with_the_engine(lib: Any,
                                                            position: tuple[dict[int, int], int]) -> None:
    squares, color = position
    board = ffi.new("int[8][8]")
    for n, piece in squares.items():
        x, y = coords(lib, n)
        board[x][y] = piece
    fen = to_fen(lib, board, color)
    assert fen is not None
    back = from_fen(lib, fen)
    assert back is not None and back[1] == color
    assert back[0] == [[board[x][y] for y in range(8)] for x in range(8)]
    # The engine reads the same pieces from it, where it is a position the engine accepts (no man on
    # its crown row, at most 12 pieces a side).
    if any((p == BLACK | MAN and n > 28) or (p == WHITE | MAN and n < 5) for n, p in squares.items()):
        return
    if max(sum(1 for p in squares.values() if p & c) for c in (WHITE, BLACK)) > 12:
        return
    parsed = Board(fen).fen()
    assert from_fen(lib, parsed) == back


def test_start_position_and_bad_boards(lib: Any) -> None:
    board = ffi.new("int[8][8]")
    for n in range(1, 13):
        x, y = coords(lib, n)
        board[x][y] = BLACK | MAN
    for n in range(21, 33):
        x, y = coords(lib, n)
        board[x][y] = WHITE | MAN
    start = to_fen(lib, board, BLACK)
    assert start == "B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
    assert Board(start).fen() == Board().fen()
    assert to_fen(lib, board, 3) is None  # not a colour
    for bad in (3, 7, WHITE | BLACK | MAN, WHITE, MAN | KING | BLACK, 16 | WHITE | MAN):
        board[6][0] = bad
        assert to_fen(lib, board, BLACK) is None, bad
    board[6][0] = BLACK | MAN
    board[0][1] = WHITE | MAN  # a light square
    assert to_fen(lib, board, BLACK) is None
    assert lib.cbs_board_to_fen(ffi.new("int[8][8]"), BLACK, ffi.new("char[]", 5), 5) == -1


def test_fens_with_ranges_either_order_and_malformed_ones(lib: Any) -> None:
    a, b = from_fen(lib, "B:W21-32:B1-12"), from_fen(lib, "B:B1,2,3,4,5,6,7,8,9,10,11,12:W21-32.")
    assert a is not None and a == b and a[1] == BLACK
    kings = from_fen(lib, "W:WK1:BK32,5")
    assert kings is not None and kings[1] == WHITE
    assert kings[0][6][0] == WHITE | KING and kings[0][1][7] == BLACK | KING and kings[0][7][1] == BLACK | MAN
    for bad in ("", "X:W1:B2", "B:W1", "B:W1:B1", "B:W33:B1", "B:W0:B1", "B:W5-3:B1", "B:W1,:B2x",
                "B:W1:B2:W3", "B W1 B2", "B:W1;B2", "B:WK:B1", "B:W1:B2 "):
        assert from_fen(lib, bad) is None, bad


def test_lines_written(lib: Any) -> None:
    out = ffi.new("char[]", 300)
    n = lib.cbs_format_command(b"set gamehist B:W21-32:B1-12 11-15\r\nquit", out, 300)
    assert ffi.string(out) == b"enginecommand set gamehist B:W21-32:B1-12 11-15  quit\n"
    assert n == len(ffi.string(out))
    assert lib.cbs_format_command(b"x" * 290, out, 300) == -1
    lib.cbs_format_getmove(b"B:W21-32:B1-12", 1.5, 2, (1 << 16) | 3, out, 300)
    assert ffi.string(out) == b"getmove B:W21-32:B1-12 1.500000 2 65539\n"
    lib.cbs_format_getmove(b"B:W21-32:B1-12", float("nan"), 0, -1, out, 300)
    assert ffi.string(out) == b"getmove B:W21-32:B1-12 0.000000 0 -1\n"


def king_shuffle(plies: int) -> tuple[str, list[str]]:
    """A king ending and a game history of plies reversible moves that ends where it started."""
    fen = "B:WK29,K30:BK3,K4"
    cycle = ["3-7", "30-26", "7-3", "26-30"]
    moves = [cycle[i % 4] for i in range(plies)]
    board = Board(fen)
    for m in moves:
        board.push_pdn(m)
    assert board.fen() == Board(fen).fen()
    return fen, moves


def test_a_200_ply_game_history_is_one_line_the_server_reads(lib: Any) -> None:
    # CheckerBoard sends the whole reversible tail before every getmove: 200 plies are about 1 KB,
    # far past the 256 bytes enginecommand's command is declared with.
    fen, moves = king_shuffle(200)
    command = f"set gamehist {fen} {' '.join(moves)}".encode()
    assert len(command) > 1000
    size = lib.cbs_command_line_size(command)
    out = ffi.new("char[]", size)
    n = lib.cbs_format_command(command, out, size)
    line = ffi.string(out)
    assert n == len(line) == size - 1 and line == b"enginecommand " + command + b"\n"
    assert lib.cbs_format_command(command, out, size - 1) == -1  # the size is exact, not generous
    request = g.parse_command(line.decode().rstrip("\n"))
    assert isinstance(request, g.EngineCommand)
    parsed = g.parse_engine_command(request.text)
    assert parsed == g.SetGamehistCmd(fen, tuple(moves))


def test_reply_sizes_are_checkerboards_buffers(lib: Any) -> None:
    # 1,024 bytes only where CheckerBoard passes its global reply buffer; its dialogs and name look-ups
    # pass 256 (char reply[256], reply[MAXNAME]) or 260 (MAX_PATH).
    for command in (b"about", b"  about", b"staticevaluation B:W21-32:B1-12"):
        assert lib.cbs_reply_size(command) == CB.CB_REPLY_SIZE == 1024, command
    for command in (b"name", b"get book", b"get hashsize", b"get dbpath", b"help", b"aboutx",
                    b"get movelist B:W21-32:B1-12", b"set gamehist B:W21-32:B1-12", b""):
        assert lib.cbs_reply_size(command) == CB.CB_SHORT_REPLY_SIZE == 256, command
    # The cut the DLL makes: at most size - 1 bytes and the NUL, wherever the text would have gone on.
    out = ffi.new("char[]", 300)
    ffi.memmove(out, b"\x5a" * 300, 300)
    assert lib.cbs_unescape(b"m" * 400, out, 256) == 255
    assert ffi.buffer(out)[254:257] == b"m\0\x5a"


def test_command_verbs(lib: Any) -> None:
    assert lib.cbs_command_is(b"about", b"about") == 1 and lib.cbs_command_is(b" \tabout x", b"about") == 1
    for other in (b"aboutx", b"get about", b"", b"abou"):
        assert lib.cbs_command_is(other, b"about") == 0, other


def test_the_movelist_probe_and_nothing_else(lib: Any) -> None:
    for probe in (b"get movelist B:W1:B", b" get  movelist\tB:W1:B "):
        assert lib.cbs_is_movelist_probe(probe) == 1, probe
    for other in (b"get movelist B:W21-32:B1-12", b"get movelist B:W1:B extra", b"get movelist",
                  b"get movelist B:W1:B1", b"set movelist B:W1:B", b"get movelistB:W1:B", b""):
        assert lib.cbs_is_movelist_probe(other) == 0, other


def parse(lib: Any, text: str) -> dict[str, Any]:
    line = ffi.new("char[]", text.encode())
    msg = ffi.new("cbs_line *")
    kind = lib.cbs_parse_line(line, msg)

    def s(p: Any) -> str | None:
        return None if p == ffi.NULL else ffi.string(p).decode()

    return {"kind": kind, "handled": msg.handled, "result": msg.result, "move": s(msg.move),
            "fen": s(msg.fen), "text": s(msg.text)}


def test_lines_read(lib: Any) -> None:
    assert parse(lib, "reply 1 samuel 0.1.0\n") == {"kind": REPLY, "handled": 1, "result": 0, "move": None,
                                                     "fen": None, "text": "samuel 0.1.0"}
    assert parse(lib, "reply 0 ?")["handled"] == 0
    assert parse(lib, "reply 2 x")["kind"] == OTHER
    assert parse(lib, "status depth 9/21 score +0.12")["text"] == "depth 9/21 score +0.12"
    m = parse(lib, "move 15x24x31 WIN W:W5:BK31 depth 3/3 score win in 1\r\n")
    assert (m["kind"], m["move"], m["result"], m["fen"], m["text"]) == (MOVE, "15x24x31", 1, "W:W5:BK31",
                                                                          "depth 3/3 score win in 1")
    words = ("WIN", "LOSS", "DRAW", "UNKNOWN")
    assert [parse(lib, f"move 1-5 {w} B:W1:B2")["result"] for w in words] == [1, 2, 0, 3]
    assert parse(lib, "move 1-5 MAYBE B:W1:B2")["kind"] == OTHER
    assert parse(lib, "move 1-5")["kind"] == OTHER
    e = parse(lib, 'error message="getmove: no legal moves in W:W5:B1 (say \\"x\\")"')
    assert e["kind"] == ERROR and e["text"] == 'getmove: no legal moves in W:W5:B1 (say \\"x\\")'
    assert parse(lib, "error oops")["kind"] == OTHER
    assert parse(lib, "pong")["kind"] == PONG
    assert parse(lib, "")["kind"] == OTHER


def test_unescape(lib: Any) -> None:
    out = ffi.new("char[]", 64)
    assert lib.cbs_unescape(b"samuel\\nEnglish \\\\ checkers\\r", out, 64) == 26
    assert ffi.string(out) == b"samuel\nEnglish \\ checkers\r"
    assert lib.cbs_unescape(b"abcdef", out, 4) == 3 and ffi.string(out) == b"abc"


def test_ini(lib: Any) -> None:
    host, port = ffi.new("char[]", 64), ffi.new("int *", 27532)
    ffi.memmove(host, b"127.0.0.1\0", 10)
    text = b"; samuel.dll\n[server]\n  host = 192.168.1.7 \r\n# the cb port\nport=4000\nother = 1\n"
    assert lib.cbs_parse_ini(text, host, 64, port) == 0
    assert ffi.string(host) == b"192.168.1.7" and port[0] == 4000
    assert lib.cbs_parse_ini(b"", host, 64, port) == 0 and port[0] == 4000
    long_host = b"host = " + b"h" * 70 + b"\n"
    for bad in (b"port = 0\n", b"port = 70000\n", b"port = 12x\n", b"host =\n", long_host):
        assert lib.cbs_parse_ini(bad, host, 64, port) == -1, bad


def ini_options(lib: Any, text: bytes, size: int = 128) -> list[str | int]:
    """Every ``set key value`` command cbs_ini_option gives for the ini text, in order (-1 for a
    line it refuses)."""
    out, found = ffi.new("char[]", size), []
    for i in range(50):
        n = lib.cbs_ini_option(text, i, out, size)
        if n == 0:
            return found
        found.append(ffi.string(out).decode() if n > 0 else -1)
    raise AssertionError("no end to the options")


def test_ini_options_become_set_commands(lib: Any) -> None:
    text = (b"; samuel.dll\n[samuel]\nhost = 10.0.0.2\n  Contempt = 20 \r\n# a note\nport=4000\n"
            b"; hash = 64\nmode=samuel\negdb = C:\\Program Files\\samuel egdb\n")
    assert ini_options(lib, text) == ["set contempt 20", "set mode samuel",
                                      "set egdb C:\\Program Files\\samuel egdb"]
    assert ini_options(lib, b"host = h\nport = 1\n") == [] and ini_options(lib, b"") == []
    assert ini_options(lib, b"contempt =\nmode = pvs\n") == [-1, "set mode pvs"]  # no value: refused
    assert ini_options(lib, b"book = " + b"x" * 200 + b"\n", size=64) == [-1]  # does not fit
    # host and port are read as before, whatever option lines stand between them
    host, port = ffi.new("char[]", 64), ffi.new("int *", 27532)
    assert lib.cbs_parse_ini(text, host, 64, port) == 0
    assert ffi.string(host) == b"10.0.0.2" and port[0] == 4000


def test_the_ini_documents_every_option_a_session_takes_with_the_servers_default() -> None:
    from engine.options import OPTIONS, session_options
    from samuel.session_args import SERVER_DEFAULTS

    text = (ROOT / "cbdll" / "samuel.ini").read_text()
    documented = dict(re.findall(r"^; ([a-z0-9-]+) = (.*)$", text, re.M))
    expected = {o.name: o.text(SERVER_DEFAULTS.get(o.name, o.default)) for o in session_options()}
    assert documented == expected
    assert not set(documented) & {o.name for o in OPTIONS if not o.per_session}
