"""The arena ladder's costs (issue 25): the scheduler's cost per match early and late, and throughput.

Scheduler cost: an arena of ``--teams`` teams (one ready, active version each) whose database
already holds ``--early`` and then ``--late`` applied ranked matches (written directly, with their
rating history, pairs and standings, as the ladder would have left them; not timed); then the
ladder itself picks, records, "plays" (an executor that returns a small seeded result at once, so
no bot runs) and applies ``--window`` more matches, and the wall time per match is printed for each,
with their ratio (a ladder that read all history per match would grow with it).

Throughput: ``--matches`` ranked matches of 2 x ``--hands`` hands among ``--bots`` teams running the
Python call bot (real processes, sealed duplicate): on the local executor (``jobs`` = 2) and on a
Dask LocalCluster of 1 and of 2 workers. Matches per second, and whether any bot faulted.

    python benchmarks/arena_ladder.py [--teams 200] [--early 1000] [--late 50000] [--window 300]
                                      [--matches 16] [--hands 10] [--bots 4] [--no-dask]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from pathlib import Path

from tabulate import tabulate

from dealer.arena.config import ArenaConfig, LadderSettings
from dealer.arena.ladder_loop import Ladder
from dealer.arena.model import BuildState
from dealer.arena.store.ladder import LadderStore
from dealer.arena.store.schema import match_versions, matches, migrate, pairs, rating_history, standings, team_ladder
from dealer.arena.store.teams import Repository, open_repository
from dealer.connect.server import DealerServer
from dealer.league.jobs import Executor, MatchJob
from dealer.league.runner import LocalExecutor
from dealer.runtime import tune_gc
from dealer.stats.records import HandRecord, MatchResult, result_of
from dealer.stats.stats import GroupedSums

ROOT = Path(__file__).resolve().parent.parent
CALL_BOT = ROOT / "sample_bots" / "python" / "call_bot.py"


def fake_result(job: MatchJob) -> MatchResult:
    """A match's result without playing it: four hands of seeded random chips."""
    rng = random.Random(job.plan.match_id)
    a, b = job.plan.tables[0].seats
    hands = []
    for hand in range(4):
        chips = rng.randrange(-10, 11) * 100
        hands.append(HandRecord(1, job.plan.tables[0].deal_set, hand, 100, {a: chips, b: -chips}))
    return result_of(job.plan.match_id, (a, b), hands)


class FakeExecutor:
    """Plays nothing: each job's result comes back at once."""

    async def run(self, job: MatchJob) -> MatchResult:
        """The job's fake result."""
        return fake_result(job)


async def add_teams(repository: Repository, count: int, run: tuple[str, ...]) -> list[tuple[int, int]]:
    """``count`` teams with one ready, active version each: (team id, version id)."""
    found = []
    for k in range(count):
        team, _ = await repository.add_team(f"team{k:03d}")
        version, _ = await repository.add_version(
            team, digest=f"{k + 1:064x}", files=1, size=1, protocol="grpc", run=run, build=None
        )
        await repository.set_state(version, BuildState.READY)
        await repository.activate(team, 1)
        found.append((team.id, version.id))
    return found


async def prefill(repository: Repository, entrants: list[tuple[int, int]], count: int) -> None:
    """``count`` applied ranked matches written directly, with what applying them leaves."""
    rng = random.Random(count)
    now = datetime.now(UTC)
    games = dict.fromkeys((v for _, v in entrants), 0)
    deal = {t: 0 for t, _ in entrants}
    groups = GroupedSums()
    groups.add(1.0, 2)
    async with repository.engine.begin() as connection:
        for start in range(0, count, 2000):
            rows, seats, history = [], [], []
            for seq in range(start, min(count, start + 2000)):
                (ta, va), (tb, vb) = rng.sample(entrants, 2)
                d = max(deal[ta], deal[tb])
                deal[ta] = deal[tb] = d + 1
                games[va] += 1
                games[vb] += 1
                rows.append(
                    {
                        "id": seq + 1,
                        "seq": seq,
                        "state": "applied",
                        "deal": d,
                        "attempt": 0,
                        "created_at": now,
                        "finished_at": now,
                        "result": {"format": 3},
                    }
                )
                seats += [
                    {"match_id": seq + 1, "seat": 0, "version_id": va, "team_id": ta},
                    {"match_id": seq + 1, "seat": 1, "version_id": vb, "team_id": tb},
                ]
                history += [
                    {"version_id": va, "seq": seq, "mu": 25.0, "sigma": 8.0},
                    {"version_id": vb, "seq": seq, "mu": 25.0, "sigma": 8.0},
                ]
            await connection.execute(matches.insert(), rows)
            await connection.execute(match_versions.insert(), seats)
            await connection.execute(rating_history.insert(), history)
        await connection.execute(
            standings.insert(),
            [
                {"version_id": v, "mu": rng.gauss(25, 3), "sigma": 4.0, "games": g, "faulty": 0, "paused": None}
                for v, g in games.items()
            ],
        )
        await connection.execute(
            team_ladder.insert(), [{"team_id": t, "next_deal": d, "accepts_scrimmages": True} for t, d in deal.items()]
        )
        pair_rows = {(va, vb) for (_, va) in entrants[:50] for (_, vb) in entrants[:50] if va != vb}
        await connection.execute(
            pairs.insert(), [{"version_id": a, "opponent_id": b, "groups": groups.as_json()} for a, b in pair_rows]
        )


async def per_match(folder: Path, teams: int, played: int, window: int) -> float:
    """Wall seconds per ranked match the ladder picks, records and applies, ``played`` already applied."""
    database = f"sqlite+aiosqlite:///{folder / f'arena-{played}.db'}"
    await migrate(database)
    settings = LadderSettings(jobs=4, hands=4, house=False, seed="benchmark-seed-0123456789")
    config = ArenaConfig(storage=folder / f"storage-{played}", database=database, ladder=settings)
    async with open_repository(database) as repository:
        entrants = await add_teams(repository, teams, ("bot",))
        await prefill(repository, entrants, played)
        store = LadderStore(repository)
        ladder = Ladder(store, config)
        task = asyncio.create_task(ladder.run(FakeExecutor(), settings.seed or ""))
        await until(lambda: ladder.order.next_seq >= played + 20, task)  # warmed up
        start, first = time.perf_counter(), ladder.order.next_seq
        await until(lambda: ladder.order.next_seq >= first + window, task)
        seconds, done = time.perf_counter() - start, ladder.order.next_seq
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    return seconds / (done - first)


async def until(done: Callable[[], bool], task: asyncio.Task[None]) -> None:
    """Wait until ``done()`` (the ladder's own count, read in memory: a poll of the database would
    be timed too), raising what the ladder's task raised if it ended."""
    while not done():
        await asyncio.sleep(0.005)
        if task.done():
            task.result()


@contextlib.asynccontextmanager
async def executor(kind: str, storage: Path, jobs: int) -> AsyncIterator[Executor]:
    """The local executor, or a Dask LocalCluster of ``kind``'s worker count."""
    if kind == "local":
        async with DealerServer("127.0.0.1:0") as server:
            yield LocalExecutor(server, jobs)
        return
    from dealer.league.cluster import dask_executor

    async with dask_executor({}, storage, storage / "matches", workers=int(kind)) as dask:
        yield dask


async def throughput(folder: Path, kind: str, matches_wanted: int, hands: int, bots: int) -> tuple[float, int]:
    """Ranked matches per second of real call bots on ``kind`` ("local", "1", "2"), and faults seen."""
    database = f"sqlite+aiosqlite:///{folder / f'throughput-{kind}.db'}"
    await migrate(database)
    jobs = 2 if kind == "local" else int(kind)
    settings = LadderSettings(jobs=jobs, hands=hands, house=False, seed="throughput-seed-0123456789")
    storage = folder / f"throughput-{kind}"
    config = ArenaConfig(storage=storage, database=database, ladder=settings)
    async with open_repository(database) as repository:
        await add_teams(repository, bots, (sys.executable, str(CALL_BOT)))
        store = LadderStore(repository)
        async with executor(kind, storage, jobs) as run_on:
            ladder = Ladder(store, config)
            task = asyncio.create_task(ladder.run(run_on, settings.seed or ""))
            await until(lambda: ladder.order.next_seq >= 1, task)
            start, first = time.perf_counter(), ladder.order.next_seq
            await until(lambda: ladder.order.next_seq >= first + matches_wanted, task)
            seconds, done = time.perf_counter() - start, ladder.order.next_seq
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        faults = 0
        for _, standing in await store.leaderboard():
            faults += standing.faulty
    return (done - first) / seconds, faults


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        early = await per_match(folder, args.teams, args.early, args.window)
        late = await per_match(folder, args.teams, args.late, args.window)
        print(
            tabulate(
                [
                    [f"{args.early:,} played", f"{early * 1000:.2f}"],
                    [f"{args.late:,} played", f"{late * 1000:.2f}"],
                    ["ratio late / early", f"{late / early:.2f}"],
                ],
                headers=[f"ladder, {args.teams} teams, SQLite: ms per ranked match (window {args.window})", "value"],
            )
        )
        rows = []
        for kind in ["local", *([] if args.no_dask else ["1", "2"])]:
            rate, faults = await throughput(folder, kind, args.matches, args.hands, args.bots)
            label = "local executor, jobs 2" if kind == "local" else f"Dask LocalCluster, {kind} worker(s)"
            rows.append([label, f"{rate:.2f}", faults])
        print()
        print(
            tabulate(
                rows,
                headers=[f"{args.matches} matches of 2 x {args.hands} hands, call bots", "matches/s", "faulty matches"],
            )
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--teams", type=int, default=200)
    parser.add_argument("--early", type=int, default=1000)
    parser.add_argument("--late", type=int, default=50_000)
    parser.add_argument("--window", type=int, default=300)
    parser.add_argument("--matches", type=int, default=16)
    parser.add_argument("--hands", type=int, default=10)
    parser.add_argument("--bots", type=int, default=4)
    parser.add_argument("--no-dask", action="store_true")
    tune_gc()
    asyncio.run(main(parser.parse_args()))
