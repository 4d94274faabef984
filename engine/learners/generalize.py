"""Samuel's learning by generalization: Alpha and Beta (the second series of 1959).

Alpha "generalizes on its experience after each move by adjusting the coefficients in its evaluation
polynomial and by replacing terms which appear to be unimportant by new parameters drawn from a
reserve list.  Beta, on the contrary, uses the same evaluation polynomial for the duration of any one
game."  (Samuel 1959, "Learning procedure involving generalizations".)

``Alpha`` is the per-move learner; it works on any game (self-play here, a human over the server).
``SelfPlay`` plays Alpha against Beta, referees the games and keeps the whole run's state, which
saves to and loads from JSON between games.  The bookkeeping rules themselves (correlations,
coefficients, tallies, black marks) are in ``generalize_state``; docs/learners/generalization.md
lists every rule with its passage and every reading of an ambiguous one.

Units: scores are the search's centi-men for the side to move; a polynomial's coefficients are
Samuel's (up to 2^18), and ``samuel_terms.SHIFT`` converts one into the other.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from engine import core, samuel_terms
from engine.board import Board
from engine.evaluators import Evaluator
from engine.game import GameEnd, play_game
from engine.learners.generalize_state import (
    ACTIVE_TERMS,
    ADOPTIONS,
    NEW_TERM_INTERVAL,
    TALLY_LIMIT,
    Correction,
    LearningRules,
    PolynomialState,
    Referee,
    TermRecord,
    sign,
)
from engine.limits import Limit
from engine.move import Move
from engine.runner import move_to_play
from engine.search import Mode, Searcher
from engine.termination import Termination
from engine.types import BLACK, WHITE, Color

STATE_VERSION = 1
GAME_PLIES = 70
""""In all cases the games were terminated, if not finished, in 70 moves" (a game averaged 68 moves,
34 to a side, so a move is a ply)."""
LEARNABLE_TERMS: tuple[str, ...] = samuel_terms.TERM_NAMES[1:]
"""The 38 terms Alpha chooses among; PADV is "computed separately and, of course, is not altered"."""
OPENINGS: tuple[str, ...] = ("9-13", "9-14", "10-14", "10-15", "11-15", "11-16", "12-16")
"""Black's seven first moves: "two cycles of the seven different initial moves"."""
INITIAL_TERMS: tuple[str, ...] = ("samuel", "random", "first-series", "first-series-weights")
"""The ``--initial-terms`` choices (see ``initial_order`` and ``SelfPlay.start``)."""
FIRST_SERIES_GAMES = 28
"""Samuel's first series: "an initial test series of 28 games"."""

# Appendix C's evidence on which terms were worth keeping: the first 12 of the polynomial after
# 42 games, then the other terms never discarded, then the discarded ones.
_PUBLISHED_LEADERS = ("MOC2", "KCENT", "MOC4", "MODE3", "DEMMO", "MOVE", "ADV", "MODE2", "BACK",
                      "CNTR", "THRET", "MOC3")
_DISCARDED = ("CORN", "CRAMP", "GUARD", "EXPOS", "DDMM", "DYKE", "MOC1", "EXCH", "DDEMO", "MODE1",
              "CENT", "MODE4", "FORK", "MOBIL", "POLE", "HOLE", "GAP", "MOB")


def initial_order(how: str, rng: random.Random) -> list[str]:
    """The 38 terms in order: the first 16 start active, the rest form the reserve list.

    ``random``: "an arbitrary selection of 16 terms" (the first series), a seeded shuffle.
    ``samuel``: the second series, where "the initial selection of terms was made on the basis of the
    results obtained during the earlier tests": the 12 terms Appendix C lists after 42 games, then
    4 of the other never-discarded terms, the rest of those, then the discarded ones (each group
    in seeded order; no weights carried over).
    """
    if how == "random":
        order = list(LEARNABLE_TERMS)
        rng.shuffle(order)
        return order
    if how != "samuel":
        raise ValueError(f"unknown initial term selection {how!r}; choose samuel or random "
                         "(first-series starts are made by SelfPlay.start)")
    kept = [n for n in LEARNABLE_TERMS if n not in _PUBLISHED_LEADERS and n not in _DISCARDED]
    leaders, dropped = list(_PUBLISHED_LEADERS), list(_DISCARDED)
    for group in (leaders, kept, dropped):
        rng.shuffle(group)
    return leaders + kept + dropped


def padv_weight(rules: LearningRules) -> int:
    """PADV's fixed coefficient under ``rules``."""
    return round(samuel_terms.PADV_WEIGHT * rules.padv_scale)


def to_score(coefficient_units: float) -> float:
    """Coefficient units (a coefficient times a term value of 1) in centi-men."""
    return coefficient_units / (1 << samuel_terms.SHIFT)


def material(raw: core.RawPosition, color: Color) -> tuple[int, int]:
    """(own, other) material of ``color``, men 2 and kings 3, Samuel's weights."""
    b = 2 * raw.black_men.bit_count() + 3 * raw.black_kings.bit_count()
    w = 2 * raw.white_men.bit_count() + 3 * raw.white_kings.bit_count()
    return (b, w) if color == BLACK else (w, b)


def ratio_changed(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Whether the piece ratio differs (a trade when ahead changes it, a trade when even does not)."""
    return a[0] * b[1] != b[0] * a[1]


# ---------------------------------------------------------------------------
# Alpha.


@dataclass(frozen=True)
class Retained:
    """The remembered earlier position of the span: its evaluated leaf and term values.

    "This record is kept by computing the scoring polynomial for each board position encountered in
    actual play and by saving this polynomial in its entirety."  All 39 term values are kept, so the
    score can be recomputed under the current coefficients.
    """

    leaf: core.RawPosition
    parent: core.RawPosition | None
    pov: int
    """+1 when Alpha is to move at the leaf, -1 when its opponent is (the values below are Alpha's)."""
    values: dict[str, int]
    material: tuple[int, int]
    """Alpha's and the opponent's material at the leaf."""
    move: int
    """Alpha's move number (in the game) where it was recorded."""


def initial_search(board: Board, evaluator: Evaluator, alpha: Color, move_no: int) -> tuple[int, Retained]:
    """The initial board score of the second series, and the leaf it comes from.

    "Instead of evaluating the initial board positions directly, as was done before, a standard but
    rudimentary tree-search (terminated after the first non-jump move) was used.  Errors due to
    impending jump situations were eliminated by this procedure."  Read as: minimax through jumps
    only, each line ending where the side to move has a non-jump move (a quiet position is scored as
    it stands; a pending capture is played out).  Returns the score for Alpha.
    """
    work = board.copy()

    def node(pov: int) -> tuple[int, Retained]:
        moves = work.legal_moves
        if not moves or not moves[0].is_capture:
            raw, parent = work.raw, work.previous_raw
            score = evaluator.evaluate(work) if moves else -core.WIN
            values = samuel_terms.terms(raw, parent)
            kept = Retained(raw, parent, pov, {n: pov * v for n, v in
                                                zip(samuel_terms.TERM_NAMES, values, strict=True)},
                            material(raw, alpha), move_no)
            return score, kept
        best: tuple[int, Retained] | None = None
        for m in moves:
            work.push(m)
            s, leaf = node(-pov)
            work.pop()
            if best is None or -s > best[0]:
                best = (-s, leaf)
        assert best is not None
        return best

    score, leaf = node(1)
    return score, leaf


def direct_evaluation(board: Board, evaluator: Evaluator, alpha: Color, move_no: int) -> tuple[int, Retained]:
    """The first series' initial board score: the position evaluated as it stands, no search."""
    raw, parent = board.raw, board.previous_raw
    score = evaluator.evaluate(board) if board.legal_moves else -core.WIN
    values = samuel_terms.terms(raw, parent)
    return score, Retained(raw, parent, 1, dict(zip(samuel_terms.TERM_NAMES, values, strict=True)),
                           material(raw, alpha), move_no)


def pv_material(board: Board, pv: Sequence[Move], alpha: Color) -> tuple[int, int]:
    """Alpha's and the opponent's material at the end of the search's principal variation."""
    work = board.copy()
    for m in pv:
        if m not in work.legal_moves:
            break
        work.push(m)
    return material(work.raw, alpha)


@dataclass(frozen=True)
class MoveLearning:
    """What Alpha did with one move (for progress reports and tests)."""

    backed_up: int
    initial: int | None
    """The retained initial score the backed-up score was compared with (after zeroing), or None."""
    delta: int | None
    minimum: float
    """The minimum delta, centi-men."""
    span: int
    """Alpha moves between the retained position and this one (0: nothing retained yet)."""
    correction: Correction | None
    replaced: tuple[str, str] | None


class Alpha:
    """Alpha's polynomial and its per-move learning.

    Call ``new_game`` at the start of each game and ``learn`` after each of Alpha's searches (before
    its move is played), with the searched board and the search's backed-up score and PV.
    """

    def __init__(self, poly: PolynomialState, name: str = "samuel-alpha") -> None:
        self.poly = poly
        self.name = name
        self.color: Color = WHITE
        self._retained: Retained | None = None
        self._moves_in_game = 0
        self._cache: tuple[tuple[tuple[str, int], ...], Evaluator] | None = None

    def coefficients(self) -> dict[str, int]:
        """The current polynomial: the active terms' coefficients (PADV is implied, fixed)."""
        return self.poly.coefficients()

    def evaluator(self) -> Evaluator:
        coefs = self.coefficients()
        key = tuple(sorted(coefs.items()))
        if self._cache is None or self._cache[0] != key:
            padv = padv_weight(self.poly.rules)
            self._cache = (key, samuel_terms.polynomial(coefs, name=self.name, padv=padv))
        return self._cache[1]

    def new_game(self, color: Color) -> None:
        self.color = color
        self._retained = None
        self._moves_in_game = 0

    def _score(self, kept: Retained) -> int:
        """The retained position's score for Alpha under the current coefficients."""
        return kept.pov * self.poly.score_position(
            kept.leaf, kept.parent, lambda: core.evaluate(kept.leaf, self.evaluator().spec, kept.parent))

    def learn(self, board: Board, backed_up: int, pv: Sequence[Move] = ()) -> MoveLearning:
        """Learn from one Alpha move: delta, maybe a correction, the low-term tally, the new span.

        "At each play by Alpha the initial board score, as saved from the previous Alpha move, is
        compared with the backed-up score for the current position.  The difference between these
        scores, defined as delta, is used to check the scoring polynomial."  Second series: "allow
        the span of remembered moves, over which delta is computed, to increase until delta exceeded
        the arbitrary minimum value, and then to apply the corrections to the coefficients as
        dictated by the terms in the retained polynomial for this earlier board position ...
        whenever delta does exceed the minimum value the program must then recompute the initial
        scoring polynomial for the then current board position".
        """
        self._moves_in_game += 1
        here = samuel_terms.terms(board.raw, board.previous_raw)
        self.poly.count_nonzero(dict(zip(samuel_terms.TERM_NAMES, here, strict=True)))
        minimum = to_score(self.poly.minimum_delta())
        initial = delta = None
        correction = None
        span = 0
        kept = self._retained
        if kept is not None:
            span = self._moves_in_game - kept.move
            decision = self.poly.decide(
                backed_up, self._score(kept), kept.values,
                lambda: ratio_changed(kept.material, pv_material(board, pv, self.color)))
            initial, delta, minimum, correction = (decision.initial, decision.delta, decision.minimum,
                                                   decision.correction)
            if correction is not None:
                self._retained = None
        replaced = self.poly.tally_move()
        rules = self.poly.rules
        if self._retained is None or rules.span == "one":
            # Recomputed with the corrected polynomial, not the score used to choose the move:
            # "its neglect in the initial stages of these experiments led to oscillations".
            first = initial_search if rules.initial_eval == "search" else direct_evaluation
            _, self._retained = first(board, self.evaluator(), self.color, self._moves_in_game)
        return MoveLearning(backed_up, initial, delta, minimum, span, correction, replaced)

    def penalize(self) -> str:
        return self.poly.zero_leading()


# ---------------------------------------------------------------------------
# Self-play: Alpha against Beta.


@dataclass(frozen=True)
class LearningGame:
    """One game of Alpha against Beta (played by ``engine.game.play_game``) and what Alpha learned."""

    game: int
    """1-based."""
    alpha_color: str
    opening: str
    result: int
    """+1 Alpha won or was ahead, 0 even, -1 Beta."""
    termination: Termination
    plies: int
    moves: tuple[str, ...]
    adopted: bool
    """Beta took Alpha's polynomial after this game."""
    penalized: str | None
    """The leading term zeroed after this game's third black mark, if any."""
    corrections: int
    """Corrections Alpha made during the game."""
    replaced: tuple[tuple[str, str], ...]
    coefficients: dict[str, int]
    """Alpha's polynomial after the game (and after any penalty)."""
    correlations: dict[str, float]
    detail: str = ""
    """More about the ending (``stopped after 60 moves, judged on material``), or empty."""

    def to_dict(self) -> dict[str, Any]:
        return {"game": self.game, "alpha_color": self.alpha_color, "opening": self.opening,
                "result": self.result, "termination": self.termination.value, "detail": self.detail,
                "plies": self.plies,
                "moves": list(self.moves), "adopted": self.adopted, "penalized": self.penalized,
                "corrections": self.corrections, "replaced": [list(r) for r in self.replaced],
                "coefficients": dict(self.coefficients), "correlations": dict(self.correlations)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> LearningGame:
        """A game ``to_dict`` wrote, or one from before the vocabulary of endings, whose
        ``termination`` was words (``threefold repetition``, ``stopped after ..., judged on material``)."""
        words = str(d["termination"])
        result = int(d["result"])
        if "detail" in d:
            termination, detail = Termination(words), str(d["detail"])
        else:
            termination = Termination.read(words, "1/2-1/2" if result == 0 else "1-0")
            detail = "" if words == termination.label else words
        return cls(int(d["game"]), str(d["alpha_color"]), str(d["opening"]), result,
                   termination, int(d["plies"]), tuple(d["moves"]), bool(d["adopted"]),
                   d["penalized"], int(d["corrections"]), tuple((a, b) for a, b in d["replaced"]),
                   {str(k): int(v) for k, v in d["coefficients"].items()},
                   {str(k): float(v) for k, v in d["correlations"].items()}, detail)


@dataclass(frozen=True)
class SelfPlayConfig:
    depth: int = 4
    """Minimum ply of Samuel's search (both players)."""
    seed: int = 0
    initial_terms: str = "samuel"
    """One of ``INITIAL_TERMS``."""
    game_plies: int = GAME_PLIES
    hash_mb: int = 4
    # The readings that are ours (issue 15); see ``LearningRules``.
    tally_limit: int = TALLY_LIMIT
    new_term_interval: int = NEW_TERM_INTERVAL
    tally_reset: str = "never"
    exponent_rule: str = "round"
    min_delta_scale: float = 1.0
    padv_scale: float = 1.0
    times_used: str = "corrections"
    correction_weights: str = "samuel"
    adoption: str = "majority"
    """When Beta takes Alpha's polynomial (``Referee.adoption``)."""
    series: int = 2
    """2: the second series' procedure; 1: the first series' (every contributing term corrected on
    a positive delta, a span of one move, the position evaluated directly).  The term-replacement
    rate is set by ``tally_limit`` and ``new_term_interval``, adoption by ``adoption``."""

    def __post_init__(self) -> None:
        if self.initial_terms not in INITIAL_TERMS:
            raise ValueError(f"unknown initial term selection {self.initial_terms!r}; "
                             f"choose {', '.join(INITIAL_TERMS)}")
        if self.series not in (1, 2):
            raise ValueError(f"series {self.series}: choose 1 or 2")
        if self.adoption not in ADOPTIONS:
            raise ValueError(f"unknown adoption rule {self.adoption!r}; choose {', '.join(ADOPTIONS)}")
        self.rules()  # checks the rest

    def rules(self) -> LearningRules:
        first = self.series == 1
        return LearningRules(
            tally_limit=self.tally_limit, new_term_interval=self.new_term_interval,
            tally_reset=self.tally_reset, exponent_rule=self.exponent_rule,
            min_delta_scale=self.min_delta_scale, padv_scale=self.padv_scale,
            correction_weights=self.correction_weights, times_used=self.times_used,
            positive_delta="all" if first else "selected", span="one" if first else "grow",
            initial_eval="direct" if first else "search",
        )

    def first_series(self) -> SelfPlayConfig:
        """The configuration of our first series for this run: the first series' procedure, an
        arbitrary (seeded) selection of 16 terms, a new term whenever a tally reaches 8 ("one
        every eight moves") and Beta adopting after any Alpha win; search, seed and our other
        readings as in this run."""
        return replace(self, initial_terms="random", series=1, tally_limit=TALLY_LIMIT, new_term_interval=0,
                       adoption="win")

    def to_dict(self) -> dict[str, Any]:
        return {"depth": self.depth, "seed": self.seed, "initial_terms": self.initial_terms,
                "game_plies": self.game_plies, "hash_mb": self.hash_mb,
                "tally_limit": self.tally_limit, "new_term_interval": self.new_term_interval,
                "tally_reset": self.tally_reset, "exponent_rule": self.exponent_rule,
                "min_delta_scale": self.min_delta_scale, "padv_scale": self.padv_scale,
                "times_used": self.times_used, "correction_weights": self.correction_weights,
                "adoption": self.adoption,
                "series": self.series}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> SelfPlayConfig:
        """A saved config; states from before issue 15 lack the rule fields and get the defaults."""
        base = cls()
        return cls(int(d["depth"]), int(d["seed"]), str(d["initial_terms"]), int(d["game_plies"]),
                   int(d["hash_mb"]),
                   tally_limit=int(d.get("tally_limit", base.tally_limit)),
                   new_term_interval=int(d.get("new_term_interval", base.new_term_interval)),
                   tally_reset=str(d.get("tally_reset", base.tally_reset)),
                   exponent_rule=str(d.get("exponent_rule", base.exponent_rule)),
                   min_delta_scale=float(d.get("min_delta_scale", base.min_delta_scale)),
                   padv_scale=float(d.get("padv_scale", base.padv_scale)),
                   times_used=str(d.get("times_used", base.times_used)),
                   correction_weights=str(d.get("correction_weights", base.correction_weights)),
                   adoption=str(d.get("adoption", base.adoption)),
                   series=int(d.get("series", base.series)))


def first_series_start(earlier: PolynomialState, keep_weights: bool = False) -> PolynomialState:
    """The second series' start from the first series' outcome.

    "In order to reduce the learning time, the initial selection of terms was made on the basis of
    the results obtained during the earlier tests, but no attention was paid to their previously
    assigned weights."  The first series' active terms, by falling |C|, then its reserve list in
    order; all with equal weights.  ``keep_weights`` (not Samuel's) carries each active term's
    correlation and counts of use over instead; tallies and the run's counters start again.
    """
    ranked = sorted(earlier.active, key=lambda t: -abs(t.correlation))  # stable: ties keep their order
    if not keep_weights:
        return PolynomialState.start([t.name for t in ranked] + list(earlier.reserve), ACTIVE_TERMS)
    return PolynomialState([TermRecord(t.name, t.correlation, t.uses, 0, t.nonzero) for t in ranked],
                           list(earlier.reserve))


def leading_terms(history: Sequence[LearningGame]) -> list[str]:
    """The leading term (largest |C|, the first on a tie) after each game."""
    return [max(g.correlations, key=lambda n: abs(g.correlations[n])) for g in history]


def leading_changes(history: Sequence[LearningGame]) -> int:
    """How often the leading term after a game differs from the one after the game before."""
    leads = leading_terms(history)
    return sum(a != b for a, b in itertools.pairwise(leads))


def _rng_state(rng: random.Random) -> list[Any]:
    version, internal, gauss = rng.getstate()
    return [version, list(internal), gauss]


def _rng_from(state: Sequence[Any]) -> random.Random:
    rng = random.Random()
    rng.setstate((state[0], tuple(state[1]), state[2]))
    return rng


@dataclass
class SelfPlay:
    """A learning run: Alpha, Beta's polynomial, the referee, the RNG and the game history."""

    config: SelfPlayConfig
    alpha: PolynomialState
    beta: dict[str, int]
    initial: dict[str, int]
    """The starting (equal-weight) polynomial, the baseline of the strength check."""
    referee: Referee = field(default_factory=Referee)
    rng: random.Random = field(default_factory=random.Random)
    openings: list[str] = field(default_factory=list)
    """The rest of the current cycle of first moves."""
    history: list[LearningGame] = field(default_factory=list)
    first_series: dict[str, Any] | None = None
    """For a ``first-series`` start: our first series' config, results, final correlations (in
    active order) and reserve list."""
    machine: Any = field(default=None, compare=False, repr=False)
    """None: the host searches and learns.  A ``generalize_704.Machine704``: both players search on
    the emulated 704 and Alpha's bookkeeping is the 704 program's (``use_704``)."""

    def use_704(self, machine: Any) -> None:
        """Play and learn from now on with ``machine`` (``generalize_704.Machine704``): its
        ``searcher(evaluator, hash_mb)`` searches, its ``polynomial(state)`` keeps Alpha's state."""
        self.machine = machine
        self.alpha = machine.polynomial(self.alpha)
        self.referee = machine.referee(self.referee, self.alpha)
        machine.load_beta(self.beta, padv_weight(self.alpha.rules))

    @classmethod
    def start(cls, config: SelfPlayConfig,
              on_first_series_game: Callable[[LearningGame], None] | None = None) -> SelfPlay:
        """A new run.  A ``first-series`` start first plays our first series (``FIRST_SERIES_GAMES``
        games under ``config.first_series()``) and begins from its outcome."""
        rng = random.Random(config.seed)
        first: dict[str, Any] | None = None
        if config.initial_terms in ("first-series", "first-series-weights"):
            earlier = cls.start(config.first_series())
            for _ in range(FIRST_SERIES_GAMES):
                rec = earlier.play_learning_game()
                if on_first_series_game is not None:
                    on_first_series_game(rec)
            keep = config.initial_terms == "first-series-weights"
            poly = first_series_start(earlier.alpha, keep_weights=keep)
            results = [g.result for g in earlier.history]
            first = {"config": earlier.config.to_dict(), "games": earlier.games,
                     "won": results.count(1), "drawn": results.count(0), "lost": results.count(-1),
                     "leading_changes": leading_changes(earlier.history),
                     "correlations": earlier.alpha.correlations(), "reserve": list(earlier.alpha.reserve)}
        else:
            poly = PolynomialState.start(initial_order(config.initial_terms, rng), ACTIVE_TERMS)
        poly.rules = config.rules()
        coefs = poly.coefficients()
        return cls(config, poly, dict(coefs), dict(coefs), referee=Referee(adoption=config.adoption),
                   rng=rng, first_series=first)

    @property
    def games(self) -> int:
        return len(self.history)

    # ---- saving ----

    def to_dict(self) -> dict[str, Any]:
        return {
            "version": STATE_VERSION,
            "config": self.config.to_dict(),
            "games": self.games,
            "alpha": self.alpha.to_dict(),
            "alpha_coefficients": self.alpha.coefficients(),
            "beta": dict(self.beta),
            "initial": dict(self.initial),
            "referee": self.referee.to_dict(),
            "rng": _rng_state(self.rng),
            "openings": list(self.openings),
            "history": [g.to_dict() for g in self.history],
            "first_series": self.first_series,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> SelfPlay:
        if d.get("version") != STATE_VERSION:
            raise ValueError(f"state version {d.get('version')!r}, expected {STATE_VERSION}")
        config = SelfPlayConfig.from_dict(d["config"])
        alpha = PolynomialState.from_dict(d["alpha"])
        alpha.rules = config.rules()
        referee = Referee.from_dict(d["referee"])
        referee.adoption = config.adoption
        return cls(
            config=config,
            alpha=alpha,
            beta={str(k): int(v) for k, v in d["beta"].items()},
            initial={str(k): int(v) for k, v in d["initial"].items()},
            referee=referee,
            rng=_rng_from(d["rng"]),
            openings=[str(o) for o in d["openings"]],
            history=[LearningGame.from_dict(g) for g in d["history"]],
            first_series=d.get("first_series"),
        )

    # ---- playing ----

    def _next_opening(self) -> str:
        if not self.openings:
            cycle = list(OPENINGS)
            self.rng.shuffle(cycle)
            self.openings = cycle
        return self.openings.pop(0)

    def play_learning_game(self, on_ply: Callable[[int, MoveLearning | None], None] | None = None
                           ) -> LearningGame:
        """Play one game Alpha against Beta, learn, referee; returns its record.

        Alpha takes White in odd-numbered games and Black in even ones ("Alpha was assigned Black and
        White alternately"); Black's first move cycles through the seven openings in seeded order.
        """
        cfg = self.config
        number = self.games + 1
        alpha_color: Color = WHITE if number % 2 else BLACK
        opening = self._next_opening()
        alpha = Alpha(self.alpha)
        alpha.new_game(alpha_color)
        padv = padv_weight(self.alpha.rules)
        beta_eval = samuel_terms.polynomial(self.beta, name="samuel-beta", padv=padv)
        if self.machine is not None:
            s_alpha = self.machine.searcher(alpha.evaluator(), cfg.hash_mb, beta=False)
            s_beta = self.machine.searcher(beta_eval, cfg.hash_mb, beta=True)
        else:
            s_alpha = Searcher(alpha.evaluator(), mode=Mode.SAMUEL, hash_mb=cfg.hash_mb)
            s_beta = Searcher(beta_eval, mode=Mode.SAMUEL, hash_mb=cfg.hash_mb)
        limit = Limit(depth=cfg.depth)
        board = Board()
        board.push_pdn(opening)
        corrections = 0
        replaced: list[tuple[str, str]] = []
        learned: list[MoveLearning | None] = [None]  # the last move's learning, for on_ply

        def alpha_move(b: Board) -> Move:
            nonlocal corrections
            s_alpha.set_evaluator(alpha.evaluator())
            s_alpha.new_game()  # the polynomial may have changed: no stale scores
            found = s_alpha.search(b, limit)
            learning = alpha.learn(b, found.info.score.value, found.info.pv)
            corrections += learning.correction is not None and bool(learning.correction.terms)
            if learning.replaced:
                replaced.append(learning.replaced)
            learned[0] = learning
            return move_to_play(b, found)

        def beta_move(b: Board) -> Move:
            learned[0] = None
            return move_to_play(b, s_beta.search(b, limit))

        def judged_on_material(b: Board) -> GameEnd:
            mine, theirs = material(b.raw, alpha_color)
            ahead = sign(mine - theirs)
            detail = f"stopped after {cfg.game_plies} moves, judged on material"
            if ahead == 0:
                return GameEnd.draw(Termination.ADJUDICATED_DRAW, detail)
            loser = beta_color if ahead > 0 else alpha_color
            return GameEnd.loss_for(loser, Termination.ADJUDICATED_WIN, detail)

        beta_color: Color = BLACK if alpha_color == WHITE else WHITE
        game = play_game(board, {alpha_color: alpha_move, beta_color: beta_move},
                         max_plies=cfg.game_plies - board.ply, at_cap=judged_on_material,
                         on_move=(lambda b, _m: on_ply(b.ply, learned[0])) if on_ply is not None else None)
        result = 0 if game.winner is None else (1 if game.winner == alpha_color else -1)
        adopt, penalize = self.referee.record(result)
        penalized = alpha.penalize() if penalize else None
        if adopt:  # on the 704 the program's referee copied Alpha's polynomial into Beta's tables
            self.beta = self.machine.beta() if self.machine is not None else alpha.coefficients()
        record = LearningGame(
            game=number, alpha_color="black" if alpha_color == BLACK else "white", opening=opening,
            result=result, termination=game.termination, detail=game.detail, plies=board.ply,
            moves=tuple(m.long for m in board.move_stack), adopted=adopt, penalized=penalized,
            corrections=corrections, replaced=tuple(replaced), coefficients=alpha.coefficients(),
            correlations=self.alpha.correlations(),
        )
        self.history.append(record)
        return record

    def alpha_evaluator(self, name: str = "samuel-alpha") -> Evaluator:
        ev = samuel_terms.polynomial(self.alpha.coefficients(), name=name, padv=padv_weight(self.alpha.rules))
        return Evaluator(ev.name, ev.spec, self.meta())

    def meta(self) -> dict[str, Any]:
        return {
            "learner": "samuel-1959-generalization",
            "games": self.games,
            "config": self.config.to_dict(),
            "correlations": self.alpha.correlations(),
            "uses": {t.name: t.uses for t in self.alpha.active},
            "terms": self.alpha.coefficients(),
        }

