"""Versions of the piece network's data layout (csrc/ckr_piecenet.h), and turning an old one into today's.

Kept apart from engine/learners/piece_net.py (which needs numpy) because every evaluator file
with a piece network passes through here when it is loaded.

    version 1  header of 28 words (no width), a first layer 32 wide
    version 2  header of 28 words (no width), a first layer 64 wide
    version 3  header of 29 words: data[3] the first layer's width (64, 128 or 256)
"""

from __future__ import annotations

from collections.abc import Sequence

from engine import core

OLD_H1 = 32
"""First-layer width of version 1 of the layout."""
V2_H1 = 64
"""First-layer width of version 2 (and of an upgraded version 1)."""
OLD_HEADER = 28
"""Header length of versions 1 and 2: version, phases, size, then the phase table of 25 entries."""
_IN, _H2 = core.PIECENET_INPUTS, core.PIECENET_H2


def _body_size(phases: int, h1: int) -> int:
    return _IN * h1 + h1 + phases * (h1 * _H2 + 2 * _H2 + 1)


def width_of(data: Sequence[int]) -> int:
    """The first-layer width of a network in today's layout (as checked by ``core.piecenet_check``)."""
    return int(data[3])


def upgrade(data: Sequence[int]) -> Sequence[int]:
    """A version-1 or version-2 network in today's layout (width 64), else ``data`` itself.

    Version 1's 32 added first-layer nodes have zero weights and bias, so they clip to zero and
    the scores stay the same; version 2 only gains the width word in its header.
    """
    if not data or data[0] not in (1, 2):
        return data  # today's layout (or not a network): not copied, a pattern network has 3.8 M words
    d = [int(v) for v in data]
    if len(d) < OLD_HEADER or not 1 <= d[1] <= core.PIECENET_MAX_PHASES:
        return d
    phases, old_h1 = d[1], OLD_H1 if d[0] == 1 else V2_H1
    old_size = _body_size(phases, old_h1)
    if d[2] != old_size or len(d) != OLD_HEADER + old_size:
        return d  # not a well-formed old network: let the checker name what is wrong
    pad = V2_H1 - old_h1
    at = OLD_HEADER
    out = [core.PIECENET_VERSION, phases, core.piecenet_size(phases, V2_H1), V2_H1, *d[3:OLD_HEADER]]
    for _ in range(_IN):
        out += d[at:at + old_h1] + [0] * pad
        at += old_h1
    out += d[at:at + old_h1] + [0] * pad
    at += old_h1
    for _ in range(phases):
        out += d[at:at + old_h1 * _H2] + [0] * (pad * _H2)
        at += old_h1 * _H2
        out += d[at:at + 2 * _H2 + 1]
        at += 2 * _H2 + 1
    return out
