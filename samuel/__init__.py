"""The samuel command-line front end (it prints; the engine package never does)."""
