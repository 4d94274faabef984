"""THE IBM 704 instruction table: one entry per mnemonic, shared by executor, assembler, disassembler.

Source: shared/reference/ibm704.md section 2 and ibm704-opcodes.csv (UA SAP ``OPTBL``).

Public API (stable; the assembler/disassembler rely on it)
-----------------------------------------------------------
``OpDef``  (frozen dataclass) -- one mnemonic:

* ``mnemonic``  e.g. ``"CLA"``.
* ``kind``      one of

  - ``"A"``        type A (TXI TIX TXH TNX TXL): prefix + decrement + tag + address.
  - ``"B"``        type B: signed 9-bit op code in S,3-11, tag, address.
  - ``"B760"``     ``+0760``/``-0760`` with the (effective) address as sub-op: ``sub_op`` is the fixed
                   address (CHS = +0760 ... 0002), or the *base* address when ``operand_added``
                   (``SLN 2`` = +0760 ... 0140+2).  PSE/MSE themselves are B760 with ``sub_op=None``
                   (raw address).
  - ``"IO"``       device instructions using the address as device / buffer (RDS WRS CPY CAD LDA BST WEF REW).
  - ``"ALIAS_IO"`` SAP I/O shorthands: RDS/WRS with a fixed (``RCD`` = RDS 0321) or base+operand
                   (``RTB 1`` = RDS 0221) address.  Assembler-level only; the word is an RDS/WRS.
  - ``"DATA"``     data-word "operations" PZE..MTH, FOR..SVN: only a prefix.

* ``sign``      0 (plus) or 1 (minus): bit S of the word.
* ``op``        type B family: the 9-bit op code in bits 3-11 (``CLA`` -> 0o500, ``CAL`` -> 0o500 with
                sign 1).  0 for A/DATA.
* ``opcode``    **signed** op code as IBM writes it: ``+0o500`` (CLA), ``-0o500`` (CAL); for type A the
                signed prefix (TXI ``+1``, TXL ``-3``); for DATA ``0`` (use ``prefix``: MZE would be -0).
                Note HTR is ``+0o000`` -- always read ``sign`` too when the value can be 0.
* ``prefix``    3-bit prefix S,1,2 as an unsigned number (TXI 1, TNX 6, TXL 7, MZE 4, MON 5 ...);
                for type B kinds it is ``sign << 2`` (bits 1,2 are 0).
* ``code``      property: the 12-bit code S,1-11 (``word >> 24``), SIMH style: CLA 0o0500,
                CAL 0o4500, TXI 0o1000, TXL 0o7000, MZE 0o4000.
* ``sub_op``    B760 / ALIAS_IO: fixed address or base address; ``None`` otherwise.
* ``operand_added``  True when the variable field is added to ``sub_op`` (SLN SWT SPR SPU SLT RTB RTD
                RDR WTB WTD WDR WTS).  ``operand_range`` = (lo, hi) of legal operands for those.
* ``cycles``    timing description from the reference ("2", "3", "20|3", "2+(n+2)//12", "6-13" ...);
                ``timing`` is the same read as numbers (``Timing``), which is what the emulators
                charge: emu704.cpu takes its cycle costs from it, and emu704.fast hands them to
                the C core at start-up, so this table is the one place they are written.
* ``indexed``   whether the address is reduced by the selected index registers.
* ``operands``  what the variable field holds: ``"Y,T"`` (address, tag), ``"Y,T,D"`` (type A / data),
                ``"0,T"`` (PAX/PDX/PXD: tag only), ``"n,T"`` (shift count), ``"i"`` (operand added to
                the base address), ``""`` (no variable field: fixed B760 sub-ops, HPR/NOP, RCD...).
* ``legal_704`` always True for entries in ``OPCODES`` (709-only codes are not in the table; decoding
                them gives ``Decoded.opdef = None``).
* ``description`` one line of semantics.

``OPCODES: dict[str, OpDef]`` by mnemonic (upper case).

``Timing`` -- ``OpDef.timing``, the ``cycles`` text parsed (None for data words):

* ``base``  cycles of the ordinary case in all ("20|3" -> 20, "6-13" -> 6, "5+" -> 5, "2+wait"
  -> 2); ``BASIC_CYCLES`` (2, an I-cycle and an E-cycle) where the reference gives no figure
  ("-": BST WEF REW).
* ``most``  the most cycles the table allows (the top of "6-13", a 255-place shift; ``base`` for
  an exact figure, the larger of "20|3"); None when the table sets no bound ("5+", "2+",
  "2+wait", "-").
* ``divide_check``  "20|3" -> 3: the cost when the divide check stops the division.
* ``shift``  "2+(n+2)//12" -> (2, 12): ``shift_cycles(n)`` = base + (n + 2) // 12 for an n-place
  shift (n = 0..255).
* ``varies`` the cost has a part that depends on the operands or a device and that the table
  gives no formula for ("6-13", "5+", "2+", "2+wait"): the FAD family's alignment and
  normalization are code in emu704.cpu (and the C core), tested against ``base``/``most``.  The
  I/O instructions cost ``base`` plus whatever a timed unit makes the CPU wait (the 727 tape's
  interlocks, emu704.tape, charged through emu704.iobus.Link); the card units never wait.

``BASIC_CYCLES`` = 2: what every instruction costs at least.

``encode(mnemonic_or_opdef, address=0, tag=0, decrement=0) -> int`` -- the 36-bit word.  For
``operand_added`` ops ``address`` is the operand (``encode("SLN", 2)``); for fixed sub-ops and
fixed aliases ``address`` must be 0 (a tag is allowed).  Fields are masked to their widths
(address/decrement 15 bits, tag 3 bits), so ``-1`` becomes 77777.

``decode(word) -> Decoded`` with ``opdef`` (``None`` if illegal on the 704), ``address``, ``tag``,
``decrement`` (type A/data: bits 3-17; type B: 0) and ``operand`` (the variable-field value:
address - base for ``operand_added`` matches, 0 for fixed sub-ops/aliases, else the address).
The most specific mnemonic is chosen:

* ``+0760`` with tag 0 and address 2 -> CHS; address 0142 -> ``SLN`` operand 2; an address no
  named sub-op covers -> PSE (raw).  With a non-zero tag the sub-op depends on the index
  registers at run time, so the word decodes as PSE/MSE raw.
* **I/O selects decode to their SAP aliases** when the tag is 0: RDS 0321 -> ``RCD``,
  WRS 0361 -> ``WPR``, RDS 0222 -> ``RTB`` operand 2; otherwise RDS/WRS.  ``encode(decode(w))``
  gives back ``w`` for every legal word (bits 12-17 of type B words, the 709 flag field, are
  ignored by the 704 and are not preserved).
* Words with bits 1,2 != 00 are type A (``-1``, the 709's STR, is illegal); all other words
  are type B.  Data pseudo-ops are never chosen by ``decode`` (use ``decode_data``).

``decode_data(word) -> Decoded`` names the word as a data word (PZE..MTH).
``lookup(mnemonic) -> OpDef`` (case-insensitive); ``OpDef.executes_as`` is the machine operation
a word really is (RCD -> RDS, SLN -> PSE, CHS -> PSE).

``type_b_table() -> dict[int, OpDef]`` 12-bit code -> type B/IO/``PSE``/``MSE`` entry;
``type_a_table() -> dict[int, OpDef]`` prefix -> type A entry; ``b760_table(sign)`` effective
address -> B760 entry (fixed and operand-added sub-ops expanded).  The executor builds its
dispatch from these.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from emu704.word import (
    ADDR_MASK,
    CODE_SHIFT,
    DECR_MASK,
    DECR_SHIFT,
    OP_MASK,
    OP_SHIFT,
    PREFIX_SHIFT,
    SIGN,
    TAG_MASK,
    TAG_SHIFT,
    TYPEA_MASK,
    TYPEA_SHIFT,
    WORD_MASK,
)

KINDS = ("A", "B", "B760", "IO", "ALIAS_IO", "DATA")

BASIC_CYCLES = 2
"""Cycles every 704 instruction takes at least (an I-cycle and an E-cycle): the run loops of the
emulators charge them for each instruction, the handlers whatever ``Timing`` adds beyond."""

SHIFT_COUNT_MASK = 0o377
"""A shift count is the low 8 bits of the effective address (``ALS 256`` = ``ALS 0``)."""


@dataclass(frozen=True)
class Timing:
    """An ``OpDef.cycles`` text as numbers (see the module doc)."""

    base: int
    most: int | None
    divide_check: int | None = None
    shift: tuple[int, int] | None = None
    """(bias, step) of "base+(n+bias)//step"."""
    varies: bool = False

    def shift_cycles(self, n: int) -> int:
        """Cycles in all of a shift by ``n`` places (``n`` taken modulo 256, as the 704 does)."""
        if self.shift is None:
            raise ValueError("not a shift timing")
        bias, step = self.shift
        return self.base + ((n & SHIFT_COUNT_MASK) + bias) // step


_SHIFT_TIMING = re.compile(r"(\d+)\+\(n\+(\d+)\)//(\d+)")


@functools.cache
def parse_cycles(text: str) -> Timing | None:
    """``Timing`` of a ``cycles`` text; None for "" (data words); ValueError for a form the
    emulators cannot charge (so a new kind of table entry cannot be silently mis-timed)."""
    if text == "":
        return None
    if text == "-":
        return Timing(BASIC_CYCLES, None)
    if text.isdigit():
        return Timing(int(text), int(text))
    if m := re.fullmatch(r"(\d+)\|(\d+)", text):
        base, check = int(m[1]), int(m[2])
        return Timing(base, max(base, check), divide_check=check)
    if m := re.fullmatch(r"(\d+)-(\d+)", text):
        return Timing(int(m[1]), int(m[2]), varies=True)
    if m := re.fullmatch(r"(\d+)\+(wait)?", text):
        return Timing(int(m[1]), None, varies=True)
    if m := _SHIFT_TIMING.fullmatch(text):
        base, bias, step = int(m[1]), int(m[2]), int(m[3])
        return Timing(base, base + (SHIFT_COUNT_MASK + bias) // step, shift=(bias, step))
    raise ValueError(f"cycles {text!r}: not a timing the emulators know how to charge")


@dataclass(frozen=True)
class OpDef:
    mnemonic: str
    kind: str
    sign: int = 0
    """0 = plus, 1 = minus (bit S)."""
    op: int = 0
    """Type B family: op code bits 3-11 (9 bits)."""
    prefix: int = 0
    """S,1,2 as 0..7 (type A / DATA); ``sign << 2`` for type B kinds."""
    sub_op: int | None = None
    """B760 / ALIAS_IO: the fixed address, or the base when ``operand_added``."""
    operand_added: bool = False
    operand_range: tuple[int, int] | None = None
    cycles: str = "2"
    indexed: bool = True
    operands: str = "Y,T"
    legal_704: bool = True
    description: str = ""

    @property
    def opcode(self) -> int:
        """Signed op code: +0o500 / -0o500; type A: signed prefix (+1 TXI, -3 TXL); DATA: 0."""
        if self.kind == "A":
            v = self.prefix & 3
            return -v if self.prefix & 4 else v
        if self.kind == "DATA":
            return 0
        return -self.op if self.sign else self.op

    @property
    def code(self) -> int:
        """12-bit code S,1-11 (``word >> 24``): CLA 0o0500, CAL 0o4500, TXI 0o1000, TXL 0o7000."""
        if self.kind in ("A", "DATA"):
            return self.prefix << 9
        return (self.sign << 11) | self.op

    @property
    def timing(self) -> Timing | None:
        """``cycles`` as numbers (None for data words); see ``Timing``."""
        return parse_cycles(self.cycles)

    @property
    def is_type_a(self) -> bool:
        return self.kind == "A"

    @property
    def executes_as(self) -> str:
        """Mnemonic of the machine instruction the word really is (RCD -> RDS, SLN -> PSE)."""
        if self.kind == "ALIAS_IO":
            return "WRS" if self.op == 0o766 else "RDS"
        if self.kind == "B760":
            return "MSE" if self.sign else "PSE"
        return self.mnemonic


# --------------------------------------------------------------------------------------------
# Table construction helpers
# --------------------------------------------------------------------------------------------

_TABLE: list[OpDef] = []


def _b(mn: str, signed_op: int, cycles: str = "2", *, indexed: bool = True, operands: str = "Y,T",
       desc: str = "", sign: int | None = None) -> None:
    s = (1 if signed_op < 0 else 0) if sign is None else sign
    _TABLE.append(OpDef(mn, "B", sign=s, op=abs(signed_op), prefix=s << 2, cycles=cycles,
                        indexed=indexed, operands=operands, description=desc))


def _a(mn: str, prefix: int, desc: str) -> None:
    _TABLE.append(OpDef(mn, "A", sign=prefix >> 2, prefix=prefix, cycles="2", indexed=False,
                        operands="Y,T,D", description=desc))


def _s(mn: str, sign: int, sub: int | None, desc: str, *, rng: tuple[int, int] | None = None,
       operands: str = "") -> None:
    _TABLE.append(OpDef(mn, "B760", sign=sign, op=0o760, prefix=sign << 2, sub_op=sub,
                        operand_added=rng is not None, operand_range=rng, cycles="2", indexed=True,
                        operands=("i" if rng is not None else operands), description=desc))


def _io(mn: str, signed_op: int, cycles: str, desc: str, *, sign: int | None = None) -> None:
    s = (1 if signed_op < 0 else 0) if sign is None else sign
    _TABLE.append(OpDef(mn, "IO", sign=s, op=abs(signed_op), prefix=s << 2, cycles=cycles,
                        indexed=True, operands="Y,T", description=desc))


def _alias(mn: str, base_op: int, sub: int, desc: str, rng: tuple[int, int] | None = None) -> None:
    _TABLE.append(OpDef(mn, "ALIAS_IO", sign=0, op=base_op, prefix=0, sub_op=sub,
                        operand_added=rng is not None, operand_range=rng, cycles="2+",
                        indexed=True, operands=("i" if rng is not None else ""), description=desc))


def _data(mn: str, prefix: int, desc: str) -> None:
    _TABLE.append(OpDef(mn, "DATA", sign=prefix >> 2, prefix=prefix, cycles="", indexed=False,
                        operands="Y,T,D", description=desc))


_SHIFT_CYC = "2+(n+2)//12"

# Control and transfers
_b("HTR", +0o000, desc="halt; START continues at Y", sign=0)
_b("HPR", +0o420, indexed=False, operands="", desc="halt; START continues with the next instruction")
_b("NOP", +0o761, indexed=False, operands="", desc="no operation")
_b("TRA", +0o020, desc="IC <- Y")
_b("TTR", +0o021, desc="transfer, even in trapping mode")
_b("TZE", +0o100, desc="transfer if AC Q,P,1-35 = 0")
_b("TNZ", -0o100, desc="transfer if AC Q,P,1-35 != 0")
_b("TPL", +0o120, desc="transfer if AC sign +")
_b("TMI", -0o120, desc="transfer if AC sign -")
_b("TOV", +0o140, desc="if AC overflow: turn it off and transfer")
_b("TNO", -0o140, desc="if AC overflow off: transfer; else turn it off")
_b("TQP", +0o162, desc="transfer if MQ sign +")
_b("TQO", +0o161, desc="if MQ overflow: turn it off and transfer")
_b("TLQ", +0o040, desc="transfer if C(MQ) < C(AC) algebraically")
_b("TSX", +0o074, indexed=False, desc="XR(T) <- 2's complement of location; IC <- Y")
_a("TXI", 0o1, "XR(T) <- XR(T) + D; IC <- Y")
_a("TIX", 0o2, "if XR(T) > D: XR(T) -= D, IC <- Y")
_a("TXH", 0o3, "if XR(T) > D: IC <- Y")
_a("TNX", 0o6, "if XR(T) > D: XR(T) -= D; else IC <- Y")
_a("TXL", 0o7, "if XR(T) <= D: IC <- Y")

# Fixed point and loads
_b("CLA", +0o500, desc="AC <- C(Y)")
_b("CLS", +0o502, desc="AC <- -C(Y)")
_b("CAL", -0o500, desc="AC P,1-35 <- C(Y) S,1-35; AC S,Q <- 0")
_b("ADD", +0o400, desc="AC <- AC + C(Y)")
_b("ADM", +0o401, desc="AC <- AC + |C(Y)|")
_b("SUB", +0o402, desc="AC <- AC - C(Y)")
_b("SBM", -0o400, desc="AC <- AC - |C(Y)|")
_b("ACL", +0o361, desc="AC P,1-35 <- AC P,1-35 + C(Y), end-around carry")
_b("MPY", +0o200, "20", desc="AC,MQ <- C(MQ) * C(Y)")
_b("MPR", -0o200, "20", desc="MPY, then round AC by MQ bit 1")
_b("DVH", +0o220, "20|3", desc="MQ <- AC,MQ / C(Y), AC <- remainder; divide check halts")
_b("DVP", +0o221, "20|3", desc="MQ <- AC,MQ / C(Y), AC <- remainder; divide check proceeds")
_b("LDQ", +0o560, desc="MQ <- C(Y)")

# Stores
_b("STO", +0o601, desc="C(Y) <- AC S,1-35")
_b("SLW", +0o602, desc="C(Y) <- AC P,1-35")
_b("STZ", +0o600, desc="C(Y) <- +0")
_b("STQ", -0o600, desc="C(Y) <- MQ")
_b("SLQ", -0o620, desc="C(Y) S,1-17 <- MQ S,1-17")
_b("STA", +0o621, desc="C(Y) 21-35 <- AC 21-35")
_b("STD", +0o622, desc="C(Y) 3-17 <- AC 3-17")
_b("STP", +0o630, desc="C(Y) S,1,2 <- AC P,1,2")

# Logical
_b("ANA", -0o320, "3", desc="AC P,1-35 <- AC P,1-35 AND C(Y); AC S,Q <- 0")
_b("ANS", +0o320, "4", desc="C(Y) <- AC P,1-35 AND C(Y)")
_b("ORA", -0o501, desc="AC P,1-35 <- AC P,1-35 OR C(Y)")
_b("ORS", -0o602, desc="C(Y) <- AC P,1-35 OR C(Y)")
_b("CAS", +0o340, "3", desc="compare AC with C(Y): > next, = skip 1, < skip 2")

# Shifts
_b("ALS", +0o767, _SHIFT_CYC, operands="n,T", desc="AC Q,P,1-35 left n")
_b("ARS", +0o771, _SHIFT_CYC, operands="n,T", desc="AC Q,P,1-35 right n")
_b("LLS", +0o763, _SHIFT_CYC, operands="n,T", desc="AC,MQ left n; AC S <- MQ S")
_b("LRS", +0o765, _SHIFT_CYC, operands="n,T", desc="AC,MQ right n; MQ S <- AC S")
_b("LGL", -0o763, _SHIFT_CYC, operands="n,T", desc="AC Q,P,1-35 + MQ S,1-35 left n")
_b("RQL", -0o773, _SHIFT_CYC, operands="n,T", desc="rotate MQ left n")

# Index registers
_b("LXA", +0o534, indexed=False, desc="XR(T) <- C(Y) 21-35")
_b("LXD", -0o534, indexed=False, desc="XR(T) <- C(Y) 3-17")
_b("SXD", -0o634, indexed=False, desc="C(Y) 3-17 <- XR(T)")
_b("PAX", +0o734, indexed=False, operands="0,T", desc="XR(T) <- AC 21-35")
_b("PDX", -0o734, indexed=False, operands="0,T", desc="XR(T) <- AC 3-17")
_b("PXD", -0o754, indexed=False, operands="0,T", desc="AC <- 0; AC 3-17 <- XR(T)")

# Floating point
_b("FAD", +0o300, "6-13", desc="floating add, normalized")
_b("UFA", -0o300, "5+", desc="floating add, unnormalized")
_b("FSB", +0o302, "6-13", desc="floating subtract, normalized")
_b("UFS", -0o302, "5+", desc="floating subtract, unnormalized")
_b("FMP", +0o260, "17", desc="floating multiply C(MQ) * C(Y), normalized")
_b("UFM", -0o260, "17", desc="floating multiply, unnormalized")
_b("FDH", +0o240, "18|3", desc="floating divide AC / C(Y); divide check halts")
_b("FDP", +0o241, "18|3", desc="floating divide AC / C(Y); divide check proceeds")

# The +0760 / -0760 group: address (after indexing) selects the operation.
_s("CLM", 0, 0o000, "AC Q,P,1-35 <- 0")
_s("LBT", 0, 0o001, "skip if AC bit 35 = 1")
_s("CHS", 0, 0o002, "invert AC sign")
_s("SSP", 0, 0o003, "AC sign <- +")
_s("COM", 0, 0o006, "complement AC Q,P,1-35")
_s("ETM", 0, 0o007, "enter trapping mode")
_s("RND", 0, 0o010, "if MQ bit 1: add 1 to AC magnitude")
_s("DCT", 0, 0o012, "divide check on: turn off, next; off: skip")
_s("PBT", 1, 0o001, "skip if AC P = 1")
_s("SSM", 1, 0o003, "AC sign <- -")
_s("LTM", 1, 0o007, "leave trapping mode")
_s("ETT", 1, 0o011, "end of tape on: turn off, next; off: skip")
_s("RTT", 1, 0o012, "tape check on: turn off, next; off: skip")
_s("SLF", 0, 0o140, "all sense lights off")
_s("SLN", 0, 0o140, "sense light i on", rng=(1, 4))
_s("SWT", 0, 0o160, "skip if sense switch i is down", rng=(1, 6))
_s("SPT", 0, 0o360, "skip if printer sense (exit 7) is set")
_s("SPR", 0, 0o360, "printer exit pulse i", rng=(1, 10))
_s("SPU", 0, 0o340, "punch pulse i", rng=(1, 2))
_s("SLT", 1, 0o140, "if sense light i on: turn it off and skip", rng=(1, 4))
_s("PSE", 0, None, "plus sense: address selects the operation", operands="Y,T")
_s("MSE", 1, None, "minus sense: address selects the operation", operands="Y,T")

# I/O
_io("RDS", +0o762, "2+", "read select device Y")
_io("WRS", +0o766, "2+", "write select device Y")
_io("CPY", +0o700, "2+wait", "copy word device <-> C(Y) via MQ; L+1 word, L+2 EOF, L+3 EOR")
_io("CAD", -0o700, "2+wait", "CPY, then ACL of the word into AC")
_io("LDA", +0o460, "2", "locate drum address C(Y)")
_io("BST", +0o764, "-", "backspace tape Y")
_io("WEF", +0o770, "-", "write end of file on tape Y")
_io("REW", +0o772, "-", "rewind tape Y")

# SAP I/O shorthands (assemble to RDS / WRS)
_alias("RCD", 0o762, 0o321, "RDS 0321: read a card")
_alias("RPR", 0o762, 0o361, "RDS 0361: print with echo check")
_alias("WPR", 0o766, 0o361, "WRS 0361: print a line")
_alias("WPU", 0o766, 0o341, "WRS 0341: punch a card")
_alias("WTV", 0o766, 0o030, "WRS 0030: CRT")
_alias("IOD", 0o766, 0o333, "WRS 0333: in-out delay")
_alias("RTB", 0o762, 0o220, "RDS 0220+i: read binary tape i", rng=(1, 10))
_alias("RTD", 0o762, 0o200, "RDS 0200+i: read BCD tape i", rng=(1, 10))
_alias("RDR", 0o762, 0o300, "RDS 0300+i: read drum i", rng=(1, 8))
_alias("WTB", 0o766, 0o220, "WRS 0220+i: write binary tape i", rng=(1, 10))
_alias("WTD", 0o766, 0o200, "WRS 0200+i: write BCD tape i", rng=(1, 10))
_alias("WDR", 0o766, 0o300, "WRS 0300+i: write drum i", rng=(1, 8))
_alias("WTS", 0o766, 0o320, "WRS 0320+i", rng=(1, 10))

# Data words (prefix only)
_data("PZE", 0o0, "prefix +0")
_data("PON", 0o1, "prefix +1")
_data("PTW", 0o2, "prefix +2")
_data("PTH", 0o3, "prefix +3")
_data("MZE", 0o4, "prefix -0")
_data("MON", 0o5, "prefix -1")
_data("MTW", 0o6, "prefix -2")
_data("MTH", 0o7, "prefix -3")
_data("FOR", 0o4, "prefix 4 (= MZE)")
_data("FVE", 0o5, "prefix 5 (= MON)")
_data("SIX", 0o6, "prefix 6 (= MTW)")
_data("SVN", 0o7, "prefix 7 (= MTH)")

OPCODES: dict[str, OpDef] = {d.mnemonic: d for d in _TABLE}
assert len(OPCODES) == len(_TABLE), "duplicate mnemonic in the instruction table"
for _d in _TABLE:
    parse_cycles(_d.cycles)  # every cycles text must parse: ValueError at import otherwise


def longest_cycles() -> int:
    """The most cycles any instruction can take by the table (a 255-place shift: 23)."""
    return max(t.most for d in OPCODES.values() if (t := d.timing) is not None and t.most is not None)


# --------------------------------------------------------------------------------------------
# Derived lookup tables
# --------------------------------------------------------------------------------------------

def type_b_table() -> dict[int, OpDef]:
    """12-bit code (``word >> 24`` with bits 1,2 = 0) -> B / IO entry; ±0760 -> PSE / MSE."""
    out: dict[int, OpDef] = {}
    for d in OPCODES.values():
        if d.kind in ("B", "IO") or (d.kind == "B760" and d.sub_op is None):
            out[d.code] = d
    return out


def type_a_table() -> dict[int, OpDef]:
    """Prefix (0..7, bits S,1,2) -> type A entry."""
    return {d.prefix: d for d in OPCODES.values() if d.kind == "A"}


def b760_table(sign: int) -> dict[int, OpDef]:
    """Effective address -> named B760 sub-op for +0760 (sign 0) or -0760 (sign 1)."""
    out: dict[int, OpDef] = {}
    for d in OPCODES.values():
        if d.kind != "B760" or d.sign != sign or d.sub_op is None:
            continue
        if d.operand_added:
            assert d.operand_range is not None
            lo, hi = d.operand_range
            for i in range(lo, hi + 1):
                out.setdefault(d.sub_op + i, d)
        else:
            out.setdefault(d.sub_op, d)
    return out


def _alias_table() -> dict[tuple[int, int], OpDef]:
    out: dict[tuple[int, int], OpDef] = {}
    for d in OPCODES.values():  # fixed aliases first (they win over ranges)
        if d.kind == "ALIAS_IO" and not d.operand_added:
            assert d.sub_op is not None
            out[(d.op, d.sub_op)] = d
    for d in OPCODES.values():
        if d.kind == "ALIAS_IO" and d.operand_added:
            assert d.sub_op is not None and d.operand_range is not None
            lo, hi = d.operand_range
            for i in range(lo, hi + 1):
                out.setdefault((d.op, d.sub_op + i), d)
    return out


_TYPE_B = type_b_table()
_TYPE_A = type_a_table()
_B760 = (b760_table(0), b760_table(1))
_ALIASES = _alias_table()
_DATA_BY_PREFIX = {d.prefix: d for d in OPCODES.values() if d.kind == "DATA" and d.mnemonic[0] in "PM"}


# --------------------------------------------------------------------------------------------
# encode / decode
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Decoded:
    opdef: OpDef | None
    """The most specific table entry, or None for a code the 704 does not have."""
    address: int
    tag: int
    decrement: int
    """Bits 3-17 for type A and data words; 0 for type B."""
    operand: int
    """What goes in the variable field's address part, so that ``encode(opdef, operand, tag, decrement)``
    rebuilds the word: address - base for ``operand_added`` entries (``SLN 2`` -> 2), 0 for fixed
    sub-ops and fixed aliases (CHS, RCD), else the address."""
    word: int

    @property
    def mnemonic(self) -> str | None:
        return None if self.opdef is None else self.opdef.mnemonic


def lookup(mnemonic: str) -> OpDef:
    """Table entry for ``mnemonic`` (case-insensitive); KeyError if unknown."""
    return OPCODES[mnemonic.upper()]


def encode(op: str | OpDef, address: int = 0, tag: int = 0, decrement: int = 0) -> int:
    """The 36-bit word for ``op`` with the given fields.

    * A / DATA: prefix, decrement, tag, address.
    * B / IO / PSE / MSE: sign + op code, tag, address (``decrement`` must be 0).
    * B760 named sub-ops and ALIAS_IO: the fixed address (``address`` must be 0) or, for
      ``operand_added`` ones, base + ``address`` (the operand).
    """
    d = op if isinstance(op, OpDef) else lookup(op)
    a = address & ADDR_MASK
    t = tag & TAG_MASK
    if d.kind in ("A", "DATA"):
        return (
            (d.prefix << PREFIX_SHIFT) | ((decrement & DECR_MASK) << DECR_SHIFT) | (t << TAG_SHIFT) | a
        )
    if decrement & DECR_MASK:
        raise ValueError(f"{d.mnemonic} is type B and has no decrement")
    if d.sub_op is not None:
        if d.operand_added:
            a = (d.sub_op + address) & ADDR_MASK
        elif a:
            raise ValueError(f"{d.mnemonic} takes no address (it is fixed at {d.sub_op:04o})")
        else:
            a = d.sub_op
    return ((d.sign << 35) | (d.op << OP_SHIFT) | (t << TAG_SHIFT) | a) & WORD_MASK


def decode(word: int) -> Decoded:
    """Name ``word`` as an instruction, choosing the most specific mnemonic (see module doc)."""
    word &= WORD_MASK
    address = word & ADDR_MASK
    tag = (word >> TAG_SHIFT) & TAG_MASK
    if (word >> TYPEA_SHIFT) & TYPEA_MASK:
        d = _TYPE_A.get(word >> PREFIX_SHIFT)
        return Decoded(d, address, tag, (word >> DECR_SHIFT) & DECR_MASK, address, word)
    sign = 1 if word & SIGN else 0
    op = (word >> OP_SHIFT) & OP_MASK
    d = _TYPE_B.get((sign << 11) | op)
    operand = address
    if d is not None and tag == 0:
        if d.kind == "B760":
            sub = _B760[sign].get(address)
            if sub is not None:
                d = sub
        elif d.mnemonic in ("RDS", "WRS"):
            alias = _ALIASES.get((op, address))
            if alias is not None:
                d = alias
        if d.sub_op is not None:
            operand = address - d.sub_op
    return Decoded(d, address, tag, 0, operand, word)


def decode_data(word: int) -> Decoded:
    """Name ``word`` as a data word (PZE, PON, ... MTH)."""
    word &= WORD_MASK
    d = _DATA_BY_PREFIX[word >> PREFIX_SHIFT]
    a = word & ADDR_MASK
    return Decoded(d, a, (word >> TAG_SHIFT) & TAG_MASK, (word >> DECR_SHIFT) & DECR_MASK, a, word)


def code_of(word: int) -> int:
    """12-bit dispatch code of a type B word (``word >> 24``, bits 12+ dropped)."""
    return (word >> CODE_SHIFT) & 0o7777


__all__ = [
    "BASIC_CYCLES",
    "KINDS",
    "OPCODES",
    "SHIFT_COUNT_MASK",
    "Decoded",
    "OpDef",
    "Timing",
    "b760_table",
    "code_of",
    "decode",
    "decode_data",
    "encode",
    "longest_cycles",
    "lookup",
    "parse_cycles",
    "type_a_table",
    "type_b_table",
]
