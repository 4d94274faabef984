"""cffi build script: compiles the C core into ``engine._core`` (out-of-line API mode).

The public header ``csrc/ckr_api.h`` is the single source of the cdef, so the C
declarations and the Python view of them cannot drift apart.
"""

from __future__ import annotations

import sys
from pathlib import Path

from cffi import FFI

HERE = Path(__file__).resolve().parent
# The repository root, for `csrc.cflags`: neither setuptools' PEP 517 backend nor
# `python csrc/build_ffi.py` puts it on sys.path.
if str(HERE.parent) not in sys.path:
    sys.path.insert(0, str(HERE.parent))

from csrc import cflags  # noqa: E402 -- needs the repository root on sys.path

# Every C file in the folder is part of the core (scripts/sanitize compiles the same glob),
# sorted so the build is the same on every machine.
SOURCES = sorted(p.name for p in HERE.glob("*.c"))
# The cdef-clean public headers, in order (ckr.h includes the same ones for C).
HEADERS = [
    "ckr_api.h", "ckr_terms.h", "ckr_book.h", "ckr_rote.h", "ckr_network.h", "ckr_egdb.h", "ckr_piecenet.h",
]


def compile_args(environ: dict[str, str] | None = None) -> list[str]:
    """Optimisation flags; SAMUEL_CFLAGS overrides them (e.g. for sanitizers)."""
    return cflags.compile_args(environ, override="SAMUEL_CFLAGS")


def cdef_text() -> str:
    return "\n".join((HERE / h).read_text() for h in HEADERS)


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
