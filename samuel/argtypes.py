"""The command line's argument types: each checks its value at parse time and names what is wrong.

No engine import at the top: every command takes its types from here, and importing an engine
module loads the C core, which building a parser does not need.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any


def out_of_range(value: object, span: str) -> str:
    """The command line's one wording for a value outside its range, e.g. ``0 is out of range
    (0..64)``; ``span`` is ``LOW..HIGH``, ``LOW or more`` or ``more than LOW``.  Argparse puts
    the option in front (``argument --depth: 65 is out of range (0..64)``); a check made later
    names it itself (``--hash-budget: 99999999 is out of range (1..15872 MB, ...)``).  The engine
    options say it the same way (``engine.options``)."""
    return f"{value} is out of range ({span})"


def _whole_number(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None


def nonnegative_int(text: str) -> int:
    value = _whole_number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(out_of_range(value, "0 or more"))
    return value


def positive_int(text: str) -> int:
    value = _whole_number(text)
    if value < 1:
        raise argparse.ArgumentTypeError(out_of_range(value, "1 or more"))
    return value


def bounded_int(low: int, high: int) -> Callable[[str], int]:
    """An argparse type for a whole number in low..high (the message names the range)."""

    def parse(text: str) -> int:
        value = _whole_number(text)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(out_of_range(value, f"{low}..{high}"))
        return value

    parse.__name__ = f"int {low}..{high}"
    return parse


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(out_of_range(text, "more than 0 seconds, finite"))
    return value


def hash_budget(text: str) -> int:
    """--hash-budget: megabytes of table memory, 1 up to the machine's physical memory."""
    from protocol.memory_budget import physical_memory_mb  # the engine: only when the option is given

    value = _whole_number(text)
    total = physical_memory_mb()
    if value < 1 or (total is not None and value > total):
        span = "1 or more" if total is None else f"1..{total} MB, the machine's memory"
        raise argparse.ArgumentTypeError(out_of_range(value, span))
    return value


hash_budget.__name__ = "hash budget"


def evaluator_type(text: str) -> str:
    """argparse ``type=`` for an evaluator name or file (a typo fails at parse time)."""
    from engine.evaluators import evaluator_name

    return evaluator_name(text)


evaluator_type.__name__ = "evaluator"


class EvaluatorAction(argparse.Action):
    """Stores the value; its help lists the evaluators only when help is shown (listing loads the engine)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._suffix = kwargs.pop("help", None) or ""
        super().__init__(*args, **kwargs)

    @property  # type: ignore[override]
    def help(self) -> str:
        from engine.evaluators import available

        return f"evaluator: {', '.join(available())} or a .json file{self._suffix}"

    @help.setter
    def help(self, _value: object) -> None:
        pass  # Action.__init__ assigns help; the text is built above

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        setattr(namespace, self.dest, values)
