"""Samuel's learning by generalization: the bookkeeping, as pure logic over term vectors.

Everything here follows A. L. Samuel, "Some Studies in Machine Learning Using
the Game of Checkers" (IBM J. R&D 3(3), 1959), section "Learning procedure
involving generalizations" and Appendix C; each rule quotes the passage it
implements.  Nothing here searches or touches a board: ``generalize.py`` feeds
it term vectors and scores, so every rule can be checked on synthetic numbers.

Conventions.  A correlation ``C`` is stored *signed, against the raw term*: it
moves toward +1 when the term's value and delta have the same sign.  Samuel
kept the magnitude and a separate sign for the term ("Whenever a
correlation-coefficient calculation leads to a negative sign, a corresponding
reversal is made in the sign associated with the term itself"); the two forms
are the same numbers, and ``TermRecord.sign``/``abs`` give his columns back.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

MAX_EXPONENT = 18
"""Coefficients "can vary between -2^18 and +2^18" (Appendix C)."""
ACTIVE_TERMS = 16
""""16 of these being included in the scoring polynomial at any one time" ..."""
RESERVE_TERMS = 22
"""... "and the remaining 22 being kept in reserve"."""
FIRST_N = 16
"""New terms count "as if these terms had already been used several times ... (usually set at 16)"."""
LAST_N = 256
""""a value for N larger than 256 is never used"."""
TALLY_LIMIT = 8
"""The low-term tally limit, "usually set at 8"."""
NEW_TERM_INTERVAL = 32
"""Second series: "decreasing the rate of introduction of new terms from one every eight moves to one
every 32 moves"."""
BLACK_MARK_LIMIT = 3
""""an arbitrary number of black marks (usually set at three)"."""
MIN_ADOPTION_WINS = 2
"""Our reading of "a majority of wins": at least this many wins, and more than half the games,
since Beta last adopted (a single chance win never suffices)."""
INITIAL_CORRELATION = 1.0 / FIRST_N
"""The starting terms' correlation: all equal, so all get the same coefficient ("all terms were
assigned equal weights"), positive, the size of one first correction."""

EXPONENT_RULES = ("round", "ratio")
TALLY_RESETS = ("never", "replacement")
ADOPTIONS = ("majority", "win", "never")
TIMES_USED = ("corrections", "moves")
CORRECTION_WEIGHTS = ("samuel", "flat")


@dataclass(frozen=True)
class LearningRules:
    """The readings of Samuel's rules that are ours, each switchable (issue 15).

    The defaults are the readings docs/learners/generalization.md defends; every other value is an
    alternative reading that really changes the learner, so it can be measured against them.
    """

    tally_limit: int = TALLY_LIMIT
    """A term becomes due for replacement when its low-term tally reaches this."""
    new_term_interval: int = NEW_TERM_INTERVAL
    """A new term enters at most once per this many Alpha moves; 0: no separate clock, a term is
    replaced as soon as its tally reaches the limit (so ``tally_limit`` 32 is the other reading of
    "one every 32 moves")."""
    tally_reset: str = "never"
    """``never``: a tally keeps counting until its term is replaced; ``replacement``: every active
    term's tally goes back to zero when any term is replaced."""
    exponent_rule: str = "round"
    """``round``: power = round(18 |C| / C_max) (reproduces Appendix C); ``ratio``: the text read
    literally, a coefficient ratio of 2^n to the leader when C_max / |C| is in [n, n+1)."""
    min_delta_scale: float = 1.0
    """The minimum delta is this times the average coefficient (Samuel reduced it "by a small
    amount" in the second series, giving no figure)."""
    padv_scale: float = 1.0
    """PADV's fixed coefficient is this times ``samuel_terms.PADV_WEIGHT`` (a man = 100 centi-men
    at 1): the scale of piece advantage against the 2^18 of the leading term, which Samuel does
    not give."""
    positive_delta: str = "selected"
    """``selected``: the second series' rule for delta > 0; ``all``: the first series', every
    contributing term is corrected whatever the sign of delta."""
    span: str = "grow"
    """``grow``: the second series' span, kept until |delta| exceeds the minimum; ``one``: the first
    series', delta always against the previous Alpha move."""
    initial_eval: str = "search"
    """``search``: the second series' rudimentary search through jumps; ``direct``: the first
    series', the position evaluated as it stands."""
    times_used: str = "corrections"
    """The count whose power of two is N in C_N = C_{N-1} - (C_{N-1} ± 1)/N.  ``corrections``: the
    times the term's correlation was corrected ("times adjusted"); ``moves``: the Alpha moves at
    which the term was in the polynomial with a nonzero value ("the number of times that each
    particular term has been used and has had a nonzero value"; "at any stage of play defined as
    the Nth move"), which grows much faster, so corrections shrink sooner."""
    correction_weights: str = "samuel"
    """``samuel``: corrections doubled on a change in the piece ratio and quadrupled for an almost
    sure win or loss (as we read those); ``flat``: every correction counts once."""

    def __post_init__(self) -> None:
        if self.tally_limit < 1 or self.new_term_interval < 0:
            raise ValueError("the tally limit must be at least 1 and the new-term interval at least 0")
        if self.tally_reset not in TALLY_RESETS:
            raise ValueError(f"unknown tally reset {self.tally_reset!r}; choose {', '.join(TALLY_RESETS)}")
        if self.exponent_rule not in EXPONENT_RULES:
            raise ValueError(f"unknown exponent rule {self.exponent_rule!r}; "
                             f"choose {', '.join(EXPONENT_RULES)}")
        if not self.min_delta_scale >= 0.0:
            raise ValueError("the minimum-delta scale must be at least 0")
        if not self.padv_scale > 0.0:
            raise ValueError("the piece-advantage scale must be positive")
        for name, value, allowed in (("positive-delta rule", self.positive_delta, ("selected", "all")),
                                     ("span rule", self.span, ("grow", "one")),
                                     ("initial evaluation", self.initial_eval, ("search", "direct")),
                                     ("correction weighting", self.correction_weights, CORRECTION_WEIGHTS),
                                     ("times-used count", self.times_used, TIMES_USED)):
            if value not in allowed:
                raise ValueError(f"unknown {name} {value!r}; choose {' or '.join(allowed)}")


# ---------------------------------------------------------------------------
# Correlation coefficients.


def times_used_n(uses: int) -> int:
    """The N of Samuel's update for a term used ``uses`` times (this use included).

    "corrections to the values of the correlation coefficients C_N are made using 16 for N until N
    equals 32, whereupon 32 is used until N equals 64, et cetera ... and a value for N larger than
    256 is never used."  A new term is thereby treated "as if [it] had already been used several
    times" (16) "until the usage does, in fact, equal this number".
    """
    n = FIRST_N
    while n < LAST_N and uses >= 2 * n:
        n *= 2
    return n


def correlation_step(c: float, agree: bool, uses: int, weight: int = 1) -> float:
    """One update: C_N = C_{N-1} - weight * (C_{N-1} ± 1) / N.

    ``agree``: the term's contribution had the sign of delta (the minus sign of ±, C moves toward +1).
    ``weight`` is 1, or 2 and 4 for the doubled and quadrupled corrections.
    """
    target = 1.0 if agree else -1.0
    return c - weight * (c - target) / times_used_n(uses)


def correction_weight(piece_ratio_changed: bool, sure_outcome: bool) -> int:
    """How much a correction counts.

    "If a contribution to delta is made by the first term, meaning that a change has occurred in the
    piece ratio, the indicated changes in the correlation coefficients are doubled, while if the value
    of delta is so large as to indicate that an almost sure win or lose will result, the effect on the
    correlation coefficients is quadrupled."  The two are categories, not factors: 4 beats 2.
    """
    if sure_outcome:
        return 4
    return 2 if piece_ratio_changed else 1


# ---------------------------------------------------------------------------
# Coefficients.


def exponent(c: float, c_max: float) -> int:
    """The power of two for a term with correlation ``c`` when the largest magnitude is ``c_max``.

    The text says: "if the ratio of two correlation coefficients is equal to or larger than n but
    less than n+1 ... the ratio of the two term coefficients is set equal to 2^n".  Read literally
    that does not give Appendix C's table (KCENT 0.40 against MOC 2 0.45 would be 2^17, the table has
    2^16); round(18 * |c| / c_max) gives all twelve published rows, so that is what is used.
    """
    if c_max <= 0.0 or c == 0.0:
        return 0
    return math.floor(MAX_EXPONENT * abs(c) / c_max + 0.5)


def ratio_exponent(c: float, c_max: float) -> int:
    """The power of two by the text read literally, against the leading term.

    "if the ratio of two correlation coefficients is equal to or larger than n but less than n+1,
    where n is an integer, then the ratio of the two term coefficients is set equal to 2^n": with
    r = c_max / |c| in [n, n+1), the coefficient is 2^(18 - n).  The leader (and any term tied with
    it) has the "prescribed maximum", 2^18; the power never goes below 0.
    """
    if c_max <= 0.0 or c == 0.0:
        return 0
    if abs(c) >= c_max:
        return MAX_EXPONENT
    return max(0, MAX_EXPONENT - math.floor(c_max / abs(c)))


def coefficient(c: float, c_max: float, rule: str = "round") -> int:
    """Signed power of two from a correlation; 0 for a term with no correlation yet.

    "The coefficient for the polynomial term ... with the then largest correlation coefficient is set
    at a prescribed maximum value with proportionate values determined for all of the remaining
    coefficients.  Actually, the term coefficients are fixed at integral powers of 2"; the sign
    follows the correlation (sign reversal).
    """
    if c == 0.0 or c_max <= 0.0:
        return 0
    power = 1 << (ratio_exponent(c, c_max) if rule == "ratio" else exponent(c, c_max))
    return power if c > 0 else -power


def coefficients_from(correlations: Mapping[str, float], rule: str = "round") -> dict[str, int]:
    """The polynomial's coefficients from its terms' correlations (``rule``: see ``LearningRules``)."""
    c_max = max((abs(c) for c in correlations.values()), default=0.0)
    return {name: coefficient(c, c_max, rule) for name, c in correlations.items()}


def minimum_delta(coefficients: Iterable[int]) -> float:
    """The minimum |delta| below which nothing changes, in coefficient units.

    "This minimum is recomputed each time and, normally, has been fixed at the average value of the
    coefficients for the terms in the currently existing evaluation polynomial."  (Magnitudes; every
    active term counts, a zero coefficient too.)
    """
    values = [abs(c) for c in coefficients]
    return sum(values) / len(values) if values else 0.0


def zeroed(score: float, minimum: float) -> float:
    """"This same minimum value is used to set limits for the initial board evaluation score to decide
    whether or not it will be assumed to be zero.\""""
    return 0.0 if abs(score) < minimum else score


def sign(x: float) -> int:
    return (x > 0) - (x < 0)


def terms_to_correct(delta: float, initial_score: float, contributions: Mapping[str, int],
                     positive_delta: str = "selected") -> list[str]:
    """Which terms' correlations a correction changes (the second series' rule).

    ``contributions`` are the signs of each term's contribution in the retained polynomial of the
    earlier position (0: the term was zero there).  ``initial_score`` is that position's score after
    ``zeroed``.

    "The procedure finally adopted for the positive delta case was to make corrections to selected
    terms in the polynomial only.  When the scoring polynomial was positive, changes were made to
    coefficients associated with the negatively contributing terms, and when the polynomial was
    negative, changes were made to the coefficients associated with positively contributing terms.
    No changes were made to coefficients associated with terms which happened to be zero.  For the
    negative delta case, changes were made to the coefficients of all contributing terms, just as
    before."  A positive delta on a polynomial assumed to be zero fits neither case: nothing changes.
    ``positive_delta="all"`` is the first series' rule: every contributing term, whatever delta.
    """
    nonzero = [n for n, s in contributions.items() if s != 0]
    if delta < 0 or positive_delta == "all":
        return nonzero
    if initial_score > 0:
        return [n for n in nonzero if contributions[n] < 0]
    if initial_score < 0:
        return [n for n in nonzero if contributions[n] > 0]
    return []


# ---------------------------------------------------------------------------
# The state of Alpha's polynomial.


@dataclass
class TermRecord:
    """One active term: its correlation, usage and low-term tally."""

    name: str
    correlation: float = 0.0
    """Signed against the raw term (see the module docstring)."""
    uses: int = 0
    """Times the term has been used with a nonzero value (Samuel's "times adjusted")."""
    tally: int = 0
    """Low-term tally."""
    nonzero: int = 0
    """Alpha moves at which the term was active and nonzero (the ``times_used="moves"`` count)."""

    @property
    def sign(self) -> str:
        return "-" if self.correlation < 0 else "+"


@dataclass(frozen=True)
class Discard:
    """A term sent back to the reserve ("the program reports on the usage which has accrued against
    each discarded term")."""

    name: str
    uses: int
    move: int
    """Alpha's move count when it was dropped."""


@dataclass(frozen=True)
class Correction:
    """What one correction did (for reports and tests)."""

    terms: tuple[str, ...]
    weight: int


@dataclass(frozen=True)
class Decision:
    """What Alpha made of one move with a retained position: the retained score after zeroing, delta,
    the minimum delta (centi-men) and the correction, if delta reached the minimum."""

    initial: int
    delta: int
    minimum: float
    correction: Correction | None


SURE_MEN = 3.0
"""A delta of this many men (two kings at 3 : 2) counts as "an almost sure win or lose" (the search's
own cut-off for "ahead by more than two kings"); so does a backed-up win or loss."""
WIN_BOUND = 29000
"""Backed-up scores beyond this are wins or losses (``engine.core.WIN_BOUND``)."""
SCORE_SHIFT = 13
"""A coefficient unit is 2**-13 of a hundredth of a man (``engine.samuel_terms.SHIFT``)."""


@dataclass
class PolynomialState:
    """Alpha's scoring polynomial: its 16 active terms with their records and the reserve list."""

    active: list[TermRecord]
    reserve: list[str]
    moves: int = 0
    """Alpha moves learned from, over all games."""
    moves_since_new_term: int = 0
    corrections: int = 0
    """Sets of adjustments made ("a total of 1039 different sets of adjustments")."""
    discards: list[Discard] = field(default_factory=list)
    rules: LearningRules = field(default_factory=LearningRules, compare=False)
    """How it learns; not saved with the polynomial (a run's config keeps it)."""

    @classmethod
    def start(cls, order: Sequence[str], active: int = ACTIVE_TERMS) -> PolynomialState:
        """The first ``active`` names go in with equal weights, the rest wait in order in the reserve."""
        if len(set(order)) != len(order):
            raise ValueError("a term is listed twice")
        if len(order) < active:
            raise ValueError(f"{len(order)} terms for {active} active places")
        return cls(
            active=[TermRecord(n, INITIAL_CORRELATION) for n in order[:active]],
            reserve=list(order[active:]),
        )

    # ---- reading ----

    def record(self, name: str) -> TermRecord:
        for t in self.active:
            if t.name == name:
                return t
        raise KeyError(name)

    @property
    def names(self) -> list[str]:
        return [t.name for t in self.active]

    def correlations(self) -> dict[str, float]:
        return {t.name: t.correlation for t in self.active}

    def coefficients(self) -> dict[str, int]:
        """Current coefficients of the active terms (PADV is not among them: it is fixed)."""
        return coefficients_from(self.correlations(), self.rules.exponent_rule)

    def minimum_delta(self) -> float:
        return self.rules.min_delta_scale * minimum_delta(self.coefficients().values())

    def leading(self) -> TermRecord:
        """The term with the largest correlation magnitude (the first one on a tie)."""
        return max(self.active, key=lambda t: abs(t.correlation))

    # ---- learning ----

    def correct(self, delta: float, initial_score: float, term_values: Mapping[str, int],
                weight: int) -> Correction:
        """Apply one correction: the correlations of the selected terms move toward ±1.

        ``term_values``: the raw values, in the retained polynomial of the earlier position, of the
        active terms.  A term's contribution sign is its value's sign times its coefficient's sign
        (a term with no correlation yet counts with +, so it can start learning).
        """
        contributions = {
            t.name: sign(term_values.get(t.name, 0)) * (-1 if t.correlation < 0 else 1) for t in self.active
        }
        chosen = terms_to_correct(delta, initial_score, contributions, self.rules.positive_delta)
        d = sign(delta)
        by_moves = self.rules.times_used == "moves"
        for name in chosen:
            t = self.record(name)
            t.uses += 1
            count = t.nonzero if by_moves else t.uses
            t.correlation = correlation_step(t.correlation, sign(term_values[name]) == d, count, weight)
        if chosen:
            self.corrections += 1
        return Correction(tuple(chosen), weight)

    def count_nonzero(self, term_values: Mapping[str, int]) -> None:
        """One Alpha move: count the active terms that are nonzero in the position it moves from."""
        for t in self.active:
            if term_values.get(t.name, 0):
                t.nonzero += 1

    def low_term(self) -> TermRecord:
        """The active term with the lowest correlation magnitude (fewest uses, then oldest, on ties)."""
        return min(enumerate(self.active), key=lambda it: (abs(it[1].correlation), it[1].uses, it[0]))[1]

    def tally_move(self) -> tuple[str, str] | None:
        """After each Alpha move: charge the low term; maybe replace a term.  Returns (out, in).

        "After each move a low-term tally is recorded against that active term which has the lowest
        correlation coefficient and, at the same time, a test is made to see if this brings its tally
        count up to some arbitrary limit, usually set at 8.  When this limit is reached for any specific
        term, this term is transferred to the bottom of the reserve list, and it is replaced by a term
        from the head of the reserve list.  This new term enters the polynomial with zero values for
        its correlation coefficient, times used, and low-tally count."  The second series introduces
        a new term only once every 32 moves: a term at the limit waits for that, and the one to go
        is the lowest-correlation term among those at the limit.  (``rules`` sets the limit, the
        interval, 0 for none, and whether all tallies restart after a replacement.)
        """
        rules = self.rules
        self.moves += 1
        self.moves_since_new_term += 1
        self.low_term().tally += 1
        if self.moves_since_new_term < rules.new_term_interval or not self.reserve:
            return None
        due = [(i, t) for i, t in enumerate(self.active) if t.tally >= rules.tally_limit]
        if not due:
            return None
        index, out = min(due, key=lambda it: (abs(it[1].correlation), -it[1].tally, it[1].uses, it[0]))
        incoming = self.reserve.pop(0)
        self.reserve.append(out.name)
        del self.active[index]
        self.active.append(TermRecord(incoming))
        self.discards.append(Discard(out.name, out.uses, self.moves))
        self.moves_since_new_term = 0
        if rules.tally_reset == "replacement":
            for t in self.active:
                t.tally = 0
        return out.name, incoming

    def score_position(self, leaf: Any, parent: Any, on_host: Callable[[], int]) -> int:
        """A position's score under the current coefficients (the side to move's): ``on_host`` works
        it out here; a state whose polynomial lives elsewhere (the 704's) scores it there."""
        return on_host()

    def decide(self, backed_up: int, retained_score: int, term_values: Mapping[str, int],
               ratio_changed: Callable[[], bool]) -> Decision:
        """At an Alpha move with a retained position: zero the retained score below the minimum delta,
        take delta, and when it is not 0 and reaches the minimum, correct.

        "This minimum is recomputed each time ... This same minimum value is used to set limits for
        the initial board evaluation score to decide whether or not it will be assumed to be zero."
        The weight: 4 for an almost sure outcome (a backed-up win or loss, or a delta of SURE_MEN),
        2 when ``ratio_changed()`` (the piece ratio changed along the line), else 1.
        """
        minimum = self.minimum_delta() / (1 << SCORE_SHIFT)
        initial = round(zeroed(retained_score, minimum))
        delta = backed_up - initial
        if delta == 0 or abs(delta) < minimum:
            return Decision(initial, delta, minimum, None)
        sure = abs(backed_up) > WIN_BOUND or abs(delta) >= 100 * SURE_MEN * self.rules.padv_scale
        flat = self.rules.correction_weights == "flat"
        weight = 1 if flat else correction_weight(ratio_changed(), sure)
        return Decision(initial, delta, minimum, self.correct(delta, initial, term_values, weight))

    def zero_leading(self) -> str:
        """The black-mark penalty: "reducing the coefficient of the leading term to zero".

        Coefficients follow the correlations, so the leading term's correlation is set to zero
        (otherwise the next recomputation would restore its coefficient).
        """
        lead = self.leading()
        lead.correlation = 0.0
        return lead.name

    # ---- saving ----

    def to_dict(self) -> dict[str, Any]:
        return {
            "active": [{"name": t.name, "correlation": t.correlation, "uses": t.uses, "tally": t.tally,
                        "nonzero": t.nonzero} for t in self.active],
            "reserve": list(self.reserve),
            "moves": self.moves,
            "moves_since_new_term": self.moves_since_new_term,
            "corrections": self.corrections,
            "discards": [{"name": d.name, "uses": d.uses, "move": d.move} for d in self.discards],
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> PolynomialState:
        return cls(
            active=[TermRecord(str(t["name"]), float(t["correlation"]), int(t["uses"]), int(t["tally"]),
                               int(t.get("nonzero", 0)))
                    for t in d["active"]],
            reserve=[str(n) for n in d["reserve"]],
            moves=int(d["moves"]),
            moves_since_new_term=int(d["moves_since_new_term"]),
            corrections=int(d["corrections"]),
            discards=[Discard(str(x["name"]), int(x["uses"]), int(x["move"])) for x in d["discards"]],
        )


# ---------------------------------------------------------------------------
# Between games: black marks and Beta's adoption of Alpha's polynomial.


@dataclass
class Referee:
    """The "neutral portion of the program" that compares Alpha and Beta after each game.

    "If Alpha wins—or is adjudged to be ahead when a game is otherwise terminated—the then current
    scoring system used by Alpha is given to Beta.  If, on the other hand, Beta wins or is ahead, this
    fact is recorded as a black mark for Alpha.  Whenever Alpha receives an arbitrary number of black
    marks (usually set at three) it is assumed to be on the wrong track, and a fairly drastic and
    arbitrary change is made in its scoring polynomial (by reducing the coefficient of the leading
    term to zero)."  Second series: "to require a majority of wins on Alpha's part before Beta would
    adopt Alpha's scoring polynomial".
    """

    black_marks: int = 0
    games_since_adoption: int = 0
    wins_since_adoption: int = 0
    adoption: str = field(default="majority", compare=False)
    """``majority``: the second series' rule; ``win``: the first series', Beta adopts after any
    game Alpha wins; ``never``: Beta keeps the starting polynomial (what "a programming error
    immobilized the adoption procedure during part of the tests" did).  Not saved: the run's config
    keeps it."""

    def record(self, alpha_result: int) -> tuple[bool, bool]:
        """Record a game (+1 Alpha won or was ahead, 0 even, -1 Beta).  Returns (adopt, penalize).

        ``adopt``: Beta takes Alpha's polynomial now; ``penalize``: zero Alpha's leading term now.
        Black marks start again from zero after a penalty.
        """
        self.games_since_adoption += 1
        penalize = False
        if alpha_result > 0:
            self.wins_since_adoption += 1
        elif alpha_result < 0:
            self.black_marks += 1
            if self.black_marks >= BLACK_MARK_LIMIT:
                self.black_marks = 0
                penalize = True
        if self.adoption == "majority":
            adopt = (self.wins_since_adoption >= MIN_ADOPTION_WINS
                     and 2 * self.wins_since_adoption > self.games_since_adoption)
        else:
            adopt = self.adoption == "win" and alpha_result > 0
        if adopt:
            self.games_since_adoption = 0
            self.wins_since_adoption = 0
        return adopt, penalize

    def to_dict(self) -> dict[str, int]:
        return {"black_marks": self.black_marks, "games_since_adoption": self.games_since_adoption,
                "wins_since_adoption": self.wins_since_adoption}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Referee:
        return cls(int(d["black_marks"]), int(d["games_since_adoption"]), int(d["wins_since_adoption"]))
