"""CPU fairness: the decision time of an honest bot alone and beside a bot that keeps every core busy.

The honest bot does a fixed amount of CPU work for each decision (``benchmarks/cpu_bot.py work``);
its decision time is what the dealer measures, from the request written to the answer read. It
plays heads-up (one table, one instance each, sandboxed) against a call bot ("alone"), then
against a burner that forks ``--workers`` spinning processes in sessions of their own ("beside
a burner"), each bot instance in its own CPU cgroup; and, for contrast, the same burner with the
CPU cgroups switched off (``cpu_seconds`` per process only, as before issue 28). Printed: the
median and 90th percentile of the honest bot's decision times in each run, and the ratio of the
medians to "alone" (the target beside a burner, with cgroups: within 2x). The machine's other load
falls on every run: quote ``uptime`` with the figures.

    python benchmarks/cpu_fairness.py [--hands 40] [--workers 48] [--work 1000000]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
from pathlib import Path

from tabulate import tabulate

from dealer.config.league_file import Limits, game_config
from dealer.connect.server import Answered, BotSession, DealerServer
from dealer.connect.wire import Reply
from dealer.engine.scheduler import plan_tables
from dealer.isolation import sandbox
from dealer.league.match import Match, MatchBot, MatchPlan
from dealer.runtime import tune_gc

ROOT = Path(__file__).resolve().parent.parent
BOT = ROOT / "benchmarks" / "cpu_bot.py"
CALLER = ("python", str(ROOT / "sample_bots" / "python" / "call_bot.py"))


def _recording(answered: Answered, times: list[float]) -> Answered:
    """``answered``, recording each elapsed time first."""

    def record(reply: Reply | None, elapsed: float) -> None:
        times.append(elapsed)
        answered(reply, elapsed)

    return record


def timing_requests(times: list[float]) -> None:
    """Record the elapsed time of every answered request of the session named "honest"."""
    request = BotSession.request

    def timed(
        self: BotSession, request_id: int, framed: bytes, allowance_s: float, answered: Answered, *, table: int
    ) -> None:
        chosen = _recording(answered, times) if self.name == "honest" else answered
        request(self, request_id, framed, allowance_s, chosen, table=table)

    BotSession.request = timed  # type: ignore[method-assign]


async def run(opponent: tuple[str, ...], hands: int, work: int, out: Path, times: list[float]) -> None:
    """One heads-up match of the honest bot against ``opponent``; its decision times land in ``times``."""
    game = game_config(time={"per_action_ms": 30000, "bank_ms": 0, "startup_ms": 60000})
    plan = MatchPlan("cpu", plan_tables(("honest", "other"), duplicate=False, tables=1), game, hands, seed=3)
    bots = {
        "honest": MatchBot("honest", ("python", str(BOT), "work", str(work)), limits=Limits()),
        "other": MatchBot("other", opponent, limits=Limits()),
    }
    del times[:]
    async with DealerServer() as server:
        result = await Match(plan, server, bots, out=out, base=ROOT).run()
    assert result.faults == {"honest": {}, "other": {}}, (result.faults, result.log_tails)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=40)
    parser.add_argument("--workers", type=int, default=48)
    parser.add_argument("--work", type=int, default=1_000_000, help="iterations of the honest bot per decision")
    options = parser.parse_args()
    tune_gc()
    sandbox.check()
    if sandbox.cpu_hierarchy() is None:
        sys.exit(f"no CPU cgroup here: {sandbox.cpu_confinement()}")
    times: list[float] = []
    timing_requests(times)
    burner = ("python", str(BOT), "burn", str(options.workers))
    runs = [("alone (vs a call bot)", CALLER, True), (f"beside a burner of {options.workers}", burner, True)]
    runs.append((f"beside a burner of {options.workers}, no CPU cgroups", burner, False))
    rows = []
    alone = None
    found = sandbox.cpu_hierarchy
    with tempfile.TemporaryDirectory() as folder:
        for n, (label, opponent, cgroups) in enumerate(runs):
            sandbox.cpu_hierarchy = found if cgroups else lambda: None  # type: ignore[assignment]
            asyncio.run(run(opponent, options.hands, options.work, Path(folder) / str(n), times))
            median = statistics.median(times) * 1000
            alone = alone or median
            p90 = statistics.quantiles(times, n=10)[-1] * 1000
            rows.append((label, len(times), f"{median:.0f}", f"{p90:.0f}", f"{median / alone:.2f}x"))
    sandbox.cpu_hierarchy = found
    print(f"CPU: {sandbox.cpu_confinement()}; {os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f}")
    print(tabulate(rows, headers=("honest bot", "decisions", "median ms", "p90 ms", "median / alone")))


if __name__ == "__main__":
    main()
