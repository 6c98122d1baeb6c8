"""One match on every core: a match's hands/s by the number of worker processes (``dealer.league.workers``).

Plays one heads-up duplicate match of two call bots (they answer at once: the dealer is the work)
of ``--hands`` hands on ``--tables`` deal sets, with each ``--workers`` count in turn, ``--repeats``
times, alternated; prints each run's hands/s (bot start-ups included), the medians, the ratio to
one worker and the load before and after. It refuses a ratio when a bot faulted, and checks that
every count dealt the same result (its standings).

    python benchmarks/workers.py [--hands 40000] [--tables 16] [--workers 1,2] [--repeats 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from tabulate import tabulate

from dealer.config.league_file import game_config
from dealer.engine.scheduler import plan_tables
from dealer.league.match import MatchBot, MatchPlan
from dealer.league.runner import play_match
from dealer.league.workers import cores
from dealer.runtime import tune_gc
from dealer.stats.standings import standings

ROOT = Path(__file__).resolve().parent.parent
BOT = ROOT / "sample_bots" / "python" / "call_bot.py"


def one_run(hands: int, tables: int, workers: int, folder: Path) -> tuple[float, str]:
    """(hands/s, the standings as JSON) of one match on ``workers`` processes; SystemExit if a bot faulted."""
    names = ["a", "b"]
    game = game_config(time={"per_action_ms": 5000, "bank_ms": 0, "startup_ms": 30000})
    plan = MatchPlan("bench", plan_tables(names, duplicate=True, tables=tables), game, hands // (2 * tables), "bench")
    entries = {name: MatchBot(name, (sys.executable, str(BOT))) for name in names}
    started = time.perf_counter()
    result = asyncio.run(play_match(plan, entries, "127.0.0.1:0", folder, stop_unstarted=True, workers=workers))
    elapsed = time.perf_counter() - started
    if any(result.faults.values()):
        raise SystemExit(f"a bot faulted with {workers} workers: {result.faults}; no figures")
    return result.hands / elapsed, json.dumps([s.as_json() for s in standings([result])])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=40000)
    parser.add_argument("--tables", type=int, default=16)
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    counts = [int(w) for w in args.workers.split(",")]
    tune_gc()
    load = os.getloadavg()
    rates: dict[int, list[float]] = {w: [] for w in counts}
    results: set[str] = set()
    with tempfile.TemporaryDirectory() as tmp:
        for repeat in range(args.repeats):
            for w in counts:
                rate, standing = one_run(args.hands, args.tables, w, Path(tmp) / f"r{repeat}-w{w}")
                rates[w].append(rate)
                results.add(standing)
    if len(results) != 1:
        raise SystemExit("the worker counts dealt different results: a bug")
    base = statistics.median(rates[counts[0]])
    rows = [[w, *(f"{r:,.0f}" for r in rates[w]), f"{statistics.median(rates[w]):,.0f}"] for w in counts]
    for row, w in zip(rows, counts, strict=True):
        row.append(f"{statistics.median(rates[w]) / base:.2f}x")
    headers = ["workers", *(f"run {k + 1}" for k in range(args.repeats)), "median hands/s", f"vs {counts[0]}"]
    print(tabulate(rows, headers=headers))
    print(
        f"{args.hands} hands on {args.tables} deal sets; cores {cores()}; load before "
        f"{load[0]:.1f}, after {os.getloadavg()[0]:.1f}; the same standings at every count"
    )


if __name__ == "__main__":
    main()
