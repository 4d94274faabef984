"""Play won endgame-database positions out: does the engine convert them?

Random positions the database marks won for the side to move (no capture at
the root) are played to the end, the winner searching with or without the
database, the loser always with it, under the game's rules (repetition and the
40-move rule draw).  Prints the tally and each position that was not won.

    .venv/bin/python scripts/egdb_playout.py DIR --games 300 --movetime 0.05
    .venv/bin/python scripts/egdb_playout.py DIR --pieces 5 --max-men 0 --winner-without-db
"""

from __future__ import annotations

import argparse
import random
import time

from engine import core, egdb
from engine.board import Board
from engine.fen import FenPosition, format_fen
from engine.limits import Limit
from engine.search import Searcher


def won_position(db: egdb.Database, sigs: list[egdb.Signature], rng: random.Random) -> Board:
    while True:
        sig, side = rng.choice(sigs), rng.randint(0, 1)
        raw = core.egdb_position(sig.bm, sig.bk, sig.wm, sig.wk, side, rng.randrange(sig.size))
        if raw is None or db.probe(raw) != egdb.WIN:
            continue
        board = Board(format_fen(FenPosition(raw.turn, raw.black_men, raw.black_kings, raw.white_men,
                                             raw.white_kings)))
        if board.legal_moves and not any(m.captures for m in board.legal_moves):
            return board


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", help="endgame database directory")
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--movetime", type=float, default=0.05, help="seconds a move (default 0.05)")
    ap.add_argument("--pieces", type=int, default=4, help="least pieces in a start position (default 4)")
    ap.add_argument("--max-men", type=int, default=8, help="most men in a start position (default 8)")
    ap.add_argument("--winner-without-db", action="store_true",
                    help="the winner searches without the database")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    db = egdb.Database.open(args.dir)
    sigs = [s for s in db.signatures() if s.pieces >= args.pieces and s.men <= args.max_men]
    if not sigs:
        ap.error("no signature in the database fits --pieces/--max-men")
    rng = random.Random(args.seed)
    tally = {"won": 0, "drawn": 0, "lost": 0}
    start = time.perf_counter()
    for _ in range(args.games):
        board = won_position(db, sigs, rng)
        fen, winner = board.fen(), board.turn
        players = {winner: Searcher(hash_mb=16, egdb=None if args.winner_without_db else db),
                   1 - winner: Searcher(hash_mb=16, egdb=db)}
        while not board.is_game_over():
            result = players[board.turn].search(board, Limit(movetime=args.movetime))
            assert result.best is not None
            board.push(result.best)
        outcome = board.outcome()
        assert outcome is not None
        key = "drawn" if outcome.winner is None else "won" if outcome.winner == winner else "lost"
        tally[key] += 1
        if key != "won":
            print(f"{key}: {fen} after {board.ply} plies ({outcome.termination.label})", flush=True)
    with_db = "without" if args.winner_without_db else "with"
    print(f"{args.games} won positions, winner {with_db} the database, {args.movetime} s a move: "
          f"{tally['won']} won, {tally['drawn']} drawn, {tally['lost']} lost "
          f"({time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
