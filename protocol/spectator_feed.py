"""The spectators' feed: a running match's games and standings, as JSON to every watching browser.

The runner tells the feed what happens (a game starts, a move is played, a game ends, new
standings) in plain values; the feed keeps the current state and sends it to each spectator
(``serve``, a WebSocket handler): a snapshot on connect, then one message per change.

Nothing a spectator does may slow the match.  The feed's methods never wait: each spectator has
an outbox of at most ``OUTBOX`` messages, written by its own task.  A spectator whose outbox
overflows skips what it missed and gets a fresh snapshot instead; one that takes no message (the
snapshot included) while ``DROP_AFTER`` others happen is dropped.  What spectators send is
ignored, but one that sends more than ``MAX_INBOUND`` characters at once or more than
``INBOUND_PER_SECOND`` messages a second is disconnected.

Messages (JSON objects; ``type`` says which)::

    {"type": "snapshot", "title": str, "status": str, "live": bool,
     "games": [GAME, ...], "finished": [FINISHED, ...], "standings": STANDINGS | null}
    {"type": "start", "game": GAME}
    {"type": "move", "id": str, "ply": int, "move": "11-15", "path": [11, 15], "fen": str,
     "clocks": [black, white] | null, "seconds": float}
    {"type": "end", "game": FINISHED}
    {"type": "standings", "standings": STANDINGS}
    {"type": "status", "status": str}

    GAME      {"id", "black", "white", "opening", "start": FEN the moves start from,
               "book": [the opening's moves], "moves": [the engines' moves], "fen": FEN now,
               "last": [squares of the last move's path], "clocks": [black, white] | null}
    FINISHED  {"id", "black", "white", "opening", "result", "reason", "plies"}
    STANDINGS {"columns": [str, ...], "rows": [[str, ...], ...], "lines": [str, ...]}

``live`` is false when the games are played elsewhere (no moves are heard of: only starts are
left out, finished games and standings still come).  Clocks are seconds left, None for a side
without a game clock.  FENs are CheckerBoard's (``B:W21,...:B1,...``); moves are PDN.

The feed belongs to one event loop; its methods may be called from another thread, and then
hop onto that loop.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

log = logging.getLogger(__name__)

OUTBOX = 64
"""Messages waiting for one spectator before it skips them for a fresh snapshot."""
DROP_AFTER = 4 * OUTBOX
"""Messages that may happen while a spectator takes none (not even its snapshot) before it is dropped."""
MAX_INBOUND = 2048
"""The longest message a spectator may send (characters)."""
INBOUND_PER_SECOND = 5
"""Messages a spectator may send in one second."""
FINISHED_KEPT = 12
"""Finished games kept (the latest)."""

CLOSE_POLICY = 1008
CLOSE_TOO_BIG = 1009
CLOSE_TRY_LATER = 1013

Clocks = tuple[float | None, float | None]


class Channel(Protocol):
    """One spectator's connection (``protocol.web_server.WebChannel`` is one)."""

    peer: str

    async def receive(self) -> str | None: ...

    async def send(self, text: str) -> None: ...

    async def close(self, code: int = 1000, reason: str = "") -> None: ...


@dataclass
class _Game:
    game_id: str
    black: str
    white: str
    opening: str
    start_fen: str
    book: list[str]
    fen: str
    moves: list[str] = field(default_factory=list)
    last: list[int] = field(default_factory=list)
    clocks: Clocks | None = None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.game_id, "black": self.black, "white": self.white, "opening": self.opening,
                "start": self.start_fen, "book": list(self.book), "moves": list(self.moves), "fen": self.fen,
                "last": list(self.last), "clocks": _clocks(self.clocks)}


@dataclass(eq=False)
class _Spectator:
    channel: Channel
    outbox: deque[str] = field(default_factory=deque)
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    resync: bool = True
    """Its next message is a snapshot (the first is)."""
    behind: int = 0
    """Messages since it last caught up (its outbox empty, or a snapshot taken)."""
    idle: asyncio.Event = field(default_factory=asyncio.Event)
    """Set while it has taken every message."""
    dropped: bool = False
    writer: asyncio.Future[None] | None = None
    """Its task sending the outbox (cancelled when it is dropped: a send may never end)."""
    close_code: int = 1000
    close_reason: str = ""


def _clocks(clocks: Clocks | None) -> list[float | None] | None:
    if clocks is None or clocks == (None, None):
        return None
    return [None if c is None else round(c, 1) for c in clocks]


def _dumps(message: dict[str, Any]) -> str:
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


class SpectatorFeed:
    """The state spectators see, and the spectators watching it.

    ``live``: whether moves will be heard of (False when the games are played elsewhere).
    ``loop``: the event loop ``serve`` runs on (by default the one running ``serve`` first);
    a change told from another thread is applied there.
    """

    def __init__(self, title: str = "", *, live: bool = True, loop: asyncio.AbstractEventLoop | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.title = title
        self.live = live
        self.status = "running"
        self.games: dict[str, _Game] = {}
        """Games in progress, by id, in the order they started."""
        self.finished: deque[dict[str, Any]] = deque(maxlen=FINISHED_KEPT)
        self.standings: dict[str, Any] | None = None
        self._loop = loop
        self._clock = clock
        self._spectators: set[_Spectator] = set()
        self._snapshot: str | None = None

    # -- what happens (any thread) ---------------------------------------------

    def start_game(self, game_id: str, *, black: str, white: str, opening: str, start_fen: str,
                   book: Sequence[str] = (), fen: str | None = None, clocks: Clocks | None = None) -> None:
        """A game starts: from ``start_fen``, the opening's ``book`` moves lead to ``fen``."""
        game = _Game(game_id, black, white, opening, start_fen, list(book), fen or start_fen,
                     clocks=clocks)
        self._submit(self._start, game)

    def move(self, game_id: str, *, move: str, path: Sequence[int], fen: str, ply: int,
             clocks: Clocks | None = None, seconds: float = 0.0) -> None:
        """``move`` (PDN; ``path`` its squares) was played as the engines' ``ply``-th, reaching ``fen``."""
        self._submit(self._move, game_id, move, list(path), fen, ply, clocks, seconds)

    def end_game(self, game_id: str, *, result: str, reason: str, black: str = "", white: str = "",
                 opening: str = "", plies: int = 0) -> None:
        """A game ended (or was given up, ``*``); the names are needed only for a game not started
        here (one played elsewhere)."""
        finished = {"id": game_id, "black": black, "white": white, "opening": opening, "result": result,
                    "reason": reason, "plies": plies}
        self._submit(self._end, finished)

    def set_standings(self, columns: Sequence[str], rows: Sequence[Sequence[str]],
                      lines: Sequence[str] = ()) -> None:
        """The standings table (text cells under ``columns``) and the lines shown with it."""
        standings = {"columns": list(columns), "rows": [list(r) for r in rows], "lines": list(lines)}
        self._submit(self._standings, standings)

    def set_status(self, status: str) -> None:
        """``running``, or why it ended (``complete``, ``sprt: H1 accepted``, ...)."""
        self._submit(self._status, status)

    def _submit(self, apply: Callable[..., None], *args: Any) -> None:
        loop = self._loop
        if loop is not None and not loop.is_closed():
            try:
                running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
            except RuntimeError:
                running = None
            if running is not loop:
                loop.call_soon_threadsafe(apply, *args)
                return
        apply(*args)

    # -- the state (on the loop) -----------------------------------------------

    def _start(self, game: _Game) -> None:
        self.games[game.game_id] = game
        self._broadcast({"type": "start", "game": game.to_json()})

    def _move(self, game_id: str, move: str, path: list[int], fen: str, ply: int, clocks: Clocks | None,
              seconds: float) -> None:
        game = self.games.get(game_id)
        if game is None:  # over already, or never started here
            return
        game.moves.append(move)
        game.fen, game.last, game.clocks = fen, path, clocks
        self._broadcast({"type": "move", "id": game_id, "ply": ply, "move": move, "path": path, "fen": fen,
                         "clocks": _clocks(clocks), "seconds": round(seconds, 2)})

    def _end(self, finished: dict[str, Any]) -> None:
        game = self.games.pop(finished["id"], None)
        if game is not None:
            finished.update(black=finished["black"] or game.black, white=finished["white"] or game.white,
                            opening=finished["opening"] or game.opening,
                            plies=finished["plies"] or len(game.moves))
        self.finished.append(finished)
        self._broadcast({"type": "end", "game": finished})

    def _standings(self, standings: dict[str, Any]) -> None:
        self.standings = standings
        self._broadcast({"type": "standings", "standings": standings})

    def _status(self, status: str) -> None:
        self.status = status
        self._broadcast({"type": "status", "status": status})

    def snapshot(self) -> dict[str, Any]:
        """Everything a spectator is shown, as one message."""
        return {"type": "snapshot", "title": self.title, "status": self.status, "live": self.live,
                "games": [g.to_json() for g in self.games.values()],
                "finished": [dict(f) for f in self.finished], "standings": self.standings}

    def _snapshot_text(self) -> str:
        if self._snapshot is None:
            self._snapshot = _dumps(self.snapshot())
        return self._snapshot

    def _broadcast(self, message: dict[str, Any]) -> None:
        """Queue ``message`` for every spectator; never waits."""
        self._snapshot = None
        if not self._spectators:
            return
        text = _dumps(message)
        for s in list(self._spectators):
            s.behind += 1
            if s.behind > DROP_AFTER:
                self._drop(s, CLOSE_TRY_LATER, "too far behind")
                continue
            if not s.resync:
                if len(s.outbox) < OUTBOX:
                    s.outbox.append(text)
                else:  # it skips what it missed: the snapshot will hold it
                    s.outbox.clear()
                    s.resync = True
            s.idle.clear()
            s.wake.set()

    def _drop(self, s: _Spectator, code: int, reason: str) -> None:
        if not s.dropped:
            log.info("spectator %s dropped: %s", s.channel.peer, reason)
        s.dropped, s.close_code, s.close_reason = True, code, reason
        s.outbox.clear()
        self._spectators.discard(s)
        s.idle.set()
        if s.writer is not None:
            s.writer.cancel()

    # -- the spectators ---------------------------------------------------------

    @property
    def spectators(self) -> int:
        """How many are watching."""
        return len(self._spectators)

    async def flush(self) -> None:
        """Wait until every spectator has taken every message so far (or has gone)."""
        await asyncio.gather(*(s.idle.wait() for s in list(self._spectators)))

    async def serve(self, channel: Channel) -> None:
        """Show the match to one spectator until it leaves, misbehaves or falls too far behind."""
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
        s = _Spectator(channel)
        self._spectators.add(s)
        writer = s.writer = asyncio.ensure_future(self._write(s))
        reader = asyncio.ensure_future(self._read(s))
        try:
            await asyncio.wait((writer, reader), return_when=asyncio.FIRST_COMPLETED)
        finally:
            self._spectators.discard(s)
            s.idle.set()
            for task in (writer, reader):
                task.cancel()
            await asyncio.gather(writer, reader, return_exceptions=True)
            await channel.close(s.close_code, s.close_reason)

    async def _write(self, s: _Spectator) -> None:
        while not s.dropped:
            if s.resync:
                s.resync, s.behind = False, 0
                s.outbox.clear()
                text = self._snapshot_text()
            elif s.outbox:
                text = s.outbox.popleft()
            else:
                s.behind = 0  # caught up
                s.wake.clear()
                s.idle.set()
                await s.wake.wait()
                continue
            await s.channel.send(text)

    async def _read(self, s: _Spectator) -> None:
        """Read (and ignore) what the spectator sends; return when it leaves or abuses the feed."""
        recent: deque[float] = deque()
        while True:
            try:
                text = await s.channel.receive()
            except ConnectionError:  # the channel's own flood guard
                self._drop(s, CLOSE_POLICY, "too many messages")
                return
            if text is None:
                return
            if len(text) > MAX_INBOUND:
                self._drop(s, CLOSE_TOO_BIG, "message too big")
                return
            now = self._clock()
            recent.append(now)
            while now - recent[0] >= 1.0:
                recent.popleft()
            if len(recent) > INBOUND_PER_SECOND:
                self._drop(s, CLOSE_POLICY, "too many messages")
                return
