"""Where matches are played: the one module that starts a dealer server and its matches for a
single match (``dealer match``), a comparison (``dealer compare``) and a league's executors. The
statistics (``dealer.stats.compare``, ``dealer.stats.paired``, ``dealer.stats.stats``) and the league's planning
only describe what to play and read what was played."""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dealer.config.choices import Deals, Estimator
from dealer.config.league_file import CompareSettings as Settings
from dealer.config.league_file import GameConfig
from dealer.connect.server import BotSession, DealerServer
from dealer.engine.scheduler import Seating, compare_tables
from dealer.isolation.processes import isolation
from dealer.league.jobs import MatchJob
from dealer.league.match import Match, MatchBot, MatchPlan
from dealer.league.seeds import commitment, guessable
from dealer.league.workers import Looks, Part, Pool, Reporter, Stopped, merged, run_parts, send, split, stopping
from dealer.stats.compare import (
    AnyTest,
    Comparison,
    deal_sets_for,
    finish,
    look_every,
    looker,
    reported,
    sequential_test,
    summarize,
)
from dealer.stats.paired import TWIN, PairedTally, Pairing, group_of
from dealer.stats.records import HandRecord, MatchResult
from dealer.stats.standings import standings


def seed_fields(seed: str) -> dict[str, object]:
    """What the results say about the seed once the event is over: the seed, its commitment, a warning."""
    return {"seed": seed, "seed_sha256": commitment(seed), "seed_warning": guessable(seed)}


def match_record(
    plan: MatchPlan, result: MatchResult, entries: dict[str, MatchBot], *, duplicate: bool
) -> dict[str, object]:
    """``dealer match``'s results.json: the match, its seed, its standings and how its bots were kept apart."""
    assert isinstance(plan.seed, str)  # dealer match always deals from a seed's text
    return {
        "match": plan.match_id,
        "hands": result.hands,
        **seed_fields(plan.seed),
        "variant": plan.game.variant,
        "duplicate": duplicate,
        "sealed": plan.sealed,
        "standings": [s.as_json() for s in standings([result])],
        "forfeited": result.forfeited,
        "log_tails": result.log_tails,
        "sandbox": {name: e.limits.sandbox for name, e in entries.items()},
        "isolation": {name: isolation(e.protocol, e.limits, sealed=plan.sealed) for name, e in entries.items()},
    }


def comparison_record(
    comparison: Comparison,
    commands: Sequence[str],
    entries: Sequence[MatchBot],
    *,
    seed: str,
    sealed: bool,
    reference: tuple[str, MatchBot] | None = None,
) -> dict[str, object]:
    """``dealer compare``'s compare.json: the comparison with its bots' command lines (new, old, then
    the field's, and the baseline's ``reference`` bot's), its seed, and how its bots were kept apart."""
    new, old, *field = commands
    return {
        **comparison.as_json(),
        "new": new,
        "old": old,
        "field": field,
        **seed_fields(seed),
        "sealed": sealed,
        "hands_played": comparison.hands_played,
        "sandbox": {e.name: e.limits.sandbox for e in entries},
        "isolation": {e.name: isolation(e.protocol, e.limits, sealed=sealed) for e in entries},
        "baseline_bot": None if reference is None else reference[0],
    }


async def play_match(
    plan: MatchPlan,
    entries: dict[str, MatchBot],
    listen: str,
    out: Path,
    *,
    stop_unstarted: bool,
    on_hands: Callable[[int], None] | None = None,
    workers: int = 1,
) -> MatchResult:
    """Play one match (``dealer match``) on a server of its own listening on ``listen``, its deal sets
    spread over up to ``workers`` processes (``dealer.league.workers``: the same result for any number);
    ``on_hands`` hears how many hands finished, now and then (the progress line)."""
    plans = split(plan, workers)
    if len(plans) > 1:
        parts = [Part(k, p, entries, out, Path.cwd(), _any_port(listen), stop_unstarted) for k, p in enumerate(plans)]
        return merged(await run_parts(play_part, parts, on_hands=on_hands))
    async with DealerServer(listen) as server:
        count = None if on_hands is None else (lambda _: on_hands(1))
        options: dict[str, Any] = {"stop_unstarted": stop_unstarted, "on_record": count}
        return await Match(plan, server, entries, out=out, base=Path.cwd(), **options).run()


def _any_port(listen: str) -> str:
    """The address of a part's server: ``listen``, which must leave the port to the system (each part
    has a server of its own); ValueError otherwise."""
    if not listen.endswith(":0"):
        raise ValueError(f"a match spread over worker processes listens on port 0, not {listen}: give --workers 1")
    return listen


def play_part(part: Part) -> MatchResult:
    """Play a part of a match in a worker process (``dealer.league.workers.run_parts``): on a server of its
    own, stopped with every other part (the shared event), telling the parent its hands and, for a
    comparison, each stretch of paired hands it closes."""
    return asyncio.run(_play_part(part))


async def _play_part(part: Part) -> MatchResult:
    options: dict[str, Any] = {"out": part.out, "base": part.base, "stop_unstarted": part.stop_unstarted}
    options.update(stop=Stopped(), on_halt=stopping().set)
    report = Reporter(part.index)
    async with DealerServer(part.listen) as server:
        if part.pairing is None:
            result = await Match(part.plan, server, part.bots, on_record=report, **options).run()
        else:
            match, report.paired = comparing_match(
                part.plan, server, part.bots, pairing=part.pairing, keep=True, on_record=report, **options
            )
            result = await play_paired(match, report.paired)
    report.flush()
    return result


def comparing_match(
    plan: MatchPlan,
    server: DealerServer,
    bots: Mapping[str, MatchBot],
    *,
    pairing: Pairing,
    test: AnyTest | None = None,
    keep: bool = False,
    on_record: Callable[[HandRecord, PairedTally], None] | None = None,
    stop: Callable[[], bool] | None = None,
    **options: Any,
) -> tuple[Match, PairedTally]:
    """A match whose hands are paired as they end (the ``PairedTally``, also in ``result.paired``):
    with a sequential test, which looks at the sums at each close and stops the tables at its
    verdict; with ``keep`` (a league's match), keeping the sums at each look for the league to merge
    (``play_paired`` closes them); ``on_record`` sees each hand's record and the running pairing
    after it is paired (the progress line); ``stop``: a stop from elsewhere too (the match's other
    parts, ``dealer.league.workers``). ``options``: ``Match``'s keywords."""
    sizes = collections.Counter(t.deal_set for t in plan.tables)
    paired = PairedTally(pairing, sizes, match_id=plan.match_id, look=looker(test), keep=keep)

    def add(record: HandRecord) -> None:
        paired.add(record)
        if on_record is not None:
            on_record(record, paired)

    def stopped() -> bool:
        return paired.stopped or (stop is not None and stop())

    match = Match(plan, server, bots, on_record=add, stop=stopped, **options)
    match.result.paired = paired
    return match, paired


async def play_paired(match: Match, paired: PairedTally) -> MatchResult:
    """Play a comparing match, then close its pairing: what was never closed goes to ``rest``."""
    result = await match.run()
    if paired.keep:
        paired.finish()
    return result


@dataclass(frozen=True)
class Dealing:
    """How a comparison deals: ``max_hands`` hands in all (every table counted), spread over
    ``deal_sets`` deal sets played at once (each a duplicate group of tables), from ``seed``; its
    sequential test looks every ``batch`` paired samples. ``sealed``: tables sharing a deal set are
    played by different processes of a bot (``dealer.league.match``); ``deals``: how the cards are drawn."""

    max_hands: int
    deal_sets: int = 1
    seed: int | str | None = None
    batch: int | None = None  # None: ``compare.BATCH`` (``compare.look_every``)
    sealed: bool = True
    deals: str = Deals.PLAIN  # or tilted: the board tilted, each deal weighted (dealer.stats.tilted_deals)


def check_baseline_deals(deals: str) -> None:
    """The baseline's twin deals are the shuffle's, so its deals must be too: ValueError for tilted ones
    (``dealer.stats.tilted_deals``), whose twin would not be tilted alike."""
    if deals != Deals.PLAIN:
        raise ValueError(
            "--deals tilted: the baseline's twin deals would not be tilted alike; choose another --estimator"
        )


def _comparison_plan(
    names: Sequence[str], game: GameConfig, dealing: Dealing, *, features: bool, reference: str | None = None
) -> MatchPlan:
    """The one match of a comparison of ``names`` (new, old, then the field), with the tables of the
    ``reference`` bot of the baseline estimator if one is named (``baseline_tables``); ValueError for
    names that are not distinct, hands too few for two paired deals, or a reference on tilted deals."""
    if len(set(names)) != len(names) or reference in names:
        raise ValueError(f"bot names must be distinct: {[*names, *([reference] if reference else [])]}")
    if reference is not None:
        check_baseline_deals(dealing.deals)
    new, old, *field = names
    deal_sets = deal_sets_for(dealing.max_hands, dealing.deal_sets, field, baseline=reference is not None)
    tables = compare_tables(new, old, field, deal_sets)
    if reference is not None:
        tables = baseline_tables(tables, new, reference)
    return MatchPlan(
        match_id="compare",
        tables=tables,
        game=game,
        hands=max(1, dealing.max_hands // len(tables)),
        seed=dealing.seed,
        sealed=dealing.sealed,
        luck=True,
        strategies=(new, old),
        features=features,
        deals=dealing.deals,
    )


def baseline_tables(tables: Sequence[Seating], new: str, reference: str) -> tuple[Seating, ...]:
    """A comparison's tables with the baseline's (``dealer.stats.paired``): after each deal set's own,
    every table where ``new`` sits again with ``reference`` in its seat (the same seat against the same
    opponent, the same cards), then once more on the deal set's twin (fresh cards: what the reference's
    result is measured against, so that the control has mean zero). A deal set's tables stay side by side."""
    out: list[Seating] = []
    by_set: dict[str, list[Seating]] = {}
    for table in tables:
        by_set.setdefault(table.deal_set, []).append(table)
    for deal_set, own in by_set.items():
        swapped = [
            (tuple(reference if name == new else name for name in t.seats), t.rotation) for t in own if new in t.seats
        ]
        out += own
        out += [Seating(seats, deal_set, r) for seats, r in swapped]
        out += [Seating(seats, deal_set + TWIN, r) for seats, r in swapped]
    return tuple(out)


async def play_comparison(
    new: MatchBot,
    old: MatchBot,
    field: Sequence[MatchBot],
    game: GameConfig,
    settings: Settings,
    dealing: Dealing,
    *,
    listen: str = "127.0.0.1:0",
    out: Path,
    base: Path | None = None,
    stop_unstarted: bool = False,
    on_hands: Callable[[int, PairedTally], None] | None = None,
    workers: int = 1,
    reference: MatchBot | None = None,
) -> Comparison:
    """Play a comparison of two bots (bots named by their entries) as ``dealing`` says and return its
    result, its deal sets spread over up to ``workers`` processes (``dealer.league.workers``).

    Sequential tests stop all tables at their first decision; only the samples the test saw are
    reported (so the same seed gives the same answer, whatever the timing and the workers). ``stop_unstarted``: a
    bot that never starts stops it at once (``Comparison.result`` says who). ``on_hands`` hears how
    many hands finished, now and then, and the pairing's running sums (the progress line). ``reference``:
    the baseline estimator's reference bot, which then plays its tables too (``baseline_tables``)."""
    settings.check()
    entries = {e.name: e for e in (new, old, *field, *([reference] if reference else []))}
    names = [new.name, old.name, *(f.name for f in field)]
    ref = None if reference is None else reference.name
    plan = _comparison_plan(names, game, dealing, features=settings.estimator == Estimator.LEARNED, reference=ref)
    test = sequential_test(settings) if settings.until_significant else None
    deal_sets = len({group_of(t.deal_set) for t in plan.tables})
    every = look_every(dealing.batch)
    pairing = Pairing.looking(new.name, old.name, settings.estimator, every, deal_sets, ref)
    base = base or Path.cwd()
    plans = split(plan, workers)
    if len(plans) > 1:
        looks = Looks(PairedTally(pairing, {}, look=looker(test)), len(plans))
        address = _any_port(listen)
        parts = [Part(k, p, entries, out, base, address, stop_unstarted, pairing) for k, p in enumerate(plans)]
        count = None if on_hands is None else (lambda hands: on_hands(hands, looks.tally))
        results = await run_parts(play_part, parts, on_hands=count, looks=looks)
        looks.leave(results)
        whole = merged(results)
        sums = finish(looks.tally, test)
        comparison = reported(summarize(sums, new.name, old.name, settings, [f.name for f in field], test), [whole])
        comparison.result, comparison.dealing = whole, dealing.deals
        return comparison
    async with DealerServer(listen) as server:
        options: dict[str, Any] = {"out": out, "base": base, "stop_unstarted": stop_unstarted}
        count_one = None if on_hands is None else (lambda _, paired: on_hands(1, paired))
        match, paired = comparing_match(
            plan, server, entries, pairing=pairing, test=test, on_record=count_one, **options
        )
        result = await play_paired(match, paired)
    sums = finish(paired, test)
    comparison = reported(summarize(sums, new.name, old.name, settings, [f.name for f in field], test), [result])
    comparison.result, comparison.dealing = result, dealing.deals
    return comparison


async def play_job(job: MatchJob, server: DealerServer, **options: Any) -> MatchResult:
    """Play ``job`` on ``server`` (``options``: ``Match``'s keywords); a compare event's match pairs
    its hands and keeps its sums at each look for the league's comparison."""
    kwargs: dict[str, Any] = {"out": job.out, "base": job.base, **options}
    if job.pairing is None:
        return await Match(job.plan, server, job.bots, **kwargs).run()
    return await play_paired(*comparing_match(job.plan, server, job.bots, pairing=job.pairing, keep=True, **kwargs))


class LocalExecutor:
    """Plays matches in this process on one shared dealer server, ``jobs`` at a time."""

    def __init__(
        self,
        server: DealerServer,
        jobs: int,
        sessions: dict[str, BotSession] | None = None,
        on_hand: Callable[[str, str], None] | None = None,
        on_start: Callable[[str], None] | None = None,
    ) -> None:
        """``sessions``: remote bots' sessions by instance label, kept for the whole league; ``on_hand``
        sees every finished hand once it is safe to show (``Match``'s hook); ``on_start`` each match's
        id as it gets its slot (the live page's "playing now")."""
        self.server = server
        self.slots = asyncio.Semaphore(jobs)
        self.sessions = sessions or {}
        self.on_hand = on_hand
        self.on_start = on_start

    async def run(self, job: MatchJob) -> MatchResult:
        """Wait for a free slot, then play the match."""
        async with self.slots:
            if self.on_start is not None:
                self.on_start(job.plan.match_id)
            return await play_job(job, self.server, sessions=self.sessions, on_hand=self.on_hand)


def run_job(job: MatchJob, listen: str = "127.0.0.1:0", **options: Any) -> MatchResult:
    """Play one job from scratch with its own server: what a cluster worker calls (``options``:
    ``Match``'s keywords)."""

    async def play() -> MatchResult:
        async with DealerServer(listen) as server:
            return await play_job(job, server, **options)

    return asyncio.run(play())


def run_pooled_job(job: MatchJob) -> MatchResult:
    """Play a league's match in a worker process of a ``Pool``: stopped when the league stops."""
    return run_job(job, stop=Stopped())


def run_pooled_job_shown(job: MatchJob) -> MatchResult:
    """``run_pooled_job``, sending each hand the live page may show (``Match``'s ``on_hand``) to the parent."""
    return run_job(job, stop=Stopped(), on_hand=lambda match_id, text: send(("hand", match_id, text)))


class PoolExecutor:
    """Plays a league's matches in the worker processes of a ``Pool``, one whole match at a time in
    each (a league's match is one duplicate group, one deal set: it is never parted)."""

    def __init__(self, pool: Pool, *, hands: bool = False, on_start: Callable[[str], None] | None = None) -> None:
        """``hands``: the workers send every hand the live page may show (``Pool.on_message``);
        ``on_start`` hears each match's id as a worker takes it."""
        self.pool = pool
        self.slots = asyncio.Semaphore(pool.processes)
        self.play = run_pooled_job_shown if hands else run_pooled_job
        self.on_start = on_start

    async def run(self, job: MatchJob) -> MatchResult:
        """Wait for a free worker, then play the match there."""
        async with self.slots:
            if self.on_start is not None:
                self.on_start(job.plan.match_id)
            return await self.pool.run(self.play, job, f"match {job.plan.match_id}")
