"""The frozen baselines later steps are measured against stay exactly the players they were."""

from __future__ import annotations

import hashlib
import json

from engine import evaluators


def _stored_weights_digest(name: str) -> str:
    stored = json.loads((evaluators.LEARNED_DIR / f"{name}.json").read_text())
    return hashlib.sha256(json.dumps([stored["kind"], stored["data"]]).encode()).hexdigest()[:16]


def test_default_2026_12_is_the_piece_network_of_2026_11_28() -> None:
    """default-2026-12 is the default network as shipped on 2026-11-28 (issue 32's baseline): its
    stored weights never change, whatever ``default`` becomes or however the layout is upgraded on
    loading; it loads and plays as a piece network."""
    frozen = evaluators.by_name("default-2026-12")
    assert frozen.name == "default-2026-12" and frozen.meta["same_as"] == "piece-net"
    assert _stored_weights_digest("default-2026-12") == "b3e39e5936c2ea53"


def test_default_plays_the_depth6_taught_network() -> None:
    """``default`` is the shipped network piece-net-t6-m75 (since 2026-11-29: +18 Elo over the
    2026-11-28 network at 0.1 s a move, docs/teaching.md), weight for weight, and no longer the frozen
    baseline's."""
    default = evaluators.by_name("default")
    shipped = evaluators.by_name("piece-net-t6-m75")
    assert default.meta["same_as"] == evaluators.DEFAULT_NETWORK == "piece-net-t6-m75"
    assert list(default.spec.data) == list(shipped.spec.data)
    assert list(default.spec.data) != list(evaluators.by_name("default-2026-12").spec.data)
    assert _stored_weights_digest("piece-net-t6-m75") == "4d53a49c447534d5"
