"""Where the tests find data: ../shared beside the clone when it is there, small copies in tests/data always.

Tests may read ../shared (CI has it beside the clone); none may need it: a clone with
nothing beside it runs the whole suite, the corpus-wide checks skipping with a reason.
"""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
SHARED = REPO.parent / "shared"

OCA_PDN = SHARED / "data" / "OCA_2.0.pdn"
"""The whole Open Checkers Archive (22,621 games), when ../shared is there."""
OCA_FIRST_60 = TESTS / "data" / "oca_first60.pdn"
"""Its first 60 games, byte for byte: what the book-learner tests train and test on."""
OPCODES_CSV = TESTS / "data" / "ibm704-opcodes.csv"
"""A copy of ../shared/reference/ibm704-opcodes.csv, the 704 opcode table the emulator is checked against."""


def oca_first_games() -> Path:
    """A PDN file whose first 60 games are OCA's first 60 (the archive itself when present)."""
    return OCA_PDN if OCA_PDN.is_file() else OCA_FIRST_60
