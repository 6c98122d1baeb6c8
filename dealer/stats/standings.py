"""Standings from match results: chips, big blinds per 100 hands with a 95% interval, failures.

Every hand's result is measured in big blinds of that hand (so mixed games add up), in a
freezeout in the first level's big blind (its stacks carry over: a stack lost at a higher level
is lost whole, and bb/100 keeps the sign of the chips; ``MatchPlan.chip_unit``). Hands played on
the same cards in rotated seats (a duplicate group: same match, same ``deal_set``, same hand number)
form one sample, which is what makes duplicate intervals narrow.

Crashing is never rewarded: standings by bb/100 rank a bot first by the matches it stopped playing
in (a fault of ``faults.VOIDING``: it crashed, lost its connection, ran out of memory or CPU, or
never started), fewer first, and only then by bb/100. Its seat folds or checks for it after it
stops, which can lose fewer chips than a bot that plays on: without this rule a bot that crashes
in every match would outrank a calling station. Points and ratings need no such rule: a bot that
stopped scores no points and ranks last in that match's rating (``dealer.stats.ratings.match_ranks``).
"""

from __future__ import annotations

import collections
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tabulate import tabulate

from dealer.stats.faults import voided
from dealer.stats.records import MatchResult
from dealer.stats.stats import Estimate, GroupedSums

if TYPE_CHECKING:
    from dealer.stats.ratings import Rating


@dataclass(frozen=True)
class Standing:
    """One bot's line in the standings."""

    name: str
    hands: int
    chips: int
    bb100: Estimate
    faults: dict[str, int]
    points: int = 0
    rating: Rating | None = None
    stopped: int = 0  # matches it stopped playing in (faults.VOIDING): ranked by these first

    def as_json(self) -> dict[str, object]:
        """A JSON-ready dict."""
        low, high = self.bb100.ci95() if self.bb100.n > 1 else (None, None)
        return {
            "name": self.name,
            "hands": self.hands,
            "chips": self.chips,
            "bb_per_100": round(self.bb100.mean, 3),
            "ci95": [_round(low), _round(high)],
            "samples": self.bb100.n,
            "points": self.points,
            "rating": None if self.rating is None else self.rating.as_json(),
            "faults": dict(sorted(self.faults.items())),
            "stopped": self.stopped,
        }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


class StandingSums:
    """What standings are made of, folded one finished match at a time (in any order: every sum is
    exact), so a league's standings after its thousandth match cost what they did after its first."""

    def __init__(self) -> None:
        self.names: set[str] = set()
        self.played: set[str] = set()  # bots that started in at least one of the matches
        self.chips: collections.Counter[str] = collections.Counter()
        self.hands: collections.Counter[str] = collections.Counter()
        self.sums: dict[str, GroupedSums] = collections.defaultdict(GroupedSums)
        self.faults: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
        self.stopped: collections.Counter[str] = collections.Counter()  # matches it stopped playing in

    def add(self, result: MatchResult) -> None:
        """Fold one finished match in."""
        self.names.update(result.bots)
        self.played.update(name for name in result.bots if name not in result.unstarted)
        for name, tally in result.tally.bots.items():
            self.chips[name] += tally.chips
            self.hands[name] += tally.hands
            self.sums[name].merge(tally.groups)
        for name, reasons in result.faults.items():
            self.faults[name].update(reasons)
            if voided(reasons):
                self.stopped[name] += 1

    def lines(
        self,
        points: dict[str, int] | None = None,
        *,
        by_points: bool = False,
        ratings: dict[str, Rating] | None = None,
        by_rating: bool = False,
    ) -> list[Standing]:
        """Every bot's standing, best first: by the matches it stopped playing in (fewer first) then
        bb/100; or by rating (multi-way), or by points then rating (freezeout events), which already
        rank a bot that stopped last in that match; a bot that never started in any of its matches
        (its seat folded or checked for it) is ranked below every bot that played, whatever its seat won."""
        lines = []
        for name in self.names:
            groups = self.sums.get(name)
            estimate = groups.bb_per_100(1) if groups is not None and groups.groups else Estimate(0.0, float("inf"), 0)
            lines.append(
                Standing(
                    name,
                    self.hands[name],
                    self.chips[name],
                    estimate,
                    dict(self.faults.get(name, {})),
                    (points or {}).get(name, 0),
                    (ratings or {}).get(name),
                    self.stopped[name],
                )
            )

        def key(s: Standing) -> tuple[bool, int, float, float, float, str]:
            mu = s.rating.mu if s.rating is not None else 0.0
            return (
                s.name not in self.played,
                0 if by_points or by_rating else s.stopped,
                -s.points if by_points else 0,
                -mu if by_rating or by_points else 0,
                -s.bb100.mean,
                s.name,
            )

        lines.sort(key=key)
        return lines


def standings(
    results: Sequence[MatchResult],
    points: dict[str, int] | None = None,
    *,
    by_points: bool = False,
    ratings: dict[str, Rating] | None = None,
    by_rating: bool = False,
) -> list[Standing]:
    """Every bot's standing over ``results``, ranked as ``StandingSums.lines`` says."""
    sums = StandingSums()
    for result in results:
        sums.add(result)
    return sums.lines(points, by_points=by_points, ratings=ratings, by_rating=by_rating)


def standings_table(lines: Sequence[Standing], *, points: bool | None = None) -> str:
    """The standings as a text table (a points column when ``points``, by default when any scored;
    a rating column when the lines have ratings)."""
    points = any(line.points for line in lines) if points is None else points
    rated = any(line.rating is not None for line in lines)
    rows = []
    for rank, s in enumerate(lines, 1):
        # no interval from fewer than two samples, no rate from no hands: "-", never "nan"
        interval = "-"
        if s.bb100.n > 1:
            low, high = s.bb100.ci95()
            interval = f"[{low:+.1f}, {high:+.1f}]"
        failures = ", ".join(f"{reason} {count}" for reason, count in sorted(s.faults.items())) or "-"
        if s.stopped:  # what it is ranked by first
            failures = f"stopped in {s.stopped} match{'' if s.stopped == 1 else 'es'}: {failures}"
        rate = f"{s.bb100.mean:+.1f}" if s.hands else "-"
        row: list[object] = [rank, s.name, s.hands, s.chips, rate, interval]
        if rated:
            rating = s.rating
            row += ["-", "-"] if rating is None else [f"{rating.mu:.1f}", "[{:.1f}, {:.1f}]".format(*rating.ci95())]
        if points:
            row.insert(2, s.points)
        rows.append([*row, failures])
    headers = ["#", "bot", "hands", "chips", "bb/100", "95% CI", *(["rating", "95% CI"] if rated else []), "failures"]
    if points:
        headers.insert(2, "points")
    return tabulate(rows, headers=headers, disable_numparse=True)
