"""The compiled core imports and answers; the build script's logic is sound."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from engine._core import ffi, lib

ROOT = Path(__file__).resolve().parents[1]


def test_core_imports_and_maps_squares() -> None:
    lib.ckr_init()
    assert [lib.ckr_square_to_bit(s) for s in (1, 8, 9, 32)] == [0, 7, 9, 34]
    assert all(lib.ckr_bit_to_square(lib.ckr_square_to_bit(s)) == s for s in range(1, 33))
    assert [lib.ckr_bit_to_square(b) for b in (8, 17, 26, 35)] == [-1, -1, -1, -1]
    assert ffi.sizeof("ckr_move") == 32


def test_pos_set_rejects_overlap() -> None:
    pos = ffi.new("ckr_pos *")
    assert lib.ckr_pos_set(pos, 1, 1, 0, 0, 0) == -1
    assert lib.ckr_pos_set(pos, 0xFFF, 0, 0xFFF00000, 0, 0) == 0


def _build_module():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("build_ffi", ROOT / "csrc" / "build_ffi.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_build_flags_respect_override() -> None:
    build = _build_module()
    assert build.compile_args({"SAMUEL_CFLAGS": "-O1 -fsanitize=address"}) == ["-O1", "-fsanitize=address"]
    default = build.compile_args({"SAMUEL_PORTABLE": "1"})
    assert "-O3" in default and "-march=native" not in default


def test_cdef_is_the_public_header() -> None:
    text = _build_module().cdef_text()
    code = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith(("/*", "*")))
    assert "#include" not in code and "#ifdef" not in code
    assert "ckr_search" in text
