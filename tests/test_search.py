"""The C search through Searcher: limits, determinism, stopping, scores and modes."""

from __future__ import annotations

import threading

import pytest

from engine import DEFAULT, MATERIAL, Board, GameOverError, Limit, Mode, Searcher, evaluators
from engine.evaluators import features, linear, tables
from engine.search import SearchInfo


def test_fixed_depth_is_reproducible() -> None:
    board = Board("W:W17,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,6,7,8,9,10,11,12,13")
    counts = set()
    for _ in range(3):
        s = Searcher(hash_mb=8)
        counts.add(s.search(board, Limit(depth=10)).info.nodes)
    s = Searcher(hash_mb=8)
    s.search(board, Limit(depth=7))
    s.new_game()
    counts.add(s.search(board, Limit(depth=10)).info.nodes)
    assert len(counts) == 1


def test_info_callback_reports_each_depth() -> None:
    infos: list[SearchInfo] = []
    result = Searcher(hash_mb=8).search(Board(), Limit(depth=8), on_info=infos.append)
    assert [i.depth for i in infos] == list(range(1, 9))
    assert all(i.nodes > 0 and i.pv for i in infos)
    assert infos[-1].nodes <= result.info.nodes
    assert result.best == infos[-1].pv[0]
    assert result.best in Board().legal_moves


def test_node_limit() -> None:
    r = Searcher(hash_mb=8).search(Board(), Limit(nodes=20_000))
    assert r.best is not None
    assert r.info.nodes <= 20_000 + 1


def test_movetime_ends_the_search_by_itself() -> None:
    # No depth limit and no stop: only the clock can end this search.  How long it took is
    # for the benchmark to say; a busy machine must not fail a test.
    r = Searcher(hash_mb=8).search(Board(), Limit(movetime=0.1))
    assert r.best is not None and r.info.depth >= 1


def test_clock_limit_ends_the_search_by_itself() -> None:
    r = Searcher(hash_mb=8).search(Board(), Limit(time=0.5, inc=0.0))
    assert r.best is not None and r.info.depth >= 1


def test_stop_from_another_thread_and_gil_released() -> None:
    searcher = Searcher(hash_mb=8)
    stop = threading.Event()
    result: list[object] = []

    def run() -> None:
        # 5 s of clock: if the search held the GIL, this thread would only run again after
        # it had finished, and the is_alive() check below would fail instead of hanging.
        result.append(searcher.search(Board(), Limit(movetime=5.0), stop=stop))

    t = threading.Thread(target=run)
    t.start()
    # While the C search runs, this thread keeps executing Python: the GIL is free.
    ticks = 0
    while ticks < 100_000:
        ticks += 1
    assert t.is_alive()
    stop.set()
    t.join(timeout=10)
    assert not t.is_alive()
    assert result and result[0].best is not None  # type: ignore[attr-defined]


def test_stop_method() -> None:
    searcher = Searcher(hash_mb=8)
    timer = threading.Timer(0.1, searcher.stop)
    timer.start()
    r = searcher.search(Board(), Limit())
    timer.join()
    assert r.best is not None


def test_wins_fast_and_sees_distance() -> None:
    # Black takes the last white piece: a win one ply away.
    board = Board("B:W14:B9,K1")
    r = Searcher(hash_mb=8).search(board, Limit(depth=6))
    assert r.best is not None and r.best.path == (9, 18)
    assert r.info.score.is_win and r.info.score.plies_to_end == 1


def test_prefers_quicker_win() -> None:
    # Two kings against one: the search reports a forced win and its length.
    board = Board("B:WK32:BK19,K23")
    r = Searcher(hash_mb=16).search(board, Limit(depth=20))
    assert r.info.score.is_win
    plies = r.info.score.plies_to_end
    assert plies is not None and plies <= 20
    # Playing the PV out reaches the win in that many plies.
    b = board.copy()
    for m in r.info.pv:
        b.push(m)
    assert b.outcome() is not None and len(r.info.pv) == plies


def test_losing_side_delays() -> None:
    board = Board("W:WK32:BK19,K23")
    r = Searcher(hash_mb=16).search(board, Limit(depth=20))
    assert r.info.score.is_loss


def test_repetition_counts_as_draw_in_search() -> None:
    # King shuffle positions: after a repeated cycle the history makes the root see draws.
    board = Board("B:WK28:BK1")
    board.push_many(["1-6", "28-24", "6-1", "24-28"])
    r = Searcher(hash_mb=8).search(board, Limit(depth=8))
    assert r.info.score.value == 0


def test_game_over_raises() -> None:
    with pytest.raises(GameOverError):
        Searcher(hash_mb=8).search(Board("W:W:B1"), Limit(depth=3))


def test_single_move_with_clock_returns_quickly() -> None:
    board = Board("B:W14:B9")
    r = Searcher(hash_mb=8).search(board, Limit(time=10.0))
    assert r.best is not None and r.best.path == (9, 18)
    assert r.info.depth == 1


@pytest.mark.parametrize("mode", [Mode.SAMUEL, Mode.SHANNON_A])
def test_historical_modes(mode: Mode) -> None:
    s = Searcher(MATERIAL, mode=mode, hash_mb=1)
    r = s.search(Board(), Limit(depth=3))
    assert r.best in Board().legal_moves
    assert r.info.depth == 3


def test_shannon_type_a_is_full_width() -> None:
    # Plain minimax visits every node to the depth: perft counts of all plies plus the root.
    from engine import core

    s = Searcher(MATERIAL, mode=Mode.SHANNON_A, hash_mb=1)
    r = s.search(Board(), Limit(depth=4))
    raw = Board().raw
    assert r.info.nodes == sum(core.perft(raw, d) for d in range(0, 5))


def test_samuel_mode_extends_past_minimum_on_jumps() -> None:
    s = Searcher(MATERIAL, mode=Mode.SAMUEL, hash_mb=1)
    board = Board("W:W17,21,22,23,24,25,26,27,28,29,30,31:B1,2,3,4,5,6,7,8,9,10,11,13")
    r = s.search(board, Limit(depth=3))
    assert r.info.seldepth > 3
    # the PV ends in a quiet position, never in the middle of an exchange
    b = board.copy()
    for m in r.info.pv:
        b.push(m)
    assert not any(m.is_capture for m in b.legal_moves)


def test_samuel_break_points_are_settable() -> None:
    board = Board("W:W17,21,22,23,24,25,26,27,28,29,30,31:B1,2,3,4,5,6,7,8,9,10,11,13")
    a = Searcher(MATERIAL, mode=Mode.SAMUEL, hash_mb=1).search(board, Limit(depth=3))
    b = Searcher(MATERIAL, mode=Mode.SAMUEL, hash_mb=1, samuel_breaks=(3, 3, 3, 3)).search(
        board, Limit(depth=3)
    )
    assert b.info.nodes < a.info.nodes


def test_evaluators_differ_and_linear_matches_features() -> None:
    board = Board("B:W18,19,21,23,24,26,29,30,31,32:B1,2,3,5,6,7,9,10,12,14")
    f = features(board)
    assert f["men"] == 0
    ev = linear({"men": 100, "mobility": 3})
    assert ev.evaluate(board) == 100 * f["men"] + 3 * f["mobility"]
    assert MATERIAL.evaluate(Board("B:W21:B1,2")) > 0
    assert MATERIAL.evaluate(Board("W:W21:B1,2")) < 0
    texel = evaluators.by_name("texel-2026-11")  # linear: the start scores 0 for either side to move
    assert texel.evaluate(Board()) == 0 == texel.evaluate(Board("W:W21-32:B1-12"))
    # The network reads the board from the mover's side: the start is the same position for either.
    assert DEFAULT.evaluate(Board()) == DEFAULT.evaluate(Board("W:W21-32:B1-12"))
    t = tables([10] * 32, [30] * 32)
    assert t.evaluate(Board("B:WK21:B1,2")) == -10


def test_linear_rejects_unknown_feature() -> None:
    with pytest.raises(ValueError, match="unknown features"):
        linear({"nonsense": 1.0})


def test_evaluation_is_symmetric_under_colour_flip() -> None:
    # Turning the board and swapping colours must not change the score.
    def flip(fen: str) -> str:
        b = Board(fen)
        parts = []
        r = b.raw
        for colour, men, kings in (("W", r.black_men, r.black_kings), ("B", r.white_men, r.white_kings)):
            items = [str(33 - s) for s in range(1, 33) if men >> (s - 1) & 1]
            items += ["K" + str(33 - s) for s in range(1, 33) if kings >> (s - 1) & 1]
            parts.append(colour + ",".join(items))
        side = "W" if b.turn == 0 else "B"
        return f"{side}:{parts[0]}:{parts[1]}"

    for fen in (
        "B:W18,19,21,23,24,26,29,30,31,32:B1,2,3,5,6,7,9,10,12,14",
        "W:WK10,22,27,28:B5,K19,K20,12",
        "B:WK3,K12,25,29:BK14,K18,K24,16",
    ):
        assert DEFAULT.evaluate(Board(fen)) == DEFAULT.evaluate(Board(flip(fen)))
        assert MATERIAL.evaluate(Board(fen)) == MATERIAL.evaluate(Board(flip(fen)))


def test_hash_resize() -> None:
    s = Searcher(hash_mb=4)
    s.set_hash(16)
    assert s.hash_mb == 16
    with pytest.raises(ValueError):
        s.set_hash(0)
    assert s.search(Board(), Limit(depth=6)).best is not None


def test_mtdf_driver_finds_the_same_forced_win() -> None:
    board = Board("B:WK32:BK19,K23")
    pvs = Searcher(hash_mb=16).search(board, Limit(depth=20))
    mtdf = Searcher(hash_mb=16, mtdf=True).search(board, Limit(depth=20))
    assert mtdf.info.score == pvs.info.score
    assert mtdf.best is not None and mtdf.best in board.legal_moves


def test_mtdf_driver_is_reproducible_and_reports() -> None:
    infos: list[SearchInfo] = []
    a = Searcher(hash_mb=8, mtdf=True).search(Board(), Limit(depth=9), on_info=infos.append)
    b = Searcher(hash_mb=8, mtdf=True).search(Board(), Limit(depth=9))
    assert a.info.nodes == b.info.nodes
    assert [i.depth for i in infos] == list(range(1, 10))
    assert a.best in Board().legal_moves
    # the PV is read back from the table: a whole legal line, not just the move
    assert len(a.info.pv) >= 6
    board = Board()
    for m in a.info.pv:
        board.push(m)
