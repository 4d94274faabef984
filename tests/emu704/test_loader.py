"""LOAD CARD and self-loading decks (ibm704.md section 3.4).

The deck is run on a tiny stand-alone interpreter of just the instructions the
loader uses (RDS CPY LXA TXI TIX TRA HTR), written here from the reference's
opcode table, so the hand-assembled loader is checked independently of
emu704.cpu; when the CPU exists the same deck also runs on it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from emu704 import cards, loader
from emu704.cards import CardImage
from emu704.devices import CardReader
from emu704.iobus import CopyStatus

_NEXT = {CopyStatus.WORD: 1, CopyStatus.END_OF_FILE: 2, CopyStatus.END_OF_RECORD: 3}
"""CPY continues at L+1, L+2 (end of file) or L+3 (end of record)."""


class MiniMachine:
    """Just enough of a 704 to run the loader; satisfies loader.LoadCardMachine."""

    def __init__(self, reader: CardReader, memory_size: int = 4096) -> None:
        self.reader = reader
        self.size = memory_size
        self.xr_mask = memory_size - 1  # 12/13/15-bit index registers
        self.memory = [0o252525252525] * memory_size  # sentinel pattern
        self.xr = {1: 0, 2: 0, 4: 0}
        self.ic = 0
        self.selected: CardReader | None = None
        self.steps = 0

    def select_device(self, address: int, write: bool) -> None:
        assert address == 0o321 and not write
        if self.selected is not None:
            self.selected.disconnect()
        self.selected = self.reader
        self.reader.select(address, write)

    def copy_word(self, address: int) -> CopyStatus:
        assert self.selected is not None, "CPY with nothing selected"
        result = self.selected.copy_in()
        if result.status is CopyStatus.WORD:
            self.memory[address % self.size] = result.word
        return result.status

    def run(self, limit: int = 100_000) -> str:
        while self.steps < limit:
            self.steps += 1
            word = self.memory[self.ic]
            prefix, address = word >> 33, word & 0o77777
            tag, decrement = word >> 15 & 7, word >> 18 & 0o77777
            assert tag in (0, 4), f"loader uses XR4 only: {word:012o}"
            xr = self.xr[4] if tag else 0
            y = (address - xr) % self.size
            if prefix & 3:  # type A
                if prefix == 1:  # TXI
                    self.xr[4] = (self.xr[4] + decrement) & self.xr_mask
                    self.ic = address
                elif prefix == 2:  # TIX
                    if self.xr[4] > decrement:
                        self.xr[4] -= decrement
                        self.ic = address
                    else:
                        self.ic += 1
                else:
                    raise AssertionError(f"unexpected type A word {word:012o}")
                continue
            code = word >> 24
            if code == 0o0000:  # HTR
                return f"HTR at {self.ic}"
            if code == 0o0762:  # RDS
                self.select_device(y, False)
                self.ic += 1
            elif code == 0o0700:  # CPY
                status = self.copy_word(y)
                if status is CopyStatus.WAIT:
                    return "wait"
                self.ic += _NEXT[status]
            elif code == 0o0534:  # LXA (not indexed)
                self.xr[4] = self.memory[address] & 0o77777 & self.xr_mask
                self.ic += 1
            elif code == 0o0020:  # TRA
                self.ic = y
                if self.ic == self.stop_at:
                    return "started"
            else:
                raise AssertionError(f"unexpected word {word:012o} at {self.ic}")
        return "limit"

    stop_at = -1


def _random_blocks(seed: int) -> list[tuple[int, list[int]]]:
    rng = random.Random(seed)
    return [
        (0o100, [rng.getrandbits(36) for _ in range(50)]),  # 22 + 22 + 6
        (0o17, [0o777777777777]),  # first free location
        (0o2000, [rng.getrandbits(36) for _ in range(22)]),  # exactly one card
        (0o7777, [1]),  # last word of 4K
    ]


def _boot(deck: Sequence[CardImage], memory_size: int, start: int) -> tuple[MiniMachine, str]:
    reader = CardReader()
    reader.queue_deck(deck)
    machine = MiniMachine(reader, memory_size)
    machine.stop_at = start
    loader.load_card(machine)
    return machine, machine.run()


def test_bootstrap_words_are_the_hand_assembled_octal() -> None:
    expected = [
        0o053400400000,  # 0  LXA 0,4
        0o070000400002,  # 1  CPY 2,4
        0o177777400001,  # 2  TXI 1,4,-1
        0o000000000003,  # 3  HTR 3
        0o076200000321,  # 4  RDS 0321
        0o053400400000,  # 5  LXA 0,4
        0o070000000007,  # 6  CPY 7
        0o000000000004,  # 7  (control word)
        0o000000000004,  # 8  HTR 4
        0o000000000004,  # 9  HTR 4
        0o070000000013,  # 10 CPY 11
        0o000000000004,  # 11 (address word)
        0o200001400013,  # 12 TIX 11,4,1
        0o002000000004,  # 13 TRA 4
        0o000000000016,  # 14 HTR 14
    ]
    assert [w for w, _ in loader.BOOTSTRAP] == expected
    assert list(loader.BOOTSTRAP_CARD) == [*expected] + [0] * 9
    assert len(loader.LOADER_RESERVED) == len(expected)


def test_data_and_transfer_card_words() -> None:
    card = loader.data_card(0o100, [7, 8, 9])
    assert card[0] == 0o100003400012  # TXI 10,4,3
    assert card[1] == 0o070000400103  # CPY 0o103,4
    assert list(card)[2:6] == [7, 8, 9, 0]
    assert list(loader.transfer_card(0o144)) == [0o002000000144] + [0] * 23


def test_deck_structure() -> None:
    blocks = _random_blocks(1)
    deck = loader.build_self_loading_deck(blocks, 0o100)
    assert deck[0] == loader.BOOTSTRAP_CARD
    assert len(deck) == 1 + 3 + 1 + 1 + 1 + 1  # boot, 50 words, 1, 22, 1, transfer
    assert deck[1][0] == 0o100026400012 and deck[1][1] == 0o070000400126  # 22 words at 0o100
    assert deck[3][0] == 0o100006400012 and deck[3][1] == 0o070000400162  # last 6 of 50
    assert list(deck[3])[2:8] == blocks[0][1][44:]
    assert deck[-1] == loader.transfer_card(0o100)
    assert loader.parse_self_loading_deck(deck) == (blocks, 0o100)
    assert cards.read_cbn(cards.write_cbn(deck)) == deck


def test_deck_merges_adjacent_blocks_on_parse_and_skips_empty() -> None:
    deck = loader.build_self_loading_deck([(0o20, [1, 2]), (0o22, [3]), (0o40, [])], 0o20)
    assert len(deck) == 4
    assert loader.parse_self_loading_deck(deck) == ([(0o20, [1, 2, 3])], 0o20)


@pytest.mark.parametrize(
    ("blocks", "start", "message"),
    [
        ([(0o16, [1])], 0o100, "overlaps the loader"),
        ([(0, [1])], 0o100, "overlaps the loader"),
        ([(0o100, [1, 2, 3]), (0o102, [4])], 0o100, "overlap at 102"),
        ([(0o77777, [1, 2])], 0o100, "past 77777"),
        ([(0o100, [1 << 36])], 0o100, "101|100.*36-bit"),
        ([(0o100, [1])], 4, "inside the loader"),
        ([(0o100, [1])], 0o100000, "outside the 32K"),
    ],
)
def test_deck_builder_errors(blocks: list[tuple[int, list[int]]], start: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        loader.build_self_loading_deck(blocks, start)


def test_deck_builder_checks_memory_size() -> None:
    assert len(loader.build_self_loading_deck([(0o7777, [1])], 0o7777, memory_size=4096)) == 3
    with pytest.raises(ValueError, match=r"past 7777 .*4K"):
        loader.build_self_loading_deck([(0o7777, [1, 2])], 0o100, memory_size=4096)
    with pytest.raises(ValueError, match="outside the 8K"):
        loader.build_self_loading_deck([(0o100, [1])], 0o20000, memory_size=8192)
    with pytest.raises(ValueError, match="memory size"):
        loader.build_self_loading_deck([], 0o100, memory_size=1000)


def test_parse_rejects_other_decks() -> None:
    deck = loader.build_self_loading_deck([(0o100, [1])], 0o100)
    with pytest.raises(ValueError, match="card 1"):
        loader.parse_self_loading_deck(deck[1:])
    with pytest.raises(ValueError, match="no transfer card"):
        loader.parse_self_loading_deck(deck[:-1])
    with pytest.raises(ValueError, match="card 2"):
        loader.parse_self_loading_deck([deck[0], cards.text_to_card("HELLO"), deck[-1]])


def test_blocks_from_image() -> None:
    image = {0o20: 1, 0o21: 2, 0o23: 3, 0o22: 4, 0o100: 5}
    assert loader.blocks_from_image(image) == [(0o20, [1, 2, 4, 3]), (0o100, [5])]
    assert loader.blocks_from_image({}) == []


@pytest.mark.parametrize("memory_size", [4096, 8192, 32768])
def test_deck_loads_on_mini_machine(memory_size: int) -> None:
    blocks = _random_blocks(memory_size)
    deck = loader.build_self_loading_deck(blocks, 0o100)
    machine, outcome = _boot(deck, memory_size, 0o100)
    assert outcome == "started"
    for address, words in blocks:
        assert machine.memory[address : address + len(words)] == words
    untouched = set(range(memory_size)) - {a + i for a, ws in blocks for i in range(len(ws))}
    untouched -= set(range(24))
    assert all(machine.memory[a] == 0o252525252525 for a in untouched)
    assert machine.xr[4] == 0
    assert machine.reader.cards_read == len(deck)
    assert machine.reader.hopper_count == 0


def test_program_reads_next_card_after_deck() -> None:
    # The transfer card leaves the reader selected; the program's RDS gets the following card.
    deck = loader.build_self_loading_deck([(0o100, [0o076200000321, 0o070000000200, 0o000000000102])], 0o100)
    reader = CardReader()
    reader.queue_deck([*deck, "11-15"])
    machine = MiniMachine(reader)
    loader.load_card(machine)
    assert machine.run() == "HTR at 66"  # RDS 0321; CPY 0o200; HTR 0o102 at 0o102
    assert machine.memory[0o200] == cards.text_to_card("11-15")[0]


def test_deck_without_transfer_card_halts_at_end_of_file() -> None:
    deck = loader.build_self_loading_deck([(0o100, [1])], 0o100)[:-1]
    reader = CardReader()
    reader.queue_deck(deck)
    reader.signal_end_of_file()
    machine = MiniMachine(reader)
    loader.load_card(machine)
    assert machine.run() == "HTR at 8"


def test_deck_waits_for_missing_cards() -> None:
    deck = loader.build_self_loading_deck([(0o100, [1, 2])], 0o100)
    reader = CardReader()
    reader.queue_deck(deck[:2])
    machine = MiniMachine(reader)
    machine.stop_at = 0o100
    loader.load_card(machine)
    assert machine.run() == "wait"
    reader.queue_card(deck[2])
    assert machine.run() == "started"
    assert machine.memory[0o100:0o102] == [1, 2]


def test_load_card_copies_two_words_and_sets_ic() -> None:
    reader = CardReader()
    reader.queue_card(cards.words_to_card([0o11, 0o22, 0o33]))
    machine = MiniMachine(reader)
    machine.ic = 0o500
    loader.load_card(machine)
    assert machine.memory[:3] == [0o11, 0o22, 0o252525252525]
    assert machine.ic == 0
    assert machine.reader.copy_in().word == 0o33  # still selected, at word 2


def test_load_card_with_empty_hopper_or_end_of_file() -> None:
    machine = MiniMachine(CardReader())
    with pytest.raises(loader.LoadError, match="hopper is empty"):
        loader.load_card(machine)
    machine.reader.signal_end_of_file()
    with pytest.raises(loader.LoadError, match="end of file"):
        loader.load_card(machine)


# ---------------------------------------------------------------------------------------------
# end to end on emu704.cpu.Machine


def _b(code: int, address: int = 0, tag: int = 0) -> int:
    return code << 24 | tag << 15 | address


def _txi(address: int, tag: int, decrement: int) -> int:
    return 1 << 33 | (decrement & 0o77777) << 18 | tag << 15 | address


# Read each card into BUF-23..BUF... and print it; halt at 0o104 on end of file.
ZERO, BUF = 0o113, 0o114
ECHO = [
    _b(0o0762, 0o321),  # 100 LOOP  RDS 0321
    _b(0o0534, ZERO, 1),  # 101       LXA ZERO,1
    _b(0o0700, BUF, 1),  # 102       CPY BUF,1
    _txi(0o102, 1, -1),  # 103       TXI *-1,1,-1
    _b(0o0000, 0o104),  # 104       HTR *        end of file
    _b(0o0766, 0o361),  # 105       WRS 0361     end of record: print the card
    _b(0o0534, ZERO, 1),  # 106       LXA ZERO,1
    _b(0o0700, BUF, 1),  # 107       CPY BUF,1
    _txi(0o107, 1, -1),  # 110       TXI *-1,1,-1
    _b(0o0420),  # 111       HPR          (end of file: cannot happen)
    _b(0o0020, 0o100),  # 112       TRA LOOP     end of record: next card
    0,  # 113 ZERO PZE 0
]


@pytest.mark.parametrize("memory_size", [4096, 32768])
def test_deck_loads_and_runs_on_cpu(memory_size: int) -> None:
    cpu = pytest.importorskip("emu704.cpu")
    from emu704.devices import Printer

    machine = cpu.Machine(memory_size, fill=0o252525252525)
    reader, printer = CardReader(), Printer()
    machine.attach(reader)
    machine.attach(printer)
    blocks = [(0o100, ECHO), *_random_blocks(memory_size)[1:]]
    reader.queue_deck(loader.build_self_loading_deck(blocks, 0o100))
    reader.queue_deck(["HELLO 704 CHECKERS 11-15", "11-15"])
    loader.load_card(machine)
    assert machine.ic == 0
    assert machine.read(2) == 0o252525252525  # the borrowed location is restored
    assert machine.run(max_instructions=100_000) is cpu.StopReason.WAITING_FOR_INPUT
    assert printer.lines == ["HELLO 704 CHECKERS 11-15", "11-15"]
    for address, words in blocks:
        assert machine.mem[address : address + len(words)] == words
    reader.queue_text("MORE")
    reader.signal_end_of_file()
    assert machine.run(max_instructions=100_000) is cpu.StopReason.HALT
    assert machine.ic == 0o104
    assert printer.lines[-1] == "MORE"


def test_load_card_on_cpu_errors() -> None:
    cpu = pytest.importorskip("emu704.cpu")
    machine = cpu.Machine(4096)
    with pytest.raises(loader.LoadError, match="0321"):
        loader.load_card(machine)  # no reader attached
    reader = CardReader()
    machine.attach(reader)
    with pytest.raises(loader.LoadError, match="hopper is empty"):
        loader.load_card(machine)
    reader.signal_end_of_file()
    with pytest.raises(loader.LoadError, match="end of file"):
        loader.load_card(machine)
    reader.queue_card(cards.words_to_card([5, 6, 7]))
    loader.load_card(machine)
    assert machine.mem[:3] == [5, 6, 0]
    assert machine.mq == 6
