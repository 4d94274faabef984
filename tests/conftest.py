"""Shared test set-up: fail on ERROR log records, as python-chess does; the OCA book positions."""

from __future__ import annotations

import logging
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from shared_data import oca_first_games

if TYPE_CHECKING:
    from engine.learners.book_data import BookPositions


# Engines load the default endgame database when it is present: point the default at a
# directory that never exists, so a database built on this machine changes no test
# (and servers the tests start inherit it).  Tests that want one pass it explicitly.
os.environ["SAMUEL_EGDB"] = str(Path(tempfile.gettempdir()) / "samuel-tests-egdb-absent")


class _RaiseOnError(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.ERROR:
            raise AssertionError(f"unexpected ERROR log: {record.getMessage()}")


@pytest.fixture(autouse=True)
def _fail_on_error_logs() -> Iterator[None]:
    root = logging.getLogger()
    # A command run in-process (configure_logging) replaces the root's handlers with one on
    # that test's captured stderr; left in place, a later test's record is written to a
    # closed stream ("--- Logging error ---"). Each test leaves the root's handlers and level
    # as it found them; pytest's own handlers come and go with each phase and pytest removes
    # them itself, so they are neither saved nor put back.
    saved_handlers, saved_level = [h for h in root.handlers if not _pytest_owned(h)], root.level
    handler = _RaiseOnError()
    root.addHandler(handler)
    try:
        yield
    finally:
        root.handlers[:] = saved_handlers + [h for h in root.handlers if _pytest_owned(h)]
        root.setLevel(saved_level)


def _pytest_owned(handler: logging.Handler) -> bool:
    return type(handler).__module__.startswith("_pytest")


@pytest.fixture
def error_logs_expected(_fail_on_error_logs: None) -> Iterator[None]:
    """For a test whose point is an ERROR record (a crash the server survives): check it with caplog."""
    root = logging.getLogger()
    raising = [h for h in root.handlers if isinstance(h, _RaiseOnError)]
    for h in raising:
        root.removeHandler(h)
    try:
        yield
    finally:
        for h in raising:
            root.addHandler(h)




@pytest.fixture(scope="session")
def oca_positions() -> BookPositions:
    """Book positions of the first 60 OCA games, shared by the book-learner tests."""
    from engine.learners import book_data

    return book_data.extract(oca_first_games(), limit_games=60)
