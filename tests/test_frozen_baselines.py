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
