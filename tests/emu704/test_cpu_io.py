"""Sense lights and switches, the +-0760 device senses, and select/copy I/O through emu704.iobus."""

from __future__ import annotations

from collections import deque

import pytest
from cpu_testing import AC_P, AC_S, SENTINEL, ac_of, asm, make_machine, poke

from emu704 import StopReason
from emu704.iobus import CopyResult, CopyStatus
from emu704.word import SIGN


class FakeDevice:
    """A scripted unit: ``script`` holds the CopyResults its copy_in answers, in order."""

    def __init__(self, addresses: tuple[int, ...] = (0o321,), script: list[CopyResult] | None = None,
                 sense_answers: dict[int, bool] | None = None) -> None:
        self.name = "fake"
        self.addresses = addresses
        self.script: deque[CopyResult] = deque(script or [])
        self.sense_answers = sense_answers or {}
        self.log: list[tuple] = []
        self.written: list[int] = []

    def select(self, address: int, write: bool) -> None:
        self.log.append(("select", address, write))

    def disconnect(self) -> None:
        self.log.append(("disconnect",))

    def copy_in(self) -> CopyResult:
        self.log.append(("copy_in",))
        return self.script.popleft() if self.script else CopyResult(CopyStatus.WAIT)

    def copy_out(self, word: int) -> CopyResult:
        self.log.append(("copy_out", word))
        if len(self.written) >= 2:
            return CopyResult(CopyStatus.END_OF_RECORD)
        self.written.append(word)
        return CopyResult(CopyStatus.WORD)

    def sense(self, address: int) -> bool:
        self.log.append(("sense", address))
        return self.sense_answers.get(address, False)


class RefusingDevice(FakeDevice):
    def select(self, address: int, write: bool) -> None:
        raise RuntimeError("cannot be written")


def word(w: int) -> CopyResult:
    return CopyResult(CopyStatus.WORD, w)


EOF_ = CopyResult(CopyStatus.END_OF_FILE)
EOR = CopyResult(CopyStatus.END_OF_RECORD)

# -- sense lights and switches ---------------------------------------------------------------


def test_sln_turns_light_on() -> None:
    m = make_machine()
    poke(m, 0, asm("SLN", 3))  # SLN 3
    m.step()
    assert m.sense_lights == 0b0100
    assert m.sense_light(3)
    assert m.cycles == 2


def test_slf_turns_all_lights_off() -> None:
    m = make_machine()
    m.sense_lights = 0b1111
    poke(m, 0, asm("SLF"))  # SLF
    m.step()
    assert m.sense_lights == 0


def test_slt_light_on_turns_it_off_and_skips() -> None:
    m = make_machine()
    m.sense_lights = 0b0011
    poke(m, 0, asm("SLT", 2))  # SLT 2
    m.step()
    assert m.ic == 2
    assert m.sense_lights == 0b0001


def test_slt_light_off_goes_on() -> None:
    m = make_machine()
    m.sense_lights = 0b0001
    poke(m, 0, asm("SLT", 2))  # SLT 2
    m.step()
    assert m.ic == 1
    assert m.sense_lights == 0b0001


def test_swt_switch_down_skips() -> None:
    m = make_machine()
    m.set_sense_switch(6, True)
    poke(m, 0, asm("SWT", 6))  # SWT 6
    m.step()
    assert m.ic == 2


def test_swt_switch_up_goes_on() -> None:
    m = make_machine()
    m.set_sense_switch(5, True)
    poke(m, 0, asm("SWT", 6))  # SWT 6
    m.step()
    assert m.ic == 1


def test_sense_light_via_indexed_pse() -> None:
    m = make_machine()
    m.xr[4] = 1
    poke(m, 0, asm("PSE", 0o142, 4))  # PSE 142,4 = SLN 1
    m.step()
    assert m.sense_lights == 0b0001


# -- indicator tests ----------------------------------------------------------------------------


def test_dct_divide_check_on_turns_it_off_and_goes_on() -> None:
    m = make_machine()
    m.divide_check = True
    poke(m, 0, asm("DCT"))  # DCT
    m.step()
    assert m.ic == 1
    assert not m.divide_check


def test_dct_divide_check_off_skips() -> None:
    m = make_machine()
    poke(m, 0, asm("DCT"))  # DCT
    m.step()
    assert m.ic == 2


def test_ett_end_of_tape_off_skips() -> None:
    m = make_machine()
    poke(m, 0, asm("ETT"))  # ETT
    m.step()
    assert m.ic == 2


def test_ett_end_of_tape_on_turns_it_off_and_goes_on() -> None:
    m = make_machine()
    m.end_of_tape = True
    poke(m, 0, asm("ETT"))  # ETT
    m.step()
    assert m.ic == 1
    assert not m.end_of_tape


def test_rtt_tape_check_on_turns_it_off_and_goes_on() -> None:
    m = make_machine()
    m.tape_check = True
    poke(m, 0, asm("RTT"))  # RTT
    m.step()
    assert m.ic == 1
    assert not m.tape_check


# -- device sense -------------------------------------------------------------------------


def test_spr_pulses_printer_exit() -> None:
    m = make_machine()
    printer = FakeDevice((0o361,))
    m.attach(printer)
    poke(m, 0, asm("SPR", 5))  # SPR 5 = PSE 365
    m.step()
    assert printer.log == [("sense", 0o365)]
    assert m.ic == 1


def test_spt_true_answer_skips() -> None:
    m = make_machine()
    printer = FakeDevice((0o361,), sense_answers={0o360: True})
    m.attach(printer)
    poke(m, 0, asm("SPT"))  # SPT = PSE 360
    m.step()
    assert m.ic == 2


def test_device_sense_addresses_attribute_routes_pse() -> None:
    m = make_machine()
    dev = FakeDevice((0o400,), sense_answers={0o401: True})
    dev.sense_addresses = (0o401,)  # type: ignore[attr-defined]
    m.attach(dev)
    poke(m, 0, asm("PSE", 0o401))  # PSE 401
    m.step()
    assert m.ic == 2


def test_pse_no_unit_at_address_is_io_error() -> None:
    m = make_machine()
    poke(m, 0, asm("SPR", 1))  # SPR 1 with no printer attached
    assert m.step() is StopReason.IO_ERROR
    assert m.ic == 0
    assert m.instructions == 0


@pytest.mark.parametrize("sub", [0o4, 0o5, 0o11, 0o14])
def test_pse_709_sub_op_is_illegal(sub: int) -> None:
    m = make_machine()
    poke(m, 0, asm("PSE", sub))  # PSE sub (ENK, IOT, FRN, RCT on the 709)
    assert m.step() is StopReason.ILLEGAL_OPERATION
    assert m.ic == 0


def test_mse_undefined_sub_op_is_illegal() -> None:
    m = make_machine()
    poke(m, 0, asm("MSE", 0o2))  # MSE 2
    assert m.step() is StopReason.ILLEGAL_OPERATION


# -- select --------------------------------------------------------------------------------


def test_rds_selects_device_for_reading() -> None:
    m = make_machine()
    reader = FakeDevice()
    m.attach(reader)
    poke(m, 0, asm("RCD"))  # RCD = RDS 321
    m.step()
    assert reader.log == [("select", 0o321, False)]
    assert m.selected_device is reader
    assert m.ic == 1
    assert m.cycles == 2


def test_wrs_selects_device_for_writing() -> None:
    m = make_machine()
    printer = FakeDevice((0o361,))
    m.attach(printer)
    poke(m, 0, asm("WPR"))  # WPR = WRS 361
    m.step()
    assert printer.log == [("select", 0o361, True)]


def test_select_disconnects_previous_device() -> None:
    m = make_machine()
    reader, printer = FakeDevice(), FakeDevice((0o361,))
    m.attach(reader)
    m.attach(printer)
    poke(m, 0, asm("RCD"), asm("WPR"))  # RCD / WPR
    m.run(max_instructions=2)
    assert reader.log == [("select", 0o321, False), ("disconnect",)]
    assert m.selected_device is printer


def test_rds_unknown_device_stops_with_io_error() -> None:
    m = make_machine()
    poke(m, 0o10, asm("RDS", 0o333))  # RDS 333
    m.ic = 0o10
    assert m.run() is StopReason.IO_ERROR
    assert m.ic == 0o10
    assert m.instructions == 0
    assert m.cycles == 0
    assert "0333" in m.stop_detail


def test_select_refused_by_device_is_io_error() -> None:
    m = make_machine()
    m.attach(RefusingDevice())
    poke(m, 0, asm("WRS", 0o321))  # WRS 321
    assert m.step() is StopReason.IO_ERROR
    assert "cannot be written" in m.stop_detail


def test_rds_of_tape_unit_clears_mq() -> None:
    m = make_machine()
    m.attach(FakeDevice((0o221,)))
    m.mq = 0o777
    poke(m, 0, asm("RTB", 1))  # RTB 1 = RDS 221
    m.step()
    assert m.mq == 0


def test_rds_of_card_reader_keeps_mq() -> None:
    m = make_machine()
    m.attach(FakeDevice())
    m.mq = 0o777
    poke(m, 0, asm("RCD"))  # RCD
    m.step()
    assert m.mq == 0o777


# -- CPY / CAD ------------------------------------------------------------------------------


def select_reader(script: list[CopyResult]) -> tuple:
    m = make_machine()
    reader = FakeDevice(script=script)
    m.attach(reader)
    poke(m, 0o10, asm("RCD"))  # RCD
    m.ic = 0o10
    m.step()
    m.cycles = m.instructions = 0
    return m, reader


def test_cpy_word_goes_to_memory_and_mq_and_continues_at_l_plus_1() -> None:
    m, _ = select_reader([word(0o123)])
    poke(m, 0o11, asm("CPY", 0o100))  # CPY 100
    m.step()
    assert m.read(0o100) == 0o123
    assert m.mq == 0o123
    assert m.ic == 0o12
    assert m.cycles == 2


def test_cpy_end_of_file_goes_to_l_plus_2() -> None:
    m, _ = select_reader([EOF_])
    poke(m, 0o11, asm("CPY", 0o100))  # CPY 100
    m.step()
    assert m.ic == 0o13
    assert m.read(0o100) == SENTINEL


def test_cpy_end_of_record_goes_to_l_plus_3() -> None:
    m, _ = select_reader([EOR])
    m.mq = 5
    poke(m, 0o11, asm("CPY", 0o100))  # CPY 100
    m.step()
    assert m.ic == 0o14
    assert m.mq == 5


def test_cpy_wait_stops_and_stays_on_the_cpy() -> None:
    m, reader = select_reader([])
    poke(m, 0o11, asm("CPY", 0o100))  # CPY 100
    assert m.run() is StopReason.WAITING_FOR_INPUT
    assert m.ic == 0o11
    assert m.instructions == 0
    assert m.cycles == 0
    reader.script.append(word(0o77))
    assert m.step() is None
    assert m.read(0o100) == 0o77
    assert m.ic == 0o12


def test_cpy_indexed_address() -> None:
    m, _ = select_reader([word(0o5)])
    m.xr[1] = 3
    poke(m, 0o11, asm("CPY", 0o103, 1))  # CPY 103,1
    m.step()
    assert m.read(0o100) == 0o5


def test_cpy_with_nothing_selected_is_io_error() -> None:
    m = make_machine()
    poke(m, 0, asm("CPY", 0o100))  # CPY 100
    assert m.step() is StopReason.IO_ERROR
    assert m.ic == 0


def test_cpy_after_wrs_sends_memory_word_through_mq() -> None:
    m = make_machine()
    punch = FakeDevice((0o341,))
    m.attach(punch)
    poke(m, 0o100, SIGN | 0o42)
    poke(m, 0, asm("WPU"), asm("CPY", 0o100))  # WPU / CPY 100
    m.run(max_instructions=2)
    assert punch.written == [SIGN | 0o42]
    assert m.mq == SIGN | 0o42
    assert m.ic == 2


def test_cpy_write_record_full_goes_to_l_plus_3() -> None:
    m = make_machine()
    punch = FakeDevice((0o341,))
    punch.written = [1, 2]
    m.attach(punch)
    poke(m, 0, asm("WPU"), asm("CPY", 0o100))  # WPU / CPY 100
    m.run(max_instructions=2)
    assert m.ic == 4


def test_cad_adds_word_logically_into_ac() -> None:
    m, _ = select_reader([word(SIGN | 1)])
    m.ac = ac_of(1, negative=True)
    poke(m, 0o11, asm("CAD", 0o100))  # CAD 100
    m.step()
    assert m.read(0o100) == SIGN | 1
    assert m.mq == SIGN | 1
    assert m.ac == AC_S | AC_P | 2
    assert m.ic == 0o12


def test_cad_end_of_record_adds_nothing() -> None:
    m, _ = select_reader([EOR])
    m.ac = 7
    poke(m, 0o11, asm("CAD", 0o100))  # CAD 100
    m.step()
    assert m.ac == 7
    assert m.ic == 0o14


def test_card_reading_loop_program() -> None:
    """The reference section 3.2 loop: CPY BUF,1 / TXI / TRA EOF / TRA DONE."""
    m = make_machine()
    reader = FakeDevice(script=[word(11), word(22), word(33), EOR])
    m.attach(reader)
    poke(
        m,
        0o100,
        asm("RCD"),  # 100       RCD
        asm("LXA", 0o200, 1),  # 101       LXA ZERO,1
        asm("CPY", 0o300, 1),  # 102 LOOP  CPY BUF,1
        asm("TXI", 0o102, 1, 1),  # 103       TXI LOOP,1,1
        asm("TRA", 0o110),  # 104       TRA EOF
        asm("HPR"),  # 105 DONE  HPR
    )
    poke(m, 0o110, asm("HTR", 0o110))  # 110 EOF   HTR EOF
    poke(m, 0o200, 0)  # 200 ZERO  PZE
    m.ic = 0o100
    assert m.run() is StopReason.HALT
    assert m.halt_location == 0o105
    assert [m.read(0o300 - i) for i in range(3)] == [11, 22, 33]
    assert m.xr[1] == 3


def test_bst_without_tape_unit_is_io_error() -> None:
    m = make_machine()
    poke(m, 0, asm("BST", 0o221))  # BST 221
    assert m.step() is StopReason.IO_ERROR


def test_rew_calls_unit_rewind() -> None:
    m = make_machine()
    tape = FakeDevice((0o221,))
    calls: list[str] = []
    tape.rewind = lambda: calls.append("rewind")  # type: ignore[attr-defined]
    m.attach(tape)
    poke(m, 0, asm("REW", 0o221))  # REW 221
    assert m.step() is None
    assert calls == ["rewind"]


def test_detach_removes_device() -> None:
    m = make_machine()
    reader = FakeDevice()
    m.attach(reader)
    m.detach(reader)
    poke(m, 0, asm("RCD"))  # RCD
    assert m.step() is StopReason.IO_ERROR


# -- with the real card reader and printer (emu704.devices) ---------------------------------------


def test_card_read_then_printed_back_with_real_devices() -> None:
    """RCD + 24 CPY into a buffer, then WPR + 24 CPY of the same words prints the card."""
    from emu704.devices import CardReader, Printer

    m = make_machine()
    reader, printer = CardReader(), Printer()
    m.attach(reader)
    m.attach(printer)
    reader.queue_text("HELLO 704 CHECKERS 11-15")
    poke(
        m,
        0o100,
        asm("RCD"),  # 100       RCD
        asm("LXA", 0o200, 1),  # 101       LXA ZERO,1
        asm("CPY", 0o300, 1),  # 102 RLOOP CPY BUF,1     BUF, BUF-1, ...
        asm("TXI", 0o102, 1, 1),  # 103       TXI RLOOP,1,1
        asm("HTR", 0o104),  # 104       HTR *         end of file
        asm("WPR"),  # 105       WPR           end of record
        asm("LXA", 0o200, 1),  # 106       LXA ZERO,1
        asm("CPY", 0o300, 1),  # 107 PLOOP CPY BUF,1
        asm("TXI", 0o107, 1, 1),  # 110       TXI PLOOP,1,1
        asm("HTR", 0o111),  # 111       HTR *
        asm("HPR"),  # 112       HPR           line printed
    )
    poke(m, 0o200, 0)
    m.ic = 0o100
    assert m.run(max_instructions=1000) is StopReason.HALT
    assert m.halt_location == 0o112
    assert printer.lines == ["HELLO 704 CHECKERS 11-15"]
    assert m.read(0o300) == 0o000002000000  # row 9 left: only column 17 ('R' = 11-9)
    assert m.read(0o300 - 22) == 0o600364000000  # row 12 left (reference section 3.3)


def test_card_reader_empty_hopper_waits_then_resumes() -> None:
    from emu704.devices import CardReader

    m = make_machine()
    reader = CardReader()
    m.attach(reader)
    poke(m, 0, asm("RCD"), asm("CPY", 0o100), asm("HPR"))  # RCD / CPY 100 / HPR
    assert m.run() is StopReason.WAITING_FOR_INPUT
    assert m.ic == 1
    reader.queue_text("1")
    assert m.run() is StopReason.HALT
    assert m.read(0o100) == 0  # row 9 left of a card with just '1' in column 1
