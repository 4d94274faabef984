"""What one game is (GameSpec) and how it went (MatchGame): the unit every part shares.

A game's id is stable across runs (round, pairing, opening, colour), so a
resumed or retried tournament can tell a finished game from one still to play.
Both are plain data with ``to_dict``/``from_dict``, because they travel through
JSON (the event log) and pickles (Ray tasks).
"""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass, field
from typing import Any


class Ending(str, enum.Enum):
    """Why a game ended: the rules, an adjudication, or an engine's fault."""

    NO_MOVES = "no-moves"
    REPETITION = "repetition"
    FORTY_MOVES = "forty-move-rule"
    MOVE_CAP = "move-cap"
    ADJUDICATED_DRAW = "adjudicated-draw"
    RESIGNATION = "resignation"
    TIME_FORFEIT = "time-forfeit"
    CRASH = "crash"
    STALL = "stall"
    ILLEGAL_MOVE = "illegal-move"
    PROTOCOL_ERROR = "protocol-error"

    @property
    def is_fault(self) -> bool:
        """The game ended because an engine misbehaved (and that engine is restarted)."""
        return self in (Ending.CRASH, Ending.STALL, Ending.ILLEGAL_MOVE, Ending.PROTOCOL_ERROR)


@dataclass(frozen=True)
class GameSpec:
    """One game to play.  Games ``colour`` 0 and 1 of the same (round, pairing, opening) are a pair."""

    game_id: str
    round: int
    """1-based round (Swiss rounds; 1 for the other formats unless the deck repeats)."""
    pair_id: str
    """The colour-reversed pair this game belongs to (same for both games)."""
    colour: int
    """0: the pairing's first engine has Black; 1: colours reversed."""
    black: str
    white: str
    opening_index: int
    opening_label: str
    """For the PDN ``Opening`` tag and reports, e.g. ``ACF 1: 9-13 21-17 5-9``."""
    fen: str
    """The position the engines start from (after the opening's moves)."""
    opening_moves: str = ""
    """The opening's moves in PDN move text, when it came as moves (else empty)."""
    start_fen: str = ""
    """Where ``opening_moves`` start from (the standard start when empty)."""
    number: int = 0
    """1-based game number in the schedule (PDN ``Round`` tag)."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GameSpec:
        return cls(**d)


@dataclass
class SideReport:
    """How one engine fared in one game."""

    moves: int = 0
    seconds: float = 0.0
    depth_sum: int = 0
    nodes: int = 0
    time_forfeit: bool = False
    fault: str = ""
    """Empty, or the Ending value of this engine's fault (crash, stall, illegal-move, protocol-error)."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class MatchGame:
    """How a game of a match went: its spec, result and why, the moves as PDN, each side's report
    and the time it took (the game itself is ``engine.game.GameRecord``'s kind; this adds the match's
    bookkeeping)."""

    spec: GameSpec
    result: str
    """PDN result from Black's side: ``1-0``, ``0-1`` or ``1/2-1/2``."""
    ending: Ending
    reason: str
    """One line a person can read, e.g. ``white (material) lost on time: 0.31 s for a 0.10 s move``."""
    plies: int
    pdn: str
    seconds: float
    sides: dict[str, SideReport] = field(default_factory=dict)
    """By engine name."""
    attempt: int = 1
    """Which try produced it (executors that retry count from 1)."""

    @property
    def game_id(self) -> str:
        return self.spec.game_id

    def score_for(self, engine: str) -> float:
        """1, ½ or 0 for ``engine`` (one of the two players)."""
        if self.result == "1/2-1/2":
            return 0.5
        black_won = self.result == "1-0"
        if engine == self.spec.black:
            return 1.0 if black_won else 0.0
        if engine == self.spec.white:
            return 0.0 if black_won else 1.0
        raise KeyError(f"{engine} did not play game {self.game_id}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "spec": self.spec.to_dict(),
            "result": self.result,
            "ending": self.ending.value,
            "reason": self.reason,
            "plies": self.plies,
            "pdn": self.pdn,
            "seconds": self.seconds,
            "sides": {k: v.to_dict() for k, v in self.sides.items()},
            "attempt": self.attempt,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> MatchGame:
        return cls(
            spec=GameSpec.from_dict(d["spec"]),
            result=d["result"],
            ending=Ending(d["ending"]),
            reason=d["reason"],
            plies=int(d["plies"]),
            pdn=d["pdn"],
            seconds=float(d["seconds"]),
            sides={k: SideReport(**v) for k, v in d.get("sides", {}).items()},
            attempt=int(d.get("attempt", 1)),
        )
