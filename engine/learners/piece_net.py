"""A small piece-square network (GuiNN's design) trained on game results, for the C search.

The network (csrc/ckr_piecenet.h) sees the board from the side to move: 120
one-hot inputs (own men on relative squares 1..28, the opponent's men on 5..32,
own and opponent's kings on 1..32), a shared first layer of 64 clipped-ReLU
nodes (or 128, or 256: ``width``), and for each game phase (by the number of
pieces) a 32-node clipped-ReLU layer and one output in men.  Seen from the side to move, a position and its
colour-reversed twin with the other side to move get the same score, so Black's
view of a position is the negative of Black's view of its colour-reversed twin:
the net is antisymmetric by construction.

Training is Texel's method (``texel``) with a network in place of the weighted
sum: the quiet positions of games with results, the model ``sigmoid(K * y)``
for the side to move's score (y in men, K the scale fitted for the linear
evaluator on the held-out games, so y * 100 is in its centi-men), mean
squared error, minibatch Adam in float32, and the held-out games (number % 10
== 0) followed every epoch: the weights of their lowest loss are kept.  The
target may mix in a teacher's prediction (``teacher``): the linear evaluator's (texel-2026-11),
or a fixed-depth search's score of each position (``search_labels``).  The
trained floats are rounded to int16 fixed point (8 fraction bits) for the C
evaluator; ``reference_scores`` computes the C integer arithmetic in numpy.

A run saves a checkpoint (.npz) after every epoch and picks up from it when
asked to train the same configuration again.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from engine import core
from engine.learners import book_data, texel
from engine.named_evaluator import Evaluator
from engine.pdn import game_results

ProgressFn = Callable[[int, int], None]

INPUTS = core.PIECENET_INPUTS
H1 = core.PIECENET_H1
H2 = core.PIECENET_H2
ONE = core.PIECENET_ONE
PHASE_EDGES: tuple[int, ...] = (17, 11, 7)
"""Phase of a position with n pieces: how many edges n is below (24..17 pieces: 0, 16..11: 1, 10..7: 2,
6 or fewer: 3)."""
CHECKPOINT_VERSION = 1


def _region_windows() -> tuple[tuple[int, ...], ...]:
    """The nine overlapping 4x4 regions of the board (rows and columns 0-3, 2-5 and 4-7), each its eight
    dark squares in relative numbering, ascending.  Square s is on row (s-1)//4, and its column is
    2((s-1)%4), plus one on even rows; the set is the same seen from either side (s -> 33 - s turns
    the board half round, and each region into another)."""
    def at(s: int) -> tuple[int, int]:
        r, k = divmod(s - 1, 4)
        return r, 2 * k + (1 if r % 2 == 0 else 0)
    return tuple(tuple(s for s in range(1, 33) if top <= at(s)[0] < top + 4 and left <= at(s)[1] < left + 4)
                 for top in (0, 2, 4) for left in (0, 2, 4))


PATTERN_WINDOWS: tuple[tuple[int, ...], ...] = _region_windows()
"""Region patterns (layout version 4): the relative squares of each region."""
PATTERN_STATES = 3 ** 8
"""Each region's squares read as base-3 digits, the i-th ascending square the i-th digit: 0 empty, 1 a
piece (man or king) of the side to move, 2 the opponent's."""
PATTERN_ROWS = len(PATTERN_WINDOWS) * PATTERN_STATES
_DIGITS = np.zeros((32, len(PATTERN_WINDOWS)), dtype=np.int64)
for _w, _squares in enumerate(PATTERN_WINDOWS):
    for _i, _s in enumerate(_squares):
        _DIGITS[_s - 1, _w] = 3 ** _i


@dataclass
class Data:
    """Quiet positions with their game's result and the linear evaluator's score, for the side to move."""

    rows: np.ndarray
    """(N, 5) uint32 square sets: black men, black kings, white men, white kings, side to move."""
    result: np.ndarray
    """(N,) 1, 0.5 or 0 for the side to move."""
    game: np.ndarray
    """(N,) the game's number (offset per file when several are read)."""
    linear: np.ndarray
    """(N,) the linear evaluator's score in centi-men (the teacher unless ``searched`` is given)."""
    searched: np.ndarray | None = None
    """(N,) a search's score in centi-men (``search_labels``), the teacher in place of ``linear``."""

    def __len__(self) -> int:
        return len(self.result)

    @property
    def teacher(self) -> np.ndarray:
        return self.linear if self.searched is None else self.searched

    def select(self, mask: np.ndarray) -> Data:
        return Data(self.rows[mask], self.result[mask], self.game[mask], self.linear[mask],
                    None if self.searched is None else self.searched[mask])

    @staticmethod
    def concat(parts: Sequence[Data]) -> Data:
        names = ("rows", "result", "game", "linear")
        joined = Data(*(np.concatenate([getattr(p, f) for p in parts]) for f in names))
        if all(p.searched is not None for p in parts):
            joined.searched = np.concatenate([p.searched for p in parts if p.searched is not None])
        return joined


def position_keys(rows: np.ndarray) -> np.ndarray:
    """(N,) one opaque key per position (its five words), equal exactly for equal positions."""
    return np.ascontiguousarray(rows, dtype=np.uint32).reshape(-1, 5).view(np.dtype((np.void, 20))).ravel()


def unique_positions(data: Data) -> Data:
    """Each distinct position once, its result and teacher scores the means over its occurrences.

    Self-play repeats itself: of 4.6 M quiet positions in 40,000 games of ``default`` only 1.1 M are
    distinct, and nine held-out positions in ten also occur in the training games, so a held-out loss
    by games mostly measures memory (docs/teaching.md).  The game kept is the first occurrence's.
    """
    _, first, inverse, counts = np.unique(position_keys(data.rows), return_index=True, return_inverse=True,
                                          return_counts=True)
    inverse = inverse.ravel()

    def mean(values: np.ndarray) -> np.ndarray:
        return np.bincount(inverse, weights=values.astype(np.float64), minlength=len(first)) / counts

    return Data(data.rows[first], mean(data.result), data.game[first], mean(data.linear),
                None if data.searched is None else mean(data.searched))


def held_out_by_position(rows: np.ndarray, share: int = 10) -> np.ndarray:
    """(N,) bool: one position in ``share`` held out, chosen by a hash of the position itself, so that a
    position is on the same side of the split wherever it occurs."""
    r = np.ascontiguousarray(rows, dtype=np.uint32).reshape(-1, 5).astype(np.uint64)
    h = np.zeros(len(r), dtype=np.uint64)
    for i, mult in enumerate((0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9,
                              0xD6E8FEB86659FD93, 0xFF51AFD7ED558CCD)):
        h = (h ^ (r[:, i] * np.uint64(mult))) * np.uint64(0x94D049BB133111EB)
        h ^= h >> np.uint64(29)
    return (h % np.uint64(share)) == 0


def collect(positions: book_data.BookPositions, results: dict[int, str]) -> Data:
    """The quiet positions of ``positions`` (as ``texel.collect`` picks them), results, teacher scores."""
    rows, score, game, feats = texel.quiet_positions(positions, results)
    weights = np.asarray(core.default_weights(), dtype=np.float64) / core.WEIGHT_ONE
    return Data(rows, score, game, feats.astype(np.float64) @ weights)


def load(pdn: str | Path, *, limit_games: int | None = None, cache_dir: str | Path | None = None,
         progress: ProgressFn | None = None) -> Data:
    """The samples of every game of a PDN file (``book_data.load`` reads and caches the positions)."""
    positions = book_data.load(pdn, split="all", limit_games=limit_games, cache_dir=cache_dir,
                               progress=progress)
    return collect(positions, game_results(pdn))


# ---- inputs ----

def _bits(words: np.ndarray) -> np.ndarray:
    """(N,) square sets -> (N, 32) uint8, column s-1 for square s."""
    w = np.ascontiguousarray(words, dtype="<u4")
    return np.unpackbits(w.view(np.uint8).reshape(-1, 4), axis=1, bitorder="little")


def inputs(rows: np.ndarray) -> np.ndarray:
    """(N, 120) uint8 one-hot inputs from the side to move's point of view (the layout of ckr_piecenet.h)."""
    rows = np.asarray(rows, dtype=np.uint32).reshape(-1, 5)
    bm, bk, wm, wk = (_bits(rows[:, i]) for i in range(4))
    white = (rows[:, 4] == 1)[:, None]
    # Relative square 33 - s for White is the reversed column order.
    own_men = np.where(white, wm[:, ::-1], bm)
    opp_men = np.where(white, bm[:, ::-1], wm)
    own_kings = np.where(white, wk[:, ::-1], bk)
    opp_kings = np.where(white, bk[:, ::-1], wk)
    x = np.concatenate([own_men[:, :28], opp_men[:, 4:], own_kings, opp_kings], axis=1)
    return np.ascontiguousarray(x)


def pattern_rows(rows: np.ndarray) -> np.ndarray:
    """(N, 9) int64: for each region, the row of the pattern table (region * 6561 + its pattern) of each
    position, seen from the side to move as ``inputs`` sees it."""
    rows = np.asarray(rows, dtype=np.uint32).reshape(-1, 5)
    bm, bk, wm, wk = (_bits(rows[:, i]) for i in range(4))
    white = (rows[:, 4] == 1)[:, None]
    black, whites = (bm | bk).astype(np.int64), (wm | wk).astype(np.int64)
    own = np.where(white, whites[:, ::-1], black)
    opp = np.where(white, black[:, ::-1], whites)
    return own @ _DIGITS + 2 * (opp @ _DIGITS) + np.arange(len(PATTERN_WINDOWS)) * PATTERN_STATES


def piece_counts(rows: np.ndarray) -> np.ndarray:
    rows = np.asarray(rows, dtype=np.uint32).reshape(-1, 5)
    return sum(_bits(rows[:, i]).sum(axis=1, dtype=np.int64) for i in range(4))


def phase_table(edges: Sequence[int] = PHASE_EDGES) -> list[int]:
    """Phase of each piece count 0..24."""
    return [sum(1 for e in edges if n < e) for n in range(25)]


# ---- the float model ----

Params = dict[str, np.ndarray]
PARAM_NAMES = ("w1", "b1", "w2", "b2", "w3", "b3")


def check_width(width: int) -> int:
    """``width`` when the C core reads a first layer that wide, else ValueError naming the choices."""
    if width not in core.PIECENET_WIDTHS:
        raise ValueError(f"first-layer width {width}: the network's layout takes "
                         f"{', '.join(map(str, core.PIECENET_WIDTHS))}")
    return width


def width_of(p: Params) -> int:
    return int(p["w1"].shape[1])


def has_patterns(p: Params) -> bool:
    return "p1" in p


def init_params(phases: int, seed: int = 0, width: int = H1, patterns: bool = False) -> Params:
    rng = np.random.default_rng(seed)
    f = np.float32
    h1 = check_width(width)
    # The pattern table starts at zero: a pattern never seen in training adds nothing.
    extra = {"p1": np.zeros((PATTERN_ROWS, h1), dtype=f)} if patterns else {}
    return extra | {
        "w1": (rng.standard_normal((INPUTS, h1)) * 0.1).astype(f),
        "b1": np.full(h1, 0.3, dtype=f),
        "w2": (rng.standard_normal((phases, h1, H2)) * (1.0 / math.sqrt(h1))).astype(f),
        "b2": np.full((phases, H2), 0.1, dtype=f),
        "w3": (rng.standard_normal((phases, H2)) * 0.1).astype(f),
        "b3": np.zeros(phases, dtype=f),
    }


def forward(p: Params, x: np.ndarray, phase: np.ndarray, keep: bool = False,
            patterns: np.ndarray | None = None) -> tuple[np.ndarray, Any]:
    """Output y (men) of each row of inputs ``x`` (with ``patterns``, the rows of ``pattern_rows``, when
    the network has region patterns); with ``keep`` also what ``backward`` needs."""
    z1 = x @ p["w1"] + p["b1"]
    if has_patterns(p):
        if patterns is None:
            raise ValueError("a network with region patterns needs the positions' pattern rows")
        z1 += p["p1"][patterns].sum(axis=1)
    h1 = np.clip(z1, 0.0, 1.0)
    y = np.empty(len(x), dtype=h1.dtype)
    groups = []
    for ph in range(len(p["b3"])):
        idx = np.flatnonzero(phase == ph)
        if len(idx) == 0:
            continue
        z2 = h1[idx] @ p["w2"][ph] + p["b2"][ph]
        h2 = np.clip(z2, 0.0, 1.0)
        y[idx] = h2 @ p["w3"][ph] + p["b3"][ph]
        if keep:
            groups.append((ph, idx, z2, h2))
    return y, ((x, z1, h1, groups, patterns) if keep else None)


def backward(p: Params, cache: Any, dy: np.ndarray) -> Params:
    """The gradients of the dense parameters; for a pattern table, ``p1_rows`` (the rows the batch
    touched, each once) and ``p1`` (their summed gradients) in its place."""
    x, z1, h1, groups, patterns = cache
    g = {k: np.zeros_like(v) for k, v in p.items() if k != "p1"}
    dh1 = np.zeros_like(h1)
    for ph, idx, z2, h2 in groups:
        d = dy[idx]
        g["w3"][ph] = h2.T @ d
        g["b3"][ph] = d.sum()
        dz2 = np.outer(d, p["w3"][ph]) * ((z2 > 0) & (z2 < 1))
        g["w2"][ph] = h1[idx].T @ dz2
        g["b2"][ph] = dz2.sum(axis=0)
        dh1[idx] = dz2 @ p["w2"][ph].T
    dz1 = dh1 * ((z1 > 0) & (z1 < 1))
    g["w1"] = x.T @ dz1
    g["b1"] = dz1.sum(axis=0)
    if has_patterns(p):
        # Each position's gradient goes to each of its regions' rows: sorted, summed per row.
        flat = patterns.ravel()
        order = np.argsort(flat, kind="stable")
        keys = flat[order]
        starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
        g["p1_rows"] = keys[starts]
        g["p1"] = np.add.reduceat(np.repeat(dz1, patterns.shape[1], axis=0)[order], starts, axis=0)
    return g


def _sigmoid(v: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * v))


def loss_of(y_men: np.ndarray, target: np.ndarray, k: float) -> float:
    """Texel's loss: mean squared error of ``sigmoid(k * y)`` (y in men) against the target."""
    return float(np.mean((_sigmoid(k * y_men.astype(np.float64)) - target) ** 2)) if len(target) else 0.0


def predict(p: Params, rows: np.ndarray, table: Sequence[int], batch: int = 65536) -> np.ndarray:
    """The float model's output in men for each position."""
    phase_of = np.asarray(table, dtype=np.int64)
    out = np.empty(len(rows), dtype=np.float32)
    for s in range(0, len(rows), batch):
        r = rows[s:s + batch]
        y, _ = forward(p, inputs(r).astype(np.float32), phase_of[np.minimum(piece_counts(r), 24)],
                       patterns=pattern_rows(r) if has_patterns(p) else None)
        out[s:s + batch] = y
    return out


# ---- training ----

@dataclass
class Training:
    """A training run's outcome."""

    params: Params
    """The float weights of the lowest held-out loss."""
    k: float
    table: list[int]
    linear_loss: tuple[float, float]
    """(training, held-out) loss of the default evaluator with the same K."""
    curve: list[tuple[int, float, float]] = field(default_factory=list)
    """(epoch, training loss, held-out loss); epoch 0 is the untrained network."""
    best_epoch: int = 0
    train_samples: int = 0
    held_out_samples: int = 0
    teacher: float = 0.0
    seconds: float = 0.0
    """Time spent training (all sessions of a resumed run)."""
    teacher_source: str = "linear"
    """Whose scores the teacher's share came from: ``linear``, or ``search:EVALUATOR@DEPTH``."""


def _config(k: float, table: list[int], teacher: float, batch: int, lr: float, seed: int, n: int,
            teacher_source: str = "linear", width: int = H1, patterns: bool = False) -> str:
    settings: dict[str, Any] = {"version": CHECKPOINT_VERSION, "k": round(k, 9), "table": table,
                                "teacher": teacher, "batch": batch, "lr": lr, "seed": seed,
                                "train_samples": n}
    if teacher and teacher_source != "linear":  # older checkpoints (linear teacher) keep their key
        settings["teacher_source"] = teacher_source
    if width != H1:  # older checkpoints (all 64 wide) keep their key
        settings["width"] = width
    if patterns:
        settings["patterns"] = True
    return json.dumps(settings, sort_keys=True)


def _save_checkpoint(path: Path, state: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp.npz")
    arrays: dict[str, Any] = {}
    for group in ("params", "best", "m", "v"):
        for name, arr in state[group].items():
            arrays[f"{group}_{name}"] = arr
    arrays["curve"] = np.asarray(state["curve"], dtype=np.float64).reshape(-1, 3)
    arrays["scalars"] = np.asarray([state["epoch"], state["step"], state["best_epoch"], state["best_loss"],
                                    state["seconds"], state["stale"]], dtype=np.float64)
    arrays["config"] = np.asarray(state["config"])
    arrays["rng"] = np.asarray(json.dumps(state["rng"]))
    np.savez(tmp, **arrays)
    tmp.replace(path)


def _load_checkpoint(path: Path, config: str) -> dict[str, Any] | None:
    """The saved state when ``path`` holds a checkpoint of this configuration, else None."""
    if not path.is_file():
        return None
    with np.load(path) as z:
        if str(z["config"]) != config:
            return None
        names = [*PARAM_NAMES, *(["p1"] if "params_p1" in z else [])]
        state: dict[str, Any] = {g: {n: z[f"{g}_{n}"].copy() for n in names}
                                 for g in ("params", "best", "m", "v")}
        epoch, step, best_epoch, best_loss, seconds, stale = (float(v) for v in z["scalars"])
        state.update(epoch=int(epoch), step=int(step), best_epoch=int(best_epoch), best_loss=best_loss,
                     seconds=seconds, stale=int(stale), curve=[(int(e), a, b) for e, a, b in z["curve"]],
                     rng=json.loads(str(z["rng"])), config=config)
    return state


def train(train_data: Data, held_out: Data, *, phases_edges: Sequence[int] = PHASE_EDGES, epochs: int = 30,
          batch: int = 1024, lr: float = 2e-3, decay: float = 0.9, patience: int = 5, teacher: float = 0.0,
          teacher_source: str = "linear", seed: int = 0, width: int = H1, patterns: bool = False,
          checkpoint: str | Path | None = None, progress: ProgressFn | None = None,
          on_epoch: Callable[[int, float, float], None] | None = None) -> Training:
    """Fit a network on ``train_data``; K and the stopping point come from ``held_out``.

    ``teacher`` in [0, 1] mixes the teacher's prediction into the target: the linear evaluator's, or a
    search's when the data carry ``searched`` scores (``teacher_source`` names it for the checkpoint).
    ``width`` is the first layer's (64, 128 or 256); ``patterns`` adds the region patterns to its inputs
    (layout version 4), trained by sparse Adam (a row's moments move only when a batch touches it).
    With ``checkpoint`` the state is saved after every epoch and a saved run of the same configuration
    continues.
    """
    import time

    if len(train_data) == 0 or len(held_out) == 0:
        raise ValueError("training needs positions with results in both the training and the held-out games")
    if not 0.0 <= teacher <= 1.0:
        raise ValueError("teacher must be in [0, 1]")
    check_width(width)
    table = phase_table(phases_edges)
    phases = max(table) + 1
    # K of the linear evaluator on the held-out games, as texel.tune fits it: sigmoid(K * cm / 100).
    # With y in men the net's model is sigmoid(K * y), so the same K keeps the unit: 100 y is in the
    # default's centi-men.
    k = texel.fit_scale(texel.Samples(held_out.linear[:, None], held_out.result, held_out.game), np.ones(1))

    def targets(d: Data) -> np.ndarray:
        t = d.result
        if teacher:
            t = (1.0 - teacher) * t + teacher * _sigmoid(k * d.teacher / 100.0)
        return t.astype(np.float32)

    phase_of = np.asarray(table, dtype=np.int64)
    x_all = inputs(train_data.rows)
    ph_all = phase_of[np.minimum(piece_counts(train_data.rows), 24)]
    pat_all = pattern_rows(train_data.rows) if patterns else None
    y_all = targets(train_data)
    rng = np.random.default_rng(seed)
    probe = rng.choice(len(train_data), size=min(len(train_data), 50_000), replace=False)
    probe_rows, probe_y = train_data.rows[probe], y_all[probe]
    held_y = targets(held_out)
    linear_loss = (loss_of(train_data.linear[probe] / 100.0, probe_y, k),
                   loss_of(held_out.linear / 100.0, held_y, k))

    def losses(p: Params) -> tuple[float, float]:
        return (loss_of(predict(p, probe_rows, table), probe_y, k),
                loss_of(predict(p, held_out.rows, table), held_y, k))

    config = _config(k, table, teacher, batch, lr, seed, len(train_data), teacher_source, width, patterns)
    path = Path(checkpoint) if checkpoint else None
    state = _load_checkpoint(path, config) if path else None
    if state is None:
        params = init_params(phases, seed, width, patterns)
        tr, ho = losses(params)
        state = {"params": params, "best": {n: a.copy() for n, a in params.items()},
                 "m": {n: np.zeros_like(a) for n, a in params.items()},
                 "v": {n: np.zeros_like(a) for n, a in params.items()},
                 "epoch": 0, "step": 0, "best_epoch": 0, "best_loss": ho, "seconds": 0.0, "stale": 0,
                 "curve": [(0, tr, ho)], "rng": rng.bit_generator.state, "config": config}
    rng.bit_generator.state = state["rng"]
    p, m, v = state["params"], state["m"], state["v"]
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    n = len(train_data)
    steps_per_epoch = (n + batch - 1) // batch
    while state["epoch"] < epochs and state["stale"] < patience:
        started = time.perf_counter()
        epoch = state["epoch"] + 1
        rate = lr * decay ** (epoch - 1)
        order = rng.permutation(n)
        for b in range(steps_per_epoch):
            idx = order[b * batch:(b + 1) * batch]
            x = x_all[idx].astype(np.float32)
            y, cache = forward(p, x, ph_all[idx], keep=True,
                               patterns=None if pat_all is None else pat_all[idx])
            s = _sigmoid(k * y)
            dy = (2.0 * k / len(idx)) * (s - y_all[idx]) * s * (1.0 - s)
            grads = backward(p, cache, dy.astype(np.float32))
            state["step"] += 1
            t = state["step"]
            corr = math.sqrt(1.0 - beta2 ** t) / (1.0 - beta1 ** t)
            for name in PARAM_NAMES:
                g = grads[name]
                m[name] = beta1 * m[name] + (1.0 - beta1) * g
                v[name] = beta2 * v[name] + (1.0 - beta2) * g * g
                p[name] = (p[name] - rate * corr * m[name] / (np.sqrt(v[name]) + eps)).astype(np.float32)
            if "p1" in grads:
                r, g = grads["p1_rows"], grads["p1"]
                m["p1"][r] = beta1 * m["p1"][r] + (1.0 - beta1) * g
                v["p1"][r] = beta2 * v["p1"][r] + (1.0 - beta2) * g * g
                p["p1"][r] -= (rate * corr * m["p1"][r] / (np.sqrt(v["p1"][r]) + eps)).astype(np.float32)
            if progress is not None and (b % 50 == 0 or b == steps_per_epoch - 1):
                progress((epoch - 1) * steps_per_epoch + b + 1, epochs * steps_per_epoch)
        tr, ho = losses(p)
        state["curve"].append((epoch, tr, ho))
        state["epoch"] = epoch
        if ho < state["best_loss"]:
            state.update(best_loss=ho, best_epoch=epoch, stale=0, best={nm: a.copy() for nm, a in p.items()})
        else:
            state["stale"] += 1
        state["seconds"] += time.perf_counter() - started
        state["rng"] = rng.bit_generator.state
        if path:
            _save_checkpoint(path, state)
        if on_epoch is not None:
            on_epoch(epoch, tr, ho)
    return Training(state["best"], k, table, linear_loss, list(state["curve"]), state["best_epoch"],
                    len(train_data), len(held_out), teacher, state["seconds"], teacher_source)


# ---- the int16 network for C ----

def quantize(params: Params, table: Sequence[int]) -> list[int]:
    """The data words of csrc/ckr_piecenet.h: the header and every number as round(256 x), in int16."""
    phases, width, patterns = len(params["b3"]), width_of(params), has_patterns(params)
    body = [params["w1"].ravel(), params["b1"].ravel(), *([params["p1"].ravel()] if patterns else [])]
    for ph in range(phases):
        body += [params["w2"][ph].ravel(), params["b2"][ph].ravel(), params["w3"][ph].ravel(),
                 params["b3"][ph:ph + 1]]
    numbers = np.rint(np.concatenate(body).astype(np.float64) * ONE)
    if np.abs(numbers).max() > 32767:
        raise ValueError("a weight does not fit int16 with 8 fraction bits (|w| >= 128)")
    size = core.piecenet_size(phases, check_width(width), patterns)
    if len(numbers) != size or len(table) != 25:
        raise ValueError("network shape does not match the C layout")
    version = core.PIECENET_VERSION_PATTERNS if patterns else core.PIECENET_VERSION
    return [version, phases, size, width, *(int(t) for t in table), *numbers.astype(np.int64).tolist()]


def unpack(data: Sequence[int]) -> tuple[Params, list[int]]:
    """Integer parameters (fixed point, as stored) and the phase table of a network's data words
    (today's layout: ``piece_net_layout.upgrade`` turns older ones into it)."""
    d = np.asarray(data, dtype=np.int64)
    phases, h1, table = int(d[1]), int(d[3]), [int(t) for t in d[4:core.PIECENET_HEADER]]
    at = core.PIECENET_HEADER

    def take(*shape: int) -> np.ndarray:
        nonlocal at
        size = int(np.prod(shape))
        out = d[at:at + size].reshape(shape)
        at += size
        return out

    p: Params = {"w1": take(INPUTS, h1), "b1": take(h1)}
    if int(d[0]) == core.PIECENET_VERSION_PATTERNS:
        p["p1"] = take(PATTERN_ROWS, h1)
    per = [(take(h1, H2), take(H2), take(H2), take(1)) for _ in range(phases)]
    p["w2"] = np.stack([q[0] for q in per])
    p["b2"] = np.stack([q[1] for q in per])
    p["w3"] = np.stack([q[2] for q in per])
    p["b3"] = np.concatenate([q[3] for q in per])
    return p, table


def reference_scores(data: Sequence[int], rows: np.ndarray) -> np.ndarray:
    """The C evaluator's integer arithmetic in numpy: scores (centi-men, side to move) of ``rows``."""
    p, table = unpack(data)
    rows = np.asarray(rows, dtype=np.uint32).reshape(-1, 5)
    x = inputs(rows).astype(np.int64)
    ph = np.asarray(table, dtype=np.int64)[np.minimum(piece_counts(rows), 24)]
    z1 = x @ p["w1"] + p["b1"]
    if has_patterns(p):
        z1 += p["p1"][pattern_rows(rows)].sum(axis=1)
    h1 = np.clip(z1, 0, ONE)
    acc2 = np.einsum("nj,njk->nk", h1, p["w2"][ph])
    h2 = np.clip((acc2 >> 8) + p["b2"][ph], 0, ONE)
    out = np.einsum("nk,nk->n", h2, p["w3"][ph]) + p["b3"][ph] * ONE
    return (out * 100 + 32768) >> 16


def evaluator(t: Training, name: str = "piece-net", source: str = "") -> Evaluator:
    """The trained network as a ``CKR_EVAL_PIECENET`` evaluator, with how it was found."""
    data = quantize(t.params, t.table)
    best = min(c[2] for c in t.curve)
    meta = {
        "learner": "piece_net",
        "source": source,
        "k": t.k,
        "layers": f"{INPUTS}{' + 9 region patterns' if has_patterns(t.params) else ''}"
                  f" -> {width_of(t.params)} -> {len(t.params['b3'])} x ({H2} -> 1)",
        "phase_table": t.table,
        "teacher": t.teacher,
        **({"teacher_source": t.teacher_source} if t.teacher else {}),
        "train_samples": t.train_samples,
        "held_out_samples": t.held_out_samples,
        "best_epoch": t.best_epoch,
        "best_held_out_loss": best,
        "linear_held_out_loss": t.linear_loss[1],
        "training_seconds": round(t.seconds, 1),
    }
    return Evaluator(name, core.EvalSpec(core.EVAL_PIECENET, data=tuple(data)), meta)


def plot(t: Training, path: str | Path) -> None:
    """Training and held-out loss by epoch as a PNG, with the linear evaluator's held-out loss."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    its, tr, ho = zip(*t.curve, strict=True)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.plot(its, tr, marker=".", label="training (50,000-position sample)")
    ax.plot(its, ho, marker=".", label=f"held out ({t.held_out_samples} positions)")
    ax.axhline(t.linear_loss[1], color="black", linestyle="--", linewidth=1,
               label="linear eval (texel-2026-11), held out")
    ax.axvline(t.best_epoch, color="grey", linestyle=":", linewidth=1)
    lo = min(min(ho[1:] or ho), min(tr[1:] or tr), t.linear_loss[1])
    ax.set_ylim(lo - 0.002, max(t.linear_loss[1], lo) + 0.01)
    ax.set_xlabel("epoch")
    ax.set_ylabel(f"mean squared error of sigmoid({t.k:.3f} * eval / 100)")
    ax.set_title("Piece-square network on game results")
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
