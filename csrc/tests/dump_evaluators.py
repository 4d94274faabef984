"""Write each named evaluator as raw int32s for the sanitizer driver (csrc/tests/core_check.c).

    python csrc/tests/dump_evaluators.py OUTDIR [NAME ...]    (default: every evaluator by_name knows)

One file per evaluator, OUTDIR/NAME.eval: kind, nweights, 64 weights, 32 man_table,
32 king_table, ndata, then the data words.
"""

from __future__ import annotations

import sys
from array import array
from pathlib import Path

from engine import evaluators


def dump(name: str, out: Path) -> Path:
    spec = evaluators.by_name(name).spec
    words = array("i", [spec.kind, len(spec.weights)])
    words.extend(list(spec.weights) + [0] * (64 - len(spec.weights)))
    words.extend(list(spec.man_table) or [0] * 32)
    words.extend(list(spec.king_table) or [0] * 32)
    words.append(len(spec.data))
    words.extend(spec.data)
    path = out / f"{name}.eval"
    path.write_bytes(words.tobytes())
    return path


def main(argv: list[str]) -> int:
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    for name in argv[1:] or evaluators.available():
        print(dump(name, out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
