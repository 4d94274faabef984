"""Shared set-up for the emu704 CPU tests, py65 style.

Every test has four beats: make a machine (memory pre-filled with SENTINEL), set registers,
poke the instruction words (with the assembly in a comment), step, then assert registers,
indicators, IC and cycles.
"""

from __future__ import annotations

from emu704.cpu import AC_P, AC_Q, AC_S, Machine
from emu704.isa import encode
from emu704.word import SIGN

SENTINEL = 0o525252525252
"""Memory fill: alternating bits; as an instruction it is illegal (prefix -1, the 709's STR)."""

__all__ = ["AC_P", "AC_Q", "AC_S", "SENTINEL", "SIGN", "ac_of", "asm", "make_machine", "minus", "poke"]


def make_machine(words: int = 32768) -> Machine:
    return Machine(words, fill=SENTINEL)


def asm(mnemonic: str, address: int = 0, tag: int = 0, decrement: int = 0) -> int:
    return encode(mnemonic, address, tag, decrement)


def poke(m: Machine, address: int, *words: int) -> None:
    for i, w in enumerate(words):
        m.write(address + i, w)


def minus(magnitude: int) -> int:
    """A negative storage word (sign-magnitude)."""
    return SIGN | magnitude


def ac_of(magnitude: int, *, negative: bool = False, q: bool = False, p: bool = False) -> int:
    """An AC value: sign, Q, P and the 35-bit magnitude."""
    return (AC_S if negative else 0) | (AC_Q if q else 0) | (AC_P if p else 0) | magnitude
