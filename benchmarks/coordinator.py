"""The coordinator's time per finished match, early and late in a long league (issue 23).

A league of in-process fake matches: no bots and no processes, an executor that returns a small
``MatchResult`` at once (a few hands of random chips, sometimes a fault), so what is timed is the
league's finish path alone: journal commit, report, results.json and standings.txt, progress.
The league is one 3-max round-robin of ``--bots`` bots (the costlier kind: each match is rated
by OpenSkill in its event and overall), long enough to reach match ``--late``; one event, so
that the early and the late matches are alike. It runs twice: from the start, timing the matches
around match ``--early``; and resumed from a journal that already holds the matches before
``--late`` (committed directly, not timed), timing the matches around it. Prints the median
time per match in each window and their ratio (a coordinator that recomputes the report after
every match grows linearly per match: quadratic over the league).

    python benchmarks/coordinator.py [--early 100] [--late 10000] [--window 100] [--jobs 4]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from dealer.config.league_file import LeagueConfig, parse_league
from dealer.league.jobs import MatchJob
from dealer.league.run import Journal, build_jobs, fingerprint, run_league
from dealer.stats.records import HandRecord, MatchResult, result_of


def league(out: Path, bots: int, meetings: int) -> LeagueConfig:
    """The fake league: launchable-looking bots that are never launched."""
    names = [f"bot{k}" for k in range(bots)]
    listed = "".join(f"  - {{name: {n}, command: [{sys.executable}, -c, pass]}}\n" for n in names)
    events = (
        "  - {name: three-max, format: round-robin, table_size: 3, hands: 4, duplicate: false, "
        f"meetings: {meetings}}}\n"
    )
    return parse_league(f"name: coordinator\nseed: 7\nout: {out}\nbots:\n{listed}events:\n{events}")


def fake_result(job: MatchJob) -> MatchResult:
    """A match's result without playing it: four hands of seeded random chips, a fault now and then."""
    rng = random.Random(job.plan.match_id)
    seats = job.plan.tables[0].seats
    hands = []
    for hand in range(4):
        net = {name: rng.randrange(-10, 11) * 100 for name in seats[1:]}
        net[seats[0]] = -sum(net.values())
        hands.append(HandRecord(0, job.plan.tables[0].deal_set, hand, 100, net))
    faults = {seats[0]: {"timeout": 1}} if rng.random() < 0.05 else {}
    return result_of(job.plan.match_id, tuple(seats), hands, faults=faults)


class TimedError(Exception):
    """Raised from the progress callback once the window is timed: it ends the league there."""


class FakeExecutor:
    """Plays nothing: each job's result comes back at once."""

    async def run(self, job: MatchJob) -> MatchResult:
        """The job's fake result."""
        return fake_result(job)


def per_match(config: LeagueConfig, around: int, window: int, jobs: list[MatchJob]) -> float:
    """Median seconds between finished matches over ``window`` matches from ``around`` on, the
    journal already holding the first ``around - window // 2`` matches."""
    first = max(around - window // 2, 0)
    journal = Journal(config.out / "journal.sqlite", fingerprint(config))
    executor = FakeExecutor()
    for job in jobs[:first]:
        journal.commit(job.event, fake_result(job))
    journal.close()
    stamps: list[float] = []

    def progress(update: object) -> None:
        stamps.append(time.perf_counter())
        if len(stamps) > window:
            raise TimedError

    try:
        asyncio.run(run_league(config, executor, resume=True, on_progress=progress))
    except TimedError:
        pass
    return statistics.median(b - a for a, b in itertools.pairwise(stamps))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--early", type=int, default=100)
    parser.add_argument("--late", type=int, default=10_000)
    parser.add_argument("--window", type=int, default=100)
    parser.add_argument("--bots", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        meetings, target = 1, args.late + args.window
        while len(jobs := build_jobs(league(Path(tmp) / "probe", args.bots, meetings))) < target:
            meetings = meetings * target // len(jobs) + 1
        times = {}
        for name, around in (("early", args.early), ("late", args.late)):
            config = league(Path(tmp) / name, args.bots, meetings)
            jobs = build_jobs(config)
            times[name] = per_match(config, around, args.window, jobs)
        print(f"league: {len(jobs)} fake matches ({args.bots} bots, a 3-max round-robin)")
        print(f"per finished match at match {args.early}: {times['early'] * 1e3:.3f} ms")
        print(f"per finished match at match {args.late}: {times['late'] * 1e3:.3f} ms")
        print(f"ratio: {times['late'] / times['early']:.2f}x")


if __name__ == "__main__":
    main()
