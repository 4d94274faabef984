"""samuel hub: speak the Hub protocol on stdin/stdout, as Scan does with ``scan hub``.

    samuel hub                         # for pydraughts' HubEngine, lidraughts-bot, Hub GUIs
    samuel hub --frame literal --log hub.log --log-level debug

GUIs merge the engine's stderr into its stdout, so nothing is logged unless
``--log FILE`` is given; stdout carries protocol lines only.
"""

from __future__ import annotations

import argparse

from protocol.context import ServerSettings
from protocol.hub_grammar import HUB_FRAMES
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
        "hub",
        help="speak the Hub protocol (Scan's) on stdin/stdout",
        description="Run as a Hub engine on stdin/stdout (what a Hub GUI or pydraughts launches). "
                    "Logs only to --log FILE, never to the protocol stream.",
    )
    add_session_arguments(p)
    p.add_argument("--frame", default="auto", choices=HUB_FRAMES,
                   help="how pos= strings are read: auto (default), literal, or pydraughts' rotated frame")
    p.add_argument("--log", metavar="FILE", type=output_file,
                   help="append a log to FILE (default: no log at all)")
    p.add_argument("--log-level", default="info", choices=LOG_LEVELS)
    p.set_defaults(func=run)


def settings_from(args: argparse.Namespace) -> ServerSettings:
    return ServerSettings(max_line=args.max_line, defaults=session_defaults(args), hub_frame=args.frame)


def run(args: argparse.Namespace) -> int:
    from protocol.hub_session import run_hub

    configure_logging(args.log, args.log_level, stderr=False)
    return run_on_stdio(run_hub, settings_from(args))
