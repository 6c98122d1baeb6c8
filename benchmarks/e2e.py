"""End-to-end throughput: heads-up no-limit between two trivial Python bots over real gRPC.

Prints, in one run: hands per second on one table and on many tables at once over the same
two bot processes (with the dealer's and the bots' CPU per hand); the dealer's wall time per
decision on one table next to a bare round trip (an ActionRequest answered by the same bot
process over the same stream, with no engine work); and ends with the line
``e2e many-table hands/s: <N>``, the best of the table counts run. Medians of ``--repeats`` runs.
The tables of a match take turns in seat rotation (``plan_tables``), as ``dealer match`` plays them.

    python benchmarks/e2e.py [--hands 32000] [--tables 64,256] [--repeats 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from tabulate import tabulate

from dealer.config.league_file import game_config
from dealer.connect.server import DealerServer
from dealer.connect.wire import frame
from dealer.engine.scheduler import plan_tables
from dealer.league.match import Match, MatchBot, MatchPlan
from dealer.runtime import tune_gc
from poker.v1 import dealer_pb2 as pb

ROOT = Path(__file__).resolve().parent.parent
BOT = (sys.executable, str(ROOT / "sample_bots" / "python" / "call_bot.py"))


async def play(server: DealerServer, out: Path, hands: int, tables: int) -> tuple[float, int, int]:
    """Play ``hands`` hands spread over ``tables`` tables; return (seconds, hands, decisions)."""
    game = game_config(
        variant="no-limit",
        blinds=(50, 100),
        stack=20000,
        time={"per_action_ms": 5000, "bank_ms": 0, "startup_ms": 20000},
    )
    plan = MatchPlan("bench", plan_tables(("a", "b"), duplicate=False, tables=tables), game, hands // tables, seed=1)
    bots = {"a": MatchBot("a", BOT), "b": MatchBot("b", BOT)}
    match = Match(plan, server, bots, out=out, base=ROOT)
    connected = asyncio.Event()
    started = 0.0

    async def start_clock() -> None:
        nonlocal started
        while len(match.seats) < 2 or not all(s.session.live for s in match.seats.values()):  # noqa: ASYNC110 - a match has no event for "all seats live"
            await asyncio.sleep(0.001)
        started = time.perf_counter()
        connected.set()

    clock = asyncio.create_task(start_clock())
    result = await match.run()
    await clock
    elapsed = time.perf_counter() - started
    if any(result.faults.values()):
        raise RuntimeError(f"bots failed: {result.faults}")
    return elapsed, result.hands, sum(seat.session.requests for seat in match.seats.values())


async def round_trips(server: DealerServer, out: Path, count: int) -> float:
    """Seconds per bare round trip: a minimal ActionRequest answered by the bot, no engine."""
    from dealer.config.league_file import Limits
    from dealer.isolation.processes import BotProcess

    session = server.session("echo")
    process = await BotProcess.launch(
        "echo",
        BOT,
        address=server.address,
        token=session.token,
        local_address=server.local_address,
        base=ROOT,
        workdir=out / "echo",
        log_path=out / "echo.log",
        limits=Limits(),
    )
    await asyncio.wait_for(session.connected.wait(), 20)
    times = []
    for _ in range(count):
        request_id = session.next_request_id()
        framed = frame(pb.Item(table=1, request=pb.ActionRequest(request_id=request_id, can_fold=False)))
        answer: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        t0 = time.perf_counter()
        session.request(request_id, framed, 5.0, lambda reply, elapsed, answer=answer: answer.set_result(None), table=1)
        await answer
        times.append(time.perf_counter() - t0)
    session.goodbye("done")
    await process.stop()
    server.close_session(session)
    return statistics.median(times)


async def main(hands: int, tables: list[int], repeats: int) -> None:
    async with DealerServer("127.0.0.1:0") as server:
        single, per_decision, rtt = [], [], []
        many: dict[int, list[float]] = {count: [] for count in tables}
        cpu: dict[int, list[tuple[float, float]]] = {count: [] for count in tables}  # dealer, bots: CPU s per hand
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp)
            for k in range(repeats):
                rtt.append(await round_trips(server, out / f"rtt{k}", 2000))
                seconds, n, decisions = await play(server, out / f"one{k}", max(hands // 16, 200), 1)
                single.append(n / seconds)
                per_decision.append(seconds / decisions)
                for count in tables:
                    sampler, dealer = Descendants(), time.process_time()
                    sampler.start()
                    seconds, n, _ = await play(server, out / f"many{k}-{count}", hands, count)
                    bots = sampler.stop()
                    many[count].append(n / seconds)
                    cpu[count].append(((time.process_time() - dealer - sampler.cost) / n, bots / n))
    rows = [["one table", f"{statistics.median(single):,.0f}", "", ""]]
    for count in tables:
        dealer = statistics.median(c[0] for c in cpu[count]) * 1e6
        bots = statistics.median(c[1] for c in cpu[count]) * 1e6
        rows.append(
            [f"{count} tables at once", f"{statistics.median(many[count]):,.0f}", f"{dealer:,.0f}", f"{bots:,.0f}"]
        )
    print(
        tabulate(
            rows,
            headers=[
                f"heads-up no-limit, call bots, median of {repeats}",
                "hands/s",
                "dealer CPU µs/hand",
                "bots CPU µs/hand (with start-up)",
            ],
        )
    )
    ratio = statistics.median(per_decision) / statistics.median(rtt)
    print(
        f"one table: {statistics.median(per_decision) * 1e6:,.0f} µs per decision, bare round trip "
        f"{statistics.median(rtt) * 1e6:,.0f} µs: {ratio:.2f}x"
    )
    best = max(tables, key=lambda count: statistics.median(many[count]))
    print(f"e2e many-table hands/s: {statistics.median(many[best]):.0f}")


class Descendants(threading.Thread):
    """The CPU seconds the descendants of this process use (the bots, their launchers and sandboxes),
    read from /proc every 50 ms while they run, in a thread whose own CPU (``cost``) the caller takes
    off the dealer's. No rusage of ours gets a bot's time: its launcher kills its sandbox at the end
    rather than waiting for it. What a process used in its last 50 ms is missed."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.seen: dict[int, float] = {}
        self.cost = 0.0
        self.done = threading.Event()

    def run(self) -> None:
        tick = os.sysconf("SC_CLK_TCK")
        while not self.done.wait(0.05):
            parents: dict[int, tuple[int, float]] = {}
            for stat in Path("/proc").glob("[0-9]*/stat"):
                try:
                    fields = stat.read_text().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                parents[int(stat.parent.name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / tick)
            mine, grew = {os.getpid()}, True
            while grew:
                found = {pid for pid, (parent, _) in parents.items() if parent in mine} - mine
                mine |= found
                grew = bool(found)
            for pid in mine - {os.getpid()}:
                self.seen[pid] = max(self.seen.get(pid, 0.0), parents[pid][1])
        self.cost = time.thread_time()

    def stop(self) -> float:
        """Stop sampling; the descendants' CPU seconds."""
        self.done.set()
        self.join()
        return sum(self.seen.values())


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=32000, help="hands per many-table run (one table: 1/16th)")
    parser.add_argument("--tables", default="64,256", help="table counts to run at once, comma-separated")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    tune_gc()  # as the ``dealer`` command does
    asyncio.run(main(args.hands, [int(t) for t in args.tables.split(",")], args.repeats))
