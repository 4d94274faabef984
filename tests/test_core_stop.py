"""Stopping the C search: per search, race-free, never lost and never stale.

A stop sent after a search was armed but before it began ends that search at once; a stop
sent while nothing runs never ends a later search; concurrent searches on their own engines
give the same results as the same searches one after another.
"""

from __future__ import annotations

import threading
from typing import Any

from engine import DEFAULT, MATERIAL, Board, Limit, Mode, Searcher, core, evaluators
from engine.search import SearchResult

MIDGAME = "W:W17,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,6,7,8,9,10,11,12,13"
JOIN = 10.0
"""Seconds a stopped search gets to return: only a lost stop comes anywhere near it."""


def _search_in_thread(
    searcher: Searcher, board: Board, limit: Limit, **kwargs: Any
) -> tuple[threading.Thread, list[SearchResult]]:
    out: list[SearchResult] = []
    t = threading.Thread(target=lambda: out.append(searcher.search(board, limit, **kwargs)), daemon=True)
    t.start()
    return t, out


def _returned_at_once(result: SearchResult, board: Board) -> bool:
    """A search stopped before it began: no iteration done, the generator's first move."""
    return result.info.depth == 0 and result.best == board.legal_moves[0] and result.info.nodes <= 1


def test_stop_before_the_search_begins_is_honoured() -> None:
    board = Board()
    searcher = Searcher(hash_mb=2)
    searcher.arm()
    stopper = threading.Thread(target=searcher.stop)  # from another thread, before the search
    stopper.start()
    stopper.join()
    t, out = _search_in_thread(searcher, board, Limit())  # no limit: only the stop ends it
    t.join(JOIN)
    assert not t.is_alive(), "the stop sent before the search began was lost"
    assert _returned_at_once(out[0], board)


def test_stop_event_set_before_the_search_is_honoured() -> None:
    board = Board(MIDGAME)
    stop = threading.Event()
    stop.set()
    t, out = _search_in_thread(Searcher(hash_mb=2), board, Limit(), stop=stop)
    t.join(JOIN)
    assert not t.is_alive()
    assert _returned_at_once(out[0], board)


def test_core_stop_after_arm_from_another_thread() -> None:
    engine = core.CoreEngine(2)
    board = Board()
    ticket = engine.arm()
    assert engine.arm() == ticket  # the same ticket until its search begins
    stopper = threading.Thread(target=engine.stop, args=(ticket,))
    stopper.start()
    stopper.join()
    out: list[tuple[int, core.CoreInfo]] = []
    t = threading.Thread(target=lambda: out.append(engine.search(board.raw, [], core.CoreLimits())),
                         daemon=True)
    t.start()
    t.join(JOIN)
    assert not t.is_alive()
    n, info = out[0]
    assert n == 7 and info.depth == 0 and len(info.pv) == 1
    assert engine.arm() > ticket  # that search began: the next one gets a new ticket
    engine.close()


def test_stale_stop_does_not_end_the_next_search() -> None:
    board = Board(MIDGAME)
    searcher = Searcher(hash_mb=2)
    searcher.stop()  # nothing runs or is armed: forgotten
    assert searcher.search(board, Limit(depth=6)).info.depth == 6
    searcher.stop()  # after a search ended: forgotten too
    assert searcher.search(board, Limit(depth=6)).info.depth == 6
    # The event of an earlier search, set once it is over, does not reach the next one.
    old = threading.Event()
    searcher.search(board, Limit(depth=2), stop=old)
    old.set()
    assert searcher.search(board, Limit(depth=6)).info.depth == 6


def test_stop_naming_an_old_ticket_does_not_end_a_later_search() -> None:
    engine = core.CoreEngine(2)
    board = Board(MIDGAME)
    old = engine.arm()
    engine.search(board.raw, [], core.CoreLimits(depth=2))
    done = threading.Event()

    def pester() -> None:  # a late stop of the finished search, over and over
        while not done.is_set():
            engine.stop(old)
            done.wait(0.001)

    pest = threading.Thread(target=pester, daemon=True)
    pest.start()
    try:
        _, info = engine.search(board.raw, [], core.CoreLimits(depth=7))
    finally:
        done.set()
        pest.join()
    assert info.depth == 7
    engine.close()


def test_stop_while_the_search_runs() -> None:
    searcher = Searcher(hash_mb=8)
    reports = threading.Event()
    t, out = _search_in_thread(searcher, Board(), Limit(), on_info=lambda info: reports.set())
    assert reports.wait(JOIN), "the search never reported"
    searcher.stop()
    t.join(JOIN)
    assert not t.is_alive()
    assert out[0].best is not None and out[0].info.depth >= 1


def test_stop_event_while_the_search_runs() -> None:
    searcher = Searcher(hash_mb=8)
    reports = threading.Event()
    stop = threading.Event()
    t, out = _search_in_thread(searcher, Board(MIDGAME), Limit(), on_info=lambda info: reports.set(),
                               stop=stop)
    assert reports.wait(JOIN)
    stop.set()
    t.join(JOIN)
    assert not t.is_alive()
    assert out[0].best is not None and out[0].info.depth >= 1


def test_stops_racing_the_start_are_never_lost() -> None:
    searcher = Searcher(hash_mb=1)
    board = Board()
    for i in range(20):
        stop = threading.Event()
        timer = threading.Timer(0.0005 * (i % 5), stop.set)
        timer.start()
        t, out = _search_in_thread(searcher, board, Limit(), stop=stop)
        t.join(JOIN)
        timer.join()
        assert not t.is_alive(), f"round {i}: a stop racing the start was lost"
        assert out[0].best is not None


def _fixed_searches() -> list[tuple[Searcher, Board, Limit]]:
    return [
        (Searcher(DEFAULT, hash_mb=2), Board(), Limit(depth=8)),
        (Searcher(MATERIAL, hash_mb=2), Board(MIDGAME), Limit(depth=8)),
        (Searcher(DEFAULT, mode=Mode.SAMUEL, hash_mb=2), Board(MIDGAME), Limit(depth=3)),
        (Searcher(evaluators.by_name("samuel-1959"), hash_mb=2), Board(), Limit(depth=6)),
        (Searcher(DEFAULT, mode=Mode.SHANNON_A, hash_mb=2), Board(MIDGAME), Limit(depth=4)),
        (Searcher(DEFAULT, mode=Mode.SHANNON_B, hash_mb=2), Board(MIDGAME), Limit(depth=6)),
    ]


def _summary(r: SearchResult) -> tuple[object, ...]:
    return (r.best, r.info.depth, r.info.score, r.info.nodes, r.info.pv)


def test_concurrent_searches_match_sequential_ones() -> None:
    sequential = [_summary(s.search(b, lim)) for s, b, lim in _fixed_searches()]
    jobs = _fixed_searches()  # fresh tables: node counts repeat exactly
    barrier = threading.Barrier(len(jobs))
    results: list[SearchResult | None] = [None] * len(jobs)

    def run(i: int) -> None:
        s, b, lim = jobs[i]
        barrier.wait()
        results[i] = s.search(b, lim)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert all(r is not None for r in results)
    assert [_summary(r) for r in results if r is not None] == sequential
