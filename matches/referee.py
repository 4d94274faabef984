"""The referee: plays one game between two players under our own rules.

The engines are never trusted about the game: it is played through
``engine.game.GameLoop``, the loop every game is played by, so the board
decides legality, a side with no move loses, threefold repetition and the
40-move rule draw, and a game still going at the move cap is a draw.  On top
come the options a tournament sets, as hooks around each move: losses on time
(past the clock plus a margin), adjudication by score, and faults (a crash, a
stall, an illegal move, a broken protocol), each of which loses the game for
the engine at fault.
"""

from __future__ import annotations

import datetime as _dt
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from engine.board import Board
from engine.fen import START_FEN
from engine.game import GameEnd, GameLoop, GameRecord, MoveHook, MoveReply
from engine.limits import Limit
from engine.termination import Termination
from engine.types import BLACK, WHITE, Color
from matches.game_events import Clocks, MoveEvent
from matches.player import Player, PlayerFault
from matches.record import GameSpec, MatchGame, SideReport
from matches.timecontrol import Clock, TimeControl


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


def _colour_name(colour: Color) -> str:
    return "Black" if colour == BLACK else "White"


class _Adjudicator(MoveHook):
    """Tracks the engines' recent scores for the draw and resign rules."""

    def __init__(self, rules: Adjudication, names: dict[Color, str]) -> None:
        self.rules = rules
        self.names = names
        self.draw_run = 0
        self.resign_run = {BLACK: 0, WHITE: 0}
        self.winning_run = {BLACK: 0, WHITE: 0}

    def after_move(self, board: Board, reply: MoveReply) -> GameEnd | None:
        mover: Color = board.turn ^ 1
        verdict = self.verdict(mover, reply.score, reply.move.is_capture, board.ply // 2 + 1)
        if verdict == "resign":
            return GameEnd.loss_for(mover, Termination.RESIGNATION,
                                    f"{_colour_name(mover)} ({self.names[mover]}) resigns "
                                    f"on its score {reply.score:+.2f}")
        if verdict == "draw":
            return GameEnd.draw(Termination.ADJUDICATED_DRAW, "on the engines' scores")
        return None

    def verdict(self, mover: Color, score: float | None, capture: bool, full_move: int) -> str | None:
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


class _Clocks(MoveHook):
    """Each side's clock, charged with every answer (a move too late loses on time), and each side's
    report (moves, time, depth, nodes)."""

    def __init__(self, rules: GameRules, names: dict[Color, str], sides: dict[str, SideReport]) -> None:
        self.rules = rules
        self.names = names
        self.sides = sides
        self.clocks = {colour: Clock(rules.tc_for(name)) for colour, name in names.items()}

    def limit(self, colour: Color) -> Limit:
        return self.clocks[colour].limit()

    def left(self) -> Clocks:
        """Seconds left on Black's and White's game clocks (None without one)."""
        return self.clocks[BLACK].remaining, self.clocks[WHITE].remaining

    def timeout(self, colour: Color) -> float:
        """How long to wait for ``colour``'s move before calling its engine stalled."""
        allowed = self.clocks[colour].allowed()
        return allowed + self.rules.stall_grace if allowed is not None else self.rules.untimed_timeout

    def on_reply(self, board: Board, reply: MoveReply) -> GameEnd | None:
        colour = board.turn
        side = self.sides[self.names[colour]]
        side.moves += 1
        side.seconds += reply.seconds
        side.depth_sum += reply.depth or 0
        side.nodes += reply.nodes or 0
        clock = self.clocks[colour]
        allowed = clock.allowed()
        if clock.charge(reply.seconds):
            return None
        side.time_forfeit = True
        return GameEnd.loss_for(colour, Termination.TIME_FORFEIT,
                                f"{_colour_name(colour)} ({self.names[colour]}) lost on time: "
                                f"{reply.seconds:.3f} s with {allowed or 0:.3f} s allowed")


class _Progress(MoveHook):
    """Tells ``on_move`` of every move played: the move as PDN names it, the position after it and
    the clocks (charged by ``clocks``, a hook before this one)."""

    def __init__(self, spec: GameSpec, on_move: Callable[[MoveEvent], None], clocks: _Clocks) -> None:
        self.spec = spec
        self.on_move = on_move
        self.clocks = clocks
        self.plies = 0
        self.pdn = ""

    def on_reply(self, board: Board, reply: MoveReply) -> None:
        self.pdn = board.notation(reply.move)  # named in the position it is played in

    def after_move(self, board: Board, reply: MoveReply) -> None:
        self.plies += 1
        self.on_move(MoveEvent(self.spec, self.plies, reply.move, self.pdn or reply.move.long, board.fen(),
                               seconds=reply.seconds, score=reply.score, depth=reply.depth,
                               clocks=self.clocks.left()))


async def _play_moves(loop: GameLoop, players: dict[Color, Player], clocks: _Clocks) -> GameRecord:
    """Ask each side for its move, timed, until the loop says the game is over; a fault ends it."""
    board = loop.board
    while not loop.over:
        colour = board.turn
        player = players[colour]
        t0 = time.monotonic()
        try:
            played = await player.play(board.copy(), clocks.limit(colour), clocks.timeout(colour))
        except PlayerFault as exc:
            clocks.sides[player.name].fault = exc.ending.value
            loop.end(_fault(colour, player.name, exc))
            break
        loop.reply(replace(played, seconds=time.monotonic() - t0))
    assert loop.record is not None
    return loop.record


def _fault(colour: Color, who: str, exc: PlayerFault) -> GameEnd:
    return GameEnd.loss_for(colour, exc.ending, f"{_colour_name(colour)} ({who}): {exc}")


async def play_match_game(spec: GameSpec, black: Player, white: Player, rules: GameRules,
                          on_move: Callable[[MoveEvent], None] | None = None) -> MatchGame:
    """Play ``spec`` between two started players through ``engine.game.GameLoop`` (the rules every
    game is played by), with the match's clocks, adjudication and faults as hooks around each move;
    engine faults are results, never exceptions.  ``on_move(event)`` hears of every move (a
    ``MoveEvent``: the move, the position after it, the clocks), for a live view."""
    started = time.monotonic()
    if black.name == white.name:
        raise ValueError(f"game {spec.game_id}: an engine cannot play itself under one name ({black.name})")
    board = opening_board(spec)
    players = {BLACK: black, WHITE: white}
    names = {BLACK: black.name, WHITE: white.name}
    sides = {black.name: SideReport(), white.name: SideReport()}
    game: GameRecord | None = None
    for colour in (BLACK, WHITE):
        try:
            await players[colour].new_game()
        except PlayerFault as exc:  # the game never began: the engine at fault loses it
            sides[names[colour]].fault = exc.ending.value
            game = GameRecord.of(board, _fault(colour, names[colour], exc), len(board.move_stack))
            break

    if game is None:
        clocks = _Clocks(rules, names, sides)
        hooks: list[MoveHook] = [clocks]
        if on_move is not None:
            hooks.append(_Progress(spec, on_move, clocks))
        hooks.append(_Adjudicator(rules.adjudication, names))
        game = await _play_moves(GameLoop(board, max_plies=rules.max_plies, hooks=hooks), players, clocks)
    if game.termination is Termination.ILLEGAL_MOVE and game.winner is not None:
        loser = WHITE if game.winner == BLACK else BLACK
        if not sides[names[loser]].fault:  # the loop caught a move the player let through
            sides[names[loser]].fault = game.termination.value
            game = replace(game, detail=f"{_colour_name(loser)} ({names[loser]}): {game.detail}")
    for p in (black, white):
        if p.alive:
            try:
                await p.end_game(game.result)
            except PlayerFault as exc:  # the game is scored; the pool restarts this engine
                sides[p.name].fault = sides[p.name].fault or exc.ending.value
    return MatchGame(spec=spec, game=game, tags=game_tags(spec, rules), seconds=time.monotonic() - started,
                     sides=sides)


def game_tags(spec: GameSpec, rules: GameRules) -> dict[str, str]:
    """The PDN tags a match gives a game (the game record adds ``Result`` and ``Termination``)."""
    tcs = {rules.tc_for(spec.black).describe(), rules.tc_for(spec.white).describe()}
    return {
        "Event": rules.event,
        "Site": rules.site,
        "Date": _dt.date.today().strftime("%Y.%m.%d"),
        "Round": str(spec.number or spec.round),
        "Black": spec.black,
        "White": spec.white,
        "GameType": "21",
        "Opening": spec.opening_label,
        "TimeControl": " / ".join(sorted(tcs)),
        "GameId": spec.game_id,
    }


def forfeit(spec: GameSpec, rules: GameRules, colour: Color, exc: PlayerFault) -> MatchGame:
    """The game lost by ``colour`` before a move was played (its engine would not start)."""
    who = spec.black if colour == BLACK else spec.white
    sides = {spec.black: SideReport(), spec.white: SideReport()}
    sides[who].fault = exc.ending.value
    board = opening_board(spec)
    game = GameRecord.of(board, _fault(colour, who, exc), len(board.move_stack))
    return MatchGame(spec=spec, game=game, tags=game_tags(spec, rules), seconds=0.0, sides=sides)
