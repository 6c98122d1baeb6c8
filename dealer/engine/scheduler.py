"""Pure pairing and seating: which bots play together, in which seats, on which deals.

Every table is planned here: a league event's, a single match's (``dealer match``) and a
comparison's (``dealer compare``); the callers only turn the plan into what they run.

Knows nothing about cards or poker rules. Every function is deterministic for a given seed and
uses only a private ``random.Random(str(seed))``, never the global generator.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from itertools import combinations

MAX_TABLE_SIZE = 10


@dataclass(frozen=True)
class Seating:
    """How one table is seated: bot names by seat, the deal set whose cards it plays, its rotation.

    The tables of a duplicate group share ``deal_set`` (hence the same cards) and differ by
    ``rotation`` (0..n-1); a deal set played once has rotation 0.
    """

    seats: tuple[str, ...]
    deal_set: str
    rotation: int = 0


def _check_bots(bots: Sequence[str], table_size: int) -> None:
    """Raise ValueError for a table size outside 2..10 or above the bot count, or repeated bots."""
    if not 2 <= table_size <= MAX_TABLE_SIZE:
        raise ValueError(f"table_size must be between 2 and {MAX_TABLE_SIZE}, got {table_size}")
    if table_size > len(bots):
        raise ValueError(f"table_size {table_size} exceeds the number of bots ({len(bots)})")
    repeated = sorted(b for b, c in Counter(bots).items() if c > 1)
    if repeated:
        raise ValueError(f"bot names must be unique; repeated: {', '.join(repeated)}")


def _heads_up_rounds(bots: list[str]) -> list[tuple[str, str]]:
    """Return every unordered pair once, in circle-method rounds so each bot plays evenly over time."""
    ring: list[str | None] = list(bots) + ([None] if len(bots) % 2 else [])
    half = len(ring) // 2
    pairs: list[tuple[str, str]] = []
    for rnd in range(len(ring) - 1):
        for i in range(half):
            a, b = ring[i], ring[-1 - i]
            if a is not None and b is not None:
                pairs.append((a, b) if (rnd + i) % 2 else (b, a))
        ring = [ring[0], ring[-1], *ring[1:-1]]
    return pairs


def _greedy_tables(bots: list[str], table_size: int, min_meetings: int, rng: random.Random) -> list[tuple[str, ...]]:
    """Draw tables greedily until every pair has met ``min_meetings`` times, then until every bot
    has played as many tables as every other.

    Each table starts from a bot that still owes meetings (fewest tables first) and adds the bot
    minimising (max meetings with those seated, total meetings with them, tables played), ties
    broken by a seeded random rank.
    """
    n = len(bots)
    rank = list(range(n))
    rng.shuffle(rank)
    meet = [[0] * n for _ in range(n)]
    tables = [0] * n
    owed = [n - 1] * n  # partners each bot has met fewer than min_meetings times
    unmet_pairs = n * (n - 1) // 2
    result: list[tuple[str, ...]] = []
    while unmet_pairs:
        anchor = min((i for i in range(n) if owed[i]), key=lambda i: (tables[i], rank[i]))
        seated = [anchor]
        row = meet[anchor]
        cur_max = row[:]
        cur_sum = row[:]
        for _ in range(table_size - 1):
            free = [i for i in range(n) if i not in seated]
            lowest = min(cur_max[i] for i in free)
            tied = [i for i in free if cur_max[i] == lowest]
            best = min(tied, key=lambda i: (cur_sum[i], tables[i], rank[i]))
            row = meet[best]
            for i in range(n):
                if row[i] > cur_max[i]:
                    cur_max[i] = row[i]
                cur_sum[i] += row[i]
            seated.append(best)
        for a, b in combinations(seated, 2):
            meet[a][b] += 1
            meet[b][a] += 1
            if meet[a][b] == min_meetings:
                owed[a] -= 1
                owed[b] -= 1
                unmet_pairs -= 1
        for i in seated:
            tables[i] += 1
        result.append(tuple(bots[i] for i in seated))
    return result + _equal_tables(bots, table_size, meet, tables, rank)


def _equal_tables(
    bots: list[str], table_size: int, meet: list[list[int]], tables: list[int], rank: list[int]
) -> list[tuple[str, ...]]:
    """Tables that bring every bot to the same number of tables (so to the same number of hands).

    Each seats the bots with the fewest tables, completed from the next level by the bot that
    has met those seated least; with the counts at most one apart this ends within ``n`` tables,
    because the number of bots one table ahead is a multiple of gcd(n, table_size).
    """
    n = len(bots)
    result: list[tuple[str, ...]] = []
    while max(tables) != min(tables):
        order = sorted(range(n), key=lambda i: (tables[i], rank[i]))
        level = tables[order[table_size - 1]]
        seated = [i for i in order if tables[i] < level]
        pool = [i for i in order if tables[i] == level]
        while len(seated) < table_size:
            best = min(
                pool,
                key=lambda i: (max((meet[i][j] for j in seated), default=0), sum(meet[i][j] for j in seated), rank[i]),
            )
            pool.remove(best)
            seated.append(best)
        for a, b in combinations(seated, 2):
            meet[a][b] += 1
            meet[b][a] += 1
        for i in seated:
            tables[i] += 1
        result.append(tuple(bots[i] for i in seated))
    return result


def round_robin_tables(
    bots: Sequence[str], table_size: int, *, seed: int | str = 0, min_meetings: int = 1
) -> list[tuple[str, ...]]:
    """Return tables on which every pair of bots meets at least ``min_meetings`` times.

    Heads-up gives each pair exactly ``min_meetings`` times; larger tables use a seeded greedy
    balanced draw (every bot at the same number of tables, pair meetings nearly equal); a full
    field is one table.
    """
    _check_bots(bots, table_size)
    if min_meetings < 1:
        raise ValueError(f"min_meetings must be at least 1, got {min_meetings}")
    if table_size == len(bots):
        return [tuple(bots)] * min_meetings
    rng = random.Random(str(seed))
    order = list(bots)
    rng.shuffle(order)
    if table_size == 2:
        once = _heads_up_rounds(order)
        return [pair if k % 2 == 0 else pair[::-1] for k in range(min_meetings) for pair in once]
    return _greedy_tables(order, table_size, min_meetings, rng)


def gauntlet_tables(
    challenger: str, field: Sequence[str], table_size: int, *, seed: int | str = 0
) -> list[tuple[str, ...]]:
    """Return tables that all seat ``challenger``, each field bot meeting it once or twice.

    The field, in seeded order, is dealt cyclically into the other seats until every field bot
    has played once, so meeting counts differ by at most one (heads-up: exactly once each).
    """
    if challenger in field:
        raise ValueError(f"challenger {challenger!r} is also in the field")
    _check_bots([challenger, *field], table_size)
    order = list(field)
    random.Random(str(seed)).shuffle(order)
    per_table = table_size - 1
    count = -(-len(order) // per_table)
    return [(challenger, *(order[(t * per_table + j) % len(order)] for j in range(per_table))) for t in range(count)]


def duplicate_rotations(table: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Return the n cyclic seatings of a table: rotation r puts ``table[(s + r) % n]`` at seat s."""
    n = len(table)
    return [tuple(table[(s + r) % n] for s in range(n)) for r in range(n)]


def _balanced_rotations(tables: Sequence[tuple[str, ...]], rng: random.Random) -> list[int]:
    """Choose a cyclic rotation per table so that every bot sits in every seat about equally often.

    Greedy first pass (the rotation whose bots have sat least in the seats it gives them, ties by
    seeded random), then sweeps that re-choose each table given all others while the sum of
    squared seat counts strictly falls, so it terminates.
    """
    used: dict[str, Counter[int]] = {b: Counter() for t in tables for b in t}
    options = [duplicate_rotations(t) for t in tables]

    def cost(seats: tuple[str, ...]) -> int:
        return sum(used[b][s] for s, b in enumerate(seats))

    def place(seats: tuple[str, ...], step: int) -> None:
        for s, b in enumerate(seats):
            used[b][s] += step

    chosen: list[int] = []
    for opts in options:
        tiebreak = list(range(len(opts)))
        rng.shuffle(tiebreak)
        r = min(range(len(opts)), key=lambda r: (cost(opts[r]), tiebreak[r]))
        place(opts[r], 1)
        chosen.append(r)
    changed = True
    while changed:
        changed = False
        for i, opts in enumerate(options):
            place(opts[chosen[i]], -1)
            r = min(range(len(opts)), key=lambda r: (cost(opts[r]), r != chosen[i]))
            changed |= r != chosen[i]
            place(opts[r], 1)
            chosen[i] = r
    return chosen


def _event_deal_set(event: str, number: int) -> str:
    """The name of an event's deal set ``number``: a league plays each as one match of that id."""
    return f"{event}/{number:04d}"


def schedule_event(
    event: str, tables: Sequence[tuple[str, ...]], *, duplicate: bool, seed: int | str = 0
) -> list[Seating]:
    """Seat an event's tables, each on its own deal set ``<event>/NNNN`` (in table order).

    Duplicate: a table becomes n tables on its deal set, rotations 0..n-1. Otherwise each table is
    played once, in the cyclic seat rotation that balances seat counts (``seed`` only breaks ties).
    """
    if duplicate:
        return [
            Seating(seats, _event_deal_set(event, number), r)
            for number, table in enumerate(tables)
            for r, seats in enumerate(duplicate_rotations(table))
        ]
    rotations = _balanced_rotations(tables, random.Random(str(seed)))
    return [
        Seating(duplicate_rotations(table)[r], _event_deal_set(event, number))
        for number, (table, r) in enumerate(zip(tables, rotations, strict=True))
    ]


def _compare_groups(new: str, old: str, field: Sequence[str]) -> list[list[tuple[tuple[str, ...], int]]]:
    """A comparison's duplicate groups of (seats, rotation), one deal set each: new against old in
    both seatings, or per field opponent each version against it in both seatings (so both
    versions meet each opponent on the same deals)."""
    pairs = [[(new, old)]] if not field else [[(new, f), (old, f)] for f in field]
    return [[(seats, r) for pair in group for r, seats in enumerate(duplicate_rotations(pair))] for group in pairs]


def compare_event(event: str, new: str, old: str, field: Sequence[str]) -> list[Seating]:
    """A league's compare event: one deal set ``<event>/NNNN`` (one match) per field opponent, or a
    single one of new against old."""
    return [
        Seating(seats, _event_deal_set(event, number), r)
        for number, group in enumerate(_compare_groups(new, old, field))
        for seats, r in group
    ]


def plan_tables(seats: Sequence[str], *, duplicate: bool, tables: int, prefix: str = "m") -> tuple[Seating, ...]:
    """Tables for a single match: ``tables`` deal sets, each replayed in every seat rotation if duplicate.

    Without duplicate, deal set ``k`` is played in rotation ``k mod n``: tables in different
    rotations wait on different bots at once, so no bot (nor the dealer) idles while another thinks.
    """
    rotations = duplicate_rotations(tuple(seats))
    if not duplicate:
        return tuple(Seating(rotations[k % len(rotations)], f"{prefix}/{k}", k % len(rotations)) for k in range(tables))
    return tuple(Seating(table, f"{prefix}/{k}", r) for k in range(tables) for r, table in enumerate(rotations))


def compare_tables(new: str, old: str, field: Sequence[str], deal_sets: int, prefix: str = "c") -> tuple[Seating, ...]:
    """The tables of a comparison played as one match: ``deal_sets`` times each of its duplicate
    groups, on deal sets ``<prefix>/<k>`` (no field) or ``<prefix>/<k>/<opponent>``."""
    groups = _compare_groups(new, old, field)
    names = [f"/{f}" for f in field] or [""]
    return tuple(
        Seating(seats, f"{prefix}/{k}{name}", r)
        for k in range(deal_sets)
        for name, group in zip(names, groups, strict=True)
        for seats, r in group
    )


def sealed_instances(tables: Sequence[tuple[Sequence[str], Hashable]]) -> list[tuple[int, ...]]:
    """For each table (its seats and deal set), the instance of each seat's bot that plays it.

    Tables that share a deal set share cards, so no process may play two of them: a bot's k-th
    table of a deal set goes to its instance k, and instance k plays the k-th table of every deal
    set (so an instance still plays many tables at once).
    """
    seen: Counter[tuple[str, Hashable]] = Counter()
    instances = []
    for seats, deal_set in tables:
        row = []
        for name in seats:
            row.append(seen[name, deal_set])
            seen[name, deal_set] += 1
        instances.append(tuple(row))
    return instances
