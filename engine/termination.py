"""How a game ended: the one vocabulary of endings that game records, PDN, match logs and reports share.

A ``Termination`` says which kind of ending it was; the result (``1-0``, ``0-1``, ``1/2-1/2``,
``*``) says who won, and a free ``detail`` line may say more (``White (b) lost on time: ...``).
Stored data uses the member's value (``repetition``, ``time-forfeit``: the words match logs have
always used); people read its ``label`` (``threefold repetition``).  A PDN ``Termination`` tag is
``label`` or ``label (detail)``.

``Termination.read`` also understands the words older files wrote, so nothing stored before this
vocabulary existed becomes unreadable: self-play and game-record PDN (``no legal moves``,
``move cap (200 plies)``, ``adjudicated: a lead of ...``), the referee's sentences
(``draw by threefold repetition``, ``White (b) lost on time: ...``) and the learners'
(``stopped after 60 moves, judged on material``).
"""

from __future__ import annotations

import enum
import re


class Termination(str, enum.Enum):
    """Why a game ended: the rules, the move cap, an adjudication, or a player's fault."""

    NO_MOVES = "no-moves"
    """The side to move has no legal move and loses."""
    REPETITION = "repetition"
    """The same position a third time with the same side to move: a draw."""
    FORTY_MOVES = "forty-move-rule"
    """40 moves by each side with no man move and no capture: a draw."""
    MOVE_CAP = "move-cap"
    """The game reached its cap on plies: a draw, or left undecided (``*``)."""
    ADJUDICATED_DRAW = "adjudicated-draw"
    """Called a draw before the rules ended it (by the engines' scores, or on material at a cap)."""
    ADJUDICATED_WIN = "adjudicated-win"
    """Given to one side before the rules ended it (a lasting material lead, material at a cap)."""
    RESIGNATION = "resignation"
    """A side resigned (or was resigned for, on its own scores)."""
    TIME_FORFEIT = "time-forfeit"
    """A side took longer than its clock allowed and loses."""
    CRASH = "crash"
    """A player's engine died or could not start, and loses."""
    STALL = "stall"
    """A player's engine did not answer in time to be called alive, and loses."""
    ILLEGAL_MOVE = "illegal-move"
    """A player chose a move the rules do not allow, and loses."""
    PROTOCOL_ERROR = "protocol-error"
    """A player's engine broke its protocol, and loses."""

    def __str__(self) -> str:
        return self.value

    @property
    def label(self) -> str:
        """The ending in words, as a PDN ``Termination`` tag and a report name it."""
        return _LABELS[self]

    @property
    def is_fault(self) -> bool:
        """The game ended because an engine misbehaved (and that engine is restarted)."""
        return self in (Termination.CRASH, Termination.STALL, Termination.ILLEGAL_MOVE,
                        Termination.PROTOCOL_ERROR)

    @property
    def is_rule(self) -> bool:
        """The rules of the game ended it (no move, repetition, the 40-move rule)."""
        return self in (Termination.NO_MOVES, Termination.REPETITION, Termination.FORTY_MOVES)

    def describe(self, detail: str = "") -> str:
        """``label``, or ``label (detail)``: the PDN ``Termination`` tag."""
        return f"{self.label} ({detail})" if detail else self.label

    @classmethod
    def read(cls, text: str, result: str | None = None) -> Termination:
        """The termination ``text`` names: a value, a label (with or without a detail), or the words
        an older file wrote.  ``result`` tells an adjudicated win from an adjudicated draw where
        old words did not.  Raises ValueError naming the text when it is none of these."""
        words = text.strip()
        lowered = words.lower()
        for member in cls:
            if lowered == member.value or lowered == member.label:
                return member
        for member in sorted(cls, key=lambda m: -len(m.label)):  # "move cap" before a shorter prefix
            if lowered.startswith(member.label + " (") and lowered.endswith(")"):
                return member
        for pattern, found in _OLD_WORDS:
            if pattern.search(words):
                if found is None:  # judged: the result says which way
                    draw = result in (None, "1/2-1/2", "*")
                    return cls.ADJUDICATED_DRAW if draw else cls.ADJUDICATED_WIN
                return found
        raise ValueError(f"unknown game termination {text!r}: expected one of "
                         f"{', '.join(m.label for m in cls)}")


_LABELS = {
    Termination.NO_MOVES: "no legal moves",
    Termination.REPETITION: "threefold repetition",
    Termination.FORTY_MOVES: "40-move rule",
    Termination.MOVE_CAP: "move cap",
    Termination.ADJUDICATED_DRAW: "adjudicated draw",
    Termination.ADJUDICATED_WIN: "adjudicated win",
    Termination.RESIGNATION: "resignation",
    Termination.TIME_FORFEIT: "time forfeit",
    Termination.CRASH: "crash",
    Termination.STALL: "stall",
    Termination.ILLEGAL_MOVE: "illegal move",
    Termination.PROTOCOL_ERROR: "protocol error",
}

_SIDE = r"^(?:Black|White) \([^)]*\) "
_OLD_WORDS: tuple[tuple[re.Pattern[str], Termination | None], ...] = (
    # engine.game and the learners before the vocabulary
    (re.compile(r"^move cap \(\d+ plies\)$"), Termination.MOVE_CAP),
    (re.compile(r"^stopped after \d+ plies$"), Termination.MOVE_CAP),
    (re.compile(r"^adjudicated: "), Termination.ADJUDICATED_WIN),
    (re.compile(r"^stopped after \d+ moves, judged on material$"), None),
    # the match referee's sentences (its events.jsonl kept the value; its PDN, these)
    (re.compile(r"^draw by threefold repetition$"), Termination.REPETITION),
    (re.compile(r"^draw by 40-move rule$"), Termination.FORTY_MOVES),
    (re.compile(_SIDE + r"has no legal move$"), Termination.NO_MOVES),
    (re.compile(r"^draw at the move cap \(\d+ plies\)$"), Termination.MOVE_CAP),
    (re.compile(r"^draw adjudicated on score$"), Termination.ADJUDICATED_DRAW),
    (re.compile(_SIDE + r"resigns "), Termination.RESIGNATION),
    (re.compile(_SIDE + r"lost on time: "), Termination.TIME_FORFEIT),
    (re.compile(_SIDE + r"played an illegal move "), Termination.ILLEGAL_MOVE),
    *((re.compile(_SIDE + re.escape(m.value) + ": "), m) for m in (
        Termination.CRASH, Termination.STALL, Termination.ILLEGAL_MOVE, Termination.PROTOCOL_ERROR)),
)
"""Words written before this vocabulary, and the ending each meant (None: judged, see ``read``)."""


__all__ = ["Termination"]
