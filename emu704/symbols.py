"""The symbol file written beside a deck: how a host drives a program by name.

A ``.cbn`` deck holds only words; a host that calls routines in it (the
checkers backend calls SEARCH, MOVES, MAKE, EVAL ...) needs their addresses,
and to tell a data word executed by mistake from a real halt it needs to know
which words are data.  ``samuel emu704 asm`` writes ``NAME.sym`` (JSON) next to
``NAME.cbn``; ``read_symbols`` loads it back with its errors named.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from emu704.sap import Image

FORMAT = "emu704-symbols"
VERSION = 1


class SymbolFileError(ValueError):
    """A symbol file that cannot be used, naming the file and what is wrong."""


@dataclass(frozen=True)
class SymbolTable:
    name: str
    start: int | None
    memory_words: int
    symbols: dict[str, int] = field(default_factory=dict)
    data_words: frozenset[int] = frozenset()
    """Locations assembled from DEC, OCT or BCD: never meant to be executed."""

    def address(self, symbol: str) -> int:
        try:
            return self.symbols[symbol]
        except KeyError:
            raise SymbolFileError(f"{self.name}: no symbol {symbol!r}") from None


def table_of(image: Image) -> SymbolTable:
    data = frozenset(line.location + i for line in image.lines
                     if line.layout == "W" and line.location is not None for i in range(len(line.words)))
    return SymbolTable(image.name, image.start, image.memory_size, dict(image.symbols), data)


def write_symbols(image: Image, path: str | os.PathLike[str]) -> None:
    t = table_of(image)
    doc = {"format": FORMAT, "version": VERSION, "name": Path(t.name).name, "start": t.start,
           "memory_words": t.memory_words, "symbols": dict(sorted(t.symbols.items())),
           "data_words": sorted(t.data_words)}
    Path(path).write_text(json.dumps(doc, indent=1) + "\n")


def read_symbols(path: str | os.PathLike[str]) -> SymbolTable:
    p = Path(path)
    try:
        doc = json.loads(p.read_text())
    except FileNotFoundError:
        raise SymbolFileError(f"{p}: no such symbol file (samuel emu704 asm writes it beside the deck)") \
            from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SymbolFileError(f"{p}: not a symbol file ({exc})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise SymbolFileError(f"{p}: not an {FORMAT} file")
    if doc.get("version") != VERSION:
        raise SymbolFileError(f"{p}: version {doc.get('version')!r}, this reader knows {VERSION}")
    try:
        memory = int(doc["memory_words"])
        symbols = {str(k): int(v) for k, v in doc["symbols"].items()}
        data = frozenset(int(a) for a in doc.get("data_words", []))
        start = None if doc.get("start") is None else int(doc["start"])
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise SymbolFileError(f"{p}: malformed ({exc!r})") from None
    bad = [k for k, v in symbols.items() if not 0 <= v < 1 << 15]
    if bad:
        raise SymbolFileError(f"{p}: symbol {bad[0]} has an address outside 0..77777 (octal)")
    return SymbolTable(str(doc.get("name", p.stem)), start, memory, symbols, data)
