"""Shared test set-up: fail on ERROR log records, as python-chess does; the OCA book positions."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
from shared_data import oca_first_games

if TYPE_CHECKING:
    from engine.learners.book_data import BookPositions


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




@pytest.fixture(scope="session")
def oca_positions() -> BookPositions:
    """Book positions of the first 60 OCA games, shared by the book-learner tests."""
    from engine.learners import book_data

    return book_data.extract(oca_first_games(), limit_games=60)
