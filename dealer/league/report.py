"""The league's report, folded one finished match at a time: standings overall and by event, head
to head, failures and ratings, as the JSON-ready dict that results.json holds, standings.txt and the
terminal print (``dealer.league.summary``) and the web view shows.

Pure: no I/O, no clock, no server. The league adds each match once as it finishes, in any order,
and hands the same report to every view; each sum is exact, so the order does not show. Two parts
still cost more than one match's worth to read: ratings are sequential in match_id order, so a
match that finishes before matches later in that order (an event whose name sorts before one
already played) has those rated again (``dealer.stats.ratings.RatingFold``); and a compare event's
verdict is computed over its matches (``compare``, ``league.compare_summary``, once per read after
one of them finished). Readers that read often therefore read as ``Share`` allows.
"""

from __future__ import annotations

import bisect
import collections
import dataclasses
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from dealer.config.events import AnyEvent, Compare, Freezeout
from dealer.config.league_file import LeagueConfig
from dealer.league.seeds import commitment, guessable
from dealer.stats.faults import voided
from dealer.stats.ratings import RatingFold
from dealer.stats.records import MatchResult
from dealer.stats.standings import Standing, StandingSums
from dealer.stats.stats import Estimate, GroupedSums

Comparer = Callable[[AnyEvent, Sequence[MatchResult]], dict[str, object]]
"""A compare event's answer from its finished matches (``league.compare_summary``)."""


class Share:
    """When to redo a recurring job whose cost may grow with the league (reading the report and
    writing it out): always while it is cheap (under ``cheap_s``), else once the time since it
    last ended is ``1 / share`` times what it took, so it takes at most ``share`` of the
    coordinator's time. Pure: callers pass their clock's readings."""

    def __init__(self, share: float = 0.1, cheap_s: float = 0.005) -> None:
        self.share = share
        self.cheap_s = cheap_s
        self.due_s = 0.0

    def due(self, now_s: float) -> bool:
        """Whether the job may run at ``now_s``."""
        return now_s >= self.due_s

    def took(self, began_s: float, ended_s: float) -> None:
        """The job ran from ``began_s`` to ``ended_s``."""
        spent = ended_s - began_s
        self.due_s = ended_s if spent < self.cheap_s else ended_s + spent / self.share


def match_points(event: AnyEvent, result: MatchResult) -> dict[str, int]:
    """Freezeout points one match earns: its places scored with the event's points table; a bot
    that crashed or never played in it (``faults.VOIDING``) scores nothing."""
    if not isinstance(event, Freezeout):
        return {}
    return {
        name: event.points[place]
        for place, name in enumerate(result.places)
        if place < len(event.points) and not voided(result.faults.get(name, {}))
    }


def event_of(result: MatchResult) -> str:
    """The event a league's match belongs to (its match_id is ``<event>/<number>``)."""
    return result.match_id.split("/")[0]


def rated(event: AnyEvent) -> bool:
    """Events ranked by rating, where chips do not compare: freezeouts and multi-way tables."""
    return event.rated


STOPPED = (  # standings.StandingSums.lines: where chips rank, crashing must not pay
    "but first, a bot that stopped playing in a match (crashed, lost its connection, never started: "
    "'stopped in N matches' under failures) ranks below every bot that stopped in fewer"
)


def ranking_rule(event: AnyEvent) -> str:
    """How an event's standings are ranked, in words (printed above its table)."""
    if isinstance(event, Freezeout):
        return (
            f"ranked by freezeout points (places score {list(event.points)}; a bot that crashed scores none), "
            "then by OpenSkill rating"
        )
    if rated(event):
        return (
            "ranked by OpenSkill rating (Plackett-Luce; each match ranks its bots by big blinds won), "
            "95% interval mu +/- 1.96 sigma; bb/100 shown"
        )
    return f"ranked by bb/100, 95% interval with each duplicate group as one sample; {STOPPED}"


def overall_rule(config: LeagueConfig) -> str:
    """How the overall standings are ranked, in words."""
    cash = [e.name for e in config.events if not isinstance(e, Freezeout)]
    return (
        f"ranked by bb/100 over the cash events ({', '.join(cash) or 'none'}), 95% interval with each duplicate "
        "group as one sample; freezeouts are ranked by points in their own tables; rating: OpenSkill over "
        f"every match; {STOPPED}"
    )


class _Event:
    """One event's running standings: sums, freezeout points, ratings when it is ranked by them."""

    def __init__(self, spec: AnyEvent) -> None:
        self.spec = spec
        self.matches = 0
        self.sums = StandingSums()
        self.points: collections.Counter[str] = collections.Counter()
        self.ratings = RatingFold() if rated(spec) else None
        self.results: list[MatchResult] = []  # kept for a compare event's verdict only
        self.comparison: dict[str, object] | None = None

    def add(self, result: MatchResult) -> None:
        self.matches += 1
        self.sums.add(result)
        self.points.update(match_points(self.spec, result))
        if self.ratings is not None:
            self.ratings.add(result)
        if isinstance(self.spec, Compare):
            self.results.append(result)
            self.comparison = None

    def standings(self) -> list[Standing]:
        """The event's standings, ranked as ``ranking_rule`` says."""
        ratings = None if self.ratings is None else self.ratings.ratings()
        by_points = isinstance(self.spec, Freezeout)
        return self.sums.lines(dict(self.points), by_points=by_points, ratings=ratings, by_rating=ratings is not None)


class _HeadToHead:
    """Heads-up matches' duplicate groups by bot, per seating order of the pair (``result.bots``)."""

    def __init__(self) -> None:
        self.sums: dict[tuple[str, str], dict[str, GroupedSums]] = {}
        self.first: dict[tuple[str, str], str] = {}  # each seating order's first match_id

    def add(self, result: MatchResult) -> None:
        if len(result.bots) != 2:
            return
        a, b = pair = (result.bots[0], result.bots[1])
        sums = self.sums.setdefault(pair, {a: GroupedSums(), b: GroupedSums()})
        for name, tally in result.tally.bots.items():
            sums.setdefault(name, GroupedSums()).merge(tally.groups)
        self.first[pair] = min(self.first.get(pair, result.match_id), result.match_id)

    def table(self) -> dict[str, dict[str, Estimate]]:
        """bb/100 of the row bot against the column bot, with its error. Where a pair sat in both
        orders, the order first seen later in match_id order gives both cells (as it always has)."""
        table: dict[str, dict[str, Estimate]] = collections.defaultdict(dict)
        for pair in sorted(self.sums, key=self.first.__getitem__):
            a, b = pair
            for me, other in ((a, b), (b, a)):
                table[me][other] = self.sums[pair][me].bb_per_100(1)
        return {k: dict(sorted(v.items())) for k, v in sorted(table.items())}


class LeagueReport:
    """The league's results so far: ``add`` each finished match once, read ``data()`` (cached until
    the next ``add``) as often as wanted."""

    def __init__(
        self,
        config: LeagueConfig,
        total: int,
        compare: Comparer | None = None,
        *,
        sealing: dict[str, object] | None = None,
        cpu: str | None = None,
    ) -> None:
        """``total``: the league's matches; ``compare``: a compare event's answer (needed only if
        the league has one); ``sealing`` and ``cpu``: what the run says of how its bots are kept
        apart and of their CPU (``league.sealing``, ``sandbox.cpu_confinement``: not the report's
        to probe)."""
        self.config = config
        self.total = total
        self.compare = compare
        self.sealing = sealing
        self.cpu = cpu
        self.finished: list[MatchResult] = []  # in the order they were added
        self.cash = StandingSums()  # the overall standings: every match but freezeouts'
        self.ratings = RatingFold()  # the overall ratings: every match
        self.events = {spec.name: _Event(spec) for spec in config.events}
        self.pairs = _HeadToHead()
        self.faults: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
        self.forfeits: list[tuple[str, str]] = []  # sorted
        self.tails: dict[str, dict[str, str]] = {}
        self.replayed: dict[str, int] = {}
        self.cached: dict[str, Any] | None = None

    def add(self, result: MatchResult) -> None:
        """Fold in one finished match."""
        self.finished.append(result)
        event = self.events.get(event_of(result))
        if event is None or not isinstance(event.spec, Freezeout):
            self.cash.add(result)
        self.ratings.add(result)
        if event is not None:
            event.add(result)
        self.pairs.add(result)
        for name, reasons in result.faults.items():
            self.faults[name].update(reasons)
        for name in set(result.forfeited):
            bisect.insort(self.forfeits, (result.match_id, name))
        if result.log_tails:
            self.tails[result.match_id] = result.log_tails
        if result.attempt:
            self.replayed[result.match_id] = result.attempt
        self.cached = None

    def extend(self, results: Iterable[MatchResult]) -> None:
        """Fold in several finished matches."""
        for result in results:
            self.add(result)

    def overall(self) -> list[Standing]:
        """The standings over the league: bb/100 over cash events, OpenSkill rating over every match."""
        return self.cash.lines(ratings=self.ratings.ratings())

    def event_standings(self, name: str) -> list[Standing]:
        """One event's standings, ranked as ``ranking_rule`` says."""
        return self.events[name].standings()

    def _comparison(self, event: _Event) -> dict[str, object]:
        if event.comparison is None:
            assert self.compare is not None, "a league with a compare event reports it through a Comparer"
            event.comparison = self.compare(event.spec, sorted(event.results, key=lambda r: r.match_id))
        return event.comparison

    def data(self) -> dict[str, Any]:
        """The whole league's results as a JSON-ready dict (deterministic: no times, sorted)."""
        if self.cached is not None:
            return self.cached
        config, done, seed = self.config, len(self.finished), self.config.seed_text
        played = [e for e in self.events.values() if e.matches]
        pairs = self.pairs.table()
        self.cached = {
            "league": config.name,
            # The seed only once every match is over: until then, anyone who read it would know the deals.
            "seed": config.seed if done == self.total else None,
            "seed_sha256": None if seed is None else commitment(seed),
            "seed_warning": None if seed is None else guessable(seed),
            "matches": {"finished": done, "total": self.total},
            "ranking": overall_rule(config),
            "sealing": self.sealing,
            "standings": [s.as_json() for s in self.overall()],
            "events": {e.spec.name: [s.as_json() for s in e.standings()] for e in played},
            "event_rankings": {e.spec.name: ranking_rule(e.spec) for e in played},
            "head_to_head": {a: {b: round(e.mean, 3) for b, e in row.items()} for a, row in pairs.items()},
            "head_to_head_ci95": {
                a: {b: [round(x, 3) for x in e.ci95()] if e.n > 1 else None for b, e in row.items()}
                for a, row in pairs.items()
            },
            "comparisons": {e.spec.name: self._comparison(e) for e in played if isinstance(e.spec, Compare)},
            "failures": {name: dict(sorted(r.items())) for name, r in sorted(self.faults.items()) if r},
            "forfeits": list(self.forfeits),
            "log_tails": dict(sorted(self.tails.items())),
            "sandbox": {bot.name: bot.limits.sandbox for bot in config.bots if not bot.remote},
            "replayed": dict(sorted(self.replayed.items())),
            "cpu": self.cpu,
        }
        return self.cached


@dataclasses.dataclass
class Progress:
    """What the progress display needs after each finished match."""

    done: int
    total: int
    hands: int  # every hand played so far, those of a resumed run's journal included
    hands_per_s: float  # over the hands this run played
    eta_s: float
    report: LeagueReport  # every finished match so far, folded (``report.finished``: in the order they finished)
    result: MatchResult | None = None  # the match that just finished
    event_done: str | None = None  # the event that match completed, when it was the event's last
