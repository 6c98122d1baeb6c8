"""What sealed rotations cost: e2e heads-up duplicate hands/s, sealed vs not, in one run.

Two trivial Python bots (call_bot) play a heads-up no-limit duplicate match over real gRPC on
``--tables`` tables at once (half as many deal sets, each in both seatings). Sealed, each bot runs
one process per rotation (4 bot processes, each on half the tables); unsealed, one process per bot
plays every table. The two modes alternate, ``--repeats`` times each; prints the medians, the
ratio, and the time from the match's start until every bot is connected (start-up of the
processes). The clock of hands/s starts once every bot is connected, as in ``benchmarks/e2e.py``.

    python benchmarks/sealed.py [--hands 32000] [--tables 256] [--repeats 5]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from tabulate import tabulate

from dealer.config.league_file import game_config
from dealer.connect.server import DealerServer
from dealer.engine.scheduler import plan_tables
from dealer.league.match import Match, MatchBot, MatchPlan
from dealer.runtime import tune_gc

ROOT = Path(__file__).resolve().parent.parent
BOT = (sys.executable, str(ROOT / "sample_bots" / "python" / "call_bot.py"))


async def play(server: DealerServer, out: Path, hands: int, tables: int, sealed: bool) -> tuple[float, float, int]:
    """One duplicate match of ``hands`` hands over ``tables`` tables; (seconds playing, seconds to connect, hands)."""
    game = game_config(
        variant="no-limit",
        blinds=(50, 100),
        stack=20000,
        time={"per_action_ms": 5000, "bank_ms": 0, "startup_ms": 30000},
    )
    plan = MatchPlan(
        "bench",
        plan_tables(("a", "b"), duplicate=True, tables=tables // 2),
        game,
        hands // tables,
        seed="benchmark-sealed-rotations",
        sealed=sealed,
    )
    bots = {"a": MatchBot("a", BOT), "b": MatchBot("b", BOT)}
    match = Match(plan, server, bots, out=out, base=ROOT)
    instances = len({label for labels in plan.instance_labels() for label in labels})
    begun = time.perf_counter()
    started = 0.0

    async def start_clock() -> None:
        nonlocal started
        while len(match.seats) < instances or not all(s.session.live for s in match.seats.values()):  # noqa: ASYNC110 - a match has no event for "all seats live"
            await asyncio.sleep(0.001)
        started = time.perf_counter()

    clock = asyncio.create_task(start_clock())
    result = await match.run()
    await clock
    if any(result.faults.values()):
        raise RuntimeError(f"bots failed: {result.faults}")
    return time.perf_counter() - started, started - begun, result.hands


async def main(hands: int, tables: int, repeats: int) -> None:
    async with DealerServer("127.0.0.1:0") as server:
        rates: dict[bool, list[float]] = {True: [], False: []}
        startup: dict[bool, list[float]] = {True: [], False: []}
        with tempfile.TemporaryDirectory() as tmp:
            for k in range(repeats):
                for sealed in (k % 2 == 0, k % 2 != 0):  # alternate which goes first, against drift
                    seconds, connect, n = await play(server, Path(tmp) / f"{k}-{sealed}", hands, tables, sealed)
                    rates[sealed].append(n / seconds)
                    startup[sealed].append(connect)
    rows = [
        [
            ("sealed (4 bot processes)" if sealed else "not sealed (2 bot processes)"),
            f"{statistics.median(rates[sealed]):,.0f}",
            f"{statistics.median(startup[sealed]) * 1000:,.0f}",
        ]
        for sealed in (False, True)
    ]
    print(
        tabulate(
            rows,
            headers=[
                f"heads-up duplicate, {tables} tables, call bots, median of {repeats}",
                "hands/s",
                "ms until all connected",
            ],
        )
    )
    ratio = statistics.median(rates[True]) / statistics.median(rates[False])
    print(f"sealed / not sealed hands/s: {ratio:.3f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=32000, help="hands per match, every table counted")
    parser.add_argument("--tables", type=int, default=256, help="tables at once (an even number)")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    tune_gc()  # as the ``dealer`` command does
    asyncio.run(main(args.hands, args.tables, args.repeats))
