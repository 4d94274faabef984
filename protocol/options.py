"""The engine options as the protocols write them: Hub ``param`` lines from the option table.

The table itself, with parsing and checking, is ``engine.options``.
"""

from __future__ import annotations

from engine.options import EngineOption, OptionValue


def hub_param_fields(option: EngineOption, value: OptionValue) -> list[tuple[str, object | None]]:
    """The fields of the Hub ``param`` line that declares ``option`` with its current ``value``."""
    fields: list[tuple[str, object | None]] = [("name", option.name), ("value", option.text(value))]
    if option.kind in ("choice", "evaluator"):
        fields += [("type", "enum"), ("values", " ".join(option.allowed()))]
    elif option.kind == "int":
        fields += [("type", "int"), ("min", option.minimum), ("max", option.maximum)]
    else:
        fields.append(("type", "string"))
    return fields
