"""What a match or tournament plays by when nothing says otherwise (no imports: the command line reads
these to build its help without loading the match machinery)."""

DEFAULT_TC = "st=0.1"
"""Time control: 0.1 s a move."""
DEFAULT_MAXMOVES = 200
"""A draw after this many full moves from the opening."""
