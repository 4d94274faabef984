"""cffi build script: compiles the IBM 704 fast path into ``emu704._fast`` (out-of-line API mode).

The public header ``emu704/csrc/cpu704.h`` is the single source of the cdef, so the C
declarations and the Python view of them cannot drift apart.  Paths are relative to the
repository root, where setuptools runs the builders listed in ``cffi_modules``.

The compiler flags are the checkers core's, from ``csrc/cflags.py`` (imported as
``csrc.cflags``, with the repository root put on ``sys.path``: neither setuptools' PEP 517
backend nor ``python emu704/csrc/build_fast.py`` has it there).
``EMU704_CFLAGS`` replaces the optimisation flags (e.g. a sanitizer build:
``EMU704_CFLAGS="-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all"``);
``SAMUEL_PORTABLE=1`` leaves out ``-march=native``, as for the checkers core.

Development build, in place (writes ``emu704/_fast.abi3.so``, the name setuptools uses)::

    .venv/bin/python emu704/csrc/build_fast.py
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

from cffi import FFI

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from csrc import cflags  # noqa: E402 -- needs ROOT on sys.path

SOURCES = ["cpu704.c"]
MODULE = "emu704._fast"


def compile_args(environ: dict[str, str] | None = None) -> list[str]:
    """Optimisation flags; EMU704_CFLAGS overrides them (e.g. for sanitizers)."""
    return cflags.compile_args(environ, override="EMU704_CFLAGS")


def cdef_text() -> str:
    return (HERE / "cpu704.h").read_text()


def make_builder(absolute: bool = False) -> FFI:
    """The FFI builder; source paths relative to the repo root (setuptools) or absolute."""

    def path(p: Path) -> str:
        return str(p) if absolute else str(p.relative_to(ROOT))

    builder = FFI()
    builder.cdef(cdef_text())
    builder.set_source(
        MODULE,
        '#include <stdint.h>\n#include "cpu704.h"\n',
        sources=[path(HERE / s) for s in SOURCES],
        include_dirs=[path(HERE)],
        extra_compile_args=compile_args(),
        extra_link_args=[a for a in compile_args() if a.startswith("-fsanitize")],
    )
    return builder


def _extension_name(built: Path) -> str:
    """The file name setuptools gives the module: cffi builds for the stable ABI, so on a
    POSIX CPython it is ``_fast.abi3.so`` -- the same file ``pip install -e .`` writes, so
    neither build can shadow the other."""
    if os.name == "posix" and sys.implementation.name == "cpython" and not hasattr(sys, "gettotalrefcount"):
        return MODULE.rsplit(".", 1)[1] + ".abi3.so"
    return built.name


def build_in_place(package_dir: Path = HERE.parent) -> Path:
    """Compile in a scratch directory and put the extension into ``package_dir``.

    (Compiling with the repo root as the working directory would make setuptools read
    its pyproject.toml.)  Older builds of the module in ``package_dir`` are removed.
    """
    with tempfile.TemporaryDirectory() as tmp:
        cwd = os.getcwd()
        os.chdir(tmp)
        try:
            built = Path(make_builder(absolute=True).compile(tmpdir=tmp, verbose=True))
        finally:
            os.chdir(cwd)
        stem = MODULE.rsplit(".", 1)[1]
        for old in [*package_dir.glob(f"{stem}.*.so"), *package_dir.glob(f"{stem}.*.pyd")]:
            old.unlink()
        target = package_dir / _extension_name(built)
        shutil.copyfile(built, target)
    return target


ffibuilder = make_builder()

if __name__ == "__main__":
    print(f"built {build_in_place()}")
