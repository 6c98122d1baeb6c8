"""The records of what a match produced: per-hand outcomes and the match's result.

Pure data (no gRPC, protobuf or I/O): the results, the ratings, the league journal, the web view
and compare read these without importing the match machinery.
"""

from __future__ import annotations

import collections
from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class HandRecord:
    """The outcome of one hand for the statistics: net chips by bot name."""

    table: int
    deal_set: str
    hand: int
    big_blind: int
    net: dict[str, int]
    ev_net: dict[str, float] | None = None  # all-in adjusted net (dealer.equity), when all-in before the river
    luck_net: dict[str, float] | None = None  # net minus chance luck (dealer.aivat), when the plan asks for it
    full_net: dict[str, float] | None = None  # luck_net minus decision luck, when a decision had a known strategy


@dataclass
class MatchResult:
    """What a match produced: hands, faults by bot and reason, and freezeout places."""

    match_id: str
    bots: tuple[str, ...]
    hands: list[HandRecord] = field(default_factory=list)
    faults: dict[str, dict[str, int]] = field(default_factory=dict)
    forfeited: list[str] = field(default_factory=list)
    places: list[str] = field(default_factory=list)
    log_tails: dict[str, str] = field(default_factory=dict)
    unstarted: list[str] = field(default_factory=list)  # bots whose first start never connected
    strategies_refused: dict[str, str] = field(default_factory=dict)  # bot -> why its strategies were ignored

    def net(self) -> dict[str, int]:
        """Net chips by bot over the match."""
        total: dict[str, int] = {name: 0 for name in self.bots}
        for record in self.hands:
            for name, chips in record.net.items():
                total[name] += chips
        return total


def fault_totals(results: Sequence[MatchResult]) -> dict[str, collections.Counter[str]]:
    """Faults summed over matches, by bot then reason."""
    totals: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for result in results:
        for name, reasons in result.faults.items():
            totals[name].update(reasons)
    return totals
