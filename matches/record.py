"""What one game is (GameSpec) and how it went (MatchGame): the unit every part shares.

A game's id is stable across runs (round, pairing, opening, colour), so a
resumed or retried tournament can tell a finished game from one still to play.
Both are plain data with ``to_dict``/``from_dict``, because they travel through
JSON (the event log) and pickles (Ray tasks).
"""

from __future__ import annotations

import functools
from dataclasses import asdict, dataclass, field
from typing import Any

from engine.board import Board
from engine.errors import SamuelError
from engine.fen import START_FEN
from engine.game import GameEnd, GameRecord
from engine.move import Move
from engine.pdn import read_game
from engine.termination import Termination


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
    """Empty, or the Termination value of this engine's fault (crash, stall, illegal-move, protocol-error)."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class MatchGame:
    """How a game of a match went: the game itself (an ``engine.game.GameRecord``, the ballot's
    moves included), the match's PDN tags for it, each side's report and the time it took."""

    spec: GameSpec
    game: GameRecord
    tags: dict[str, str] = field(default_factory=dict)
    """PDN tags the match gives the game (Event, Date, Round, players, opening, time control, id);
    ``Result`` and ``Termination`` come from ``game``."""
    seconds: float = 0.0
    sides: dict[str, SideReport] = field(default_factory=dict)
    """By engine name."""
    attempt: int = 1
    """Which try produced it (executors that retry count from 1)."""
    _pdn: str | None = field(default=None, init=False, repr=False, compare=False)
    """The game as PDN once written (or as a stored record kept it): written once, not per use."""

    @property
    def game_id(self) -> str:
        return self.spec.game_id

    @property
    def result(self) -> str:
        """PDN result from Black's side: ``1-0``, ``0-1`` or ``1/2-1/2``."""
        return self.game.result

    @property
    def ending(self) -> Termination:
        return self.game.termination

    @property
    def reason(self) -> str:
        """One line a person can read, e.g. ``time forfeit (White (b) lost on time: 0.31 s ...)``."""
        return self.game.termination.describe(self.game.detail)

    @property
    def plies(self) -> int:
        """Plies the engines played (the opening's not counted)."""
        return self.game.plies

    @property
    def pdn(self) -> str:
        """The game with the match's tags (``game.pdn(tags)``)."""
        if self._pdn is None:
            self._pdn = self.game.pdn(self.tags)
        return self._pdn

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
        g = self.game
        return {
            "spec": self.spec.to_dict(),
            "game": {"start_fen": g.start_fen, "moves": [_move_text(m) for m in g.moves], "result": g.result,
                     "termination": g.termination.value, "detail": g.detail,
                     "opening_plies": g.opening_plies},
            "tags": dict(self.tags),
            "pdn": self.pdn,
            "seconds": self.seconds,
            "sides": {k: v.to_dict() for k, v in self.sides.items()},
            "attempt": self.attempt,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> MatchGame:
        """A record ``to_dict`` wrote, or one written before a match game held its game record
        (``result``, ``ending``, ``reason``, ``plies`` and ``pdn`` side by side)."""
        spec = GameSpec.from_dict(d["spec"])
        if "game" in d:
            g = d["game"]
            texts = [str(text) for text in g["moves"]]
            if any("x" in t and "/" not in t for t in texts):  # jumps without their captures: replay
                moves = _replayed(str(g["start_fen"]), texts, spec.game_id)
            else:
                moves = tuple(_move_from(t, spec.game_id) for t in texts)
            game = GameRecord(str(g["start_fen"]), moves, str(g["result"]), Termination(g["termination"]),
                              str(g.get("detail", "")), int(g.get("opening_plies", 0)))
            tags = {str(k): str(v) for k, v in d.get("tags", {}).items()}
        else:
            game, tags = _old_game(spec, d)
        record = cls(spec=spec, game=game, tags=tags, seconds=float(d["seconds"]),
                     sides={k: SideReport(**v) for k, v in d.get("sides", {}).items()},
                     attempt=int(d.get("attempt", 1)))
        record._pdn = d.get("pdn") or None  # as it was written (an old record's words kept)
        return record


def _move_text(move: Move) -> str:
    """``9-13``, or a jump's path and the squares it takes: ``10x17x26/14x22`` (a record reads back
    without replaying the game)."""
    if not move.captures:
        return move.long
    return move.long + "/" + "x".join(str(s) for s in move.captures)


def _replayed(start_fen: str, texts: list[str], game_id: str) -> tuple[Move, ...]:
    board = Board(start_fen)
    try:
        board.push_many(texts)
    except ValueError as exc:
        raise RecordError(f"game {game_id}: its moves do not replay: {exc}") from None
    return tuple(board.move_stack)


def _move_from(text: str, game_id: str) -> Move:
    try:
        return _stored_move(text)
    except ValueError:
        raise RecordError(f"game {game_id}: {text!r} is not a stored move (e.g. 9-13 or 10x17x26/14x22)") \
            from None


@functools.lru_cache(maxsize=8192)
def _stored_move(text: str) -> Move:
    """The move ``_move_text`` wrote (each text decoded once: a long match log repeats a few
    thousand moves a few hundred thousand times)."""
    path, _, taken = text.partition("/")
    squares = tuple(map(int, path.split("x" if taken else "-")))
    captures = tuple(map(int, taken.split("x"))) if taken else ()
    every = squares + captures
    if len(squares) < 2 or min(every) < 1 or max(every) > 32 or (taken and len(captures) != len(squares) - 1):
        raise ValueError(text)
    return Move(squares, captures)


class RecordError(SamuelError, ValueError):
    """A stored match game that cannot be read, naming the game and what is wrong."""


_OWN_TAGS = ("Result", "GameType", "SetUp", "FEN", "Termination")
"""Tags the game record writes itself."""


def _old_game(spec: GameSpec, d: dict[str, Any]) -> tuple[GameRecord, dict[str, str]]:
    """The game record and tags of a record from before ``game``: its PDN holds the moves (the
    opening's too), ``plies`` how many the engines played, ``ending`` the kind (the values
    Termination keeps) and ``reason`` the referee's sentence (kept as the detail)."""
    result = str(d["result"])
    termination = Termination(d["ending"])
    detail = str(d.get("reason", ""))  # the referee's sentence, kept whole
    pdn = read_game(d.get("pdn") or "", strict=False, source=f"game {spec.game_id}")
    if pdn.moves or pdn.tags:
        board = pdn.board()
    else:  # no PDN kept: the opening position, no moves
        board = Board(spec.start_fen or START_FEN) if spec.opening_moves else Board(spec.fen)
        if spec.opening_moves:
            board.push_many(spec.opening_moves.split())
    opening = max(0, len(board.move_stack) - int(d.get("plies", 0)))
    tags = {k: v for k, v in pdn.tags.items() if k not in _OWN_TAGS}
    return GameRecord.of(board, GameEnd(result, termination, detail), opening), tags
