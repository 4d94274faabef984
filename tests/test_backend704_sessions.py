"""The 704 backend behind the protocols: an evaluator it does not play is refused by name in every
front end, and switching to it builds the program before the next move's clock starts."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from test_cb_session import START, Client
from test_hub_session import hub_session

from engine.backend704 import Evaluator704Error, Searcher704
from engine.options import OptionValues
from matches.engines import parse_engine
from protocol.session_engine import SessionDefaults, SessionEngine

pytestmark = pytest.mark.timeout(300)

HANG = 120.0


def test_options_refuse_an_evaluator_the_704_does_not_play_either_way_round() -> None:
    o = OptionValues()
    o.set("evaluator", "material")
    with pytest.raises(Evaluator704Error, match="cannot play evaluator 'material'"):
        o.set("backend", "704")
    assert o["backend"] == "modern"  # nothing changed
    o.set("evaluator", "default")
    assert o.set("backend", "704") == "704"
    with pytest.raises(Evaluator704Error, match="'texel-2026-11'"):
        o.set("evaluator", "texel-2026-11")
    assert o["evaluator"] == "default"
    assert o.set("evaluator", "samuel-alpha") == "samuel-alpha"  # Samuel's polynomials it plays


def test_cb_refuses_the_pair_and_builds_the_program_before_replying(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[Searcher704] = []
    real = Searcher704.__init__

    def counted(self: Searcher704, *a: Any, **kw: Any) -> None:
        real(self, *a, **kw)
        built.append(self)

    monkeypatch.setattr(Searcher704, "__init__", counted)

    async def t() -> None:
        c = Client()
        assert (await c.ask("set evaluator material")).startswith("reply 1")
        reply = await c.ask("set backend 704")
        assert reply.startswith("reply 0") and "cannot play evaluator 'material'" in reply
        assert (await c.ask("set evaluator default")).startswith("reply 1")
        assert await c.ask("set backend 704") == "reply 1 704"
        assert len(built) == 1  # built before the reply, not in the getmove's time
        c.send(f"getmove {START} 0.5 2")
        await c.until("move ", HANG)
        assert len(built) == 1
        reply = await c.ask("set evaluator material")
        assert reply.startswith("reply 0") and "704" in reply
        await c.close()

    asyncio.run(t())


def test_hub_refuses_the_pair_with_an_error_line() -> None:
    async def main() -> None:
        async with hub_session() as hub:
            hub.send("set-param name=backend value=704")
            hub.send("set-param name=evaluator value=material")
            lines = await hub.ask("ping", "pong")
            errors = [x for x in lines if x.startswith("error")]
            assert errors and "cannot play evaluator 'material'" in errors[0], lines

    asyncio.run(main())


def test_a_session_set_to_704_builds_the_program_in_the_background() -> None:
    async def main() -> None:
        s = SessionEngine(SessionDefaults(options=OptionValues(hash=1)))
        s.set_option("backend", "704")
        await asyncio.wait_for(s.warmed(), HANG)
        assert s._local is not None and isinstance(s._local._searcher, Searcher704)
        await s.close()

    asyncio.run(main())


def test_a_match_engine_with_the_pair_is_a_usage_error() -> None:
    with pytest.raises(ValueError, match="cannot play evaluator 'material'"):
        parse_engine(["name=old", "backend=704", "eval=material"])
    assert parse_engine(["name=old", "backend=704"]).options
