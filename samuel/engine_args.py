"""The engine options on the command line: flags made from the option table (``engine.options``).

Every command that runs an engine (``analyse``, ``play``, ``serve``, ``hub``, ``cb``, ``dxp``)
adds its flags here, so the names, types, bounds, defaults and help are the table's.  A parsed
namespace turns back into typed option values with ``option_values``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING

from engine.options import OPTIONS, EngineOption, OptionValue, OptionValueError, OptionValues
from samuel.argtypes import EvaluatorAction

if TYPE_CHECKING:
    from engine.search import EngineSearcher, RoteSource

ENGINE_COMMAND_OPTIONS: tuple[str, ...] = ("evaluator", "mode", "backend", "deck704", "pace", "hash", "egdb",
                                           "contempt", "fogel-draws")
"""The options ``samuel analyse`` takes (``play`` adds the book's)."""
BOOK_OPTIONS: tuple[str, ...] = ("book", "book-variety")


def dest(option: EngineOption) -> str:
    """The namespace attribute of an option's flag (``book-variety`` -> ``book_variety``)."""
    return option.name.replace("-", "_")


def _flag_type(option: EngineOption) -> Callable[[str], OptionValue]:
    """argparse ``type=``: the table's parsing, its message without the name (argparse puts the flag
    in front: ``argument --hash: 0 is out of range (1..4096)``)."""

    def parse(text: str) -> OptionValue:
        try:
            return option.parse(text)
        except OptionValueError as exc:
            raise argparse.ArgumentTypeError(exc.problem) from None

    parse.__name__ = option.name
    return parse


def add_option_flags(p: argparse.ArgumentParser, names: Iterable[str] | None = None, *,
                     defaults: Mapping[str, OptionValue] | None = None) -> None:
    """Add a flag for each option ``names`` lists (all of the table's by default), in the table's
    order.  ``defaults`` changes what a command starts with (``play`` plays from the shipped book);
    the table's default otherwise."""
    wanted = None if names is None else set(names)
    chosen = defaults or {}
    for option in OPTIONS:
        if wanted is not None and option.name not in wanted:
            continue
        default = chosen.get(option.name, option.default)
        shown = " (default: %(default)s)" if default != "" else ""
        if option.kind == "evaluator":  # its help lists the evaluators, loaded only when shown
            p.add_argument(*option.flags, dest=dest(option), default=default, type=_flag_type(option),
                           metavar=option.metavar, action=EvaluatorAction,
                           help=shown)
        elif option.kind == "choice":
            p.add_argument(*option.flags, dest=dest(option), default=default, choices=option.choices,
                           type=str.lower, help=option.help + shown)
        else:
            p.add_argument(*option.flags, dest=dest(option), default=default, type=_flag_type(option),
                           metavar=option.metavar, help=option.help + shown)


def add_engine_arguments(p: argparse.ArgumentParser, *, book_variety: int | None = None) -> None:
    """The options of ``samuel analyse``; with ``book_variety`` (``samuel play``) also --book and
    --book-variety, from the shipped book with that variety."""
    names = ENGINE_COMMAND_OPTIONS if book_variety is None else (*ENGINE_COMMAND_OPTIONS, *BOOK_OPTIONS)
    add_option_flags(p, names, defaults=None if book_variety is None else
                     {"book": "default", "book-variety": book_variety})


def option_values(args: argparse.Namespace) -> OptionValues:
    """The option values a parsed command line gives (the table's default for an option it has no
    flag for).  OptionError when the evaluator and backend do not go together."""
    return OptionValues((o.name, getattr(args, dest(o))) for o in OPTIONS if hasattr(args, dest(o)))


def make_searcher(args: argparse.Namespace, rote: RoteSource | None = None) -> EngineSearcher:
    """The searcher the command line asks for (``engine.options.build_searcher``), with ``rote``'s
    memory if given."""
    from engine.searchers import build_searcher

    return build_searcher(option_values(args), rote=rote)


def engine_spec_pairs(args: argparse.Namespace) -> list[str]:
    """The command line's option values as a match engine spec's ``key=value`` tokens (``samuel dxp
    connect`` plays through the match runner): every option a session may set, as text."""
    values = option_values(args)
    return [f"{o.name}={o.text(values[o.name])}" for o in OPTIONS
            if o.per_session and hasattr(args, dest(o))]
