"""Self-play games for Texel tuning: the engine against itself, written as PDN with results.

Game ``i`` (0-based) of a run depends on nothing but the settings and ``i``:

* its opening is ballot ``i mod len(openings)`` (the ACF three-move ballots, given by the caller
  as move texts), followed by ``random_plies`` uniformly random legal plies drawn from a
  generator seeded with ``(seed, i)``;
* from there one engine (``evaluator``, a fresh transposition table every game) picks every move
  of both sides within a fixed budget (``nodes`` or ``depth``), so the same settings replay the
  same game on any process and in any order;
* ``engine.game.play_game`` plays it under the project's rules (no move loses, threefold
  repetition and the 40-move rule draw); a game that reaches ``max_plies`` is a draw; and from ply
  ``adjudicate_from`` on, a side that has held a lead of ``adjudicate_lead`` pieces or more, with
  at least as many kings as the other side, for ``adjudicate_hold`` plies in a row is given the
  win (the ending is a matter of technique, and the positions of a long won ending would only
  repeat the same lesson).

The file (``write``/``generate``) is plain PDN, one game after another separated by a blank line,
every game from the standard start position (ballot and random plies included) with the tags
``Event`` (``samuel selfplay``), ``Round`` (``i + 1``), ``Black``/``White`` (the evaluator),
``Result``, ``Termination`` (``engine.termination``'s words), ``Opening`` (the ballot) and
``Generator`` (the settings, which a resumed run must match).  Games are appended as they
finish, one ``write`` and flush each, so a run that is killed loses only the games being played;
a rerun keeps every complete game, drops a torn last one, plays the missing numbers, and once
all are there rewrites the file in ``Round`` order (so a finished file is the same bytes for the
same settings, whatever the number of jobs).  About 1 kB a game.
"""

from __future__ import annotations

import os
import random
import re
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

from engine.board import Board
from engine.errors import SamuelError
from engine.evaluators import by_name
from engine.game import GameEnd, GameRecord, MoveHook, play_game, rule_ending
from engine.limits import Limit
from engine.move import Move
from engine.search import Searcher
from engine.termination import Termination
from engine.types import BLACK, WHITE, Color

ProgressFn = Callable[[int, int], None]

EVENT = "samuel selfplay"


class SelfPlayError(SamuelError, ValueError):
    """A self-play file that cannot be used or continued, naming the file and what is wrong."""


@dataclass(frozen=True)
class Settings:
    """Everything a game depends on besides its number."""

    nodes: int | None = 3000
    """Nodes a move (None: the depth decides)."""
    depth: int | None = None
    """Plies a move (None: the nodes decide)."""
    seed: int = 0
    random_plies: int = 4
    """Random legal plies after the ballot."""
    evaluator: str = "default"
    max_plies: int = 300
    """Plies from the start after which the game is a draw."""
    adjudicate_from: int = 100
    adjudicate_lead: int = 2
    adjudicate_hold: int = 10
    hash_mb: int = 16

    def __post_init__(self) -> None:
        if (self.nodes is None) == (self.depth is None):
            raise ValueError("give exactly one of nodes and depth")
        Limit(nodes=self.nodes, depth=self.depth)  # the same checks as any search

    def limit(self) -> Limit:
        return Limit(nodes=self.nodes, depth=self.depth)

    def tag(self) -> str:
        """The ``Generator`` tag: the settings a resumed run must share."""
        budget = f"nodes={self.nodes}" if self.nodes is not None else f"depth={self.depth}"
        return (f"{budget} seed={self.seed} random={self.random_plies} eval={self.evaluator} "
                f"cap={self.max_plies} adjudicate={self.adjudicate_from}/{self.adjudicate_lead}/"
                f"{self.adjudicate_hold}")


def _material(board: Board) -> tuple[int, int, int, int]:
    r = board.raw
    return (r.black_men | r.black_kings).bit_count(), r.black_kings.bit_count(), \
        (r.white_men | r.white_kings).bit_count(), r.white_kings.bit_count()


def leader(board: Board, lead: int) -> int | None:
    """The side (BLACK or WHITE) ahead by ``lead`` pieces or more with no fewer kings, else None."""
    bp, bk, wp, wk = _material(board)
    if bp - wp >= lead and bk >= wk:
        return BLACK
    if wp - bp >= lead and wk >= bk:
        return WHITE
    return None


_searchers: dict[tuple[str, int], Searcher] = {}


def _searcher(settings: Settings) -> Searcher:
    """One searcher per process and evaluator, reused from game to game (cleared at each)."""
    key = (settings.evaluator, settings.hash_mb)
    if key not in _searchers:
        _searchers[key] = Searcher(by_name(settings.evaluator), hash_mb=settings.hash_mb)
    return _searchers[key]


class _LeadAdjudication(MoveHook):
    """From ply ``adjudicate_from`` on, a side that has held a lead of ``adjudicate_lead`` pieces
    (with no fewer kings) for ``adjudicate_hold`` plies in a row is given the game."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.side: Color | None = None
        self.run = 0

    def before_move(self, board: Board) -> GameEnd | None:
        s = self.settings
        if board.ply < s.adjudicate_from:
            return None
        side = leader(board, s.adjudicate_lead)
        self.run = self.run + 1 if side is not None and side == self.side else (1 if side is not None else 0)
        self.side = side
        if side is None or self.run < s.adjudicate_hold:
            return None
        return GameEnd.loss_for(side ^ 1, Termination.ADJUDICATED_WIN,
                                f"a lead of {s.adjudicate_lead}+ pieces for {self.run} plies")


def play(index: int, opening: str, settings: Settings) -> GameRecord:
    """Game ``index`` from the ballot ``opening`` (move texts from the start), played by
    ``engine.game.play_game``; the ballot and the random plies are its opening plies."""
    rng = random.Random(f"samuel-selfplay:{settings.seed}:{index}")
    board = Board()
    board.push_many(opening.split())
    for _ in range(settings.random_plies):
        moves = board.legal_moves
        if not moves or rule_ending(board) is not None:
            break
        board.push(moves[rng.randrange(len(moves))])
    searcher = _searcher(settings)
    searcher.new_game()
    limit = settings.limit()

    def search(b: Board) -> Move:
        best = searcher.search(b, limit).best
        if best is None:  # the core always gives a move when there is one
            raise RuntimeError(f"no move from the search in {b.fen()}")
        return best

    cap = settings.max_plies  # counted from the start, the ballot and random plies included

    def capped(b: Board) -> GameEnd:
        return GameEnd.draw(Termination.MOVE_CAP, f"{cap} plies")

    return play_game(board, search, max_plies=max(0, cap - board.ply), at_cap=capped,
                     hooks=[_LeadAdjudication(settings)])


def game_text(index: int, label: str, game: GameRecord, settings: Settings) -> str:
    """Game ``index`` as PDN, ending in a blank line."""
    tags = {"Event": EVENT, "Round": str(index + 1), "Black": settings.evaluator, "White": settings.evaluator,
            "Termination": "", "Opening": label, "Generator": settings.tag()}
    return game.pdn(tags) + "\n"


def play_text(index: int, openings: Sequence[tuple[str, str]], settings: Settings) -> tuple[int, str]:
    """(index, PDN text) of game ``index``; ``openings`` are (label, moves) pairs."""
    label, moves = openings[index % len(openings)]
    return index, game_text(index, label, play(index, moves, settings), settings)


# ---- the file ----

_ROUND = re.compile(r'^\[Round "(\d+)"\]', re.MULTILINE)
_GENERATOR = re.compile(r'^\[Generator "([^"]*)"\]', re.MULTILINE)
_FIRST_TAG = f'[Event "{EVENT}"]'
_RESULT_END = re.compile(r"(1-0|0-1|1/2-1/2)\s*$")


@dataclass
class Existing:
    """What a self-play file already holds."""

    games: dict[int, str]
    """PDN text by game index (0-based)."""
    ordered: bool
    """Whether the games are in index order with none missing before the last."""
    torn: int
    """Bytes of an incomplete last game (dropped when the run continues)."""


def read_existing(path: str | Path, settings: Settings | None = None) -> Existing:
    """The complete games of a self-play file (nothing when it does not exist).

    Raises SelfPlayError for a file that is not a self-play file (or of other ``settings``), with
    the game's line.
    """
    path = Path(path)
    if not path.exists():
        return Existing({}, True, 0)
    if not path.is_file():
        raise SelfPlayError(f"{path}: not a file")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SelfPlayError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SelfPlayError(f"{path}: not a samuel self-play file (not UTF-8 text at byte {exc.start})") \
            from None
    end = text.rfind("\n\n")
    complete = text[: end + 2] if end >= 0 else ""
    games: dict[int, str] = {}
    order: list[int] = []
    line = 1
    want = settings.tag() if settings is not None else None
    for chunk in complete.split("\n\n")[:-1]:
        body = chunk + "\n\n"
        where = f"{path}:{line}"
        line += body.count("\n")
        if not chunk.strip():
            continue
        rnd, gen = _ROUND.search(chunk), _GENERATOR.search(chunk)
        if rnd is None or gen is None or f'[Event "{EVENT}"]' not in chunk:
            raise SelfPlayError(f"{where}: not a samuel self-play game (no Event, Round or Generator tag)")
        if not _RESULT_END.search(chunk):
            raise SelfPlayError(f"{where}: the game does not end in a result")
        if want is not None and gen.group(1) != want:
            raise SelfPlayError(f"{where}: made with other settings ({gen.group(1)}; this run: {want}): "
                                f"write to another file or give the same options")
        index = int(rnd.group(1)) - 1
        if index < 0 or index in games:
            what = "again" if index >= 0 else "is not valid"
            raise SelfPlayError(f"{where}: game number {index + 1} {what}")
        games[index] = body.lstrip("\n")
        order.append(index)
    ordered = order == list(range(len(order)))
    torn = text[len(complete):]
    head = torn.lstrip()
    if head and not (head.startswith(_FIRST_TAG) or _FIRST_TAG.startswith(head)):
        raise SelfPlayError(f"{path}:{line}: not a samuel self-play game (it does not begin {_FIRST_TAG})")
    return Existing(games, ordered, len(torn.encode("utf-8")))


def _rewrite(path: Path, games: dict[int, str]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
        for i in sorted(games):
            fh.write(games[i])
    os.replace(tmp, path)


def _init_worker() -> None:
    try:  # the parent's interrupt ends the run: the workers leave it to the parent
        import signal

        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except (ImportError, ValueError):
        pass


@dataclass
class Report:
    games: int
    """Games in the file."""
    played: int
    """Games played by this run."""
    kept: int
    """Games that were already there."""
    results: dict[str, int]
    """Games by result token (over the whole file)."""


def generate(path: str | Path, games: int, openings: Sequence[tuple[str, str]], settings: Settings, *,
             jobs: int = 1, progress: ProgressFn | None = None) -> Report:
    """Make ``path`` hold self-play games 1..``games`` (see the module docstring); ``openings`` are
    (label, move texts) pairs, ballot order.  Keeps what is there (same settings), plays the rest
    over ``jobs`` processes, and sorts the file by game once complete."""
    if not openings:
        raise ValueError("self-play needs at least one opening")
    if jobs < 1:
        raise ValueError("jobs must be at least 1")
    path = Path(path)
    have = read_existing(path, settings)
    if have.torn:  # a game cut off mid-write: drop it before appending
        with open(path, "r+b") as fh:
            fh.truncate(path.stat().st_size - have.torn)
    todo = [i for i in range(games) if i not in have.games]
    kept = len(have.games)
    path.parent.mkdir(parents=True, exist_ok=True)
    done = 0
    if progress:
        progress(done, len(todo))
    with open(path, "a", encoding="utf-8", newline="\n") as out:
        def record(index: int, text: str) -> None:
            nonlocal done
            out.write(text)
            out.flush()
            have.games[index] = text
            done += 1
            if progress:
                progress(done, len(todo))

        if jobs == 1 or len(todo) <= 1:
            for i in todo:
                record(*play_text(i, openings, settings))
        else:
            with ProcessPoolExecutor(jobs, initializer=_init_worker) as pool:
                pending: set[Future[tuple[int, str]]] = set()
                queue = iter(todo)
                try:
                    for i in queue:
                        pending.add(pool.submit(play_text, i, openings, settings))
                        if len(pending) >= 2 * jobs:
                            break
                    while pending:
                        finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                        for f in finished:
                            record(*f.result())
                            nxt = next(queue, None)
                            if nxt is not None:
                                pending.add(pool.submit(play_text, nxt, openings, settings))
                except BaseException:
                    for f in pending:
                        f.cancel()
                    raise
    have_all = all(i in have.games for i in range(games))
    if have_all and (todo or not have.ordered):
        _rewrite(path, have.games)
    results: dict[str, int] = {}
    for text in have.games.values():
        m = _RESULT_END.search(text)
        token = m.group(1) if m else "*"
        results[token] = results.get(token, 0) + 1
    return Report(len(have.games), len(todo), kept, results)
