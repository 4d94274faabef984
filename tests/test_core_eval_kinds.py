"""The C core's table of evaluator kinds (csrc/eval_kind.h): what each kind reads decides what
the search prepares at a leaf, so a kind that reads neither the parent nor the game ply (the
evolved network) must not be sent down the path that rebuilds the parent (issue 31)."""

from __future__ import annotations

import pytest

from engine import core

LEARNERS_WITH_PARENT = (core.EVAL_SAMUEL, core.EVAL_SIGNATURE, core.EVAL_TABULATED,
                        core.EVAL_PHASE, core.EVAL_HEURISTIC)
ALL_KINDS = (core.EVAL_MATERIAL, core.EVAL_DEFAULT, core.EVAL_LINEAR, core.EVAL_TABLE,
             *LEARNERS_WITH_PARENT, core.EVAL_NETWORK, core.EVAL_PIECENET)


def test_every_kind_has_a_row() -> None:
    assert sorted(ALL_KINDS) == list(range(len(ALL_KINDS)))
    for kind in ALL_KINDS:
        assert core.eval_kind_flags(kind) >= 0


def test_the_network_reads_neither_parent_nor_ply() -> None:
    flags = core.eval_kind_flags(core.EVAL_NETWORK)
    assert not flags & core.EVAL_NEEDS_PARENT
    assert not flags & core.EVAL_NEEDS_PLY
    assert flags & core.EVAL_ONE_SIDED  # Fogel's search scores it for the root's side


def test_only_the_learners_read_the_parent_and_only_the_phase_tables_the_ply() -> None:
    for kind in ALL_KINDS:
        flags = core.eval_kind_flags(kind)
        assert bool(flags & core.EVAL_NEEDS_PARENT) == (kind in LEARNERS_WITH_PARENT), kind
        assert bool(flags & core.EVAL_NEEDS_PLY) == (kind == core.EVAL_PHASE), kind


def test_only_the_piece_network_is_packed_and_only_the_network_one_sided() -> None:
    for kind in ALL_KINDS:
        flags = core.eval_kind_flags(kind)
        assert bool(flags & core.EVAL_PACKED) == (kind == core.EVAL_PIECENET), kind
        assert bool(flags & core.EVAL_ONE_SIDED) == (kind == core.EVAL_NETWORK), kind


@pytest.mark.parametrize("kind", [-1, len(ALL_KINDS), 1000])
def test_an_unknown_kind_is_refused_by_name(kind: int) -> None:
    with pytest.raises(ValueError, match=f"unknown evaluator kind {kind}"):
        core.eval_kind_flags(kind)
