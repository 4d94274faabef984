"""Agreement of an evaluator with the experts' moves on book positions.

For every book position (two or more legal moves; see
``engine.learners.book_data``) each legal move's resulting position is scored
from the point of view of the player who moved, and the book move's score is
compared with the others ("the alternatives").  Per position:

* ``l``: alternatives scored lower than the book move;
* ``h``: alternatives scored higher;
* ``t``: alternatives scored equal (ties).

Indices, summed over all positions:

* **C, Samuel's tie rule** (1959, footnote 16: H counts moves judged *better*,
  L moves judged *poorer*; ties count for neither):
  ``C = (L - H) / (L + H)`` with ``L = sum l``, ``H = sum h``.
* **C, Griffith's tie rule** (1974, section 4: H counts positions "rated equal
  to or higher than the book position"): ``C = (L - (H + T)) / (L + H + T)``.
  An evaluator that scores everything alike gets 0 under Samuel's rule and
  -1 under Griffith's.
* **D** (Griffith 1974, section 4: "the fractional number of times the
  evaluation procedure assigned a higher score to the book position than to
  all the alternatives"): the fraction of positions with ``h == 0 and t == 0``
  (strictly higher than every alternative).  Guessing gives about 1/7.  We also
  report ``D_weak``, the fraction with ``h == 0`` (no alternative higher: the
  form of Samuel's 1967 "rated no position higher" figure that Griffith quotes
  as D for the signature tables).
* **top-1**: the fraction of positions where the book move is ranked first
  with ties broken at random (an expected value: ``1/(t+1)`` when ``h == 0``).
* **mean rank** of the book move, 1 = best, ties counted at their mean rank
  ``1 + h + t/2``; **percentile rank** ``(h + t/2) / (n - 1)`` (0 = best,
  1 = worst, 0.5 = guessing), averaged over positions.
* **tie rate**: ``T / (L + H + T)``.
* a bootstrap 95% interval of C (both tie rules) over games: games are
  resampled with replacement (seeded) and C recomputed from their sums.

With ``tie_break="random"`` every score gets a seeded random offset in
[0, 0.5) before comparison, so equal integer scores are ordered at random and
unequal ones keep their order: exactly Griffith's treatment of his heuristic
evaluator, whose equal-priority moves get random scores within the priority's
band because "[C's] value is biased if positions are assigned equal scores".
Then there are no ties and both tie rules coincide.

Scoring: ``depth=0`` is static, ``-evaluate(child)`` with the child's parent
(the book position) and game ply (the book position's ply + 1), exactly what
the search gives the evaluator at a leaf.  ``depth=N > 0`` searches every
child N plies deep (PVS, fixed depth, the same parent and game ply given to
the core, table cleared per book position) and negates its score.

Evaluators whose data are large get a vectorized scorer (the learner's
``batch_scores``, found through ``engine.learners.registry`` by evaluator kind)
that must give exactly the C evaluator's numbers; the others are evaluated one
child at a time through the core.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from engine import core
from engine.evaluators import Evaluator
from engine.learners import registry
from engine.learners.book_data import BookPositions

ProgressFn = Callable[[int, int], None]
"""progress(done, total) in book positions."""

BatchScorer = Callable[[Evaluator, BookPositions], np.ndarray]
"""(evaluator, positions) -> one score per legal move, from the mover's point of view."""

TIE_RULES = ("samuel", "griffith")


@dataclass(frozen=True)
class PerPosition:
    """Per book position: alternatives lower, higher and equal, and the number of moves."""

    lower: np.ndarray
    higher: np.ndarray
    ties: np.ndarray
    game: np.ndarray

    @property
    def n(self) -> np.ndarray:
        return self.lower + self.higher + self.ties + 1


@dataclass(frozen=True)
class Agreement:
    """The indices of one evaluator on a set of book positions."""

    positions: int
    games: int
    L: int
    H: int
    T: int
    c_samuel: float
    c_griffith: float
    d: float
    d_weak: float
    top1: float
    mean_rank: float
    percentile: float
    tie_rate: float
    c_samuel_ci: tuple[float, float]
    c_griffith_ci: tuple[float, float]
    depth: int = 0
    tie_break: str = "none"
    extra: dict[str, float] = field(default_factory=dict)

    def as_dict(self) -> dict[str, object]:
        return {
            "positions": self.positions, "games": self.games, "L": self.L, "H": self.H, "T": self.T,
            "C_samuel": self.c_samuel, "C_griffith": self.c_griffith, "D": self.d, "D_weak": self.d_weak,
            "top1": self.top1, "mean_rank": self.mean_rank, "percentile_rank": self.percentile,
            "tie_rate": self.tie_rate, "C_samuel_ci95": list(self.c_samuel_ci),
            "C_griffith_ci95": list(self.c_griffith_ci), "depth": self.depth, "tie_break": self.tie_break,
        }


def _c(lower: float, higher: float) -> float:
    total = lower + higher
    return (lower - higher) / total if total else 0.0


def compare(scores: np.ndarray, positions: BookPositions) -> PerPosition:
    """Count, per position, the alternatives scored lower, higher and equal to the book move."""
    owner = positions.owner
    book_score = scores[positions.book_move][owner]
    is_book = positions.is_book
    n = len(positions)
    lower = np.bincount(owner, weights=(scores < book_score) & ~is_book, minlength=n).astype(np.int64)
    higher = np.bincount(owner, weights=(scores > book_score) & ~is_book, minlength=n).astype(np.int64)
    ties = np.bincount(owner, weights=(scores == book_score) & ~is_book, minlength=n).astype(np.int64)
    return PerPosition(lower, higher, ties, positions.game)


def indices(
    per: PerPosition, *, bootstrap: int = 1000, seed: int = 0, depth: int = 0, tie_break: str = "none"
) -> Agreement:
    """The indices from per-position counts (see the module docstring)."""
    lo, hi, ti = per.lower, per.higher, per.ties
    npos = len(lo)
    L, H, T = int(lo.sum()), int(hi.sum()), int(ti.sum())
    n = per.n
    alts = n - 1
    if npos:
        d = float(np.mean((hi == 0) & (ti == 0)))
        d_weak = float(np.mean(hi == 0))
        top1 = float(np.mean(np.where(hi == 0, 1.0 / (ti + 1), 0.0)))
        mean_rank = float(np.mean(1 + hi + ti / 2))
        percentile = float(np.mean((hi + ti / 2) / np.maximum(alts, 1)))
    else:
        d = d_weak = top1 = mean_rank = percentile = 0.0
    ci_s, ci_g = _bootstrap(per, bootstrap, seed)
    return Agreement(
        positions=npos,
        games=len(np.unique(per.game)),
        L=L, H=H, T=T,
        c_samuel=_c(L, H),
        c_griffith=_c(L, H + T),
        d=d, d_weak=d_weak, top1=top1, mean_rank=mean_rank, percentile=percentile,
        tie_rate=T / (L + H + T) if L + H + T else 0.0,
        c_samuel_ci=ci_s, c_griffith_ci=ci_g, depth=depth, tie_break=tie_break,
    )


def _bootstrap(per: PerPosition, rounds: int, seed: int) -> tuple[tuple[float, float], tuple[float, float]]:
    """95% percentile intervals of C (both tie rules), resampling games with replacement."""
    nan = (float("nan"), float("nan"))
    if rounds <= 0 or len(per.lower) == 0:
        return nan, nan
    games, inverse = np.unique(per.game, return_inverse=True)
    g = len(games)
    gl = np.bincount(inverse, weights=per.lower, minlength=g)
    gh = np.bincount(inverse, weights=per.higher, minlength=g)
    gt = np.bincount(inverse, weights=per.ties, minlength=g)
    rng = np.random.default_rng(seed)
    counts = rng.multinomial(g, np.full(g, 1.0 / g), size=rounds).astype(np.float64)  # (rounds, g)
    sl, sh, st = counts @ gl, counts @ gh, counts @ gt
    with np.errstate(invalid="ignore", divide="ignore"):
        cs = np.where(sl + sh > 0, (sl - sh) / (sl + sh), 0.0)
        cg = np.where(sl + sh + st > 0, (sl - sh - st) / (sl + sh + st), 0.0)
    q = (2.5, 97.5)
    a, b = np.percentile(cs, q)
    c, e = np.percentile(cg, q)
    return (float(a), float(b)), (float(c), float(e))


# ---------------------------------------------------------------------------
# Scoring the children.


STATIC_CHUNK = 1024
"""Positions scored with one evaluator buffer by ``static_scores``."""


def static_scores(
    evaluator: Evaluator, positions: BookPositions, progress: ProgressFn | None = None
) -> np.ndarray:
    """Score of each legal move's position for the player who moved (minus the child's score)."""
    batch = registry.batch_scorer(evaluator.spec.kind)
    if batch is not None:
        out = np.asarray(batch(evaluator, positions), dtype=np.float64)
        if progress is not None:
            progress(len(positions), len(positions))
        return out
    children = positions.children()
    scores = np.empty(positions.num_moves, dtype=np.float64)
    spec = evaluator.spec
    # One evaluator buffer per chunk of positions: building one (a network's tables) costs far more
    # than scoring a child with it.
    for lo in range(0, len(positions), STATIC_CHUNK):
        hi = min(lo + STATIC_CHUNK, len(positions))
        kids: list[core.RawPosition] = []
        parents: list[core.RawPosition | None] = []
        plies: list[int] = []
        for i in range(lo, hi):
            parent = positions.raw(i)
            for j in range(int(positions.start[i]), int(positions.start[i + 1])):
                c = children[j]
                kids.append(core.RawPosition(int(c[0]), int(c[1]), int(c[2]), int(c[3]), int(c[4])))
                parents.append(parent)
                plies.append(int(positions.ply[i]) + 1)
        first = int(positions.start[lo])
        scores[first:first + len(kids)] = [-v for v in core.evaluate_many(spec, kids, parents, plies)]
        if progress is not None:
            progress(hi, len(positions))
    return scores


def search_scores(
    evaluator: Evaluator,
    positions: BookPositions,
    depth: int,
    progress: ProgressFn | None = None,
    hash_mb: int = 16,
) -> np.ndarray:
    """Score of each legal move's position after a fixed-depth search of it, for the mover.

    A child with no legal move (the mover just won) scores as a win.
    """
    if depth < 1:  # the core reads depth 0 as "no limit"; static scores are ``static_scores``
        raise ValueError(f"search depth must be at least 1, got {depth}")
    engine = core.CoreEngine(hash_mb)
    engine.set_eval(evaluator.spec)
    children = positions.children()
    scores = np.empty(positions.num_moves, dtype=np.float64)
    for i in range(len(positions)):
        parent = positions.raw(i)
        ply = int(positions.ply[i]) + 1
        engine.clear()
        for j in range(int(positions.start[i]), int(positions.start[i + 1])):
            c = children[j]
            child = core.RawPosition(int(c[0]), int(c[1]), int(c[2]), int(c[3]), int(c[4]))
            limits = core.CoreLimits(depth=depth, game_ply=ply, parent=parent)
            n, info = engine.search(child, (), limits)
            scores[j] = core.WIN if n == 0 else -info.score
        if progress is not None:
            progress(i + 1, len(positions))
    return scores


def scores(
    evaluator: Evaluator, positions: BookPositions, *, depth: int = 0, progress: ProgressFn | None = None
) -> np.ndarray:
    if depth < 0:
        raise ValueError("depth must be >= 0")
    if depth == 0:
        return static_scores(evaluator, positions, progress)
    return search_scores(evaluator, positions, depth, progress)


def jitter(scores: np.ndarray, seed: int) -> np.ndarray:
    """Seeded offsets in [0, 0.5): breaks ties between integer scores at random, keeps other orders."""
    rng = np.random.default_rng(seed)
    return scores + rng.random(len(scores)) * 0.5


def measure(
    evaluator: Evaluator,
    positions: BookPositions,
    *,
    depth: int = 0,
    tie_break: str = "none",
    seed: int = 0,
    bootstrap: int = 1000,
    progress: ProgressFn | None = None,
) -> Agreement:
    """The agreement indices of ``evaluator`` on ``positions``.

    ``tie_break``: "none" (ties are reported, and counted per the two tie rules)
    or "random" (Griffith's randomized scores within equal priorities, seeded).
    """
    if tie_break not in ("none", "random"):
        raise ValueError(f"tie_break must be 'none' or 'random', not {tie_break!r}")
    s = scores(evaluator, positions, depth=depth, progress=progress)
    return measure_scores(s, positions, depth=depth, tie_break=tie_break, seed=seed, bootstrap=bootstrap)


def breakdown(
    s: np.ndarray,
    positions: BookPositions,
    seen: np.ndarray,
    *,
    depth: int = 0,
    tie_break: str = "none",
    seed: int = 0,
    bootstrap: int = 1000,
) -> dict[str, Agreement]:
    """The indices on all ``positions``, on those ``seen`` in training, and on the ``unseen`` ones
    (the honest figure): precomputed per-move scores, split by position."""
    if tie_break == "random":
        s = jitter(np.asarray(s, dtype=np.float64), seed)
    per = compare(np.asarray(s), positions)
    out = {"all": indices(per, bootstrap=bootstrap, seed=seed, depth=depth, tie_break=tie_break)}
    for name, mask in (("seen", seen), ("unseen", ~seen)):
        if mask.any():
            part = PerPosition(per.lower[mask], per.higher[mask], per.ties[mask], per.game[mask])
            out[name] = indices(part, bootstrap=bootstrap, seed=seed, depth=depth, tie_break=tie_break)
    return out


def measure_scores(
    s: np.ndarray,
    positions: BookPositions,
    *,
    depth: int = 0,
    tie_break: str = "none",
    seed: int = 0,
    bootstrap: int = 1000,
) -> Agreement:
    """The indices of precomputed per-move scores (mover's point of view)."""
    if tie_break == "random":
        s = jitter(np.asarray(s, dtype=np.float64), seed)
    per = compare(np.asarray(s), positions)
    return indices(per, bootstrap=bootstrap, seed=seed, depth=depth, tie_break=tie_break)


__all__ = [
    "TIE_RULES",
    "Agreement",
    "PerPosition",
    "breakdown",
    "compare",
    "indices",
    "jitter",
    "measure",
    "measure_scores",
    "scores",
    "search_scores",
    "static_scores",
]
