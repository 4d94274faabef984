"""Each of the C core's five searchers (csrc/search_*.c since issue 31) gives the node counts and
scores it gave when they all lived in one file: every mode, with an evaluator of each sort the
table of kinds (csrc/eval_kind.h) tells apart, from the start and from a later position with its
parent and game ply.  Also: the build lists its sources from the folder, and no header holds a
function body that is not inline (a searcher used to live in one)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine import core, evaluators
from engine.board import Board

CSRC = Path(__file__).resolve().parents[1] / "csrc"

MODES = {
    "pvs": (core.MODE_PVS, 7),
    "samuel": (core.MODE_SAMUEL, 3),
    "shannon-a": (core.MODE_SHANNON_A, 4),
    "fogel": (core.MODE_FOGEL, 4),
    "shannon-b": (core.MODE_SHANNON_B, 4),
}
LATER = "11-15 23-19 8-11 22-17 9-13 17-14 10-17 21-14"

# (evaluator, mode) -> (nodes, score) from the start and from LATER; measured on the single-file
# search.c (commit fdde67d) and unchanged by the split.  The PVS rows changed with the static-score
# cut in quiet non-PV nodes of depth <= 5 (issue 32, RFP_DEPTH in search_pvs.c, docs/search-depth.md),
# again with its margin, 35 a ply instead of 50 (RFP_MARGIN), and with ProbCut at depth >= 6
# (PROBCUT_DEPTH, 2026-11-29).  The piece network's rows are keyed
# on the frozen default-2026-12 (the default network until 2026-11-29), so that a new default network
# leaves the searchers' counts alone.
PINNED: dict[tuple[str, str], tuple[tuple[int, int], ...]] = {
    ('default-2026-12', 'pvs'): ((6892, 37), (12004, 33)),
    ('default-2026-12', 'samuel'): ((1905, 17), (1158, 13)),
    ('default-2026-12', 'shannon-a'): ((1828, -20), (660, -14)),
    ('default-2026-12', 'fogel'): ((2749, 1), (5415, 16)),
    ('default-2026-12', 'shannon-b'): ((1531, 13), (2893, 13)),
    ('texel-2026-11', 'pvs'): ((16857, -13), (10893, -14)),
    ('texel-2026-11', 'samuel'): ((4900, -11), (2147, -20)),
    ('texel-2026-11', 'shannon-a'): ((1828, -4), (660, -19)),
    ('texel-2026-11', 'fogel'): ((3488, 0), (6836, -4)),
    ('texel-2026-11', 'shannon-b'): ((2802, 0), (1501, -27)),
    ('material', 'pvs'): ((5668, 0), (8236, 0)),
    ('material', 'samuel'): ((725, 0), (710, 0)),
    ('material', 'shannon-a'): ((1828, 0), (660, 0)),
    ('material', 'fogel'): ((1530, 0), (2296, 0)),
    ('material', 'shannon-b'): ((423, 0), (962, 0)),
    ('samuel-1959', 'pvs'): ((14457, 0), (10693, 2)),
    ('samuel-1959', 'samuel'): ((2013, -1), (976, 1)),
    ('samuel-1959', 'shannon-a'): ((1828, 1), (660, 32)),
    ('samuel-1959', 'fogel'): ((3147, 1), (2237, 32)),
    ('samuel-1959', 'shannon-b'): ((1655, 1), (916, 32)),
    ('griffith-phase', 'pvs'): ((40148, 21), (22192, 12)),
    ('griffith-phase', 'samuel'): ((1691, 51), (456, 76)),
    ('griffith-phase', 'shannon-a'): ((1828, -51), (660, -33)),
    ('griffith-phase', 'fogel'): ((4199, -36), (3363, -33)),
    ('griffith-phase', 'shannon-b'): ((3951, -5), (1648, 29)),
    ('samuel-signature', 'pvs'): ((10917, 21), (23945, 13)),
    ('samuel-signature', 'samuel'): ((3041, 17), (717, 32)),
    ('samuel-signature', 'shannon-a'): ((1828, -14), (660, -17)),
    ('samuel-signature', 'fogel'): ((3562, -14), (2545, -8)),
    ('samuel-signature', 'shannon-b'): ((3776, 4), (1235, 32)),
    ('evolved-blondie', 'pvs'): ((2013, 68), (3885, 645)),
    ('evolved-blondie', 'samuel'): ((2706, 210), (1298, 640)),
    ('evolved-blondie', 'shannon-a'): ((1828, -24), (660, 524)),
    ('evolved-blondie', 'fogel'): ((4663, 123), (5582, 510)),
    ('evolved-blondie', 'shannon-b'): ((1769, 251), (1504, 640)),
    ('samuel-rote', 'pvs'): ((16124, 2), (14044, -1)),
    ('samuel-rote', 'samuel'): ((2127, -4), (1162, 11)),
    ('samuel-rote', 'shannon-a'): ((1828, -1), (660, 8)),
    ('samuel-rote', 'fogel'): ((4296, -1), (3382, 8)),
    ('samuel-rote', 'shannon-b'): ((3275, 4), (945, 98)),
}


def _roots() -> list[tuple[core.RawPosition, core.RawPosition | None, int]]:
    board = Board()
    parent = board.raw
    for i, text in enumerate(LATER.split()):
        parent = board.raw
        board.push(board.parse_move(text))
        ply = i + 1
    return [(Board().raw, None, 0), (board.raw, parent, ply)]


def _run(name: str, mode: str) -> tuple[tuple[int, int], ...]:
    engine = core.CoreEngine(4)
    engine.set_eval(evaluators.by_name(name).spec)
    out = []
    for raw, parent, ply in _roots():
        engine.clear()
        number, depth = MODES[mode]
        limits = core.CoreLimits(mode=number, depth=depth, parent=parent, game_ply=ply)
        _, info = engine.search(raw, [], limits)
        out.append((info.nodes, info.score))
    return tuple(out)


@pytest.mark.parametrize(("name", "mode"), sorted(PINNED))
def test_each_searcher_repeats_its_node_counts(name: str, mode: str) -> None:
    assert _run(name, mode) == PINNED[(name, mode)]


def test_the_build_compiles_every_c_file_in_the_folder() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("build_ffi", CSRC / "build_ffi.py")
    assert spec and spec.loader
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    assert sorted(p.name for p in CSRC.glob("*.c")) == build.SOURCES
    assert {"tt.c", "stop.c", "labels.c", "search.c", "search_pvs.c", "search_samuel.c",
            "search_shannon_a.c", "search_shannon_b.c", "search_fogel.c"} <= set(build.SOURCES)


def test_no_header_holds_a_function_body_that_is_not_inline() -> None:
    # A definition at the start of a line: a return type, a name, its parameters, "{" on the next line.
    definition = re.compile(
        r"^(?!static inline)(?:(?:static|const|struct|unsigned)\s+)*\w+[\s*]+(\w+)\([^;{]*\)\s*\n\{", re.M
    )
    bodies = {h.name: definition.findall(h.read_text()) for h in CSRC.glob("*.h")}
    assert {h: names for h, names in bodies.items() if names} == {}
