"""Card reader, punch and printer behind the iobus contract (ibm704.md sections 3.2, 3.6, 3.8)."""

from __future__ import annotations

import pytest

from emu704 import cards, iobus
from emu704.cards import CardImage
from emu704.devices import CardPunch, CardReader, DeviceError, Printer
from emu704.iobus import CopyResult, CopyStatus

HELLO = "HELLO 704 CHECKERS 11-15"
WORD = CopyStatus.WORD
EOR = CopyStatus.END_OF_RECORD
EOF = CopyStatus.END_OF_FILE
WAIT = CopyStatus.WAIT


def _device(unit: iobus.Device) -> iobus.Device:
    """Type-checks that the unit satisfies iobus.Device."""
    return unit


def _read_card(reader: CardReader) -> list[int]:
    """RDS 0321 and 24 CPYs; the 25th must be END_OF_RECORD."""
    reader.select(0o321, False)
    words = []
    for _ in range(24):
        result = reader.copy_in()
        assert result.status is WORD
        words.append(result.word)
    assert reader.copy_in().status is EOR
    return words


def _write(unit: Printer | CardPunch, address: int, words: list[int]) -> list[CopyResult]:
    unit.select(address, True)
    return [unit.copy_out(w) for w in words]


def test_units_have_their_addresses() -> None:
    reader, punch, printer = _device(CardReader()), _device(CardPunch()), _device(Printer())
    assert reader.addresses == (0o321,)
    assert punch.addresses == (0o341,)
    assert printer.addresses == (0o361,)
    assert {reader.name, punch.name, printer.name} == {"card reader", "card punch", "printer"}


# ---------------------------------------------------------------------------------------------
# reader


def test_reader_returns_24_words_then_end_of_record() -> None:
    reader = CardReader()
    card = cards.text_to_card(HELLO)
    reader.queue_card(card)
    assert _read_card(reader) == list(card.words)
    # the reader has disconnected: further CPYs keep answering END_OF_RECORD
    assert reader.copy_in().status is EOR
    assert reader.cards_read == 1


def test_reader_waits_with_empty_hopper_then_resumes() -> None:
    reader = CardReader()
    reader.select(0o321, False)
    assert reader.waiting
    assert reader.copy_in() == CopyResult(WAIT)
    assert reader.copy_in() == CopyResult(WAIT)  # retried CPY: no side effect
    reader.queue_text("11-15")
    assert not reader.waiting
    first = reader.copy_in()
    assert first.status is WORD
    assert first.word == cards.text_to_card("11-15")[0]
    assert reader.cards_read == 1


def test_reader_end_of_file_after_signal_and_sticky_until_new_card() -> None:
    reader = CardReader()
    reader.queue_text("A")
    reader.signal_end_of_file()
    assert not reader.at_end_of_file
    assert _read_card(reader) == list(cards.text_to_card("A").words)
    assert reader.at_end_of_file
    reader.select(0o321, False)
    assert reader.copy_in().status is EOF
    assert reader.copy_in().status is EOF
    reader.select(0o321, False)
    assert reader.copy_in().status is EOF
    reader.queue_text("B")  # a new deck clears the reported end of file
    assert not reader.at_end_of_file
    reader.select(0o321, False)
    assert reader.copy_in().word == cards.text_to_card("B")[0]


def test_reader_end_of_file_mark_sits_between_cards() -> None:
    reader = CardReader()
    reader.queue_text("A")
    reader.signal_end_of_file()
    reader.queue_text("B")
    _read_card(reader)
    reader.select(0o321, False)
    assert reader.copy_in().status is EOF  # reported once ...
    assert reader.copy_in().word == cards.text_to_card("B")[0]  # ... then the next deck


def test_reader_end_of_file_with_nothing_queued() -> None:
    reader = CardReader()
    reader.signal_end_of_file()
    reader.signal_end_of_file()  # one mark
    reader.select(0o321, False)
    assert not reader.waiting
    assert reader.copy_in().status is EOF
    reader.queue_text("C")
    assert reader.copy_in().status is WORD


def test_reader_reselect_mid_card_discards_the_rest() -> None:
    reader = CardReader()
    reader.queue_deck(["FIRST", "SECOND"])
    reader.select(0o321, False)
    assert reader.copy_in().word == cards.text_to_card("FIRST")[0]
    reader.select(0o321, False)
    assert reader.copy_in().word == cards.text_to_card("SECOND")[0]
    assert reader.cards_read == 2


def test_reader_disconnect_mid_card_discards_the_rest() -> None:
    reader = CardReader()
    reader.queue_deck(["FIRST", "SECOND"])
    reader.select(0o321, False)
    reader.copy_in()
    reader.disconnect()
    assert _read_card(reader) == list(cards.text_to_card("SECOND").words)


def test_reader_select_feeds_the_card() -> None:
    # RDS starts a card moving even if no CPY follows.
    reader = CardReader()
    reader.queue_deck(["FIRST", "SECOND"])
    reader.select(0o321, False)
    assert reader.hopper_count == 1
    reader.disconnect()
    assert _read_card(reader) == list(cards.text_to_card("SECOND").words)


def test_reader_queue_deck_accepts_text_images_and_cbn() -> None:
    reader = CardReader()
    binary = cards.words_to_card([1, 2, 3])
    reader.queue_deck("ONE\nTWO\n")
    reader.queue_deck([binary, "THREE"])
    reader.queue_deck(cards.write_cbn([cards.text_to_card("FOUR")]))
    assert reader.hopper_count == 5
    texts = [cards.card_to_text(_read_card(reader), strict=False).rstrip() for _ in range(5)]
    assert texts[:2] == ["ONE", "TWO"]
    assert texts[3:] == ["THREE", "FOUR"]
    with pytest.raises(TypeError):
        reader.queue_card("TEXT")  # type: ignore[arg-type]


def test_reader_rejects_write_select_and_unselected_copy() -> None:
    reader = CardReader()
    with pytest.raises(DeviceError, match="WRS 0321"):
        reader.select(0o321, True)
    with pytest.raises(DeviceError, match="without an RDS"):
        reader.copy_in()
    reader.queue_text("X")
    reader.select(0o321, False)
    with pytest.raises(DeviceError, match="cannot be written"):
        reader.copy_out(0)


def test_reader_reset_empties_hopper() -> None:
    reader = CardReader()
    reader.queue_deck(["A", "B"])
    reader.signal_end_of_file()
    reader.select(0o321, False)
    reader.reset()
    assert reader.hopper_count == 0
    assert not reader.at_end_of_file
    assert reader.cards_read == 0
    reader.select(0o321, False)
    assert reader.copy_in().status is WAIT


# ---------------------------------------------------------------------------------------------
# printer


def test_printer_prints_24_word_line() -> None:
    seen: list[str] = []
    printer = Printer(on_line=seen.append)
    results = _write(printer, 0o361, list(cards.text_to_card(HELLO).words))
    assert all(r.status is WORD for r in results)
    assert printer.lines == [HELLO]  # complete at the 24th word, trailing blanks stripped
    assert seen == [HELLO]
    assert printer.copy_out(0).status is EOR  # a 25th CPY
    assert printer.copy_out(0).status is EOR
    printer.disconnect()
    assert printer.lines == [HELLO]  # no second line from the disconnect
    assert printer.images == [cards.text_to_card(HELLO)]


def test_printer_partial_line_completes_on_disconnect() -> None:
    printer = Printer()
    card = cards.text_to_card("A1 J2 /3 45")
    _write(printer, 0o361, list(card.words[:20]))  # rows 9..0 only: no 11 or 12 zones
    assert printer.lines == []
    printer.select(0o361, True)  # the next select disconnects and completes the line
    assert printer.lines == ["11 12 /3 45"]
    printer.disconnect()
    assert printer.lines == ["11 12 /3 45", ""]  # a WRS with no CPY spaces one blank line


def test_printer_several_lines_and_callback_order() -> None:
    seen: list[str] = []
    printer = Printer(on_line=seen.append)
    for text in ("FIRST", "", "THIRD"):
        _write(printer, 0o361, list(cards.text_to_card(text).words))
    assert printer.lines == seen == ["FIRST", "", "THIRD"]


def test_printer_shows_invalid_columns_as_placeholder() -> None:
    printer = Printer()
    words = [0] * 24
    words[16] = words[14] = 1 << 35  # column 1: rows 1 and 2 together
    _write(printer, 0o361, words)
    assert printer.lines == [cards.INVALID_PUNCH_CHAR]


def test_printer_sense_pulses_recorded_and_spt_false() -> None:
    printer = Printer()
    assert printer.sense(0o360) is False  # SPT
    assert printer.sense(0o361) is False  # SPR 1
    assert printer.sense(0o372) is False  # SPR 10
    assert printer.pulses == [0o360, 0o361, 0o372]
    with pytest.raises(DeviceError, match="0373"):
        printer.sense(0o373)


def test_printer_rejects_rpr_and_unselected_copy() -> None:
    printer = Printer()
    with pytest.raises(DeviceError, match="RPR"):
        printer.select(0o361, False)
    with pytest.raises(DeviceError, match="without a WRS"):
        printer.copy_out(0)
    printer.select(0o361, True)
    with pytest.raises(DeviceError, match="cannot be read"):
        printer.copy_in()
    with pytest.raises(ValueError, match="36-bit"):
        printer.copy_out(1 << 36)


def test_printer_reset_discards_output_keeps_callback() -> None:
    seen: list[str] = []
    printer = Printer(on_line=seen.append)
    _write(printer, 0o361, list(cards.text_to_card("X").words))
    printer.sense(0o363)
    printer.select(0o361, True)
    printer.copy_out(0)
    printer.reset()
    assert printer.lines == [] and printer.images == [] and printer.pulses == []
    printer.disconnect()  # the dropped partial line is not printed
    assert printer.lines == []
    _write(printer, 0o361, list(cards.text_to_card("Y").words))
    assert seen == ["X", "Y"]


# ---------------------------------------------------------------------------------------------
# punch


def test_punch_cards_to_text_and_cbn() -> None:
    punched: list[CardImage] = []
    punch = CardPunch(on_card=punched.append)
    binary = [0o123456701234] * 24
    _write(punch, 0o341, list(cards.text_to_card(HELLO).words))
    assert punch.copy_out(0).status is EOR
    _write(punch, 0o341, binary)
    _write(punch, 0o341, list(cards.text_to_card("SHORT").words[:22]))  # 22 CPYs: row 12 left blank
    punch.disconnect()
    assert len(punch.cards) == 3
    assert punched == punch.cards
    assert punch.cards[1].words == tuple(binary)
    text = punch.text()
    assert text[0] == HELLO
    assert text[2] == "S8ORT"  # H (12-8) loses its zone and punches as 8
    assert cards.read_cbn(punch.to_cbn()) == punch.cards
    assert len(punch.to_cbn()) == 3 * 160


def test_punch_sense_and_misuse() -> None:
    punch = CardPunch()
    assert punch.sense(0o341) is False
    assert punch.sense(0o342) is False
    assert punch.pulses == [0o341, 0o342]
    with pytest.raises(DeviceError):
        punch.sense(0o343)
    with pytest.raises(DeviceError, match="RDS 0341"):
        punch.select(0o341, False)


def test_punch_reset() -> None:
    punch = CardPunch()
    _write(punch, 0o341, [1])
    punch.disconnect()
    assert len(punch.cards) == 1
    punch.reset()
    assert punch.cards == []
