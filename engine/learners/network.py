"""Chellapilla and Fogel's evolved checkers network (1999; the spatial one of 2001), as numbers.

A ``Network`` holds a preset's weights and biases (float64, as evolution changes them), the king
value K and the self-adaptive step sizes sigma.  ``evaluator()`` turns it into an evaluator the C
search runs (``CKR_EVAL_NETWORK``: the numbers as float32, laid out as csrc/network_eval.c
documents); ``output()`` is a slow reference of the same function for checks.

Presets:

* ``blondie``: 32 inputs (the squares), hidden layers of 40 and 10, one output: 1,741 numbers.
* ``spatial``: the 91 sub-squares (every k x k block, k = 3..8) first, each a tanh node over its
  playable squares, then 91-40-10-1: 5,046 numbers.

Both feed the sum of the inputs (the piece differential with kings at K) straight to the output.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine import core
from engine.board import Board
from engine.errors import OptionError
from engine.named_evaluator import Evaluator
from engine.types import BLACK, row_col

PRESETS = {"blondie": core.lib.CKR_NETWORK_BLONDIE, "spatial": core.lib.CKR_NETWORK_SPATIAL}
H1, H2 = 40, 10
K_RANGE = (1.0, 3.0)


def size(preset: str) -> int:
    if preset not in PRESETS:
        raise OptionError(f"unknown network preset {preset!r}; choose from {', '.join(PRESETS)}")
    return core.network_size(PRESETS[preset])


def subsquares() -> list[list[int]]:
    """The 91 sub-squares as lists of square indices (0..31), in csrc/network_eval.c's order."""
    out: list[list[int]] = []
    for k in range(3, 9):
        for r0 in range(0, 9 - k):
            for c0 in range(0, 9 - k):
                out.append([s - 1 for s in range(1, 33)
                            if r0 <= row_col(s)[0] < r0 + k and c0 <= row_col(s)[1] < c0 + k])
    return out


@dataclass
class Network:
    """One player of the evolution: its numbers, its king value and its step sizes."""

    preset: str
    weights: np.ndarray
    """float64, ``size(preset)`` of them, in the C layout."""
    king: float = 2.0
    sigma: np.ndarray | None = None
    """One step size per weight (self-adaptive mutation); None for a network that no longer evolves."""
    exact: bool = False
    """Score by the output node's sum before its tanh (an order-exact float score that never
    saturates) instead of 1000 x the output rounded (csrc/ckr_network.h)."""

    def __post_init__(self) -> None:
        want = size(self.preset)
        if self.weights.shape != (want,):
            raise OptionError(f"a {self.preset} network has {want} weights, got {self.weights.size}")
        if not np.all(np.isfinite(self.weights)):
            raise OptionError("a network weight is not a finite number (NaN or infinite)")
        if not K_RANGE[0] <= self.king <= K_RANGE[1]:
            raise OptionError(f"the king value K must be in [1, 3], got {self.king}")

    @classmethod
    def random(cls, preset: str, rng: np.random.Generator, *, scale: float = 0.2, sigma: float = 0.05,
               king: float = 2.0, exact: bool = False) -> Network:
        """The paper's start: weights and biases U(-0.2, 0.2), every sigma 0.05, K = 2."""
        n = size(preset)
        return cls(preset, rng.uniform(-scale, scale, n), king, np.full(n, sigma), exact)

    # ---- to and from the engine ----

    def data(self) -> tuple[int, ...]:
        """The C evaluator's words: header, then the numbers as float32 bit patterns."""
        numbers = np.concatenate([[self.king], self.weights]).astype(np.float32).view(np.int32)
        preset = PRESETS[self.preset] | (core.NETWORK_EXACT if self.exact else 0)
        header = (core.lib.CKR_NETWORK_VERSION, preset, size(self.preset))
        return header + tuple(int(v) for v in numbers)

    def evaluator(self, name: str = "network", meta: Mapping[str, Any] | None = None) -> Evaluator:
        spec = core.EvalSpec(core.EVAL_NETWORK, data=self.data())
        return Evaluator(name, spec, dict(meta or {"preset": self.preset, "king": self.king}))

    @classmethod
    def from_evaluator(cls, evaluator: Evaluator) -> Network:
        data = evaluator.spec.data
        if evaluator.spec.kind != core.EVAL_NETWORK or len(data) < core.NETWORK_HEADER:
            raise OptionError(f"evaluator {evaluator.name!r} is not a network")
        exact = bool(data[1] & core.NETWORK_EXACT)
        preset = next((k for k, v in PRESETS.items() if v == data[1] & ~core.NETWORK_EXACT), None)
        if preset is None:
            raise OptionError(f"evaluator {evaluator.name!r}: unknown network preset {data[1]}")
        numbers = np.array(data[3:], dtype=np.int32).view(np.float32).astype(np.float64)
        return cls(preset, numbers[1:], float(numbers[0]), exact=exact)

    # ---- the reference ----

    def inputs(self, board: Board, side: int) -> np.ndarray:
        """The 32 inputs for ``side`` (+1 own man, +K own king, minus for the other side's)."""
        x = np.zeros(32)
        king = float(np.float32(self.king))
        for s in range(1, 33):
            piece = board.piece_at(s)
            if piece is None:
                continue
            value = king if piece.king else 1.0
            x[s - 1] = value if (piece.color == BLACK) == (side == 0) else -value
        return x

    def output(self, board: Board, side: int) -> float:
        """The network's output for ``side``, computed here in float64 from the float32 numbers the
        C evaluator reads (the same rational tanh)."""
        return float(pade_tanh(self.output_sum(board, side)))

    def value(self, board: Board, side: int) -> int:
        """The integer score the search uses for ``side`` (rounded output, or exact: the sum)."""
        if self.exact:
            bound = core.lib.CKR_WIN_BOUND - 1
            return round(min(bound, max(-bound, core.NETWORK_SCALE * self.output_sum(board, side))))
        return round(core.NETWORK_SCALE * self.output(board, side))

    def output_sum(self, board: Board, side: int) -> float:
        """The output node's sum before its tanh, for ``side``."""
        w = self.weights.astype(np.float32).astype(np.float64)
        x = self.inputs(board, side)
        if self.preset == "spatial":
            at, hidden = 0, []
            for squares in subsquares():
                z = sum(x[s] * w[at + i] for i, s in enumerate(squares))
                at += len(squares)
                hidden.append(pade_tanh(z + w[at]))
                at += 1
            first = np.array(hidden)
            w = w[at:]
        else:
            first = x
        n_in = first.size
        w1 = w[: n_in * H1].reshape(n_in, H1)
        rest = w[n_in * H1:]
        b1, w2, b2, w3, b3 = rest[:H1], rest[H1:H1 + H1 * H2].reshape(H1, H2), \
            rest[H1 + H1 * H2:H1 + H1 * H2 + H2], rest[H1 + H1 * H2 + H2:H1 + H1 * H2 + 2 * H2], rest[-1]
        h1 = pade_tanh(first @ w1 + b1)
        h2 = pade_tanh(h1 @ w2 + b2)
        return float(h2 @ w3 + b3 + x.sum())


def pade_tanh(x: Any) -> Any:
    """tanh as csrc/network_eval.c computes it: a [7/6] Pade approximant clamped to [-1, 1]."""
    x2 = np.asarray(x, dtype=np.float64) ** 2
    p = x * (135135.0 + x2 * (17325.0 + x2 * (378.0 + x2)))
    q = 135135.0 + x2 * (62370.0 + x2 * (3150.0 + 28.0 * x2))
    return np.clip(p / q, -1.0, 1.0)
