"""The ladder's pure model: matchmaking, deal sets, ratings and pauses as functions of data.

No I/O, clock or database: ``dealer.arena.ladder_loop`` feeds it what the repository holds and
writes back what it returns. Everything random draws from a ``random.Random`` keyed by the
arena's seed and the match's place in the ladder's order, so the same seed and submissions give
the same matches and, applied in that order (``InOrder``), the same ratings.

- **Matchmaking** (Halite III's): a share ``new_share`` of matches starts from a version with
  fewer than ``few_games`` games, the rest from the version with the fewest games; its opponents
  are drawn from the versions whose mu is within ``window`` of its own (the nearest ones when
  the window holds too few), one version per team. Every ``least_met_every``-th ranked match
  instead seats the two playing versions that have met least (aiarena's and Halite's answer to
  a ladder that splits into groups that never meet): an unmet pair is then always among the
  least met, so with ``n`` playing versions every pair has met within ``least_met_every * n *
  (n - 1) / 2`` ranked matches, however far apart their ratings (``meetings_bound``).
- **Deal sets** are numbered from the arena's seed (``ladder/<d>``), so every pair plays the same
  deals in the same order: a match is dealt the first deal set that none of its teams has played
  (each team's counter only moves on), so no team, through any of its versions, sees a deal twice.
- **Ratings**: OpenSkill's Plackett-Luce per version, a match ranked by big blinds won (a bot that
  stopped playing ranks last: ``dealer.stats.ratings.match_ranks``); a team ranks by its active
  version's ``mu - k * sigma``.
- **Pauses**: a version that crashed or timed out in more than ``pause_share`` of its matches
  (once it has played ``pause_after``) is paused with the reason and its log's last lines; the
  house never is.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from openskill.models import PlackettLuce

from dealer.stats.faults import VOIDING, Fault
from dealer.stats.ratings import match_ranks
from dealer.stats.records import MatchResult
from dealer.stats.stats import GroupedSums

MODEL = PlackettLuce()
MU0, SIGMA0 = MODEL.mu, MODEL.sigma
FAULTY: frozenset[str] = VOIDING | {Fault.TIMEOUT}  # a match with one of these counts against pausing


@dataclass(frozen=True, slots=True)
class Matchmaking:
    """How the ladder picks its matches (``ladder:`` in arena.yaml)."""

    table_size: int = 2
    new_share: float = 0.25
    few_games: int = 10
    window: float = 5.0
    least_met_every: int = 4  # every this many ranked matches, the least-met pair (0: never)


Met = Mapping[tuple[int, int], int]  # ranked matches picked so far, by pair of version ids (lower first)


def pair_key(a: int, b: int) -> tuple[int, int]:
    """The key of two versions in ``Met``: the lower id first."""
    return (a, b) if a < b else (b, a)


def pairs_of(version_ids: Sequence[int]) -> list[tuple[int, int]]:
    """The pairs of versions one match seats (``Met``'s keys)."""
    return [pair_key(a, b) for i, a in enumerate(version_ids) for b in version_ids[i + 1 :]]


def meetings_bound(versions: int, rules: Matchmaking) -> int | None:
    """The ranked matches within which every pair of ``versions`` playing versions has met (None
    when ``least_met_every`` is 0: no bound)."""
    if not rules.least_met_every:
        return None
    return rules.least_met_every * versions * (versions - 1) // 2


@dataclass(frozen=True, slots=True)
class Standing:
    """A version's place in the ladder: its rating, games, faulty games and whether it is paused."""

    version_id: int
    team_id: int
    mu: float = MU0
    sigma: float = SIGMA0
    games: int = 0
    faulty: int = 0
    paused: str | None = None  # why, once paused
    house: bool = False

    def score(self, k: float) -> float:
        """What teams are ranked by: mu - k sigma (a version that has played little ranks low)."""
        return self.mu - k * self.sigma


def pick(
    standings: Sequence[Standing], rules: Matchmaking, rng: random.Random, met: Met | None = None, seq: int = 1
) -> tuple[int, ...] | None:
    """The versions of ranked match ``seq``, its first seat first (None: fewer teams than seats).

    ``standings`` are the playing versions (one per team, none paused), in a fixed order; ``met``
    counts the ranked matches picked before this one by pair of versions (none: no pair has met)."""
    if len({s.team_id for s in standings}) < rules.table_size:
        return None
    ordered = sorted(standings, key=lambda s: s.version_id)
    need = rules.table_size - 1
    if rules.least_met_every and seq % rules.least_met_every == 0:
        first, second = _least_met(ordered, met or {}, rng)
        others = [s for s in ordered if s.team_id not in (first.team_id, second.team_id)]
        return (first.version_id, second.version_id, *_near(others, first, need - 1, rules, rng))
    fresh = [s for s in ordered if s.games < rules.few_games]
    if fresh and rng.random() < rules.new_share:
        first = rng.choice(fresh)
    else:
        fewest = min(s.games for s in ordered)
        first = rng.choice([s for s in ordered if s.games == fewest])
    others = [s for s in ordered if s.team_id != first.team_id]
    return (first.version_id, *_near(others, first, need, rules, rng))


def _near(others: Sequence[Standing], first: Standing, need: int, rules: Matchmaking, rng: random.Random) -> list[int]:
    """``need`` opponents of ``first``, one per team: drawn from those whose mu is within the window
    of its own, else the nearest."""
    if need == 0:
        return []
    teams: dict[int, Standing] = {}
    for s in others:  # one version per team (the playing versions are one per team already)
        teams.setdefault(s.team_id, s)
    candidates = list(teams.values())
    near = [s for s in candidates if abs(s.mu - first.mu) <= rules.window]
    if len(near) < need:
        near = sorted(candidates, key=lambda s: (abs(s.mu - first.mu), s.version_id))[:need]
    return [s.version_id for s in rng.sample(near, need)]


def _least_met(ordered: Sequence[Standing], met: Met, rng: random.Random) -> tuple[Standing, Standing]:
    """The two versions of different teams that have met least (a draw among the ties), in a random seat order."""
    pairs = [(a, b) for i, a in enumerate(ordered) for b in ordered[i + 1 :] if a.team_id != b.team_id]
    fewest = min(met.get(pair_key(a.version_id, b.version_id), 0) for a, b in pairs)
    a, b = rng.choice([(a, b) for a, b in pairs if met.get(pair_key(a.version_id, b.version_id), 0) == fewest])
    return (a, b) if rng.random() < 0.5 else (b, a)


def deal_for(next_deal: Mapping[int, int], teams: Sequence[int]) -> int:
    """The deal set a match of ``teams`` plays: the first that none of them has played yet."""
    return max(next_deal.get(team, 0) for team in teams)


def match_rng(seed: str, seq: int) -> random.Random:
    """The generator that picks ranked match ``seq`` (a private one: never the global generator)."""
    return random.Random(f"{seed}/ladder/{seq}")


@dataclass
class Applied:
    """What applying one ranked match changes: the versions' new standings (the rating history's
    rows), the heads-up pair's sums of duplicate groups, and the versions it pauses."""

    standings: list[Standing] = field(default_factory=list)
    pair_groups: dict[tuple[int, int], GroupedSums] = field(default_factory=dict)
    paused: list[Standing] = field(default_factory=list)
    void: bool = False


@dataclass(frozen=True, slots=True)
class PauseRule:
    """When a version is paused for its faults."""

    share: float = 0.1
    after: int = 10


def faulty(result: MatchResult, name: str) -> bool:
    """Whether the bot ``name`` crashed, stopped playing or timed out in the match."""
    return not FAULTY.isdisjoint(result.faults.get(name, {}))


def apply_match(
    result: MatchResult, names: Mapping[str, Standing], rule: PauseRule, log_tails: Mapping[str, str] | None = None
) -> Applied:
    """Rate one ranked match: ``names`` maps the bots' names in ``result`` to their versions'
    standings before it. A match with a version paused before its turn came is void (not rated)."""
    if any(s.paused for s in names.values()) or result.hands == 0:
        return Applied(void=True)
    ranks = match_ranks(result)
    order = sorted(names)
    rated = MODEL.rate(
        [[MODEL.create_rating([names[n].mu, names[n].sigma], name=n)] for n in order],
        ranks=[ranks[n] for n in order],
    )
    applied = Applied()
    tails = log_tails if log_tails is not None else result.log_tails
    for name, (rating,) in zip(order, rated, strict=True):
        before = names[name]
        bad = faulty(result, name)
        after = replace(
            before, mu=rating.mu, sigma=rating.sigma, games=before.games + 1, faulty=before.faulty + int(bad)
        )
        if not after.house and after.games >= rule.after and after.faulty > rule.share * after.games:
            reason = (
                f"paused: it crashed or timed out in {after.faulty} of its {after.games} "
                f"match{'' if after.games == 1 else 'es'} "
                f"(more than {rule.share:.0%}); the end of its log in the last one:\n{tails.get(name, '')}"
            )
            after = replace(after, paused=reason.rstrip("\n"))
            applied.paused.append(after)
        applied.standings.append(after)
    if len(order) == 2:
        bots = result.tally.bots
        for mine, theirs in (order, order[::-1]):
            if mine in bots:
                applied.pair_groups[names[mine].version_id, names[theirs].version_id] = bots[mine].groups
    return applied


class InOrder:
    """Results that finish in any order, released in the order their matches were scheduled."""

    def __init__(self, next_seq: int = 0) -> None:
        self.next_seq = next_seq
        self.waiting: dict[int, MatchResult | None] = {}

    def add(self, seq: int, result: MatchResult | None) -> None:
        """A finished ranked match (None: void, nothing to rate); one already released is ignored."""
        if seq >= self.next_seq:
            self.waiting.setdefault(seq, result)

    def first(self) -> tuple[int, MatchResult | None] | None:
        """The result that comes next in order, if it has finished (``release`` it once applied)."""
        if self.next_seq not in self.waiting:
            return None
        return self.next_seq, self.waiting[self.next_seq]

    def release(self) -> None:
        """The next result is applied: move on to the one after it."""
        self.waiting.pop(self.next_seq, None)
        self.next_seq += 1


def kendall_tau(ranking: Sequence[object], truth: Sequence[object]) -> float:
    """Kendall's tau between two orders of the same items (1: the same, -1: reversed)."""
    place = {item: k for k, item in enumerate(truth)}
    values = [place[item] for item in ranking]
    n = len(values)
    concordant = sum(1 for i in range(n) for j in range(i + 1, n) if values[i] < values[j])
    pairs = n * (n - 1) // 2
    return (2 * concordant - pairs) / pairs if pairs else 1.0


def version_bb100(pairs: list[tuple[str, int, GroupedSums]]) -> tuple[float, float, float] | None:
    """A version's big blinds per 100 hands over all its ranked duplicate groups against every
    opponent (``LadderStore.pair_groups``), with its 95% interval; None under two groups. The groups
    are summed in big blinds already (each hand's chips over that hand's big blind), so the rate is
    ``bb_per_100(1)``: chips over hands over the big blind, times 100, the big blind divided once."""
    merged = GroupedSums()
    for _team, _number, groups in pairs:
        merged.merge(groups)
    if merged.groups < 2:
        return None
    estimate = merged.bb_per_100(1)
    low, high = estimate.ci95()
    return estimate.mean, low, high
