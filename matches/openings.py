"""Openings: where each game starts.

The ACF three-move ballots (shipped as ``matches/data/acf-3move-ballots.csv``) come in
three cumulative decks: ``crossboard`` (the 144 ballots played over the
board), ``mailplay`` (those plus the 12 "Golden Dozen", 156) and ``barred``
(every one of the 174, the 18 barred ones too).  Any other source is a file:
PDN (each game's position after its moves) or FEN (one position a line).

Every opening is checked when it is read: a ballot's FEN must be its moves
played from the start, a PDN game must replay legally, and every start must
leave a move to make.  Errors name the file and the line (or game).
"""

from __future__ import annotations

import csv
import os
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from engine.board import Board
from engine.errors import SamuelError
from engine.fen import START_FEN
from engine.pdn import iter_games

DECKS: tuple[str, ...] = ("crossboard", "mailplay", "barred")
"""Ballot decks by name; each holds the kinds of the ones before it."""
_DECK_KINDS: dict[str, frozenset[str]] = {
    "crossboard": frozenset({"crossboard"}),
    "mailplay": frozenset({"crossboard", "mailplay"}),
    "barred": frozenset({"crossboard", "mailplay", "barred"}),
}
BALLOT_COLUMNS: tuple[str, ...] = ("number", "moves", "kind", "computer_tough_deck", "name", "fen")

DEFAULT_BALLOTS = Path(__file__).resolve().parent / "data" / "acf-3move-ballots.csv"
"""The ballots shipped with the package; ``SAMUEL_BALLOTS`` (or a path argument) overrides them."""
BALLOTS_ENV = "SAMUEL_BALLOTS"


class OpeningError(SamuelError, ValueError):
    """An openings file that cannot be used, naming the file and line or game."""


@dataclass(frozen=True)
class Opening:
    """One start position, and how it came about when known."""

    index: int
    """0-based position in its source (the deck or the file)."""
    label: str
    """``ACF 1: 9-13 21-17 5-9`` for ballots; ``file.pdn #3`` or ``file.fen:12`` otherwise."""
    fen: str
    """The position the engines start from."""
    moves: str = ""
    """The opening moves in PDN notation when known (``9-13 21-17 5-9``)."""
    start_fen: str = ""
    """Where ``moves`` start ("" for the standard start position)."""
    number: int | None = None
    """The ACF ballot number."""
    kind: str = ""
    """``crossboard``, ``mailplay`` or ``barred`` for ballots."""


def ballots_path(path: Path | str | None = None) -> Path:
    """The ballots file: ``path``, else ``$SAMUEL_BALLOTS``, else the one shipped in the package."""
    if path is not None:
        return Path(path)
    env = os.environ.get(BALLOTS_ENV)
    return Path(env) if env else DEFAULT_BALLOTS


class MissingOpeningsError(OpeningError, FileNotFoundError):
    """An openings file that is not there: a SamuelError, so the CLI prints this message."""


def _missing(path: Path, what: str) -> FileNotFoundError:
    hint = f" (set {BALLOTS_ENV} to the ballots CSV)" if what == "ballots" else ""
    return MissingOpeningsError(f"no {what} file {str(path)!r}{hint}")


def read_ballots(path: Path | str | None = None) -> list[Opening]:
    """Every ballot in the file, in file order (``index`` counts all of them)."""
    source = ballots_path(path)
    try:
        fh = source.open(newline="", encoding="utf-8")
    except FileNotFoundError:
        raise _missing(source, "ballots") from None
    except OSError as exc:
        raise OpeningError(f"{source}: cannot read: {exc.strerror or exc}") from None
    out: list[Opening] = []
    seen: dict[int, int] = {}
    with fh:
        rows = csv.reader(fh)
        try:
            header = next(rows, None)
            if header is None or tuple(h.strip() for h in header[:6]) != BALLOT_COLUMNS:
                raise OpeningError(
                    f"{source}:1: expected the columns {','.join(BALLOT_COLUMNS)}, got {header}"
                )
            for line_no, row in enumerate(rows, start=2):
                if not row or not "".join(row).strip():
                    continue
                opening = _ballot(row, f"{source}:{line_no}", len(out))
                assert opening.number is not None
                if opening.number in seen:
                    raise OpeningError(f"{source}:{line_no}: ballot {opening.number} again "
                                       f"(first on line {seen[opening.number]})")
                seen[opening.number] = line_no
                out.append(opening)
        except csv.Error as exc:
            raise OpeningError(f"{source}:{rows.line_num}: not CSV: {exc}") from None
    if not out:
        raise OpeningError(f"{source}: no ballots in the file")
    return out


def _ballot(row: list[str], where: str, index: int) -> Opening:
    # The FEN is not quoted though it holds commas: every field from the sixth on is part of it.
    if len(row) < 6:
        columns = ",".join(BALLOT_COLUMNS)
        raise OpeningError(f"{where}: expected at least 6 fields ({columns}), got {len(row)}")
    number_text, moves, kind = (f.strip() for f in row[:3])
    fen = ",".join(f.strip() for f in row[5:])
    try:
        number = int(number_text)
    except ValueError:
        raise OpeningError(f"{where}: ballot number {number_text!r} is not a number") from None
    if kind not in _DECK_KINDS["barred"]:
        raise OpeningError(f"{where}: kind {kind!r} is not one of {', '.join(DECKS)}")
    try:
        played = Board()
        played.push_many(moves.split())
        given = Board(fen)
    except SamuelError as exc:
        raise OpeningError(f"{where}: ballot {number}: {exc}") from None
    if given != played:
        raise OpeningError(f"{where}: ballot {number}: FEN {fen} is not the position after {moves} "
                           f"({played.fen()})")
    _require_moves(given, where)
    label = f"ACF {number}: {' '.join(moves.split())}"
    return Opening(index, label, played.fen(), " ".join(moves.split()), "", number, kind)


def ballot_deck(deck: str = "crossboard", path: Path | None = None) -> list[Opening]:
    """The ballots of ``deck`` (crossboard 144, mailplay 156, barred 174) in ballot-file order."""
    key = deck.strip().lower()
    if key not in _DECK_KINDS:
        raise ValueError(f"unknown deck {deck!r}; choose from {', '.join(DECKS)}")
    kinds = _DECK_KINDS[key]
    chosen = [b for b in read_ballots(path) if b.kind in kinds]
    return [Opening(i, b.label, b.fen, b.moves, b.start_fen, b.number, b.kind) for i, b in enumerate(chosen)]


def _require_moves(board: Board, where: str) -> None:
    if not board.legal_moves:
        raise OpeningError(f"{where}: the side to move has no move in {board.fen()}; nothing to play")


def openings_from_file(path: Path | str) -> list[Opening]:
    """Openings from a file: ``.pdn`` games, a ``.csv`` ballots file (every ballot), else FENs.

    PDN: each game gives the position after its moves (from its ``FEN`` tag, if any) and keeps the
    moves.  FEN: one position a line; blank lines and ``#`` comments are skipped.
    """
    source = Path(path)
    if not source.is_file():
        if source.exists():
            raise OpeningError(f"{source}: not a file")
        raise _missing(source, "openings")
    suffix = source.suffix.lower()
    if suffix == ".pdn":
        return _from_pdn(source)
    if suffix == ".csv":
        return read_ballots(source)
    return _from_fens(source)


def _from_pdn(source: Path) -> list[Opening]:
    out: list[Opening] = []
    try:
        for game in iter_games(source):
            where = f"{source}: game {game.number} (line {game.line})"
            board = Board(game.initial_fen)
            texts: list[str] = []
            for move in game.moves:
                texts.append(board.notation(move))
                board.push(move)
            _require_moves(board, where)
            start = "" if game.initial_fen == START_FEN else game.initial_fen
            label = f"{source.name} #{game.number}"
            out.append(Opening(len(out), label, board.fen(), " ".join(texts), start))
    except OSError as exc:
        raise OpeningError(f"{source}: cannot read: {exc.strerror or exc}") from None
    if not out:
        raise OpeningError(f"{source}: no games in the file")
    return out


def _from_fens(source: Path) -> list[Opening]:
    out: list[Opening] = []
    try:
        raw = source.read_bytes()
    except OSError as exc:
        raise OpeningError(f"{source}: cannot read: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise OpeningError(f"{source}: not a text file (expected one FEN a line, or a .pdn file)") from None
    for line_no, line in enumerate(text.splitlines(), start=1):
        fen = line.split("#", 1)[0].strip()
        if not fen:
            continue
        where = f"{source}:{line_no}"
        try:
            board = Board(fen)
        except SamuelError as exc:
            raise OpeningError(f"{where}: {exc}") from None
        _require_moves(board, where)
        out.append(Opening(len(out), f"{source.name}:{line_no}", board.fen()))
    if not out:
        raise OpeningError(f"{source}: no positions in the file (one FEN a line)")
    return out


def ordered(
    openings: Sequence[Opening], *, shuffle_seed: int | None = None, start: int = 1, limit: int | None = None
) -> list[Opening]:
    """The openings to play, as cutechess picks them: shuffled by a seed (``order=random``
    with ``-srand``), then from the ``start``-th (1-based), at most ``limit`` of them."""
    if start < 1:
        raise ValueError(f"the first opening is number 1, got start={start}")
    if limit is not None and limit < 1:
        raise ValueError(f"the opening limit must be at least 1, got {limit}")
    chosen = list(openings)
    if shuffle_seed is not None:
        random.Random(shuffle_seed).shuffle(chosen)
    if start > len(chosen):
        raise ValueError(f"start={start}, but there are only {len(chosen)} openings")
    chosen = chosen[start - 1 :]
    return chosen if limit is None else chosen[:limit]


def load_openings(
    source: str, *, shuffle_seed: int | None = None, start: int = 1, limit: int | None = None
) -> list[Opening]:
    """A deck name (``crossboard``, ``mailplay``, ``barred``) or an openings file, put in order."""
    key = source.strip().lower()
    if key in _DECK_KINDS and not Path(source).is_file():
        openings = ballot_deck(key)
    else:
        path = Path(source).expanduser()
        if not path.exists():
            raise FileNotFoundError(
                f"no openings file {source!r} (or give a deck: {', '.join(DECKS)})"
            )
        openings = openings_from_file(path)
    return ordered(openings, shuffle_seed=shuffle_seed, start=start, limit=limit)
