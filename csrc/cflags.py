"""Compiler flags for the project's C extensions (the checkers core and the 704 fast path).

Imported as ``csrc.cflags`` by both cffi build scripts (csrc/build_ffi.py, emu704/csrc/build_fast.py),
which put the repository root on ``sys.path``; it must not import anything of the project.
"""

from __future__ import annotations

import os
import sysconfig


def compile_args(environ: dict[str, str] | None = None, override: str = "SAMUEL_CFLAGS") -> list[str]:
    """Optimisation flags; the ``override`` variable replaces them (e.g. for sanitizers).

    SAMUEL_PORTABLE=1 leaves out -march=native.
    """
    env = os.environ if environ is None else environ
    custom = env.get(override)
    if custom:
        return custom.split()
    args = ["-O3", "-std=gnu11", "-Wall", "-Wextra", "-Wno-unused-parameter"]
    machine = (sysconfig.get_platform() or "").lower()
    # The packages are built on the machine that runs them, so native tuning
    # (popcnt, bmi) is safe, and it doubles perft speed.
    native_ok = any(arch in machine for arch in ("x86_64", "amd64", "aarch64"))
    if env.get("SAMUEL_PORTABLE") != "1" and native_ok:
        args.append("-march=native")
    return args
