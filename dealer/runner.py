"""Where matches are played: the one module that starts a dealer server and its matches for a
single match (``dealer match``), a comparison (``dealer compare``) and a league's executors. The
statistics (``dealer.compare``, ``dealer.paired``, ``dealer.stats``) and the league's planning
only describe what to play and read what was played."""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Callable, Sequence
from pathlib import Path

from dealer.compare import (
    AnyTest,
    Comparison,
    Settings,
    deal_sets_for,
    finish,
    looker,
    reported,
    sequential_test,
    summarize,
)
from dealer.config import GameConfig
from dealer.league import MatchJob
from dealer.match import Match, MatchBot, MatchPlan
from dealer.paired import PairedTally, Pairing
from dealer.records import HandRecord, MatchResult
from dealer.scheduler import compare_tables
from dealer.server import BotSession, DealerServer


async def play_match(
    plan: MatchPlan, entries: dict[str, MatchBot], listen: str, out: Path, *, stop_unstarted: bool
) -> MatchResult:
    """Play one match (``dealer match``) on a server of its own listening on ``listen``."""
    async with DealerServer(listen) as server:
        return await Match(plan, server, entries, out=out, base=Path.cwd(), stop_unstarted=stop_unstarted).run()


class ComparingMatch(Match):
    """A match whose hands are paired as they end (``PairedTally``, in ``result.paired``): with a
    sequential test, which looks at the sums at each close and stops the tables at its verdict;
    with ``keep`` (a league's match), keeping the sums at each look for the league to merge."""

    def __init__(self, *args, pairing: Pairing, test: AnyTest | None = None, keep: bool = False, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        sizes = collections.Counter(t.deal_set for t in self.plan.tables)
        self.paired = PairedTally(pairing, sizes, match_id=self.plan.match_id, look=looker(test), keep=keep)
        self.result.paired = self.paired

    def _record(self, record: HandRecord) -> None:
        super()._record(record)
        if self.stop:  # decided (or forfeited): the hands still finishing are not part of the answer
            return
        self.paired.add(record)
        if self.paired.stopped:
            self.stop = True

    async def run(self) -> MatchResult:
        """Play the match (see ``Match.run``), then close the pairing: what was never closed goes to ``rest``."""
        result = await super().run()
        if self.paired.keep:
            self.paired.finish()
        return result


async def play_comparison(
    new: MatchBot,
    old: MatchBot,
    field: Sequence[MatchBot],
    game: GameConfig,
    settings: Settings,
    *,
    max_hands: int,
    deal_sets: int = 1,
    seed: int | str | None = None,
    batch: int = 100,
    listen: str = "127.0.0.1:0",
    out: Path,
    base: Path | None = None,
    sealed: bool = True,
    stop_unstarted: bool = False,
) -> Comparison:
    """Play a comparison of two bots (bots named by their entries) and return its result.

    ``max_hands`` counts every hand at every table; they are spread over ``deal_sets`` deal sets
    played at once, each as a duplicate group of tables. Sequential tests are checked every
    ``batch`` paired samples and stop all tables at the first decision; only the samples the test
    saw are reported (so the same seed gives the same answer, whatever the timing). ``sealed``:
    tables sharing a deal set are played by different processes of a bot (``dealer.match``);
    ``stop_unstarted``: a bot that never starts stops it at once (``Comparison.result`` says who).
    """
    settings.check()
    names = [new.name, old.name, *(f.name for f in field)]
    if len(set(names)) != len(names):
        raise ValueError(f"bot names must be distinct: {names}")
    deal_sets = deal_sets_for(max_hands, deal_sets, [f.name for f in field])
    tables = compare_tables(new.name, old.name, [f.name for f in field], deal_sets)
    per_table = max(1, max_hands // len(tables))
    plan = MatchPlan(
        match_id="compare",
        tables=tables,
        game=game,
        hands=per_table,
        seed=seed,
        sealed=sealed,
        luck=True,
        strategies=(new.name, old.name),
    )
    test = sequential_test(settings) if settings.until_significant else None
    entries = {e.name: e for e in (new, old, *field)}
    pairing = Pairing.looking(new.name, old.name, settings.estimator, batch, len({t.deal_set for t in tables}))
    async with DealerServer(listen) as server:
        match = ComparingMatch(
            plan,
            server,
            entries,
            out=out,
            base=base or Path.cwd(),
            pairing=pairing,
            test=test,
            stop_unstarted=stop_unstarted,
        )
        result = await match.run()
    comparison = reported(
        summarize(finish(match.paired, test), new.name, old.name, settings, [f.name for f in field], test), [result]
    )
    comparison.result = result
    return comparison


def job_match(job: MatchJob, server: DealerServer, **options: object) -> Match:
    """The match to play ``job`` on ``server`` (``options``: ``Match``'s keywords)."""
    kwargs: dict = {"out": job.out, "base": job.base, **options}
    if job.pairing is None:
        return Match(job.plan, server, job.bots, **kwargs)
    return ComparingMatch(job.plan, server, job.bots, pairing=job.pairing, keep=True, **kwargs)


class LocalExecutor:
    """Plays matches in this process on one shared dealer server, ``jobs`` at a time."""

    def __init__(
        self,
        server: DealerServer,
        jobs: int,
        sessions: dict[str, BotSession] | None = None,
        on_hand: Callable[[str, str], None] | None = None,
    ) -> None:
        """``sessions``: remote bots' sessions by instance label, kept for the whole league; ``on_hand``
        sees every finished hand once it is safe to show (``Match``'s hook)."""
        self.server = server
        self.slots = asyncio.Semaphore(jobs)
        self.sessions = sessions or {}
        self.on_hand = on_hand

    async def run(self, job: MatchJob) -> MatchResult:
        """Wait for a free slot, then play the match."""
        async with self.slots:
            return await job_match(job, self.server, sessions=self.sessions, on_hand=self.on_hand).run()


def run_job(job: MatchJob, listen: str = "127.0.0.1:0") -> MatchResult:
    """Play one job from scratch with its own server: what a cluster worker calls."""

    async def play() -> MatchResult:
        async with DealerServer(listen) as server:
            return await job_match(job, server).run()

    return asyncio.run(play())
