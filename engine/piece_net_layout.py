"""Versions of the piece network's data layout (csrc/ckr_piecenet.h), and turning an old one into today's.

Kept apart from engine/learners/piece_net.py (which needs numpy) because every evaluator file
with a piece network passes through here when it is loaded.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine import core

OLD_H1 = 32
"""First-layer width of version 1 of the layout."""
_IN, _H1, _H2 = core.PIECENET_INPUTS, core.PIECENET_H1, core.PIECENET_H2


def upgrade(data: Sequence[int]) -> list[int]:
    """A version-1 network (32 first-layer nodes) in today's layout, else ``data`` unchanged.

    The added nodes have zero weights and bias, so they clip to zero and the scores stay the same.
    """
    d = [int(v) for v in data]
    if len(d) < core.PIECENET_HEADER or d[0] != 1 or not 1 <= d[1] <= core.PIECENET_MAX_PHASES:
        return d
    phases, head = d[1], core.PIECENET_HEADER
    old_size = _IN * OLD_H1 + OLD_H1 + phases * (OLD_H1 * _H2 + 2 * _H2 + 1)
    if d[2] != old_size or len(d) != head + old_size:
        return d  # not a well-formed version 1 network: let the checker name what is wrong
    pad = _H1 - OLD_H1
    at = head
    out = [core.PIECENET_VERSION, phases, core.piecenet_size(phases), *d[3:head]]
    for _ in range(_IN):
        out += d[at:at + OLD_H1] + [0] * pad
        at += OLD_H1
    out += d[at:at + OLD_H1] + [0] * pad
    at += OLD_H1
    for _ in range(phases):
        out += d[at:at + OLD_H1 * _H2] + [0] * (pad * _H2)
        at += OLD_H1 * _H2
        out += d[at:at + 2 * _H2 + 1]
        at += 2 * _H2 + 1
    return out
