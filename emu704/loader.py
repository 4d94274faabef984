"""LOAD CARD and self-loading binary decks.

LOAD CARD (shared/reference/ibm704.md section 3.4) is the console key that does
``RDS 0321; CPY 0; CPY 1; TRA 0``: it feeds the first card, puts its first two
words (row 9 left and right) in locations 0 and 1 and starts at 0 with the
reader still selected, so the program there can copy the rest of the card.
load_card() does this against any machine satisfying LoadCardMachine, or by
stepping the three instructions on an emu704.cpu.Machine (SteppingMachine).

Self-loading deck layout (build_self_loading_deck)
---------------------------------------------------
All words are row-binary card words (emu704.cards), word k = the k-th word the
reader delivers (row 9 left is word 0).  Locations and operands below are
decimal, as SAP writes them, except the octal device address 0321.

Card 1, the bootstrap card: 24 words loaded to locations 0-23, of which 0-14
are the loader below; 15-23 are zero (so those locations are cleared unless a
block loads them).  LOAD CARD copies words 0 and 1; the
loop at 1-2 copies word k to location k for k = 2..23 (XR4 runs 0, -1, -2, ...
so ``CPY 2,4`` stores at 2 - XR4); the card's end of record leaves the CPY at
L+3 = location 4.  Location 3 (the CPY's end-of-file exit) cannot be reached.

    loc  octal word      instruction     note
     0   +053400400000   LXA 0,4         XR4 <- address of C(0), which is this word: 0
     1   +070000400002   CPY 2,4         card word -> 2 - XR4
     2   +177777400001   TXI 1,4,-1      XR4 <- XR4 - 1, loop
     3   +000000000003   HTR 3           (EOF exit of 1: cannot happen)
     4   +076200000321   RDS 0321        NEXT: feed the next card (drops the rest of the last one)
     5   +053400400000   LXA 0,4         XR4 <- 0
     6   +070000000007   CPY 7           card word 0 (control word) -> 7
     7   (card word 0)                   executed: TXI 10,4,n (data card) or TRA start (transfer card)
     8   +000000000004   HTR 4           EOF exit of 6: deck ended without a transfer card; START retries
     9   +000000000004   HTR 4           (EOR exit of 6: cannot happen)
    10   +070000000013   CPY 11          card word 1 (address word) -> 11
    11   (card word 1)                   executed: CPY a+n,4: data word -> a+n - XR4 = a, a+1, ...
    12   +200001400013   TIX 11,4,1      XR4 > 1: XR4 <- XR4 - 1, copy the next word
    13   +002000000004   TRA 4           card done: next card
    14   +000000000016   HTR 14          (EOR exit of 11: cannot happen, n <= 22)

Data card, loading n words (1 <= n <= 22) at a, a+1, ... a+n-1:

    word 0      TXI 10,4,n   = +1 n 4 00012  (prefix +1, decrement n, tag 4, address 10)
    word 1      CPY a+n,4    = +0700 00 4 (a+n mod 2^15)
    words 2..n+1  the n data words, in address order
    rest        zero

Transfer card (last card): word 0 = TRA start (+0020 00 0 start), the rest zero.
The loader executes it at location 7, so the program starts with XR4 = 0 and
the card reader still selected part-way through the transfer card; its first
RDS of the reader feeds the next card after the deck.

Blocks must stay clear of the loader's locations 0-14 (LOADER_RESERVED) and
inside 15-bit addresses (32K); they may be given in any order but must not
overlap.  The deck carries no checksums: the emulated reader cannot misread.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

from emu704.cards import WORD_MASK, WORDS_PER_CARD, CardImage, words_to_card
from emu704.iobus import CopyStatus

READER_ADDRESS = 0o321
ADDRESS_LIMIT = 0o100000
"""Addresses are 15 bits (32K words, the largest 704)."""

MAX_DATA_WORDS = WORDS_PER_CARD - 2
"""Data words on one data card (22)."""

LOADER_RESERVED = range(0, 15)
"""Locations the loader occupies while a deck is being read; blocks may not use them."""


def _type_b(code: int, address: int = 0, tag: int = 0) -> int:
    """A type B instruction; ``code`` is the signed octal op code as a 12-bit field (-0500 -> 0o4500)."""
    return code << 24 | tag << 15 | address & 0o77777


def _type_a(prefix: int, address: int, tag: int, decrement: int) -> int:
    """A type A instruction (prefix 1 TXI, 2 TIX, 3 TXH, 6 TNX, 7 TXL)."""
    return prefix << 33 | (decrement & 0o77777) << 18 | tag << 15 | address & 0o77777


_LXA = 0o0534
_CPY = 0o0700
_HTR = 0o0000
_RDS = 0o0762
_WRS = 0o0766
_TRA = 0o0020
_TXI = 1
_TIX = 2

LOC_NEXT = 4
"""Loader entry: read the next card."""
LOC_CONTROL = 7
"""Where a card's word 0 (control word) is stored and executed."""
LOC_ADDRESS = 10
"""Where a data card's TXI goes: copy word 1."""
LOC_COPY = 11
"""Where a data card's word 1 (the CPY that stores the data) is stored and executed."""

BOOTSTRAP: tuple[tuple[int, str], ...] = (
    (_type_b(_LXA, 0, 4), "LXA 0,4      XR4 <- 0 (the address of this very word)"),
    (_type_b(_CPY, 2, 4), "CPY 2,4      card word -> 2 - XR4"),
    (_type_a(_TXI, 1, 4, -1), "TXI 1,4,-1   XR4 <- XR4 - 1, loop"),
    (_type_b(_HTR, 3), "HTR 3        (EOF exit: cannot happen)"),
    (_type_b(_RDS, READER_ADDRESS), "RDS 0321     NEXT: feed the next card"),
    (_type_b(_LXA, 0, 4), "LXA 0,4      XR4 <- 0"),
    (_type_b(_CPY, LOC_CONTROL), "CPY 7        control word -> 7"),
    (_type_b(_HTR, LOC_NEXT), "(control)    TXI 10,4,n or TRA start"),
    (_type_b(_HTR, LOC_NEXT), "HTR 4        EOF: no transfer card; START retries"),
    (_type_b(_HTR, LOC_NEXT), "HTR 4        (EOR exit: cannot happen)"),
    (_type_b(_CPY, LOC_COPY), "CPY 11       address word -> 11"),
    (_type_b(_HTR, LOC_NEXT), "(address)    CPY a+n,4"),
    (_type_a(_TIX, LOC_COPY, 4, 1), "TIX 11,4,1   more words: XR4 <- XR4 - 1, loop"),
    (_type_b(_TRA, LOC_NEXT), "TRA 4        card done: next card"),
    (_type_b(_HTR, 14), "HTR 14       (EOR exit: cannot happen)"),
)
"""The loader, locations 0-14: (word, listing line)."""

BOOTSTRAP_CARD: CardImage = words_to_card([word for word, _ in BOOTSTRAP])
"""Card 1 of every self-loading deck."""


class LoadError(RuntimeError):
    """LOAD CARD could not read the first card."""


class LoadCardMachine(Protocol):
    """What load_card needs from a machine: the effects of RDS, CPY and TRA.

    * ``select_device(address, write)``: what ``RDS address`` (write=False) or
      ``WRS address`` does: disconnect the selected device, select the one at
      ``address``.
    * ``copy_word(address)``: what ``CPY address`` does after a read select:
      one word from the selected device into C(address) and MQ; returns the
      device's CopyStatus (WORD, END_OF_FILE, END_OF_RECORD or WAIT, in which
      case nothing was stored).
    * ``ic``: the instruction counter (set to 0 to start there).
    """

    ic: int

    def select_device(self, address: int, write: bool) -> None: ...

    def copy_word(self, address: int) -> CopyStatus: ...


class SteppingMachine(Protocol):
    """The other shape load_card accepts (emu704.cpu.Machine): memory, IC and single step.

    ``step()`` executes one instruction and returns None, or a stop reason
    whose ``name`` is e.g. ``"WAITING_FOR_INPUT"``; ``stop_detail`` (optional)
    explains the last stop.
    """

    ic: int

    def read(self, address: int) -> int: ...

    def write(self, address: int, word: int) -> None: ...

    def step(self) -> object: ...


class _SteppedBoot:
    """LoadCardMachine on a SteppingMachine: runs RDS / CPY from a borrowed location.

    The word at SCRATCH is put back afterwards, so only locations 0 and 1 (and
    the MQ, the selected device and the instruction counters) change, as with
    the real key.
    """

    SCRATCH = 2

    def __init__(self, machine: SteppingMachine) -> None:
        self.machine = machine

    @property
    def ic(self) -> int:
        return self.machine.ic

    @ic.setter
    def ic(self, value: int) -> None:
        self.machine.ic = value

    def _execute(self, word: int) -> tuple[object, int]:
        m = self.machine
        saved = m.read(self.SCRATCH)
        try:
            m.write(self.SCRATCH, word)
            m.ic = self.SCRATCH
            reason = m.step()
        finally:
            m.write(self.SCRATCH, saved)
        return reason, m.ic - self.SCRATCH

    def _detail(self, reason: object) -> str:
        detail = getattr(self.machine, "stop_detail", "")
        return str(detail or getattr(reason, "name", reason))

    def select_device(self, address: int, write: bool) -> None:
        reason, _ = self._execute(_type_b(_WRS if write else _RDS, address))
        if reason is not None:
            raise LoadError(f"LOAD CARD: {self._detail(reason)}")

    def copy_word(self, address: int) -> CopyStatus:
        reason, advance = self._execute(_type_b(_CPY, address))
        if reason is not None:
            if getattr(reason, "name", None) == "WAITING_FOR_INPUT":
                return CopyStatus.WAIT
            raise LoadError(f"LOAD CARD: {self._detail(reason)}")
        return {1: CopyStatus.WORD, 2: CopyStatus.END_OF_FILE, 3: CopyStatus.END_OF_RECORD}[advance]


def load_card(machine: LoadCardMachine | SteppingMachine) -> None:
    """Press LOAD CARD: ``RDS 0321; CPY 0; CPY 1``, then IC <- 0 (the caller runs the machine).

    ``machine`` either has ``select_device``/``copy_word`` (LoadCardMachine) or
    is an emu704.cpu.Machine-like SteppingMachine, on which the RDS and CPYs are
    executed from location 2 (restored afterwards).  Registers other than the
    MQ and IC are not reset; call the machine's reset() first for a cold start.

    Raises LoadError when the reader has no card (WAIT), is at end of file, the
    card ends early, or the machine has no card reader; the reader is then left
    selected.
    """
    boot: LoadCardMachine
    if hasattr(machine, "select_device") and hasattr(machine, "copy_word"):
        boot = machine  # type: ignore[assignment]
    else:
        boot = _SteppedBoot(machine)
    boot.select_device(READER_ADDRESS, False)
    for address in (0, 1):
        status = boot.copy_word(address)
        if status is CopyStatus.WAIT:
            raise LoadError("LOAD CARD: the card reader's hopper is empty; queue the deck first")
        if status is not CopyStatus.WORD:
            raise LoadError(f"LOAD CARD: the card reader answered {status.value} instead of word {address}")
    boot.ic = 0


def data_card(address: int, words: Sequence[int]) -> CardImage:
    """A data card loading 1-22 ``words`` at ``address``, ``address + 1``, ..."""
    n = len(words)
    if not 1 <= n <= MAX_DATA_WORDS:
        raise ValueError(f"a data card carries 1-{MAX_DATA_WORDS} words, not {n}")
    end = address + n
    if address < 0 or end > ADDRESS_LIMIT:
        raise ValueError(f"words {address:o}-{end - 1:o} (octal) are outside 15-bit addresses")
    control = _type_a(_TXI, LOC_ADDRESS, 4, n)
    store = _type_b(_CPY, end, 4)
    return words_to_card([control, store, *words])


def transfer_card(start: int) -> CardImage:
    """The last card: TRA start."""
    if not 0 <= start < ADDRESS_LIMIT:
        raise ValueError(f"start address {start!r} is outside 15-bit addresses")
    return words_to_card([_type_b(_TRA, start)])


def build_self_loading_deck(
    blocks: Iterable[tuple[int, Sequence[int]]], start: int, *, memory_size: int = ADDRESS_LIMIT
) -> list[CardImage]:
    """The deck that loads ``blocks`` (address, words) and then jumps to ``start``.

    Layout in this module's docstring: the bootstrap card, data cards of up to
    22 words in the order the blocks are given, and the transfer card.  Raises
    ValueError for a block inside the loader's locations 0-14, past
    ``memory_size`` (default 32K), or overlapping another block, a word that is
    not 36 bits, or a start address inside the loader or past ``memory_size``.
    """
    if memory_size not in (4096, 8192, ADDRESS_LIMIT):
        raise ValueError(f"memory size must be 4096, 8192 or 32768, not {memory_size!r}")
    normalized = [(address, list(words)) for address, words in blocks]
    spans: list[tuple[int, int]] = []
    for address, words in normalized:
        if not words:
            continue
        end = address + len(words)
        if address < LOADER_RESERVED.stop:
            raise ValueError(
                f"block at {address:o} (octal) overlaps the loader's locations "
                f"0-{LOADER_RESERVED.stop - 1:o}; load programs at {LOADER_RESERVED.stop:o} or above"
            )
        if end > memory_size:
            raise ValueError(
                f"block at {address:o} with {len(words)} words runs past {memory_size - 1:o} (octal), "
                f"the last word of {memory_size // 1024}K"
            )
        for i, word in enumerate(words):
            if not isinstance(word, int) or not 0 <= word <= WORD_MASK:
                raise ValueError(f"word at {address + i:o} (octal) = {word!r} is not a 36-bit value")
        spans.append((address, end))
    spans.sort()
    for (a0, e0), (a1, e1) in itertools.pairwise(spans):
        if a1 < e0:
            raise ValueError(
                f"blocks {a0:o}-{e0 - 1:o} and {a1:o}-{e1 - 1:o} (octal) overlap at {a1:o}"
            )
    if not 0 <= start < memory_size:
        raise ValueError(f"start address {start!r} is outside the {memory_size // 1024}K memory")
    if start in LOADER_RESERVED:
        raise ValueError(f"start address {start:o} (octal) is inside the loader (0-16 octal)")

    deck = [BOOTSTRAP_CARD]
    for address, words in normalized:
        for i in range(0, len(words), MAX_DATA_WORDS):
            deck.append(data_card(address + i, words[i : i + MAX_DATA_WORDS]))
    deck.append(transfer_card(start))
    return deck


def blocks_from_image(image: Mapping[int, int]) -> list[tuple[int, list[int]]]:
    """Runs of consecutive addresses of a sparse memory image {address: word}, in address order."""
    blocks: list[tuple[int, list[int]]] = []
    for address in sorted(image):
        if blocks and blocks[-1][0] + len(blocks[-1][1]) == address:
            blocks[-1][1].append(image[address])
        else:
            blocks.append((address, [image[address]]))
    return blocks


def parse_self_loading_deck(deck: Sequence[CardImage]) -> tuple[list[tuple[int, list[int]]], int]:
    """The (blocks, start) a deck built by build_self_loading_deck loads; ValueError if it is not one."""
    if not deck or deck[0] != BOOTSTRAP_CARD:
        raise ValueError("card 1 is not the emu704 bootstrap card")
    blocks: list[tuple[int, list[int]]] = []
    for number, card in enumerate(deck[1:], start=2):
        control, store = card.words[0], card.words[1]
        if control >> 24 == _TRA and control & 0o000077700000 == 0 and number == len(deck):
            return blocks, control & 0o77777
        n = control >> 18 & 0o77777
        if control != _type_a(_TXI, LOC_ADDRESS, 4, n) or not 1 <= n <= MAX_DATA_WORDS:
            raise ValueError(
                f"card {number}: word 0 {control:012o} is neither TXI 10,4,n nor a final TRA start"
            )
        if store & ~0o77777 != _type_b(_CPY, 0, 4):
            raise ValueError(f"card {number}: word 1 {store:012o} is not CPY a+n,4")
        address = ((store & 0o77777) - n) % ADDRESS_LIMIT
        words = list(card.words[2 : 2 + n])
        if blocks and blocks[-1][0] + len(blocks[-1][1]) == address:
            blocks[-1][1].extend(words)
        else:
            blocks.append((address, words))
    raise ValueError("the deck has no transfer card (TRA start) at its end")
