"""Learning by generalization on the emulated 704 (issue 35): Alpha's and Beta's searches and Alpha's
learning run by checkers.sap, on one machine, as Samuel's one program played both sides.

``Machine704`` is the hook ``SelfPlay`` takes (``SelfPlay.machine``).  Its ``polynomial`` wraps
Alpha's ``PolynomialState`` so that the state's operations are the program's entries
(``Learner704``): the decision to correct with its correction (EYDEC, which calls EYCORR), the
nonzero count (EYNZC), the low-term tally with replacement (EYTALY) and the coefficients (EYCOEF).
Its ``referee`` is the program's (EYREF): black marks, the penalty that zeroes the leading term, and
Beta's adoption of Alpha's terms and coefficients into Beta's tables.  Its ``searcher`` gives each
player a ``Searcher704`` on the same machine; before every search the program writes SEVAL's data
words from that player's table itself (EYPOL), checked against the host's words for the same
polynomial.  The host keeps a copy of the state between calls (it saves the run): before every call
the state is written into the program's tables and after it read back, so the host's copy is always
the 704's (a correlation in units of 2**-34).

``seconds_704`` is the 704 time the run would have taken: the searches' machine time plus the
program's learning calls (12 microseconds a cycle).  The host still plays the moves, scores the
retained position (the same evaluation SEVAL makes), runs the rudimentary initial search and looks
whether the piece ratio changed along the line; those are not counted.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine import samuel_terms
from engine.board import Board
from engine.evaluators import Evaluator
from engine.learners.generalize_state import (
    Correction,
    Decision,
    Discard,
    PolynomialState,
    Referee,
    TermRecord,
)
from engine.limits import Limit
from engine.program704 import (
    CORRELATION_ONE,
    CYCLE_SECONDS,
    LEARN_ACTIVE,
    Learner704,
    Program704,
    Program704Error,
    Run704,
    polynomial_words,
)
from engine.search import SearchInfo, SearchResult

NUMBER = {n: i for i, n in enumerate(samuel_terms.TERM_NAMES)}


@dataclass
class PolynomialState704(PolynomialState):
    """A ``PolynomialState`` whose learning operations the 704 program does."""

    learner: Learner704 | None = field(default=None, compare=False, repr=False)
    cycles: int = field(default=0, compare=False)
    """704 cycles of the learner's calls so far."""
    calls: int = field(default=0, compare=False)
    zeroed_by_704: str | None = field(default=None, compare=False, repr=False)
    """The term the program's referee zeroed, until ``zero_leading`` reads it back."""
    _coefs: tuple[tuple[tuple[str, float], ...], dict[str, int]] | None = field(
        default=None, compare=False, repr=False)

    @classmethod
    def on(cls, poly: PolynomialState, learner: Learner704) -> PolynomialState704:
        if poly.rules.exponent_rule != "round":
            raise Program704Error("the 704 program computes coefficients by the round rule only "
                                  f"(not {poly.rules.exponent_rule!r})")
        if poly.rules.min_delta_scale != 1 or poly.rules.padv_scale != 1:
            raise Program704Error("the 704 program's minimum delta is the average coefficient and its sure "
                                  "outcome three men: --min-delta-scale and --padv-scale stay 1 with it")
        out = cls(active=[TermRecord(t.name, t.correlation, t.uses, t.tally, t.nonzero) for t in poly.active],
                  reserve=list(poly.reserve), moves=poly.moves,
                  moves_since_new_term=poly.moves_since_new_term, corrections=poly.corrections,
                  discards=list(poly.discards), rules=poly.rules, learner=learner)
        out._write()
        out._read()  # the correlations on the program's grid from the start
        return out

    # ---- the program's tables ----

    def _learner(self) -> Learner704:
        if self.learner is None:
            raise Program704Error("no 704 learner attached")
        return self.learner

    def _write(self) -> None:
        r = self.rules
        self._learner().load(
            [(NUMBER[t.name], t.correlation, t.uses, t.tally, t.nonzero) for t in self.active],
            [NUMBER[n] for n in self.reserve], tally_limit=r.tally_limit,
            new_term_interval=r.new_term_interval, tally_reset=r.tally_reset == "replacement",
            all_terms=r.positive_delta == "all", by_moves=r.times_used == "moves", moves=self.moves,
            moves_since_new_term=self.moves_since_new_term, corrections=self.corrections)

    def _read(self) -> None:
        learner = self._learner()
        names = samuel_terms.TERM_NAMES
        self.active = [TermRecord(names[g.term], g.correlation / CORRELATION_ONE, g.uses, g.tally, g.nonzero)
                       for g in learner.active()]
        self.reserve = [names[n] for n in learner.reserve()]
        c = learner.counters()
        self.moves, self.moves_since_new_term, self.corrections = (
            c["moves"], c["moves_since_new_term"], c["corrections"])

    def _count(self, run: Run704) -> None:
        self.cycles += run.cycles
        self.calls += 1

    def _values(self, term_values: Mapping[str, int]) -> list[int]:
        return [int(term_values.get(t.name, 0)) for t in self.active]

    # ---- the four operations ----

    def correct(self, delta: float, initial_score: float, term_values: Mapping[str, int],
                weight: int) -> Correction:
        self._write()
        before = [t.uses for t in self.active]
        _, run = self._learner().correct(int(delta), int(initial_score), self._values(term_values), weight)
        self._count(run)
        self._read()
        chosen = tuple(t.name for t, b in zip(self.active, before, strict=True) if t.uses != b)
        return Correction(chosen, weight)

    def decide(self, backed_up: int, retained_score: int, term_values: Mapping[str, int],
               ratio_changed: Callable[[], bool]) -> Decision:
        """EYDEC: the minimum delta from the program's coefficients, the zeroing, delta and, when it
        reaches the minimum, the correction with its weight, all in the program; the host gives the
        backed-up score, the retained position's score and term values and whether the piece ratio
        changed along the line."""
        self._write()
        before = [t.uses for t in self.active]
        d, run = self._learner().decide(backed_up, retained_score, self._values(term_values),
                                        ratio_changed=ratio_changed(),
                                        flat=self.rules.correction_weights == "flat")
        self._count(run)
        self._read()
        minimum = d.coefficient_sum / (LEARN_ACTIVE << samuel_terms.SHIFT)  # exact: powers of two
        if not d.corrected:
            return Decision(d.initial, d.delta, minimum, None)
        chosen = tuple(t.name for t, b in zip(self.active, before, strict=True) if t.uses != b)
        return Decision(d.initial, d.delta, minimum, Correction(chosen, d.weight))

    def score_position(self, leaf: Any, parent: Any, on_host: Callable[[], int]) -> int:
        """The retained position scored by the program (EYPOL with Alpha's table, then EEVAL), checked
        against the host's score of it."""
        learner = self._learner()
        self._write()
        _, words = learner.build_polynomial(False)
        found = learner.program.evaluate(leaf, parent)
        self.cycles += words.cycles + found.cycles
        self.calls += 2
        if found.value != on_host():
            raise Program704Error(f"the 704 program scores the retained position {found.value}, the host "
                                  f"{on_host()}")
        return found.value

    def zero_leading(self) -> str:
        """The black-mark penalty: the program's referee (EYREF) zeroed the leading term's correlation
        in its tables already; the host's copy is read back."""
        if self.zeroed_by_704 is None:
            raise Program704Error("the 704 program's referee gave no penalty to read")
        name, self.zeroed_by_704 = self.zeroed_by_704, None
        self._read()
        return name

    def count_nonzero(self, term_values: Mapping[str, int]) -> None:
        self._write()
        self._count(self._learner().count_nonzero(self._values(term_values)))
        self._read()

    def tally_move(self) -> tuple[str, str] | None:
        self._write()
        uses = {t.name: t.uses for t in self.active}
        swap, run = self._learner().tally_move()
        self._count(run)
        self._read()
        if swap is None:
            return None
        out, incoming = samuel_terms.TERM_NAMES[swap[0]], samuel_terms.TERM_NAMES[swap[1]]
        self.discards.append(Discard(out, uses[out], self.moves))
        return out, incoming

    def coefficients(self) -> dict[str, int]:
        """EYCOEF, run again only when a correlation (or the term list) changed, as the program
        would recompute them after a correction, a replacement or a penalty."""
        key = tuple((t.name, t.correlation) for t in self.active)
        if self._coefs is None or self._coefs[0] != key:
            self._write()
            coefs, run = self._learner().coefficients()
            self._count(run)
            self._coefs = (key, {t.name: c for t, c in zip(self.active, coefs, strict=True)})
        return dict(self._coefs[1])

    @property
    def seconds_704(self) -> float:
        return self.cycles * CYCLE_SECONDS


@dataclass
class Referee704(Referee):
    """The referee whose decisions the 704 program makes (EYREF): black marks, the penalty (the
    program zeroes the leading term's correlation in its tables) and Beta's adoption (the program
    copies Alpha's terms and coefficients into Beta's tables, which ``Machine704.beta`` reads).  The
    counters are the host's between games, written in before the call and read back after it."""

    alpha: PolynomialState704 | None = field(default=None, compare=False, repr=False)

    def record(self, alpha_result: int) -> tuple[bool, bool]:
        poly = self.alpha
        if poly is None or poly.learner is None:
            raise Program704Error("no 704 learner attached to the referee")
        poly._write()  # the tables as Alpha's state stands: the penalty and adoption act on them
        got, run = poly.learner.referee(alpha_result, self.black_marks, self.games_since_adoption,
                                        self.wins_since_adoption, self.adoption)
        poly._count(run)
        self.black_marks = got.black_marks
        self.games_since_adoption = got.games_since_adoption
        self.wins_since_adoption = got.wins_since_adoption
        if got.penalized is not None:
            poly.zeroed_by_704 = samuel_terms.TERM_NAMES[got.penalized]
        return got.adopted, got.penalized is not None


class _Counted:
    """A ``Searcher704`` on the learner's own machine, playing Alpha's or Beta's polynomial, whose
    data words the program writes from its coefficient tables before each search (YPOL), and adding
    up its searches' 704 time."""

    def __init__(self, machine: Machine704, evaluator: Evaluator, beta: bool) -> None:
        from engine.backend704 import Searcher704

        self.machine = machine
        self.beta = beta
        self.evaluator = evaluator
        self.inner = Searcher704(program=machine.learner.program)

    def set_evaluator(self, evaluator: Evaluator) -> None:
        self.evaluator = evaluator

    def new_game(self) -> None:
        self.inner.new_game()

    def search(self, board: Board, limit: Limit, **kwargs: Any) -> SearchResult:
        self.machine.write_words(self.evaluator, beta=self.beta)
        written = self.machine.learner.program.polynomial
        if written is None:
            raise Program704Error("the 704 program wrote no polynomial")
        self.inner.play_written(self.evaluator, written)
        found = self.inner.search(board, limit, **kwargs)
        info: SearchInfo = found.info
        self.machine.search_seconds += info.machine_time
        self.machine.searches += 1
        return found


class Machine704:
    """The hook that puts a ``SelfPlay`` run on the 704: searches and Alpha's bookkeeping."""

    def __init__(self, deck: str | None = None) -> None:
        self.deck = deck
        self.learner = Learner704(Program704(deck))
        """The one machine: Alpha's bookkeeping, and both players' searches by turns."""
        self.search_seconds = 0.0
        self.searches = 0
        self.learner_words_cycles = 0
        """Cycles of the program writing its data words (YPOL) before the searches."""
        self._polys: list[PolynomialState704] = []

    def searcher(self, evaluator: Evaluator, hash_mb: int = 0, *, beta: bool = False) -> _Counted:
        """Alpha's searcher (``beta`` False) or Beta's, both on the learner's machine."""
        return _Counted(self, evaluator, beta)

    def load_beta(self, beta: Mapping[str, int], padv: int) -> None:
        """Beta's starting polynomial, and PADV's fixed weight, into the program's tables."""
        self.learner.load_beta([(NUMBER[n], int(c)) for n, c in beta.items()], padv)

    def write_words(self, evaluator: Evaluator, *, beta: bool) -> None:
        """Have the program write SEVAL's data words from Beta's tables or Alpha's (its state written
        in first), and check them against the host's words for ``evaluator``: the same parameters
        and entries, or Program704Error."""
        if not beta and self._polys:
            self._polys[-1]._write()
        poly, run = self.learner.build_polynomial(beta)
        self.learner_words_cycles += run.cycles
        want = polynomial_words(evaluator.spec.weights)
        if (poly.need, sorted(poly.entries), poly.bonus, poly.connectives, poly.want) != \
                (want.need, sorted(want.entries), want.bonus, want.connectives, want.want):
            raise Program704Error(f"the 704 program's data words for {'Beta' if beta else 'Alpha'} differ "
                                  f"from the host's polynomial {evaluator.name}")
        self.learner.program.polynomial = poly

    def polynomial(self, poly: PolynomialState) -> PolynomialState704:
        if isinstance(poly, PolynomialState704) and poly.learner is self.learner:
            return poly
        out = PolynomialState704.on(poly, self.learner)
        self._polys.append(out)
        return out

    def referee(self, referee: Referee, alpha: PolynomialState704) -> Referee704:
        """``referee``'s counters and rule with the decisions made by the program."""
        return Referee704(referee.black_marks, referee.games_since_adoption, referee.wins_since_adoption,
                          referee.adoption, alpha=alpha)

    def beta(self) -> dict[str, int]:
        """Beta's polynomial as the program's referee last gave it Alpha's."""
        return {samuel_terms.TERM_NAMES[t]: c for t, c in self.learner.beta()}

    @property
    def learner_cycles(self) -> int:
        return sum(p.cycles for p in self._polys) + self.learner_words_cycles

    @property
    def learner_calls(self) -> int:
        return sum(p.calls for p in self._polys)

    @property
    def seconds_704(self) -> float:
        return self.search_seconds + self.learner_cycles * CYCLE_SECONDS
