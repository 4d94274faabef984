"""The 711 card reader, 721 card punch and 716 printer, as emu704.iobus devices.

All three move 24-word row-binary records (emu704.cards): one card or one
printed line per select.  The CPU reaches them only through iobus.Device.

Card reader (RDS 0321).  The hopper is a queue of cards fed by the host.  An
RDS takes the next card from the hopper (if there is none yet, the first CPY
waits for one); CPYs then return the card's 24 words and the 25th returns
END_OF_RECORD, after which the reader is disconnected and further CPYs keep
answering END_OF_RECORD until the next RDS.  Selecting any device (or a new
RDS) part-way through a card discards the rest of it, as the card has gone
through the reader.  With the hopper empty a CPY answers WAIT (the CPU stops
"waiting for input"; the host queues a card and resumes, and the CPY is
retried), unless the host has signalled end of file: signal_end_of_file() puts
an end-of-file mark after the cards queued so far; a CPY that needs a card and
reaches the mark answers END_OF_FILE (L+2), and keeps doing so until another
card is queued.

Punch (WRS 0341) and printer (WRS 0361).  A WRS starts a record; each CPY adds
one word; the record is complete after the 24th word or when the device is
disconnected (another select or a machine reset), missing rows blank.  A CPY
after the 24th answers END_OF_RECORD.  A WRS with no CPY before the next select
gives a blank card or a blank line, as the select alone cycles the unit.  The
printer decodes each record's 72 columns into text (emu704.cards.card_to_text,
non-strict: a column that is no character prints as INVALID_PUNCH_CHAR).

Sense (PSE/MSE).  Printer: SPT = 0360 (answers False: exit 7 is never set),
SPR i = 0360+i (i = 1-10); punch: SPU = 0341-0342.  The pulses are recorded
in ``pulses`` and otherwise have no effect (every printed line is single-spaced).
These units list their sense addresses in ``sense_addresses`` (iobus.Device
has no field for them).

Misuse the 704 would reject (WRS to the reader, RDS to the punch, RPR echo
checking on the printer, CPY in the wrong direction) raises DeviceError.
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Iterable

from emu704 import cards
from emu704.cards import CardImage
from emu704.iobus import CopyResult, CopyStatus

READER_ADDRESS = 0o321
PUNCH_ADDRESS = 0o341
PRINTER_ADDRESS = 0o361
PRINTER_SENSE_ADDRESSES: tuple[int, ...] = tuple(range(0o360, 0o373))
"""SPT (0360) and SPR 1-10 (0361-0372)."""
PUNCH_SENSE_ADDRESSES: tuple[int, ...] = (0o341, 0o342)

_EOR = CopyResult(CopyStatus.END_OF_RECORD)
_EOF = CopyResult(CopyStatus.END_OF_FILE)
_WAIT = CopyResult(CopyStatus.WAIT)
_ACCEPTED = CopyResult(CopyStatus.WORD)


class DeviceError(RuntimeError):
    """An I/O request this unit cannot perform (the 704 would stop with an I/O check)."""


class _EndOfFile:
    """The end-of-file mark in the reader's hopper."""

    reported = False

    def __repr__(self) -> str:
        return "<end of file>"


class CardReader:
    """IBM 711 card reader at 0321."""

    name = "card reader"
    addresses: tuple[int, ...] = (READER_ADDRESS,)
    sense_addresses: tuple[int, ...] = ()

    def __init__(self) -> None:
        self._hopper: collections.deque[CardImage | _EndOfFile] = collections.deque()
        self._selected = False
        self._card: CardImage | None = None
        self._index = 0
        self._done = False
        self.cards_read = 0
        """Cards that have gone through the reader (fed by an RDS or a waiting CPY)."""

    def reset(self) -> None:
        """Power-on state: hopper emptied, nothing selected, counters cleared."""
        self._hopper.clear()
        self.disconnect()
        self.cards_read = 0

    # host side -------------------------------------------------------------------------------

    def queue_card(self, image: CardImage) -> None:
        """Put a card at the back of the hopper (clears an end of file already reported)."""
        if not isinstance(image, CardImage):
            raise TypeError(f"expected a CardImage, got {type(image).__name__}")
        last = self._hopper[-1] if self._hopper else None
        if isinstance(last, _EndOfFile) and last.reported:
            self._hopper.pop()
        self._hopper.append(image)

    def queue_text(self, line: str, **options: bool) -> None:
        """Punch a line of text (emu704.cards.text_to_card options) and queue it."""
        self.queue_card(cards.text_to_card(line, **options))

    def queue_deck(self, deck: Iterable[CardImage | str] | str | bytes | bytearray) -> None:
        """Queue several cards: CardImages and/or text lines, a text (one card per line), or CBN bytes."""
        items: Iterable[CardImage | str]
        if isinstance(deck, (bytes, bytearray)):
            items = cards.read_cbn(bytes(deck))
        elif isinstance(deck, str):
            items = deck.splitlines()
        else:
            items = deck
        for item in items:
            if isinstance(item, str):
                self.queue_text(item)
            else:
                self.queue_card(item)

    def signal_end_of_file(self) -> None:
        """Mark end of file after the cards queued so far (the operator's end-of-file key)."""
        if not (self._hopper and isinstance(self._hopper[-1], _EndOfFile)):
            self._hopper.append(_EndOfFile())

    @property
    def hopper_count(self) -> int:
        """Cards waiting in the hopper."""
        return sum(isinstance(item, CardImage) for item in self._hopper)

    @property
    def at_end_of_file(self) -> bool:
        """Whether the next card request will be answered with END_OF_FILE."""
        return bool(self._hopper) and isinstance(self._hopper[0], _EndOfFile)

    @property
    def waiting(self) -> bool:
        """Whether a CPY now would answer WAIT (selected, needs a card, hopper empty, no EOF)."""
        return self._selected and self._card is None and not self._done and not self._hopper

    # CPU side --------------------------------------------------------------------------------

    def select(self, address: int, write: bool) -> None:
        if write:
            raise DeviceError(f"WRS {address:04o}: the card reader cannot be written")
        self.disconnect()
        self._selected = True
        self._feed()

    def disconnect(self) -> None:
        self._selected = False
        self._card = None
        self._index = 0
        self._done = False

    def copy_in(self) -> CopyResult:
        if not self._selected:
            if self._done:
                return _EOR
            raise DeviceError("CPY from the card reader without an RDS")
        if self._card is None:
            mark = self._hopper[0] if self._hopper else None
            if isinstance(mark, _EndOfFile):
                mark.reported = True
                if len(self._hopper) > 1:
                    self._hopper.popleft()
                return _EOF
            if not self._feed():
                return _WAIT
        assert self._card is not None
        if self._index < cards.WORDS_PER_CARD:
            word = self._card.words[self._index]
            self._index += 1
            return CopyResult(CopyStatus.WORD, word)
        self.disconnect()
        self._done = True
        return _EOR

    def copy_out(self, word: int) -> CopyResult:
        raise DeviceError("CPY to the card reader: it was selected by RDS and cannot be written")

    def sense(self, address: int) -> bool:
        raise DeviceError(f"the card reader has no sense address {address:04o}")

    def _feed(self) -> bool:
        """Move the next card from the hopper into the read station, if there is one."""
        card = self._hopper[0] if self._hopper else None
        if isinstance(card, CardImage):
            self._hopper.popleft()
            self._card = card
            self._index = 0
            self.cards_read += 1
            return True
        return False


class _RecordWriter:
    """A unit that takes one 24-word record per WRS (punch and printer)."""

    name: str
    addresses: tuple[int, ...]
    sense_addresses: tuple[int, ...]

    def __init__(self) -> None:
        self._words: list[int] | None = None
        self._full = False
        self.pulses: list[int] = []
        """Sense addresses pulsed (PSE/MSE), in order."""

    def _clear(self) -> None:
        """Drop a record in progress without completing it, and the pulse log."""
        self._words = None
        self._full = False
        self.pulses.clear()

    def select(self, address: int, write: bool) -> None:
        if not write:
            raise DeviceError(f"RDS {address:04o}: the {self.name} cannot be read{self._read_note}")
        self.disconnect()
        self._words = []
        self._full = False

    _read_note = ""

    def disconnect(self) -> None:
        if self._words is not None and not self._full:
            self._finish()
        self._words = None
        self._full = False

    def copy_in(self) -> CopyResult:
        raise DeviceError(f"CPY from the {self.name}: it was selected by WRS and cannot be read")

    def copy_out(self, word: int) -> CopyResult:
        if self._words is None:
            raise DeviceError(f"CPY to the {self.name} without a WRS")
        if self._full:
            return _EOR
        if not 0 <= word <= cards.WORD_MASK:
            raise ValueError(f"word {word!r} is not a 36-bit value")
        self._words.append(word)
        if len(self._words) == cards.WORDS_PER_CARD:
            self._finish()
            self._full = True
        return _ACCEPTED

    def sense(self, address: int) -> bool:
        if address not in self.sense_addresses:
            raise DeviceError(f"the {self.name} has no sense address {address:04o}")
        self.pulses.append(address)
        return False

    def _finish(self) -> None:
        assert self._words is not None
        self._record(cards.words_to_card(self._words))

    def _record(self, image: CardImage) -> None:
        raise NotImplementedError


class CardPunch(_RecordWriter):
    """IBM 721 card punch at 0341: WRS 0341 + 24 CPYs = one card (columns 73-80 blank)."""

    name = "card punch"
    addresses: tuple[int, ...] = (PUNCH_ADDRESS,)
    sense_addresses: tuple[int, ...] = PUNCH_SENSE_ADDRESSES

    def __init__(self, on_card: Callable[[CardImage], None] | None = None) -> None:
        super().__init__()
        self.cards: list[CardImage] = []
        """The cards punched so far."""
        self.on_card = on_card
        """Called with each card as it is completed."""

    def reset(self) -> None:
        """Power-on state: output discarded, nothing selected (the callback is kept)."""
        self._clear()
        self.cards.clear()

    def text(self, *, strict: bool = False) -> list[str]:
        """The punched cards as text lines, trailing blanks stripped."""
        return [
            cards.card_to_text(card, strict=strict, placeholder=cards.INVALID_PUNCH_CHAR).rstrip(" ")
            for card in self.cards
        ]

    def to_cbn(self) -> bytes:
        """The punched deck in CBN format."""
        return cards.write_cbn(self.cards)

    def _record(self, image: CardImage) -> None:
        self.cards.append(image)
        if self.on_card is not None:
            self.on_card(image)


class Printer(_RecordWriter):
    """IBM 716 printer at 0361: WRS 0361 + 24 CPYs = one single-spaced line of 72 characters."""

    name = "printer"
    addresses: tuple[int, ...] = (PRINTER_ADDRESS,)
    sense_addresses: tuple[int, ...] = PRINTER_SENSE_ADDRESSES
    _read_note = " (RPR echo checking is not emulated)"

    def __init__(self, on_line: Callable[[str], None] | None = None) -> None:
        super().__init__()
        self.lines: list[str] = []
        """The printed lines, trailing blanks stripped."""
        self.images: list[CardImage] = []
        """The raw 24-word record of each line."""
        self.on_line = on_line
        """Called with each line's text as it is completed."""

    def reset(self) -> None:
        """Power-on state: output discarded, nothing selected (the callback is kept)."""
        self._clear()
        self.lines.clear()
        self.images.clear()

    def _record(self, image: CardImage) -> None:
        line = cards.card_to_text(image, strict=False).rstrip(" ")
        self.images.append(image)
        self.lines.append(line)
        if self.on_line is not None:
            self.on_line(line)
