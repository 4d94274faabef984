"""The options that configure a searcher on the command line (``samuel analyse`` and ``samuel play``)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from samuel.argtypes import (
    CONTEMPT_LIMIT,
    HASH_MAX_MB,
    HASH_MIN_MB,
    EvaluatorAction,
    bounded_int,
    deck704_file,
    evaluator_type,
    hash_size,
)

if TYPE_CHECKING:
    from engine.search import Searcher

MODE_CHOICES = ("pvs", "samuel", "shannon-a", "fogel", "shannon-b")


def add_engine_arguments(p: argparse.ArgumentParser, *, book_variety: int | None = None) -> None:
    """The options that configure a Searcher (shared with ``samuel play``); with ``book_variety``
    also --book and --book-variety, that default."""
    p.add_argument("--eval", default="default", type=evaluator_type, action=EvaluatorAction,
                   help=" (default: %(default)s)")
    p.add_argument("--mode", default="pvs", choices=MODE_CHOICES,
                   help="search algorithm: modern PVS, Samuel's 1959 search, plain minimax "
                        "(Shannon's type A), Chellapilla and Fogel's alpha-beta with their extensions, "
                        "or Shannon's selective type B (default: %(default)s)")
    p.add_argument("--backend", default="modern", choices=("modern", "704"),
                   help="the modern core, or Samuel's program in 704 assembly on the emulated IBM 704 "
                        "(its own search with his 1959 ply rules and its own evaluation, 32 PADV + ADV + "
                        "2 CENT + 2 KCENT - MOB over his terms; --eval must be default, --mode does not "
                        "apply)")
    p.add_argument("--deck704", metavar="FILE", type=deck704_file, default=None,
                   help="with --backend 704: a self-loading deck of one's own (samuel emu704 asm writes it "
                        "with its .sym beside it) instead of the program shipped in the package")
    p.add_argument("--pace", default="emulator", choices=("emulator", "704"),
                   help="with --backend 704: as fast as the emulator goes, or held to the real 704's "
                        "12 microseconds a cycle (default: %(default)s)")
    p.add_argument("--hash", type=hash_size, default=64, metavar="MB",
                   help=f"transposition table size in MB, {HASH_MIN_MB}..{HASH_MAX_MB} "
                        "(default: %(default)s)")
    p.add_argument("--egdb", default="auto", metavar="DIR",
                   help="endgame database directory (samuel egdb build), 'none', or 'auto': the default "
                        "directory ($SAMUEL_EGDB, else ~/.local/share/samuel/egdb) when it holds tables "
                        "(default: %(default)s)")
    add_contempt_argument(p)
    if book_variety is not None:
        add_book_arguments(p, default_variety=book_variety)


def add_contempt_argument(p: argparse.ArgumentParser) -> None:
    """--contempt N (the engine commands and the protocols)."""
    p.add_argument("--contempt", type=bounded_int(-CONTEMPT_LIMIT, CONTEMPT_LIMIT), default=0,
                   metavar="N", help="centi-men a draw costs the engine's side: above 0 it plays on in "
                                     "level positions, below 0 it steers for draws (default: %(default)s)")


def add_book_arguments(p: argparse.ArgumentParser, *, default_variety: int) -> None:
    """--book FILE|default|none and --book-variety N (the engine commands and the protocols)."""
    p.add_argument("--book", default="default", type=book_spec, metavar="FILE",
                   help="opening book played from at the root: default (the one shipped with samuel), "
                        "none, or a file from samuel openings build (default: %(default)s)")
    p.add_argument("--book-variety", type=bounded_int(0, 100), default=default_variety, metavar="N",
                   help="0: always the book's best move; N: any book move within N centi-men of it, "
                        "drawn by how often experts played it (default: %(default)s)")


def book_spec(text: str) -> str:
    """argparse ``type=`` for --book: the book is loaded now, so a bad file fails before anything starts."""
    from engine.opening_book import BookError, canonical, load

    try:
        load(text)
    except BookError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return canonical(text)


def make_searcher(args: argparse.Namespace) -> Searcher:
    from engine import egdb
    from engine.evaluators import by_name
    from engine.search import Mode, Searcher

    if getattr(args, "backend", "modern") == "704":
        from engine.backend704 import Searcher704, check_evaluator

        check_evaluator(getattr(args, "eval", "default"))  # it plays its own, and says so

        return Searcher704(pace=getattr(args, "pace", "emulator"),  # type: ignore[return-value]
                           deck=getattr(args, "deck704", None))
    book = None
    if getattr(args, "book", None) is not None:
        from engine.opening_book import load

        book = load(args.book)
    return Searcher(by_name(args.eval), mode=Mode.parse(args.mode), hash_mb=args.hash, book=book,
                    book_variety=getattr(args, "book_variety", 0),
                    egdb=egdb.resolve(getattr(args, "egdb", "auto")),
                    contempt=getattr(args, "contempt", 0))


