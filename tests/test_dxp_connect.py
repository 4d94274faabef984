"""``samuel dxp connect``: an engine that never connected is an error, a crash after a real
start is a loss; and a game at a tenth of a second a move is not lost on time."""

from __future__ import annotations

import socket
import socketserver
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from protocol import dxp_grammar as g
from samuel.cli import main as cli_main

pytestmark = pytest.mark.timeout(300)


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_connect_to_nothing_is_an_error_naming_the_address_not_a_won_match(
    capsys: pytest.CaptureFixture[str]
) -> None:
    port = closed_port()
    rc = cli_main(["dxp", "connect", "127.0.0.1", "--port", str(port), "--games", "1", "--hash", "1"])
    out, err = capsys.readouterr()
    assert rc == 2, out + err
    assert f"127.0.0.1:{port}" in err and "could not start" in err, err
    assert "refused" in err.lower() or "connect call failed" in err.lower(), err
    assert "score:" not in out and "game 1" not in out, out


class _CrashingFollower(socketserver.BaseRequestHandler):
    """Accepts the game, then drops the connection: a crash after a real start."""

    def handle(self) -> None:
        data = b""
        while b"\0" not in data:
            chunk = self.request.recv(256)
            if not chunk:
                return
            data += chunk
        self.request.sendall(g.format_message(g.GameAcc("Crasher", g.ACCEPT)).encode() + b"\0")


@contextmanager
def crashing_follower() -> Iterator[int]:
    with socketserver.ThreadingTCPServer(("127.0.0.1", 0), _CrashingFollower) as srv:
        srv.daemon_threads = True
        t = threading.Thread(target=srv.serve_forever, daemon=True)
        t.start()
        try:
            yield srv.server_address[1]
        finally:
            srv.shutdown()
            t.join(10)


def test_a_follower_that_crashes_after_a_real_start_loses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with crashing_follower() as port:
        rc = cli_main(["dxp", "connect", "127.0.0.1", "--port", str(port), "--games", "2",
                       "--movetime", "0.02", "--hash", "1"])
    out, err = capsys.readouterr()
    assert rc == 0, out + err
    assert f"score: samuel 2 - 0 127.0.0.1:{port} (2 games)" in out, out
    assert out.count("(crash (") == 2 and "closed the connection" in out, out
