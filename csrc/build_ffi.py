"""cffi build script: compiles the C core into ``engine._core`` (out-of-line API mode).

The public header ``csrc/ckr_api.h`` is the single source of the cdef, so the C
declarations and the Python view of them cannot drift apart.
"""

from __future__ import annotations

import os
import sysconfig
from pathlib import Path

from cffi import FFI

HERE = Path(__file__).resolve().parent
SOURCES = ["position.c", "movegen.c", "perft.c", "evaluate.c", "search.c"]


def compile_args(environ: dict[str, str] | None = None) -> list[str]:
    """Optimisation flags; SAMUEL_CFLAGS overrides them (e.g. for sanitizers)."""
    env = os.environ if environ is None else environ
    custom = env.get("SAMUEL_CFLAGS")
    if custom:
        return custom.split()
    args = ["-O3", "-std=gnu11", "-Wall", "-Wextra", "-Wno-unused-parameter"]
    machine = (sysconfig.get_platform() or "").lower()
    # The package is always built on the machine that runs it, so native tuning
    # (popcnt, bmi) is safe, and it doubles perft speed.
    native_ok = any(arch in machine for arch in ("x86_64", "amd64", "aarch64"))
    if env.get("SAMUEL_PORTABLE") != "1" and native_ok:
        args.append("-march=native")
    return args


def cdef_text() -> str:
    return (HERE / "ckr_api.h").read_text()


ffibuilder = FFI()
ffibuilder.cdef(cdef_text())
ffibuilder.cdef('extern "Python" void ckr_py_on_info(void *userdata, const ckr_info *info);')
ffibuilder.set_source(
    "engine._core",
    '#include "ckr.h"\nstatic void ckr_py_on_info(void *userdata, const ckr_info *info);',
    sources=[str((HERE / s).relative_to(HERE.parent)) for s in SOURCES],
    include_dirs=[str(HERE.relative_to(HERE.parent))],
    extra_compile_args=compile_args(),
    extra_link_args=[a for a in compile_args() if a.startswith("-fsanitize")],
)

if __name__ == "__main__":
    ffibuilder.compile(verbose=True)
