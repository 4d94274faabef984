"""samuel.dll as CheckerBoard loads it: cross-compiled with mingw-w64 for x86-64 and i686, called by
cbdriver.exe under wine against a live `samuel serve`, and the 32-bit DLL's export table and stack
clean-up read from the binary.  Slow (it may install mingw-w64 and wine64 first): run with -m slow."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.board import Board
from tests.serving import serve_process

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow
MIDGAME = "W:W18,21,22,24,25,27,28,30,31,32:B1,2,3,5,6,8,9,11,12,16"  # out of the book: a real search
KING_ENDING = "B:WK29,K30:BK3,K4"
KINGS = "W:WK5,K6,K7,K8,K13,K14,K15,K16,K21,K22,K23,K24:B1"  # a move list of 471 bytes
HANG = 600  # seconds: a limit only a hang reaches
WINE32 = Path("/usr/lib/wine/wine")  # Debian's 32-bit loader, from the wine32 package


def wine64() -> str:
    debian = Path("/usr/lib/wine/wine64")  # Debian keeps wine64 off the PATH
    found = shutil.which("wine64") or (str(debian) if debian.exists() else None)
    if found is None:
        pytest.fail("wine64 is missing although scripts/build-cbdll --with-wine ran")
    return found


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("cbdll")
    # wine32 is not asked for: it means adding the i386 architecture to the system's dpkg, which
    # `scripts/build-cbdll --with-wine32` does when run on purpose.
    subprocess.run([str(ROOT / "scripts" / "build-cbdll"), "--with-wine", "--out", str(out)],
                   check=True, capture_output=True, timeout=1800)
    return out


@pytest.fixture(scope="module")
def x64(built: Path) -> Path:
    return built / "x86_64"


@pytest.fixture(scope="module")
def env(built: Path) -> dict[str, str]:
    return {**os.environ, "WINEDEBUG": "-all", "WINEPREFIX": str(built / "prefix")}


@pytest.fixture(scope="module")
def env32(built: Path) -> dict[str, str]:
    if not WINE32.exists():
        pytest.skip("no 32-bit wine here (install it with scripts/build-cbdll --with-wine32, which adds "
                    "the i386 architecture to dpkg); the i686 DLL's exports and stack clean-up are still "
                    "checked from the binary")
    return {**os.environ, "WINEDEBUG": "-all", "WINEPREFIX": str(built / "prefix32"), "WINEARCH": "win32"}


def parse(stdout: str) -> dict[str, str]:
    out: dict[str, str] = {"order": ""}
    for line in stdout.splitlines():
        key, _, rest = line.partition(" ")
        out[key] = rest
        out["order"] += f"{key} "
    assert "error" not in out, stdout
    return out


def drive(where: Path, env: dict[str, str], *args: str, loader: str | None = None) -> dict[str, str]:
    run = subprocess.run([loader or wine64(), str(where / "cbdriver.exe"), str(where / "samuel.dll"), *args],
                         capture_output=True, text=True, env=env, timeout=HANG)
    return parse(run.stdout)


def drive_all(where: Path, env: dict[str, str], *texts: str) -> list[tuple[str, str, int]]:
    """enginecommand for each text in one process: (rc, reply, bytes written) each."""
    run = subprocess.run([wine64(), str(where / "cbdriver.exe"), str(where / "samuel.dll"), "command",
                          *texts], capture_output=True, text=True, env=env, timeout=HANG)
    lines = run.stdout.splitlines()
    assert len(lines) == 3 * len(texts), run.stdout
    return [(lines[i][3:], lines[i + 1][6:], int(lines[i + 2][5:])) for i in range(0, len(lines), 3)]


@pytest.fixture(scope="module")
def server(built: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    with serve_process(tmp_path_factory.mktemp("serve")) as (_proc, ports):
        for arch in ("x86_64", "i686"):
            (built / arch / "samuel.ini").write_text(f"[samuel]\nhost = 127.0.0.1\nport = {ports['cb']}\n")
        yield ports["cb"]


def own_copy(x64: Path, where: Path, port: int) -> Path:
    """The DLL and the driver in a folder of their own, with an ini pointing at port."""
    where.mkdir()
    for name in ("samuel.dll", "cbdriver.exe"):
        shutil.copy(x64 / name, where / name)
    (where / "samuel.ini").write_text(f"port = {port}\n")
    return where


def successors(fen: str) -> set[str]:
    board = Board(fen)
    found = set()
    for move in board.legal_moves:
        board.push(move)
        found.add(Board(board.fen()).fen())
        board.pop()
    return found


def reached(fen_after: str) -> str:
    return Board(fen_after).fen()


def same_pieces(printed: str, fen: str) -> bool:
    """The board left as it was (the driver prints it with the other side to move, as after a move)."""
    return Board(printed).fen()[1:] == Board(fen).fen()[1:]


def test_enginecommand_reaches_the_server(x64: Path, env: dict[str, str], server: int) -> None:
    out = drive(x64, env, "command", "name")
    assert out["rc"] == "1" and out["reply"].startswith("samuel ")
    out = drive(x64, env, "command", "get protocolversion")
    assert (out["rc"], out["reply"]) == ("1", "2")
    out = drive(x64, env, "command", "about")
    assert "\\n" in out["reply"]  # several lines, as CheckerBoard shows them


def test_the_ini_options_reach_the_session_and_a_refusal_is_named(x64: Path, env: dict[str, str], server: int,
                                                                   tmp_path: Path) -> None:
    where = own_copy(x64, tmp_path / "options", server)
    with (where / "samuel.ini").open("a") as ini:
        ini.write("contempt = 20\nMode = samuel\nbook-variety = 500\n")
    contempt, mode, about = drive_all(where, env, "get contempt", "get mode", "about")
    assert contempt[:2] == ("1", "20") and mode[:2] == ("1", "samuel")
    assert about[0] == "1" and "samuel.ini: set book-variety 500 refused" in about[1]
    assert "book-variety=500 is out of range (0..100)" in about[1]


def test_getmove_plays_a_legal_move_into_the_board(x64: Path, env: dict[str, str], server: int) -> None:
    start = Board().fen()
    out = drive(x64, env, "getmove", "B:W21-32:B1-12", "0.2", "0", "0")
    assert out["rc"] in {"0", "1", "2", "3"} and reached(out["fen"]) in successors(start)
    # A capture is forced; the double jump lands on 27.
    out = drive(x64, env, "getmove", "B:W14,22,23:B9,10", "0.2", "0", "0")
    assert reached(out["fen"]) in successors("B:W14,22,23:B9,10") and out["str"].startswith("9x18x27")
    # An incremental clock (info bits 2-3 = 1: milliseconds; 5 s left, 0.1 s a move) from the midgame.
    out = drive(x64, env, "getmove", MIDGAME, "1", str(1 << 2), str((5000 << 16) | 100))
    assert reached(out["fen"]) in successors(MIDGAME)


def test_playnow_and_a_command_while_searching(x64: Path, env: dict[str, str], server: int) -> None:
    out = drive(x64, env, "getmove", MIDGAME, "60", "0", "0", "400", "get hashsize")
    assert reached(out["fen"]) in successors(MIDGAME)
    # playnow ended a 60 s search (the figure is in docs/protocols/cb.md; no tight bound, so a busy
    # machine cannot fail this).
    assert 400 <= int(out["ms"]) < 30_000
    # The command was answered while the search still ran: its line comes before getmove's result.
    assert out["order"].split().index("during") < out["order"].split().index("rc")
    assert re.fullmatch(r"rc 1 ms \d+ reply \d+", out["during"]), out["during"]  # the table's MB


def test_bad_input_and_no_server(x64: Path, env: dict[str, str], server: int, tmp_path: Path) -> None:
    out = drive(x64, env, "getmove", "W:W5:B1", "1", "0", "0")
    assert out["rc"] == "3" and "no legal moves" in out["str"]
    assert same_pieces(out["fen"], "W:W5:B1")
    # The server gone: a second copy of the DLL pointed at a closed port says so and leaves the board alone.
    lonely = own_copy(x64, tmp_path / "lonely", 9)
    out = drive(lonely, env, "command", "name")
    assert out["rc"] == "0" and "no samuel server at 127.0.0.1:9" in out["reply"]
    # CheckerBoard shows the About box only for a return of 1: there the reason is given.
    out = drive(lonely, env, "command", "about")
    assert out["rc"] == "1" and "no samuel server at 127.0.0.1:9" in out["reply"]
    out = drive(lonely, env, "getmove", "B:W21-32:B1-12", "1", "0", "0")
    assert out["rc"] == "3" and "no samuel server" in out["str"] and same_pieces(out["fen"], Board().fen())


def test_switching_engines_then_stopping_the_server(x64: Path, env: dict[str, str], tmp_path: Path) -> None:
    # CheckerBoard FreeLibrary()s the engine when the user picks another; the server stops later (or
    # closes the connection after its idle timeout).  A reader thread left behind by the DLL then
    # returned from recv into unmapped code: "page fault on execute access", CheckerBoard gone.
    (tmp_path / "serve").mkdir()
    with serve_process(tmp_path / "serve") as (proc, ports):
        where = own_copy(x64, tmp_path / "switch", ports["cb"])
        driver = subprocess.Popen([wine64(), str(where / "cbdriver.exe"), str(where / "samuel.dll"), "unload",
                                   "B:W21-32:B1-12", "0.2"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, env=env)
        assert driver.stdout is not None
        seen = []
        for line in driver.stdout:
            seen.append(line.rstrip("\n"))
            if line.strip() == "freed":
                break
        assert seen[-1:] == ["freed"], seen
        proc.kill()
        proc.wait(HANG)
    rest, _ = driver.communicate("go\n", timeout=HANG)
    out = parse("\n".join(seen) + "\n" + rest)
    assert driver.returncode == 0 and "alive" in out, rest
    assert out["rc"] in {"0", "1", "2", "3"} and not out["str"].startswith("samuel.dll")
    before, loaded, after = (int(n) for n in out["threads"].split())
    assert loaded == before and after == before  # no thread of the DLL's between calls, nor after


def test_a_connection_the_server_closed_between_calls(x64: Path, env: dict[str, str], tmp_path: Path) -> None:
    # The server's idle timeout ends a session while CheckerBoard does nothing: it writes an error line
    # and closes.  The next call must connect again, not take that line for its answer.
    (tmp_path / "serve").mkdir()
    with serve_process(tmp_path / "serve", "--idle-timeout", "1") as (_proc, ports):
        where = own_copy(x64, tmp_path / "idle", ports["cb"])
        driver = subprocess.Popen([wine64(), str(where / "cbdriver.exe"), str(where / "samuel.dll"),
                                   "command", "name", "@wait", "get protocolversion"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        assert driver.stdout is not None
        first = [driver.stdout.readline() for _ in range(4)]
        assert first[0] == "rc 1\n" and first[3] == "waiting\n", first
        log = tmp_path / "serve" / "serve.log"
        deadline = time.monotonic() + HANG
        while not re.search(r"cb session from .* closed", log.read_text()):
            assert time.monotonic() < deadline, "the server never closed the idle session"
            time.sleep(0.1)
        rest, _ = driver.communicate("go\n", timeout=HANG)
    assert rest.splitlines()[:2] == ["rc 1", "reply 2"], rest


def test_a_200_ply_game_history_keeps_the_repetition(x64: Path, env: dict[str, str], server: int) -> None:
    # CheckerBoard sends the reversible tail of the game before every getmove; 200 plies of a king
    # ending are 1,030 bytes, which the DLL once refused ("command too long"), and samuel then missed
    # that the game is drawn (UNKNOWN instead of DRAW).
    cycle = ["3-7", "30-26", "7-3", "26-30"]
    history = f"set gamehist {KING_ENDING} " + " ".join(cycle[i % 4] for i in range(200))
    out = drive(x64, env, "history", history, KING_ENDING, "0.3")
    assert out["rc"] == "1" and out["reply"] == f"gamehist 200 moves to {Board(KING_ENDING).fen()}"
    assert out["result"] == "0"  # CB_DRAW: 200 reversible plies, past the 40-move rule
    assert reached(out["fen"]) in successors(KING_ENDING)
    out = drive(x64, env, "history", f"set gamehist {KING_ENDING}", KING_ENDING, "0.3")
    assert out["rc"] == "1" and out["result"] == "3"  # without the history: CB_UNKNOWN


def test_replies_fit_checkerboards_buffers(x64: Path, env: dict[str, str], server: int) -> None:
    # CheckerBoard passes 256-byte buffers from its dialogs (char reply[256]): a longer reply was
    # written past them.  The driver's buffer is 1,024 bytes, marked, so any byte written shows.
    movelist, about, probe = drive_all(x64, env, f"get movelist {KINGS}", "about", "get movelist B:W1:B")
    rc, reply, used = movelist
    assert rc == "1" and used == 256 and len(reply) == 255 and reply.startswith("movelist 40,")
    rc, reply, used = about
    assert rc == "1" and "\\n" in reply and used == len(reply.replace("\\n", "\n")) + 1 <= 1024
    # CheckerBoard's probe is declined as an English engine does, so it generates English moves itself.
    assert probe == ("0", "?", 2)


def test_the_probe_needs_no_server(x64: Path, env: dict[str, str], tmp_path: Path) -> None:
    lonely = own_copy(x64, tmp_path / "lonely", 9)
    assert drive_all(lonely, env, "get movelist B:W1:B") == [("0", "?", 2)]


# ---- the 32-bit DLL ----

def objdump(dll: Path, *args: str) -> str:
    """The output of the mingw-w64 objdump for the DLL's width (installed with its compiler)."""
    arch = dll.parent.name
    return subprocess.run([f"{arch}-w64-mingw32-objdump", *args, str(dll)], capture_output=True, text=True,
                          check=True).stdout


def export_table(dll: Path) -> tuple[int, dict[str, int]]:
    """The image base and the exported names with their RVAs, from objdump -p."""
    text = objdump(dll, "-p")
    base = int(re.search(r"^ImageBase\s+([0-9a-fA-F]+)", text, re.M).group(1), 16)  # type: ignore[union-attr]
    rvas = [int(m, 16) for m in re.findall(r"\+base\[\s*\d+\]\s+([0-9a-fA-F]+) Export RVA", text)]
    names_part = text.split("[Ordinal/Name Pointer] Table", 1)[1]
    names = re.findall(r"^\s+\[\s*(\d+)\] (\S+)$", names_part, re.M)
    return base, {name: rvas[int(ordinal)] for ordinal, name in names}


def returns_of(dll: Path, address: int) -> list[str]:
    """The ret instructions of the function that starts at address, from objdump -d."""
    text = objdump(dll, "-d")
    found: list[str] = []
    inside = False
    for line in text.splitlines():
        label = re.match(r"^([0-9a-f]+) <.*>:$", line)
        if label:
            inside = int(label.group(1), 16) == address
        elif inside and re.search(r"\tret", line):
            found.append(line.split("\t")[-1].strip())
    return found


def test_the_32_bit_dll_exports_stdcall_functions_under_plain_names(built: Path) -> None:
    # 32-bit CheckerBoard calls GetProcAddress(lib, "getmove") and "enginecommand" and calls them as
    # WINAPI (stdcall: the callee pops its arguments, 36 and 8 bytes).
    dll = built / "i686" / "samuel.dll"
    assert "file format pei-i386" in objdump(dll, "-f")
    base, exports = export_table(dll)
    assert sorted(exports) == ["enginecommand", "getmove"]
    assert set(returns_of(dll, base + exports["getmove"])) == {"ret    $0x24"}
    assert set(returns_of(dll, base + exports["enginecommand"])) == {"ret    $0x8"}
    _, exports64 = export_table(built / "x86_64" / "samuel.dll")
    assert sorted(exports64) == ["enginecommand", "getmove"]


def test_the_32_bit_dll_under_32_bit_wine(built: Path, env32: dict[str, str], server: int) -> None:
    i686 = built / "i686"
    out = drive(i686, env32, "stack", loader=str(WINE32))
    assert out["left"] == "0" and out["rc"] == "1" and out["reply"].startswith("samuel ")
    out = drive(i686, env32, "getmove", "B:W14,22,23:B9,10", "0.2", "0", "0", loader=str(WINE32))
    assert reached(out["fen"]) in successors("B:W14,22,23:B9,10") and out["str"].startswith("9x18x27")
