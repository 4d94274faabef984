"""Engine-vs-engine matches and rating tournaments.

The runner plays games between engines (in-process, or any engine speaking
Hub, cb or DXP over stdin or TCP), referees them with the engine's own rules,
writes every game as it ends, and rates the players with ``matches.ratings``.
It uses ``protocol.client`` to drive other engines, so it lives beside
``engine`` and ``protocol`` rather than inside either.
"""
