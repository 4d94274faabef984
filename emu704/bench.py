"""Emulator speed: instructions per second of the Python and C backends on endless loops.

``bench(backend, instructions, program)`` runs ``instructions`` instructions of one of the
PROGRAMS (SAP source, assembled here) and returns instructions per second of host time.

* ``tight``: CLA / ADD / STO / TIX round an index-register loop (the inner loop of most
  704 programs), the outer TRA reloading the index register.
* ``mixed``: an indexed table load, add, ANA, MPY (20 cycles), LLS, FAD, a TSX subroutine
  with ALS and TNZ, CAS and NOPs, then TIX: every common instruction class.

Command line: ``python -m emu704.bench [--instructions N] [--backend c|python|both]``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

from emu704.cpu import Machine, StopReason
from emu704.sap import assemble

PROGRAMS: dict[str, str] = {
    "tight": """
       ORG 100
START  LXA N,1
LOOP   CLA SUM
       ADD ONE
       STO SUM
       TIX LOOP,1,1
       TRA START
N      DEC 4000
ONE    DEC 1
SUM    PZE
       END START
""",
    "mixed": """
       ORG 100
START  LXA N,1
LOOP   CLA TAB,1
       ADD SUM
       ANA MASK
       STO SUM
       LDQ SUM
       MPY K
       LLS 4
       FAD F1
       TSX SUB,4
       CAS SUM
       NOP
       NOP
       TIX LOOP,1,1
       TRA START
SUB    ALS 2
       TNZ 1,4
       TRA 1,4
N      DEC 1000
K      DEC 12345
MASK   OCT 377777
F1     OCT 201400000000
SUM    PZE
       BSS 1000
TAB    PZE
       END START
""",
}

BACKENDS = ("python", "c")


def new_machine(backend: str, memory_words: int = 32768) -> Machine:
    """A Machine of the given backend ("python" or "c")."""
    if backend == "c":
        from emu704.fast import FastMachine

        return FastMachine(memory_words)
    if backend == "python":
        return Machine(memory_words)
    raise ValueError(f"backend must be one of {BACKENDS}, not {backend!r}")


def loaded_machine(backend: str, program: str = "tight") -> Machine:
    image = assemble(PROGRAMS[program])
    machine = new_machine(backend, image.memory_size)
    image.load_into(machine.write)
    assert image.start is not None
    machine.ic = image.start
    return machine


def bench(backend: str = "c", instructions: int = 50_000_000, program: str = "tight") -> float:
    """Instructions per second of ``backend`` running ``instructions`` of ``program``."""
    machine = loaded_machine(backend, program)
    t0 = time.perf_counter()
    reason = machine.run(max_instructions=instructions)
    elapsed = time.perf_counter() - t0
    if reason is not StopReason.INSTRUCTION_LIMIT or machine.instructions != instructions:
        raise RuntimeError(f"bench program {program!r} stopped early: {reason.message}")
    return instructions / elapsed


DEFAULT_INSTRUCTIONS = {"python": 2_000_000, "c": 100_000_000}

CALL_PROGRAM = """
       ORG 100
ENTRY  TRA BODY
RETURN HTR ENTRY
BODY   CLA A
       ADD B
       STO OUT
       TRA RETURN
A      PZE
B      PZE
C      PZE
D      PZE
OUT    PZE
       END ENTRY
"""


def call_cost(calls: int = 200_000) -> tuple[float, float]:
    """Host seconds per call of a 5-instruction routine with 4 words in and 1 out:
    (through emu704.host_call, through FastMachine.run with reads and writes)."""
    from emu704.fast import FastMachine
    from emu704.host_call import CallStatus, HostCall

    image = assemble(CALL_PROGRAM)
    s = image.symbols
    inputs = [s["A"], s["B"], s["C"], s["D"]]
    m = FastMachine(image.memory_size)
    image.load_into(m.write)
    call = HostCall(m, inputs, [s["OUT"]], s["RETURN"])
    words = [1, 2, 3, 4]
    t0 = time.perf_counter()
    for _ in range(calls):
        if call.call(words, s["ENTRY"]) is not CallStatus.RETURNED:
            raise RuntimeError("the call routine did not return")
        call.outputs  # noqa: B018 -- reading the answer is part of a call
    fast = (time.perf_counter() - t0) / calls
    slow_calls = max(1, calls // 10)
    t0 = time.perf_counter()
    for _ in range(slow_calls):
        for a, w in zip(inputs, words, strict=True):
            m.write(a, w)
        m.ic = s["ENTRY"]
        m.run()
        m.read(s["OUT"])
    return fast, (time.perf_counter() - t0) / slow_calls


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m emu704.bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("--backend", choices=(*BACKENDS, "both"), default="both")
    ap.add_argument("--instructions", type=int, help="instructions per run (default: 2M Python, 100M C)")
    ap.add_argument("--program", choices=(*PROGRAMS, "all"), default="all")
    args = ap.parse_args(argv)
    backends = BACKENDS if args.backend == "both" else (args.backend,)
    programs = tuple(PROGRAMS) if args.program == "all" else (args.program,)
    for program in programs:
        for backend in backends:
            n = args.instructions or DEFAULT_INSTRUCTIONS[backend]
            rate = bench(backend, n, program)
            print(f"emu704 {program:5s} {backend:6s} {rate / 1e6:8.2f} M instr/s  ({n:,} instructions)")
    if "c" in backends:
        fast, slow = call_cost()
        print(f"emu704 call  c       {fast * 1e6:8.2f} us a host call (4 words in, 5 instructions, 1 out); "
              f"{slow * 1e6:.2f} us through FastMachine.run")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
