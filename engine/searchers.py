"""Searchers made from option values: the one place a searcher is built from ``engine.options``.

The command line (``samuel analyse``/``play``), the protocol sessions and the match runner's
in-process engines all call ``build_searcher``; a session that changes options between searches
calls ``apply_options`` on the searcher it has.  Either backend comes back as an
``engine.search.EngineSearcher``.
"""

from __future__ import annotations

from collections.abc import Mapping

from engine import egdb, opening_book
from engine.evaluators import by_name
from engine.options import OptionValue, OptionValues
from engine.search import EngineSearcher, Mode, RoteSource, Searcher


def build_searcher(values: Mapping[str, OptionValue] | None = None, *,
                   rote: RoteSource | None = None) -> EngineSearcher:
    """A searcher for ``values`` (checked here unless they are an ``OptionValues`` already; the
    table's default for any missing): the modern core's, with a table of ``hash`` MB, or the 704
    program's.  ``rote``: Samuel's rote memory for the search to probe (the 704 program reads up to
    4,000 of its positions from a tape reel, ``engine.backend704.memory_entries``)."""
    v = values if isinstance(values, OptionValues) else OptionValues(values or {})
    if v.backend == "704":
        from engine.backend704 import Searcher704  # the emulator, only when asked for

        searcher704 = Searcher704(pace=str(v["pace"]), deck=str(v["deck704"]) or None, rote=rote)
        apply_options(searcher704, v)
        return searcher704
    searcher = Searcher(hash_mb=v.hash_mb, rote=rote)
    apply_options(searcher, v)
    return searcher


def apply_options(searcher: EngineSearcher, values: Mapping[str, OptionValue],
                  previous: Mapping[str, OptionValue] | None = None) -> None:
    """Set on a built searcher every option it takes without a new table: evaluator, mode,
    endgame database, book, variety, contempt, fogel-draws.  The table size is the caller's to set (it may
    need memory granted first).  ``previous``: the values applied last, so an evaluator that did
    not change is not set again (nor a learner's set in its place undone).  The 704 backend takes
    only the evaluator (its own, or one of Samuel's polynomials as the program's data words)."""
    changed = previous is None or previous.get("evaluator") != values["evaluator"]
    if not isinstance(searcher, Searcher):
        if changed and searcher.backend == "704":
            from engine.backend704 import OWN_EVALUATOR

            name = str(values["evaluator"])
            searcher.set_evaluator(OWN_EVALUATOR if name == "default" else by_name(name))
        return
    if changed:
        searcher.set_evaluator(by_name(str(values["evaluator"])))
    searcher.mode = Mode.parse(str(values["mode"]))
    db = egdb.resolve(str(values["egdb"]))  # "auto" finds a database built while the server runs
    if db is not searcher.egdb:
        searcher.set_egdb(db)
    searcher.book = opening_book.load(str(values["book"]))
    searcher.book_variety = int(values["book-variety"])
    searcher.contempt = int(values["contempt"])
    searcher.fogel_draws = values["fogel-draws"] == "on"
