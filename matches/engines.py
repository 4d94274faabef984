"""Engines for matches: how one is described (EngineSpec) and how it plays (Player).

An engine is given the cutechess-cli way, as ``key=value`` tokens::

    --engine name=mat eval=material depth=6                  in this process (the default)
    --engine name=s proto=hub cmd="samuel hub" option.mode=samuel
    --engine proto=cb tcp=127.0.0.1:27532                     a cb server (samuel serve)
    --engine proto=dxp host=10.0.0.2 port=27531 st=1          a DXP follower

or as ``[[engine]]`` tables of a TOML file with the same keys (``cmd`` may be an
array, options a ``[engine.options]`` table; an ``[each]`` table holds keys for
every engine).  Keys: ``name``, ``proto`` (inproc, hub, cb, dxp), ``cmd``,
``arg`` (one more argument for cmd), ``dir`` (its working folder), ``host``,
``port``, ``tcp=HOST:PORT``, ``option.NAME=VALUE``; ``eval``/``evaluator``,
``mode``, ``hash``, ``egdb`` (an endgame database directory, ``auto`` -- the
default directory when it holds tables, the default -- or ``none``), ``book``
(``default``, ``none`` or a file), ``book-variety``, ``contempt`` (centi-men a draw
costs the engine), ``fogel-draws`` (options every samuel engine knows; an in-process engine plays
without a book unless given one) and ``weights=FILE.json`` (an evaluator file,
in this process only); ``rote=FILE`` (Samuel's rote memory, a store or a 704 reel,
read and never written, so every game meets the same memory) and ``pace`` (the 704
backend's: ``emulator``, ``704``, ``704-clock``), in this process only; ``st``, ``tc``,
``depth``, ``nodes``, ``timemargin`` (this engine's own time control, over the tournament's).

``make_player`` turns a spec into a ``Player``: ``InProcessPlayer`` searches
with an ``engine.Searcher`` on its own thread, ``ClientPlayer`` drives another
process or server through ``protocol.client``.  Either turns every misbehaviour
into a ``PlayerFault`` whose message names the engine and what happened.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import shlex
from collections.abc import Awaitable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

from engine import evaluators, opening_book, timeman
from engine.board import Board
from engine.errors import GameOverError, SamuelError
from engine.learners.rote_file import close_rote, open_rote
from engine.limits import Limit
from engine.move import Move
from engine.options import OPTIONS, OptionValues, check_compatible, find, session_options
from engine.runner import SearchRun
from engine.search import EngineSearcher, RoteSource
from engine.searchers import build_searcher
from engine.termination import Termination
from engine.types import BLACK, WHITE
from matches.player import Played, Player, PlayerFault
from matches.timecontrol import TimeControl
from protocol.client import (
    DxpEngine,
    EngineError,
    EngineGameEndError,
    EngineProtocol,
    EngineTerminatedError,
    EngineTimeoutError,
    IllegalEngineMoveError,
    connect_cb,
    connect_dxp,
    connect_hub,
    popen_cb,
    popen_hub,
)
from protocol.client.base import limit_timeout
from protocol.dxp_grammar import REASON_DRAW, REASON_I_LOSE, REASON_I_WIN, REASON_NONE
from protocol.position_strings import FRAMES

tomllib: ModuleType | None
try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    try:
        import tomli as tomllib  # type: ignore[no-redef]
    except ModuleNotFoundError:
        tomllib = None

T = TypeVar("T")

PROTOCOLS: tuple[str, ...] = ("inproc", "hub", "cb", "dxp")
INPROC_OPTIONS: tuple[str, ...] = (*(o.name for o in session_options()), "pace")
"""The options an in-process engine takes (the option table's; ``weights=`` sets ``evaluator`` to a
file)."""
DEFAULT_PORTS: dict[str, int] = {"dxp": 27531, "cb": 27532}
"""What ``samuel serve`` listens on, used when ``host=`` comes without ``port=``."""

START_TIMEOUT = 30.0
"""Seconds an engine gets to start, shake hands and take its options."""
CALL_TIMEOUT = 10.0
"""Seconds for a new-game or end-of-game exchange."""
QUIT_TIMEOUT = 3.0
"""Seconds ``close`` waits for a polite exit before it kills."""
SETTLE_TIMEOUT = 5.0
"""Seconds a stopped in-process search gets to return."""
CLIENT_GRACE = 1e6
"""The client library's own hang detection, pushed out of the way: our ``wait_for`` decides."""

_TIME_KEYS = ("st", "tc", "depth", "nodes", "timemargin")
_INPROC_ONLY = ("pace",)
"""Options of the table an in-process engine takes beside the session's (a server sets them at start)."""
_KEYS = (
    "name", "proto", "cmd", "arg", "dir", "host", "port", "tcp", "ponder", "option.NAME",
    *(a for o in session_options() for a in (*o.aliases, o.name)), *_INPROC_ONLY, "rote", "weights", "frame",
    *_TIME_KEYS,
)
_OPTION_KEYS = frozenset(a for o in session_options() for a in (*o.aliases, o.name))


def _is_a_file(kind: str, text: str) -> bool:
    """Whether an option's value names a file or folder (made absolute against the spec's folder):
    an evaluator .json file, a book file, an endgame database folder; not a name such as ``auto``."""
    low = text.lower()
    if kind == "evaluator":
        return low.endswith(".json")
    if kind == "book":
        return low not in opening_book.NONE_NAMES and low not in opening_book.DEFAULT_NAMES
    if kind == "egdb":
        return low not in ("auto", "none", "off")
    return False


# ---------------------------------------------------------------------------
# Specs.


@dataclass(frozen=True)
class EngineSpec:
    """One engine of a tournament, as plain data (it travels as JSON and in pickles)."""

    name: str
    proto: str = "inproc"
    cmd: tuple[str, ...] = ()
    """The argv of a process spoken to over its stdin/stdout (hub, cb)."""
    host: str | None = None
    """A TCP endpoint (cb, dxp, hub)."""
    port: int | None = None
    cwd: str | None = None
    options: tuple[tuple[str, str], ...] = ()
    """Passed on: ``configure`` for hub/cb; evaluator, mode and hash for an in-process engine."""
    tc: TimeControl | None = None
    """This engine's own time control, over the tournament's."""
    frame: str = "literal"
    """How a DXP engine reads GAMEREQ positions (``literal``, or ``pydraughts``' rotated frame)."""
    ponder: bool = False
    """Think on the expected reply during the opponent's move (cutechess-cli's ``ponder``): Hub's
    ``go ponder``/``ponder-hit``, or a background search for an in-process engine."""
    rote: str | None = None
    """An in-process engine's rote memory (a store or a 704 reel), read only."""

    def describe(self) -> str:
        """Where it runs, for messages: ``hub: fake_hub.py --crash-after 2``, ``cb: 127.0.0.1:27532``."""
        if self.proto == "inproc":
            opts = dict(self.options)
            ev = opts.get("evaluator", "default")
            shown = os.path.basename(ev) if ev.endswith(".json") else ev
            book = opts.get("book", "none")
            shown_book = "" if book == "none" else f", book {os.path.basename(book)}"
            shown_rote = "" if self.rote is None else f", rote {os.path.basename(self.rote)}"
            return f"inproc: {shown}, {opts.get('mode', 'pvs')}{shown_book}{shown_rote}"
        if self.cmd:
            return f"{self.proto}: {_short_cmd(self.cmd)}"
        return f"{self.proto}: {self.host}:{self.port}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "proto": self.proto,
            "cmd": list(self.cmd),
            "host": self.host,
            "port": self.port,
            "cwd": self.cwd,
            "options": dict(self.options),
            "tc": self.tc.to_dict() if self.tc is not None else None,
            "frame": self.frame,
            "ponder": self.ponder,
            "rote": self.rote,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> EngineSpec:
        options = d.get("options") or {}
        pairs = options.items() if isinstance(options, Mapping) else options
        tc = d.get("tc")
        return cls(
            name=str(d["name"]),
            proto=str(d.get("proto", "inproc")),
            cmd=tuple(str(a) for a in d.get("cmd") or ()),
            host=d.get("host"),
            port=None if d.get("port") is None else int(d["port"]),
            cwd=d.get("cwd"),
            options=tuple((str(k), str(v)) for k, v in pairs),
            tc=TimeControl.from_dict(tc) if tc is not None else None,
            frame=str(d.get("frame", "literal")),
            ponder=bool(d.get("ponder", False)),
            rote=None if d.get("rote") is None else str(d["rote"]),
        )


PONDER_PROTOCOLS = ("hub", "inproc")
"""The engines ``ponder`` works for."""


def _short_cmd(cmd: Sequence[str]) -> str:
    # Paths shortened to their last part: the message should fit on a line.
    return " ".join(os.path.basename(w) if os.sep in w else w for w in cmd)


@dataclass
class _Draft:
    """The keys of one engine as they are read; ``build`` checks them."""

    where: str
    base_dir: Path | None = None
    name: str | None = None
    proto: str | None = None
    cmd: list[str] | None = None
    args: list[str] = field(default_factory=list)
    host: str | None = None
    port: int | None = None
    cwd: str | None = None
    options: dict[str, str] = field(default_factory=dict)
    weights: str | None = None
    rote: str | None = None
    frame: str = "literal"
    ponder: bool = False
    tc_layers: list[list[str]] = field(default_factory=lambda: [[]])

    def fail(self, message: str) -> ValueError:
        return ValueError(f"{self.where}: {message}")

    def text(self, key: str, value: Any) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (str, int, float)):
            return str(value)
        raise self.fail(f"{key}= needs a single value, got {value!r}")

    def path(self, text: str) -> str:
        p = Path(text).expanduser()
        if not p.is_absolute() and self.base_dir is not None:
            p = self.base_dir / p
        return str(p.resolve())

    def apply(self, key: str, value: Any) -> None:
        k = key.strip()
        low = k.lower()
        if low.startswith("option."):
            opt = k[len("option."):].strip()
            if not opt:
                raise self.fail("option.NAME=VALUE needs a name")
            self.options[opt] = self.text(k, value)
        elif low in ("option", "options") and isinstance(value, Mapping):
            for opt, v in value.items():
                self.apply(f"option.{opt}", v)
        elif low == "name":
            self.name = self.text(k, value).strip()
            if not self.name:
                raise self.fail("name= is empty")
        elif low == "proto":
            self.proto = self.text(k, value).strip().lower()
        elif low == "cmd":
            self.cmd = self._argv(value)
        elif low == "arg":
            self.args.append(self.text(k, value))
        elif low in ("dir", "cwd"):
            self.cwd = self.path(self.text(k, value))
        elif low == "host":
            self.host = self.text(k, value).strip()
        elif low == "port":
            self.port = self._port(self.text(k, value))
        elif low == "tcp":
            host, sep, port = self.text(k, value).strip().rpartition(":")
            if not sep or not host:
                raise self.fail(f"tcp= needs HOST:PORT, got {value!r}")
            self.host, self.port = host.strip("[]"), self._port(port)
        elif low in _OPTION_KEYS:  # an option of the table, checked by ``build``
            option = find(low, per_session=True)
            text = self.text(k, value).strip()
            self.options[option.name] = self.path(text) if _is_a_file(option.kind, text) else text
        elif low == "ponder":
            text = self.text(k, value).strip().lower()
            if text not in ("true", "false", "yes", "no", "1", "0", "on", "off"):
                raise self.fail(f"ponder= must be true or false, got {value!r}")
            self.ponder = text in ("true", "yes", "1", "on")
        elif low in _INPROC_ONLY:
            self.options[low] = self.text(k, value).strip()
        elif low == "rote":
            self.rote = self.path(self.text(k, value).strip())
        elif low == "weights":
            self.weights = self.path(self.text(k, value))
        elif low == "frame":
            self.frame = self.text(k, value).strip().lower()
            if self.frame not in FRAMES:
                raise self.fail(f"frame= must be {' or '.join(FRAMES)}, got {value!r}")
        elif low in _TIME_KEYS:
            self.tc_layers[-1].append(f"{low}={self.text(k, value).strip()}")
        else:
            raise self.fail(f"unknown key {k!r}; known keys: {', '.join(_KEYS)}")

    def _argv(self, value: Any) -> list[str]:
        if isinstance(value, (list, tuple)):
            argv = [self.text("cmd", v) for v in value]
        else:
            try:
                argv = shlex.split(self.text("cmd", value))
            except ValueError as exc:
                raise self.fail(f"cmd={value!r}: {exc}") from None
        if not argv:
            raise self.fail("cmd= is empty")
        return argv

    def _port(self, text: str) -> int:
        try:
            port = int(text)
        except ValueError:
            raise self.fail(f"port {text!r} is not a number") from None
        if not 1 <= port <= 65535:
            raise self.fail(f"port={port} is out of range (1..65535)")
        return port

    def time_control(self) -> TimeControl | None:
        tc: TimeControl | None = None
        for pieces in self.tc_layers:
            if not pieces:
                continue
            try:
                layer = TimeControl.parse(" ".join(pieces))
            except ValueError as exc:
                raise self.fail(str(exc)) from None
            tc = layer if tc is None else tc.merged(layer)
        return tc

    def build(self) -> EngineSpec:
        proto = self.proto
        if proto is None:
            if self.cmd or self.host or self.port:
                raise self.fail("say which protocol the engine speaks: proto=hub, proto=cb or proto=dxp")
            proto = "inproc"
        if proto not in PROTOCOLS:
            raise self.fail(f"unknown proto {proto!r}; choose from {', '.join(PROTOCOLS)}")
        if self.args and not self.cmd:
            raise self.fail("arg= adds to cmd=, which is missing")
        cmd = tuple([*(self.cmd or ()), *self.args])
        host, port = self.host, self.port
        if port is not None and not host:
            host = "127.0.0.1"
        if host and port is None:
            port = DEFAULT_PORTS.get(proto)
            if port is None:
                raise self.fail(f"host={host} needs port= (or tcp=HOST:PORT)")
        tc = self.time_control()
        if self.ponder and proto not in PONDER_PROTOCOLS:
            raise self.fail(f"ponder: a {proto} engine cannot ponder (CheckerBoard's API and DXP have no "
                            f"pondering); it works for {' and '.join(PONDER_PROTOCOLS)} engines")
        options = dict(self.options)
        if options.get("backend", "").lower() == "704":  # refused by name, for every kind of engine
            try:
                check_compatible({"backend": "704", "evaluator": options.get("evaluator", "default")})
            except SamuelError as exc:
                raise self.fail(str(exc)) from None
        if proto == "inproc":
            options = self._inproc_options(cmd, host)
        else:
            if self.weights is not None:
                raise self.fail("weights= loads an evaluator into this process; give a "
                                f"{proto} engine its evaluator on its command line or with eval=")
            if self.rote is not None or "pace" in options:
                raise self.fail(f"rote= and pace= are for an engine in this process; give a {proto} engine "
                                "them on its command line (samuel hub --rote FILE --pace 704)")
            if cmd and host:
                raise self.fail("give cmd= (a process) or host=/port= (a server), not both")
            if self.frame != "literal" and proto != "dxp":
                raise self.fail("frame= is for DXP engines (proto=dxp)")
            if proto == "dxp":
                if cmd or not host:
                    raise self.fail("a dxp engine is a server: give host= and port= (or tcp=HOST:PORT)")
                if options:
                    raise self.fail(f"DXP has no engine options (got {', '.join(options)}); "
                                    "set them on the server's command line")
            elif not cmd and not host:
                raise self.fail(f"a {proto} engine needs cmd= (a process) or host=/port= (a server)")
        if self.rote is not None:  # named now, not when the first game starts
            try:
                close_rote(open_rote(self.rote))
            except SamuelError as exc:
                raise self.fail(f"rote=: {exc}") from None
        name = self.name or self._default_name(proto, cmd, host, port, options, tc)
        return EngineSpec(name, proto, cmd, host, port, self.cwd, tuple(options.items()), tc, self.frame,
                          self.ponder, self.rote)

    def _inproc_options(self, cmd: tuple[str, ...], host: str | None) -> dict[str, str]:
        if cmd or host or self.cwd:
            raise self.fail("cmd=, host=, port= and dir= are for hub, cb or dxp engines; add proto=")
        options = {k.lower(): v for k, v in self.options.items()}
        unknown = [k for k in options if k not in INPROC_OPTIONS]
        if unknown:
            raise self.fail(f"an in-process engine takes the options {', '.join(INPROC_OPTIONS)}, "
                            f"not {', '.join(unknown)}")
        if self.weights is not None:
            if "evaluator" in options:
                raise self.fail("give eval= or weights=, not both")
            options["evaluator"] = self.weights
        if "pace" in options and options.get("backend", "modern").lower() != "704":
            raise self.fail("pace= sets the 704 backend's speed; add backend=704")
        try:  # the option table checks every value, and that the backend plays the evaluator
            values = OptionValues(options)
        except SamuelError as exc:
            raise self.fail(str(exc)) from None
        # The spec travels as text (JSON, pickles): each value in its canonical text.
        return {o.name: o.text(values[o.name]) for o in OPTIONS
                if (o.per_session or o.name in _INPROC_ONLY) and (o.name in options or o.name == "evaluator")}

    @staticmethod
    def _default_name(proto: str, cmd: tuple[str, ...], host: str | None, port: int | None,
                      options: Mapping[str, str], tc: TimeControl | None) -> str:
        if proto == "inproc":
            parts = [evaluators.by_name(options["evaluator"]).name]
            if options.get("mode", "pvs") != "pvs":
                parts.append(options["mode"])
            if options.get("book", "none") != "none":
                parts.append("book")
            if tc is not None and tc.depth is not None:
                parts.append(f"d{tc.depth}")
            return "-".join(parts)
        if cmd:
            words = list(cmd)
            # "python -m samuel hub" or "python fake.py": name it after what the interpreter runs.
            if os.path.basename(words[0]).startswith("python") and len(words) > 1:
                words = [w for w in words[1:] if not w.startswith("-")] or words
            return Path(words[0]).stem or words[0]
        return f"{host}:{port}"


def _tokens_to_pairs(tokens: Iterable[str], what: str) -> list[tuple[str, str]]:
    pairs = []
    for token in tokens:
        if token.strip().lower() == "ponder":  # cutechess-cli's bare flag
            pairs.append(("ponder", "true"))
            continue
        key, sep, value = token.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"{what}: expected key=value, got {token!r}")
        pairs.append((key, value))
    return pairs


def parse_engine(tokens: Sequence[str], *, each: Sequence[str] = ()) -> EngineSpec:
    """An EngineSpec from one ``--engine`` occurrence's ``key=value`` tokens.

    ``each`` (``--each`` tokens) applies to every engine; the engine's own keys win.
    ValueError names the engine and what is wrong with it.
    """
    what = "--engine " + " ".join(shlex.quote(t) for t in tokens)
    draft = _Draft(what)
    for key, value in _tokens_to_pairs(each, "--each " + " ".join(each)):
        draft.apply(key, value)
    draft.tc_layers.append([])
    for key, value in _tokens_to_pairs(tokens, what):
        draft.apply(key, value)
    return draft.build()


def load_engines_toml(path: Path | str) -> tuple[list[EngineSpec], dict[str, Any]]:
    """The ``[[engine]]`` tables of a TOML file, and everything else in it as tournament settings.

    An ``[each]`` table gives keys for every engine (consumed here, not returned).
    Relative paths in ``dir``, ``weights`` and ``eval=FILE.json`` are relative to the file.
    """
    source = Path(path)
    if tomllib is None:
        raise RuntimeError("reading TOML needs Python 3.11 or later, or the tomli package")
    try:
        text = source.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FileNotFoundError(f"no engines file {str(source)!r}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{source}: cannot read: {exc}") from None
    try:
        data: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{source}: not valid TOML: {exc}") from None
    tables = data.pop("engine", [])
    each = data.pop("each", {})
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise ValueError(f"{source}: 'engine' must be an array of tables, written [[engine]]")
    if not isinstance(each, dict):
        raise ValueError(f"{source}: 'each' must be a table, written [each]")
    specs: list[EngineSpec] = []
    seen: dict[str, int] = {}
    for i, table in enumerate(tables, start=1):
        label = f" ({table['name']})" if isinstance(table.get("name"), str) else ""
        draft = _Draft(f"{source}: engine {i}{label}", base_dir=source.parent)
        for key, value in each.items():
            draft.apply(key, value)
        draft.tc_layers.append([])
        for key, value in table.items():
            draft.apply(key, value)
        spec = draft.build()
        if spec.name in seen:
            raise ValueError(f"{source}: engines {seen[spec.name]} and {i} are both named {spec.name!r}")
        seen[spec.name] = i
        specs.append(spec)
    return specs, data


# ---------------------------------------------------------------------------
# Players.


def make_player(spec: EngineSpec, default_tc: TimeControl | None = None) -> Player:
    """The player for ``spec``; its ``tc`` is the engine's own control over ``default_tc``."""
    tc = default_tc.merged(spec.tc) if default_tc is not None else spec.tc
    if spec.proto == "inproc":
        return InProcessPlayer(spec, tc)
    return ClientPlayer(spec, tc)


class InProcessPlayer(Player):
    """An ``engine.Searcher`` in this process, searching on a thread of its own.

    The C search releases the GIL, so games in one event loop search in
    parallel.  One thread per player keeps its searches in order, and a
    stalled search cannot starve the event loop's shared executor.
    """

    def __init__(self, spec: EngineSpec, tc: TimeControl | None = None) -> None:
        super().__init__(spec.name)
        self.spec = spec
        self.tc = tc
        """The time control this engine plays under (its own over the tournament's)."""
        self._searcher: EngineSearcher | None = None
        self._executor: ThreadPoolExecutor | None = None
        self._run: SearchRun | None = None
        """The last search started (it may still run after a timed-out or cancelled play)."""
        self._ponder: tuple[Board, SearchRun] | None = None
        """With ``ponder``: the open-ended search of the expected reply's position, while the
        opponent thinks."""
        self.ponder_hits = 0
        self.ponder_misses = 0
        self._alive = True
        self._rote: RoteSource | None = None
        """``rote=``'s memory, opened at start and read by every search."""

    @property
    def who(self) -> str:
        return f"engine {self.name!r} ({self.spec.describe()})"

    @property
    def searcher(self) -> EngineSearcher | None:
        return self._searcher

    @property
    def alive(self) -> bool:
        return self._alive

    async def start(self) -> None:
        if self._searcher is not None and self._alive:
            return
        self._shutdown()
        try:
            self._rote = open_rote(self.spec.rote) if self.spec.rote is not None else None
            self._searcher = build_searcher(OptionValues(self.spec.options), rote=self._rote)
        except (SamuelError, ValueError, OSError, MemoryError) as exc:
            self._alive = False
            raise PlayerFault(Termination.CRASH, f"{self.who} cannot start: {exc}") from None
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"samuel-{self.name}")
        self._alive = True

    def _running(self) -> tuple[EngineSearcher, ThreadPoolExecutor]:
        if not self._alive or self._searcher is None or self._executor is None:
            raise PlayerFault(Termination.CRASH, f"{self.who} is not running")
        return self._searcher, self._executor

    async def _settle(self, timeout: float | None = SETTLE_TIMEOUT) -> bool:
        """Stop and wait for a search left running (by a cancelled or timed-out play, or pondering);
        True if none is."""
        if self._ponder is not None:
            self._run = self._ponder[1]
            self._ponder = None
        run = self._run
        if run is None or run.done():
            return True
        run.stop()
        with contextlib.suppress(Exception, asyncio.TimeoutError):
            await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(run.future)), timeout)
        return run.done()

    async def new_game(self) -> None:
        searcher, executor = self._running()
        await self._settle()
        await asyncio.get_running_loop().run_in_executor(executor, searcher.new_game)

    async def play(self, board: Board, limit: Limit, timeout: float | None) -> Played:
        searcher, executor = self._running()
        run = self._ponder_hit(board, limit)
        if run is None:
            if not await self._settle():
                self._alive = False
                raise PlayerFault(Termination.STALL, f"{self.who}: an earlier search does not stop")
            run = SearchRun(board, limit, searcher, submit=executor.submit)  # it searches a copy of the board
        self._run = run
        try:
            result = await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(run.future)), timeout)
        except asyncio.TimeoutError:
            if not await self._settle():
                self._alive = False
            raise PlayerFault(Termination.STALL,
                              f"{self.who} did not move within {timeout or 0:.2f} s") from None
        except asyncio.CancelledError:
            run.stop()
            raise
        except GameOverError:
            raise  # asked to move in a finished game: the caller's mistake, not the engine's
        except Exception as exc:
            raise PlayerFault(Termination.CRASH, f"{self.who} failed during its move: {exc!r}") from None
        move = result.best
        if move is None:
            raise PlayerFault(Termination.PROTOCOL_ERROR, f"{self.who} returned no move in {board.fen()}")
        if not board.is_legal(move):
            raise PlayerFault(Termination.ILLEGAL_MOVE, f"{self.who} played {move.long}, "
                                                   f"not legal in {board.fen()}")
        if self.spec.ponder:
            self._start_pondering(board, move, result.ponder, searcher, executor)
        info = result.info
        return Played(move, info.score.men, info.depth, info.nodes)

    def _ponder_hit(self, board: Board, limit: Limit) -> SearchRun | None:
        """The ponder search when the opponent played the expected reply, now timed as this move's
        search (it stops when the move's budget, counted from now, is spent); None on a miss (the
        ponder search is then stopped by ``_settle``) or when not pondering."""
        if self._ponder is None:
            return None
        pondered, run = self._ponder
        if pondered.initial_fen != board.initial_fen or pondered.move_stack != board.move_stack:
            self.ponder_misses += 1
            return None
        self._ponder = None
        self.ponder_hits += 1
        soft_ms, hard_ms = timeman.budgets(limit)
        budget_ms = soft_ms or hard_ms
        if budget_ms > 0:
            asyncio.get_running_loop().call_later(budget_ms / 1000.0, run.stop)
        else:  # a depth or node limit: what the ponder search found while the opponent thought stands
            run.stop()
        return run

    def _start_pondering(self, board: Board, move: Move, reply: Move | None, searcher: EngineSearcher,
                         executor: ThreadPoolExecutor) -> None:
        """Search the position after ``move`` and the expected ``reply`` until the next play."""
        if reply is None:
            return
        after = board.copy()
        after.push(move)
        if reply not in after.legal_moves:
            return
        after.push(reply)
        if not after.legal_moves:
            return
        self._ponder = (after, SearchRun(after, Limit(), searcher, submit=executor.submit))

    async def close(self) -> None:
        await self._settle(2.0)
        self._shutdown()

    def kill(self) -> None:
        self._alive = False
        if self._run is not None:
            self._run.stop()
        if self._ponder is not None:
            self._ponder[1].stop()
            self._ponder = None
        self._shutdown()

    def _shutdown(self) -> None:
        self._alive = False
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
        self._searcher = None
        close_rote(self._rote)  # the store's connection; a search still running keeps its table
        self._rote = None


def _dxp_minutes(tc: TimeControl | None) -> int | None:
    """GAMEREQ minutes for a clocked control (DXP carries whole minutes, no increment)."""
    if tc is None or tc.base is None:
        return None
    return max(1, min(999, math.ceil(tc.base / 60)))


class ClientPlayer(Player):
    """Another engine, driven through ``protocol.client`` over a pipe or TCP."""

    def __init__(self, spec: EngineSpec, tc: TimeControl | None = None) -> None:
        super().__init__(spec.name)
        self.spec = spec
        self.tc = tc
        """The time control this engine plays under (its own over the tournament's)."""
        self.protocol: EngineProtocol | None = None
        self._alive = True

    @property
    def who(self) -> str:
        return f"engine {self.name!r} ({self.spec.describe()})"

    @property
    def alive(self) -> bool:
        return self._alive

    # ---- starting ----

    async def _open(self) -> EngineProtocol:
        s = self.spec
        if s.proto == "dxp":
            assert s.host is not None and s.port is not None
            moves = self.tc.moves if self.tc is not None and self.tc.moves is not None else 0
            dxp = await connect_dxp(s.host, s.port, name="samuel-match", minutes=_dxp_minutes(self.tc),
                                    moves=min(moves, 999), frame=s.frame)
            dxp.grace = CLIENT_GRACE
            return dxp
        if s.cmd:
            opener = popen_hub if s.proto == "hub" else popen_cb
            return await opener(list(s.cmd), cwd=s.cwd, grace=CLIENT_GRACE)
        assert s.host is not None and s.port is not None
        connect = connect_hub if s.proto == "hub" else connect_cb
        return await connect(s.host, s.port, grace=CLIENT_GRACE)

    async def start(self) -> None:
        if self.protocol is not None:
            if self._alive:
                return
            await self._discard()  # a restart: the dead engine's pipes go first
            self.protocol = None
        try:
            self.protocol = await asyncio.wait_for(self._open(), START_TIMEOUT)
        except EngineTerminatedError as exc:
            self._alive = False
            raise PlayerFault(Termination.CRASH, f"{self.who} could not start: {_plain(exc)}") from None
        except (asyncio.TimeoutError, EngineTimeoutError):
            self._alive = False
            raise PlayerFault(Termination.STALL, f"{self.who} did not finish its handshake "
                                            f"within {START_TIMEOUT:g} s") from None
        except (EngineError, OSError, ValueError) as exc:
            self._alive = False
            raise PlayerFault(Termination.PROTOCOL_ERROR,
                              f"{self.who} could not start: {_plain(exc)}") from None
        self._alive = True
        options = dict(self.spec.options)
        if options:
            try:
                await self._call(self.protocol.configure(options), START_TIMEOUT, "while taking its options")
            except BaseException:
                await self._discard()
                raise

    async def _discard(self) -> None:
        """Kill the engine and free its pipes or socket (a failed start leaves nothing running)."""
        proto = self.protocol
        self.kill()
        if proto is not None:
            with contextlib.suppress(Exception, asyncio.TimeoutError):
                await asyncio.wait_for(proto.channel.close(grace=0.0), QUIT_TIMEOUT)

    def _require(self) -> EngineProtocol:
        if self.protocol is None or not self._alive:
            raise PlayerFault(Termination.CRASH, f"{self.who} is not running")
        return self.protocol

    def _gone(self, when: str, exc: Exception) -> str:
        proto = self.protocol
        proc = proto.channel.process if proto is not None else None
        if proc is not None and proc.returncode is not None:
            return f"{self.who} exited with code {proc.returncode} {when}"
        if proc is None:
            return f"{self.who} closed the connection {when}"
        return f"{self.who} stopped answering {when} ({_plain(exc)})"

    async def _call(self, awaitable: Awaitable[T], timeout: float, when: str) -> T:
        """An exchange outside a move, with its errors as faults."""
        try:
            return await asyncio.wait_for(awaitable, timeout)
        except EngineTerminatedError as exc:
            message = self._gone(when, exc)
            self.kill()
            raise PlayerFault(Termination.CRASH, message) from None
        except (asyncio.TimeoutError, EngineTimeoutError):
            self.kill()
            message = f"{self.who} did not answer {when} within {timeout:g} s"
            raise PlayerFault(Termination.STALL, message) from None
        except EngineError as exc:
            raise PlayerFault(Termination.PROTOCOL_ERROR,
                              f"{self.who} failed {when}: {_plain(exc)}") from None

    # ---- playing ----

    async def new_game(self) -> None:
        await self._call(self._require().new_game(), CALL_TIMEOUT, "at the start of a game")

    async def play(self, board: Board, limit: Limit, timeout: float | None) -> Played:
        proto = self._require()
        wait = timeout if timeout is not None else limit_timeout(limit)
        try:
            result = await asyncio.wait_for(proto.play(board, limit, ponder=self.spec.ponder), wait)
        except EngineTerminatedError as exc:
            message = self._gone("during its move", exc)
            self.kill()
            raise PlayerFault(Termination.CRASH, message) from None
        except IllegalEngineMoveError as exc:
            raise PlayerFault(Termination.ILLEGAL_MOVE, f"{self.who}: {_plain(exc)}") from None
        except EngineGameEndError as exc:
            raise PlayerFault(Termination.PROTOCOL_ERROR, f"{self.who} ended the game instead of moving: "
                                                     f"{_plain(exc)}") from None
        except (asyncio.TimeoutError, EngineTimeoutError):
            # The engine may still answer later and put the stream out of step: it has to go.
            self.kill()
            raise PlayerFault(Termination.STALL,
                              f"{self.who} did not move within {wait or 0:.2f} s") from None
        except EngineError as exc:
            raise PlayerFault(Termination.PROTOCOL_ERROR, f"{self.who}: {_plain(exc)}") from None
        move = result.move
        if not board.is_legal(move):  # the client checks too; a fault must never reach the board
            raise PlayerFault(Termination.ILLEGAL_MOVE, f"{self.who} played {move.long}, "
                                                   f"not legal in {board.fen()}")
        info = result.info
        score = info.get("score")
        depth = info.get("depth")
        nodes = info.get("nodes")
        return Played(
            move,
            float(score) if isinstance(score, (int, float)) else None,
            int(depth) if isinstance(depth, (int, float)) else None,
            int(nodes) if isinstance(nodes, (int, float)) else None,
        )

    async def end_game(self, result: str) -> None:
        """DXP: tell the follower the game is over (from the result); nothing for Hub and cb."""
        proto = self.protocol
        if not isinstance(proto, DxpEngine) or proto.game is None or not self._alive:
            return
        reason = _dxp_reason(result, proto.follower_color)
        with contextlib.suppress(Exception, asyncio.TimeoutError):
            await asyncio.wait_for(proto.end_game(reason), CALL_TIMEOUT)

    # ---- stopping ----

    async def close(self) -> None:
        proto = self.protocol
        if proto is None:
            self._alive = False
            return
        try:
            await asyncio.wait_for(proto.quit(), QUIT_TIMEOUT)
        except BaseException as exc:
            await self._discard()
            if not isinstance(exc, Exception):
                raise  # cancelled: the engine is dead, pass the cancellation on
        finally:
            self._alive = False

    def kill(self) -> None:
        self._alive = False
        proto = self.protocol
        if proto is None:
            return
        proc = proto.channel.process
        if proc is not None:
            if proc.returncode is None:
                with contextlib.suppress(ProcessLookupError, OSError):
                    proc.kill()
            return
        transport = proto.channel.writer.transport
        with contextlib.suppress(Exception):
            transport.abort()


def _plain(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__


def _dxp_reason(result: str, follower: int | None) -> int:
    """GAMEEND's reason, from our (the initiator's) side: the follower's win is our loss."""
    if result == "1/2-1/2":
        return REASON_DRAW
    if result not in ("1-0", "0-1") or follower not in (BLACK, WHITE):
        return REASON_NONE
    follower_won = (result == "1-0") == (follower == BLACK)
    return REASON_I_LOSE if follower_won else REASON_I_WIN
