"""samuel dxp: DamExchange on its own.

    samuel dxp serve [--host 127.0.0.1] [--port 27531] [--frame literal|pydraughts]
    samuel dxp connect HOST [--port 27531] [--games N] [--minutes M | --movetime S] [--pdn OUT.pdn]

``serve`` is a DXP-only follower server (``samuel serve`` runs DXP next to the
other dialects).  ``connect`` makes samuel the initiator against another DXP
engine already listening: one line per finished game, then the score.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import sys
from pathlib import Path
from typing import TextIO

from engine.fen import START_FEN
from protocol.context import DXP_PORT, ServerSettings
from protocol.framing import stream_limit
from protocol.position_strings import FRAMES
from protocol.session_engine import SessionDefaults
from samuel.argtypes import out_of_range, positive_float, positive_int
from samuel.engine_args import engine_spec_pairs
from samuel.outputs import output_dir, output_file, replacing
from samuel.session_args import (
    LOG_LEVELS,
    add_session_arguments,
    configure_logging,
    port_number,
    session_defaults,
)

log = logging.getLogger("samuel.dxp")


def _minutes(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected whole minutes, got {text!r}") from None
    if not 0 <= value <= 999:
        raise argparse.ArgumentTypeError(out_of_range(value, "0..999 minutes, what DXP carries"))
    return value


def _engine_arguments(p: argparse.ArgumentParser) -> None:
    add_session_arguments(p, line=False)
    p.add_argument("--frame", default="literal", choices=FRAMES,
                   help="layout of GAMEREQ positions: literal (squares 1..32 in order) or pydraughts "
                        "(its rotated, colour-swapped frame) (default: %(default)s)")
    p.add_argument("--log-level", default="warning", choices=LOG_LEVELS,
                   help="log level on stderr (default: %(default)s)")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("dxp", help="DamExchange (DXP): serve as follower, or play another DXP engine",
                       description="DamExchange protocol, 8x8 English adaptation "
                                   "(see docs/protocols/dxp.md).")
    dsub = p.add_subparsers(dest="dxp_command", metavar="ACTION")

    s = dsub.add_parser("serve", help="listen for DXP initiators (e.g. pydraughts' DXPEngine)",
                        description="A DXP-only follower server: each connection gets its own engine.")
    s.add_argument("--host", default="127.0.0.1", help="address to listen on (default: %(default)s)")
    s.add_argument("--port", type=port_number, default=DXP_PORT, help="port (default: %(default)s)")
    s.add_argument("--movetime", type=positive_float, default=1.0, metavar="S",
                   help="seconds per move when a GAMEREQ gives no time (default: %(default)s)")
    _engine_arguments(s)
    s.set_defaults(func=run_serve)

    c = dsub.add_parser("connect", help="play games against a DXP engine listening at HOST",
                        description="Play as the DXP initiator against another engine (the follower) with "
                                    "the match runner: each opening in a colour-reversed pair, one "
                                    "connection; print each result and the final score.")
    c.add_argument("host", metavar="HOST")
    c.add_argument("--port", type=port_number, default=DXP_PORT, help="port (default: %(default)s)")
    c.add_argument("--games", type=positive_int, default=2, metavar="N",
                   help="games, in colour-reversed pairs (an odd N plays one more) (default: %(default)s)")
    t = c.add_mutually_exclusive_group()
    t.add_argument("--minutes", type=_minutes, metavar="M",
                   help="thinking time per side and game, sent in GAMEREQ (default: 5)")
    t.add_argument("--movetime", type=positive_float, metavar="S",
                   help="seconds per move, the time each side's moves are held to; GAMEREQ then says "
                        "000 minutes, which leaves the follower to its own time per move: give it the "
                        "same (samuel dxp serve --movetime S)")
    c.add_argument("--openings", metavar="FILE",
                   help="start positions, one FEN a line; each is played with both colours")
    c.add_argument("--max-plies", type=positive_int, default=400, metavar="N",
                   help="a draw after N plies (default: %(default)s)")
    c.add_argument("--pdn", metavar="OUT.pdn", type=output_file, help="write the games to this PDN file")
    c.add_argument("--out", metavar="DIR", type=output_dir,
                   help="keep the match runner's directory (events, report) here")
    _engine_arguments(c)
    c.set_defaults(func=run_connect)
    p.set_defaults(func=lambda args: _usage(p))


def _usage(p: argparse.ArgumentParser) -> int:
    p.print_help(sys.stderr)
    return 2


def _logging(level: str) -> None:
    configure_logging(None, level, stderr=True)


def _defaults(args: argparse.Namespace) -> SessionDefaults:
    return session_defaults(args)


# ---- serve ----


async def serve(settings: ServerSettings, out: TextIO) -> None:
    from protocol.dxp_session import serve_dxp

    srv = await asyncio.start_server(
        lambda r, w: serve_dxp(r, w, settings), settings.host, settings.dxp_port,
        limit=stream_limit(127), reuse_address=True,
    )
    for sock in srv.sockets:
        host, port = sock.getsockname()[:2]
        print(f"dxp: listening on {host}:{port}", file=out, flush=True)
    async with srv:
        await srv.serve_forever()


def run_serve(args: argparse.Namespace) -> int:
    _logging(args.log_level)
    settings = ServerSettings(host=args.host, dxp_port=args.port, dxp_frame=args.frame,
                              dxp_movetime=args.movetime, defaults=_defaults(args))
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(settings, sys.stdout))
    return 0


# ---- connect ----


def read_openings(path: str) -> list[str]:
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return [ln.strip() for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]


def run_connect(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Our engine against a DXP follower, played by the match runner (``samuel match``) over one
    connection: each opening twice, colours reversed; each result and the score printed."""
    import tempfile

    from engine.pdn import read_games
    from samuel.cli import main as samuel_main

    stream = out if out is not None else sys.stdout
    _logging(args.log_level)
    openings = read_openings(args.openings) if args.openings else [START_FEN]
    pairs = (args.games + 1) // 2  # games come in colour-reversed pairs
    minutes = 5 if args.minutes is None else args.minutes
    tc = f"st={args.movetime}" if args.movetime is not None else f"tc={60 * minutes}"
    opponent = f"{args.host}:{args.port}"
    with tempfile.TemporaryDirectory(prefix="samuel-dxp-") as tmp:
        deck = Path(tmp) / "openings.fen"
        deck.write_text("".join(openings[i % len(openings)] + "\n" for i in range(pairs)), encoding="utf-8")
        match_dir = Path(args.out) if args.out else Path(tmp) / "match"
        ours = ["name=samuel", *engine_spec_pairs(args)]
        theirs = [f"name={opponent}", "proto=dxp", f"tcp={opponent}", f"frame={args.frame}"]
        code = samuel_main(["match", "--engine", *ours, "--engine", *theirs, "--openings", str(deck),
                            "--tc", tc, "--maxmoves", str((args.max_plies + 1) // 2), "--out", str(match_dir),
                            "--event", "samuel dxp connect", "--no-live"])
        games_file = match_dir / "games.pdn"
        if code != 0 or not games_file.is_file():
            return code or 1
        text = games_file.read_text(encoding="utf-8")
    games = read_games(text)
    ours_total = 0.0
    for number, game in enumerate(games, start=1):
        side = "black" if game.tags.get("Black") == "samuel" else "white"
        score = {"1-0": 1.0, "0-1": 0.0}.get(game.result, 0.5)
        ours_total += score if side == "black" else 1.0 - score
        print(f"game {number}: samuel ({side}) vs {opponent}: {game.result} "
              f"({game.tags.get('Termination', '')}, {game.ply_count} plies)", file=stream, flush=True)
    print(f"score: samuel {ours_total:g} - {len(games) - ours_total:g} {opponent} ({len(games)} games)",
          file=stream, flush=True)
    if args.pdn:
        with replacing(args.pdn) as tmp_pdn:
            tmp_pdn.write_text(text, encoding="utf-8")
    return 0
