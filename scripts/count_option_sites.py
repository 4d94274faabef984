"""Count the places in the source that define, validate or copy each engine option.

What is counted, exactly:

* The files: the option's path from the command line, the protocols, the match specs and the
  DLL down to the search (``FILES`` below; a file that does not exist is skipped, tests are not
  counted).
* A *site* is one source line that names an option.  In Python files the line is read with
  ``tokenize``: it names option X when it holds a NAME token matching X's identifier pattern
  (``IDENTIFIERS``: e.g. ``contempt``, ``DEFAULT_CONTEMPT``, ``hash_mb``, ``HASH_MAX_MB``) or a
  STRING token whose text is exactly one of X's spellings (``"contempt"``, ``"--hash"``,
  ``"book-variety"``).  Comments, docstrings and help prose do not count; ``import`` lines do
  not count; a NAME directly followed by ``.`` does not count (that is a module, such as
  ``egdb.resolve``).  In C files and ``.ini`` files a site is a line, outside comments, that holds
  one of X's spellings as a whole word (C identifiers ``contempt``/``hash`` included).
* Each site is put in one class, the first that matches:
  - **define**: the line declares the option or one of its properties: an ``add_argument(``, a
    table entry (``OptionSpec(``/``EngineOption(``), a module constant (``NAME = ...`` at the
    start of a line in capitals), an annotated default (``name: type = value``), an ini
    ``key = value`` line.
  - **validate**: the line checks a value: it holds ``raise``, a chained comparison
    (``a <= x <= b``), ``bounded_int``, ``hash_size``, ``check_``, ``validate``, ``.parse(``,
    ``choices=`` or ``not in``.
  - **copy**: every other site (the value is read, passed on, stored or converted).

The same script, run before and after a change, gives comparable figures.  ``--list`` prints
every site with its class.
"""

from __future__ import annotations

import argparse
import io
import re
import sys
import tokenize
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

FILES = (
    "engine/options.py", "engine/searchers.py", "engine/search.py", "engine/backend704.py",
    "protocol/options.py", "protocol/local_engine.py", "protocol/session_engine.py",
    "protocol/hub_session.py",
    "protocol/hub_grammar.py", "protocol/cb_session.py", "protocol/cb_grammar.py",
    "protocol/dxp_session.py", "protocol/search_host.py", "protocol/host_pool.py",
    "protocol/memory_budget.py",
    "samuel/engine_args.py", "samuel/argtypes.py", "samuel/session_args.py",
    "samuel/commands/analyse.py", "samuel/commands/play.py", "samuel/commands/serve.py",
    "samuel/commands/hub.py", "samuel/commands/cb.py", "samuel/commands/dxp.py",
    "matches/engines.py",
    "cbdll/samuel.ini", "cbdll/cb_shim.c", "cbdll/cb_shim.h", "cbdll/samuel_dll.c",
)

OPTIONS: dict[str, tuple[str, ...]] = {
    # option: its spellings as strings (exact) and as C/ini words
    "contempt": ("contempt", "--contempt"),
    "hash": ("hash", "--hash", "hashsize"),
    "evaluator": ("evaluator", "eval", "--eval", "--evaluator"),
    "mode": ("mode", "--mode"),
    "egdb": ("egdb", "--egdb"),
    "book": ("book", "--book"),
    "book-variety": ("book-variety", "--book-variety", "book_variety"),
    "backend": ("backend", "--backend"),
    "pace": ("pace", "--pace"),
    "deck704": ("deck704", "--deck704"),
}

IDENTIFIERS: dict[str, re.Pattern[str]] = {
    "contempt": re.compile(r"(?i)^\w*contempt\w*$"),
    "hash": re.compile(r"^(hash|hash_mb|hash_size|set_hash|HASH_\w+|\w+_HASH_MB|hashsize)$"),
    "evaluator": re.compile(r"^(evaluator|set_evaluator|check_evaluator|evaluator_type|EvaluatorAction"
                            r"|evaluator_name)$"),
    "mode": re.compile(r"^(mode|MODES|MODE_CHOICES)$"),
    "egdb": re.compile(r"^(egdb|egdb_setting|set_egdb)$"),
    "book": re.compile(r"^(book|book_spec|add_book_arguments)$"),
    "book-variety": re.compile(r"^(book_variety|MAX_VARIETY)$"),
    "backend": re.compile(r"^(backend|BACKENDS)$"),
    "pace": re.compile(r"^(pace|PACES)$"),
    "deck704": re.compile(r"^(deck704|deck704_file)$"),
}

DEFINE = re.compile(
    r"add_argument\(|OptionSpec\(|EngineOption\(|^[A-Z][A-Z0-9_]*\s*(:[^=]+)?="
    r"|^\s*\w+\s*:\s*[\w\[\]|. ]+=\s*\S"
)
VALIDATE = re.compile(r"\braise\b|<=.*<=|bounded_int|hash_size|check_|validate|\.parse\(|choices=|not in\b")


def python_sites(text: str) -> dict[int, set[str]]:
    """Line number -> the options it names (by the rules above)."""
    found: dict[int, set[str]] = {}
    tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    in_import = False
    at_start = True
    for i, tok in enumerate(tokens):
        line_no = tok.start[0]
        if tok.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
            in_import, at_start = False, True
            continue
        if at_start and tok.type not in (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT):
            in_import = tok.string in ("import", "from")  # the whole statement, over all its lines
            at_start = False
        if in_import:
            continue
        names: list[str] = []
        if tok.type == tokenize.NAME:
            nxt = tokens[i + 1] if i + 1 < len(tokens) else None
            if nxt is not None and nxt.string == ".":
                continue
            names = [o for o, pat in IDENTIFIERS.items() if pat.match(tok.string)]
        elif tok.type == tokenize.STRING:
            try:
                value = eval(tok.string, {})  # a literal from our own source
            except Exception:
                continue
            if isinstance(value, str):
                names = [o for o, spell in OPTIONS.items() if value in spell]
        for o in names:
            found.setdefault(line_no, set()).add(o)
    return found


def _docstring_lines(text: str) -> set[int]:
    """Lines of string tokens that stand alone as statements (docstrings): never sites."""
    out: set[int] = set()
    prev = tokenize.NEWLINE
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.STRING and prev in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                                                    tokenize.NL):
            out.update(range(tok.start[0], tok.end[0] + 1))
        if tok.type not in (tokenize.COMMENT,):
            prev = tok.type
    return out


def c_sites(text: str, ini: bool) -> dict[int, set[str]]:
    found: dict[int, set[str]] = {}
    in_block = False
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw
        if ini:
            line = line.split(";", 1)[0].split("#", 1)[0]
        else:
            if in_block:
                if "*/" not in line:
                    continue
                line = line.split("*/", 1)[1]
                in_block = False
            line = re.sub(r"/\*.*?\*/", "", line)
            if "/*" in line:
                line, in_block = line.split("/*", 1)[0], True
            line = line.split("//", 1)[0]
        for o, spell in OPTIONS.items():
            words = [s.lstrip("-") for s in spell]
            if any(re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])", line) for w in words):
                found.setdefault(n, set()).add(o)
    return found


def classify(line: str, ini: bool) -> str:
    if ini:
        return "define"
    if DEFINE.search(line):
        return "define"
    if VALIDATE.search(line):
        return "validate"
    return "copy"


def count(root: Path = ROOT) -> tuple[dict[str, Counter[str]], list[tuple[str, int, str, str, str]]]:
    totals: dict[str, Counter[str]] = {o: Counter() for o in OPTIONS}
    listing: list[tuple[str, int, str, str, str]] = []
    for rel in FILES:
        path = root / rel
        if not path.exists():
            continue
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        ini = rel.endswith(".ini")
        if rel.endswith(".py"):
            sites = python_sites(text)
            for n in _docstring_lines(text):
                sites.pop(n, None)
        else:
            sites = c_sites(text, ini)
        for n in sorted(sites):
            kind = classify(lines[n - 1], ini)
            for o in sorted(sites[n]):
                totals[o][kind] += 1
                listing.append((rel, n, o, kind, lines[n - 1].strip()))
    return totals, listing


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--list", action="store_true", help="print every site with its class")
    ap.add_argument("--files", action="store_true", help="print the files that name each option")
    args = ap.parse_args(argv)
    totals, listing = count()
    if args.list:
        for rel, n, o, kind, line in listing:
            print(f"{rel}:{n}: {o} {kind}: {line}")
    print(f"{'option':<14}{'define':>8}{'validate':>10}{'copy':>7}{'sites':>7}{'files':>7}")
    grand: Counter[str] = Counter()
    for o, c in totals.items():
        files = {rel for rel, _, oo, _, _ in listing if oo == o}
        print(f"{o:<14}{c['define']:>8}{c['validate']:>10}{c['copy']:>7}{sum(c.values()):>7}{len(files):>7}")
        if args.files:
            print("    " + " ".join(sorted(files)))
        grand.update(c)
    print(f"{'all':<14}{grand['define']:>8}{grand['validate']:>10}{grand['copy']:>7}{sum(grand.values()):>7}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
