"""samuel's protocol layer: the long-running server and the client library.

Dialects (each a pure grammar module plus a session that drives the engine):

* Hub (``protocol.hub_grammar``, ``protocol.hub_session``), over stdin/stdout;
* DXP (``protocol.dxp_grammar``, ``protocol.dxp_session``), over TCP;
* cb, the CheckerBoard-style command protocol (``protocol.cb_grammar``,
  ``protocol.cb_session``), over stdin and TCP.

``protocol.server`` runs them all in one process; ``protocol.client`` drives
any engine that speaks them.  The engine package never imports this one.
"""
