"""The engine's options: one table, which every front end reads.

Each option is declared once here (name, type, bounds, default, help, the backends that use
it).  The command line's flags (``samuel analyse``/``play``/``serve``/``hub``/``cb``/``dxp``),
Hub's ``param`` lines and ``set-param``, cb's ``get``/``set``, the match engine specs
(``key=value``) and samuel.dll's ini are all made from it, and values are parsed and
checked here with one wording that names the option.  A value stays typed (an int is an
int) from the front end to the search; text appears only where a protocol writes it.

``engine.searchers.build_searcher(values)`` is the one way a searcher is made from options.

Adding an option is one ``EngineOption`` entry below plus its use in
``engine.searchers.apply_options`` (and the search).

This module imports nothing heavy at the top: the command line builds its parsers from the
table, and the evaluators, books and the 704 program load only when a value is checked or a
searcher is built.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, TypeAlias

from engine.errors import OptionError, SamuelError

if TYPE_CHECKING:
    from engine.named_evaluator import Evaluator

OptionValue: TypeAlias = "int | str"
"""A checked value: an int for a number, the canonical text of anything else."""

Kind = Literal["int", "choice", "evaluator", "book", "egdb", "deck"]
"""How a value is read: ``int`` (bounded), ``choice`` (one of ``choices``), ``evaluator`` (a
name the engine knows, or an evaluator .json file), ``book`` (``default``, ``none`` or a book
file, loaded to check it), ``egdb`` (``auto``, ``none`` or a directory of tables), ``deck``
(a 704 deck file, or empty for the program in the package)."""

BACKENDS: tuple[str, ...] = ("modern", "704")
"""Engines a searcher can be: the modern C core, or Samuel's program on the emulated IBM 704."""
BOTH = BACKENDS
MODERN = ("modern",)
ON_704 = ("704",)


class OptionValueError(OptionError):
    """A value an option does not take: ``NAME=VALUE`` and why (``hash=0 is out of range (1..4096)``)."""

    def __init__(self, name: str, value: object, reason: str, *, cause: str | None = None) -> None:
        self.option = name
        self.value = value
        self.reason = reason
        """The part after the name and value: what argparse shows after the flag."""
        self.cause = cause
        """For a file that cannot be used: the loader's own message, which names the file."""
        super().__init__(f"{name}: {cause}" if cause is not None else f"{name}={value} {reason}")

    @property
    def problem(self) -> str:
        """The message without the option's name (``0 is out of range (1..4096)``)."""
        return self.cause if self.cause is not None else f"{self.value} {self.reason}"


@dataclass(frozen=True)
class EngineOption:
    """One engine option, as every front end sees it."""

    name: str
    """The option's name in protocols, match specs and the ini; ``--NAME`` on the command line."""
    kind: Kind
    default: OptionValue
    help: str
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] = ()
    backends: tuple[str, ...] = BOTH
    """The backends that use it (the others take the value and leave it unused)."""
    per_session: bool = True
    """A protocol client, a match spec or the DLL's ini may set it; False: only the command line
    of the process (it changes what the process loads, not one session)."""
    aliases: tuple[str, ...] = ()
    """Other spellings, as flags (``--eval``) and names (``eval``)."""
    value_aliases: tuple[tuple[str, str], ...] = ()
    """Other spellings of a ``choice`` option's values (``minimax`` for ``shannon-a``)."""
    metavar: str | None = None

    @property
    def flags(self) -> tuple[str, ...]:
        """The command-line flags, the alias first where there is one (``--eval``, ``--evaluator``)."""
        return (*(f"--{a}" for a in self.aliases), f"--{self.name}")

    @property
    def span(self) -> str:
        return f"{self.minimum}..{self.maximum}"

    def allowed(self) -> tuple[str, ...]:
        """The values a ``choice`` or ``evaluator`` option takes by name."""
        if self.kind == "evaluator":
            from engine.evaluators import available

            return tuple(available())
        return self.choices

    def parse(self, value: object) -> OptionValue:
        """The value checked and typed (an int, or canonical text); OptionValueError naming the
        option otherwise."""
        if self.kind == "int":
            return self._parse_int(value)
        if not isinstance(value, str):
            raise OptionValueError(self.name, value, "is not text")
        text = value.strip()
        if self.kind == "choice":
            low = text.lower().replace("_", "-")
            low = dict(self.value_aliases).get(low, low)
            if low not in self.choices:
                raise OptionValueError(self.name, value, f"is not one of {', '.join(self.choices)}")
            return low
        if self.kind == "evaluator":
            from engine.evaluators import by_name

            name = text if text.endswith(".json") else text.lower()
            try:
                by_name(name)
            except SamuelError as exc:
                raise OptionValueError(self.name, value, "is unknown", cause=str(exc)) from None
            return name
        if self.kind == "book":
            from engine import opening_book

            canonical = opening_book.canonical(text)
            try:
                opening_book.load(canonical)  # a bad file is refused when it is set
            except SamuelError as exc:
                raise OptionValueError(self.name, value, "cannot be loaded", cause=str(exc)) from None
            return canonical
        if self.kind == "egdb":
            from engine import egdb

            try:
                return egdb.check_setting(text)  # names a directory without tables; loads nothing
            except SamuelError as exc:
                raise OptionValueError(self.name, value, "is refused", cause=str(exc)) from None
        if self.kind == "deck":
            if not text:
                return ""
            from engine.program704 import Program704

            try:
                Program704(text)  # loaded once here, so a bad deck is named before anything starts
            except SamuelError as exc:
                raise OptionValueError(self.name, value, "cannot be loaded", cause=str(exc)) from None
            return text
        raise AssertionError(f"option {self.name}: kind {self.kind!r}")

    def _parse_int(self, value: object) -> int:
        if isinstance(value, bool):
            raise OptionValueError(self.name, value, "is not a whole number")
        if isinstance(value, int):
            number = value
        elif isinstance(value, str):
            try:
                number = int(value.strip())
            except ValueError:
                raise OptionValueError(self.name, repr(value), "is not a whole number") from None
        else:
            raise OptionValueError(self.name, repr(value), "is not a whole number")
        if (self.minimum is not None and number < self.minimum) or (
                self.maximum is not None and number > self.maximum):
            raise OptionValueError(self.name, number, f"is out of range ({self.span})")
        return number

    def text(self, value: OptionValue) -> str:
        """The value as a protocol writes it."""
        return str(value)


HASH_DEFAULT_MB = 64
CONTEMPT_LIMIT = 100
"""The largest contempt either way: a man."""
MAX_BOOK_VARIETY = 100
"""The widest book variety, in centi-men (``engine.opening_book.MAX_VARIETY`` holds it equal)."""
MODES: tuple[str, ...] = ("pvs", "samuel", "shannon-a", "fogel", "shannon-b")
"""``engine.search.Mode``'s names (a test holds them equal; the table stays light to import)."""
MODE_ALIASES: tuple[tuple[str, str], ...] = (
    ("modern", "pvs"), ("samuel1959", "samuel"), ("type-a", "shannon-a"), ("minimax", "shannon-a"),
    ("chellapilla", "fogel"), ("type-b", "shannon-b"))
"""The other names ``engine.search.Mode.parse`` knows (a test holds them equal)."""
PACES: tuple[str, ...] = ("emulator", "704", "704-clock")
FOGEL_DRAWS: tuple[str, ...] = ("off", "on")

OPTIONS: tuple[EngineOption, ...] = (
    EngineOption(
        "evaluator", "evaluator", "default", aliases=("eval",), metavar="NAME",
        help="the evaluation function: a name (samuel's own or a learned one) or an evaluator .json file; "
             "the 704 backend plays default, which there names its own, and Samuel's polynomials "
             "(samuel-1959, samuel-alpha, samuel-rote, any of kind samuel)"),
    EngineOption(
        "mode", "choice", "pvs", choices=MODES, backends=MODERN, value_aliases=MODE_ALIASES,
        help="search: modern PVS, Samuel's 1959 plies, plain minimax (Shannon's type A), Chellapilla and "
             "Fogel's alpha-beta with their extensions, or Shannon's selective type B"),
    EngineOption(
        "hash", "int", HASH_DEFAULT_MB, minimum=1, maximum=4096, backends=MODERN, metavar="MB",
        help="transposition table size in MB (a power of two at most this is allocated)"),
    EngineOption(
        "egdb", "egdb", "auto", backends=MODERN, metavar="DIR",
        help="endgame database: a directory of tables (samuel egdb build), none, or auto: the default "
             "directory ($SAMUEL_EGDB, else ~/.local/share/samuel/egdb) when it holds tables"),
    EngineOption(
        "backend", "choice", "modern", choices=BACKENDS,
        help="which engine plays: the modern core, or Samuel's program in 704 assembly on the emulated "
             "IBM 704 (its own search with his 1959 ply rules, and its own evaluation, 32 PADV + ADV + "
             "2 CENT + 2 KCENT - MOB over his terms, or one of Samuel's polynomials as data words; "
             "mode does not apply)"),
    EngineOption(
        "book", "book", "none", backends=MODERN, metavar="FILE",
        help="opening book played from at the root: default (the one shipped), none, or a book file "
             "(samuel openings build)"),
    EngineOption(
        "book-variety", "int", 0, minimum=0, maximum=MAX_BOOK_VARIETY, backends=MODERN, metavar="N",
        help="0: always the book's best move; N: any book move within N centi-men of it, drawn by how "
             "often experts played it"),
    EngineOption(
        "contempt", "int", 0, minimum=-CONTEMPT_LIMIT, maximum=CONTEMPT_LIMIT, backends=MODERN,
        metavar="N",
        help="centi-men a draw costs the engine's side: above 0 it plays on in level positions, below 0 "
             "it steers for draws"),
    EngineOption(
        "fogel-draws", "choice", "off", choices=FOGEL_DRAWS, backends=MODERN,
        help="mode fogel: on scores a repetition or the 40-move rule as a draw in the search, as real "
             "games have them (Chellapilla and Fogel's search was blind to both, so a side ahead "
             "repeats); pvs always sees them"),
    EngineOption(
        "pace", "choice", "emulator", choices=PACES, backends=ON_704, per_session=False,
        help="as fast as the emulator goes; 704: held to the real 704's 12 microseconds a cycle; "
             "704-clock: as fast as the emulator goes, with time limits read on the 704's own clock "
             "(a minute a move is a minute of 704 time, a few hundredths of a second here)"),
    EngineOption(
        "deck704", "deck", "", backends=ON_704, per_session=False, metavar="FILE",
        help="a self-loading deck of one's own (samuel emu704 asm writes it with its .sym beside it) "
             "instead of the program shipped in the package (empty)"),
)

TABLE: dict[str, EngineOption] = {o.name: o for o in OPTIONS}
_BY_SPELLING: dict[str, EngineOption] = {
    **{a: o for o in OPTIONS for a in o.aliases}, **TABLE}


def find(name: str, *, per_session: bool = False) -> EngineOption:
    """The option ``name`` (or an alias) names, any case; with ``per_session`` only those a
    session may set.  OptionError listing the options otherwise."""
    option = _BY_SPELLING.get(name.strip().lower())
    if option is None or (per_session and not option.per_session):
        names = [o.name for o in OPTIONS if o.per_session or not per_session]
        raise OptionError(f"unknown option {name!r}; options are {', '.join(names)}")
    return option


def session_options() -> tuple[EngineOption, ...]:
    """The options a protocol client, a match spec or the DLL's ini may set."""
    return tuple(o for o in OPTIONS if o.per_session)


EVALUATORS_704: tuple[str, ...] = ("default", "samuel-1959", "samuel-alpha", "samuel-rote")
"""The evaluator names the 704 backend plays: ``default``, which there names the program's own
(``engine.program704.EVALUATION``, fixed in its assembly), and Samuel's polynomials, which it
takes as data words; so does any other evaluator of kind ``samuel`` (a file, a learned one)."""


class Evaluator704Error(OptionError):
    """An evaluator the 704 program does not play: its own or one of Samuel's polynomials only."""


def check_evaluator_704(name: str, evaluator: Evaluator | None = None) -> None:
    """Evaluator704Error unless the 704 backend really plays the evaluator ``name`` (``evaluator``,
    or the one of that name): ``default`` (the program's own) or a Samuel polynomial (kind
    ``samuel``) whose coefficients its 35-bit words hold."""
    if name.strip().lower() == "default":
        return
    from engine import core
    from engine.evaluators import by_name
    from engine.program704 import EVALUATION, Program704Error, polynomial_words  # light: no emulator

    if evaluator is None:
        evaluator = by_name(name.strip())
    if evaluator.spec.kind != core.EVAL_SAMUEL:
        raise Evaluator704Error(
            f"the 704 backend cannot play evaluator {name!r}: the 704 program evaluates by {EVALUATION}, "
            "or by one of Samuel's polynomials (evaluators of kind samuel: "
            f"{', '.join(EVALUATORS_704[1:])} or a file); use one of those with backend 704, "
            "or backend modern")
    try:
        polynomial_words(evaluator.spec.weights)
    except Program704Error as exc:
        raise Evaluator704Error(f"the 704 backend cannot play evaluator {name!r}: {exc}") from None


def check_compatible(values: Mapping[str, OptionValue]) -> None:
    """The backend plays the evaluator: Evaluator704Error (an OptionError naming both) otherwise."""
    if values.get("backend") == "704":
        check_evaluator_704(str(values.get("evaluator", "default")))


class OptionValues(Mapping[str, OptionValue]):
    """A value for every option in the table, checked and typed: one engine's settings.

    ``set`` checks a value (and that the backend plays the evaluator) before anything changes.
    """

    def __init__(self, values: Mapping[str, object] | Iterable[tuple[str, object]] = (),
                 **named: object) -> None:
        self.current: dict[str, OptionValue] = {o.name: o.default for o in OPTIONS}
        """The value of every option, by its name."""
        pairs = list(values.items() if isinstance(values, Mapping) else values)
        pairs += [(k.replace("_", "-"), v) for k, v in named.items()]
        self.update(pairs)

    def set(self, name: str, value: object) -> OptionValue:
        """Check and store one value; returns it typed.  OptionError (nothing changed) when refused."""
        option = find(name)
        new = option.parse(value)
        if option.name in ("evaluator", "backend"):
            check_compatible({**self.current, option.name: new})
        self.current[option.name] = new
        return new

    def update(self, pairs: Iterable[tuple[str, object]]) -> None:
        """Set several at once: all are checked before any is stored (the evaluator and backend
        together, so ``backend=704 evaluator=default`` works in either order)."""
        after = dict(self.current)
        for name, value in pairs:
            option = find(name)
            after[option.name] = option.parse(value)
        check_compatible(after)
        self.current = after

    def copy(self) -> OptionValues:
        """Another set with the same values (not checked again: a deck or book is not reloaded)."""
        twin = OptionValues.__new__(OptionValues)
        twin.current = dict(self.current)
        return twin

    def restore(self, name: str, value: OptionValue) -> None:
        """Put back a value that was in force before (checked then), e.g. the last table size
        that could be built when a larger one was refused."""
        self.current[find(name).name] = value

    def adopt(self, values: Mapping[str, OptionValue]) -> None:
        """Take values another ``OptionValues`` checked (a search process is sent its session's)."""
        self.current.update(values)

    def text(self, name: str) -> str:
        option = find(name)
        return option.text(self.current[option.name])

    def __getitem__(self, name: str) -> OptionValue:
        return self.current[find(name).name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.current)

    def __len__(self) -> int:
        return len(self.current)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, OptionValues):
            return self.current == other.current
        return NotImplemented

    def __repr__(self) -> str:
        changed = {k: v for k, v in self.current.items() if v != TABLE[k].default}
        return f"OptionValues({changed!r})"

    # Typed views of the values the searchers read.
    @property
    def hash_mb(self) -> int:
        return int(self.current["hash"])

    @property
    def contempt(self) -> int:
        return int(self.current["contempt"])

    @property
    def book_variety(self) -> int:
        return int(self.current["book-variety"])

    @property
    def backend(self) -> str:
        return str(self.current["backend"])


def markdown_table() -> str:
    """The table as docs/options.md shows it (a test holds the page equal to this)."""
    rows = ["| option | flag | type | default | range or values | backends | set by a session |",
            "|---|---|---|---|---|---|---|"]
    for o in OPTIONS:
        if o.kind == "int":
            kind, values = "int", o.span
        elif o.kind == "choice":
            kind, values = "choice", ", ".join(o.choices)
        else:
            kind, values = o.kind, {"evaluator": "a name, or a .json file", "book": "default, none or a file",
                                    "egdb": "auto, none or a directory",
                                    "deck": "a deck file, or empty"}[o.kind]
        default = "(empty)" if o.default == "" else str(o.default)
        rows.append(f"| `{o.name}` | {', '.join(f'`{f}`' for f in o.flags)} | {kind} | {default} | "
                    f"{values} | {', '.join(o.backends)} | {'yes' if o.per_session else 'no'} |")
    rows.append("")
    rows += [f"- `{o.name}`: {o.help}." for o in OPTIONS]
    return "\n".join(rows) + "\n"
