"""The opening book: file format, keys, probing, variety, the Searcher, protocol options and the CLI."""

from __future__ import annotations

import asyncio
import random
import struct
import zlib
from pathlib import Path

import pytest

from engine import opening_book as ob
from engine.board import Board
from engine.errors import OptionError, SamuelError
from engine.fen import START_FEN
from engine.limits import Limit
from engine.options import OptionValues
from engine.search import Searcher
from matches.engines import parse_engine
from protocol.session_engine import SessionDefaults, SessionEngine
from samuel.cli import main as samuel_main

AFTER_11_15 = "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,12,15"


def _move(board: Board, text: str, games: int, wins: int = 0, draws: int = 0, losses: int = 0,
          score: int = 0, flags: int = ob.FLAG_ANALYSED) -> ob.BookMove:
    return ob.BookMove(board.parse_move(text), games, wins, draws, losses, score, 8, flags)


def small_book() -> ob.OpeningBook:
    """Three moves at the start (two close, one far behind) and one reply to 11-15."""
    start = Board()
    after = Board(AFTER_11_15)
    moves = [
        (start.raw, _move(start, "11-15", 100, 30, 50, 20, score=10)),
        (start.raw, _move(start, "9-14", 90, 25, 50, 15, score=5)),
        (start.raw, _move(start, "12-16", 3, 0, 1, 2, score=0)),
        (after.raw, _move(after, "23-19", 40, 10, 20, 10, score=-5)),
    ]
    info = ob.BookInfo(0, 0, 200, 30, 3, 1000, 60)
    return ob.OpeningBook.from_moves(moves, info)


# ---- keys


def test_key_of_the_start_position_is_its_square_sets() -> None:
    # Black men on 1-12 (bits 0-11), White men on 21-32 (bits 20-31), Black to move, no kings.
    assert ob.position_key(Board().raw) == (0xFFF0_0000_0000_0FFF, 0)


def test_key_marks_the_side_to_move_in_bit_31() -> None:
    hi, lo = ob.position_key(Board(AFTER_11_15).raw)
    assert hi >> 31 & 1 == 1
    assert hi & 0x7FFF_FFFF == (0xFFF & ~(1 << 10)) | 1 << 14  # 11 left, 15 taken
    assert lo == 0


def test_key_inverts_and_tells_kings_apart() -> None:
    for fen in (START_FEN, AFTER_11_15, "W:WK3,21:BK30,5", "B:WK3,21:B26,K5"):
        board = Board(fen)
        key = ob.position_key(board.raw)
        assert ob.position_of_key(*key) == board.raw
        assert ob.board_of_key(*key).fen() == board.fen()
    king, man = Board("W:WK3,21:BK26,K30,5"), Board("W:WK3,21:B26,K30,5")
    assert ob.position_key(king.raw) != ob.position_key(man.raw)


# ---- the file format


def test_round_trip_through_bytes_and_a_file(tmp_path: Path) -> None:
    book = small_book()
    data = book.to_bytes()
    assert len(data) == ob.HEADER.size + 4 * ob.RECORD_SIZE
    assert data[:8] == ob.MAGIC
    again = ob.OpeningBook.from_bytes(data)
    assert again.info == book.info == ob.BookInfo(4, 2, 200, 30, 3, 1000, 60)
    assert again.records.tobytes() == book.records.tobytes()
    path = tmp_path / "small.bin"
    book.write(path)
    loaded = ob.OpeningBook.open(path)
    assert [m.move.short for m in loaded.probe(Board())] == ["11-15", "9-14", "12-16"]
    assert not (tmp_path / "small.bin.tmp").exists()


def test_entries_are_sorted_for_binary_search() -> None:
    keys = [(int(r["key_hi"]), int(r["key_lo"])) for r in small_book().records]
    assert keys == sorted(keys)


def _reseal(data: bytes) -> bytes:
    """The same bytes with a freshly computed checksum (to reach the checks behind it)."""
    zeroed = data[:ob.CRC_OFFSET] + b"\0" * 4 + data[ob.CRC_OFFSET + 4:]
    return zeroed[:ob.CRC_OFFSET] + struct.pack("<I", zlib.crc32(zeroed)) + zeroed[ob.CRC_OFFSET + 4:]


@pytest.mark.parametrize("damage, message", [
    (lambda d: d[:-10], "truncated"),
    (lambda d: d + b"x", "trailing bytes"),
    (lambda d: d[:30], "shorter than the 64-byte header"),
    (lambda d: b"", "shorter than the 64-byte header"),
    (lambda d: b"NOTABOOK" + d[8:], "not an opening book"),
    (lambda d: d[:8] + struct.pack("<H", 9) + d[10:], "version 9"),
    (lambda d: d[:100] + bytes([d[100] ^ 1]) + d[101:], "checksum mismatch"),
    (lambda d: d[:16] + struct.pack("<I", 3) + d[20:], "has trailing bytes"),  # fewer entries than there are
    (lambda d: d[:16] + struct.pack("<I", 5) + d[20:], "truncated"),
    (lambda d: _reseal(d[:20] + struct.pack("<I", 7) + d[24:]), "header says 7 positions"),
])
def test_damaged_files_are_refused_with_the_file_named(tmp_path: Path, damage, message) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "bad.bin"
    path.write_bytes(damage(small_book().to_bytes()))
    with pytest.raises(ob.BookError, match=message) as info:
        ob.OpeningBook.open(path)
    assert str(path) in str(info.value)


def test_unsorted_entries_are_refused(tmp_path: Path) -> None:
    book = small_book()
    shuffled = ob.OpeningBook(book.records[::-1].copy(), book.info)
    path = tmp_path / "unsorted.bin"
    path.write_bytes(shuffled.to_bytes())
    with pytest.raises(ob.BookError, match="not sorted"):
        ob.OpeningBook.open(path)


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(ob.BookError, match="no such opening book file"):
        ob.load(str(tmp_path / "nowhere.bin"))
    with pytest.raises(ob.BookError, match="no such opening book file"):
        ob.OpeningBook.open(tmp_path / "nowhere.bin")
    with pytest.raises(ob.BookError, match="directory"):
        ob.OpeningBook.open(tmp_path)


def test_load_names() -> None:
    assert ob.load("none") is None
    assert ob.load("off") is None
    shipped = ob.load("default")
    assert shipped is not None and shipped is ob.load("DEFAULT")  # cached: sessions share one copy
    assert ob.canonical(" Off ") == "none" and ob.canonical("true") == "default"


# ---- probing


def test_probe_ranks_by_value_and_skips_what_is_not_legal() -> None:
    book = small_book()
    assert [m.move.short for m in book.probe(Board())] == ["11-15", "9-14", "12-16"]
    assert book.probe(Board("B:W21,22:B1,2")) == []
    # A record whose move is not legal in its position (a damaged or foreign file) is never played.
    records = book.records.copy()
    records["to"][records["to"] == 16] = 20  # 12-16 becomes 12-20, not a move
    assert [m.move.short for m in ob.OpeningBook(records, book.info).probe(Board())] == ["11-15", "9-14"]


def test_shipped_book_gives_only_legal_moves() -> None:
    book = ob.load("default")
    assert book is not None and book.info.positions > 1000
    rng = random.Random(5)
    for _ in range(40):
        board = Board()
        for _ in range(30):
            moves = book.probe(board)
            if not moves:
                break
            for m in moves:
                assert board.is_legal(m.move)
            board.push(rng.choice(moves).move)
    for hi, lo, rows in list(book.positions())[:: max(1, book.info.positions // 300)]:
        board = ob.board_of_key(hi, lo)
        assert len(book.probe(board)) == len(rows)


def test_shipped_book_knows_the_start_and_the_ballots() -> None:
    book = ob.load("default")
    assert book is not None
    first = book.choose(Board())
    assert first is not None and first.games > 1000
    assert {m.move.short for m in book.probe(Board())} >= {"11-15", "9-14"}


def test_variety_zero_is_deterministic() -> None:
    book = small_book()
    picks = {book.choose(Board(), 0, random.Random(seed)).move.short for seed in range(50)}  # type: ignore[union-attr]
    assert picks == {"11-15"}


def test_variety_draws_among_moves_near_the_best() -> None:
    book = small_book()
    rng = random.Random(1)
    counts: dict[str, int] = {}
    for _ in range(400):
        m = book.choose(Board(), 20, rng)
        assert m is not None
        counts[m.move.short] = counts.get(m.move.short, 0) + 1
    assert set(counts) == {"11-15", "9-14"}  # 12-16 is far below the best: never
    assert 120 < counts["9-14"] < 280  # in proportion to games (90 against 100)
    wide = {book.choose(Board(), 100, rng).move.short for _ in range(400)}  # type: ignore[union-attr]
    assert "12-16" in wide


# ---- the searcher


def test_searcher_plays_the_book_move_without_searching() -> None:
    s = Searcher(hash_mb=1, book=small_book())
    seen = []
    result = s.search(Board(), Limit(depth=6), on_info=seen.append)
    assert result.best is not None and result.best.short == "11-15"
    assert result.info.book and result.info.nodes == 0 and result.info.depth == 0
    assert result.ponder is not None and result.ponder.short == "23-19"  # the book's reply
    assert seen and seen[-1].book
    # Out of the book it searches as ever.
    out = s.search(Board("B:W21,22,23:B1,2,3"), Limit(depth=4))
    assert not out.info.book and out.info.depth >= 4
    # No limit (analysis, pondering): never the book.
    s.stop()
    s.book = None
    assert not s.search(Board(), Limit(depth=3)).info.book


def test_a_stop_after_a_book_move_does_not_end_the_next_search() -> None:
    s = Searcher(hash_mb=1, book=small_book())
    s.arm()  # as SearchRun arms before it searches
    assert s.search(Board(), Limit(depth=5)).info.book
    s.stop()  # e.g. a protocol's stop that arrives after the book answer
    result = s.search(Board("B:W21,22,23,24:B1,2,3,4"), Limit(depth=6))
    assert result.info.depth >= 6


def test_searcher_variety_uses_its_seed() -> None:
    picks = set()
    for seed in range(30):
        s = Searcher(hash_mb=1, book=small_book(), book_variety=20, book_seed=seed)
        picks.add(s.search(Board(), Limit(depth=3)).best.short)  # type: ignore[union-attr]
    assert picks == {"11-15", "9-14"}


# ---- options of the protocols and of matches


def test_engine_options_book(tmp_path: Path) -> None:
    o = OptionValues()
    assert o["book"] == "none" and o["book-variety"] == 0  # the commands turn it on
    assert o.set("book", "OFF") == "none" and ob.load(str(o["book"])) is None
    path = tmp_path / "small.bin"
    small_book().write(path)
    assert o.set("book", str(path)) == str(path)
    book = ob.load(str(o["book"]))
    assert book is not None and len(book) == 4
    with pytest.raises(SamuelError, match="no such opening book"):
        o.set("book", str(tmp_path / "missing.bin"))
    assert o["book"] == str(path)  # the old value stays
    (tmp_path / "junk.bin").write_bytes(b"junk" * 40)
    with pytest.raises(SamuelError, match=r"junk\.bin: not an opening book"):
        o.set("book", str(tmp_path / "junk.bin"))
    assert o.set("book-variety", "25") == 25 and o.book_variety == 25
    with pytest.raises(OptionError):
        o.set("book-variety", "101")


def test_session_passes_the_book_to_its_searcher(tmp_path: Path) -> None:
    path = tmp_path / "small.bin"
    small_book().write(path)

    async def main() -> None:
        session = SessionEngine(SessionDefaults(options=OptionValues(hash=1, book=str(path))))
        try:
            result = await session.search(Board(), Limit(depth=4))
            assert result.info.book and result.best is not None and result.best.short == "11-15"
            thinking = await session.search(Board(), Limit(depth=4), use_book=False)
            assert not thinking.info.book
            session.set_option("book", "none")
            assert not (await session.search(Board(), Limit(depth=4))).info.book
        finally:
            await session.close()

    asyncio.run(main())


def test_cb_book_levels_map_to_variety() -> None:
    from serving import CaptureWriter

    from protocol.cb_session import CbSession, _Output
    from protocol.context import ServerSettings

    async def main() -> None:
        defaults = SessionDefaults(options=OptionValues(hash=1, book="default"))
        cb = CbSession(_Output(CaptureWriter()), ServerSettings(defaults=defaults))
        try:
            assert cb.get("book") == (1, "3")
            assert cb.set("book", "2") == (1, "2")
            assert cb.engine.options.text("book-variety") == "10" and cb.get("book") == (1, "2")
            assert cb.set("book", "1") == (1, "1") and cb.engine.options.text("book-variety") == "50"
            assert cb.set("book", "0") == (1, "0") and cb.engine.options.text("book") == "none"
            assert cb.get("book") == (1, "0")
            assert cb.set("book", "3") == (1, "3") and cb.engine.options.text("book") == "default"
            assert cb.get("bookfile") == (1, "default")
            ok, text = cb.set("bookfile", "/no/such/book.bin")
            assert ok == 0 and "no such opening book file" in text
        finally:
            await cb.engine.close()

    asyncio.run(main())


def test_match_engine_spec_takes_book_keys(tmp_path: Path) -> None:
    spec = parse_engine(["name=b", "book=default", "book-variety=5"])
    assert dict(spec.options)["book"] == "default" and dict(spec.options)["book-variety"] == "5"
    assert "book" in spec.describe()
    off = parse_engine(["eval=default"])
    assert "book" not in dict(off.options)
    with pytest.raises(ValueError, match="no such opening book file"):
        parse_engine(["book=" + str(tmp_path / "none-here.bin")])
    with pytest.raises(ValueError, match=r"book-variety=500 is out of range \(0..100\)"):
        parse_engine(["book=default", "book-variety=500"])


# ---- the command line


PDN = """\
[Event "one"]
[Result "1-0"]
1. 11-15 23-19 2. 8-11 22-17 3. 9-13 17x10 1-0

[Event "two"]
[Result "1/2-1/2"]
1. 11-15 23-19 2. 8-11 22-17 3. 4-8 17-14 1/2-1/2

[Event "three"]
[Result "0-1"]
1. 11-15 23-19 2. 9-14 22-17 0-1

[Event "four"]
[Result "1/2-1/2"]
1. 9-14 22-18 2. 5-9 24-20 1/2-1/2
"""


def test_cli_build_probe_show(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pdn = tmp_path / "games.pdn"
    pdn.write_text(PDN)
    out = tmp_path / "book.bin"
    assert samuel_main(["openings", "build", "--pdn", str(pdn), "--out", str(out), "--min-games", "2",
                        "--nodes", "500", "--quiet"]) == 0
    assert "positions" in capsys.readouterr().out
    book = ob.OpeningBook.open(out)
    assert book.info.source_games == 4 and book.info.min_games == 2
    first = {m.move.short: m for m in book.probe(Board())}
    assert first["11-15"].games == 3
    assert (first["11-15"].wins, first["11-15"].draws, first["11-15"].losses) == (1, 1, 1)
    reply = book.probe(Board(AFTER_11_15))
    assert any(m.move.short == "23-19" and m.games == 3 for m in reply)
    assert samuel_main(["openings", "probe", "--book", str(out), "11-15"]) == 0
    assert "23-19" in capsys.readouterr().out
    assert samuel_main(["openings", "show", str(out)]) == 0
    assert "from 4 games" in capsys.readouterr().out


def test_cli_build_without_analysis_keeps_the_experts_moves(tmp_path: Path) -> None:
    pdn = tmp_path / "games.pdn"
    pdn.write_text(PDN)
    out = tmp_path / "book.bin"
    assert samuel_main(["openings", "build", "--pdn", str(pdn), "--out", str(out), "--min-games", "1",
                        "--nodes", "0", "--quiet"]) == 0
    book = ob.OpeningBook.open(out)
    assert not (book.records["flags"] & ob.FLAG_ENGINE).any()
    assert {m.move.short for m in book.probe(Board())} == {"11-15", "9-14"}


def test_cli_refuses_a_bad_book(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.bin"
    bad.write_bytes(small_book().to_bytes()[:-1])
    assert samuel_main(["openings", "show", str(bad)]) == 2
    assert f"{bad}: truncated" in capsys.readouterr().err


def test_hub_plays_from_the_book_and_says_so() -> None:
    from serving import CaptureWriter

    from protocol import hub_grammar as hg
    from protocol.context import ServerSettings
    from protocol.framing import stream_limit
    from protocol.hub_session import run_hub

    async def main() -> None:
        reader = asyncio.StreamReader(limit=stream_limit(4096))
        out = CaptureWriter()
        defaults = SessionDefaults(options=OptionValues(hash=1, book="default"))
        task = asyncio.ensure_future(run_hub(reader, out, ServerSettings(defaults=defaults)))

        async def until(command: str) -> list[str]:
            lines = []
            while True:
                line = await asyncio.wait_for(out.lines.get(), 30)
                lines.append(line)
                if line.split(" ", 1)[0] == command:
                    return lines

        def send(*lines: str) -> None:
            for line in lines:
                reader.feed_data(line.encode() + b"\n")

        send("hub")
        params = [x for x in await until("wait") if x.startswith("param name=book")]
        assert params == ["param name=book value=default type=string",
                          "param name=book-variety value=0 type=int min=0 max=100"]
        send("init")
        await until("ready")
        send("pos pos=" + hg.LITERAL_START, "level depth=6", "go think")
        lines = await until("done")
        assert any("book=true" in x and "nodes=0" in x for x in lines)
        assert lines[-1].startswith("done move=11-15 ponder=")  # the book's expected reply
        send("go analyze")
        lines = await until("done")
        assert not any("book=true" in x for x in lines)
        send("set-param name=book value=/no/such.bin", "ping")
        lines = await until("pong")
        assert any(x.startswith("error") and "no such opening book file" in x for x in lines)
        send("set-param name=book value=false", "go think")
        lines = await until("done")
        assert not any("book=true" in x for x in lines)
        reader.feed_eof()
        await asyncio.wait_for(task, 30)

    asyncio.run(main())
