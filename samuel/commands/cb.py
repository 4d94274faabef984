"""samuel cb: speak the cb protocol (CheckerBoard's engine API as lines) on stdin/stdout.

    samuel cb                          # for a CheckerBoard DLL shim, scripts, the cb client
    samuel cb --evaluator material --hash 64 --log cb.log

The same dialect is served over TCP (port 27532) by ``samuel serve``.  Nothing
is logged unless ``--log FILE`` is given; stdout carries protocol lines only.
See docs/protocols/cb.md.
"""

from __future__ import annotations

import argparse

from protocol.context import ServerSettings
from samuel.argtypes import positive_float
from samuel.outputs import output_file
from samuel.session_args import (
    LOG_LEVELS,
    add_session_arguments,
    configure_logging,
    run_on_stdio,
    session_defaults,
)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "cb",
        help="speak the cb protocol (CheckerBoard's engine API as text lines) on stdin/stdout",
        description="Run as a cb engine on stdin/stdout: each CheckerBoard enginecommand string on a line, "
                    "getmove to search.  Logs only to --log FILE, never to the protocol stream.",
    )
    add_session_arguments(p)
    p.add_argument("--idle-timeout", type=positive_float, default=None, metavar="S",
                   help="end the session after S silent seconds while idle (default: never)")
    p.add_argument("--log", metavar="FILE", type=output_file,
                   help="append a log to FILE (default: no log at all)")
    p.add_argument("--log-level", default="info", choices=LOG_LEVELS)
    p.set_defaults(func=run)


def settings_from(args: argparse.Namespace) -> ServerSettings:
    return ServerSettings(max_line=args.max_line, idle_timeout=args.idle_timeout,
                          defaults=session_defaults(args))


def run(args: argparse.Namespace) -> int:
    from protocol.cb_session import run_cb

    configure_logging(args.log, args.log_level, stderr=False)
    return run_on_stdio(run_cb, settings_from(args))
