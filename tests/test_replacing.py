"""Files the engine writes are replaced whole, and a failed write leaves no temporary file."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import evaluators
from engine.replacing import replacing


def test_a_failed_write_keeps_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "book.bin"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError), replacing(target) as tmp:
        tmp.write_bytes(b"half")
        raise RuntimeError("disk full")
    assert target.read_bytes() == b"old"
    assert list(tmp_path.iterdir()) == [target]
    with replacing(target) as tmp:
        tmp.write_bytes(b"new")
    assert target.read_bytes() == b"new" and list(tmp_path.iterdir()) == [target]


def test_saving_an_evaluator_that_fails_leaves_nothing_behind(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "mine.json"
    ev = evaluators.linear({"men": 100, "kings": 130}, name="mine")

    def broken(_: object) -> dict[str, object]:
        raise ValueError("cannot encode")

    monkeypatch.setattr(evaluators, "to_dict", broken)
    with pytest.raises(ValueError):
        evaluators.save(ev, path)
    assert list(tmp_path.iterdir()) == []
