"""Samuel's 1959 evaluation terms (Appendix C) and his scoring polynomial.

The parameters are computed in C (``csrc/samuel_terms.c``); this module names
them, wraps the single and batch entry points and builds ``EVAL_SAMUEL``
evaluators.  ``docs/learners/terms.md`` has the definitions, the decisions on
the ambiguous ones and the conventions; in short:

* ``params(pos)``: the 26 parameters, "active" = side to move, "passive" = the
  other side, each as Samuel defines it (``DIAV`` is in halves).
* ``terms(pos, parent)``: ``PADV`` (kings 3 : men 2, side to move minus the
  other), then for each parameter ``param(parent) - param(pos)``: Samuel's
  difference ``param(pos) - param(parent)`` credited to the side that just
  moved, negated so that every term is for the side to move.  The 12
  connectives are minus Samuel's 0/1 values (0 or -1), with A = (Samuel's
  simple term < 0).  Without a parent, the same board with the other side to
  move stands in for it.
* An evaluator's score is ``(sum_i w_i * term_i) >> SHIFT`` centi-men, plus
  Samuel's trade-down bonus when the PADV weight is non-zero.
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping, Sequence

from engine import core
from engine.board import Board
from engine.errors import OptionError
from engine.named_evaluator import Evaluator

PARAM_NAMES: tuple[str, ...] = tuple(core.samuel_param_names())
"""The 26 simple parameters, in C order (ADV ... THRET)."""

CONNECTIVE_NAMES: tuple[str, ...] = tuple(core.samuel_term_names()[1 + len(PARAM_NAMES):])
"""DEMO, DEMMO, DDEMO, DDMM, MODE1..4, MOC1, MOC3, MOC2, MOC4 (A.B, A.~B, ~A.B, ~A.~B per pair)."""

TERM_NAMES: tuple[str, ...] = tuple(core.samuel_term_names())
"""The 39 terms: PADV, the 26 simple terms, the 12 connectives."""

NTERMS: int = len(TERM_NAMES)
SHIFT: int = core.SAMUEL_SHIFT
"""An evaluator's score is the weighted term sum shifted right by this many bits."""
PADV_WEIGHT: int = core.SAMUEL_PADV_WEIGHT
"""The PADV coefficient that makes a man (2 units) worth 100 centi-men."""

SAMUEL_1959_COEFFICIENTS: dict[str, int] = {
    "MOC2": -(2**18),
    "KCENT": 2**16,
    "MOC4": -(2**14),
    "MODE3": -(2**13),
    "DEMMO": -(2**11),
    "MOVE": 2**8,
    "ADV": -(2**8),
    "MODE2": -(2**8),
    "BACK": -(2**6),
    "CNTR": 2**5,
    "THRET": 2**5,
    "MOC3": 2**4,
}
"""Appendix C's polynomial after 42 games (its first 12 terms), Samuel's signs and powers of two."""

Position = core.RawPosition | Board


def _split(
    pos: Position, parent: core.RawPosition | None
) -> tuple[core.RawPosition, core.RawPosition | None]:
    if isinstance(pos, Board):
        return pos.raw, parent if parent is not None else pos.previous_raw
    return pos, parent


def params(pos: Position) -> list[int]:
    """The 26 parameters of a position (active = side to move), in ``PARAM_NAMES`` order."""
    return core.samuel_params(pos.raw if isinstance(pos, Board) else pos)


def terms(pos: Position, parent: core.RawPosition | None = None) -> list[int]:
    """The 39 terms for the side to move, in ``TERM_NAMES`` order.

    ``parent`` is the position before the last move; for a Board it defaults to
    ``board.previous_raw``.  None: the same board with the other side to move.
    """
    raw, par = _split(pos, parent)
    return core.samuel_terms(raw, par)


def terms_batch_flat(
    positions: Sequence[Position], parents: Sequence[core.RawPosition | None] | None = None
) -> array[int]:
    """The terms of many positions in one C call, as a flat ``array('i')`` of ``len * NTERMS``.

    Row ``i`` is ``out[i * NTERMS:(i + 1) * NTERMS]``; with numpy,
    ``numpy.frombuffer(out, dtype=numpy.int32).reshape(-1, NTERMS)`` views it
    without a copy.  A Board brings its own parent unless ``parents`` is given.
    """
    raws: list[core.RawPosition] = []
    pars: list[core.RawPosition | None] = []
    for i, p in enumerate(positions):
        raw, par = _split(p, parents[i] if parents is not None else None)
        raws.append(raw)
        pars.append(par)
    out: array[int] = array("i")
    out.frombytes(core.samuel_terms_batch(raws, pars))
    return out


def terms_batch(
    positions: Sequence[Position], parents: Sequence[core.RawPosition | None] | None = None
) -> list[list[int]]:
    """``terms`` of many positions (one C call); see ``terms_batch_flat`` for the compact form."""
    flat = terms_batch_flat(positions, parents)
    return [flat[i : i + NTERMS].tolist() for i in range(0, len(flat), NTERMS)]


def weights(coefficients: Mapping[str, int], *, padv: int | None = None) -> tuple[int, ...]:
    """The 39 weights of ``ckr_eval`` from coefficients by term name.

    PADV gets ``PADV_WEIGHT`` unless ``coefficients`` or ``padv`` says otherwise.
    """
    unknown = sorted(set(coefficients) - set(TERM_NAMES))
    if unknown:
        raise OptionError(f"unknown Samuel terms {unknown}; known: {', '.join(TERM_NAMES)}")
    w = [int(coefficients.get(name, 0)) for name in TERM_NAMES]
    if "PADV" not in coefficients:
        w[0] = PADV_WEIGHT if padv is None else int(padv)
    for name, value in zip(TERM_NAMES, w, strict=True):
        if not -(2**31) <= value < 2**31:
            raise OptionError(f"coefficient of {name} out of int32 range: {value}")
    return tuple(w)


def polynomial(
    coefficients: Mapping[str, int], name: str = "samuel", *, padv: int | None = None
) -> Evaluator:
    """An ``EVAL_SAMUEL`` evaluator: sum of coefficient * term over the named terms.

    Coefficients are Samuel's (signed powers of two up to 2**18 for his terms);
    terms left out have coefficient 0.  PADV is always in at ``PADV_WEIGHT``
    unless given (as a coefficient or ``padv``).
    """
    spec = core.EvalSpec(core.EVAL_SAMUEL, weights=weights(coefficients, padv=padv))
    return Evaluator(name, spec, {"terms": {k: int(v) for k, v in coefficients.items() if v}})


SAMUEL_1959: Evaluator = polynomial(SAMUEL_1959_COEFFICIENTS, name="samuel-1959")
"""Samuel's published polynomial after 42 games of the second series (Appendix C)."""
