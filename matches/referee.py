"""The referee: plays one game between two players under our own rules.

The engines are never trusted about the game: the board decides legality,
a side with no move loses, threefold repetition and the 40-move rule draw,
and a game still going at the move cap is a draw.  On top come the options a
tournament sets: losses on time (past the clock plus a margin), adjudication
by score, and faults (a crash, a stall, an illegal move, a broken protocol),
each of which loses the game for the engine at fault.
"""

from __future__ import annotations

import datetime as _dt
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from engine.board import Board
from engine.fen import START_FEN
from engine.pdn import write_game
from engine.types import BLACK, WHITE, Color
from matches.player import Player, PlayerFault
from matches.record import Ending, GameSpec, MatchGame, SideReport
from matches.timecontrol import Clock, TimeControl

RULE_ENDINGS = {
    "no legal moves": Ending.NO_MOVES,
    "threefold repetition": Ending.REPETITION,
    "40-move rule": Ending.FORTY_MOVES,
}


def _keyvalues(text: str, what: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for piece in text.replace(",", " ").split():
        key, sep, value = piece.partition("=")
        if not sep or not value:
            raise ValueError(f"{what} {text!r}: expected key=value pieces, got {piece!r}")
        out[key.strip().lower()] = value.strip()
    return out


@dataclass(frozen=True)
class Adjudication:
    """cutechess-style adjudication by the engines' own scores (in men, from the mover's side).

    Draw: from full move ``draw_movenumber`` on, both engines' last
    ``draw_movecount`` scores within ±``draw_score``; a capture restarts the
    count.  Resign: an engine's last ``resign_movecount`` scores at or below
    −``resign_score`` (with ``resign_twosided``, the opponent's also at or above
    +``resign_score``).  A count of 0 turns a rule off.
    """

    draw_movenumber: int = 0
    draw_movecount: int = 0
    draw_score: float = 0.0
    resign_movecount: int = 0
    resign_score: float = 0.0
    resign_twosided: bool = False

    @classmethod
    def parse(cls, draw: str | None = None, resign: str | None = None) -> Adjudication:
        """From ``movenumber=N movecount=C score=S`` and ``movecount=C score=S [twosided=true]``."""
        kw: dict[str, Any] = {}
        if draw:
            d = _keyvalues(draw, "draw adjudication")
            unknown = set(d) - {"movenumber", "movecount", "score"}
            if unknown:
                raise ValueError(f"draw adjudication: unknown key(s) {', '.join(sorted(unknown))}")
            kw["draw_movenumber"] = _int(d.get("movenumber", "0"), "draw movenumber", 0)
            kw["draw_movecount"] = _int(d.get("movecount", "0"), "draw movecount", 1)
            kw["draw_score"] = _float(d.get("score", "0"), "draw score")
        if resign:
            r = _keyvalues(resign, "resign adjudication")
            unknown = set(r) - {"movecount", "score", "twosided"}
            if unknown:
                raise ValueError(f"resign adjudication: unknown key(s) {', '.join(sorted(unknown))}")
            kw["resign_movecount"] = _int(r.get("movecount", "0"), "resign movecount", 1)
            kw["resign_score"] = _float(r.get("score", "0"), "resign score")
            kw["resign_twosided"] = r.get("twosided", "false").lower() in ("1", "true", "yes", "on")
        return cls(**kw)


def _int(text: str, what: str, minimum: int) -> int:
    try:
        v = int(text)
    except ValueError:
        raise ValueError(f"{what}: {text!r} is not an integer") from None
    if v < minimum:
        raise ValueError(f"{what}: must be at least {minimum}, got {v}")
    return v


def _float(text: str, what: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise ValueError(f"{what}: {text!r} is not a number") from None
    if v < 0:
        raise ValueError(f"{what}: must not be negative, got {v}")
    return v


@dataclass(frozen=True)
class GameRules:
    """Everything about how a game is run that is not the players themselves."""

    time_controls: dict[str, TimeControl] = field(default_factory=dict)
    """By engine name; an engine not named plays under ``default_tc``."""
    default_tc: TimeControl = field(default_factory=lambda: TimeControl(movetime=0.1))
    max_plies: int = 400
    """The move cap, in plies from the opening position; a capped game is a draw."""
    adjudication: Adjudication = field(default_factory=Adjudication)
    stall_grace: float = 5.0
    """Seconds past the time allowed before an engine that has not moved is called stalled."""
    untimed_timeout: float = 120.0
    """How long a move under a depth or nodes limit may take before the engine is called stalled."""
    event: str = "samuel match"
    site: str = "samuel"

    def tc_for(self, engine: str) -> TimeControl:
        return self.time_controls.get(engine, self.default_tc)

    def to_dict(self) -> dict[str, Any]:
        return {
            "time_controls": {k: v.to_dict() for k, v in self.time_controls.items()},
            "default_tc": self.default_tc.to_dict(),
            "max_plies": self.max_plies,
            "adjudication": asdict(self.adjudication),
            "stall_grace": self.stall_grace,
            "untimed_timeout": self.untimed_timeout,
            "event": self.event,
            "site": self.site,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GameRules:
        return cls(
            time_controls={k: TimeControl.from_dict(v) for k, v in d.get("time_controls", {}).items()},
            default_tc=TimeControl.from_dict(d["default_tc"]),
            max_plies=int(d["max_plies"]),
            adjudication=Adjudication(**d.get("adjudication", {})),
            stall_grace=float(d.get("stall_grace", 5.0)),
            untimed_timeout=float(d.get("untimed_timeout", 120.0)),
            event=d.get("event", "samuel match"),
            site=d.get("site", "samuel"),
        )


def opening_board(spec: GameSpec) -> Board:
    """The game's board at the opening position, with the opening's moves as history when known.

    Playing the ballot's moves (rather than setting up its FEN) puts them in the
    PDN and in the repetition history.
    """
    if spec.opening_moves:
        board = Board(spec.start_fen or START_FEN)
        board.push_many(spec.opening_moves.split())
        if Board(spec.fen).fen() != board.fen():
            raise ValueError(f"opening {spec.opening_label}: its moves do not reach {spec.fen}")
        return board
    return Board(spec.fen)


def _loss_for(colour: Color) -> str:
    return "0-1" if colour == BLACK else "1-0"


def _colour_name(colour: Color) -> str:
    return "Black" if colour == BLACK else "White"


class _Adjudicator:
    """Tracks the engines' recent scores for the draw and resign rules."""

    def __init__(self, rules: Adjudication) -> None:
        self.rules = rules
        self.draw_run = 0
        self.resign_run = {BLACK: 0, WHITE: 0}
        self.winning_run = {BLACK: 0, WHITE: 0}

    def after_move(self, mover: Color, score: float | None, capture: bool, full_move: int) -> str | None:
        """'draw', 'resign' (the mover resigns) or None."""
        r = self.rules
        if score is None:
            self.draw_run = 0
            self.resign_run[mover] = 0
            self.winning_run[mover] = 0
            return None
        if r.resign_movecount:
            self.resign_run[mover] = self.resign_run[mover] + 1 if score <= -r.resign_score else 0
            self.winning_run[mover] = self.winning_run[mover] + 1 if score >= r.resign_score else 0
            other = WHITE if mover == BLACK else BLACK
            if self.resign_run[mover] >= r.resign_movecount and (
                not r.resign_twosided or self.winning_run[other] >= r.resign_movecount
            ):
                return "resign"
        if r.draw_movecount:
            if capture or full_move < r.draw_movenumber or abs(score) > r.draw_score:
                self.draw_run = 0
            else:
                self.draw_run += 1
            # Both engines' last movecount scores: 2 * movecount plies in a row.
            if self.draw_run >= 2 * r.draw_movecount:
                return "draw"
        return None


async def play_game(spec: GameSpec, black: Player, white: Player, rules: GameRules,
                    on_move: Callable[[GameSpec, int], None] | None = None) -> MatchGame:
    """Play ``spec`` between two started players; engine faults are results, never exceptions.

    ``on_move(spec, plies)`` hears of every move (for a live view).
    """
    started = time.monotonic()
    board = opening_board(spec)
    opening_plies = len(board.move_stack)
    players = {BLACK: black, WHITE: white}
    clocks = {BLACK: Clock(rules.tc_for(black.name)), WHITE: Clock(rules.tc_for(white.name))}
    sides = {black.name: SideReport(), white.name: SideReport()}
    if black.name == white.name:
        raise ValueError(f"game {spec.game_id}: an engine cannot play itself under one name ({black.name})")
    adjudicator = _Adjudicator(rules.adjudication)
    result = ending = reason = None

    def fault(colour: Color, exc: PlayerFault) -> tuple[str, Ending, str]:
        who = players[colour].name
        sides[who].fault = exc.ending.value
        return _loss_for(colour), exc.ending, f"{_colour_name(colour)} ({who}) {exc.ending.value}: {exc}"

    for colour in (BLACK, WHITE):
        try:
            await players[colour].new_game()
        except PlayerFault as exc:
            result, ending, reason = fault(colour, exc)
            break

    while result is None:
        outcome = board.outcome()
        if outcome is not None:
            result = outcome.result()
            ending = RULE_ENDINGS[outcome.termination.value]
            if outcome.winner is None:
                reason = f"draw by {outcome.termination.value}"
            else:
                loser = WHITE if outcome.winner == BLACK else BLACK
                reason = f"{_colour_name(loser)} ({players[loser].name}) has no legal move"
            break
        if len(board.move_stack) - opening_plies >= rules.max_plies:
            result, ending = "1/2-1/2", Ending.MOVE_CAP
            reason = f"draw at the move cap ({rules.max_plies} plies)"
            break
        colour = board.turn
        player = players[colour]
        clock = clocks[colour]
        allowed = clock.allowed()
        timeout = allowed + rules.stall_grace if allowed is not None else rules.untimed_timeout
        t0 = time.monotonic()
        try:
            played = await player.play(board.copy(), clock.limit(), timeout)
        except PlayerFault as exc:
            result, ending, reason = fault(colour, exc)
            break
        elapsed = time.monotonic() - t0
        side = sides[player.name]
        side.moves += 1
        side.seconds += elapsed
        side.depth_sum += played.depth or 0
        side.nodes += played.nodes or 0
        if not clock.charge(elapsed):
            side.time_forfeit = True
            result, ending = _loss_for(colour), Ending.TIME_FORFEIT
            reason = (f"{_colour_name(colour)} ({player.name}) lost on time: {elapsed:.3f} s "
                      f"with {allowed:.3f} s allowed")
            break
        if played.move not in board.legal_moves:  # players check, but the referee never trusts them
            sides[player.name].fault = Ending.ILLEGAL_MOVE.value
            result, ending = _loss_for(colour), Ending.ILLEGAL_MOVE
            reason = f"{_colour_name(colour)} ({player.name}) played an illegal move {played.move}"
            break
        capture = played.move.is_capture
        board.push(played.move)
        if on_move is not None:
            on_move(spec, len(board.move_stack) - opening_plies)
        verdict = adjudicator.after_move(colour, played.score, capture, board.ply // 2 + 1)
        if verdict == "resign":
            result, ending = _loss_for(colour), Ending.RESIGNATION
            reason = (f"{_colour_name(colour)} ({player.name}) resigns "
                      f"(adjudicated on score {played.score:+.2f})")
        elif verdict == "draw":
            result, ending, reason = "1/2-1/2", Ending.ADJUDICATED_DRAW, "draw adjudicated on score"

    assert result is not None and ending is not None and reason is not None
    for p in (black, white):
        if p.alive:
            try:
                await p.end_game(result)
            except PlayerFault as exc:  # the game is scored; the pool restarts this engine
                sides[p.name].fault = sides[p.name].fault or exc.ending.value
    pdn = game_pdn(spec, board, rules, result, reason)
    return MatchGame(spec=spec, result=result, ending=ending, reason=reason,
                      plies=len(board.move_stack) - opening_plies, pdn=pdn,
                      seconds=time.monotonic() - started, sides=sides)


def game_pdn(spec: GameSpec, board: Board, rules: GameRules, result: str, reason: str) -> str:
    tcs = {rules.tc_for(spec.black).describe(), rules.tc_for(spec.white).describe()}
    tags = {
        "Event": rules.event,
        "Site": rules.site,
        "Date": _dt.date.today().strftime("%Y.%m.%d"),
        "Round": str(spec.number or spec.round),
        "Black": spec.black,
        "White": spec.white,
        "Result": result,
        "GameType": "21",
        "Opening": spec.opening_label,
        "TimeControl": " / ".join(sorted(tcs)),
        "Termination": reason,
        "GameId": spec.game_id,
    }
    return write_game(board, tags, result=result)


def forfeit(spec: GameSpec, rules: GameRules, colour: Color, exc: PlayerFault) -> MatchGame:
    """The game lost by ``colour`` before a move was played (its engine would not start)."""
    board = opening_board(spec)
    who = spec.black if colour == BLACK else spec.white
    sides = {spec.black: SideReport(), spec.white: SideReport()}
    sides[who].fault = exc.ending.value
    reason = f"{_colour_name(colour)} ({who}) {exc.ending.value}: {exc}"
    result = _loss_for(colour)
    return MatchGame(spec=spec, result=result, ending=exc.ending, reason=reason, plies=0,
                      pdn=game_pdn(spec, board, rules, result, reason), seconds=0.0, sides=sides)
