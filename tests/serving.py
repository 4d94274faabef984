"""Running a real `samuel serve` process for tests: free ports, the port file, clean shutdown."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SAMUEL = [sys.executable, "-m", "samuel.cli"]


@contextmanager
def serve_process(tmp_path: Path, *args: str) -> Iterator[tuple[subprocess.Popen[bytes], dict[str, int]]]:
    port_file = tmp_path / "ports.json"
    log = tmp_path / "serve.log"
    proc = subprocess.Popen(
        [*SAMUEL, "serve", "--dxp-port", "0", "--cb-port", "0", "--hash", "1",
         "--port-file", str(port_file), "--log", str(log), *args],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while not port_file.exists():
            if proc.poll() is not None:
                raise AssertionError(f"serve exited: {proc.stderr.read().decode() if proc.stderr else ''}")
            if time.monotonic() > deadline:
                raise AssertionError("serve did not start within 60 s")
            time.sleep(0.05)
        yield proc, json.loads(port_file.read_text())
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)
