"""The frozen baselines later steps are measured against stay exactly the players they were."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys

from engine import evaluators


def _stored_weights_digest(name: str) -> str:
    stored = json.loads((evaluators.LEARNED_DIR / f"{name}.json").read_text())
    data = stored["data_zlib"] if stored.get("data_zlib") else stored["data"]  # large ones are packed
    return hashlib.sha256(json.dumps([stored["kind"], data]).encode()).hexdigest()[:16]


def test_default_2026_12_is_the_piece_network_of_2026_11_28() -> None:
    """default-2026-12 is the default network as shipped on 2026-11-28 (issue 32's baseline): its
    stored weights never change, whatever ``default`` becomes or however the layout is upgraded on
    loading; it loads and plays as a piece network."""
    frozen = evaluators.by_name("default-2026-12")
    assert frozen.name == "default-2026-12" and frozen.meta["same_as"] == "piece-net"
    assert _stored_weights_digest("default-2026-12") == "b3e39e5936c2ea53"


def test_default_plays_the_region_pattern_network() -> None:
    """``default`` is the shipped network piece-net-r8-pat (since 2026-11-29: +47 Elo over
    piece-net-t6-m75 at 0.1 s a move, docs/teaching.md "Round 8"), weight for weight, and no longer
    the frozen baseline's.  The network before it stays shipped, unchanged, under its own name."""
    default = evaluators.by_name("default")
    shipped = evaluators.by_name("piece-net-r8-pat")
    assert default.meta["same_as"] == evaluators.DEFAULT_NETWORK == "piece-net-r8-pat"
    assert default.spec.data == shipped.spec.data
    assert default.spec.data != evaluators.by_name("default-2026-12").spec.data
    assert _stored_weights_digest("piece-net-r8-pat") == "7e3acdbe18529dc7"
    assert _stored_weights_digest("piece-net-t6-m75") == "4d53a49c447534d5"


def test_default_is_read_on_first_use() -> None:
    """Importing the engine does not read the default network (a pattern network costs a process
    0.3 s), and ``DEFAULT`` and ``default()`` are one object once read."""
    code = ("import engine.evaluators as e, engine.search, engine.learners.rote; "
            "assert e.default.cache_info().currsize == 0; "
            "from engine import DEFAULT; "
            "assert DEFAULT is e.DEFAULT is e.default() and e.default.cache_info().currsize == 1")
    subprocess.run([sys.executable, "-c", code], check=True)
