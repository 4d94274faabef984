"""Rote memory figures (run through scripts/bench-rote, which sets up the working directory)."""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from engine.bench import BENCH_POSITIONS
from engine.board import Board
from engine.core import RawPosition, RoteKeyArray, RoteTable, rote_key
from engine.learners.rote import AgePolicy, RoteMemory
from engine.learners.rote_store import Observation, RoteStore
from engine.limits import Limit
from engine.search import Searcher

ap = argparse.ArgumentParser(prog="scripts/bench-rote")
ap.add_argument("--positions", type=int, default=1_000_000)
ap.add_argument("--db", default=None, help="store file (default: a temporary one, deleted after)")
ap.add_argument("--depth", type=int, default=11, help="search depth for the probe-cost figure")
args = ap.parse_args()


def random_position(rng: random.Random) -> RawPosition:
    """A legal-looking position: 2-24 pieces, men off their crowning rows, some kings."""
    n = rng.randrange(2, 25)
    squares = rng.sample(range(32), n)
    cut = rng.randrange(1, n)
    sets = [0, 0, 0, 0]
    for i, s in enumerate(squares):
        black = i < cut
        king = rng.random() < 0.2 or (black and s >= 28) or (not black and s < 4)
        sets[(0 if black else 2) + king] |= 1 << s
    return RawPosition(*sets, rng.randrange(2))


rng = random.Random(1959)
t = time.perf_counter()
keys: dict[tuple[int, int, int], None] = {}
while len(keys) < args.positions:
    keys[rote_key(random_position(rng))] = None
key_list = list(keys)
print(f"generated {len(key_list)} standardized positions in {time.perf_counter() - t:.1f} s")

tmpdir = None
if args.db:
    path = Path(args.db)
else:
    tmpdir = tempfile.TemporaryDirectory()
    path = Path(tmpdir.name) / "rote.db"
for suffix in ("", "-wal", "-shm"):
    Path(f"{path}{suffix}").unlink(missing_ok=True)

policy = AgePolicy(max_positions=max(args.positions, 1) * 2)
store = RoteStore(path)
obs = [Observation(k, rng.randrange(-600, 601), rng.randrange(3, 20)) for k in key_list]
t = time.perf_counter()
r = store.merge(obs, policy=policy)
fill = time.perf_counter() - t
print(f"merge of {r.added} new positions (one transaction): {fill:.2f} s "
      f"= {r.added / fill / 1000:.0f} k positions/s")
store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
size = path.stat().st_size
print(f"size on disk: {size / 1e6:.1f} MB = {size / max(r.total, 1):.0f} bytes/position")

# A game's worth: 100 positions seen in play (half new), 50 references by searches.
game = [Observation(k, 7, 9) for k in key_list[:50]]
game += [Observation(rote_key(random_position(rng)), 3, 5) for _ in range(50)]
refs = rng.sample(key_list, 50)
t = time.perf_counter()
r = store.merge(game, refs, policy)
print(f"merge of one game (100 positions, 50 references) into {r.total}: "
      f"{(time.perf_counter() - t) * 1000:.1f} ms")
store.close()

t = time.perf_counter()
memory = RoteMemory(path, policy)
print(f"load into the C table: {time.perf_counter() - t:.2f} s, "
      f"{memory.table().nbytes / 1e6:.1f} MB in memory")
for o in game:
    memory.record_key(o.key, o.score, o.ply)
t = time.perf_counter()
memory.merge()
print(f"RoteMemory.merge of one game incl. the table swap: {(time.perf_counter() - t) * 1000:.1f} ms")

table: RoteTable = memory.table()
hits = rng.sample(key_list, min(len(key_list), 1_000_000))

def never_stored(k: tuple[int, int, int]) -> tuple[int, int, int]:
    empty = ~(k[0] | k[1]) & 0xFFFFFFFF
    return (k[0], k[1], k[2] | (empty & -empty))  # a king on an empty square: no position


misses = [never_stored(k) for k in hits]
for label, keys_ in (("hits", hits), ("misses", misses)):
    probe = RoteKeyArray(keys_)
    best = 0.0
    for _ in range(3):
        t = time.perf_counter()
        found = table.count_found(probe)
        dt = time.perf_counter() - t
        best = max(best, len(probe) / dt)
    print(f"C lookups ({label}, {found} found of {len(probe)}): {best / 1e6:.1f} M/s")

class Source:
    def __init__(self, t: RoteTable | None) -> None:
        self.t = t

    def table(self) -> RoteTable:
        assert self.t is not None
        return self.t


def bench_search(rote: RoteTable | None) -> tuple[int, float, int]:
    nodes = hits = 0
    t = time.perf_counter()
    for fen in BENCH_POSITIONS:
        s = Searcher(hash_mb=64, rote=Source(rote) if rote is not None else None)
        info = s.search(Board(fen), Limit(depth=args.depth)).info
        nodes += info.nodes
        hits += info.rote_hits
    return nodes, time.perf_counter() - t, hits


for label, rt in (("off", None), ("on", table), ("off", None), ("on", table)):
    n, dt, h = bench_search(rt)
    print(f"search bench depth {args.depth}, rote {label} ({len(rt) if rt else 0} positions): {n} nodes, "
          f"{dt:.2f} s = {n / dt / 1e6:.2f} M nodes/s, {h} rote hits")
memory.close()
if tmpdir:
    tmpdir.cleanup()
