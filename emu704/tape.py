"""The IBM 727 magnetic tape unit on the 704: units 1-10, their reels kept in host files.

A ``TapeUnit`` is an emu704.iobus device at two select addresses: BCD ``0200+n`` (RTD/WTD n)
and binary ``0220+n`` (RTB/WTB n), n = 1-10 (unit 10 is 0212/0232).  BST, WEF and REW take
either address.  Its reel is a ``TapeFile``: a SIMH ``.tap`` file on the host, so a program
can write tape in one run and read it back in the next.

What the program sees (704 select + copy, shared/reference/ibm704.md sections 2.2, 3.1, 3.2)
---------------------------------------------------------------------------------------------
* **RDS** (RTB/RTD) starts the tape and reads the next record; the MQ is cleared (emu704.cpu).
  Each **CPY** returns the next word (L+1); the CPY after the last word returns end of record
  (L+3).  A record need not be read to its end: the rest passes the head unread, and the next
  RDS reads the following record.  If the record is a tape mark the CPY returns end of file
  (L+2), and every further CPY of this select does too; the tape is then past the mark.
* **WRS** (WTB/WTD) starts the tape; each CPY writes one word.  The record ends when the
  program stops giving CPYs: at the next select, BST, WEF or REW, or when the unit is
  unmounted.  A WRS with no CPY writes nothing.  Writing anywhere but at the end of what is on
  the reel erases everything after the new record, as on a real tape.
* **WEF** writes a tape mark; **BST** moves the tape back over one record (a tape mark counts
  as one; at the load point it does nothing); **REW** rewinds to the load point.
* A 36-bit word is six 6-bit frames, the first from bits S-5.  In binary mode the frames are
  the word's bits with odd parity.  In BCD mode they are characters with even parity, converted
  as the 704 did between its memory code and tape BCD: zones 01 and 11 swapped, and the
  all-zero character (memory '0') written as 012, since a frame of no bits cannot be told from
  blank tape [ref 3.5; Z0ftware doc/bcd.md "BCD for tape"].  So memory 012 reads back as 000.
* **Tape check** (RTT): turned on when a record read has a frame whose parity is wrong for the
  mode of the select -- a BCD record read in binary, or the reverse, always has -- or the file
  marks the record as recorded with an error.  The data is delivered all the same.
* **End of tape** (ETT): turned on by the CPY of the word that carries the tape past the
  end-of-tape reflective spot, and by the first word of every record, and every tape mark,
  written beyond it -- at the CPY, so a program that tests ETT after writing a record finds it
  on (the spot passes the head within the next word time or two).  Writing past the physical end
  of the reel is a DeviceError.

Timing (the 727's figures; how they are combined is this module's model, see below)
-----------------------------------------------------------------------------------
============================  ===============  ==================================================
figure                        value            source
============================  ===============  ==================================================
tape speed                    75 in/s          IBM 727 product facts [727]
density                       200 frames/in    [727]
transfer rate                 15,000 frames/s  [727] (75 x 200): 66 2/3 us a frame, 400 us a word
record gap                    0.75 in          [727]; IBM 709 General Information Manual p. 26
                                               ("a 3/4 inch section of blank tape called a record
                                               gap"): 10 ms at 75 in/s
start time                    5 ms             [727]
stop time                     5 ms             [727]
rewind speed                  500 in/s average [727]
reel                          2,400 ft         [727]
load-point spot               about 10 ft from IBM 727 Manual of Instruction, 4.4.3 [727MI]
                              the tape's start
end-of-tape spot              10 ft before the assumed: "several feet from the ends" [727], placed
                              tape's end       like the load-point spot
============================  ===============  ==================================================

[727] IBM's 727 product page (IBM Archives, via the Wikipedia article "IBM 727"); [727MI] IBM 727
Magnetic Tape Unit Manual of Instruction (manualslib 2781362).  The 704 Manual of Operation
(24-6661) gives the 704's tape interlocks; its text was not available when this was written, so
the interlock rules below are the model, stated so that they can be checked against it.

The model.  The tape stands still with the head in a record gap.  A select, BST or WEF starts
it; after the start time (5 ms) the first frame of the record is under the head, frames then
pass at 66 2/3 us, and the tape stops in the next gap after the stop time (5 ms).  So a record
of n words costs 10 ms + 0.4n ms of tape time, and start + stop is exactly the time a 0.75-in
gap takes to pass at speed.  The unit is busy until it has stopped; a rewind keeps it busy for
(tape wound past the load point) / 500 in/s and the program goes on meanwhile.
  Interlocks (each charged to the cycle counter through emu704.iobus.Link): a select, BST, WEF
or REW of a busy unit waits until it is ready; the tape then starts at that cycle.  Reading,
word k is complete in the buffer (the MQ) when its sixth frame has passed, and a CPY waits for
it; the CPY after the last word waits for the end of the record.  Writing, word k goes to tape
when its first frame reaches the head; the buffer holds one word, so the CPY of word k waits
until word k-1 has started onto tape.  A CPY that comes after its window closed -- reading,
word k+1 has already replaced word k; writing, the tape reached the place of word k with the
buffer empty, so the record had ended -- is a DeviceError (the 704 would have lost data
without a sign; the emulator stops instead of handing the program a wrong word).  Times are
kept in thirds of a microsecond, so every figure is exact; a wait ends on the next 12-us cycle.

The file (``TapeFile``)
-----------------------
SIMH's tape image format, as SIMH's i704/i7090 read it: each record is a 4-byte little-endian
frame count, the frames (one byte each: 6 data bits, the parity bit as 0x40, bit 7 clear), a pad
byte if the count is odd, and the count again; a count of 0 is a tape mark.  SIMH's
end-of-medium marker (0xFFFFFFFF) ends the data, and a count with 0x80000000 set is a record
SIMH recorded with an error (read, with the tape check turned on).  Chosen over the p7b format
(Sim704's) because the count on both sides of a record lets BST step back without scanning,
lets a cut-short or damaged file be told from a good one, and costs one append per record.
Every record is flushed to the operating system as it ends, so a killed process loses at most
the record being written.  A file that breaks the format is a DeviceError naming the file and
the byte offset.  A tape mounted with its write ring may be a missing file (a new, blank reel);
without the ring (``ring=False``: read only) the file must exist.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from emu704.devices import DeviceError
from emu704.iobus import CopyResult, CopyStatus, Link

UNITS = range(1, 11)
"""Tape units 1-10."""
BCD_BASE = 0o200
"""Select address of unit n in BCD mode: 0200 + n (RTD n, WTD n)."""
BINARY_BASE = 0o220
"""Select address of unit n in binary mode: 0220 + n (RTB n, WTB n)."""
FRAMES_PER_WORD = 6
WORD_MASK = 0o777777777777

# -- the 727's figures (see the module doc for sources) ------------------------------------------

TAPE_SPEED_IPS = 75
DENSITY_FPI = 200
"""Frames (characters) per inch."""
GAP_INCHES = 0.75
START_US = 5_000
STOP_US = 5_000
REWIND_IPS = 500
REEL_FEET = 2_400
LOAD_POINT_FEET = 10
"""Leader before the load-point spot [727MI 4.4.3]."""
END_SPOT_FEET = 10
"""Tape after the end-of-tape spot (assumed equal to the leader)."""

# -- the same in the units this module counts in --------------------------------------------------
# Time in ticks of 1/3 us (a frame is 200 ticks, a 704 cycle 36), length in frame spaces
# (1/200 in): every figure above is then a whole number.

TICKS_PER_US = 3
TICKS_PER_CYCLE = 12 * TICKS_PER_US
FRAME_TICKS = 1_000_000 * TICKS_PER_US // (TAPE_SPEED_IPS * DENSITY_FPI)
"""66 2/3 us a frame (15,000 frames a second)."""
WORD_TICKS = FRAMES_PER_WORD * FRAME_TICKS
"""400 us a word."""
START_TICKS = START_US * TICKS_PER_US
STOP_TICKS = STOP_US * TICKS_PER_US
GAP_FRAMES = round(GAP_INCHES * DENSITY_FPI)
"""The 0.75-in record gap: 150 frame spaces."""
REWIND_TICKS_PER_FRAME = 1_000_000 * TICKS_PER_US // (REWIND_IPS * DENSITY_FPI)
"""10 us to rewind one frame space (1/200 in at 500 in/s)."""
assert FRAME_TICKS * TAPE_SPEED_IPS * DENSITY_FPI == 1_000_000 * TICKS_PER_US
assert REWIND_TICKS_PER_FRAME * REWIND_IPS * DENSITY_FPI == 1_000_000 * TICKS_PER_US

TAPE_MARK_FRAMES = 1
"""A tape mark is one frame (the character 017) on the tape."""

# -- SIMH .tap ----------------------------------------------------------------------------------

_MARK = 0
_END_OF_MEDIUM = 0xFFFF_FFFF
_ERROR_CLASS = 0x8
_PARITY_BIT = 0x40
_FRAME_MASK = 0x3F


def frames_per_feet(feet: float) -> int:
    """Frame spaces in ``feet`` of tape."""
    return round(feet * 12 * DENSITY_FPI)


# ================================================================================================
# Frames <-> words
# ================================================================================================

def _odd(value: int) -> bool:
    return bin(value).count("1") & 1 == 1


_BINARY_FRAME = bytes(c | (0 if _odd(c) else _PARITY_BIT) for c in range(64))
"""6-bit value -> frame with odd parity."""
_BCD_FRAME = bytes(c | (_PARITY_BIT if _odd(c) else 0) for c in range(64))
"""6-bit tape character -> frame with even parity."""
_TO_TAPE_BCD = bytes((c ^ ((c & 0o20) << 1)) or 0o12 for c in range(64))
"""Memory BCD -> tape BCD: zones 01 and 11 swapped; 000 (memory '0') written as 012."""
_FROM_TAPE_BCD = bytes(0 if c == 0o12 else c ^ ((c & 0o20) << 1) for c in range(64))
"""Tape BCD -> memory BCD (012 reads as 000)."""
_FRAME_OK = (
    bytes(1 if _odd(f) else 0 for f in range(128)),  # binary: odd parity
    bytes(0 if _odd(f) else 1 for f in range(128)),  # BCD: even parity
)


def words_to_frames(words: Iterable[int], *, bcd: bool = False) -> bytes:
    """The frames a record of ``words`` is written as (binary, or BCD with the tape code)."""
    frame = _BCD_FRAME if bcd else _BINARY_FRAME
    out = bytearray()
    for w in words:
        if not 0 <= w <= WORD_MASK:
            raise ValueError(f"word {w!r} is not a 36-bit value")
        for shift in (30, 24, 18, 12, 6, 0):
            c = (w >> shift) & _FRAME_MASK
            out.append(frame[_TO_TAPE_BCD[c] if bcd else c])
    return bytes(out)


def frames_to_words(frames: bytes, *, bcd: bool = False) -> tuple[list[int], bool]:
    """(the words ``frames`` read as, whether a frame's parity was wrong for the mode).

    A last word of fewer than six frames is filled out with zero bits on the right."""
    ok = _FRAME_OK[1 if bcd else 0]
    bad = not all(ok[f & 0x7F] for f in frames) if frames else False
    chars = frames.translate(_FROM_TAPE_BCD * 4) if bcd else frames
    words = []
    for i in range(0, len(chars), FRAMES_PER_WORD):
        w = 0
        group = chars[i:i + FRAMES_PER_WORD]
        for c in group:
            w = (w << 6) | (c & _FRAME_MASK)
        words.append(w << 6 * (FRAMES_PER_WORD - len(group)))
    return words, bad


# ================================================================================================
# The reel: a SIMH .tap file
# ================================================================================================

@dataclass(frozen=True)
class TapeRecord:
    """One record (or tape mark) of a TapeFile."""

    offset: int
    """Byte offset of its leading count in the file."""
    frames: int
    """Frames of data; 0 for a tape mark."""
    error: bool = False
    """SIMH marked it as recorded with an error."""

    @property
    def is_mark(self) -> bool:
        return self.frames == 0

    @property
    def length(self) -> int:
        """Tape it takes, in frame spaces: its frames and the gap after them."""
        return (TAPE_MARK_FRAMES if self.is_mark else self.frames) + GAP_FRAMES

    @property
    def size(self) -> int:
        """Bytes it takes in the file."""
        return 4 if self.is_mark else 8 + self.frames + (self.frames & 1)


class TapeFile:
    """A reel of tape kept in a SIMH .tap file: its records, read and appended one at a time.

    ``writable`` opens the file for writing (the reel's write ring); a missing file is then
    created empty.  Every format error is a DeviceError naming the file and the byte offset.
    """

    def __init__(self, path: str | os.PathLike[str], *, writable: bool = True) -> None:
        self.path = Path(path)
        self.writable = writable
        self.records: list[TapeRecord] = []
        self.end = 0
        """Byte offset where the next record after the last one goes."""
        try:
            if writable:
                self._file: IO[bytes] = open(self.path, "r+b" if self.path.exists() else "w+b")  # noqa: SIM115
            else:
                self._file = open(self.path, "rb")  # noqa: SIM115
        except FileNotFoundError:
            if writable:
                raise DeviceError(f"{self.path}: no such folder to make the tape file in") from None
            raise DeviceError(f"{self.path}: no such file (a tape mounted without its write ring "
                              "must already exist)") from None
        except OSError as exc:
            raise DeviceError(f"{self.path}: cannot open the tape file: {exc.strerror or exc}") from None
        try:
            self._scan()
        except BaseException:
            self._file.close()
            raise

    def __repr__(self) -> str:
        return f"<TapeFile {str(self.path)!r}: {len(self.records)} records>"

    def _error(self, offset: int, what: str) -> DeviceError:
        return DeviceError(f"{self.path}: not a valid SIMH tape file: at byte {offset}: {what}")

    def _scan(self) -> None:
        f = self._file
        data = f.read()
        size = len(data)
        at = 0
        while at < size:
            if size - at < 4:
                raise self._error(at, f"the file ends {size - at} byte(s) into a record's count "
                                      f"(a write cut short? truncating the file to {at} bytes keeps "
                                      "the records before it)")
            count = int.from_bytes(data[at:at + 4], "little")
            if count == _END_OF_MEDIUM:
                break
            if count == _MARK:
                self.records.append(TapeRecord(at, 0))
                at += 4
                continue
            klass, frames = count >> 28, count & 0x0FFF_FFFF
            if klass not in (0, _ERROR_CLASS) or frames == 0:
                raise self._error(at, f"record count {count:#010x} is not one this emulator reads "
                                      "(SIMH classes 0 and 8 and tape marks only)")
            record = TapeRecord(at, frames, klass == _ERROR_CLASS)
            end = at + record.size
            if end > size:
                raise self._error(at, f"the file ends {size - at} bytes into a record of {record.size} "
                                      f"(a write cut short? truncating the file to {at} bytes keeps "
                                      "the records before it)")
            trailer = int.from_bytes(data[end - 4:end], "little")
            if trailer != count:
                raise self._error(at, f"the record's counts disagree ({count:#x} before its "
                                      f"{frames} frames, {trailer:#x} after)")
            body = data[at + 4:at + 4 + frames]
            if max(body) & 0x80:
                bad = next(i for i, b in enumerate(body) if b & 0x80)
                raise self._error(at + 4 + bad, f"frame {body[bad]:#04x} has bit 7 set (a 7-track "
                                                "frame is 6 data bits and a parity bit)")
            self.records.append(record)
            at = end
        self.end = at

    def read(self, index: int) -> bytes:
        """The frames of record ``index`` (b"" for a tape mark)."""
        record = self.records[index]
        if record.is_mark:
            return b""
        self._file.seek(record.offset + 4)
        data = self._file.read(record.frames)
        if len(data) != record.frames:
            raise DeviceError(f"{self.path}: the file was cut short while mounted (record {index} "
                              f"at byte {record.offset})")
        return data

    def write(self, index: int, frames: bytes | None) -> TapeRecord:
        """Make record ``index`` the given frames (None: a tape mark) and erase every record after
        it, as writing does on tape; the record is flushed to the operating system."""
        if not self.writable:
            raise DeviceError(f"{self.path}: the tape is mounted without its write ring")
        if not 0 <= index <= len(self.records):
            raise IndexError(f"record {index} of a tape of {len(self.records)}")
        if frames is not None and not frames:
            raise ValueError("a record has at least one frame")
        at = self.records[index].offset if index < len(self.records) else self.end
        if frames is None:
            record = TapeRecord(at, 0)
            blob = _MARK.to_bytes(4, "little")
        else:
            if max(frames) & 0x80:
                raise ValueError("a frame is 7 bits")
            record = TapeRecord(at, len(frames))
            count = len(frames).to_bytes(4, "little")
            blob = count + frames + b"\0" * (len(frames) & 1) + count
        f = self._file
        try:
            f.seek(at)
            f.truncate()
            del self.records[index:]  # gone from the file now, whatever happens next
            self.end = at
            f.write(blob)
            f.flush()
        except OSError as exc:
            raise DeviceError(f"{self.path}: writing the tape file failed: {exc.strerror or exc}") from None
        self.records.append(record)
        self.end = at + len(blob)
        return record

    def close(self) -> None:
        self._file.close()

    @property
    def closed(self) -> bool:
        return self._file.closed


def write_tape(path: str | os.PathLike[str], records: Iterable[Sequence[int] | None], *,
               bcd: bool = False) -> None:
    """Write a new tape file: each item a record of words, or None for a tape mark."""
    Path(path).unlink(missing_ok=True)
    reel = TapeFile(path, writable=True)
    try:
        for i, words in enumerate(records):
            reel.write(i, None if words is None else words_to_frames(words, bcd=bcd))
    finally:
        reel.close()


def read_tape(path: str | os.PathLike[str], *, bcd: bool = False) -> list[list[int] | None]:
    """Every record of a tape file as words (None for a tape mark); DeviceError on a parity error."""
    reel = TapeFile(path, writable=False)
    try:
        out: list[list[int] | None] = []
        for i, record in enumerate(reel.records):
            if record.is_mark:
                out.append(None)
                continue
            words, bad = frames_to_words(reel.read(i), bcd=bcd)
            if bad or record.error:
                raise DeviceError(f"{path}: record {i} (byte {record.offset}) does not read in "
                                  f"{'BCD' if bcd else 'binary'} without a tape check")
            out.append(words)
        return out
    finally:
        reel.close()


# ================================================================================================
# The unit
# ================================================================================================

_IDLE, _READ, _WRITE = "idle", "read", "write"

_EOF = CopyResult(CopyStatus.END_OF_FILE)
_EOR = CopyResult(CopyStatus.END_OF_RECORD)
_ACCEPTED = CopyResult(CopyStatus.WORD)


class TapeUnit:
    """IBM 727 tape unit ``unit`` (1-10), a timed emu704.iobus device; see the module doc.

    ``TapeUnit(1, "rote.tap")`` mounts a reel with its write ring; ``ring=False`` mounts it read
    only.  ``reel_feet`` sets the length of tape (a short reel reaches its end-of-tape spot
    sooner).  Attach it with ``machine.attach(unit)``; ``unmount()`` (or ``close()``) writes a
    record still being written and closes the file.
    """

    timed = True
    sense_addresses: tuple[int, ...] = ()

    def __init__(self, unit: int, path: str | os.PathLike[str] | None = None, *, ring: bool = True,
                 reel_feet: float = REEL_FEET) -> None:
        if unit not in UNITS:
            raise ValueError(f"tape units are numbered 1-10, not {unit!r}")
        usable = frames_per_feet(reel_feet - LOAD_POINT_FEET)
        spot = usable - frames_per_feet(END_SPOT_FEET)
        if spot <= 0:
            raise ValueError(f"a reel of {reel_feet} ft is no longer than its leader and trailer "
                             f"({LOAD_POINT_FEET + END_SPOT_FEET} ft)")
        self.unit = unit
        self.name = f"tape {unit}"
        self.addresses: tuple[int, ...] = (BCD_BASE + unit, BINARY_BASE + unit)
        self.reel_feet = reel_feet
        self._usable = usable
        """Frame spaces from the load point to the physical end of the tape."""
        self._end_spot = spot
        """Frame spaces from the load point to the end-of-tape spot."""
        self._link: Link | None = None
        self._reel: TapeFile | None = None
        self._index = 0
        """The head is in the gap before record ``_index``."""
        self._position = 0
        """Frame spaces from the load point to the head."""
        self._ready = 0
        """Tick at which the unit has stopped (or finished rewinding)."""
        self._seen = 0
        """The latest machine time seen, in ticks (a smaller one means the machine was reset)."""
        self._state = _IDLE
        self._bcd = False
        self._started = 0
        """Tick the tape was started by the current select."""
        self._first = 0
        """Tick the record's first frame reaches the head."""
        self._words: list[int] = []
        """Reading: the record's words; writing: the words given so far."""
        self._frames = 0
        """Reading: frames in the record (0: a tape mark)."""
        self._taken = 0
        """Reading: words copied so far."""
        if path is not None:
            self.mount(path, ring=ring)

    def __repr__(self) -> str:
        reel = f"{str(self._reel.path)!r}" if self._reel is not None else "no reel"
        return f"<TapeUnit {self.unit}: {reel}, record {self._index}>"

    # -- host side -------------------------------------------------------------------------------

    def mount(self, path: str | os.PathLike[str], *, ring: bool = True) -> None:
        """Put a reel on the unit, at its load point (DeviceError if the file is bad)."""
        if self._reel is not None:
            raise DeviceError(f"{self.name} already has {self._reel.path} mounted")
        reel = TapeFile(path, writable=ring)
        used = sum(r.length for r in reel.records)
        if used > self._usable:
            reel.close()
            raise DeviceError(f"{reel.path}: {used / DENSITY_FPI / 12:.1f} ft of records do not fit "
                              f"on a {self.reel_feet} ft reel")
        self._reel = reel
        self._index = 0
        self._position = 0
        self._state = _IDLE

    def unmount(self) -> None:
        """End a record still being written (it is written to the file) and take the reel off."""
        self._finish()
        if self._reel is not None:
            self._reel.close()
            self._reel = None
        self._index = 0
        self._position = 0

    close = unmount

    def __enter__(self) -> TapeUnit:
        return self

    def __exit__(self, *exc: object) -> None:
        self.unmount()

    def end_record(self) -> None:
        """End the record being written now (as the next select would) and write it to the file."""
        self._finish()

    @property
    def path(self) -> Path | None:
        return None if self._reel is None else self._reel.path

    @property
    def ring(self) -> bool:
        return self._reel is not None and self._reel.writable

    @property
    def records(self) -> list[TapeRecord]:
        """The records on the reel (a record being written is not there yet)."""
        return [] if self._reel is None else list(self._reel.records)

    @property
    def record_index(self) -> int:
        """The record the head is before (0 at the load point)."""
        return self._index

    @property
    def position_inches(self) -> float:
        """Tape wound past the load point."""
        return self._position / DENSITY_FPI

    @property
    def ready_us(self) -> float:
        """Machine time (us) at which the unit has stopped or finished rewinding."""
        return self._ready / TICKS_PER_US

    # -- iobus.TimedDevice ---------------------------------------------------------------------

    def bind(self, link: Link | None) -> None:
        self._link = link
        self._seen = 0
        self._ready = 0

    def select(self, address: int, write: bool) -> None:
        self._finish()
        reel = self._require_reel()
        if write and not reel.writable:
            raise DeviceError(f"{self._what()} has no write ring (mounted read only)")
        if not write and self._index >= len(reel.records):
            raise DeviceError(f"{self._what()} has no record after record {self._index}: blank tape "
                              "follows (the 727 would run to the end of the reel)")
        self._bcd = address == BCD_BASE + self.unit
        start = self._start()
        self._started = start
        self._first = start + START_TICKS
        if write:
            self._state = _WRITE
            self._words = []
            return
        record = reel.records[self._index]
        frames = reel.read(self._index)
        self._index += 1
        self._position += record.length
        self._state = _READ
        self._taken = 0
        self._frames = record.frames
        if record.is_mark:
            self._words = []
            self._ready = self._first + TAPE_MARK_FRAMES * FRAME_TICKS + STOP_TICKS
            return
        self._words, bad = frames_to_words(frames, bcd=self._bcd)
        if (bad or record.error) and self._link is not None:
            self._link.set_tape_check()
        self._ready = self._first + record.frames * FRAME_TICKS + STOP_TICKS

    def disconnect(self) -> None:
        self._finish()

    def copy_in(self) -> CopyResult:
        if self._state != _READ:
            what = "selected for writing" if self._state == _WRITE else "not selected by an RDS"
            raise DeviceError(f"CPY from {self._what()}: it is {what}")
        now = self._now()
        if self._frames == 0:  # a tape mark: end of file once it has passed the head
            self._hold(self._first + TAPE_MARK_FRAMES * FRAME_TICKS)
            return _EOF
        k = self._taken
        if k < len(self._words):
            if k + 1 < len(self._words):
                replaced = self._word_read(k + 1)
                if now > replaced:
                    raise DeviceError(
                        f"CPY from {self._what()} too late for word {k} of the record: word {k + 1} "
                        f"replaced it at {replaced / TICKS_PER_US:.1f} us, the CPY came at "
                        f"{now / TICKS_PER_US:.1f} us (a word passes the head every 400 us)")
            self._hold(self._word_read(k))
            self._taken = k + 1
            return CopyResult(CopyStatus.WORD, self._words[k])
        self._hold(self._first + self._frames * FRAME_TICKS)
        return _EOR

    def copy_out(self, word: int) -> CopyResult:
        if self._state != _WRITE:
            what = "selected for reading" if self._state == _READ else "not selected by a WRS"
            raise DeviceError(f"CPY to {self._what()}: it is {what}")
        if not 0 <= word <= WORD_MASK:
            raise ValueError(f"word {word!r} is not a 36-bit value")
        now = self._now()
        k = len(self._words)
        due = self._first + k * WORD_TICKS
        if now > due:
            raise DeviceError(
                f"CPY to {self._what()} too late for word {k} of the record: the tape reached its "
                f"place at {due / TICKS_PER_US:.1f} us with no word to write, which ended the record "
                f"after {k} word(s); the CPY came at {now / TICKS_PER_US:.1f} us")
        self._check_room(FRAMES_PER_WORD * (k + 1) + GAP_FRAMES, "a record")
        self._hold(self._started if k == 0 else due - WORD_TICKS)
        self._words.append(word)
        end = self._position + FRAMES_PER_WORD * (k + 1)
        if end > self._end_spot and (k == 0 or end - FRAMES_PER_WORD <= self._end_spot):
            self._passed_end_spot()
        return _ACCEPTED

    def sense(self, address: int) -> bool:
        raise DeviceError(f"{self.name} has no sense address {address:04o}")

    def backspace(self) -> None:
        """BST: back over one record (a tape mark is one); nothing at the load point."""
        self._finish()
        self._require_reel()
        start = self._start()
        if self._index == 0:
            return
        self._index -= 1
        record = self._records[self._index]
        self._position -= record.length
        frames = TAPE_MARK_FRAMES if record.is_mark else record.frames
        self._ready = start + START_TICKS + frames * FRAME_TICKS + STOP_TICKS

    def write_end_of_file(self) -> None:
        """WEF: write a tape mark."""
        self._finish()
        reel = self._require_reel()
        if not reel.writable:
            raise DeviceError(f"{self._what()} has no write ring (mounted read only)")
        self._check_room(TAPE_MARK_FRAMES + GAP_FRAMES, "a tape mark")
        start = self._start()
        record = reel.write(self._index, None)
        self._advance(record)
        if self._position - GAP_FRAMES > self._end_spot:
            self._passed_end_spot()
        self._ready = start + START_TICKS + TAPE_MARK_FRAMES * FRAME_TICKS + STOP_TICKS

    def rewind(self) -> None:
        """REW: back to the load point at 500 in/s; the unit is busy meanwhile, the 704 is not."""
        self._finish()
        self._require_reel()
        start = self._start()
        self._ready = start + self._position * REWIND_TICKS_PER_FRAME
        self._index = 0
        self._position = 0

    # -- internals -------------------------------------------------------------------------------

    @property
    def _records(self) -> list[TapeRecord]:
        assert self._reel is not None
        return self._reel.records

    def _what(self) -> str:
        return self.name if self._reel is None else f"{self.name} ({self._reel.path})"

    def _require_reel(self) -> TapeFile:
        if self._reel is None:
            raise DeviceError(f"{self.name} has no reel mounted")
        return self._reel

    def _now(self) -> int:
        """Machine time in ticks; a clock that went back (a reset machine) ends all motion."""
        now = 0 if self._link is None else self._link.now() * TICKS_PER_CYCLE
        if now < self._seen:
            self._ready = now
        self._seen = now
        return now

    def _hold(self, tick: int) -> int:
        """Interlock until ``tick``; the machine time afterwards (on a cycle boundary) in ticks."""
        if self._link is None:
            return tick
        cycle = -(-tick // TICKS_PER_CYCLE)
        self._link.hold_until(cycle)
        now = max(self._link.now() * TICKS_PER_CYCLE, self._seen)
        self._seen = now
        return now

    def _start(self) -> int:
        """Wait until the unit is ready; the tick the tape starts (the cycle the wait ends)."""
        now = self._now()
        return self._hold(self._ready) if self._ready > now else now

    def _word_read(self, k: int) -> int:
        """Tick at which word ``k`` of the record being read is complete in the buffer."""
        return self._first + min(FRAMES_PER_WORD * (k + 1), self._frames) * FRAME_TICKS

    def _check_room(self, length: int, what: str) -> None:
        if self._position + length > self._usable:
            raise DeviceError(
                f"{self._what()}: {what} here would run past the end of the {self.reel_feet} ft reel "
                f"({self._position / DENSITY_FPI / 12:.1f} ft are wound past the load point)")

    def _advance(self, record: TapeRecord) -> None:
        """The head has written ``record``: move past it."""
        self._index += 1
        self._position += record.length

    def _passed_end_spot(self) -> None:
        if self._link is not None:
            self._link.set_end_of_tape()

    def _finish(self) -> None:
        """End what the last select started: a record being written goes to the file."""
        state, self._state = self._state, _IDLE
        if state != _WRITE or not self._words:
            return
        words, self._words = self._words, []
        assert self._reel is not None
        record = self._reel.write(self._index, words_to_frames(words, bcd=self._bcd))
        self._advance(record)
        self._ready = self._first + len(words) * WORD_TICKS + STOP_TICKS


__all__ = [
    "BCD_BASE",
    "BINARY_BASE",
    "UNITS",
    "TapeFile",
    "TapeRecord",
    "TapeUnit",
    "frames_to_words",
    "read_tape",
    "words_to_frames",
    "write_tape",
]
