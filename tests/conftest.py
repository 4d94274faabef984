"""Shared test set-up: fail on ERROR log records, as python-chess does."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest


class _RaiseOnError(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.ERROR:
            raise AssertionError(f"unexpected ERROR log: {record.getMessage()}")


@pytest.fixture(autouse=True)
def _fail_on_error_logs() -> Iterator[None]:
    handler = _RaiseOnError()
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield
    finally:
        root.removeHandler(handler)
