"""setuptools needs setup.py for ``cffi_modules``; all metadata lives in pyproject.toml.

Two C extensions: ``engine._core`` (the checkers core) and ``emu704._fast`` (the IBM 704 fast path).
"""

from setuptools import setup

setup(cffi_modules=["csrc/build_ffi.py:ffibuilder", "emu704/csrc/build_fast.py:ffibuilder"])
