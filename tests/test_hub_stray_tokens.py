"""A Hub ``pos`` whose list of moves is not quoted: an error naming the stray moves, never a search
of the position after the first move alone."""

from __future__ import annotations

from test_hub_session import done_move, hub_session, parse, run

from engine.board import Board
from protocol import hub_grammar as g

START = g.LITERAL_START


def test_an_unquoted_moves_list_is_refused_and_a_quoted_one_is_played() -> None:
    async def main() -> None:
        async with hub_session() as hub:
            hub.send(f"pos pos={START} moves=11-15 24-20 15-19", "level depth=2")
            out = await hub.ask("go think", "error")
            message = parse(out[-1]).require("message")
            assert "stray tokens after moves=: 24-20 15-19" in message, message
            assert "quote the whole list: moves='11-15 24-20 15-19'" in message, message  # " becomes ' in Hub
            out = await hub.ask("ping", "pong")  # the go found no position: not one after 11-15
            errors = [parse(x).require("message") for x in out if x.startswith("error ")]
            assert errors and "last pos was rejected" in errors[0], out
            assert not any(x.startswith("done") for x in out), out

            hub.send(f'pos pos={START} moves="11-15 24-20 15-19"')
            board = Board()
            for move in ("11-15", "24-20", "15-19"):
                board.push(g.parse_move(board, move))
            done_move(board, (await hub.ask("go think", "done"))[-1])  # legal after all three

    run(main)
