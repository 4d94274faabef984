"""Who plays whom, with which opening and colours: round-robin, gauntlet and Swiss.

Every opening is a colour-reversed pair: the pairing's first engine has Black
(who moves first) in game 0 and White in game 1.  Game ids are built from the
round, the pairing, the opening and the colour, so the same tournament always
has the same ids, which is what lets a resumed or retried run skip what is done.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from matches.openings import Opening
from matches.record import GameSpec, MatchGame

FORMATS = ("match", "round-robin", "gauntlet", "swiss")


@dataclass(frozen=True)
class Pairing:
    first: str
    second: str


def round_robin(names: Sequence[str]) -> list[Pairing]:
    return [Pairing(a, b) for i, a in enumerate(names) for b in names[i + 1:]]


def gauntlet(names: Sequence[str], seeds: int = 1) -> list[Pairing]:
    """The first ``seeds`` engines each play every other engine (not each other)."""
    if not 1 <= seeds < len(names):
        raise ValueError(f"a gauntlet needs 1 <= seeds < engines, got {seeds} seed(s) "
                         f"for {len(names)} engines")
    return [Pairing(s, o) for o in names[seeds:] for s in names[:seeds]]


def pair_games(pairing: Pairing, opening: Opening, round_no: int) -> list[GameSpec]:
    pair_id = f"r{round_no}:{pairing.first}:{pairing.second}:o{opening.index}"
    games = []
    sides = ((pairing.first, pairing.second), (pairing.second, pairing.first))
    for colour, (black, white) in enumerate(sides):
        games.append(GameSpec(
            game_id=f"{pair_id}:c{colour}", round=round_no, pair_id=pair_id, colour=colour,
            black=black, white=white, opening_index=opening.index, opening_label=opening.label,
            fen=opening.fen, opening_moves=opening.moves, start_fen=opening.start_fen,
        ))
    return games


def numbered(specs: Iterable[GameSpec], start: int = 1) -> list[GameSpec]:
    return [replace(s, number=start + i) for i, s in enumerate(specs)]


def fixed_schedule(pairings: Sequence[Pairing], openings: Sequence[Opening],
                   rounds: int = 1) -> list[GameSpec]:
    """Round-robin or gauntlet: each round, every opening for every pairing, opening by opening.

    Going opening-major keeps a partial tournament balanced across pairings.
    """
    specs: list[GameSpec] = []
    for r in range(1, rounds + 1):
        for opening in openings:
            for pairing in pairings:
                specs += pair_games(pairing, opening, r)
    return numbered(specs)


def swiss_points(records: Iterable[MatchGame], names: Sequence[str]) -> dict[str, float]:
    points = dict.fromkeys(names, 0.0)
    for r in records:
        for name in (r.spec.black, r.spec.white):
            if name in points:
                points[name] += r.score_for(name)
    return points


def swiss_pairings(names: Sequence[str], points: Mapping[str, float],
                   met: set[frozenset[str]], byes: Mapping[str, int]) -> tuple[list[Pairing], str | None]:
    """One Swiss round: players sorted by points (ties by seed order), paired top down with
    players they have not met yet where possible; an odd player out gets a bye.

    Returns the pairings and who has the bye.  Backtracking finds a pairing without
    rematches when one exists; otherwise the fewest rematches come from pairing in order.
    """
    order = sorted(names, key=lambda n: (-points.get(n, 0.0), names.index(n)))
    bye = None
    if len(order) % 2:
        # The lowest-ranked player who has had the fewest byes sits out.
        bye = min(reversed(order), key=lambda n: byes.get(n, 0))
        order = [n for n in order if n != bye]

    def solve(rest: list[str]) -> list[Pairing] | None:
        if not rest:
            return []
        a = rest[0]
        for b in rest[1:]:
            if frozenset((a, b)) in met:
                continue
            tail = solve([x for x in rest[1:] if x != b])
            if tail is not None:
                return [Pairing(a, b), *tail]
        return None

    found = solve(order)
    if found is None:
        found = [Pairing(order[i], order[i + 1]) for i in range(0, len(order), 2)]
    return found, bye


def swiss_round(names: Sequence[str], round_no: int, openings: Sequence[Opening],
                previous: Sequence[MatchGame],
                openings_per_round: int = 1) -> tuple[list[GameSpec], str | None]:
    """The games of Swiss round ``round_no``, paired on the results of the rounds before it.

    Round r plays the next ``openings_per_round`` openings of the deck (wrapping around).
    """
    earlier = [r for r in previous if r.spec.round < round_no]
    met = {frozenset((r.spec.black, r.spec.white)) for r in earlier}
    byes: dict[str, int] = {}
    for r in range(1, round_no):
        b = swiss_bye(names, r, earlier)
        if b:
            byes[b] = byes.get(b, 0) + 1
    pairings, bye = swiss_pairings(names, swiss_points(earlier, names), met, byes)
    chosen = [openings[((round_no - 1) * openings_per_round + k) % len(openings)]
              for k in range(openings_per_round)]
    specs = [g for o in chosen for p in pairings for g in pair_games(p, o, round_no)]
    games_before = round_no - 1
    per_round = len(pairings) * 2 * openings_per_round
    return numbered(specs, start=games_before * per_round + 1), bye


def swiss_bye(names: Sequence[str], round_no: int, records: Sequence[MatchGame]) -> str | None:
    """Who sat out round ``round_no``: the odd player not in any of its games."""
    if len(names) % 2 == 0:
        return None
    played = {n for r in records if r.spec.round == round_no for n in (r.spec.black, r.spec.white)}
    missing = [n for n in names if n not in played]
    return missing[0] if len(missing) == 1 else None
