"""Choosing the four coefficients of ``samuel-rote`` (``samuel_rote_terms``) on book games.

Samuel's way: among candidate sets (each of DENY, MOB and CENT+ADV 0 or a signed power
of two), keep the one whose move agreement with the experts is highest.  ``fit`` scores
every legal move's position statically over a whole split; ``fit_searched`` refines a
set with every alternative searched (``samuel agree --depth``), as Samuel's program
decided "in the usual way" when it followed book games.  Both maximize C with ties
broken at random, ``(L - H) / (L + H + T)``; ``samuel learn rote fit`` runs them.
Kept apart from ``samuel_rote_terms`` so the evaluator never imports the agreement code.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from engine import core, samuel_terms
from engine.samuel_rote_terms import EXPONENTS, HYBRID, rote_polynomial

if TYPE_CHECKING:
    import numpy as np

    from engine.learners.book_data import BookPositions

ProgressFn = Callable[[int, int], None]


@dataclass(frozen=True)
class Candidate:
    """One coefficient set and its agreement counts."""

    deny: int
    mob: int
    hybrid: int
    L: int
    H: int
    T: int

    @property
    def c_random(self) -> float:
        """C with ties broken at random (its expected value): (L - H) / (L + H + T)."""
        n = self.L + self.H + self.T
        return (self.L - self.H) / n if n else 0.0

    @property
    def c_samuel(self) -> float:
        """C under Samuel's tie rule (ties in neither count): (L - H) / (L + H)."""
        n = self.L + self.H
        return (self.L - self.H) / n if n else 0.0

    @property
    def key(self) -> tuple[int, int, int]:
        return (self.deny, self.mob, self.hybrid)


@dataclass
class Fit:
    """The best candidate, and every set tried (in the order tried)."""

    best: Candidate
    tried: list[Candidate] = field(default_factory=list)
    positions: int = 0
    games: int = 0


class _Scorer:
    """The four columns of every legal move's position, and C of any coefficient set over them."""

    def __init__(self, positions: BookPositions, progress: ProgressFn | None = None) -> None:
        import numpy as np

        idx = [samuel_terms.TERM_NAMES.index(n) for n in ("PADV", "DENY", "MOB", *HYBRID)]
        children = positions.children()
        owner = positions.owner
        m = len(children)
        cols = np.empty((4, m), dtype=np.int64)
        chunk = 1 << 18
        buf = np.empty((chunk, samuel_terms.NTERMS), dtype=np.int32)
        for lo in range(0, m, chunk):
            hi = min(m, lo + chunk)
            sets = np.empty((hi - lo, 10), dtype=np.uint32)
            sets[:, :5] = children[lo:hi]
            sets[:, 5:] = positions.pos[owner[lo:hi]]
            out = buf[: hi - lo]
            core.samuel_terms_sets(np.ascontiguousarray(sets), out)
            t = out[:, idx].astype(np.int64)
            cols[0, lo:hi] = t[:, 0] * samuel_terms.PADV_WEIGHT
            cols[1, lo:hi] = t[:, 1]
            cols[2, lo:hi] = t[:, 2]
            cols[3, lo:hi] = t[:, 3] + t[:, 4]
            if progress is not None:
                progress(hi, m)
        self.base = cols[0]
        self.deny, self.mob, self.hybrid = cols[1], cols[2], cols[3]
        self.bonus = _trade_bonus(children)
        self.owner = owner
        self.alt = ~positions.is_book
        self.book_move = positions.book_move
        self.cache: dict[tuple[int, int, int], Candidate] = {}

    def counts(self, deny: int, mob: int, hybrid: int) -> Candidate:
        import numpy as np

        key = (deny, mob, hybrid)
        got = self.cache.get(key)
        if got is not None:
            return got
        total = self.base + deny * self.deny + mob * self.mob + hybrid * self.hybrid
        score = (total >> core.SAMUEL_SHIFT) + self.bonus
        score = np.clip(score, -core.WIN_BOUND + 1, core.WIN_BOUND - 1)
        v = -score  # for the player who chose the move
        book = v[self.book_move][self.owner]
        lower = int(((v < book) & self.alt).sum())
        higher = int(((v > book) & self.alt).sum())
        ties = int(((v == book) & self.alt).sum())
        got = self.cache[key] = Candidate(deny, mob, hybrid, lower, higher, ties)
        return got


def _trade_bonus(rows: np.ndarray) -> np.ndarray:
    """Samuel's trade-down bonus of ``ckr_samuel_eval`` (PADV weight non-zero), side to move."""
    import numpy as np

    black = rows[:, 4] == 0
    bm, bk, wm, wk = (np.bitwise_count(rows[:, k].astype(np.uint32)).astype(np.int64) for k in range(4))
    b, w = 2 * bm + 3 * bk, 2 * wm + 3 * wk
    mu, mt = np.where(black, b, w), np.where(black, w, b)
    s = mu + mt
    diff = 100 * (mu - mt)
    return np.where(s > 0, np.sign(diff) * (np.abs(diff) // np.maximum(s, 1)), 0)


def candidates(exponents: Iterable[int] = EXPONENTS) -> list[int]:
    """0 and every signed power of two of ``exponents``."""
    out = [0]
    for e in exponents:
        out += [1 << e, -(1 << e)]
    return out


def fit(
    positions: BookPositions,
    *,
    exponents: Sequence[int] = EXPONENTS,
    restarts: int = 4,
    seed: int = 0,
    progress: ProgressFn | None = None,
    on_step: Callable[[Candidate], None] | None = None,
) -> Fit:
    """Choose (DENY, MOB, CENT+ADV) maximizing C (ties at random) on ``positions``.

    Coordinate search: from all-zero, and from ``restarts`` random sets (seeded), each
    coefficient in turn takes the best of its candidates with the others held, until a
    sweep changes nothing.  Ties in C go to the set met first.  ``on_step`` hears of each
    improvement.
    """
    scorer = _Scorer(positions, progress)
    values = candidates(exponents)
    rng = random.Random(seed)
    starts: list[tuple[int, int, int]] = [(0, 0, 0)]
    starts += [(rng.choice(values), rng.choice(values), rng.choice(values)) for _ in range(restarts)]
    best: Candidate | None = None
    for start in starts:
        current = scorer.counts(*start)
        changed = True
        while changed:
            changed = False
            for slot in range(3):
                for value in values:
                    key = list(current.key)
                    key[slot] = value
                    c = scorer.counts(*key)
                    if c.c_random > current.c_random:
                        current, changed = c, True
                        if on_step is not None:
                            on_step(c)
        if best is None or current.c_random > best.c_random:
            best = current
    assert best is not None
    return Fit(best, list(scorer.cache.values()), len(positions), positions.num_games)


def searched_counts(positions: BookPositions, deny: int, mob: int, hybrid: int, depth: int) -> Candidate:
    """Agreement counts of a four-term set with every legal move's position searched ``depth`` plies
    (``samuel agree --depth``: fixed-depth PVS), the look-ahead Samuel's own C was measured with."""
    from engine.learners import agreement

    ev = rote_polynomial(deny, mob, hybrid, name="candidate")
    per = agreement.compare(agreement.search_scores(ev, positions, depth), positions)
    return Candidate(deny, mob, hybrid, int(per.lower.sum()), int(per.higher.sum()), int(per.ties.sum()))


def fit_searched(
    positions: BookPositions,
    start: tuple[int, int, int],
    *,
    depth: int = 2,
    span: int = 3,
    sweeps: int = 2,
    scales: Iterable[int] = range(-12, 1),
    on_step: Callable[[Candidate], None] | None = None,
) -> Fit:
    """Refine a set by C (ties at random) over *searched* scores, as Samuel measured C.

    Searching every alternative costs thousands of times a static score, so this is a local
    search: first the whole set scaled by powers of two (every coefficient shifted alike), then
    ``sweeps`` coordinate sweeps, each coefficient trying 0 and the signed powers of two within
    ``span`` of its exponent.  ``positions`` is best a sample of games (``sample_games``).
    """
    tried: dict[tuple[int, int, int], Candidate] = {}

    def counts(key: tuple[int, int, int]) -> Candidate:
        if key not in tried:
            tried[key] = searched_counts(positions, *key, depth)
        return tried[key]

    def shifted(v: int, k: int) -> int:
        if v == 0:
            return 0
        e = max(0, min(max(EXPONENTS), abs(v).bit_length() - 1 + k))
        return (1 << e) * (1 if v > 0 else -1)

    current = counts(start)
    if on_step is not None:
        on_step(current)
    for k in scales:  # the whole set shifted by k powers of two (smaller first, by default)
        c = counts((shifted(start[0], k), shifted(start[1], k), shifted(start[2], k)))
        if c.c_random > current.c_random:
            current = c
            if on_step is not None:
                on_step(c)
    for _ in range(sweeps):
        changed = False
        for slot in range(3):
            v = current.key[slot]
            e0 = abs(v).bit_length() - 1 if v else max(EXPONENTS) - 4
            exps = [e for e in range(e0 - span, e0 + span + 1) if e in EXPONENTS]
            for value in [0] + [sign * (1 << e) for e in exps for sign in (1, -1)]:
                key = list(current.key)
                key[slot] = value
                c = counts((key[0], key[1], key[2]))
                if c.c_random > current.c_random:
                    current, changed = c, True
                    if on_step is not None:
                        on_step(c)
        if not changed:
            break
    return Fit(current, list(tried.values()), len(positions), positions.num_games)


def measure(positions: BookPositions, deny: int, mob: int, hybrid: int) -> Candidate:
    """The agreement counts of one four-term set on ``positions`` (same scoring as ``fit``)."""
    return _Scorer(positions).counts(deny, mob, hybrid)


__all__ = [
    "Candidate",
    "Fit",
    "candidates",
    "fit",
    "fit_searched",
    "measure",
    "searched_counts",
]
