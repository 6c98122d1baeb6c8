"""OpenSkill ratings where chips do not compare: multi-way tables and freezeouts.

Each match is one ranked game for the Plackett-Luce model of ``openskill``: a freezeout by its
finishing places, a cash match by the big blinds each bot won in it (equal amounts tie). A bot
that stopped playing in a match (``faults.VOIDING``) ranks last in it. Matches are rated in
``match_id`` order, so the same results give the same ratings.
"""

from __future__ import annotations

import collections
from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce, PlackettLuceRating

from dealer.faults import voided
from dealer.records import MatchResult
from dealer.stats import Z95


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
    model = PlackettLuce()
    ratings: dict[str, PlackettLuceRating] = {}
    games: collections.Counter[str] = collections.Counter()
    for result in sorted(results, key=lambda r: r.match_id):
        if len(result.bots) < 2:
            continue
        ranks = match_ranks(result)
        names = sorted(result.bots)
        teams = [[ratings.get(name) or model.rating(name=name)] for name in names]
        rated = model.rate(teams, ranks=[ranks[name] for name in names])
        for name, (rating,) in zip(names, rated, strict=True):
            ratings[name] = rating
            games[name] += 1
    return {name: Rating(r.mu, r.sigma, games[name]) for name, r in sorted(ratings.items())}
