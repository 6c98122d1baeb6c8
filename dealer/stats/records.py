"""The records of what a match produced: per-hand outcomes and the match's result.

Pure data (no gRPC, protobuf or I/O): the results, the ratings, the league journal, the web view
and compare read these without importing the match machinery. A match keeps no object per hand:
each hand's record is folded into the result's ``Tally`` (running sums by bot and by duplicate
group) as the hand ends, so a match's memory does not grow with its length.
"""

from __future__ import annotations

import collections
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from dealer.stats.stats import ExactSum, GroupedSums

if TYPE_CHECKING:
    from dealer.stats.paired import PairedTally


@dataclass(frozen=True, slots=True)
class HandRecord:
    """The outcome of one hand for the statistics: net chips by bot name (one made at every hand's end:
    slots, so that its frozen fields are set in a fraction of the time a ``__dict__`` takes)."""

    table: int
    deal_set: str
    hand: int
    big_blind: int  # the unit its chips are counted in: the hand's big blind, a freezeout's first (MatchPlan.chip_unit)
    net: dict[str, int]
    ev_net: dict[str, float] | None = None  # all-in adjusted net (dealer.engine.equity), when all-in before the river
    luck_net: dict[str, float] | None = None  # net minus chance luck (dealer.stats.aivat), when the plan asks for it
    full_net: dict[str, float] | None = None  # luck_net minus decision luck, when a decision had a known strategy
    features: dict[str, tuple[float, ...]] | None = None  # luck features (dealer.stats.luck_features), with luck_net
    weight: float = 1.0  # p / q of the deal's cards when they were tilted (dealer.stats.tilted_deals), else 1


class BotTally:
    """One bot's running totals over a match: hands, chips, big blinds won (raw and all-in
    adjusted), the sum of squares of big blinds per hand, and its duplicate groups. The float
    sums are exact (``stats.ExactSum``), so they do not depend on the order the hands end in."""

    __slots__ = ("_adjusted", "_raw", "_squares", "chips", "groups", "hands")

    def __init__(self) -> None:
        self.hands = 0
        self.chips = 0
        self._raw = ExactSum()
        self._adjusted = ExactSum()
        self._squares = ExactSum()
        self.groups = GroupedSums()

    def add(self, chips: int, won: float, adjusted: float) -> None:
        """One hand: chips won, and big blinds won raw and all-in adjusted."""
        self.hands += 1
        self.chips += chips
        self._raw.add(won)
        self._adjusted.add(adjusted)
        self._squares.add(won * won)

    def merge(self, other: BotTally) -> None:
        """Add another part of the match's totals (``dealer.league.workers``): exact, so the same in any order."""
        self.hands += other.hands
        self.chips += other.chips
        self._raw.merge(other._raw)
        self._adjusted.merge(other._adjusted)
        self._squares.merge(other._squares)
        self.groups.merge(other.groups)

    @property
    def raw(self) -> float:
        """Big blinds won."""
        return self._raw.value

    @property
    def adjusted(self) -> float:
        """Big blinds won, all-in hands scored by equity."""
        return self._adjusted.value

    @property
    def squares(self) -> float:
        """The sum over hands of the squared big blinds won."""
        return self._squares.value

    def as_json(self) -> dict[str, object]:
        """JSON-ready (floats as Python writes them: they read back the same)."""
        return {
            "hands": self.hands,
            "chips": self.chips,
            "raw": self.raw,
            "adjusted": self.adjusted,
            "squares": self.squares,
            "groups": self.groups.as_json(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BotTally:
        """Totals written by ``as_json``."""
        tally = cls()
        tally.hands, tally.chips = int(data["hands"]), int(data["chips"])
        tally._raw = ExactSum(float(data["raw"]))
        tally._adjusted = ExactSum(float(data["adjusted"]))
        tally._squares = ExactSum(float(data["squares"]))
        tally.groups = GroupedSums.from_json(data["groups"])
        return tally


class _Group:
    """A duplicate group still in play: the hands of it seen, and by bot the big blinds won (an
    exact sum: the same in any order) and hands played."""

    __slots__ = ("hands", "seen", "totals")

    def __init__(self) -> None:
        self.seen = 0
        self.totals: dict[str, ExactSum] = {}
        self.hands: dict[str, int] = {}

    def add(self, name: str, won: float) -> None:
        """One bot's result in one hand of the group."""
        if name in self.totals:
            self.totals[name].add(won)
            self.hands[name] += 1
        else:
            self.totals[name] = ExactSum(won)
            self.hands[name] = 1


class Tally:
    """A match's hands folded as they end: ``BotTally`` by bot name, and the duplicate groups still open.

    A duplicate group is every hand of the match with one deal set and hand number; its totals
    by bot (big blinds, hands) are summed exactly and go into the bots'
    ``GroupedSums`` once all ``group_sizes[deal_set]`` tables of the deal set have played it (or
    at ``close``, for a match stopped early). Only groups in play are kept.
    """

    def __init__(self, group_sizes: dict[str, int] | None = None) -> None:
        """``group_sizes``: tables per deal set (a deal set not named has one table)."""
        self.group_sizes = dict(group_sizes or {})
        self.bots: dict[str, BotTally] = {}
        self.hands = 0  # hand records folded in
        self._open: dict[tuple[str, int], _Group] = {}

    def add(self, record: HandRecord) -> None:
        """Fold one finished hand in."""
        self.hands += 1
        bb, bots, ev = record.big_blind, self.bots, record.ev_net
        size = self.group_sizes.get(record.deal_set, 1)
        group: _Group | None = None
        if size > 1:
            key = (record.deal_set, record.hand)
            group = self._open.get(key)
            if group is None:
                group = self._open[key] = _Group()
            group.seen += 1
        for name, chips in record.net.items():
            tally = bots.get(name)
            if tally is None:
                tally = bots[name] = BotTally()
            won = chips / bb
            tally.add(chips, won, ev[name] / bb if ev is not None else won)
            if group is None:
                tally.groups.add(won, 1)
            else:
                group.add(name, won)
        if group is not None and group.seen == size:
            del self._open[key]
            self._fold(group)

    def _fold(self, group: _Group) -> None:
        for name, total in group.totals.items():
            self.bots[name].groups.add(total.value, group.hands[name])

    def close(self) -> None:
        """Fold in the groups not every table played (a match stopped early, a freezeout)."""
        for group in self._open.values():
            self._fold(group)
        self._open.clear()

    def merge(self, other: Tally) -> None:
        """Add a closed tally of other deal sets of the match (another worker process's part)."""
        assert not other._open, "an open tally is not merged"
        self.group_sizes.update(other.group_sizes)
        self.hands += other.hands
        for name, theirs in other.bots.items():
            mine = self.bots.get(name)
            if mine is None:
                mine = self.bots[name] = BotTally()
            mine.merge(theirs)

    def as_json(self) -> dict[str, object]:
        """JSON-ready (after ``close``)."""
        assert not self._open, "an open tally is not written"
        return {"hands": self.hands, "bots": {name: t.as_json() for name, t in sorted(self.bots.items())}}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Tally:
        """A closed tally written by ``as_json``."""
        tally = cls()
        tally.hands = int(data["hands"])
        tally.bots = {name: BotTally.from_json(t) for name, t in data["bots"].items()}
        return tally


@dataclass
class MatchResult:
    """What a match produced: its hands folded into a tally, faults by bot and reason, and
    freezeout places; a comparison's match also pairs its hands (``paired``); ``records`` keeps
    every hand's record only when asked for (tests, analyses of a pool of deals)."""

    match_id: str
    bots: tuple[str, ...]
    tally: Tally = field(default_factory=Tally)
    faults: dict[str, dict[str, int]] = field(default_factory=dict)
    forfeited: list[str] = field(default_factory=list)
    places: list[str] = field(default_factory=list)
    log_tails: dict[str, str] = field(default_factory=dict)
    unstarted: list[str] = field(default_factory=list)  # bots whose first start never connected
    start_hints: dict[str, str] = field(default_factory=dict)  # bot -> what its failed start suggests (not kept)
    strategies_refused: dict[str, str] = field(default_factory=dict)  # bot -> why its strategies were ignored
    records: list[HandRecord] | None = None
    paired: PairedTally | None = None  # a comparison's paired samples, summed (dealer.stats.paired)
    attempt: int = 0  # its deals' attempt: 0, or how many times a league's kill cut it off before

    @property
    def hands(self) -> int:
        """Hands played."""
        return self.tally.hands

    def net(self) -> dict[str, int]:
        """Net chips by bot over the match."""
        bots = self.tally.bots
        return {name: bots[name].chips if name in bots else 0 for name in self.bots}


def result_of(
    match_id: str, bots: tuple[str, ...], records: Sequence[HandRecord], *, keep: bool = False, **fields: object
) -> MatchResult:
    """A result from hand records, in the order the hands ended (tests, older journals); ``keep``
    keeps the records too."""
    tally = Tally({r.deal_set: sys.maxsize for r in records})  # never complete: every group closes at the end
    for record in records:
        tally.add(record)
    tally.close()
    return MatchResult(match_id, bots, tally, records=list(records) if keep else None, **fields)  # type: ignore[arg-type]


def fault_totals(results: Iterable[MatchResult]) -> dict[str, collections.Counter[str]]:
    """Faults summed over matches, by bot then reason."""
    totals: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for result in results:
        for name, reasons in result.faults.items():
            totals[name].update(reasons)
    return totals
