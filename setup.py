"""setuptools needs setup.py for ``cffi_modules``; all metadata lives in pyproject.toml."""

from setuptools import setup

setup(cffi_modules=["csrc/build_ffi.py:ffibuilder"])
