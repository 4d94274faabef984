"""Command-line pieces shared by the protocol commands (serve, hub, cb, dxp).

One place for the engine-session options, port numbers and logging set-up,
so every command spells them the same way.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

from engine import egdb, evaluators
from engine.errors import OptionError, SamuelError
from protocol.context import ServerSettings, Writer
from protocol.framing import DEFAULT_MAX_LINE, stream_limit
from protocol.local_engine import DEADLINE_MARGIN
from protocol.memory_budget import HashBudget, default_budget_mb
from protocol.session_engine import SessionDefaults
from samuel.argtypes import hash_budget, out_of_range, positive_int
from samuel.engine_args import add_option_flags, option_values
from samuel.outputs import check_output_file

LOG_LEVELS = ("debug", "info", "warning", "error")


def port_number(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, got {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(out_of_range(value, "0..65535; 0 = any free port"))
    return value


def deadline_margin(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text!r}") from None
    if value == -1:
        return value
    if not 0 <= value <= 60:
        raise argparse.ArgumentTypeError(out_of_range(value, "0..60 seconds, or -1 for never"))
    return value


SERVER_DEFAULTS: dict[str, str] = {"book": "default"}
"""What the protocol commands start their sessions with where it is not the table's default: the
shipped opening book (a client turns it off with ``book none``)."""


def add_session_arguments(p: argparse.ArgumentParser, *, line: bool = True) -> None:
    """The engine options of new sessions (every option of the table, as flags), the server's own
    settings (table budget, learners, deadline) and --max-line."""
    add_option_flags(p, defaults=SERVER_DEFAULTS)
    p.add_argument("--hash-budget", type=hash_budget, default=None, metavar="MB",
                   help="table memory all sessions together may hold, at most the machine's memory; a "
                        "client's hash request beyond what is left is refused (default: a quarter of "
                        f"physical memory, {default_budget_mb()} MB here)")
    p.add_argument("--rote", metavar="FILE", default="",
                   help="Samuel's rote learning: every game adds its positions to this SQLite memory, "
                        "and every search looks its leaves up in it; backend 704 reads the youngest "
                        "4,000 into the program from a tape reel, again after each merge; a .tap (a reel "
                        "the 704 program wrote, samuel learn rote play --backend 704) is read by every "
                        "search, either backend, and never written (default: off)")
    p.add_argument("--rote-merge-every", type=positive_int, default=20, metavar="N",
                   help="merge the rote memory once N searched positions wait, and at each game's end "
                        "(default: %(default)s, Samuel's 'about once every 20 moves')")
    p.add_argument("--alpha", metavar="NAME", default="",
                   help="play as Samuel's Alpha: the polynomial NAME learns after each of the engine's "
                        "moves and is saved between games (default: off)")
    p.add_argument("--alpha-dir", metavar="DIR", default="alpha",
                   help="where --alpha polynomials are kept, DIR/NAME.json (default: %(default)s)")
    p.add_argument("--deadline-margin", type=deadline_margin, default=DEADLINE_MARGIN, metavar="S",
                   help="seconds past a timed search's hard budget before the server answers for it with "
                        "its last reported move (a search starved of the CPU, or stuck); -1: never "
                        "(default: %(default)s)")
    if line:
        p.add_argument("--max-line", type=positive_int, default=DEFAULT_MAX_LINE, metavar="BYTES",
                       help="longest accepted line (default: %(default)s)")


def session_defaults(args: argparse.Namespace) -> SessionDefaults:
    options = option_values(args)
    alpha_dir = getattr(args, "alpha_dir", "alpha")
    if getattr(args, "alpha", ""):  # find out now, not at the first game's end, that it cannot be saved
        try:
            Path(alpha_dir).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OptionError(f"--alpha-dir {alpha_dir}: cannot create it ({exc.strerror})") from None
    budget_mb = getattr(args, "hash_budget", None) or default_budget_mb()
    if options.hash_mb > budget_mb:
        raise OptionError(f"--hash {options.hash_mb} MB does not fit in the table budget of {budget_mb} MB "
                          "(raise --hash-budget)")
    sessions = getattr(args, "max_sessions", None)
    if sessions is not None and budget_mb // options.hash_mb < sessions:
        logging.getLogger("samuel").warning(
            "the table budget of %d MB holds %d sessions at --hash %d MB, fewer than --max-sessions %d: "
            "a session beyond them is refused a table until another ends (raise --hash-budget or lower "
            "--hash)", budget_mb, budget_mb // options.hash_mb, options.hash_mb, sessions)
    evaluator = str(options["evaluator"])
    if evaluator.endswith(".json"):  # the operator's own file: known by its name to every session
        options.set("evaluator", evaluators.register(evaluators.load(evaluator)))
    rote = getattr(args, "rote", "") or ""
    if rote:
        check_rote_store(rote)
    if options.backend == "704":
        check_704(getattr(args, "alpha", "") or "", str(options["deck704"]))
    # Loaded once here, shared by every session; a bad directory stops us now.
    db = egdb.resolve(str(options["egdb"]))
    logging.getLogger("samuel").info("%s", egdb.describe(db))
    return SessionDefaults(options=options,
                           rote=rote,
                           rote_merge_every=getattr(args, "rote_merge_every", 20),
                           alpha=getattr(args, "alpha", "") or "",
                           alpha_dir=alpha_dir, hash_budget=HashBudget(budget_mb),
                           deadline_margin=getattr(args, "deadline_margin", DEADLINE_MARGIN))


def check_704(alpha: str, deck: str) -> None:
    """``--backend 704`` plays a fixed polynomial (Alpha learns on the host): refuse Alpha now
    (an evaluator it cannot play was refused with the options), and build the program before
    the first session's clock starts (a deck that cannot load is named)."""
    from protocol.local_engine import warm_up_704

    if alpha:
        raise OptionError(f"--alpha {alpha}: backend 704 plays a fixed polynomial, "
                          "not Samuel's learning Alpha")
    try:
        warm_up_704(deck)
    except SamuelError as exc:
        raise OptionError(f"--deck704 {deck or '(the package program)'}: {exc}") from None


def check_rote_store(path: str) -> None:
    """Open the ``--rote`` store once (making it if new), so that a folder, a missing folder or a
    file that is no store is named now, not by every search process as it starts.  A ``.tap`` is a
    704 reel, read only: it must exist and be one."""
    from engine.learners.rote_file import is_reel, open_rote
    from engine.learners.rote_store import RoteStore, RoteStoreError

    if is_reel(path):
        try:
            open_rote(path)
        except SamuelError as exc:
            raise OptionError(f"--rote: {exc}") from None
        return

    check_output_file(path, "--rote")
    try:
        RoteStore(path).close()
    except RoteStoreError as exc:
        raise OptionError(f"--rote: {exc}") from None


def configure_logging(path: str | None, level: str, *, stderr: bool) -> None:
    """Log to ``path``; without it to stderr when ``stderr``, else nowhere at all.

    Engines on stdin/stdout log nowhere by default: GUIs such as pydraughts merge
    the engine's stderr into the protocol stream.
    """
    root = logging.getLogger()
    handler: logging.Handler
    if path:
        handler = logging.FileHandler(path, encoding="utf-8")
    elif stderr:
        handler = logging.StreamHandler(sys.stderr)
    else:
        handler = logging.NullHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root.handlers[:] = [handler]
    silent = not path and not stderr
    root.setLevel(logging.CRITICAL + 1 if silent else getattr(logging, level.upper()))


def run_on_stdio(
    session: Callable[[asyncio.StreamReader, Writer, ServerSettings], Awaitable[None]],
    settings: ServerSettings,
) -> int:
    """Serve one protocol session on this process's stdin and stdout until it ends."""
    from protocol.stdio import StdoutWriter, open_stdin_reader

    async def main() -> None:
        reader = open_stdin_reader(limit=stream_limit(settings.max_line))
        await session(reader, StdoutWriter(), settings)

    asyncio.run(main())
    return 0
