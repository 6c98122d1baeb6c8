"""What plays now, for the live page from its first second: the roster, the schedule (playing now,
next), hands and hands/s, each table's running score and provisional standings.

What is safe to show. The page is for the room, but a bot on the host network may reach its port
(the key keeps it out; this is the second wall): everything here is counted from the hands a match
passes on through ``on_hand``, that is only once *every* table dealt the same cards has finished
them (``Match._publish``). A table's running score therefore totals only hands whose duplicate
twins have all been played: a chip result of a hand still in play at the twin table would tell
that table's bots how the cards they hold ran elsewhere. The hand counts and hands/s are of those
same finished hands (they trail a fast table by its twin's lag, never lead it), so no count says
where a live hand stands, and no card, deck or seed is read at all: only stacks before and after.
"""

from __future__ import annotations

import collections
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

NEXT_SHOWN = 6  # matches listed as coming next
RATE_WINDOW_S = 5.0  # hands/s is measured over this much of the recent past
_FIELDS = re.compile(r"^(starting_stacks|finishing_stacks|players|blinds_or_straddles|_table_id) = (.*)$", re.M)


@dataclass(frozen=True)
class Scheduled:
    """One match of the league's schedule as the page lists it: its tables by number and seats."""

    match_id: str
    event: str
    tables: tuple[tuple[int, tuple[str, ...]], ...]  # (table number, bot names by seat)
    hands: int  # planned per table (a freezeout may end sooner)
    unit: int | None = None  # the big blind its chips are counted in, if not each hand's (a freezeout's first)

    @property
    def bots(self) -> tuple[str, ...]:
        """The match's bots, in the order first seated."""
        return tuple(dict.fromkeys(name for _, seats in self.tables for name in seats))


@dataclass
class _LiveTable:
    """One table's finished, showable hands: how many, and each seat's chips won in big blinds."""

    seats: tuple[str, ...]
    hands: int = 0
    bb: list[float] = field(default_factory=list)


def hand_result(text: str, unit: int | None = None) -> tuple[int, dict[str, float]]:
    """A finished hand's table number and each player's result in big blinds (of ``unit``, else of
    the hand: ``MatchPlan.chip_unit``), from its PHH text (read by line, not parsed whole: the live
    page counts every hand of the league)."""
    found = {key: json.loads(value) for key, value in _FIELDS.findall(text)}
    big = unit or max(found["blinds_or_straddles"]) or 1
    nets = {
        name: (end - start) / big
        for name, start, end in zip(found["players"], found["starting_stacks"], found["finishing_stacks"], strict=True)
    }
    return int(found.get("_table_id", 0)), nets


class LiveBoard:
    """The matches in play and their showable hands, beside the schedule. The league calls ``start``
    as a match begins and the view ``hand`` for each hand passed on, ``finish`` once the report has
    the match; ``data(now)`` is the page's part."""

    def __init__(self, schedule: Sequence[Scheduled], roster: Sequence[tuple[str, Sequence[str]]]) -> None:
        """``roster``: each bot's name and the events it plays."""
        self.roster = [{"name": name, "events": list(events)} for name, events in roster]
        self.plan(schedule)
        self.playing: dict[str, dict[int, _LiveTable]] = {}  # match -> table number -> its showable hands
        self.started: set[str] = set()
        self.finished: set[str] = set()
        self.pending: list[tuple[str, str]] = []  # (match, PHH) passed on since the last read
        self.counted = 0  # showable hands counted since the page began
        self.samples: collections.deque[tuple[float, int]] = collections.deque()

    def plan(self, schedule: Sequence[Scheduled]) -> None:
        """The league's matches as they will be seated: known once its seed is (drawn for ``seed: random``)."""
        self.schedule = list(schedule)
        self.by_id = {s.match_id: s for s in self.schedule}
        self._cursor = 0  # the schedule before it is started or finished

    def start(self, match_id: str) -> None:
        """A match begins: it plays now (its tables are listed, at 0 hands)."""
        self.started.add(match_id)
        plan = self.by_id.get(match_id)
        tables = plan.tables if plan is not None else ()
        self.playing[match_id] = {number: _LiveTable(seats, bb=[0.0] * len(seats)) for number, seats in tables}

    def hand(self, match_id: str, text: str) -> None:
        """A hand passed on as safe to show (kept as it came: read at the next ``data``)."""
        self.pending.append((match_id, text))

    def finish(self, match_id: str) -> None:
        """A match is in the report: no longer in play (its hands are the report's now)."""
        self._fold()
        self.finished.add(match_id)
        self.playing.pop(match_id, None)

    def _fold(self) -> None:
        for match_id, text in self.pending:
            tables = self.playing.get(match_id)
            if tables is None:
                continue  # a match the page never saw start (a resumed league's, or already finished)
            plan = self.by_id.get(match_id)
            number, nets = hand_result(text, plan.unit if plan is not None else None)
            table = tables.get(number)
            if table is None:
                seats = tuple(nets)
                table = tables[number] = _LiveTable(seats, bb=[0.0] * len(seats))
            table.hands += 1
            for name, net in nets.items():
                if name in table.seats:
                    table.bb[table.seats.index(name)] += net
            self.counted += 1
        self.pending.clear()

    def live_hands(self) -> int:
        """The showable hands of the matches in play."""
        self._fold()
        return sum(t.hands for tables in self.playing.values() for t in tables.values())

    def rate(self, now_s: float) -> float | None:
        """Showable hands per second over the last RATE_WINDOW_S (None before two readings)."""
        self._fold()
        self.samples.append((now_s, self.counted))
        while len(self.samples) > 2 and self.samples[1][0] <= now_s - RATE_WINDOW_S:
            self.samples.popleft()
        (first_s, first), (last_s, last) = self.samples[0], self.samples[-1]
        return round((last - first) / (last_s - first_s), 1) if last_s - first_s >= 0.2 else None

    def live_totals(self) -> dict[str, tuple[int, float]]:
        """Each bot's showable hands and big blinds won in the matches in play."""
        self._fold()
        totals: dict[str, list[float]] = collections.defaultdict(lambda: [0, 0.0])
        for tables in self.playing.values():
            for table in tables.values():
                for name, bb in zip(table.seats, table.bb, strict=True):
                    totals[name][0] += table.hands
                    totals[name][1] += bb
        return {name: (int(hands), bb) for name, (hands, bb) in totals.items()}

    def _next(self) -> list[dict[str, Any]]:
        gone = self.started | self.finished
        while self._cursor < len(self.schedule) and self.schedule[self._cursor].match_id in gone:
            self._cursor += 1
        coming = []
        for plan in self.schedule[self._cursor :]:
            if plan.match_id not in gone:
                coming.append({"match": plan.match_id, "event": plan.event, "bots": list(plan.bots)})
                if len(coming) == NEXT_SHOWN:
                    break
        return coming

    def data(self) -> dict[str, Any]:
        """The roster, what plays now (each table's showable hands and running score) and what is next."""
        self._fold()
        now = []
        for match_id, tables in sorted(self.playing.items()):
            plan = self.by_id.get(match_id)
            now.append(
                {
                    "match": match_id,
                    "event": plan.event if plan else match_id.split("/")[0],
                    "hands": plan.hands if plan else None,
                    "tables": [
                        {"table": number, "seats": list(t.seats), "hands": t.hands, "bb": [round(b, 1) for b in t.bb]}
                        for number, t in sorted(tables.items())
                    ],
                }
            )
        return {"roster": self.roster, "now": now, "next": self._next(), "scheduled": len(self.schedule)}


def provisional(finished: dict[str, tuple[int, float]], live: dict[str, tuple[int, float]]) -> dict[str, Any]:
    """Standings over the finished matches (hands, bb) plus the showable hands of those in play,
    ranked by bb/100; provisional while any hand of a match in play is in them."""
    lines: list[dict[str, Any]] = []
    for name in sorted(finished.keys() | live.keys()):
        hands = finished.get(name, (0, 0.0))[0] + live.get(name, (0, 0.0))[0]
        bb = finished.get(name, (0, 0.0))[1] + live.get(name, (0, 0.0))[1]
        per_100 = round(100 * bb / hands, 1) if hands else 0.0
        lines.append({"name": name, "hands": hands, "bb": round(bb, 1), "bb_per_100": per_100})
    lines.sort(key=lambda line: (-line["bb_per_100"], line["name"]))
    return {"provisional": any(h for h, _ in live.values()), "lines": lines}
