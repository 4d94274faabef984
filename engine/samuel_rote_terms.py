"""Samuel's rote-learning polynomial (1959): four terms, chosen by agreement with book games.

Samuel fixed the scoring polynomial before his rote-learning runs: "a number of
different sets of values were tested by playing through a series of book games
and computing the move correlation coefficients.  These values varied from 0.2
for the poorest polynomial tested, to approximately 0.6 for the one finally
adopted.  The selected polynomial contained four terms ... (1) piece advantage,
(2) denial of occupancy, (3) mobility, and (4) a hybrid term which combined
control of the center and piece advancement."  He did not print the
coefficients.

Here the four terms are Appendix C's, computed in C (``samuel_terms``):

* piece advantage: ``PADV`` at the engine's fixed weight (a man is 100), never fitted,
  with Samuel's trade-down bonus;
* denial of occupancy: ``DENY``;
* mobility: ``MOB``;
* the hybrid: ``CENT`` and ``ADV`` with one shared coefficient.  The ``EVAL_SAMUEL``
  evaluator takes a weight per term, so equal weights on the two is exactly the
  sum ``CENT + ADV`` with one coefficient.

The three coefficients are chosen the way Samuel chose his: among candidate sets
(each coefficient 0 or a signed power of two, his convention), keep the one whose
move agreement with the experts on book games is highest, on the OCA training split
(games whose number is not a multiple of 10).  The score maximized is the agreement
C with ties broken at random, ``(L - H) / (L + H + T)`` (the expected value of
Samuel's C when equal scores are ordered by a coin): with Samuel's rule, which drops
ties, a polynomial that scores nearly every move alike could win on a handful of
decided comparisons.  Two stages:

* ``samuel_rote_fit.fit``: static agreement (each move's position scored by the
  polynomial, the book position as its parent, as ``samuel agree`` without
  ``--depth``), coordinate search over all candidates on the whole training split;
* ``samuel_rote_fit.fit_searched``: agreement with every alternative searched
  (``samuel agree --depth``), as Samuel's program decided "in the usual way" when it followed book
  games; a local search from the static choice on a sample of training games.  Static
  scores cannot see a move that loses a man, and the static choice valued mobility
  above material; the searched one plays (docs/learners/rote.md).

The fitting is in ``samuel_rote_fit``; its result is shipped here as the built-in
evaluator ``samuel-rote`` (``SAMUEL_ROTE``; the figures of its fit are in ``FIT_META``
and docs/learners/rote.md).
"""

from __future__ import annotations

from engine import samuel_terms
from engine.named_evaluator import Evaluator

HYBRID: tuple[str, str] = ("CENT", "ADV")
"""The two terms of the hybrid, one coefficient for both."""
FITTED: tuple[str, ...] = ("DENY", "MOB", "CENT+ADV")
"""The fitted coefficients, in Samuel's order of importance."""
EXPONENTS: tuple[int, ...] = tuple(range(19))
"""Candidate powers of two (Samuel's range: 2**0 .. 2**18)."""

SAMUEL_ROTE_FITTED: tuple[int, int, int] = (2**16, -(2**15), 2**13)
"""(DENY, MOB, CENT+ADV), the set ``samuel_rote_fit.fit_searched`` chose on the OCA training split."""

FIT_META: dict[str, object] = {
    "command": "samuel learn rote fit --pdn OCA_2.0.pdn (restarts 2, depth 2, 100 sample games, seed 0)",
    "source": "OCA_2.0.pdn, training split (game number % 10 != 0)",
    "static_fit": {"games": 20359, "positions": 819527, "sets_tried": 525,
                   "chosen": {"DENY": 2**18, "MOB": 2**17, "CENT+ADV": -(2**14)},
                   "C_random_ties": 0.3123, "C_samuel": 0.3698},
    "searched_fit": {"depth": 2, "games": 100, "positions": 4346, "sets_tried": 93,
                     "L": 21565, "H": 5369, "T": 1176, "C_random_ties": 0.5762, "C_samuel": 0.6013},
    "held_out": {"games": 2262, "positions": 90503,
                 "static": {"L": 321506, "H": 171686, "T": 94310, "C_random_ties": 0.2550,
                            "C_samuel": 0.3038},
                 "depth_2": {"L": 443794, "H": 118012, "T": 25696, "C_random_ties": 0.5545,
                             "C_samuel": 0.5799}},
}
"""How ``SAMUEL_ROTE_FITTED`` was chosen: the fit's printout (static agreement, see ``fit``)."""

def coefficients(deny: int, mob: int, hybrid: int) -> dict[str, int]:
    """The ``samuel_terms.polynomial`` coefficients of a four-term set (zeros left out)."""
    out = {"DENY": int(deny), "MOB": int(mob), HYBRID[0]: int(hybrid), HYBRID[1]: int(hybrid)}
    return {k: v for k, v in out.items() if v}


def rote_polynomial(deny: int, mob: int, hybrid: int, name: str = "samuel-rote") -> Evaluator:
    """The four-term ``EVAL_SAMUEL`` evaluator: PADV (fixed) + DENY + MOB + hybrid*(CENT + ADV)."""
    ev = samuel_terms.polynomial(coefficients(deny, mob, hybrid), name=name)
    meta = dict(ev.meta)
    meta["rote"] = {"DENY": int(deny), "MOB": int(mob), "CENT+ADV": int(hybrid)}
    if name == "samuel-rote" and (deny, mob, hybrid) == SAMUEL_ROTE_FITTED:
        meta["fit"] = dict(FIT_META)
    return Evaluator(name, ev.spec, meta)


SAMUEL_ROTE: Evaluator = rote_polynomial(*SAMUEL_ROTE_FITTED)
"""Samuel's four-term rote-learning polynomial, coefficients fitted on the OCA training split."""


__all__ = [
    "EXPONENTS",
    "FITTED",
    "FIT_META",
    "HYBRID",
    "SAMUEL_ROTE",
    "SAMUEL_ROTE_FITTED",
    "coefficients",
    "rote_polynomial",
]
