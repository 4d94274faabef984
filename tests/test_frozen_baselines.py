"""The frozen baselines later steps are measured against stay exactly the players they were."""

from __future__ import annotations

from engine import evaluators
from engine.bench import signature


def test_default_2026_12_is_the_piece_network_of_2026_11_28() -> None:
    """default-2026-12 is the default network as shipped on 2026-11-28 (issue 32's baseline): its
    depth-7 bench signature is that network's, whatever ``default`` becomes later."""
    frozen = evaluators.by_name("default-2026-12")
    assert frozen.name == "default-2026-12" and frozen.meta["same_as"] == "piece-net"
    assert signature(7, "default-2026-12", hash_mb=16)[0] == SIGNATURE_2026_12


SIGNATURE_2026_12 = 78984
"""Under the search of issue 32's static-score cut (RFP_DEPTH 5); 116737 under the search before it: a
search change moves it, a change of the default network must not."""
