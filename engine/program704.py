"""Samuel's checkers program on the emulated IBM 704: the host side of the 704 backend.

The program is 704 assembly (``emu704/programs/checkers.sap``), written in
Samuel's board representation: four words FA, BA, FP, BP (the active and
passive side's pieces that move toward square 32, and toward square 1), each
square at the bit ``(s-1) + (s-1)//8`` so that every step is a shift by 4 or 5.
This module assembles it once per process (``warm_up`` does it before a clock
starts), loads it into a C-backed 704 and calls its entries through
``emu704.host_call``: one C call a request, the whole walk of the tree inside
the 704 program.

704 time is the program's cycle count at 12 microseconds a cycle, the real
machine's pace.

The program computes all 26 of Samuel's Appendix C parameters (``params``) and
plays either its own fixed polynomial (``EVALUATION``) or one of Samuel's
(``set_polynomial``: an EVAL_SAMUEL weight vector written into its data words,
``polynomial_words``), scoring as the C core's ``ckr_samuel_eval`` does.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from engine.board import Board
from engine.core import RawPosition
from engine.errors import SamuelError
from engine.move import Move
from engine.types import BLACK

if TYPE_CHECKING:
    from emu704.host_call import HostCall
    from emu704.sap import Image
    from emu704.symbols import SymbolTable

CYCLE_SECONDS = 12e-6
"""One 704 machine cycle."""
DEFAULT_BUDGET = 10**10
"""Cycles a request may take before it is stopped (about 33 hours of 704 time)."""
MEMORY_WORDS = 32768
PARAMS = ("ADV", "APEX", "BACK", "CENT", "CNTR", "CORN", "CRAMP", "DENY", "DIA", "DIAV",
          "DYKE", "EXCH", "EXPOS", "FORK", "GAP", "GUARD", "HOLE", "KCENT", "MOB", "MOBIL",
          "MOVE", "NODE", "OREO", "POLE", "RECAP", "THRET")
"""The Appendix C parameters the 704 program computes: all 26 of csrc/samuel_terms.c, in its order
(the program's parameter numbers 0-25)."""
EVAL_WEIGHTS = {"PADV": 32, "ADV": 1, "CENT": 2, "KCENT": 2, "MOB": -1}
"""The 704 program's scoring: these weights times Samuel's terms (engine.samuel_terms with no parent:
each parameter with the sides' roles swapped minus as it is).  A small fixed polynomial of ours, with
piece advantage first, not Samuel's learned one."""
EVALUATION = ("a fixed polynomial of its own, not Samuel's learned one: "
              "32 PADV + ADV + 2 CENT + 2 KCENT - MOB over Samuel's terms, that is piece advantage "
              "(a man 2, a king 3) first, then his advancement, "
              "centre control (by all pieces, and by kings) and the side to move's mobility over the other's")
"""What the 704 program evaluates, in words (help texts, errors and docs say this).  The -MOB term
rewards the side to move's own mobility: Samuel's MOB term counts the other side's moves less its own."""
LOSS_VALUE = -20000
"""The program's value of a position whose side to move has no move, at the root; at ply p it is
LOSS_VALUE + p, so a win or a loss carries its distance."""
SLICE_CYCLES = 1_000_000
"""Cycles between looks at the clock and the stop flag (12 s of 704 time; about 3 ms here)."""
MAX_JUMPS = 12
"""Single jumps in one move at most (a side has 12 pieces to lose)."""
SAMUEL_BREAKS = (4, 5, 11, 20)
"""Samuel's break points (1959): from ply 4 only a jump or an exchange offer carries the look-ahead
on, from ply 5 only a jump, from ply 11 not even a jump when a side is two kings ahead, and at ply 20
it stops whatever is pending.  The last is never below the minimum ply."""
JUMP_CREDIT = 64
"""What a position left with a jump pending is credited to its side to move: a man (32 x PADV 2)."""
PV_MAX = 16
"""Steps of the principal line the program keeps (a multiple jump is a step a jump)."""
SAMUEL_JUMP_CREDIT = 100
"""The credit with one of Samuel's polynomials, whose scores are in hundredths of a man (as the
modern core's ``mode=samuel`` adds at a leaf left with a jump pending)."""
SAMUEL_SHIFT = 13
"""The program's polynomial sum is shifted right this many places (``ARS 13`` in SEVAL): the C
core's CKR_SAMUEL_SHIFT."""
NTERMS = 39
"""PADV, the 26 parameters, the 12 connectives: the program's term numbers 0-38, the C core's."""
CONNECTIVES = range(1 + len(PARAMS), NTERMS)
P_DENY, P_MOB, P_MOBIL, P_CENT = (PARAMS.index(n) for n in ("DENY", "MOB", "MOBIL", "CENT"))
TERM_BOUND = 64
"""No term (PADV, a parameter's difference) is larger than this in magnitude (material 36 a side,
a parameter at most 36): what bounds the program's 35-bit sum."""
MAX_ENTRIES = 720
"""Entries of a polynomial the program has room for (ENTB): a power of two each."""


class Polynomial704(NamedTuple):
    """One of Samuel's polynomials as the 704 program's data words (SEVAL reads them)."""

    need: tuple[int, ...]
    """The parameters to work out, by number (0-25), in the position and in its parent."""
    entries: tuple[int, ...]
    """One word an entry: minus for a negative coefficient, the term number in the decrement, a
    shift k in the address: the entry adds the term times 2**k (or takes it away)."""
    bonus: bool
    """PADV is in it: Samuel's preference for trading when ahead is added."""
    connectives: bool
    want: tuple[bool, bool, bool]
    """DENY (or MOBIL), EXCH (or RECAP), THRET: which the move loop must work out."""


def _powers(value: int) -> list[tuple[int, int]]:
    """``value`` as a sum of signed powers of two, (sign, k) each, fewest terms (the non-adjacent
    form): Samuel's own coefficients are one power each."""
    out: list[tuple[int, int]] = []
    k = 0
    while value:
        if value & 1:
            digit = 2 - (value & 3)  # +1 or -1
            out.append((digit, k))
            value -= digit
        value >>= 1
        k += 1
    return out


def polynomial_words(weights: Sequence[int]) -> Polynomial704:
    """The data words of an EVAL_SAMUEL weight vector (``engine.samuel_terms.weights``).

    Program704Error when the program's 35-bit sum could overflow (a coefficient far above
    Samuel's 2**18), so a polynomial is played exactly or not at all."""
    w = [int(x) for x in weights[:NTERMS]] + [0] * max(0, NTERMS - len(weights))
    need = {i - 1 for i in range(1, 1 + len(PARAMS)) if w[i]}
    connectives = any(w[i] for i in CONNECTIVES)
    if connectives:
        need |= {P_DENY, P_MOB, P_MOBIL, P_CENT}
    entries: list[int] = []
    bound = 0
    for term, value in enumerate(w):
        for sign, k in _powers(value):
            entries.append((_SIGN if sign < 0 else 0) | term << 18 | k)
            bound += (1 if term in CONNECTIVES else TERM_BOUND) << k
    if bound >= 1 << 35:
        raise Program704Error("the polynomial's coefficients are too large for the 704 program's 35-bit "
                              f"sum (its terms could add up to {bound:,}); Samuel's were at most 2**18")
    if len(entries) > MAX_ENTRIES:
        raise Program704Error(f"the polynomial needs {len(entries)} entries, the program has room for "
                              f"{MAX_ENTRIES}")
    order = sorted(need)
    want = (bool(need & {P_DENY, P_MOBIL}), bool(need & {PARAMS.index("EXCH"), PARAMS.index("RECAP")}),
            PARAMS.index("THRET") in need)
    return Polynomial704(tuple(order), tuple(entries), bool(w[0]), connectives, want)


_SIGN = 1 << 35


class Program704Error(SamuelError):
    """The 704 program could not answer: out of cycles, out of stack, or stopped where it should not."""


@dataclass(frozen=True)
class Run704:
    """One answer of the 704 program and what it cost on the 704."""

    value: int
    cycles: int
    instructions: int

    @property
    def seconds_704(self) -> float:
        """The time the real 704 would have taken."""
        return self.cycles * CYCLE_SECONDS


@dataclass(frozen=True)
class Search704:
    """What the 704 program's search found."""

    score: int
    """For the side to move: EVAL_WEIGHTS over Samuel's terms (64 a man), or the Samuel polynomial
    set (hundredths of a man), or LOSS_VALUE + p for a loss p plies away (minus that for a win)."""
    first_from: int | None
    """The best move's first step (squares 1-32; None at depth 0): a multiple jump is identified
    by its first jump, as the program makes it one jump at a time."""
    first_to: int | None
    nodes: int
    cycles: int
    instructions: int
    steps: tuple[tuple[int, int], ...] = ()
    """The principal line as single steps (from, to), a multiple jump a step a jump; at most PV_MAX."""
    stop_ply: int | None = None
    """The shallowest ply at which Samuel's rules stopped the look-ahead (at or past the minimum ply);
    None when they never did (every line ended in a lost position: the tree is whole).  Every
    minimum ply from the one searched up to this one searches the very same tree."""
    rote_hits: int = 0
    """Leaves whose score came from the rote memory's working part (``load_rote_tape``)."""

    @property
    def seconds_704(self) -> float:
        return self.cycles * CYCLE_SECONDS

    @property
    def plies_to_end(self) -> int | None:
        """For a win or loss score, the plies to the lost position; None for an evaluation."""
        return plies_to_end(self.score)


ROTE_CAPACITY = 4000
"""Positions the program's working part of the rote memory holds in core (RTCAP: four words each)."""
ROTE_RECORD = 25
"""Positions a tape record of the rote memory holds (100 words)."""
ROTE_TAPE_UNIT = 1
"""The tape unit the program reads the rote memory from (binary, 0221)."""
ROTE_USED = 1 << 15
"""Tag bit of a stored position's V word that the search sets when it takes its score."""
ROTE_MAX_AGE = 127
"""Ages above this are kept as this (seven bits of the V word's decrement)."""


class RoteEntry704(NamedTuple):
    """One position of the rote memory as the 704 program keeps it (four words)."""

    key: tuple[int, int, int]
    """The standard form: side to move's pieces, the other side's, the kings (bit s-1 for square s),
    the host's ``core.rote_key``."""
    score: int
    ply: int
    age: int
    used: bool = False


def rote_word(score: int, ply: int, age: int, used: bool = False) -> int:
    """The V word of a stored position: the score's sign and magnitude in the sign and address, the
    ply plus 256 times the age in the decrement, ROTE_USED when a search took it."""
    if abs(score) >= 1 << 15:
        raise Program704Error(f"a rote score of {score} does not fit the program's 15-bit address")
    if not 0 <= ply <= 255:
        raise Program704Error(f"a rote ply of {ply} is not 0-255")
    decrement = ply | min(max(age, 0), ROTE_MAX_AGE) << 8
    return (_SIGN if score < 0 else 0) | decrement << 18 | (ROTE_USED if used else 0) | abs(score)


def rote_entry(words: Sequence[int]) -> RoteEntry704:
    """The four words of a stored position read back (``rote_word``'s inverse)."""
    k1, k2, k3, v = words
    magnitude = v & 0o77777
    decrement = v >> 18 & 0o77777
    return RoteEntry704((k1, k2, k3), -magnitude if v >> 35 & 1 else magnitude, decrement & 0xFF,
                        decrement >> 8, bool(v & ROTE_USED))


def rote_tape_records(entries: Sequence[RoteEntry704],
                      limit: int | None = ROTE_CAPACITY) -> list[list[int] | None]:
    """The reel the program reads (``Program704.load_rote_tape``): the positions in key order, four
    words each, ROTE_RECORD a record, then a tape mark.  ``limit``: the most it may hold (the working
    part's, for a reel read whole into core; None for the whole memory on tape)."""
    if limit is not None and len(entries) > limit:
        raise Program704Error(f"{len(entries):,} positions: the 704 program's working part holds "
                              f"{ROTE_CAPACITY:,}")
    words: list[int] = []
    for e in sorted(entries, key=lambda e: e.key):
        words += [*e.key, rote_word(e.score, e.ply, e.age, e.used)]
    size = 4 * ROTE_RECORD
    records: list[list[int] | None] = [words[i:i + size] for i in range(0, len(words), size)]
    return [*records, None]


def write_rote_tape(path: str | os.PathLike[str], entries: Sequence[RoteEntry704],
                    limit: int | None = ROTE_CAPACITY) -> None:
    """Write the rote memory's reel (a SIMH .tap file) for the 704 program (``limit``: as
    ``rote_tape_records``)."""
    from emu704.tape import write_tape

    write_tape(path, rote_tape_records(entries, limit))


def read_rote_tape(path: str | os.PathLike[str]) -> list[RoteEntry704]:
    """The positions on a rote memory reel, up to its first tape mark."""
    from emu704.tape import read_tape

    words: list[int] = []
    for record in read_tape(path):
        if record is None:
            break
        words += record
    if len(words) % 4:
        raise Program704Error(f"{path}: not a rote memory reel ({len(words)} words, not four a position)")
    return [rote_entry(words[i:i + 4]) for i in range(0, len(words), 4)]


def plies_to_end(value: int) -> int | None:
    """The distance a program score carries when it is a win or loss (None for an evaluation:
    those stay far below, a few thousand at most)."""
    distance = -LOSS_VALUE - abs(value)
    return distance if 0 <= distance < -LOSS_VALUE // 2 else None


def _signed(word: int) -> int:
    """A 704 word (sign and magnitude) as an int."""
    magnitude = word & ((1 << 35) - 1)
    return -magnitude if word >> 35 & 1 else magnitude


def _square_of(bit: int) -> int | None:
    """The square of a one-bit word in Samuel's layout (None for 0)."""
    if not bit:
        return None
    i = bit.bit_length() - 1
    return i - i // 9 + 1


def _step_of(word: int) -> tuple[int, int]:
    """A principal-line word (the from and to bits, minus when the step goes toward square 1)."""
    bits = word & ((1 << 35) - 1)
    low = bits & -bits
    high = bits ^ low
    a, b = _square_of(low), _square_of(high)
    if a is None or b is None:
        raise Program704Error(f"the 704 program left a line step {word:012o} that is not two squares")
    return (b, a) if word >> 35 & 1 else (a, b)


def _ghost(squares: int) -> int:
    """Squares 1-32 (bit s-1) in Samuel's layout (bit (s-1) + (s-1)//8)."""
    out = 0
    while squares:
        low = squares & -squares
        i = low.bit_length() - 1
        out |= 1 << (i + i // 8)
        squares ^= low
    return out


def board_words(raw: RawPosition) -> list[int]:
    """[FA, BA, FP, BP] of a position: Samuel's four words, the side to move active.

    Black's men move toward square 32 and White's toward square 1; a king moves
    both ways, so it is in both words of its side.
    """
    bm, bk, wm, wk = (_ghost(x) for x in (raw.black_men, raw.black_kings, raw.white_men, raw.white_kings))
    black, white = bm | bk, wm | wk
    if raw.turn == BLACK:
        return [black, bk, wk, white]
    return [wk, white, black, bk]


def colour_word(raw: RawPosition) -> int:
    """The program's ICOL of a position: 0 when Black is to move, 1 when White is."""
    return 0 if raw.turn == BLACK else 1


def parent_words(raw: RawPosition, parent: RawPosition | None) -> list[int]:
    """IPFA IPBA IPFP IPBP IPCOL: the position before the last move (its mover active), or without
    one the same board with the other side to move, as csrc/samuel_terms.c stands it in."""
    if parent is not None:
        return [*board_words(parent), colour_word(parent)]
    fa, ba, fp, bp = board_words(raw)
    return [fp, bp, fa, ba, 1 - colour_word(raw)]


@functools.cache
def _image() -> Image:
    from emu704.sap import assemble

    program = resources.files("emu704").joinpath("programs").joinpath("checkers.sap")
    source = program.read_text(encoding="utf-8")
    return assemble(source, MEMORY_WORDS, name="checkers.sap")


@dataclass(frozen=True)
class _Loaded:
    """A program ready to run: the whole memory after EINIT, and its symbols."""

    memory: tuple[int, ...]
    symbols: SymbolTable


_LOADED: dict[tuple[object, ...], _Loaded] = {}
_LOADED_LOCK = threading.Lock()


def _deck_key(deck: str | os.PathLike[str] | None) -> tuple[object, ...]:
    """The cache key of a deck: the package's program, or a deck file as it is now (an edited deck,
    or its symbol file, is loaded afresh)."""
    if deck is None:
        return ("package",)
    path = Path(deck).resolve()
    stamps: list[object] = [str(path)]
    for f in (path, path.with_suffix(".sym")):
        try:
            st = f.stat()
            stamps += [st.st_mtime_ns, st.st_size]
        except OSError:
            stamps.append(None)  # loading names what is missing
    return tuple(stamps)


def warm_up(deck: str | os.PathLike[str] | None = None) -> None:
    """Assemble (or read) the program and build its tables now, so that the first search does not
    pay for it inside its time: call it at start-up and when a session switches to backend 704.
    Program704Error when the deck cannot be loaded."""
    Program704(deck)


ENTRY_NAMES = ("ENTRY", "RETURN", "EMOVES", "EMAKE", "ECOUNT", "EINIT", "ESRCH", "EPARAM", "EEVAL", "ELOAD")
HOST_SYMBOLS = ("MAXPLY", "INF", "OPVT", "OPVN", "OBFSQ", "OBTSQ", "OSHAL",
                "RBEST", "RPVN", "RPV0", "BESTF", "BESTT", "ICOL", "IPFA", "IPBA", "IPFP", "IPBP",
                "IPCOL", "OPAR", "EVKIND", "MANCR", "SBONUS", "SCONN", "SWD", "SWX", "SWT", "NNEED",
                "NEEDB", "NENT", "ENTB", "CPOK")
"""The other words the host reads: its outputs and the root record it looks at after a stop."""
ROTE_SYMBOLS = ("ESTD", "ELOOK", "ERTLD", "OK1", "OK2", "OK3", "OFOUND", "ORV", "RTN", "RT", "ROTEON",
                "RHITS", "RTFULL")
"""The rote memory's entries and words (issue 35); a deck of one's own without them plays without it."""


def _deck_blocks(deck: Path) -> tuple[list[tuple[int, list[int]]], SymbolTable]:
    """The words of a self-loading deck (``samuel emu704 asm`` output) and the symbol file beside it;
    each fault a Program704Error naming the file and what is wrong."""
    from emu704.cards import CardFormatError, load_cbn
    from emu704.loader import parse_self_loading_deck
    from emu704.symbols import SymbolFileError, read_symbols

    try:
        blocks, _start = parse_self_loading_deck(load_cbn(deck))
        symbols = read_symbols(deck.with_suffix(".sym"))
    except FileNotFoundError:
        raise Program704Error(f"{deck}: no such deck") from None
    except (CardFormatError, SymbolFileError, OSError, ValueError) as exc:
        raise Program704Error(f"{deck}: cannot be loaded as the 704 program: {exc}") from None
    if symbols.memory_words > MEMORY_WORDS:
        raise Program704Error(f"{deck}: assembled for {symbols.memory_words} words, the machine has "
                              f"{MEMORY_WORDS}")
    needed = (*ENTRY_NAMES, *HOST_SYMBOLS)
    missing = [n for n in needed if n not in symbols.symbols]
    if missing:
        raise Program704Error(f"{deck}: not a checkers program for this host: no {', '.join(missing)} "
                              f"in {deck.with_suffix('.sym').name}")
    return blocks, symbols


class Program704:
    """Samuel's checkers program loaded in an emulated 704 (C fast path), ready to be called.

    By default the program is the one shipped in the package; ``deck`` names a self-loading deck of
    one's own (``samuel emu704 asm`` writes it with its symbol file).  Either is assembled or read
    once per process, and its memory after EINIT kept, so a later Program704 of the same deck only
    copies that memory in."""

    def __init__(self, deck: str | os.PathLike[str] | None = None) -> None:
        from emu704.fast import FastMachine
        from emu704.host_call import HostCall

        self.machine = FastMachine(MEMORY_WORDS)
        key = _deck_key(deck)
        with _LOADED_LOCK:
            loaded = _LOADED.get(key)
        if loaded is None:
            self.symbols = self._write_program(deck)
        else:
            self.symbols = loaded.symbols
            self.machine.mem[:] = loaded.memory
        a = self.symbols.address
        ret = a("RETURN")
        board_in = [a(n) for n in ("IFA", "IBA", "IFP", "IBP")]
        m = self.machine
        # Each entry of the program's table with its input and output words.
        self._perft = (HostCall(m, [*board_in, a("IDEPTH")], [a("ONODES")], ret), a("ENTRY"))
        self._moves = (HostCall(m, board_in, [a(n) for n in ("OS1", "OS2", "OS3", "OS4", "OKIND")], ret),
                       a("EMOVES"))
        self._make = (HostCall(m, [*board_in, a("IF"), a("IT"), a("IC")],
                               [a(n) for n in ("OFA", "OBA", "OFP", "OBP", "OEND")], ret), a("EMAKE"))
        self._count = (HostCall(m, [a("IW")], [a("OCOUNT")], ret), a("ECOUNT"))
        self._params = (HostCall(m, [*board_in, a("ICOL")], [a("OPAR") - k for k in range(len(PARAMS))],
                                 ret), a("EPARAM"))
        # The evaluation and the search read the side to move's colour and the position before
        # the last move (Samuel's terms are differences from it).
        position_in = [*board_in, *(a(n) for n in ("ICOL", "IPFA", "IPBA", "IPFP", "IPBP", "IPCOL"))]
        self._eval = (HostCall(m, position_in, [a("OEVAL")], ret), a("EEVAL"))
        self._load = (HostCall(m, board_in, [], ret), a("ELOAD"))
        search_in = [*position_in, a("IDEPTH"), *(a(f"IB{i}") for i in range(1, 5))]
        pv_out = [a("OPVN"), *(a("OPVT") - k for k in range(PV_MAX))]
        self._search = (HostCall(m, search_in, [a(n) for n in ("OSCORE", "OBFSQ", "OBTSQ", "ONODES", "OSHAL")]
                                 + pv_out, ret), a("ESRCH"))
        # The rote memory (a deck of one's own may not have it).
        self.has_rote = all(n in self.symbols.symbols for n in ROTE_SYMBOLS)
        if self.has_rote:
            self._std = (HostCall(m, [*board_in, a("ICOL")], [a(n) for n in ("OK1", "OK2", "OK3")], ret),
                         a("ESTD"))
            self._look = (HostCall(m, [*board_in, a("ICOL")], [a("OFOUND"), a("ORV")], ret), a("ELOOK"))
        if loaded is None:
            self._run((HostCall(m, [], [], ret), a("EINIT")), [], DEFAULT_BUDGET,
                      "building the bit-count table")
            with _LOADED_LOCK:
                _LOADED[key] = _Loaded(tuple(m.mem), self.symbols)
        self.polynomial: Polynomial704 | None = None
        """The Samuel polynomial the program plays (``set_polynomial``), or None: its own fixed one."""
        self.max_ply = a("MAXPLY")
        self.max_depth = self.max_ply - MAX_JUMPS
        """Deepest request: every ply of it may end in a move of up to MAX_JUMPS single jumps,
        each a record of its own."""

    def _write_program(self, deck: str | os.PathLike[str] | None) -> SymbolTable:
        """The program's words written into the machine; its symbols."""
        from emu704.symbols import table_of

        if deck is None:
            image = _image()
            image.load_into(self.machine.write)
            return table_of(image)
        blocks, symbols = _deck_blocks(Path(deck))
        for origin, words in blocks:
            for i, word in enumerate(words):
                self.machine.write(origin + i, word)
        return symbols

    def set_polynomial(self, weights: Sequence[int] | None) -> None:
        """Play one of Samuel's polynomials (an EVAL_SAMUEL weight vector, ``polynomial_words``) or,
        with None, the program's own fixed one (EVALUATION): the data words SEVAL reads, set now,
        as his coefficients were "single data words which can be changed at any time"."""
        poly = None if weights is None else polynomial_words(weights)
        mem = self.machine.mem
        a = self.symbols.address
        self.polynomial = poly
        if poly is None:
            mem[a("EVKIND")] = 0
            mem[a("MANCR")] = JUMP_CREDIT
            return
        words = {"EVKIND": 1, "MANCR": SAMUEL_JUMP_CREDIT, "CPOK": 0, "SBONUS": int(poly.bonus),
                 "SCONN": int(poly.connectives), "SWD": int(poly.want[0]), "SWX": int(poly.want[1]),
                 "SWT": int(poly.want[2]), "NNEED": len(poly.need), "NENT": len(poly.entries)}
        for name, word in words.items():
            mem[a(name)] = word
        for i, p in enumerate(poly.need, 1):
            mem[a("NEEDB") - i] = p
        for i, word in enumerate(poly.entries, 1):
            mem[a("ENTB") - i] = word

    @property
    def centi_men_per_point(self) -> float:
        """A program score in hundredths of a man: Samuel's polynomials score in them, the
        program's own counts 64 a man (32 x PADV, a man 2)."""
        return 1.0 if self.polynomial is not None else 100 / 64

    def perft(self, board: Board, depth: int, *, max_cycles: int = DEFAULT_BUDGET) -> Run704:
        """Leaves of ``board``'s tree to ``depth`` plies, counted by the 704 program."""
        if not 0 <= depth <= self.max_depth:
            raise Program704Error(f"perft depth must be 0..{self.max_depth} (the program's ply stack), "
                                  f"got {depth}")
        return self._run(self._perft, [*board_words(board.raw), depth], max_cycles, f"perft {depth}")

    def moves(self, board: Board) -> tuple[list[int], bool, Run704]:
        """Samuel's "find all moves": the from-squares of the moves plus 4, plus 5, minus 4 and
        minus 5 (as Samuel-layout words), whether they are jumps, and the cost."""
        run = self._run(self._moves, board_words(board.raw), DEFAULT_BUDGET, "find all moves")
        out = self._moves[0].outputs
        return out[:4], bool(out[4]), run

    def make(self, words: list[int], frm: int, to: int, captured: int = 0) -> tuple[list[int], bool, Run704]:
        """One single step (a move, or one jump of a multiple jump) on Samuel's words, as bits in his
        layout: the four words after it, still from the mover's side, whether the move is over
        (False: the same piece jumps on), and the cost."""
        run = self._run(self._make, [*words, frm, to, captured], DEFAULT_BUDGET, "make a move")
        out = self._make[0].outputs
        return out[:4], bool(out[4]), run

    def search(self, board: Board, depth: int, *, max_cycles: int = DEFAULT_BUDGET,
               breaks: tuple[int, int, int, int] = SAMUEL_BREAKS) -> Search704:
        """Negamax with alpha-beta and Samuel's ply rules: ``depth`` is the minimum ply, ``breaks``
        his break points; at the leaves EVAL_WEIGHTS and JUMP_CREDIT for a jump left pending, or
        the polynomial set and SAMUEL_JUMP_CREDIT (the root's parent: ``board.previous_raw``)."""
        words = self._search_input(board, depth, breaks)
        run = self._run(self._search, words, max_cycles, f"search {depth}")
        return self._search_output(run.cycles, run.instructions)

    # ---- the rote memory ----

    def _need_rote(self) -> None:
        if not self.has_rote:
            raise Program704Error("this 704 deck has no rote memory (no " + ", ".join(ROTE_SYMBOLS) + ")")

    def standard_form(self, board: Board | RawPosition) -> tuple[tuple[int, int, int], Run704]:
        """The position's standard form worked out by the 704 program (STDF): the host's
        ``core.rote_key``, bit for bit."""
        self._need_rote()
        raw = board.raw if isinstance(board, Board) else board
        run = self._run(self._std, [*board_words(raw), colour_word(raw)], DEFAULT_BUDGET, "standard form")
        k1, k2, k3 = self._std[0].outputs
        return (k1, k2, k3), run

    def rote_lookup(self, board: Board | RawPosition) -> tuple[RoteEntry704 | None, Run704]:
        """The position looked up in the working part in core (standard form, then a binary search),
        as the search looks up a leaf (without marking it used), and the cost."""
        self._need_rote()
        raw = board.raw if isinstance(board, Board) else board
        words = [*board_words(raw), colour_word(raw)]
        run = self._run(self._look, words, DEFAULT_BUDGET, "rote look-up")
        found, v = self._look[0].outputs
        if not found:
            return None, run
        key, _ = self.standard_form(raw)
        return rote_entry([*key, v]), run

    def load_rote_tape(self, path: str | os.PathLike[str]) -> Run704:
        """Read a rote memory reel (``write_rote_tape``) into the working part: the program rewinds
        tape ROTE_TAPE_UNIT and reads it to the tape mark (RTLD).  The search then looks its leaves up
        in it; ``value`` is the number of positions read.  The reel is mounted read only."""
        self._need_rote()
        a = self.symbols.address
        run = self.run_with_tape("ERTLD", path, write=False,
                                 full=("RTFULL", f"more positions than the 704 program's working part "
                                                 f"holds ({ROTE_CAPACITY:,})"))
        self.machine.mem[a("ROTEON")] = 1 if run.value else 0
        return run

    def run_with_tape(self, entry: str, path: str | os.PathLike[str], *, write: bool,
                      full: tuple[str, str] | None = None) -> Run704:
        """Run the program from ``entry`` to its return with ``path`` mounted on tape ROTE_TAPE_UNIT
        (with the write ring when ``write``); ``value`` is the working part's size after it.  A stop at
        ``full[0]`` is refused with ``full[1]``; every other fault names the file."""
        return self.run_with_tapes(entry, [(ROTE_TAPE_UNIT, path, write)], full=full)

    def run_with_tapes(self, entry: str, tapes: Sequence[tuple[int, str | os.PathLike[str], bool]], *,
                       full: tuple[str, str] | None = None) -> Run704:
        """``run_with_tape`` with several reels: (unit, path, write ring) each."""
        from emu704.cpu import StopReason
        from emu704.tape import TapeUnit

        a = self.symbols.address
        m = self.machine
        write = any(w for _, _, w in tapes)
        path = tapes[0][1]
        doing = "write the rote memory" if write else "read it"
        units: list[TapeUnit] = []
        try:
            for number, reel, ring in tapes:
                try:
                    units.append(TapeUnit(number, reel, ring=ring))
                except (OSError, ValueError, RuntimeError) as exc:  # RuntimeError: the unit's DeviceError
                    mounted = ("mounted to write the rote memory" if ring
                               else "mounted as the rote memory's reel")
                    raise Program704Error(f"{reel}: cannot be {mounted}: {exc}") from None
                m.attach(units[-1])
            # Tape instructions run in the machine's own loop (a host call leaves out input/output).
            c0, i0 = m.cycles, m.instructions
            try:
                m.ic = a(entry)
                stop = m.run(max_cycles=DEFAULT_BUDGET)
            except Exception as exc:  # a DeviceError: a torn or full reel, a word lost
                raise Program704Error(f"{path}: the 704 program could not {doing}: {exc}") from None
        finally:
            for unit in units:
                m.detach(unit)
                unit.unmount()
        where = m.halt_location
        if stop != StopReason.HALT or where != a("RETURN"):
            if full is not None and where == a(full[0]):
                raise Program704Error(f"{path}: {full[1]}")
            verb = "writing" if write else "reading"
            raise Program704Error(f"{path}: {verb} the rote memory, the 704 program stopped ({stop.name}) "
                                  f"at {m.ic:05o}: {m.stop_detail}")
        return Run704(m.mem[a("RTN")], m.cycles - c0, m.instructions - i0)

    def set_rote(self, on: bool) -> None:
        """Let the search look its leaves up in the working part, or not (it stays loaded)."""
        self._need_rote()
        self.machine.mem[self.symbols.address("ROTEON")] = 1 if on else 0

    def rote_entries(self) -> list[RoteEntry704]:
        """The working part as it is in core now, with the marks of the positions searches used."""
        self._need_rote()
        mem = self.machine.mem
        rt = self.symbols.address("RT")
        n = mem[self.symbols.address("RTN")]
        return [rote_entry([mem[rt - 4 * i - j] for j in range(4)]) for i in range(n)]

    def _search_input(self, board: Board, depth: int, breaks: tuple[int, int, int, int]) -> list[int]:
        if not 0 <= depth <= self.max_depth:
            raise Program704Error(f"search depth must be 0..{self.max_depth} (the program's ply stack), "
                                  f"got {depth}")
        if len(breaks) != 4 or not all(1 <= b <= self.max_depth for b in breaks):
            raise Program704Error(f"break points must be four plies in 1..{self.max_depth}, got {breaks}")
        return [*board_words(board.raw), colour_word(board.raw), *parent_words(board.raw, board.previous_raw),
                depth, *breaks]

    def _search_output(self, cycles: int, instructions: int) -> Search704:
        score, frm, to, nodes, shallow, pv_len, *pv = self._search[0].outputs
        steps = tuple(_step_of(w) for w in pv[:min(pv_len, PV_MAX)])
        stop_ply = _signed(shallow)
        # The program locates the best step's squares itself (bit count and a square table).
        hits = self.machine.mem[self.symbols.address("RHITS")] if self.has_rote else 0
        return Search704(_signed(score), frm or None, to or None, nodes, cycles, instructions, steps,
                         stop_ply if stop_ply >= 0 else None, hits)

    def search_sliced(self, board: Board, depth: int, on_slice: Callable[[int, bool], bool], *,
                      slice_cycles: int = SLICE_CYCLES,
                      breaks: tuple[int, int, int, int] = SAMUEL_BREAKS) -> Search704 | None:
        """``search`` run ``slice_cycles`` at a time.  After every slice, the last one too,
        ``on_slice(cycles so far, finished)`` may hold the search back (a paced search waits
        there) and returns True to stop it: then None, even when it had finished (a paced search
        whose time ran out before the 704 would have found the answer)."""
        from emu704.host_call import CallStatus

        if slice_cycles < 1:
            raise ValueError(f"slice_cycles must be at least 1, got {slice_cycles}")
        words = self._search_input(board, depth, breaks)
        call, address = self._search
        m = self.machine
        c0, i0 = m.cycles, m.instructions
        m.mem[self.symbols.address("RBEST")] = _SIGN | _signed(m.mem[self.symbols.address("INF")])
        status = call.call(words, address, max_cycles=slice_cycles)  # (no root move done: root_best)
        while status == CallStatus.LIMIT:
            if on_slice(m.cycles - c0, False):
                return None
            status = call.resume(max_cycles=slice_cycles)
        if status == CallStatus.STOPPED:
            raise Program704Error(f"search {depth}: the 704 program {call.where(self.symbols.data_words)}")
        if on_slice(m.cycles - c0, True):
            return None
        return self._search_output(m.cycles - c0, m.instructions - i0)

    def root_best(self, board: Board) -> tuple[int, tuple[Move, ...]] | None:
        """After a search stopped part way: the best of the root's moves searched whole so far, as
        (score, line of legal moves); None when no root move has been searched whole yet.

        Read from the root record the program keeps (RBEST, RPVN, RPV0 down) and BESTF-BESTT; the
        line's first move must be that best step, else (a stop between the stores) None."""
        mem = self.machine.mem
        a = self.symbols.address
        best = _signed(mem[a("RBEST")])
        if best <= -_signed(mem[a("INF")]):  # search_sliced set it so, the root's loop does too
            return None
        n = min(mem[a("RPVN")], PV_MAX)
        try:
            steps = tuple(_step_of(mem[a("RPV0") - k]) for k in range(n))
        except Program704Error:
            return None
        first_from, first_to = _square_of(mem[a("BESTF")]), _square_of(mem[a("BESTT")])
        line = tuple(line_moves(board, steps))
        if not line or (line[0].path[0], line[0].path[1]) != (first_from, first_to):
            return None
        return best, line

    def params(self, board: Board | RawPosition) -> tuple[dict[str, int], Run704]:
        """Samuel's Appendix C parameters (PARAMS, all 26), for the side to move, with the
        definitions of csrc/samuel_terms.c, and the cost."""
        raw = board.raw if isinstance(board, Board) else board
        run = self._run(self._params, [*board_words(raw), colour_word(raw)], DEFAULT_BUDGET, "parameters")
        values = [_signed(w) for w in self._params[0].outputs]
        return dict(zip(PARAMS, values, strict=True)), run

    def evaluate(self, board: Board | RawPosition, parent: RawPosition | None = None) -> Run704:
        """The search's score of a position for the side to move: EVAL_WEIGHTS over Samuel's terms,
        or the polynomial set.  ``parent``: the position before the last move (for a Board,
        ``board.previous_raw`` unless given); None: the same board with the other side to move."""
        if isinstance(board, Board):
            raw, parent = board.raw, parent if parent is not None else board.previous_raw
        else:
            raw = board
        words = [*board_words(raw), colour_word(raw), *parent_words(raw, parent)]
        run = self._run(self._eval, words, DEFAULT_BUDGET, "evaluate")
        return Run704(_signed(self._eval[0].outputs[0]), run.cycles, run.instructions)

    def load(self, board: Board) -> Run704:
        """Only what every entry does first: the position read into the root record (its material
        counted).  Take it from an entry's cost to time that entry's routine alone."""
        return self._run(self._load, board_words(board.raw), DEFAULT_BUDGET, "load")

    def count(self, word: int) -> Run704:
        """One bits of a 35-bit word, counted by table look-up on the 704."""
        return self._run(self._count, [word & ((1 << 35) - 1)], DEFAULT_BUDGET, "count bits")

    def _run(self, entry: tuple[HostCall, int], words: list[int], max_cycles: int, what: str) -> Run704:
        from emu704.host_call import CallStatus

        call, address = entry
        m = self.machine
        c0, i0 = m.cycles, m.instructions
        status = call.call(words, address, max_cycles=max_cycles)
        cycles, instructions = m.cycles - c0, m.instructions - i0
        if status == CallStatus.LIMIT:
            raise Program704Error(f"{what}: the 704 program used its budget of {max_cycles:,} cycles "
                                  f"({max_cycles * CYCLE_SECONDS:,.0f} s of 704 time) without answering")
        if status == CallStatus.STOPPED:
            if m.ic == self.symbols.symbols.get("FULL"):
                raise Program704Error(f"{what}: a line deeper than the 704 program's ply stack "
                                      f"({self.max_ply} records)")
            raise Program704Error(f"{what}: the 704 program {call.where(self.symbols.data_words)}")
        outputs = call.outputs
        return Run704(outputs[0] if outputs else 0, cycles, instructions)


def line_moves(board: Board, steps: tuple[tuple[int, int], ...]) -> list[Move]:
    """The program's principal line as legal moves: each move's path is the next steps in turn (a
    multiple jump spans as many steps as it has jumps).  The line ends where the steps run out, or
    at a step that starts no legal move (the program keeps PV_MAX steps, so a long line is cut)."""
    out: list[Move] = []
    after = board.copy()
    i = 0
    while i < len(steps):
        found = None
        for m in after.legal_moves:
            n = len(m.path) - 1
            if i + n <= len(steps) and all(steps[i + k] == (m.path[k], m.path[k + 1]) for k in range(n)):
                found = m
                break
        if found is None:
            break
        out.append(found)
        after.push(found)
        i += len(found.path) - 1
    return out


# ---- Alpha's learning on the 704 (issue 35) ----

CORRELATION_ONE = 1 << 34
"""A correlation of 1 in the program's words (YCOR): C in units of 2**-34, signed."""
LEARN_SYMBOLS = ("EYCORR", "EYNZC", "EYTALY", "EYCOEF", "YTRM", "YCOR", "YUSE", "YTAL", "YNZ", "YVAL",
                 "YCOF", "YRES", "YNRES", "YDEL", "YINI", "YWL", "YALL", "YBYMV", "YLIM", "YINTV", "YTRST",
                 "YANY", "YCORS", "YMOVS", "YMSNT", "YOUT", "YIN", "YOUTU", "EYDEC", "EYREF", "YRSC", "YBKU",
                 "YRCH", "YFLAT", "YDID", "YDELO", "YINIO", "YMIN", "YSUM", "YGRES", "YGSA", "YWSA", "YBMK",
                 "YADR", "YADOP", "YPEN", "BTRM", "BCOF", "EYPOL", "YPSEL", "YNPAD", "YPADE")
LEARN_ACTIVE = 16
"""Active terms the program's tables hold (slot 17-k is the host's active term k)."""
PADV_ENTRIES = 8
"""PADV's entries the program keeps (YPADE): its weight as signed powers of two."""
LEARN_RESERVE = 40
"""Reserve terms its list has room for."""


def _word(value: int) -> int:
    """An int as a 704 word (sign and magnitude)."""
    if abs(value) >= 1 << 35:
        raise Program704Error(f"{value} does not fit a 704 word")
    return (_SIGN if value < 0 else 0) | abs(value)


def correlation_word(c: float) -> int:
    """A correlation as the program keeps it: the nearest multiple of 2**-34, held below 1 in
    magnitude (the coefficient step doubles the largest)."""
    v = round(c * CORRELATION_ONE)
    v = max(-(CORRELATION_ONE - 1), min(CORRELATION_ONE - 1, v))
    return _word(v)


class TermState704(NamedTuple):
    """One active term as the program's tables hold it."""

    term: int
    """The term's number (0 PADV, 1-26 the parameters, 27-38 the connectives)."""
    correlation: int
    """In units of 2**-34 (CORRELATION_ONE is 1)."""
    uses: int
    tally: int
    nonzero: int


ADOPTION_RULES = ("majority", "win", "never")
"""YADR's values, in order: Beta's adoption rules (``generalize_state.ADOPTIONS``)."""


class Decision704(NamedTuple):
    """What the program decided at an Alpha move (YDEC)."""

    corrected: bool
    delta: int
    initial: int
    """The retained score, zeroed below the minimum."""
    coefficient_sum: int
    """The sum of the active coefficients' magnitudes: the minimum delta is this over 16 * 2**13."""
    weight: int
    """1, 2 or 4 when corrected, else 0."""


class Referee704Result(NamedTuple):
    """What the program's referee did after a game (YREF), and its counters after it."""

    adopted: bool
    penalized: int | None
    """The term number whose correlation was zeroed, or None."""
    black_marks: int
    games_since_adoption: int
    wins_since_adoption: int


class Learner704:
    """Alpha's bookkeeping run by the 704 program (the tables and entries of "learning by
    generalization" in checkers.sap): corrections of the correlations, the count of nonzero moves,
    the low-term tally with term replacement, and the coefficients, each a host call; the host
    gives delta, the retained score and the term values, as ``PolynomialState`` is given them."""

    def __init__(self, program: Program704) -> None:
        missing = [n for n in LEARN_SYMBOLS if n not in program.symbols.symbols]
        if missing:
            raise Program704Error("this 704 deck has no learning tables (no " + ", ".join(missing) + ")")
        self.program = program
        from emu704.host_call import HostCall

        a = program.symbols.address
        self._a = a
        ret = a("RETURN")
        self._calls = {name: (HostCall(program.machine, [], [], ret), a(name))
                       for name in ("EYCORR", "EYNZC", "EYTALY", "EYCOEF", "EYDEC", "EYREF", "EYPOL")}

    # ---- the tables ----

    def load(self, active: Sequence[tuple[int, float, int, int, int]], reserve: Sequence[int], *,
             tally_limit: int = 8, new_term_interval: int = 32, tally_reset: bool = False,
             all_terms: bool = False, by_moves: bool = False, moves: int = 0,
             moves_since_new_term: int = 0, corrections: int = 0) -> None:
        """Write the state in: ``active`` as (term number, correlation, uses, tally, nonzero) in the
        host's order, ``reserve`` term numbers head first, and the rules."""
        if len(active) != LEARN_ACTIVE:
            raise Program704Error(f"{len(active)} active terms: the program holds {LEARN_ACTIVE}")
        if len(reserve) > LEARN_RESERVE:
            raise Program704Error(f"{len(reserve)} reserve terms: the program has room for {LEARN_RESERVE}")
        mem, a = self.program.machine.mem, self._a
        for k, (term, c, uses, tally, nonzero) in enumerate(active):
            slot = LEARN_ACTIVE - k
            mem[a("YTRM") - slot] = term
            mem[a("YCOR") - slot] = correlation_word(c)
            mem[a("YUSE") - slot] = uses
            mem[a("YTAL") - slot] = tally
            mem[a("YNZ") - slot] = nonzero
        n = len(reserve)
        for i, term in enumerate(reserve):
            mem[a("YRES") - (n - i)] = term
        words = {"YNRES": n, "YLIM": tally_limit, "YINTV": new_term_interval, "YTRST": int(tally_reset),
                 "YALL": int(all_terms), "YBYMV": int(by_moves), "YMOVS": moves,
                 "YMSNT": moves_since_new_term, "YCORS": corrections}
        for name, w in words.items():
            mem[a(name)] = w

    def active(self) -> list[TermState704]:
        """The active terms in the host's order."""
        mem, a = self.program.machine.mem, self._a
        out = []
        for k in range(LEARN_ACTIVE):
            slot = LEARN_ACTIVE - k
            out.append(TermState704(mem[a("YTRM") - slot], _signed(mem[a("YCOR") - slot]),
                                    mem[a("YUSE") - slot], mem[a("YTAL") - slot], mem[a("YNZ") - slot]))
        return out

    def reserve(self) -> list[int]:
        mem, a = self.program.machine.mem, self._a
        n = mem[a("YNRES")]
        return [mem[a("YRES") - (n - i)] for i in range(n)]

    def counters(self) -> dict[str, int]:
        mem, a = self.program.machine.mem, self._a
        return {"moves": mem[a("YMOVS")], "moves_since_new_term": mem[a("YMSNT")],
                "corrections": mem[a("YCORS")]}

    def _values(self, values: Sequence[int]) -> None:
        if len(values) != LEARN_ACTIVE:
            raise Program704Error(f"{len(values)} term values for {LEARN_ACTIVE} active terms")
        mem, a = self.program.machine.mem, self._a
        for k, v in enumerate(values):
            mem[a("YVAL") - (LEARN_ACTIVE - k)] = _word(int(v))

    def _run(self, name: str, what: str) -> Run704:
        return self.program._run(self._calls[name], [], DEFAULT_BUDGET, what)

    # ---- the entries ----

    def correct(self, delta: int, initial: int, values: Sequence[int], weight: int) -> tuple[bool, Run704]:
        """One correction (``PolynomialState.correct``): ``values`` the retained position's raw term
        values in the host's active order, ``weight`` 1, 2 or 4.  Whether any term was corrected."""
        if weight not in (1, 2, 4):
            raise Program704Error(f"a correction weight of {weight}: the program shifts by 0, 1 or 2")
        mem, a = self.program.machine.mem, self._a
        self._values(values)
        mem[a("YDEL")] = _word(int(delta))
        mem[a("YINI")] = _word(int(initial))
        mem[a("YWL")] = weight.bit_length() - 1
        run = self._run("EYCORR", "a correction")
        return bool(mem[a("YANY")]), run

    def count_nonzero(self, values: Sequence[int]) -> Run704:
        """``PolynomialState.count_nonzero``: the active terms nonzero in ``values`` (host order)."""
        self._values(values)
        return self._run("EYNZC", "the nonzero count")

    def tally_move(self) -> tuple[tuple[int, int] | None, Run704]:
        """``PolynomialState.tally_move``: the low-term tally, maybe a replacement (out, in) as term
        numbers."""
        mem, a = self.program.machine.mem, self._a
        run = self._run("EYTALY", "the low-term tally")
        out = mem[a("YOUT")]
        if not out and not mem[a("YIN")]:
            return None, run
        return (out, mem[a("YIN")]), run

    def coefficients(self) -> tuple[list[int], Run704]:
        """The coefficients from the correlations (``coefficients_from``, the ``round`` rule), in the
        host's active order."""
        run = self._run("EYCOEF", "the coefficients")
        mem, a = self.program.machine.mem, self._a
        return [_signed(mem[a("YCOF") - (LEARN_ACTIVE - k)]) for k in range(LEARN_ACTIVE)], run

    def decide(self, backed_up: int, retained_score: int, values: Sequence[int], *, ratio_changed: bool,
               flat: bool = False) -> tuple[Decision704, Run704]:
        """The decision to correct at an Alpha move with a retained position (YDEC): the minimum
        delta from the coefficients, the retained score zeroed below it, delta, and, when delta
        reaches the minimum, a correction of weight 4 (an almost sure outcome), 2 (the piece ratio
        changed along the line: ``ratio_changed``, the host's look) or 1 (always 1 when ``flat``)."""
        mem, a = self.program.machine.mem, self._a
        self._values(values)
        mem[a("YBKU")] = _word(int(backed_up))
        mem[a("YRSC")] = _word(int(retained_score))
        mem[a("YRCH")] = 1 if ratio_changed else 0
        mem[a("YFLAT")] = 1 if flat else 0
        run = self._run("EYDEC", "the decision to correct")
        did = bool(mem[a("YDID")])
        return Decision704(did, _signed(mem[a("YDELO")]), _signed(mem[a("YINIO")]), mem[a("YSUM")],
                           1 << mem[a("YWL")] if did else 0), run

    def referee(self, result: int, black_marks: int, games_since_adoption: int, wins_since_adoption: int,
                adoption: str) -> tuple[Referee704Result, Run704]:
        """The referee after a game (YREF), Alpha's ``result`` +1, 0 or -1, with the counters as they
        stood: black marks (the third zeroes the leading term's correlation in the tables), and
        Beta's adoption of Alpha's polynomial into BTRM BCOF by the rule ``adoption``."""
        if adoption not in ADOPTION_RULES:
            raise Program704Error(f"adoption rule {adoption!r}: the program knows "
                                  f"{', '.join(ADOPTION_RULES)}")
        mem, a = self.program.machine.mem, self._a
        mem[a("YGRES")] = _word((result > 0) - (result < 0))
        mem[a("YBMK")] = black_marks
        mem[a("YGSA")], mem[a("YWSA")] = games_since_adoption, wins_since_adoption
        mem[a("YADR")] = ADOPTION_RULES.index(adoption)
        run = self._run("EYREF", "the referee")
        penalized = mem[a("YPEN")] or None  # a term number: PADV (0) is never an active term
        return Referee704Result(bool(mem[a("YADOP")]), penalized, mem[a("YBMK")], mem[a("YGSA")],
                                mem[a("YWSA")]), run

    def beta(self) -> list[tuple[int, int]]:
        """Beta's polynomial as the program last gave it Alpha's: (term number, coefficient), in the
        host's active order."""
        mem, a = self.program.machine.mem, self._a
        return [(mem[a("BTRM") - (LEARN_ACTIVE - k)], _signed(mem[a("BCOF") - (LEARN_ACTIVE - k)]))
                for k in range(LEARN_ACTIVE)]

    def load_beta(self, terms: Sequence[tuple[int, int]], padv: int) -> None:
        """Write Beta's polynomial (term number, coefficient; up to LEARN_ACTIVE, each 0 or a signed
        power of two) into its tables, and PADV's fixed weight as entries, before a run: afterwards
        the program's referee gives Beta Alpha's."""
        if len(terms) > LEARN_ACTIVE:
            raise Program704Error(f"{len(terms)} terms for Beta: the program holds {LEARN_ACTIVE}")
        if any(c and abs(c) & (abs(c) - 1) for _, c in terms):
            raise Program704Error("Beta's coefficients must each be 0 or a signed power of two, as the "
                                  "learner's are")
        mem, a = self.program.machine.mem, self._a
        padded = [*terms, *([(0, 0)] * (LEARN_ACTIVE - len(terms)))]
        for k, (term, c) in enumerate(padded):
            mem[a("BTRM") - (LEARN_ACTIVE - k)] = term
            mem[a("BCOF") - (LEARN_ACTIVE - k)] = _word(c)
        powers = _powers(int(padv))
        if len(powers) > PADV_ENTRIES:
            raise Program704Error(f"PADV's weight {padv} needs {len(powers)} entries; the program keeps "
                                  f"{PADV_ENTRIES}")
        for i, (sign, k) in enumerate(powers, 1):
            mem[a("YPADE") - i] = (_SIGN if sign < 0 else 0) | k
        mem[a("YNPAD")] = len(powers)

    def build_polynomial(self, beta: bool) -> tuple[Polynomial704, Run704]:
        """Have the program write SEVAL's data words from Alpha's coefficients (worked out from the
        correlations first) or Beta's (YPOL), as ``polynomial_words`` would; and read them back."""
        mem, a = self.program.machine.mem, self._a
        mem[a("YPSEL")] = 1 if beta else 0
        run = self._run("EYPOL", "the polynomial's data words")
        need = tuple(mem[a("NEEDB") - i] for i in range(1, mem[a("NNEED")] + 1))
        entries = tuple(mem[a("ENTB") - i] for i in range(1, mem[a("NENT")] + 1))
        poly = Polynomial704(need, entries, bool(mem[a("SBONUS")]), bool(mem[a("SCONN")]),
                             (bool(mem[a("SWD")]), bool(mem[a("SWX")]), bool(mem[a("SWT")])))
        return poly, run
