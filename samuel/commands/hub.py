"""samuel hub: speak the Hub protocol on stdin/stdout, as Scan does with ``scan hub``.

    samuel hub                         # for pydraughts' HubEngine, lidraughts-bot, Hub GUIs
    samuel hub --frame literal --log hub.log --log-level debug

GUIs merge the engine's stderr into its stdout, so nothing is logged unless
``--log FILE`` is given; stdout carries protocol lines only.
"""

from __future__ import annotations

import argparse
import asyncio
import logging

from engine.evaluators import BUILTIN
from protocol.context import ServerSettings
from protocol.framing import stream_limit
from protocol.hub_grammar import HUB_FRAMES
from protocol.options import BACKENDS, MODES
from protocol.session import SessionDefaults
from samuel.commands.analyse import positive_int


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "hub",
        help="speak the Hub protocol (Scan's) on stdin/stdout",
        description="Run as a Hub engine on stdin/stdout (what a Hub GUI or pydraughts launches). "
                    "Logs only to --log FILE, never to the protocol stream.",
    )
    p.add_argument("--evaluator", "--eval", dest="evaluator", default="default", choices=sorted(BUILTIN),
                   help="evaluator (default: %(default)s)")
    p.add_argument("--mode", default="pvs", choices=MODES, help="search mode (default: %(default)s)")
    p.add_argument("--hash", type=positive_int, default=16, metavar="MB",
                   help="transposition table size in MB (default: %(default)s)")
    p.add_argument("--backend", default="modern", choices=BACKENDS, help="engine backend (default: modern)")
    p.add_argument("--frame", default="auto", choices=HUB_FRAMES,
                   help="how pos= strings are read: auto (default), literal, or pydraughts' rotated frame")
    p.add_argument("--max-line", type=positive_int, default=4096, metavar="BYTES",
                   help="longest accepted line (default: %(default)s)")
    p.add_argument("--log", metavar="FILE", help="append a log to FILE (default: no log at all)")
    p.add_argument("--log-level", default="info", choices=("debug", "info", "warning", "error"))
    p.set_defaults(func=run)


def configure_logging(path: str | None, level: str) -> None:
    """Log to ``path`` only; without it, silence logging (even Python's last-resort stderr handler)."""
    root = logging.getLogger()
    if path:
        handler: logging.Handler = logging.FileHandler(path, encoding="utf-8")
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        root.setLevel(getattr(logging, level.upper()))
    else:
        handler = logging.NullHandler()
        root.setLevel(logging.CRITICAL + 1)
    root.handlers[:] = [handler]


def settings_from(args: argparse.Namespace) -> ServerSettings:
    return ServerSettings(
        max_line=args.max_line,
        defaults=SessionDefaults(evaluator=args.evaluator, mode=args.mode, hash_mb=args.hash,
                                 backend=args.backend),
        hub_frame=args.frame,
    )


async def serve_stdio(settings: ServerSettings) -> None:
    from protocol.hub_session import run_hub
    from protocol.stdio import StdoutWriter, open_stdin_reader

    reader = open_stdin_reader(limit=stream_limit(settings.max_line))
    await run_hub(reader, StdoutWriter(), settings)


def run(args: argparse.Namespace) -> int:
    configure_logging(args.log, args.log_level)
    asyncio.run(serve_stdio(settings_from(args)))
    return 0
