"""The one table of engine options (engine/options.py) and everything made from it: the command
line's flags, Hub's param lines, cb's get/set, match specs, the searcher factory and docs/options.md."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

import pytest

from engine import opening_book
from engine.backend704 import Searcher704
from engine.options import (
    MODE_ALIASES,
    MODES,
    OPTIONS,
    TABLE,
    Evaluator704Error,
    OptionValueError,
    OptionValues,
    find,
    markdown_table,
    session_options,
)
from engine.search import EngineSearcher, Mode, Searcher
from engine.searchers import build_searcher
from matches.engines import INPROC_OPTIONS, parse_engine
from protocol.cb_session import CbSession, _Output
from protocol.context import ServerSettings
from protocol.local_engine import SessionDefaults
from protocol.session_engine import SessionEngine
from samuel.cli import build_parser
from samuel.engine_args import dest, engine_spec_pairs, option_values
from samuel.session_args import SERVER_DEFAULTS
from tests.serving import CaptureWriter

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = ("analyse", "play", "serve", "hub", "cb")


def parse_command(argv: list[str]) -> argparse.Namespace:
    return build_parser(argv).parse_args(argv)


def test_one_default_for_the_table_size_everywhere() -> None:
    assert TABLE["hash"].default == 64
    for command in COMMANDS:
        assert parse_command([command]).hash == 64, command
    assert parse_command(["dxp", "serve"]).hash == 64
    assert SessionDefaults().options.hash_mb == 64
    assert SessionEngine(SessionDefaults()).options["hash"] == 64
    assert TABLE["hash"].default == Searcher.__init__.__kwdefaults__["hash_mb"]
    spec = parse_engine(["name=a"])
    built = build_searcher(dict(spec.options))
    try:
        assert built.hash_mb == 64  # a match engine without hash= gets the table's
    finally:
        built.close()


def test_every_command_line_default_is_the_tables_but_the_book_the_commands_turn_on() -> None:
    for command in COMMANDS:
        args = parse_command([command])
        for option in OPTIONS:
            if not hasattr(args, dest(option)):
                continue
            wanted = option.default
            if command == "play" and option.name in ("book", "book-variety"):
                wanted = {"book": "default", "book-variety": 10}[option.name]
            elif command in ("serve", "hub", "cb"):
                wanted = SERVER_DEFAULTS.get(option.name, option.default)
            assert getattr(args, dest(option)) == wanted, (command, option.name)


def test_the_protocol_commands_take_every_option_and_analyse_every_one_but_the_books() -> None:
    for command in ("serve", "hub", "cb"):
        args = parse_command([command])
        assert all(hasattr(args, dest(o)) for o in OPTIONS), command
    args = parse_command(["analyse"])
    assert {o.name for o in OPTIONS if not hasattr(args, dest(o))} == {"book", "book-variety"}


def test_values_stay_typed_from_the_command_line_to_the_searcher() -> None:
    args = parse_command(["analyse", "--hash", "8", "--contempt", "-20", "--eval", "material"])
    assert args.hash == 8 and args.contempt == -20 and isinstance(args.hash, int)
    values = option_values(args)
    assert values["hash"] == 8 and values["contempt"] == -20 and values["evaluator"] == "material"
    searcher = build_searcher(values)
    try:
        assert isinstance(searcher, Searcher)
        assert searcher.hash_mb == 8 and searcher.contempt == -20 and searcher.evaluator.name == "material"
    finally:
        searcher.close()
    assert engine_spec_pairs(args) == ["evaluator=material", "mode=pvs", "hash=8", "egdb=auto",
                                       "backend=modern", "contempt=-20", "fogel-draws=off"]


def test_one_wording_that_names_the_option() -> None:
    o = OptionValues()
    for name, value, message in (
        ("hash", "0", "hash=0 is out of range (1..4096)"),
        ("hash", 5000, "hash=5000 is out of range (1..4096)"),
        ("contempt", "lots", "contempt='lots' is not a whole number"),
        ("book-variety", "101", "book-variety=101 is out of range (0..100)"),
        ("mode", "alphabeta", "mode=alphabeta is not one of pvs, samuel, shannon-a, fogel, shannon-b"),
        ("backend", "705", "backend=705 is not one of modern, 704"),
    ):
        with pytest.raises(OptionValueError) as caught:
            o.set(name, value)
        assert str(caught.value) == message
    assert o == OptionValues()  # nothing changed
    with pytest.raises(OptionValueError, match=r"^book: .*no such opening book file"):
        o.set("book", "/nowhere/book.bin")
    with pytest.raises(SystemExit):
        parse_command(["analyse", "--hash", "0"])
    with pytest.raises(ValueError, match=r"hash=0 is out of range \(1\.\.4096\)"):
        parse_engine(["hash=0"])
    with pytest.raises(Exception, match="unknown option 'speed'; options are evaluator, mode, hash"):
        o.set("speed", "1")


def test_spellings_and_aliases() -> None:
    assert find("EVAL") is TABLE["evaluator"] and TABLE["evaluator"].flags == ("--eval", "--evaluator")
    assert tuple(m.text for m in Mode) == MODES
    for alias, name in MODE_ALIASES:
        assert TABLE["mode"].parse(alias) == name and Mode.parse(alias).text == name
    assert TABLE["mode"].parse(" Shannon_B ") == "shannon-b"
    assert TABLE["book-variety"].maximum == opening_book.MAX_VARIETY
    with pytest.raises(Exception, match="unknown option 'pace'"):
        find("pace", per_session=True)  # the process's command line only


def test_the_backend_and_evaluator_are_checked_together_either_way_round() -> None:
    with pytest.raises(Evaluator704Error, match="cannot play evaluator 'material'"):
        OptionValues(evaluator="material", backend="704")
    with pytest.raises(Evaluator704Error):
        OptionValues(backend="704").set("evaluator", "material")
    assert OptionValues([("backend", "704"), ("evaluator", "default")]).backend == "704"
    with pytest.raises(ValueError, match="cannot play evaluator 'material'"):
        parse_engine(["backend=704", "eval=material"])


def test_one_factory_gives_either_backend_as_an_engine_searcher() -> None:
    searcher: EngineSearcher = build_searcher({"backend": "704", "pace": "704"})
    assert isinstance(searcher, Searcher704) and searcher.backend == "704" and searcher.pace == "704"
    modern: EngineSearcher = build_searcher({"hash": 1, "mode": "samuel", "book": "default",
                                             "book-variety": 5})
    try:
        assert isinstance(modern, Searcher) and modern.backend == "modern" and modern.mode is Mode.SAMUEL
        assert modern.book is not None and modern.book_variety == 5
    finally:
        modern.close()


def test_hub_declares_every_session_option_of_the_table() -> None:
    from protocol import hub_grammar as g
    from protocol.hub_session import HubSession

    out = CaptureWriter()
    hub = HubSession(out, ServerSettings(defaults=SessionDefaults(options=OptionValues(hash=1))))
    hub_line = g.tokenize("hub")
    assert hub_line is not None
    hub.on_hub(hub_line)
    lines = []
    while not out.lines.empty():
        lines.append(out.lines.get_nowait())
    params = [g.tokenize(line) for line in lines if line.startswith("param")]
    named = {p.value("name"): p for p in params if p is not None}
    for option in session_options():
        assert option.name in named, option.name
    assert named["hash"].value("value") == "1" and named["hash"].value("max") == "4096"
    assert named["contempt"].value("min") == "-100" and named["mode"].value("type") == "enum"


def test_cb_gets_and_sets_every_session_option_by_its_name() -> None:
    async def main() -> None:
        cb = CbSession(_Output(CaptureWriter()), ServerSettings(defaults=SessionDefaults(
            options=OptionValues(hash=1))))
        try:
            for option in session_options():
                code, _ = cb.get(option.name)
                assert code == 1, option.name
            assert cb.set("contempt", "15") == (1, "15") and cb.engine.options["contempt"] == 15
            assert cb.set("eval", "material") == (1, "material")
            code, reply = cb.set("contempt", "500")
            assert code == 0 and reply == "contempt stays 15: contempt=500 is out of range (-100..100)"
            assert cb.set("book", "none") == (1, "none")  # a name: the book option (0..3: CheckerBoard's)
            assert cb.engine.options["book"] == "none"
        finally:
            await cb.engine.close()

    asyncio.run(main())


def test_a_client_cannot_load_an_evaluator_file() -> None:
    session = SessionEngine(SessionDefaults(options=OptionValues(hash=1)))
    with pytest.raises(Exception, match="a client names an evaluator, it cannot load a file"):
        session.set_option("evaluator", "/tmp/x.json")


def test_match_specs_take_the_session_options_of_the_table() -> None:
    assert (*(o.name for o in session_options()), "pace") == INPROC_OPTIONS  # pace: in this process only
    spec = parse_engine(["name=c", "contempt=20", "Mode=Samuel1959", "hash=8", "book-variety=3"])
    assert dict(spec.options) == {"evaluator": "default", "mode": "samuel", "hash": "8", "book-variety": "3",
                                  "contempt": "20"}


def test_docs_options_page_shows_the_table_as_it_is() -> None:
    page = (ROOT / "docs" / "options.md").read_text()
    assert markdown_table() in page, "regenerate the table: python -c 'from engine.options import " \
                                     "markdown_table; print(markdown_table())'"


def test_serve_says_when_its_table_budget_holds_fewer_sessions_than_it_accepts(
        caplog: pytest.LogCaptureFixture) -> None:
    from samuel.session_args import session_defaults

    with caplog.at_level("WARNING", logger="samuel"):
        session_defaults(parse_command(["serve", "--hash-budget", "256", "--egdb", "none"]))
    assert "the table budget of 256 MB holds 4 sessions at --hash 64 MB, fewer than --max-sessions 64" \
        in caplog.text
    caplog.clear()
    with caplog.at_level("WARNING", logger="samuel"):
        session_defaults(parse_command(["serve", "--hash-budget", "4096", "--egdb", "none"]))
    assert "table budget" not in caplog.text  # 64 sessions of 64 MB fit in 4 GB
