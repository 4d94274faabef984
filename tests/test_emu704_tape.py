"""The IBM 727 tape unit (emu704.tape): SAP programs that write, rewind, backspace and read back,
BCD and binary, files kept between runs, the 727's timing charged to the cycle counter, and
the errors a bad reel or a misused unit gives."""

from __future__ import annotations

import math
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from emu704 import fast, sap
from emu704.cpu import Machine, StopReason
from emu704.devices import DeviceError
from emu704.tape import TapeFile, TapeUnit, read_tape, write_tape

BACKENDS = ["python", pytest.param("c", marks=pytest.mark.skipif(not fast.available(),
                                                                 reason="C fast path not built"))]


def new_machine(backend: str, memory: int = 4096) -> Machine:
    return fast.FastMachine(memory) if backend == "c" else Machine(memory)


def run_program(src: str, *units: TapeUnit, backend: str = "python", memory: int = 4096,
                max_cycles: int = 10_000_000) -> tuple[Machine, dict[str, int], StopReason]:
    image = sap.assemble(src, memory)
    m = new_machine(backend, memory)
    for unit in units:
        m.attach(unit)
    image.load_into(m.write)
    m.ic = image.require_start()
    reason = m.run(max_cycles=max_cycles)
    return m, image.symbols, reason


def words_at(m: Machine, symbols: dict[str, int], *names: str) -> list[int]:
    return [m.read(symbols[name]) for name in names]


# -- write, mark, rewind, read back ---------------------------------------------------------------

WRITE_AND_READ = """
       ORG 100
START  WTB 1              RECORD 1: THREE WORDS
       CPY A
       CPY B
       CPY C
       WTB 1              RECORD 2: TWO WORDS
       CPY D
       CPY E
       WEF 145            TAPE MARK ON TAPE 1 (0221)
       REW 145
       RTB 1              READ RECORD 1
       LXA ZERO,1
R1     CPY BUF1,1
       TXI R1,1,-1        WORD: NEXT ONE (BUF1, BUF1+1, ...)
       HTR 1              END OF FILE: WRONG HERE
       SXD N1,1           END OF RECORD: KEEP THE COUNT
       RTB 1              READ RECORD 2
       LXA ZERO,1
R2     CPY BUF2,1
       TXI R2,1,-1
       HTR 2
       SXD N2,1
       RTB 1              THE TAPE MARK
       CPY X
       HTR 3              A WORD: WRONG
       TRA EOF            END OF FILE
       HTR 4              END OF RECORD: WRONG
EOF    CPY X              STILL END OF FILE
       HTR 5
       TRA OK
       HTR 6
OK     RTT                NO TAPE CHECK: SKIP
       HTR 7
       HTR 100
A      OCT 1
B      OCT -2
C      OCT 777777777777
D      OCT 123456701234
E      OCT 0
ZERO   PZE
N1     PZE
N2     PZE
X      PZE
BUF1   BSS 5
BUF2   BSS 5
       END START
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_write_records_and_a_mark_rewind_and_read_them_back(tmp_path: Path, backend: str) -> None:
    path = tmp_path / "t1.tap"
    unit = TapeUnit(1, path)
    m, s, reason = run_program(WRITE_AND_READ, unit, backend=backend)
    assert reason is StopReason.HALT and m.halt_location == s["OK"] + 2, m.stop_detail
    minus_two = 0o400000000002
    assert [m.read(s["BUF1"] + i) for i in range(3)] == [1, minus_two, 0o777777777777]
    assert [m.read(s["BUF2"] + i) for i in range(2)] == [0o123456701234, 0]
    # TXI ...,1,-1 counts XR1 down from 0: the decrement field holds the two's complement.
    assert (-(m.read(s["N1"]) >> 18)) % 4096 == 3
    assert (-(m.read(s["N2"]) >> 18)) % 4096 == 2
    assert not m.tape_check and not m.end_of_tape
    unit.unmount()
    assert read_tape(path) == [[1, minus_two, 0o777777777777], [0o123456701234, 0], None]


def test_the_file_is_simh_tap_with_parity_frames(tmp_path: Path) -> None:
    path = tmp_path / "bytes.tap"
    write_tape(path, [[0o000001770077], None])
    data = path.read_bytes()
    # Six frames, the parity bit (0x40) making each odd: 00 -> 0x40, 01 -> 0x01, 77 (six ones) -> 0x7f.
    frames = bytes([0x40, 0x40, 0x01, 0x7F, 0x40, 0x7F])
    assert data == b"\x06\0\0\0" + frames + b"\x06\0\0\0" + b"\0\0\0\0"


def test_a_record_of_odd_length_from_another_tool_reads_left_justified(tmp_path: Path) -> None:
    path = tmp_path / "odd.tap"
    frames = bytes([0x01, 0x02, 0x43, 0x04, 0x45, 0x46, 0x07])  # odd parity: 1..7
    path.write_bytes(b"\x07\0\0\0" + frames + b"\0" + b"\x07\0\0\0")
    assert read_tape(path) == [[0o010203040506, 0o070000000000]]


# -- backspace, partial reads, writing in the middle ----------------------------------------------

BACKSPACE = """
       ORG 100
START  RTB 1              RECORD 0, ONLY ITS FIRST WORD
       CPY P
       RTB 1              RECORD 1 (THE REST OF 0 WAS PASSED)
       CPY Q
       BST 145            BACK OVER RECORD 1
       BST 145            AND RECORD 0
       BST 145            AT THE LOAD POINT: NOTHING
       RTB 1              RECORD 0 AGAIN
       CPY R
       RTB 1              RECORD 1
       RTB 1              THE MARK
       CPY S
       HTR 1
       TRA M1
       HTR 2
M1     BST 145            BACK OVER THE MARK
       RTB 1              THE MARK AGAIN
       CPY S
       HTR 3
       TRA M2
       HTR 4
M2     BST 145            BACK OVER THE MARK
       BST 145            AND RECORD 1
       WTB 1              REWRITE RECORD 1: THE MARK AND RECORD 2 ARE ERASED
       CPY NEW
       HTR 100
P      PZE
Q      PZE
R      PZE
S      PZE
NEW    OCT 525252525252
       END START
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_backspace_and_partial_reads(tmp_path: Path, backend: str) -> None:
    path = tmp_path / "bst.tap"
    write_tape(path, [[10, 11, 12], [20, 21], None, [30]])
    with TapeUnit(1, path) as unit:
        m, s, reason = run_program(BACKSPACE, unit, backend=backend)
        assert reason is StopReason.HALT and m.halt_location == s["P"] - 1, m.stop_detail
        assert words_at(m, s, "P", "Q", "R") == [10, 20, 10]
    assert read_tape(path) == [[10, 11, 12], [0o525252525252]]


# -- BCD and binary ---------------------------------------------------------------------------------

# "A0 +/-" in memory BCD: A 21, 0 00, blank 60, + 20, / 61, - 40.
MEMORY_WORD = 0o210060206140
# Tape BCD swaps zones 01 and 11 and writes 00 as 12: A 61, 0 12, blank 20, + 60, / 21, - 40,
# each with even parity (the parity bit is 0x40 when the six bits hold an odd number of ones).
BCD_FRAMES = bytes([0o61 | 0x40, 0o12, 0o20 | 0x40, 0o60, 0o21, 0o40 | 0x40])
# Binary: the word's own six bits a frame, odd parity.
BINARY_FRAMES = bytes([0o21 | 0x40, 0o00 | 0x40, 0o60 | 0x40, 0o20, 0o61, 0o40])

BCD_PROGRAM = """
       ORG 100
START  WTD 2              BCD
       CPY W
       WTB 3              BINARY
       CPY W
       REW 146
       REW 147
       RTD 2              BCD READ OF THE BCD RECORD
       CPY BB
       RTT                NO TAPE CHECK: SKIP
       HTR 1
       BST 146            BINARY READ OF THE SAME RECORD
       RTB 2
       CPY BIN
       RTT                TAPE CHECK ON: TURN IT OFF, NEXT
       TRA C2
       HTR 2
C2     RTT                NOW OFF: SKIP
       HTR 3
       RTD 3              BCD READ OF THE BINARY RECORD
       CPY DB
       RTT
       TRA DONE
       HTR 4
DONE   HTR 100
W      OCT 210060206140
BB     PZE
BIN    PZE
DB     PZE
       END START
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_bcd_and_binary_modes(tmp_path: Path, backend: str) -> None:
    bcd_path, bin_path = tmp_path / "bcd.tap", tmp_path / "bin.tap"
    units = TapeUnit(2, bcd_path), TapeUnit(3, bin_path)
    m, s, reason = run_program(BCD_PROGRAM, *units, backend=backend)
    assert reason is StopReason.HALT and m.halt_location == s["DONE"], m.stop_detail
    for unit in units:
        unit.unmount()
    assert bcd_path.read_bytes()[4:10] == BCD_FRAMES
    assert bin_path.read_bytes()[4:10] == BINARY_FRAMES
    assert m.read(s["BB"]) == MEMORY_WORD
    assert m.read(s["BIN"]) == 0o611220602140  # the tape code itself, with a tape check
    assert read_tape(bcd_path, bcd=True) == [[MEMORY_WORD]]
    with pytest.raises(DeviceError, match="tape check"):
        read_tape(bin_path, bcd=True)


def test_memory_012_is_written_as_tape_zero() -> None:
    from emu704.tape import frames_to_words, words_to_frames

    frames = words_to_frames([0o001200000000], bcd=True)
    assert frames[:2] == bytes([0o12, 0o12])  # '0' and 012 both become tape 012
    assert frames_to_words(frames, bcd=True) == ([0], False)


# -- files that persist between runs --------------------------------------------------------------

WRITER = """
       ORG 100
START  WTB 4
       LXA FIVE,1
W      CPY DEND,1         DEND-5 = DATA, DEND-4, ... DEND-1
       TIX W,1,1
       HTR 100            NO REW: THE RECORD ENDS WHEN THE TAPE IS UNMOUNTED
FIVE   DEC 5
DATA   DEC 3,1,4,1,5
DEND   EQU DATA+5
       END START
"""

READER = """
       ORG 100
START  RTB 4
       LXA ZERO,1
R      CPY BUF,1
       TXI R,1,-1
       HTR 1
       HTR 100
ZERO   PZE
BUF    BSS 6
       END START
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_tape_written_in_one_run_is_read_in_the_next(tmp_path: Path, backend: str) -> None:
    path = tmp_path / "rote.tap"
    writer = TapeUnit(4, path)
    m1, _, reason = run_program(WRITER, writer, backend=backend)
    assert reason is StopReason.HALT, m1.stop_detail
    writer.unmount()
    del m1, writer

    reader = TapeUnit(4, path, ring=False)  # another machine, another unit, the same file
    m2, s, reason = run_program(READER, reader, backend=backend)
    assert reason is StopReason.HALT and m2.halt_location == s["ZERO"] - 1, m2.stop_detail
    assert [m2.read(s["BUF"] + i) for i in range(5)] == [3, 1, 4, 1, 5]
    reader.unmount()


# -- timing -----------------------------------------------------------------------------------------

TIMED = """
       ORG 100
START  WTB 1
       CPY A
       CPY B
       CPY C
       REW 145
       RTB 1
       CPY X
       CPY Y
       CPY Z
       CPY W
       HTR 1
       HTR 2
       HTR 100
A      OCT 1
B      OCT 2
C      OCT 3
X      PZE
Y      PZE
Z      PZE
W      PZE
       END START
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_cycles_charged_are_the_727_figures(tmp_path: Path, backend: str) -> None:
    """Every instruction's cycle count, worked out by hand from the 727's figures: 75 in/s at
    200 frames/in (66 2/3 us a frame, 400 us a 6-frame word), start 5 ms, stop 5 ms, record gap
    0.75 in, rewind 500 in/s; a 704 cycle is 12 us.  A wait ends on the next whole cycle."""
    frame = Fraction(1_000_000, 75 * 200)  # us
    word = 6 * frame
    start = stop = 5000
    gap_frames = Fraction(3, 4) * 200
    rewind_per_frame = Fraction(1_000_000, 500 * 200)  # us per 1/200 in

    def cycle(us: Fraction | int) -> int:  # the first cycle boundary at or after us
        return math.ceil(Fraction(us) / 12)

    expected = []
    c = 2  # WTB 1: selects at the end of its 2 cycles; the tape was standing, so it starts now
    t_select = 12 * c
    first = t_select + start  # the first frame reaches the head
    expected.append(c)
    c += 2  # CPY A: word 0 may go into the buffer at once
    expected.append(c)
    c = max(c + 2, cycle(first))  # CPY B: waits until word 0 starts onto tape
    expected.append(c)
    c = max(c + 2, cycle(first + word))  # CPY C: waits until word 1 starts onto tape
    expected.append(c)
    # REW: the record (3 words) ends, the tape stops 5 ms later; REW waits for that, then
    # rewinds the record and its gap.
    ready = first + 3 * word + stop
    c = max(c + 2, cycle(ready))
    expected.append(c)
    rewound = 12 * c + (3 * 6 + gap_frames) * rewind_per_frame
    c = max(c + 2, cycle(rewound))  # RTB 1: waits for the rewind, then starts the tape
    first = 12 * c + start
    expected.append(c)
    for k in range(3):  # CPY X, Y, Z: word k is in the buffer when its sixth frame has passed
        c = max(c + 2, cycle(first + (k + 1) * word))
        expected.append(c)
    c = max(c + 2, cycle(first + 3 * word))  # CPY W: end of record, at the record's last frame
    expected.append(c)
    c += 2  # HTR 100, the end-of-record exit (L+3)
    expected.append(c)

    image = sap.assemble(TIMED, 4096)
    m = new_machine(backend)
    with TapeUnit(1, tmp_path / "timed.tap") as unit:
        m.attach(unit)
        image.load_into(m.write)
        m.ic = image.require_start()
        seen = []
        while True:
            reason = m.step()
            seen.append(m.cycles)
            if reason is not None:
                break
    assert reason is StopReason.HALT and m.halt_location == image.symbols["A"] - 1
    assert seen == expected
    assert words_at(m, image.symbols, "X", "Y", "Z") == [1, 2, 3]
    assert m.io_wait_cycles == m.cycles - 2 * m.instructions  # every other cycle is a wait
    # The same charge when run() executes the program in one batch.
    m2, _, _ = run_program(TIMED, TapeUnit(1, tmp_path / "timed2.tap"), backend=backend)
    assert m2.cycles == expected[-1]


def test_a_select_waits_for_a_rewind_but_another_unit_does_not(tmp_path: Path) -> None:
    src = """
       ORG 100
START  REW 145            TAPE 1 IS FAR FROM ITS LOAD POINT: A LONG REWIND
       RTB 2              TAPE 2 IS READY: NO WAIT
       CPY X
       RTB 1              WAITS FOR THE REWIND
       HTR 100
X      PZE
       END START
"""
    one, two = tmp_path / "one.tap", tmp_path / "two.tap"
    write_tape(one, [[7] * 1000] * 10)
    write_tape(two, [[9]])
    with TapeUnit(1, one) as u1, TapeUnit(2, two) as u2:
        # wind tape 1 to its end by reading ten records with no CPY (host side, before the run)
        for _ in range(10):
            u1.select(0o221, False)
        u1.disconnect()
        m = Machine(4096)
        m.attach(u1)
        m.attach(u2)
        image = sap.assemble(src, 4096)
        image.load_into(m.write)
        m.ic = image.require_start()
        steps = []
        for _ in range(4):
            assert m.step() is None
            steps.append(m.cycles)
    rewind_us = 10 * (6000 + 150) * 10  # 10 records of 6,000 frames and a gap, at 10 us a frame space
    assert steps[0] == 2 and steps[1] == 4  # REW returns at once; tape 2 starts at once
    assert steps[2] == math.ceil((48 + 5000 + 400) / 12)  # tape 2's first word
    assert steps[3] == math.ceil((24 + rewind_us) / 12)  # tape 1 rewound (REW ended at 24 us)


# -- indicators -------------------------------------------------------------------------------------

END_OF_TAPE = """
       ORG 100
START  WTB 1              201 WORDS: WORD 200 PASSES A SPOT AT 1,200
       LXA N,1
W      CPY 0,1
       TIX W,1,1
       ETT                ON: TURN IT OFF, NEXT
       TRA ON
       HTR 1
ON     ETT                OFF: SKIP
       HTR 2
       HTR 100
N      DEC 201
       END START
"""


def test_writing_past_the_end_of_tape_spot_turns_on_the_indicator(tmp_path: Path) -> None:
    # A 20.5-ft reel: 10 ft of leader, the end-of-tape spot 6 in (1,200 frame spaces) past the
    # load point, then 10 ft of tape to the end.
    with TapeUnit(1, tmp_path / "short.tap", reel_feet=20.5) as unit:
        m, s, reason = run_program(END_OF_TAPE, unit)
        assert reason is StopReason.HALT and m.halt_location == s["N"] - 1, m.stop_detail
        assert not m.end_of_tape


def test_writing_past_the_end_of_the_reel_is_an_error_naming_the_file(tmp_path: Path) -> None:
    src = END_OF_TAPE.replace("DEC 201", "DEC 4300")  # 25,800 frames: past 10.5 ft of tape
    path = tmp_path / "short.tap"
    with TapeUnit(1, path, reel_feet=20.5) as unit:
        m, _, reason = run_program(src, unit, memory=32768)
        assert reason is StopReason.IO_ERROR
        assert str(path) in m.stop_detail and "past the end of the 20.5 ft reel" in m.stop_detail
        assert unit.records == []  # the record was never finished


def test_after_a_reset_the_tape_has_stopped(tmp_path: Path) -> None:
    """RESET clears the cycle counter: the unit must not wait for a stop due on the old count."""
    m = Machine(4096)
    with TapeUnit(1, tmp_path / "reset.tap") as unit:
        m.attach(unit)
        first = sap.assemble("       ORG 100\nSTART  WTB 1\n       CPY 0\n       HTR 100\n       END START\n")
        first.load_into(m.write)
        m.ic = first.require_start()
        assert m.run() is StopReason.HALT
        m.reset()  # disconnects the tape: the one-word record is written (it stops 10.4 ms in)
        assert len(unit.records) == 1
        m.load([0o077200000221, 0], 0o200)  # REW 0221, HTR 0
        m.ic = 0o200
        assert m.step() is None and m.cycles == 2  # no wait
        assert unit.ready_us == 24 + (6 + 150) * 10  # the rewind, from 24 us on the new count


# -- misuse and bad files --------------------------------------------------------------------------

def test_a_unit_with_no_reel(tmp_path: Path) -> None:
    unit = TapeUnit(7)
    m, _, reason = run_program("       ORG 100\nSTART  RTB 7\n       HTR 100\n       END START\n", unit)
    assert reason is StopReason.IO_ERROR and "tape 7 has no reel mounted" in m.stop_detail
    assert m.stop_detail.startswith("RDS 0227 at 00144")

def test_a_late_cpy_is_an_error(tmp_path: Path) -> None:
    delay = """
       LXA N,2
D      TIX D,2,1          1,200 CYCLES = 14.4 MS
"""
    reading = f"""
       ORG 100
START  RTB 1
       CPY X
{delay}
       CPY X
       HTR 100
N      DEC 600
X      PZE
       END START
"""
    path = tmp_path / "late.tap"
    write_tape(path, [[1, 2, 3, 4, 5]])
    with TapeUnit(1, path) as unit:
        m, _, reason = run_program(reading, unit)
    assert reason is StopReason.IO_ERROR and "too late for word 1" in m.stop_detail

    writing = reading.replace("RTB 1", "WTB 1")
    with TapeUnit(1, tmp_path / "late2.tap") as unit:
        m, _, reason = run_program(writing, unit)
        assert reason is StopReason.IO_ERROR and "too late for word 1" in m.stop_detail
        assert "ended the record after 1 word(s)" in m.stop_detail


def test_reading_blank_tape_and_writing_without_the_ring(tmp_path: Path) -> None:
    path = tmp_path / "r.tap"
    write_tape(path, [[1]])
    prog = "       ORG 100\nSTART  RTB 1\n       RTB 1\n       HTR 100\n       END START\n"
    with TapeUnit(1, path) as unit:
        m, _, reason = run_program(prog, unit)
    assert reason is StopReason.IO_ERROR and "blank tape" in m.stop_detail and str(path) in m.stop_detail
    for op in ("WTB 1", "WEF 145"):
        prog = f"       ORG 100\nSTART  {op}\n       HTR 100\n       END START\n"
        with TapeUnit(1, path, ring=False) as unit:
            m, _, reason = run_program(prog, unit)
        assert reason is StopReason.IO_ERROR and "no write ring" in m.stop_detail, op
    assert read_tape(path) == [[1]]


def test_bad_files_are_named_errors(tmp_path: Path) -> None:
    missing = tmp_path / "missing.tap"
    with pytest.raises(DeviceError, match=r"missing\.tap: no such file"):
        TapeUnit(1, missing, ring=False)
    assert not missing.exists()

    good = tmp_path / "good.tap"
    write_tape(good, [[1, 2], [3]])
    data = good.read_bytes()
    cases = {
        "cut.tap": (data[:-3], r"cut\.tap.*at byte 20: the file ends 11 bytes into a record of 14"),
        "counts.tap": (data[:16] + b"\x07" + data[17:],
                       r"counts\.tap.*at byte 0: the record's counts disagree"),
        "bit7.tap": (data[:5] + b"\x81" + data[6:], r"bit7\.tap.*at byte 5: frame 0x81 has bit 7 set"),
        "class.tap": (b"\x06\0\0\x30" + data[4:], r"class\.tap.*at byte 0: record count 0x30000006"),
        "short.tap": (data + b"\x01\0",
                      r"short\.tap.*at byte 34: the file ends 2 byte\(s\) into a record's count"),
    }
    for name, (content, message) in cases.items():
        path = tmp_path / name
        path.write_bytes(content)
        for ring in (True, False):
            with pytest.raises(DeviceError, match=message):
                TapeUnit(1, path, ring=ring)
        assert path.read_bytes() == content  # never changed by a failed mount


def test_a_record_simh_marked_bad_reads_with_a_tape_check(tmp_path: Path) -> None:
    path = tmp_path / "bad.tap"
    write_tape(path, [[5]])
    data = bytearray(path.read_bytes())
    data[3] = data[13] = 0x80  # both counts: class 8, recorded with an error
    path.write_bytes(bytes(data))
    prog = """
       ORG 100
START  RTB 1
       CPY X
       HTR 100
X      PZE
       END START
"""
    with TapeUnit(1, path) as unit:
        m, s, reason = run_program(prog, unit)
    assert reason is StopReason.HALT and m.tape_check and m.read(s["X"]) == 5


def test_tape_file_end_of_medium_and_records(tmp_path: Path) -> None:
    path = tmp_path / "eom.tap"
    write_tape(path, [[1], None])
    path.write_bytes(path.read_bytes() + b"\xff\xff\xff\xff" + b"junk after the end of medium")
    reel = TapeFile(path, writable=True)
    assert [r.is_mark for r in reel.records] == [False, True]
    reel.write(2, bytes([0x40] * 6))  # the end-of-medium marker and what follows are overwritten
    reel.close()
    assert read_tape(path) == [[1], None, [0]]


# -- the assembler -------------------------------------------------------------------------------

def test_sap_tape_mnemonics() -> None:
    src = """
       ORG 100
START  RTB 1
       RTD 10
       WTB 2
       WTD 3
       BST 145
       REW 154
       WEF 129
       ETT
       RTT
       REW 1
       HTR 0
       END START
"""
    image = sap.assemble(src, 4096)
    (_, words), = image.blocks
    assert [f"{w:012o}" for w in words] == [
        "076200000221", "076200000212", "076600000222", "076600000203",
        "076400000221", "077200000232", "077000000201", "476000000011", "476000000012",
        "077200000001", "000000000000",
    ]
    assert [w.line for w in image.warnings] == [12]
    assert "REW 145" in image.warnings[0].message and "UA SAP" in image.warnings[0].message


# -- the command line ------------------------------------------------------------------------------

def samuel(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "samuel", "emu704", "run", *args],
                          capture_output=True, text=True, timeout=120)


def test_command_line_tape_option(tmp_path: Path) -> None:
    writer, reader = tmp_path / "writer.sap", tmp_path / "reader.sap"
    writer.write_text(WRITER.replace("WTB 4", "WTB 2"))
    reader.write_text(READER.replace("RTB 4", "RTB 2").replace("HTR 100", "CLA BUF+2\n       HTR 100"))
    path = tmp_path / "cli.tap"
    out = samuel(str(writer), "--tape", f"2={path}")
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"tape 2   {path}: 1 record(s), 0 tape mark(s); head before record 1" in out.stdout
    assert read_tape(path) == [[3, 1, 4, 1, 5]]
    out = samuel(str(reader), "--tape-ro", f"2={path}", "--backend", "python")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "AC       +00000000000004" in out.stdout and "no write ring" in out.stdout

    out = samuel(str(reader), "--tape-ro", f"2={tmp_path / 'none.tap'}")
    assert out.returncode == 2 and "none.tap: no such file" in out.stderr
    out = samuel(str(reader), "--tape", f"11={path}")
    assert out.returncode == 2 and "tape units are 1-10" in out.stderr
