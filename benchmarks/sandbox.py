"""The cost of the bots' sandbox: start-up of one bot instance, and heads-up throughput, with and without.

Start-up is the time from ``BotProcess.launch`` until the bot's Hello is accepted (ms: the
sandbox, the launcher, the Python interpreter and grpc), median of ``--starts`` launches of the
sample call bot per mode, the modes interleaved so that the machine's load falls on both alike.
Throughput is a heads-up match of ``--hands`` hands over ``--tables`` tables between two call
bots (each mode ``--repeats`` times, interleaved; medians), start-up included, as a match plays.

Start-up at scale: ``--together`` instances launched at once (default 1, 4, 16), sandbox on and
off, the wall time until the last one has connected (median of ``--batches``); and what one
start is made of: the interpreter (``python -I -S``, ``-I``), the launcher starting a program
that exits at once (``dealer.isolation.launch -- true``), bubblewrap's sandbox around ``true``.

    python benchmarks/sandbox.py [--starts 15] [--together 1,4,16] [--batches 3] [--hands 8000] [--tables 256]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tabulate import tabulate

from dealer.config.league_file import Limits, game_config
from dealer.connect.server import BotSession, DealerServer
from dealer.engine.scheduler import plan_tables
from dealer.isolation import processes, sandbox
from dealer.isolation.processes import BotProcess
from dealer.league.match import Match, MatchBot, MatchPlan
from dealer.runtime import tune_gc

ROOT = Path(__file__).resolve().parent.parent
BOT = ("python", str(ROOT / "sample_bots" / "python" / "call_bot.py"))
MODES = ("on", "off")


async def launch_call_bot(server: DealerServer, out: Path, name: str, limits: Limits) -> tuple[BotSession, BotProcess]:
    """A session named ``name`` and the sample call bot launched for it (working folder and log under
    ``out``): how these benchmarks start one bot as a match would."""
    session = server.session(name)
    bot = await BotProcess.launch(
        session.name,
        BOT,
        address=server.address,
        token=session.token,
        base=ROOT,
        workdir=out / name,
        log_path=out / f"{name}.log",
        limits=limits,
        local_address=server.local_address,
    )
    return session, bot


async def start_once(server: DealerServer, out: Path, mode: str, n: int) -> float:
    """Launch one bot and return the ms until it has connected; then stop it."""
    started = time.perf_counter()
    session, bot = await launch_call_bot(server, out, f"{mode}-{n}", Limits(sandbox=mode))
    await asyncio.wait_for(session.connected.wait(), 30)
    elapsed = 1000 * (time.perf_counter() - started)
    session.goodbye("done")
    await bot.stop()
    server.close_session(session)
    return elapsed


async def start_together(server: DealerServer, out: Path, mode: str, count: int) -> float:
    """Launch ``count`` bots at once; the ms until the last one has connected (then stop them all)."""
    started = time.perf_counter()
    launched = [await launch_call_bot(server, out, f"{mode}-{n}", Limits(sandbox=mode)) for n in range(count)]
    sessions, bots = [s for s, _ in launched], [b for _, b in launched]
    await asyncio.wait_for(asyncio.gather(*(s.connected.wait() for s in sessions)), 120)
    elapsed = 1000 * (time.perf_counter() - started)
    for session in sessions:
        session.goodbye("done")
    await asyncio.gather(*(bot.stop() for bot in bots))
    for session in sessions:
        server.close_session(session)
    return elapsed


def parts(starts: int) -> list[list[str]]:
    """What one start is made of: ms to run each of these to its exit, median of ``starts``; and the
    dealer's own CPU to make one sandbox's command line (``sandbox.wrap``)."""
    python = sys.executable
    launcher = processes._launcher(["true"], Limits(), None, [], None, None, memory_cgroup=False)
    commands = {
        "python -I -S -c pass": [python, "-I", "-S", "-c", "pass"],
        "python -I -c pass (with site)": [python, "-I", "-c", "pass"],
        "launcher -- true (no sandbox; python -I -S, as bots start)": launcher,
        "the same launcher with site (python -I -m)": [python, "-I", "-m", "dealer.isolation.launch", *launcher[4:]],
        "bwrap (namespaces, system binds) true": sandbox.probe_command(),
    }
    started = time.process_time()
    for _ in range(starts):
        os.close(
            sandbox.wrap(
                BOT,
                program=BOT,
                private=[ROOT],
                socket=None,
                host_network=False,
                tmp_mb=64,
                home_mb=64,
                keep_setuid=False,
            )[1]
        )
    rows = [["sandbox.wrap (the dealer's CPU)", f"{1000 * (time.process_time() - started) / starts:.1f}"]]
    for name, argv in commands.items():
        times = []
        for _ in range(starts):
            started = time.perf_counter()
            subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times.append(1000 * (time.perf_counter() - started))
        rows.append([name, f"{statistics.median(times):.0f}"])
    return rows


async def play(server: DealerServer, out: Path, mode: str, hands: int, tables: int) -> float:
    """Hands per second of one heads-up match, bots launched in the given sandbox mode."""
    game = game_config(time={"per_action_ms": 5000, "bank_ms": 0, "startup_ms": 30000})
    plan = MatchPlan(
        f"bench-{mode}", plan_tables(("a", "b"), duplicate=False, tables=tables), game, hands // tables, seed=1
    )
    bots = {name: MatchBot(name, BOT, limits=Limits(sandbox=mode)) for name in ("a", "b")}
    started = time.perf_counter()
    result = await Match(plan, server, bots, out=out, base=ROOT).run()
    assert result.faults == {"a": {}, "b": {}}, result.log_tails
    return result.hands / (time.perf_counter() - started)


async def main(starts: int, together: list[int], batches: int, hands: int, tables: int, repeats: int) -> None:
    sandbox.check()
    async with DealerServer() as server:
        with tempfile.TemporaryDirectory() as folder:
            out = Path(folder)
            start_ms: dict[str, list[float]] = {mode: [] for mode in MODES}
            for n in range(starts):
                for mode in MODES if n % 2 == 0 else MODES[::-1]:
                    start_ms[mode].append(await start_once(server, out / "starts", mode, n))
            batch_ms: dict[tuple[str, int], list[float]] = {}
            for n in range(batches):
                for count in together:
                    for mode in MODES if n % 2 == 0 else MODES[::-1]:
                        where = out / "together" / f"{mode}-{count}-{n}"
                        batch_ms.setdefault((mode, count), []).append(await start_together(server, where, mode, count))
            rates: dict[str, list[float]] = {mode: [] for mode in MODES}
            for n in range(repeats):
                for mode in MODES if n % 2 == 0 else MODES[::-1]:
                    rates[mode].append(await play(server, out / "play" / f"{mode}-{n}", mode, hands, tables))
    start = {mode: statistics.median(values) for mode, values in start_ms.items()}
    rate = {mode: statistics.median(values) for mode, values in rates.items()}
    print(f"{sandbox.version()}; memory by {'cgroup' if sandbox.memory_hierarchy() else 'RLIMIT_DATA'}")
    print(
        tabulate(
            [
                [
                    f"start-up ms (median of {starts})",
                    f"{start['on']:.0f}",
                    f"{start['off']:.0f}",
                    f"{start['on'] / start['off']:.2f}",
                ],
                [
                    f"heads-up hands/s, {tables} tables (median of {repeats})",
                    f"{rate['on']:,.0f}",
                    f"{rate['off']:,.0f}",
                    f"{rate['on'] / rate['off']:.2f}",
                ],
            ],
            headers=["", "sandbox on", "sandbox off", "on / off"],
            disable_numparse=True,
        )
    )
    print(f"sandbox start-up cost: {start['on'] - start['off']:+.0f} ms per instance")
    rows = []
    for count in together:
        on, off = (statistics.median(batch_ms[mode, count]) for mode in MODES)
        rows.append([count, f"{on:.0f}", f"{on / count:.0f}", f"{off:.0f}", f"{off / count:.0f}"])
    print(
        tabulate(
            rows,
            headers=[f"started at once (median of {batches})", "on: ms to all", "per bot", "off: ms to all", "per bot"],
            disable_numparse=True,
        )
    )
    print(tabulate(parts(starts), headers=[f"one start's parts, to exit (median of {starts})", "ms"]))
    print(f"{os.cpu_count()} cores; load (1, 5, 15 min): {', '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=15)
    parser.add_argument("--together", default="1,4,16", help="instances started at once, comma-separated counts")
    parser.add_argument("--batches", type=int, default=3, help="times each count is started")
    parser.add_argument("--hands", type=int, default=8000)
    parser.add_argument("--tables", type=int, default=256)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    tune_gc()
    asyncio.run(
        main(
            args.starts, [int(c) for c in args.together.split(",")], args.batches, args.hands, args.tables, args.repeats
        )
    )
