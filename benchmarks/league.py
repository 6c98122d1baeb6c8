"""League throughput by executor, and what planning a 200-bot league costs the coordinator.

Plays one small league (``--bots`` call bots, heads-up duplicate round-robin, ``--hands`` hands
per table, so mostly steady play) with the local executor (``jobs`` matches at once on one
dealer), then with Dask at 1 and 2 workers (a LocalCluster, one single-thread worker process
each), ``--repeats`` times each; prints league hands/s (from the first match submitted to the
last result committed: bot start-ups included, the cluster's own start-up shown apart) with
medians and the ratio to the local executor. Then plans a 200-bot league (a heads-up duplicate
round-robin: 19,900 pairings, 39,800 tables; and a 6-max duplicate round-robin) and prints the
wall and CPU time of the scheduler and of ``build_jobs`` (CPU time: what a loaded machine does
not inflate), their peak memory (tracemalloc), and the pickled size of the jobs (what the
coordinator hands to Dask).

    python benchmarks/league.py [--bots 4] [--hands 400] [--jobs 2] [--repeats 3]

With ``--pool-jobs 1,16`` it plays instead the league once per ``jobs`` count in that many worker
processes, as ``dealer run`` does by default, and prints each count's time and its speed-up over
the first (issue 32: ``--bots 8 --hands 400 --pool-jobs 1,16`` on 16 cores, at least 8x).
"""

from __future__ import annotations

import argparse
import asyncio
import pickle
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from tabulate import tabulate

from dealer.config.league_file import LeagueConfig, parse_league
from dealer.connect.server import DealerServer
from dealer.league.cluster import dask_executor
from dealer.league.jobs import MatchJob
from dealer.league.run import build_jobs, run_league
from dealer.league.runner import LocalExecutor, PoolExecutor
from dealer.league.workers import Pool
from dealer.runtime import tune_gc

ROOT = Path(__file__).resolve().parent.parent
BOT = ROOT / "sample_bots" / "python" / "call_bot.py"


def league(out: Path, bots: int, hands: int, jobs: int) -> LeagueConfig:
    """Heads-up duplicate round-robin of call bots (they answer at once: the dealer is the work)."""
    lines = "\n".join(f"  - {{name: c{i}, command: {sys.executable} {BOT}}}" for i in range(bots))
    return parse_league(f"""\
name: bench
seed: 1
jobs: {jobs}
out: {out}
bots:
{lines}
game: {{time: {{per_action_ms: 5000, bank_ms: 0, startup_ms: 30000}}}}
events:
  - {{name: hu, format: round-robin, table_size: 2, hands: {hands}, duplicate: true}}
""")


async def local_run(config: LeagueConfig) -> tuple[float, float, int]:
    """(start-up s, league s, hands) with the local executor."""
    async with DealerServer("127.0.0.1:0") as server:
        started = time.perf_counter()
        results = await run_league(config, LocalExecutor(server, config.jobs))
        return 0.0, time.perf_counter() - started, sum(r.hands for r in results)


def dask_run(workers: int) -> Callable[[LeagueConfig], object]:
    async def run(config: LeagueConfig) -> tuple[float, float, int]:
        """(cluster start-up and checks s, league s, hands) on a LocalCluster of ``workers``."""
        begun = time.perf_counter()
        commands = {bot.name: bot.command for bot in config.bots}
        async with dask_executor(commands, config.folder, config.out, workers=workers) as executor:
            started = time.perf_counter()
            results = await run_league(config, executor)
            return started - begun, time.perf_counter() - started, sum(r.hands for r in results)

    return run


def pool_run(processes: int) -> Callable[[LeagueConfig], object]:
    async def run(config: LeagueConfig) -> tuple[float, float, int]:
        """(0, league s, hands) on ``processes`` worker processes, as ``dealer run`` plays ``jobs``
        (their start is in the league's time: a worker starts as it takes its first match)."""
        started = time.perf_counter()
        async with Pool(processes) as pool:
            results = await run_league(config, PoolExecutor(pool))
        faulted = [r.match_id for r in results if any(r.faults.values())]
        if faulted:  # a bot that failed makes a league fast: no figure then
            raise SystemExit(f"refused: a bot faulted in {', '.join(faulted)}")
        return 0.0, time.perf_counter() - started, sum(r.hands for r in results)

    return run


def pool_scaling(args: argparse.Namespace) -> None:
    """The league with ``jobs: J`` for each J of ``--pool-jobs``, in J worker processes (``dealer
    run``'s default), alternated over the repeats; seconds, hands/s and the ratio to the first J."""
    counts = [int(j) for j in args.pool_jobs.split(",")]
    seconds: dict[int, list[float]] = {j: [] for j in counts}
    with tempfile.TemporaryDirectory(prefix="bench-league-pool-") as tmp:
        for k in range(args.repeats):
            for jobs in counts if k % 2 == 0 else counts[::-1]:
                config = league(Path(tmp) / f"pool{jobs}-{k}", args.bots, args.hands, jobs)
                _, took, hands = asyncio.run(pool_run(jobs)(config))  # type: ignore[arg-type]
                seconds[jobs].append(took)
    base = statistics.median(seconds[counts[0]])
    matches = args.bots * (args.bots - 1) // 2
    print(
        f"league: {args.bots} call bots, {matches} heads-up duplicate matches of 2 x {args.hands} hands, "
        "in worker processes"
    )
    rows = [
        [
            f"jobs: {jobs}",
            " ".join(f"{s:.1f}" for s in seconds[jobs]),
            f"{hands / statistics.median(seconds[jobs]):,.0f}",
            f"{base / statistics.median(seconds[jobs]):.2f}x",
        ]
        for jobs in counts
    ]
    print(
        tabulate(
            rows,
            headers=["jobs", "league s per run", "hands/s (median)", f"vs jobs: {counts[0]}"],
            disable_numparse=True,
        )
    )


def throughput(args: argparse.Namespace) -> None:
    runs = [("local", local_run), ("dask, 1 worker", dask_run(1)), ("dask, 2 workers", dask_run(2))]
    rows, medians = [], {}
    with tempfile.TemporaryDirectory(prefix="bench-league-") as tmp:
        for label, run in runs:
            rates, startups = [], []
            for k in range(args.repeats):
                config = league(Path(tmp) / f"{label.replace(' ', '')}-{k}", args.bots, args.hands, args.jobs)
                startup, seconds, hands = asyncio.run(run(config))  # type: ignore[arg-type]
                rates.append(hands / seconds)
                startups.append(startup)
            medians[label] = statistics.median(rates)
            rows.append(
                [
                    label,
                    hands,
                    " ".join(f"{r:,.0f}" for r in rates),
                    f"{medians[label]:,.0f}",
                    f"{medians[label] / medians['local']:.2f}x",
                    f"{statistics.median(startups):.1f}",
                ]
            )
    matches = args.bots * (args.bots - 1) // 2
    print(
        f"league: {args.bots} call bots, {matches} heads-up duplicate matches of 2 x {args.hands} hands; "
        f"local executor with jobs={args.jobs}; {args.repeats} runs each"
    )
    print(
        tabulate(
            rows,
            headers=["executor", "hands", "hands/s per run", "median", "vs local", "start-up s"],
            disable_numparse=True,
        )
    )


def planning() -> None:
    names = [f"b{i:03d}" for i in range(200)]
    bots = "\n".join(f"  - {{name: {n}, command: {sys.executable} {BOT}}}" for n in names)
    text = f"""\
name: big
seed: 1
out: /tmp/never
bots:
{bots}
events:
  - {{name: hu, format: round-robin, table_size: 2, hands: 100, duplicate: true}}
  - {{name: six, format: round-robin, table_size: 6, hands: 100, duplicate: true}}
"""
    config = parse_league(text)
    rows = []
    for label, work in (
        ("scheduler (pairings, seats)", lambda: [e.tables(config.seed_text) for e in config.events]),
        ("build_jobs (all of planning)", lambda: build_jobs(config)),
    ):
        started, cpu = time.perf_counter(), time.process_time()
        made = work()
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        tracemalloc.start()  # a second time, traced (tracing slows it down)
        work()
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        rows.append([label, f"{seconds:.2f}", f"{cpu:.2f}", f"{peak / 2**20:.0f}"])
    jobs: list[MatchJob] = made  # type: ignore[assignment]
    by_event = {e.name: sum(1 for j in jobs if j.event == e.name) for e in config.events}
    tables = sum(len(j.plan.tables) for j in jobs)
    pickled = sum(len(pickle.dumps(j)) for j in jobs)
    print(
        f"\nplanning a 200-bot league: {len(jobs):,} jobs ({', '.join(f'{k}: {v:,}' for k, v in by_event.items())}), "
        f"{tables:,} tables; pickled jobs {pickled / 2**20:.1f} MiB ({pickled / len(jobs):.0f} bytes each)"
    )
    print(tabulate(rows, headers=["step", "wall s", "CPU s", "peak MiB"], disable_numparse=True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=4)
    parser.add_argument("--hands", type=int, default=400, help="hands per table")
    parser.add_argument("--jobs", type=int, default=2, help="matches at once with the local executor")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--pool-jobs", help="instead: the league with jobs J in J worker processes, e.g. 1,16")
    args = parser.parse_args()
    tune_gc()
    if args.pool_jobs:
        pool_scaling(args)
        return
    throughput(args)
    planning()


if __name__ == "__main__":
    main()
