"""The evaluator catalogue: every evaluator by name (built in, shipped, registered at run time),
the constructors of simple ones, and their JSON files.

An evaluator is data (``engine.named_evaluator.Evaluator``: a kind plus weights or tables), so
learners can build one in Python and the search still runs entirely in C.
"""

from __future__ import annotations

import array
import base64
import dataclasses
import functools
import json
import sys
import zlib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine import core, piece_net_layout
from engine.board import Board
from engine.errors import OptionError
from engine.named_evaluator import MATERIAL, Evaluator
from engine.replacing import replacing
from engine.samuel_rote_terms import SAMUEL_ROTE
from engine.samuel_terms import SAMUEL_1959

FEATURE_NAMES: tuple[str, ...] = tuple(core.feature_names())


def linear(weights: Mapping[str, float] | Sequence[float], name: str = "linear") -> Evaluator:
    """A weighted sum of the core's features; weights in centi-men per unit of feature."""
    if isinstance(weights, Mapping):
        unknown = set(weights) - set(FEATURE_NAMES)
        if unknown:
            raise ValueError(f"unknown features {sorted(unknown)}; known: {', '.join(FEATURE_NAMES)}")
        values = [float(weights.get(n, 0.0)) for n in FEATURE_NAMES]
    else:
        values = [float(w) for w in weights]
        if len(values) > len(FEATURE_NAMES):
            raise ValueError(f"{len(values)} weights for {len(FEATURE_NAMES)} features")
    scaled = tuple(round(w * core.WEIGHT_ONE) for w in values)
    return Evaluator(name, core.EvalSpec(core.EVAL_LINEAR, weights=scaled))


def tables(man: Sequence[int], king: Sequence[int], name: str = "tables") -> Evaluator:
    """Piece-square tables (32 entries each, indexed by the owner's relative square - 1)."""
    return Evaluator(name, core.EvalSpec(core.EVAL_TABLE, man_table=tuple(man), king_table=tuple(king)))


def features(board: Board) -> dict[str, int]:
    """The feature terms of a position (side to move minus opponent)."""
    return dict(zip(FEATURE_NAMES, core.features(board.raw), strict=False))


DEFAULT_2026_11_WEIGHTS: tuple[int, ...] = (
    25600, 35840, 2048, 1024, 1024, 768, 512, 2560, -1536, 256, 1024, 1536, 0,
)
"""The default evaluator's hand-set weights until 2026-11-26 (1/WEIGHT_ONE centi-men, FEATURE_NAMES
order), frozen here so later tuning of ``default`` is always measured against the same player."""


@functools.cache
def _default_2026_11() -> Evaluator:
    return Evaluator("default-2026-11", core.EvalSpec(core.EVAL_LINEAR, weights=DEFAULT_2026_11_WEIGHTS),
                     {"note": "the default evaluator's hand-set weights as of 2026-11-26, kept as the "
                              "baseline every tuning step is measured against (issue 16)"})


TEXEL_2026_11_WEIGHTS: tuple[int, ...] = (
    26093, 34989, 3879, 1033, 5158, 4279, 674, 2035, -4498, 888, 1653, 1150, -5645,
)
"""The Texel-tuned linear weights, ``default`` from 2026-11-26 until the piece-square network took its
place; the C core's built-in weights (``core.default_weights``) are these."""


@functools.cache
def _texel_2026_11() -> Evaluator:
    return Evaluator("texel-2026-11", core.EvalSpec(core.EVAL_LINEAR, weights=TEXEL_2026_11_WEIGHTS),
                     {"note": "the linear evaluation Texel-tuned on OCA (samuel learn tune), the default "
                              "evaluator before the piece-square network (issue 16)"})


BUILTIN: dict[str, Callable[[], Evaluator]] = {
    "material": lambda: MATERIAL,
    "default": lambda: _default_network(),
    "samuel-1959": lambda: SAMUEL_1959,
    "samuel-rote": lambda: SAMUEL_ROTE,
    "default-2026-11": _default_2026_11,
    "texel-2026-11": _texel_2026_11,
}
"""The evaluators defined in code, by name: one entry each."""

LEARNED_DIR = Path(__file__).resolve().parent / "data" / "evaluators"
"""Trained evaluators shipped with the package, one JSON file each, named by file stem."""

_KINDS: dict[str, int] = {
    "material": core.EVAL_MATERIAL,
    "default": core.EVAL_DEFAULT,
    "linear": core.EVAL_LINEAR,
    "table": core.EVAL_TABLE,
    "samuel": core.EVAL_SAMUEL,
    "signature": core.EVAL_SIGNATURE,
    "tabulated": core.EVAL_TABULATED,
    "phase": core.EVAL_PHASE,
    "heuristic": core.EVAL_HEURISTIC,
    "network": core.EVAL_NETWORK,
    "piecenet": core.EVAL_PIECENET,
}
_KIND_NAMES = {v: k for k, v in _KINDS.items()}

NETWORK_PROBLEMS = {
    -1: f"too short, or not version {core.PIECENET_VERSION} (or 1) of the layout",
    -2: "an unknown preset",
    -3: "the wrong number of weights for its preset",
    -4: "a weight (or K) that is not a finite number (NaN or infinite)",
    -5: "a king value K outside [1, 3]",
}
"""What core.network_check's codes mean."""

PIECENET_PROBLEMS = {
    -1: f"too short, or not version {core.PIECENET_VERSION} or {core.PIECENET_VERSION_PATTERNS} (or 1 or 2) "
        "of the layout",
    -2: f"a phase count outside 1..{core.PIECENET_MAX_PHASES}",
    -3: "the wrong number of weights for its phase count",
    -4: "a phase table entry that names no phase",
    -5: "a weight outside the int16 range",
    -6: f"a first-layer width (header word 3) other than {', '.join(map(str, core.PIECENET_WIDTHS))}",
}
"""What core.piecenet_check's codes mean."""


PACKED_DATA_FROM = 100_000
"""Evaluators with at least this many data words (a piece network with region patterns: 3.8 M) store them
as ``data_zlib``, base64 of the zlib-compressed int32 little-endian words, not as a JSON list: for the
first pattern network 3.8 MB against 10 MB, read in 0.27 s against 0.54 s (2026-11-29)."""


def _pack_words(words: Sequence[int]) -> str:
    packed = array.array("i", words)
    if sys.byteorder != "little":
        packed.byteswap()
    return base64.b64encode(zlib.compress(packed.tobytes(), 6)).decode("ascii")


def _unpack_words(text: str) -> tuple[int, ...]:
    raw = zlib.decompress(base64.b64decode(text, validate=True))
    if len(raw) % 4:
        raise ValueError("data_zlib does not hold whole int32 words")
    words = array.array("i", raw)
    if sys.byteorder != "little":
        words.byteswap()
    # One int object per distinct value, not per word: a pattern network's 3.8 M words hold a few
    # thousand values, so its tuple takes 30 MB where one object a word took 140 MB.
    distinct = {w: w for w in set(words)}
    return tuple(map(distinct.__getitem__, words))


def to_dict(evaluator: Evaluator) -> dict[str, Any]:
    spec = evaluator.spec
    data: dict[str, Any] = {"data": list(spec.data)}
    if len(spec.data) >= PACKED_DATA_FROM:
        data = {"data": [], "data_zlib": _pack_words(spec.data)}
    return {
        "name": evaluator.name,
        "kind": _KIND_NAMES[spec.kind],
        "weights": list(spec.weights),
        "man_table": list(spec.man_table),
        "king_table": list(spec.king_table),
        **data,
        "meta": dict(evaluator.meta),
    }


def from_dict(d: Mapping[str, Any], source: str = "evaluator") -> Evaluator:
    """An evaluator from its saved form; OptionError naming ``source`` when it is malformed."""
    try:
        kind = _KINDS[d["kind"]]
        spec = core.EvalSpec(
            kind,
            weights=tuple(int(w) for w in d.get("weights", ())),
            man_table=tuple(int(v) for v in d.get("man_table", ())),
            king_table=tuple(int(v) for v in d.get("king_table", ())),
            data=(_unpack_words(d["data_zlib"]) if d.get("data_zlib")
                  else tuple(int(v) for v in d.get("data", ()))),
        )
    except (KeyError, TypeError, ValueError, zlib.error) as exc:
        raise OptionError(f"{source}: not a valid evaluator file ({exc!r})") from None
    if kind == core.EVAL_NETWORK:
        problem = NETWORK_PROBLEMS.get(core.network_check(spec.data))
        if problem is not None:
            raise OptionError(f"{source}: not a usable network: {problem}")
    if kind == core.EVAL_PIECENET:
        spec = dataclasses.replace(spec, data=tuple(piece_net_layout.upgrade(spec.data)))
        problem = PIECENET_PROBLEMS.get(spec.piecenet_code)
        if problem is not None:
            raise OptionError(f"{source}: not a usable piece network: {problem}")
    return Evaluator(str(d["name"]), spec, dict(d.get("meta", {})))


def save(evaluator: Evaluator, path: str | Path) -> None:
    """Write atomically, so a crash never leaves half a file where a good one was."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    with replacing(target) as tmp:
        tmp.write_text(json.dumps(to_dict(evaluator), separators=(",", ":")))


def load(path: str | Path) -> Evaluator:
    source = Path(path)
    try:
        d = json.loads(source.read_text())
    except FileNotFoundError:
        raise OptionError(f"no evaluator file {str(source)!r}") from None
    except (OSError, ValueError) as exc:
        raise OptionError(f"{source}: cannot read evaluator file ({exc})") from None
    if not isinstance(d, dict):
        raise OptionError(f"{source}: not a valid evaluator file (expected a JSON object)")
    return from_dict(d, str(source))


DEFAULT_NETWORK = "piece-net-r8-pat"
"""The shipped learned evaluator that ``default`` plays with (docs/piece-net.md)."""


@functools.cache
def default() -> Evaluator:
    """The engine's evaluator: a piece-square network (since 2026-11-26; before it, texel-2026-11).

    Read on first use, not at import: a network with region patterns costs a process 0.3 s and
    tens of MB, which a process that plays another evaluator (or none) should not pay."""
    shipped = load(LEARNED_DIR / f"{DEFAULT_NETWORK}.json")
    return Evaluator("default", shipped.spec, {**shipped.meta, "same_as": DEFAULT_NETWORK})


def _default_network() -> Evaluator:
    return default()  # a plain function: BUILTIN, above, names it before ``default`` is defined


if TYPE_CHECKING:
    DEFAULT: Evaluator
    """``default()``, as a module attribute read on first use (PEP 562)."""


def __getattr__(name: str) -> Any:
    if name == "DEFAULT":
        return default()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@functools.lru_cache(maxsize=32)
def _load_shipped(path: Path, mtime_ns: int) -> Evaluator:
    """Shipped files are read once (sessions ask for their evaluator by name at every search)."""
    return load(path)


_REGISTERED: dict[str, Evaluator] = {}


def register(evaluator: Evaluator) -> str:
    """Make ``evaluator`` known by its name for this process (e.g. a server's ``--eval FILE.json``)."""
    key = evaluator.name.lower()  # protocol option values are case-insensitive
    if key in BUILTIN:
        raise OptionError(f"evaluator name {evaluator.name!r} is taken by a built-in evaluator")
    _REGISTERED[key] = evaluator
    return key


def registered() -> list[Evaluator]:
    """The evaluators ``register`` made known in this process (to hand on to a worker process)."""
    return list(_REGISTERED.values())


def available() -> list[str]:
    """Names ``by_name`` accepts: the built-in evaluators, the shipped learned ones, then registered ones."""
    learned = sorted(p.stem for p in LEARNED_DIR.glob("*.json")) if LEARNED_DIR.is_dir() else []
    names = list(BUILTIN) + [n for n in learned if n not in BUILTIN]
    return names + [n for n in _REGISTERED if n not in names]


def by_name(name: str) -> Evaluator:
    """A built-in or shipped evaluator by name, or any evaluator file by its ``.json`` path."""
    if name in BUILTIN:
        return BUILTIN[name]()
    if name in _REGISTERED:
        return _REGISTERED[name]
    shipped = LEARNED_DIR / f"{name}.json"
    if "/" not in name and shipped.is_file():
        return _load_shipped(shipped, shipped.stat().st_mtime_ns)
    if name.endswith(".json"):
        return load(name)
    known = ", ".join(available())
    raise OptionError(f"unknown evaluator {name!r}; choose from {known} or give a .json file")


def evaluator_name(name: str) -> str:
    """argparse ``type=``: the name if ``by_name`` knows it (so a typo fails at parse time)."""
    import argparse

    try:
        by_name(name)
    except OptionError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return name
