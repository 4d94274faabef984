"""samuel emu704: assemble SAP programs and run them on the emulated IBM 704.

``samuel emu704 asm PROG.sap`` writes ``PROG.lst`` (the listing) and ``PROG.cbn``
(a self-loading card deck).  ``samuel emu704 run PROG.sap|PROG.cbn`` loads the
program (a deck is booted with LOAD CARD), runs it, prints what the printer
printed as it prints it, then the final registers, indicators, counts and the
704 time.  ``--tape N=FILE`` mounts a SIMH .tap file on 727 tape unit N (1-10)
with its write ring (a missing file is a new, blank reel); ``--tape-ro N=FILE``
mounts one without the ring, read only.  The tapes are unmounted when the run
ends, so what the program wrote is in the files for the next run.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from samuel.argtypes import positive_int
from samuel.outputs import check_output_file, output_file


def _listing_file(text: str) -> str:
    """--listing: a file to write, or - for stdout."""
    return text if text == "-" else output_file(text)


if TYPE_CHECKING:
    from emu704.cpu import Machine, StopReason
    from emu704.devices import CardPunch
    from emu704.tape import TapeUnit

# The emulator is imported by the functions that run it: building the parser should not load it.

MEMORY_CHOICES = {"4": 4096, "8": 8192, "32": 32768, "4096": 4096, "8192": 8192, "32768": 32768}


def _tape_mount(text: str) -> tuple[int, Path]:
    """--tape / --tape-ro: N=FILE with N a tape unit 1-10."""
    unit, sep, name = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected N=FILE (N a tape unit 1-10), got {text!r}")
    if not unit.strip().isdigit() or not 1 <= int(unit) <= 10:
        raise argparse.ArgumentTypeError(f"tape units are 1-10, got {unit!r}")
    return int(unit), Path(name)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("emu704", help="the IBM 704 emulator: assemble and run SAP programs")
    cmds = p.add_subparsers(dest="emu704_command", metavar="ACTION")

    asm = cmds.add_parser("asm", help="assemble a SAP program: listing and self-loading deck")
    asm.add_argument("source", type=Path, help="SAP source file")
    asm.add_argument("--memory", default="32", choices=sorted(MEMORY_CHOICES, key=int),
                     help="core size in K words or words (default 32K)")
    asm.add_argument("-o", "--output", type=output_file, help="deck file (default: SOURCE with .cbn)")
    asm.add_argument("--listing", type=_listing_file,
                     help="listing file (default: SOURCE with .lst; - for stdout)")
    asm.set_defaults(func=run_asm)

    run = cmds.add_parser("run", help="run a SAP program or a CBN deck")
    run.add_argument("program", type=Path, help="a .sap source or a .cbn self-loading deck")
    run.add_argument("--cards", type=Path, help="text file: each line becomes a card in the reader")
    run.add_argument("--max-cycles", type=positive_int, default=10_000_000, metavar="N",
                     help="stop after N machine cycles (default 10,000,000 = 2 minutes of 704 time)")
    run.add_argument("--max-instructions", type=positive_int, metavar="N", help="stop after N instructions")
    run.add_argument("--trace", action="store_true", help="print every instruction as it executes")
    run.add_argument("--memory", default="32", choices=sorted(MEMORY_CHOICES, key=int),
                     help="core size (default 32K)")
    run.add_argument("--switches", default="", metavar="1,3", help="sense switches that are down")
    run.add_argument("--backend", default="python", choices=("python", "c"),
                     help="the reference Python CPU or the C fast path")
    run.add_argument("--tape", type=_tape_mount, action="append", default=[], metavar="N=FILE",
                     help="mount FILE (SIMH .tap; created if missing) on tape unit N (1-10) with its "
                          "write ring; repeatable")
    run.add_argument("--tape-ro", type=_tape_mount, action="append", default=[], metavar="N=FILE",
                     help="mount FILE on tape unit N without the write ring (read only; it must exist)")
    run.set_defaults(func=run_run)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def run_asm(args: argparse.Namespace) -> int:
    from emu704.sap import SapError, assemble_file
    from emu704.symbols import write_symbols

    # Every file it will write, checked before any is: a listing must not stand without its deck.
    deck_path = check_output_file(args.output or args.source.with_suffix(".cbn"), "--output")
    check_output_file(deck_path.with_suffix(".sym"), "--output")
    if args.listing != "-":
        check_output_file(args.listing or args.source.with_suffix(".lst"), "--listing")
    try:
        image = assemble_file(args.source, MEMORY_CHOICES[args.memory])
    except SapError as exc:
        print(f"samuel emu704 asm: {exc}", file=sys.stderr)
        return 2
    # The listing first: it helps most exactly when the deck cannot be made.
    listing = image.listing()
    if args.listing == "-":
        sys.stdout.write(listing)
    else:
        listing_path = Path(args.listing) if args.listing else args.source.with_suffix(".lst")
        listing_path.write_text(listing)
        print(f"listing  {listing_path}")
    try:
        image.save_cbn(deck_path)
    except ValueError as exc:  # no start address, or a block over the loader's locations
        print(f"samuel emu704 asm: {args.source}: {exc}" if str(args.source) not in str(exc)
              else f"samuel emu704 asm: {exc}", file=sys.stderr)
        return 2
    symbols_path = Path(deck_path).with_suffix(".sym")
    write_symbols(image, symbols_path)  # so a host can drive the deck by name
    words = sum(len(ws) for _, ws in image.blocks)
    print(f"deck     {deck_path} ({len(image.deck())} cards)")
    print(f"symbols  {symbols_path} ({len(image.symbols)} names)")
    print(f"program  {words} words in {len(image.blocks)} block(s), start {image.start:05o} (octal)")
    return 0


def _new_machine(backend: str, size: int) -> Machine:
    from emu704.cpu import Machine

    if backend == "c":
        from emu704.fast import FastMachine

        return FastMachine(size)
    return Machine(size)


def _parse_switches(text: str) -> list[int]:
    out = []
    for part in filter(None, (s.strip() for s in text.split(","))):
        if not part.isdigit() or not 1 <= int(part) <= 6:
            raise ValueError(f"--switches: sense switches are 1-6, got {part!r}")
        out.append(int(part))
    return out


def _mount_tapes(args: argparse.Namespace) -> list[TapeUnit]:
    """The units of --tape and --tape-ro, reels mounted (DeviceError or ValueError if one fails)."""
    from emu704.tape import TapeUnit

    mounts = [(unit, path, True) for unit, path in args.tape]
    mounts += [(unit, path, False) for unit, path in args.tape_ro]
    units: list[TapeUnit] = []
    seen: dict[Path, int] = {}
    try:
        for unit, path, ring in mounts:
            if any(u.unit == unit for u in units):
                raise ValueError(f"--tape: tape unit {unit} is given two reels")
            where = path.resolve()
            if where in seen:
                raise ValueError(f"--tape: {path} is mounted on tape units {seen[where]} and {unit}")
            seen[where] = unit
            units.append(TapeUnit(unit, path, ring=ring))
    except BaseException:
        for u in units:
            u.unmount()
        raise
    return units


def run_run(args: argparse.Namespace) -> int:
    from emu704.devices import DeviceError

    size = MEMORY_CHOICES[args.memory]
    try:
        switches = _parse_switches(args.switches)
        tapes = _mount_tapes(args)
    except (ValueError, DeviceError) as exc:
        print(f"samuel emu704 run: {exc}", file=sys.stderr)
        return 2
    try:
        return _run_with(args, size, switches, tapes)
    finally:
        for unit in tapes:  # a record being written goes to its file
            try:
                unit.unmount()
            except DeviceError as exc:
                print(f"samuel emu704 run: {exc}", file=sys.stderr)


def _run_with(args: argparse.Namespace, size: int, switches: list[int], tapes: list[TapeUnit]) -> int:
    from emu704.cards import CardFormatError, load_cbn
    from emu704.cpu import StopReason
    from emu704.devices import CardPunch, CardReader, Printer
    from emu704.loader import LoadError, load_card
    from emu704.sap import SapError, assemble_file

    machine = _new_machine(args.backend, size)
    reader, punch = CardReader(), CardPunch()
    printer = Printer(on_line=lambda line: print(line, flush=True))
    for device in (reader, punch, printer):
        machine.attach(device)
    for unit in tapes:
        machine.attach(unit)
    for s in switches:
        machine.set_sense_switch(s, True)
    try:
        if args.program.suffix.lower() == ".cbn":
            reader.queue_deck(load_cbn(args.program))
        else:
            image = assemble_file(args.program, size)
            for origin, words in image.blocks:
                machine.load(words, origin)
            machine.ic = image.require_start()
        if args.cards is not None:
            for line in args.cards.read_text().splitlines():
                reader.queue_text(line)
        reader.signal_end_of_file()
        if args.program.suffix.lower() == ".cbn":
            load_card(machine)
    except SapError as exc:
        print(f"samuel emu704 run: {exc}", file=sys.stderr)
        return 2
    except (CardFormatError, LoadError, ValueError) as exc:
        print(f"samuel emu704 run: {exc}", file=sys.stderr)
        return 2

    reason = _trace(machine, args) if args.trace else machine.run(args.max_instructions, args.max_cycles)
    for unit in tapes:
        unit.end_record()  # before the report, so it counts a record the program was writing
    _report(machine, reason, punch, tapes)
    return 0 if reason is StopReason.HALT else 1


def _trace(machine: Machine, args: argparse.Namespace) -> StopReason:
    from emu704.cpu import StopReason
    from emu704.disasm import disassemble_word

    limit = args.max_instructions
    start_cycles = machine.cycles
    n = 0
    while True:
        if limit is not None and n >= limit:
            return StopReason.INSTRUCTION_LIMIT
        if machine.cycles - start_cycles >= args.max_cycles:
            return StopReason.CYCLE_LIMIT
        loc = machine.ic
        w = machine.read(loc)
        op, field = disassemble_word(w, machine.memory_words)
        reason = machine.step()
        n += 1
        print(f"{loc:05o}  {w:012o}  {op:<4} {field:<16} AC {_ac_text(machine)}  MQ {machine.mq:012o}",
              flush=True)
        if reason is not None:
            return reason


def _ac_text(machine: Machine) -> str:
    from emu704 import word

    ac = machine.ac
    sign = "-" if ac >> 37 & 1 else "+"
    return f"{sign}{ac >> 36 & 1}{ac >> 35 & 1}{ac & word.MAG_MASK:012o}"


def _report(machine: Machine, reason: StopReason, punch: CardPunch, tapes: list[TapeUnit]) -> None:
    s = machine.state()
    detail = getattr(machine, "stop_detail", "")
    print(f"stop     {reason.value}: {reason.message}" + (f" ({detail})" if detail else ""))
    print(f"IC       {s.ic:05o}")
    print(f"AC       {_ac_text(machine)}   (S, Q, P, 1-35)")
    print(f"MQ       {s.mq:012o}")
    print(f"XR       A {s.xr[0]:05o}  B {s.xr[1]:05o}  C {s.xr[2]:05o}")
    flags = [name for name, on in (("AC overflow", s.ac_overflow), ("MQ overflow", s.mq_overflow),
                                   ("divide check", s.divide_check), ("trapping mode", s.trap_mode),
                                   ("end of tape", s.end_of_tape), ("tape check", s.tape_check)) if on]
    print(f"flags    {', '.join(flags) or 'none'}   sense lights {s.sense_lights:04b}")
    ms = s.cycles * 12 / 1000
    waited = getattr(machine, "io_wait_cycles", 0)
    waits = f" ({waited} waiting for tape)" if tapes else ""
    print(f"count    {s.instructions} instructions, {s.cycles} cycles{waits} = {ms:.3f} ms of 704 time")
    for unit in tapes:
        records = unit.records
        marks = sum(r.is_mark for r in records)
        print(f"tape {unit.unit:<3} {unit.path}: {len(records) - marks} record(s), {marks} tape mark(s); "
              f"head before record {unit.record_index} ({unit.position_inches / 12:.1f} ft past the load "
              f"point){'' if unit.ring else ', no write ring'}")
    if punch.cards:
        print(f"punched  {len(punch.cards)} card(s)")
        for line in punch.text():
            print(f"         {line}")
