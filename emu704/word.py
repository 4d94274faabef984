"""36-bit IBM 704 words: sign-magnitude helpers, instruction fields, octal formatting.

A storage word is a Python ``int`` in ``0 .. 2**36 - 1`` holding the 704 word with IBM
bit S in int bit 35 and IBM bit 35 in int bit 0 (IBM bit *k* = int bit ``35 - k``)::

    IBM bit:  S  1  2  3 ............ 17  18 19 20  21 ........... 35
    int bit: 35 34 33 32 ............ 18  17 16 15  14 ............ 0
             |prefix |    decrement     |  tag    |     address     |   (type A / data words)
             |S|  op code (bits 3-11)   |..|..| tag |     address     |   (type B, bits 1,2 = 0)

Fixed-point numbers are **sign-magnitude**: S = 1 is minus, bits 1-35 are the magnitude, and
both +0 (``0``) and -0 (``SIGN``) exist.  Conversions keep the distinction through an explicit
sign: :func:`to_int` returns ``(negative, magnitude)`` as well as a plain value helper.

Field constants follow SIMH: ``<FIELD>_SHIFT`` (bit position of the field's low bit) and
``<FIELD>_MASK`` (mask *after* shifting down), plus ``get_<field>``/``set_<field>`` accessors.
All constants are octal, the machine's radix.
"""

from __future__ import annotations

WORD_BITS = 36
WORD_MASK = 0o777777777777  # all 36 bits
SIGN = 0o400000000000  # bit S
MAG_MASK = 0o377777777777  # bits 1-35

# Instruction / partial-word fields (SIMH style: shift of the low bit, mask after shifting).
PREFIX_SHIFT = 33  # S,1,2 (type A prefix; data-word prefix; STP field)
PREFIX_MASK = 0o7
DECR_SHIFT = 18  # bits 3-17 (decrement; STD/LXD/SXD/PDX/PXD field)
DECR_MASK = 0o77777
TAG_SHIFT = 15  # bits 18-20
TAG_MASK = 0o7
ADDR_SHIFT = 0  # bits 21-35 (address; STA/LXA/PAX field)
ADDR_MASK = 0o77777
OP_SHIFT = 24  # bits 3-11: type B op code (without sign)
OP_MASK = 0o777
CODE_SHIFT = 24  # S,1-11 as one 12-bit field: SIMH-style op code (-0500 -> 0o4500)
CODE_MASK = 0o7777
TYPEA_SHIFT = 33  # bits 1,2: non-zero means a type A instruction
TYPEA_MASK = 0o3

# In-word masks for the partial-word stores.
PREFIX_FIELD = PREFIX_MASK << PREFIX_SHIFT  # 0o700000000000
DECR_FIELD = DECR_MASK << DECR_SHIFT  # 0o077777000000
TAG_FIELD = TAG_MASK << TAG_SHIFT  # 0o000000700000
ADDR_FIELD = ADDR_MASK << ADDR_SHIFT  # 0o000000077777
LEFT_HALF = 0o777777000000  # S,1-17 (SLQ)
RIGHT_HALF = 0o000000777777  # 18-35

# Floating point: S, characteristic (bits 1-8, excess 128), fraction (bits 9-35).
FP_CHAR_SHIFT = 27
FP_CHAR_MASK = 0o377
FP_FRAC_MASK = 0o777777777  # 27 bits
FP_NORM_BIT = 0o400000000  # bit 9
FP_BIAS = 128


def get_prefix(word: int) -> int:
    """Bits S,1,2 as a 3-bit number (0..7)."""
    return (word >> PREFIX_SHIFT) & PREFIX_MASK


def get_decrement(word: int) -> int:
    """Bits 3-17."""
    return (word >> DECR_SHIFT) & DECR_MASK


def get_tag(word: int) -> int:
    """Bits 18-20."""
    return (word >> TAG_SHIFT) & TAG_MASK


def get_address(word: int) -> int:
    """Bits 21-35."""
    return word & ADDR_MASK


def get_op(word: int) -> int:
    """Bits 3-11 (the type B op code without its sign)."""
    return (word >> OP_SHIFT) & OP_MASK


def get_code(word: int) -> int:
    """Bits S,1-11 as a 12-bit code (SIMH style: +0500 -> 0o0500, -0500 -> 0o4500)."""
    return (word >> CODE_SHIFT) & CODE_MASK


def is_type_a(word: int) -> bool:
    """True when bits 1,2 are not both zero (TXI/TIX/TXH/TNX/TXL and the 709's STR)."""
    return (word >> TYPEA_SHIFT) & TYPEA_MASK != 0


def is_negative(word: int) -> bool:
    return word & SIGN != 0


def magnitude(word: int) -> int:
    return word & MAG_MASK


def set_prefix(word: int, value: int) -> int:
    return (word & ~PREFIX_FIELD & WORD_MASK) | ((value & PREFIX_MASK) << PREFIX_SHIFT)


def set_decrement(word: int, value: int) -> int:
    return (word & ~DECR_FIELD & WORD_MASK) | ((value & DECR_MASK) << DECR_SHIFT)


def set_tag(word: int, value: int) -> int:
    return (word & ~TAG_FIELD & WORD_MASK) | ((value & TAG_MASK) << TAG_SHIFT)


def set_address(word: int, value: int) -> int:
    return (word & ~ADDR_FIELD & WORD_MASK) | (value & ADDR_MASK)


def make_word(prefix: int = 0, decrement: int = 0, tag: int = 0, address: int = 0) -> int:
    """Assemble a type A / data word from its four fields (each masked to its width)."""
    return (
        ((prefix & PREFIX_MASK) << PREFIX_SHIFT)
        | ((decrement & DECR_MASK) << DECR_SHIFT)
        | ((tag & TAG_MASK) << TAG_SHIFT)
        | (address & ADDR_MASK)
    )


def to_int(word: int) -> int:
    """The word as a signed Python int (sign-magnitude; -0 becomes 0, see :func:`to_signed`)."""
    mag = word & MAG_MASK
    return -mag if word & SIGN else mag


def to_signed(word: int) -> tuple[bool, int]:
    """``(negative, magnitude)`` -- keeps -0 distinct from +0."""
    return bool(word & SIGN), word & MAG_MASK


def from_int(value: int, negative: bool | None = None) -> int:
    """A sign-magnitude word for ``value``.

    ``negative`` forces the sign (so ``from_int(0, negative=True)`` is -0); by default the sign is
    that of ``value``.  Raises ``OverflowError`` if ``|value|`` needs more than 35 bits.
    """
    mag = -value if value < 0 else value
    if mag > MAG_MASK:
        raise OverflowError(f"|{value}| does not fit in 35 bits")
    neg = value < 0 if negative is None else negative
    return (SIGN | mag) if neg else mag


def format_octal(word: int) -> str:
    """Signed 12-digit octal, IBM style: ``+000000001234`` / ``-377777777777``."""
    return ("-" if word & SIGN else "+") + f"{word & MAG_MASK:012o}"


def format_instruction(word: int) -> str:
    """Word split into instruction fields, in octal.

    Type B: ``+0500 00 0 01234`` (signed op code, bits 12-17, tag, address).
    Type A: ``+1 00005 4 01234`` (signed prefix, decrement, tag, address).
    """
    sign = "-" if word & SIGN else "+"
    if is_type_a(word):
        return (
            f"{sign}{(word >> TYPEA_SHIFT) & TYPEA_MASK} {get_decrement(word):05o} "
            f"{get_tag(word):o} {get_address(word):05o}"
        )
    flags = (word >> 18) & 0o77  # bits 12-17: the 709 flag bits, ignored by the 704
    return f"{sign}{get_op(word):04o} {flags:02o} {get_tag(word):o} {get_address(word):05o}"


def format_data(word: int) -> str:
    """Word as data-word fields: ``+0 00005 4 01234`` (prefix digit incl. sign, decrement, tag, address)."""
    sign = "-" if word & SIGN else "+"
    return (
        f"{sign}{(word >> 33) & 3} {get_decrement(word):05o} {get_tag(word):o} {get_address(word):05o}"
    )


def parse_octal(text: str) -> int:
    """Inverse of :func:`format_octal`: ``"+000000001234"``, ``"-5"``, ``"777"`` -> word."""
    t = text.strip().replace(" ", "")
    neg = t.startswith("-")
    if t[:1] in "+-":
        t = t[1:]
    mag = int(t, 8)
    if mag > MAG_MASK:
        if neg:
            raise OverflowError(f"{text!r} does not fit in 35 bits")
        if mag > WORD_MASK:
            raise OverflowError(f"{text!r} does not fit in 36 bits")
        return mag  # an unsigned 36-bit pattern such as 400000000000
    return (SIGN | mag) if neg else mag


# Floating point -------------------------------------------------------------------------------

def fp_char(word: int) -> int:
    """Characteristic (bits 1-8, excess 128)."""
    return (word >> FP_CHAR_SHIFT) & FP_CHAR_MASK


def fp_fraction(word: int) -> int:
    """27-bit fraction (bits 9-35)."""
    return word & FP_FRAC_MASK


def float_to_word(value: float) -> int:
    """Nearest normalized 704 floating-point word (truncated fraction, like the 704's DEC).

    Zero becomes +0 (all bits clear).  Raises ``OverflowError`` when the characteristic
    does not fit in 8 bits.
    """
    import math

    if value == 0.0:
        return SIGN if math.copysign(1.0, value) < 0 else 0
    neg = value < 0
    m, e = math.frexp(abs(value))  # abs = m * 2**e, 0.5 <= m < 1
    frac = int(m * (1 << 27))
    if frac >> 27:  # rounding pushed it to 1.0
        frac >>= 1
        e += 1
    char = e + FP_BIAS
    if not 0 <= char <= FP_CHAR_MASK:
        raise OverflowError(f"{value!r} is outside the 704 floating-point range")
    return (SIGN if neg else 0) | (char << FP_CHAR_SHIFT) | frac


def word_to_float(word: int) -> float:
    """Value of a 704 floating-point word (normalized or not)."""
    v = fp_fraction(word) * 2.0 ** (fp_char(word) - FP_BIAS - 27)
    return -v if word & SIGN else v
