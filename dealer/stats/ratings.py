"""OpenSkill ratings where chips do not compare: multi-way tables and freezeouts.

Each match is one ranked game for the Plackett-Luce model of ``openskill``: a freezeout by its
finishing places, a cash match by the big blinds each bot won in it (equal amounts tie). A bot
that stopped playing in a match (``faults.VOIDING``) ranks last in it. Matches are rated in
``match_id`` order, so the same results give the same ratings.
"""

from __future__ import annotations

import bisect
import collections
from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce, PlackettLuceRating

from dealer.stats.faults import voided
from dealer.stats.records import MatchResult
from dealer.stats.stats import Z95


@dataclass(frozen=True)
class Rating:
    """A bot's skill estimate ``mu`` with its uncertainty ``sigma`` after ``matches`` games."""

    mu: float
    sigma: float
    matches: int

    def ci95(self) -> tuple[float, float]:
        """The 95% interval of the skill under the model's normal belief."""
        return self.mu - Z95 * self.sigma, self.mu + Z95 * self.sigma

    def as_json(self) -> dict[str, object]:
        """A JSON-ready dict."""
        low, high = self.ci95()
        return {
            "mu": round(self.mu, 3),
            "sigma": round(self.sigma, 3),
            "ci95": [round(low, 3), round(high, 3)],
            "matches": self.matches,
        }


def match_ranks(result: MatchResult) -> dict[str, int]:
    """Each bot's rank in one match, 1 the best (ties share a rank)."""
    broken = {name for name in result.bots if voided(result.faults.get(name, {}))}
    if result.places:
        order = [name for name in result.places if name not in broken]
        ranks = {name: k + 1 for k, name in enumerate(order)}
        rest = len(order) + 1
        return {name: ranks.get(name, rest) for name in result.bots}
    bots = result.tally.bots
    won = {name: bots[name].raw if name in bots else 0.0 for name in result.bots}  # big blinds, in hand order
    score = {name: (name not in broken, round(won[name], 9)) for name in result.bots}
    distinct = sorted(set(score.values()), reverse=True)
    return {name: distinct.index(score[name]) + 1 for name in result.bots}


def openskill_ratings(results: Sequence[MatchResult]) -> dict[str, Rating]:
    """Plackett-Luce ratings of every bot in ``results`` (in match_id order)."""
    fold = RatingFold()
    for result in results:
        fold.add(result)
    return fold.ratings()


_State = tuple[dict[str, PlackettLuceRating], collections.Counter[str]]


class RatingFold:
    """``openskill_ratings`` of the matches added so far, in any order they finish: rating is
    sequential in match_id order, so the fold keeps its state after the last match it rated, and
    after every ``every`` matches of that order. A match added after those rated costs one rate;
    one added among them rates again from the mark before it (``every`` rates and those after)."""

    def __init__(self, every: int = 32) -> None:
        self.model = PlackettLuce()
        self.every = every
        self.ids: list[str] = []  # the rated matches' ids, sorted, and their results
        self.results: list[MatchResult] = []
        self.marks: list[_State] = [({}, collections.Counter())]  # the state after ids[: k * every]
        self.tip: tuple[_State, int] | None = None  # the state after ids[:n], and n
        self.cached: dict[str, Rating] | None = {}

    def add(self, result: MatchResult) -> None:
        """A finished match (one of fewer than two bots is not rated)."""
        if len(result.bots) < 2:
            return
        at = bisect.bisect(self.ids, result.match_id)
        self.ids.insert(at, result.match_id)
        self.results.insert(at, result)
        del self.marks[at // self.every + 1 :]  # the marks after it no longer count it
        if self.tip is not None and at < self.tip[1]:
            self.tip = None
        self.cached = None

    def ratings(self) -> dict[str, Rating]:
        """Every rated bot's rating, by name."""
        if self.cached is None:
            if self.tip is None:
                ratings, games = self.marks[-1]
                state, start = (dict(ratings), collections.Counter(games)), (len(self.marks) - 1) * self.every
            else:
                state, start = self.tip
            ratings, games = state
            for k in range(start, len(self.results)):
                self._rate(self.results[k], ratings, games)
                if (k + 1) % self.every == 0:
                    self.marks.append((dict(ratings), collections.Counter(games)))
            self.tip = (state, len(self.results))
            self.cached = {name: Rating(r.mu, r.sigma, games[name]) for name, r in sorted(ratings.items())}
        return self.cached

    def _rate(
        self, result: MatchResult, ratings: dict[str, PlackettLuceRating], games: collections.Counter[str]
    ) -> None:
        """Rate one match: its bots' ratings and game counts move on (the model copies what it reads)."""
        ranks = match_ranks(result)
        names = sorted(result.bots)
        teams = [[ratings.get(name) or self.model.rating(name=name)] for name in names]
        rated = self.model.rate(teams, ranks=[ranks[name] for name in names])
        for name, (rating,) in zip(names, rated, strict=True):
            ratings[name] = rating
            games[name] += 1
