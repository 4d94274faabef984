"""The compiled C core, loaded once: the one module that imports ``engine._core``.

``ckr_init`` builds the core's tables (Zobrist keys, evaluation masks) before any binding runs.
"""

from __future__ import annotations

from engine._core import ffi, lib

lib.ckr_init()

__all__ = ["ffi", "lib"]
