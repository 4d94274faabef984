"""samuel serve: the engine server, DXP and cb over TCP (Hub optional), until stopped.

    samuel serve                          # DXP on 127.0.0.1:27531, cb on 127.0.0.1:27532
    samuel serve --host 0.0.0.0 --dxp-port 27531 --cb-port 27532 --hub-port 27534
    samuel serve --web-port 27533         # also the board page: http://127.0.0.1:27533/

Logs go to stderr (or ``--log FILE``), never to a client.  SIGINT/SIGTERM stop
it cleanly: running searches are stopped and connections closed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import signal
import sys
from dataclasses import replace

from protocol.context import CB_PORT, DXP_PORT, WEB_PORT, ServerSettings
from protocol.framing import DEFAULT_MAX_LINE
from protocol.search_priority import DEFAULT_PRIORITY, PRIORITIES
from samuel.argtypes import bounded_int, positive_float, positive_int
from samuel.outputs import OutputPathError, output_file, replacing
from samuel.session_args import (
    LOG_LEVELS,
    add_session_arguments,
    configure_logging,
    port_number,
    session_defaults,
)

log = logging.getLogger("samuel.serve")

MAX_SEARCH_PROCESSES = 64


def default_search_processes() -> int:
    """One search process per core: each keeps a core busy, and more only divide it."""
    return max(1, min(os.cpu_count() or 1, MAX_SEARCH_PROCESSES))


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "serve",
        help="run the engine server (DXP and cb over TCP) until stopped",
        description="Run the long-running engine server: DXP on one port, the cb protocol on another, "
                    "every connection its own game.  Listens on loopback unless --host says otherwise.",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default: %(default)s)")
    p.add_argument("--dxp-port", type=port_number, default=DXP_PORT, metavar="PORT",
                   help="DXP port (default: %(default)s)")
    p.add_argument("--cb-port", type=port_number, default=CB_PORT, metavar="PORT",
                   help="cb protocol port (default: %(default)s)")
    p.add_argument("--hub-port", type=port_number, default=None, metavar="PORT",
                   help="also serve the Hub protocol over TCP on PORT (default: off)")
    p.add_argument("--web-port", type=port_number, default=None, metavar="PORT",
                   help=f"also serve the board page on PORT (e.g. {WEB_PORT}): play samuel in a browser, "
                        "every tab its own cb session over a WebSocket (default: off)")
    p.add_argument("--no-dxp", action="store_true", help="do not serve DXP")
    p.add_argument("--no-cb", action="store_true", help="do not serve the cb protocol")
    add_session_arguments(p, line=False)
    p.add_argument("--search-processes", type=bounded_int(0, MAX_SEARCH_PROCESSES),
                   default=default_search_processes(), metavar="N",
                   help="worker processes the searches run in, so the event loop answers at once under "
                        "load (default: one per core, %(default)s; 0: threads of the server process)")
    p.add_argument("--search-priority", choices=PRIORITIES, default=DEFAULT_PRIORITY,
                   help="how the search processes share the CPU: normal (a fair share beside other "
                        "programs, so timed searches keep time on a busy machine), low (nice 10: keeps "
                        "time with less), batch (nice 19) or idle (only what nothing else wants: the "
                        "fastest replies, for a dedicated server only; beside a busy program its searches "
                        "starve); default: %(default)s")
    p.add_argument("--max-sessions", type=positive_int, default=64, metavar="N",
                   help="connections served at once; more are refused (default: %(default)s)")
    p.add_argument("--max-line", type=positive_int, default=DEFAULT_MAX_LINE, metavar="BYTES",
                   help="longest accepted line (default: %(default)s)")
    p.add_argument("--idle-timeout", type=positive_float, default=900.0, metavar="S",
                   help="close a client silent this long while idle (default: %(default)s)")
    p.add_argument("--write-timeout", type=positive_float, default=60.0, metavar="S",
                   help="close a client that reads none of our output for this long (default: %(default)s)")
    p.add_argument("--dxp-frame", default="literal", choices=("literal", "pydraughts"),
                   help="how DXP GAMEREQ positions are read (default: %(default)s; pydraughts for its "
                        "rotated custom-position frame)")
    p.add_argument("--dxp-movetime", type=positive_float, default=1.0, metavar="S",
                   help="seconds per move when a DXP game request gives no time (default: %(default)s)")
    p.add_argument("--log", metavar="FILE", type=output_file, help="log to FILE instead of stderr")
    p.add_argument("--log-level", default="info", choices=LOG_LEVELS)
    p.add_argument("--port-file", metavar="FILE", type=output_file,
                   help="once listening, write the ports as JSON to FILE (useful with port 0)")
    p.set_defaults(func=run)


def settings_from(args: argparse.Namespace) -> ServerSettings:
    return ServerSettings(
        host=args.host,
        dxp_port=args.dxp_port,
        cb_port=args.cb_port,
        max_sessions=args.max_sessions,
        max_line=args.max_line,
        idle_timeout=args.idle_timeout,
        write_timeout=args.write_timeout,
        defaults=replace(session_defaults(args), search_processes=args.search_processes,
                         search_priority=args.search_priority),
        dxp_frame=args.dxp_frame,
        dxp_movetime=args.dxp_movetime,
    )


async def serve(args: argparse.Namespace) -> int:
    from protocol.server import Server

    server = Server(settings_from(args), hub_port=args.hub_port, dxp=not args.no_dxp, cb=not args.no_cb,
                    web_port=args.web_port)
    rote = None
    # Open it now, so the first game does not wait for the load (search processes open their own).
    if getattr(args, "rote", "") and not args.search_processes:
        from engine.learners.rote import shared_memory

        rote = await asyncio.to_thread(shared_memory, args.rote, merge_every=args.rote_merge_every)
        log.info("rote memory %s: %d positions", args.rote, len(rote))
    await server.start()
    if args.port_file:
        try:
            with replacing(args.port_file) as tmp:  # atomic: a reader never sees half a file
                tmp.write_text(json.dumps({"host": args.host, **server.ports, "pid": os.getpid()}))
        except OSError as exc:
            await server.close()
            raise OutputPathError(f"--port-file: cannot write {args.port_file} "
                                  f"({exc.strerror or exc})") from None
    stopping = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stopping.set)
    forever = asyncio.ensure_future(server.serve_forever())
    stop_wait = asyncio.ensure_future(stopping.wait())
    await asyncio.wait({forever, stop_wait}, return_when=asyncio.FIRST_COMPLETED)
    log.info("shutting down (%d active sessions)", server.active_sessions)
    await server.close()
    if rote is not None:
        await asyncio.to_thread(rote.flush)
        log.info("rote memory %s: %d positions after %d merges", args.rote, len(rote), rote.store.merges)
    for t in (forever, stop_wait):
        t.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await t
    log.info("stopped after %d sessions", server.sessions_served)
    return 0


def run(args: argparse.Namespace) -> int:
    if args.no_dxp and args.no_cb and args.hub_port is None and args.web_port is None:
        print("samuel serve: error: nothing to serve (--no-dxp, --no-cb, no --hub-port and no --web-port)",
              file=sys.stderr)
        return 2
    configure_logging(args.log, args.log_level, stderr=True)
    try:
        return asyncio.run(serve(args))
    except OSError as exc:
        print(f"samuel serve: error: {exc.strerror or exc}", file=sys.stderr)
        return 2
