"""Bots over stdio JSON lines (and ACPC) beside gRPC bots: hands/s and the cost of a decision, in one run.

Heads-up no-limit between two check/call bots of the same kind, played by the real dealer:
on one table (every decision waits on the bot: the dealer's wall time per decision is the
whole cost of a round trip through that protocol) and on many tables at once over the same
two bot processes (the dealer's throughput). Kinds: ``grpc`` (the Python SDK's call bot),
``stdio-py`` (sample_bots/python/stdio_bot.py), ``stdio-c`` (the C sample, built here), and
``acpc-c`` (the project's ACPC reference client, tests/bots/acpc_client.c, built here; it
raises and folds on some hands, the others only check and call: its hands are longer). An ACPC
bot is a client per table, so the many-table run starts that many clients per bot. Medians of
``--repeats`` runs; the last line is the ratio of a stdio decision to a gRPC one (goal: at most 1.5).

    python benchmarks/bridges.py [--hands 4000] [--tables 64] [--repeats 3]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tabulate import tabulate

from dealer.config.league_file import Limits, game_config
from dealer.connect.server import DealerServer
from dealer.engine.scheduler import plan_tables
from dealer.league.match import Match, MatchBot, MatchPlan
from dealer.runtime import tune_gc

ROOT = Path(__file__).resolve().parent.parent


def build(out: Path) -> dict[str, tuple[tuple[str, ...], str]]:
    """Compile the C bot and the ACPC client under ``out``; each kind of bot measured: its command and protocol."""
    built = out / "built"
    subprocess.run(["bash", str(ROOT / "sample_bots" / "build.sh"), str(built)], check=True)
    subprocess.run(
        ["gcc", "-O2", "-o", str(built / "acpc_client"), str(ROOT / "tests" / "bots" / "acpc_client.c")], check=True
    )
    return {
        "grpc": ((sys.executable, str(ROOT / "sample_bots" / "python" / "call_bot.py")), "grpc"),
        "stdio-py": ((sys.executable, str(ROOT / "sample_bots" / "python" / "stdio_bot.py")), "stdio"),
        "stdio-c": ((str(built / "c" / "bot"),), "stdio"),
        "acpc-c": ((str(built / "acpc_client"), "{game}", "{host}", "{port}"), "acpc"),
    }


def heads_up(hands: int, tables: int) -> MatchPlan:
    """The match measured: heads-up no-limit, blinds 50/100, stacks 20,000, ``hands`` over ``tables``."""
    game = game_config(
        variant="no-limit",
        blinds=(50, 100),
        stack=20000,
        time={"per_action_ms": 5000, "bank_ms": 0, "startup_ms": 20000},
    )
    return MatchPlan("bench", plan_tables(("a", "b"), duplicate=False, tables=tables), game, hands // tables, seed=1)


async def play(
    server: DealerServer,
    out: Path,
    kind: tuple[tuple[str, ...], str],
    hands: int,
    tables: int,
    limits: Limits = Limits(),  # noqa: B008 - a frozen dataclass
) -> tuple[float, int, int]:
    """Play ``hands`` hands over ``tables`` tables between two bots of ``kind`` (under ``limits``):
    (seconds, hands, decisions); RuntimeError if a bot faulted."""
    command, protocol = kind
    plan = heads_up(hands, tables)
    bots = {name: MatchBot(name, command, limits=limits, protocol=protocol) for name in ("a", "b")}
    match = Match(plan, server, bots, out=out, base=ROOT)
    started = 0.0

    async def start_clock() -> None:
        nonlocal started
        while len(match.seats) < 2 or not all(s.session.live for s in match.seats.values()):  # noqa: ASYNC110 - a match has no event for "all seats live"
            await asyncio.sleep(0.001)
        started = time.perf_counter()

    clock = asyncio.create_task(start_clock())
    result = await match.run()
    clock.cancel()  # still waiting where a bot never connected: its fault is raised below
    elapsed = time.perf_counter() - started
    if any(result.faults.values()):
        raise RuntimeError(f"bots failed: {result.faults} {result.log_tails}")
    return elapsed, result.hands, sum(seat.session.requests for seat in match.seats.values())


async def main(
    out: Path, measured: dict[str, tuple[tuple[str, ...], str]], hands: int, tables: int, repeats: int
) -> None:
    async with DealerServer("127.0.0.1:0") as server:
        single: dict[str, list[float]] = {k: [] for k in measured}
        decision: dict[str, list[float]] = {k: [] for k in measured}
        many: dict[str, list[float]] = {k: [] for k in measured}
        for r in range(repeats):
            for name, kind in measured.items():  # interleaved, so that the machine's load falls on every kind
                seconds, n, decisions = await play(server, out / f"{name}-one-{r}", kind, max(hands // 8, 100), 1)
                single[name].append(n / seconds)
                decision[name].append(seconds / decisions)
                seconds, n, _ = await play(server, out / f"{name}-many-{r}", kind, hands, tables)
                many[name].append(n / seconds)
    med = statistics.median
    base = med(decision["grpc"])
    rows = [
        [
            name,
            f"{med(single[name]):,.0f}",
            f"{med(decision[name]) * 1e6:,.0f}",
            f"{med(decision[name]) / base:.2f}x",
            f"{med(many[name]):,.0f}",
        ]
        for name in measured
    ]
    print(
        tabulate(
            rows,
            headers=[
                f"heads-up, check/call bots, median of {repeats}",
                "one table hands/s",
                "µs per decision",
                "vs gRPC",
                f"{tables} tables hands/s",
            ],
        )
    )
    print(
        f"stdio decision / gRPC decision: {med(decision['stdio-py']) / base:.2f}x (Python bots), "
        f"{med(decision['stdio-c']) / base:.2f}x (C bot); ACPC (C client): "
        f"{med(decision['acpc-c']) / base:.2f}x"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=4000, help="hands per many-table run (one table: 1/8th)")
    parser.add_argument("--tables", type=int, default=64, help="tables at once in the many-table run")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    tune_gc()  # as the ``dealer`` command does
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(main(Path(tmp), build(Path(tmp)), args.hands, args.tables, args.repeats))
