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
from typing import TYPE_CHECKING

# re-exported: their home before dealer.stats.tally (compiled)
from dealer.stats.tally import BotTally as BotTally
from dealer.stats.tally import Tally as Tally

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
