"""Engine options a protocol session can change: evaluator, search mode, hash, backend, opening book.

One table describes them, so every dialect declares the same names, types and
ranges (Hub ``param`` lines, cb ``get``/``set``) and validates values the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from engine import evaluators, opening_book
from engine.errors import OptionError
from engine.search import CONTEMPT_LIMIT, DEFAULT_CONTEMPT, Mode

BACKENDS: tuple[str, ...] = ("modern", "704")
"""Engines a session can play with: the modern C core, or Samuel's program on the emulated IBM 704."""

MODES: tuple[str, ...] = tuple(m.text for m in Mode)


@dataclass(frozen=True)
class OptionSpec:
    name: str
    kind: str
    """One of ``enum``, ``int``, ``bool``, ``string``, ``book`` (a string naming a loadable book)."""
    default: str
    choices: tuple[str, ...] | Callable[[], Sequence[str]] = ()
    """The allowed values of an enum, or a function giving them (when they can grow at run time)."""
    minimum: int | None = None
    maximum: int | None = None
    help: str = ""

    def allowed(self) -> tuple[str, ...]:
        return tuple(self.choices() if callable(self.choices) else self.choices)

    def validate(self, value: str) -> str:
        """The value in canonical text form; OptionError naming the option otherwise."""
        text = value.strip()
        if self.kind == "enum":
            low = text.lower()
            if low not in self.allowed():
                raise OptionError(
                    f"option {self.name}: {value!r} is not one of {', '.join(self.allowed())}"
                )
            return low
        if self.kind == "int":
            try:
                n = int(text)
            except ValueError:
                raise OptionError(f"option {self.name}: {value!r} is not an integer") from None
            if (self.minimum is not None and n < self.minimum) or (
                self.maximum is not None and n > self.maximum
            ):
                raise OptionError(
                    f"option {self.name}: {n} is outside {self.minimum}..{self.maximum}"
                )
            return str(n)
        if self.kind == "bool":
            low = text.lower()
            if low in ("true", "1", "yes", "on"):
                return "true"
            if low in ("false", "0", "no", "off"):
                return "false"
            raise OptionError(f"option {self.name}: {value!r} is not true or false")
        if self.kind == "book":  # the file must load now: a bad one is refused when it is set
            canonical = opening_book.canonical(text)
            opening_book.load(canonical)
            return canonical
        return text


ENGINE_OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec("evaluator", "enum", "default", evaluators.available,
               help="the evaluation function"),
    OptionSpec("mode", "enum", "pvs", MODES,
               help="search: modern PVS, Samuel's 1959 plies, Shannon's type A or B, or Chellapilla "
                    "and Fogel's"),
    OptionSpec("hash", "int", "16", minimum=1, maximum=4096,
               help="transposition table size in MB"),
    OptionSpec("egdb", "string", "auto",
               help="endgame database: a directory of tables (samuel egdb build), none, or auto: the "
                    "default directory ($SAMUEL_EGDB, else ~/.local/share/samuel/egdb) when it holds tables"),
    OptionSpec("backend", "enum", "modern", BACKENDS,
               help="which engine plays: the modern core, or Samuel's program in 704 assembly on the "
                    "emulated IBM 704 (its own search with Samuel's 1959 ply rules, and its own evaluation, "
                    "32 PADV + ADV + 2 CENT + 2 KCENT - MOB over his terms: piece advantage first, then "
                    "advancement, centre control and mobility; evaluator must be default)"),
    OptionSpec("book", "book", "none",
               help="opening book played from at the root: default (the one shipped), none, or a book "
                    "file (samuel openings build); the modern backend only"),
    OptionSpec("book-variety", "int", "0", minimum=0, maximum=opening_book.MAX_VARIETY,
               help="0: always the book's best move; N: any book move within N centi-men of it, "
                    "drawn by how often experts played it"),
    OptionSpec("contempt", "int", str(DEFAULT_CONTEMPT), minimum=-CONTEMPT_LIMIT, maximum=CONTEMPT_LIMIT,
               help="centi-men a draw costs the engine's side: above 0 it plays on in level positions, "
                    "below 0 it steers for draws; the modern backend only"),
)

SPECS: dict[str, OptionSpec] = {o.name: o for o in ENGINE_OPTIONS}


@dataclass
class EngineOptions:
    """The option values of one session, as validated text."""

    values: dict[str, str] = field(
        default_factory=lambda: {o.name: o.default for o in ENGINE_OPTIONS}
    )

    def set(self, name: str, value: str) -> str:
        """Set ``name``; returns the canonical value.  OptionError for unknown names or bad values."""
        key = name.strip().lower()
        spec = SPECS.get(key)
        if spec is None:
            raise OptionError(f"unknown option {name!r}; options are {', '.join(SPECS)}")
        new = spec.validate(value)
        if key in ("evaluator", "backend"):
            after = {**self.values, key: new}
            if after["backend"] == "704":
                from engine.backend704 import check_evaluator  # light: the emulator loads on use

                check_evaluator(after["evaluator"])  # Evaluator704Error, an OptionError, naming both
        self.values[key] = new
        return new

    def get(self, name: str) -> str:
        key = name.strip().lower()
        if key not in SPECS:
            raise OptionError(f"unknown option {name!r}; options are {', '.join(SPECS)}")
        return self.values[key]

    def update(self, pairs: Iterable[tuple[str, str]]) -> None:
        for k, v in pairs:
            self.set(k, v)

    @property
    def mode(self) -> Mode:
        return Mode.parse(self.values["mode"])

    @property
    def evaluator(self) -> evaluators.Evaluator:
        return evaluators.by_name(self.values["evaluator"])

    @property
    def hash_mb(self) -> int:
        return int(self.values["hash"])

    @property
    def egdb(self) -> str:
        return self.values["egdb"]

    @property
    def book(self) -> opening_book.OpeningBook | None:
        return opening_book.load(self.values["book"])

    @property
    def book_variety(self) -> int:
        return int(self.values["book-variety"])

    @property
    def contempt(self) -> int:
        return int(self.values["contempt"])
