"""How a learned table's score sits under the engine's material score (the signature tables and
the tabulated functions both add material to their table's output and scale the table down so that
its whole range stays below one man)."""

from __future__ import annotations

MATERIAL_WEIGHT = 10
"""Default multiplier of the engine's material score (a man is then at least 1000)."""
MAN = 100
"""The material score of one man (at least: kings 3 : men 2, plus the trading bonus)."""


def table_shift(lo: int, hi: int, material_weight: int) -> int:
    """Smallest S with the table part's range, ``(hi >> S) - (lo >> S)``, below a man (0 without material)."""
    if material_weight <= 0:
        return 0
    s = 0
    while s < 30 and (hi >> s) - (lo >> s) >= MAN * material_weight:
        s += 1
    return s
