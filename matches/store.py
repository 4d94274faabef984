"""The tournament's directory: the event log (the truth), the games as PDN, the report.

``events.jsonl`` gets one JSON object per line, flushed and synced to disk
as each thing happens, so a tournament killed at any moment loses at most the
games that were still being played.  A resumed tournament reads it back; a
half-written last line (the kill came mid-write) is ignored.  ``games.pdn``
is appended as each game ends and rebuilt from the log on resume, so a game
is never in it twice.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from engine.errors import SamuelError
from matches.record import MatchGame

EVENTS = "events.jsonl"
GAMES = "games.pdn"
REPORT = "report.md"


class StoreError(SamuelError):
    """The tournament directory cannot be used (missing, not a tournament, already one)."""


def now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds")


def events_path(source: Path) -> Path:
    """The event log of a tournament directory, or ``source`` itself when it is the log."""
    path = source / EVENTS if source.is_dir() else source
    if not path.exists():
        raise StoreError(f"{source}: no tournament there (no {EVENTS})")
    return path


def read_events(path: Path) -> list[dict[str, Any]]:
    """Every event in the log; a line cut short by a kill is skipped, other damage is an error."""
    events: list[dict[str, Any]] = []
    with open(path, encoding="utf-8") as fh:
        lines = fh.read().split("\n")
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError as exc:
            last = all(not rest.strip() for rest in lines[number:])
            if last:  # the write the kill interrupted
                break
            raise StoreError(f"{path}:{number}: not a JSON event ({exc.msg})") from None
        if not isinstance(event, dict) or "event" not in event:
            raise StoreError(f"{path}:{number}: not an event object")
        events.append(event)
    return events


def finished_records(events: Iterable[dict[str, Any]]) -> list[MatchGame]:
    """The finished games, each once (the first record of a game id wins), in finishing order."""
    seen: set[str] = set()
    out: list[MatchGame] = []
    for e in events:
        if e.get("event") != "game_finished":
            continue
        record = MatchGame.from_dict(e["record"])
        if record.game_id in seen:
            continue
        seen.add(record.game_id)
        out.append(record)
    return out


def tournament_config(events: Iterable[dict[str, Any]]) -> dict[str, Any]:
    for e in events:
        if e.get("event") == "tournament_started":
            return dict(e["config"])
    raise StoreError("the event log has no tournament_started event")


class TournamentStore:
    """Appends to a tournament directory; one writer at a time."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.events = directory / EVENTS
        self.games = directory / GAMES
        self.report = directory / REPORT
        self.tee: Callable[[str], object] | None = None
        """Also hand every event line to this (the ``--events-stdout`` stream)."""
        self.made_directory = False
        """``create`` made the directory (so ``abandon`` may remove it)."""

    @classmethod
    def create(cls, directory: Path) -> TournamentStore:
        """A new tournament in ``directory`` (made if missing; refused if it holds one already)."""
        store = cls(directory)
        if store.events.exists() and store.events.stat().st_size > 0:
            raise StoreError(f"{directory} already holds a tournament: continue it with "
                             f"--resume {directory}, "
                             "or choose another --out")
        store.made_directory = not directory.exists()
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"{directory}: cannot create it ({exc.strerror})") from None
        store.games.write_text("", encoding="utf-8")
        return store

    def abandon(self) -> None:
        """Undo ``create`` for a tournament refused before it began: a bad engine or setting must
        not leave an empty directory behind.  Anything with content stays."""
        for path in (self.games, self.events):
            if path.exists() and path.stat().st_size == 0:
                path.unlink()
        if self.made_directory:
            with contextlib.suppress(OSError):  # not empty: something else lives there
                self.directory.rmdir()

    def discard(self) -> None:
        """Undo ``create`` for a tournament that stopped before it finished a game (an engine that
        never started): its log holds nothing to resume."""
        for path in (self.games, self.events, self.report):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
        if self.made_directory:
            with contextlib.suppress(OSError):
                self.directory.rmdir()

    @classmethod
    def reopen(cls, directory: Path) -> tuple[TournamentStore, dict[str, Any], list[MatchGame]]:
        """An interrupted tournament: its store, its config and the games it finished."""
        store = cls(directory)
        events = read_events(events_path(directory))
        config = tournament_config(events)
        records = finished_records(events)
        store.rewrite_games(records)
        return store, config, records

    def append(self, event: dict[str, Any]) -> None:
        line = json.dumps({"event": event.pop("event"), "time": now(), **event}, separators=(",", ":"))
        with open(self.events, "a", encoding="utf-8") as fh:
            fh.write(line + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        if self.tee is not None:
            self.tee(line)

    def finished(self, record: MatchGame) -> None:
        """Log the game (that is what makes it count), then add it to the PDN."""
        self.append({"event": "game_finished", "record": record.to_dict()})
        with open(self.games, "a", encoding="utf-8") as fh:
            fh.write(record.pdn + "\n")
            fh.flush()
            os.fsync(fh.fileno())

    def rewrite_games(self, records: Iterable[MatchGame]) -> None:
        _replace_text(self.games, "".join(r.pdn + "\n" for r in records))

    def write_report(self, markdown: str) -> None:
        _replace_text(self.report, markdown)


def _replace_text(path: Path, text: str) -> None:
    """Write through a temporary file put in place at the end (a reader never sees half a file);
    a failed write removes it."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
