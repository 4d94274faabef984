"""pytest plugin (``-p c_backend``): run the emu704 CPU unit tests on the C fast path.

It replaces emu704.cpu.Machine (and its alias CPU) by emu704.fast.FastMachine before the
test modules import them, so every ``Machine(...)`` and ``make_machine()`` builds the C
backend.  test_fast.py runs the unit suite this way in a subprocess.
"""

from __future__ import annotations

import emu704.cpu
from emu704.fast import FastMachine

emu704.cpu.Machine = FastMachine  # type: ignore[misc]
emu704.cpu.CPU = FastMachine  # type: ignore[misc]


def pytest_terminal_summary(terminalreporter: object) -> None:
    machine = emu704.cpu.Machine
    terminalreporter.write_line(f"emu704 backend: {machine.__module__}.{machine.__name__}")  # type: ignore[attr-defined]
