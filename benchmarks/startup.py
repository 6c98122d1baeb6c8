"""What starting one sandboxed bot instance costs in CPU, and how it grows with many started at once.

A league's matches start bots all the time (112 starts in the 28-match sample league), so on a
machine with many cores what limits ``jobs: 16`` is the CPU each start burns, not its latency.
This prints CPU (user + sys), never a wall-time speed-up, with the machine's load beside it.

1. **Whole starts**, as a match makes them: ``BotProcess.launch`` of the sample call bot
   (``sample_bots/python/call_bot.py``, the gRPC SDK), sandbox on, default limits, until its Hello
   is accepted; then it is stopped. ``--together`` instances at once (default 1, 4, 16), each count
   ``--batches`` times. Per instance: the dealer's own CPU until every Hello (``time.process_time``:
   all its threads, gRPC's included) and for the stop; the bot program's CPU until its Hello (its CPU
   cgroup: the interpreter, the SDK's imports, dialling); and everything the dealer's children
   used, start to reaped (``RUSAGE_CHILDREN``: bwrap, its pid 1, the launcher, the bot, the copy of
   HOME back out). The children's figure minus the bot's is the sandbox and the launcher.
2. **The parts**, each run ``--runs`` times to its exit as a child of this process (CPU by
   ``RUSAGE_CHILDREN``, wall by the clock): bubblewrap with a bot's full options around
   ``/bin/true``; the launcher (``python -I -S launch.py``) around ``true``; the interpreter bare
   (``-I -S``) and as the bot runs it (with ``site``: the venv's path hooks); ``import grpc``;
   ``import pokerbot``. And in the dealer: making and removing one instance's three cgroups, and
   one ``sandbox.wrap`` (its bwrap options).

    nice -n 19 .venv/bin/python benchmarks/startup.py [--together 1,4,16] [--batches 3] [--runs 20]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from sandbox import launch_call_bot  # benchmarks/sandbox.py: how these benchmarks start a bot
from tabulate import tabulate

from dealer.config.league_file import Limits
from dealer.connect.server import DealerServer
from dealer.isolation import processes, sandbox

ROOT = Path(__file__).resolve().parent.parent
BOT = ("python", str(ROOT / "sample_bots" / "python" / "call_bot.py"))


class TreeAccount:
    """The CPU of this process and of every process it starts, however deep (bwrap's pid 1 is never
    reaped by us, so ``RUSAGE_CHILDREN`` misses the sandbox): a cgroup of the ``cpuacct`` (v1) or
    ``cpu`` (v2) hierarchy that this process moves into before the dealer makes any cgroup, so that
    the bots' own cgroups are made below it and counted in it (the kernel's usage is hierarchical)."""

    def __init__(self) -> None:
        found = sandbox._own_cgroup_folders("cpuacct") or sandbox._own_cgroup_folders("cpu")
        if not found:
            raise SystemExit("startup.py needs a cpuacct (v1) or cpu (v2) cgroup it can make and join")
        self.parent = found[0].folder
        self.folder = self.parent / f"holdem-bench-{os.getpid()}"
        self.version = found[0].version
        self.folder.mkdir()
        (self.folder / "cgroup.procs").write_text(str(os.getpid()))

    def cpu_s(self) -> float:
        """User + sys CPU of this process and every descendant so far, dead ones included."""
        if self.version == 1:
            return int((self.folder / "cpuacct.usage").read_text()) / 1e9
        stat = dict(line.split() for line in (self.folder / "cpu.stat").read_text().splitlines())
        return int(stat["usage_usec"]) / 1e6

    def close(self) -> None:
        """Move back to the parent cgroup and remove this one."""
        (self.parent / "cgroup.procs").write_text(str(os.getpid()))
        self.folder.rmdir()


ACCOUNT: TreeAccount


def children_cpu_s() -> float:
    """The CPU of this process's descendants so far (the tree's, less this process's own)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    return ACCOUNT.cpu_s() - own.ru_utime - own.ru_stime


def load() -> str:
    """The machine's load, to quote beside every figure."""
    return "load " + " ".join(f"{v:.2f}" for v in os.getloadavg())


async def start_batch(server: DealerServer, out: Path, count: int) -> dict[str, float]:
    """Start ``count`` sandboxed call bots at once, wait for every Hello, stop them; CPU seconds per
    instance by where it went, and the wall seconds until the last Hello."""
    children, dealer, wall = children_cpu_s(), time.process_time(), time.perf_counter()
    launched = [await launch_call_bot(server, out, f"s{n}", Limits()) for n in range(count)]
    sessions, bots = [s for s, _ in launched], [b for _, b in launched]
    await asyncio.wait_for(asyncio.gather(*(s.connected.wait() for s in sessions)), 300)
    figures = {"wall_s": time.perf_counter() - wall, "dealer_start": time.process_time() - dealer}
    figures["bot_to_hello"] = sum(b.cpu.usage_s() if b.cpu else float("nan") for b in bots) / count
    dealer = time.process_time()
    for session in sessions:
        session.goodbye("done")
    await asyncio.gather(*(bot.wait_exit(30) for bot in bots))
    figures["bot_total"] = sum(b.cpu.usage_s() if b.cpu else float("nan") for b in bots) / count
    codes = await asyncio.gather(*(bot.stop() for bot in bots))
    for session in sessions:
        server.close_session(session)
    assert not any(b.crashed for b in bots), f"a bot faulted: exit codes {codes}"
    figures["dealer_stop"] = time.process_time() - dealer
    figures["dealer_start"] /= count
    figures["dealer_stop"] /= count
    figures["children"] = (children_cpu_s() - children) / count
    return figures


async def whole_starts(together: list[int], batches: int) -> list[list[str]]:
    """Rows of the whole-start table: per count, medians over ``batches`` (counts interleaved)."""
    runs: dict[int, list[dict[str, float]]] = {count: [] for count in together}
    async with DealerServer() as server:
        with tempfile.TemporaryDirectory() as folder:
            await start_batch(server, Path(folder) / "warm", 1)  # the sandbox probe and cgroup probes, once
            for n in range(batches):
                for count in together if n % 2 == 0 else together[::-1]:
                    runs[count].append(await start_batch(server, Path(folder) / f"{count}-{n}", count))
    rows = []
    for count, figures in runs.items():
        med = {key: statistics.median(f[key] for f in figures) for key in figures[0]}
        rows.append(
            [
                str(count),
                f"{1000 * med['wall_s']:.0f}",
                f"{1000 * med['dealer_start']:.1f}",
                f"{1000 * med['dealer_stop']:.1f}",
                f"{1000 * med['bot_to_hello']:.0f}",
                f"{1000 * (med['bot_total'] - med['bot_to_hello']):.0f}",
                f"{1000 * (med['children'] - med['bot_total']):.0f}",
                f"{1000 * (med['children'] + med['dealer_start'] + med['dealer_stop']):.0f}",
                load(),
            ]
        )
    return rows


def run_cpu(argv: list[str], runs: int) -> tuple[float, float]:
    """Median wall ms and mean CPU ms (user + sys, the child and its reaped descendants) of ``argv``."""
    walls, before = [], children_cpu_s()
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        walls.append(1000 * (time.perf_counter() - started))
    return statistics.median(walls), 1000 * (children_cpu_s() - before) / runs


def in_dealer_ms(work: Callable[[], object], runs: int) -> float:
    """The dealer's own CPU ms for one ``work()``, mean of ``runs``."""
    started = time.process_time()
    for _ in range(runs):
        work()
    return 1000 * (time.process_time() - started) / runs


def wrapped(command: list[str]) -> list[str]:
    """``command`` in a sandbox with a bot's full bwrap options (its options' pipe closed here once
    the child has read them: ``subprocess.run`` passes it)."""
    argv, options = sandbox.wrap(
        command, program=BOT, private=[ROOT], socket=None, host_network=False, tmp_mb=64, home_mb=64, keep_setuid=False
    )
    return [*argv[:1], "--args", str(options), *argv[3:]]


def run_wrapped(command: list[str], runs: int) -> tuple[float, float]:
    """``run_cpu`` of ``command`` sandboxed, a fresh options pipe per run."""
    walls, before = [], children_cpu_s()
    for _ in range(runs):
        argv = wrapped(command)
        options = int(argv[2])
        started = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, pass_fds=[options])
        walls.append(1000 * (time.perf_counter() - started))
        os.close(options)
    return statistics.median(walls), 1000 * (children_cpu_s() - before) / runs


def cgroups_once() -> None:
    """Make one instance's three cgroups, open their ``cgroup.procs``, close and remove them."""
    cgroup, cpu, pids, fds = processes._cgroups(Limits())
    for fd in fds:
        os.close(fd)
    processes._remove_cgroups(cgroup, cpu, pids)


def parts(runs: int) -> list[list[str]]:
    """Rows of the parts table."""
    python = sys.executable
    launcher = processes._launcher(["/bin/true"], Limits(), None, [], None, None, memory_cgroup=False)
    commands = {
        "bwrap, a bot's options, around /bin/true": lambda: run_wrapped(["/bin/true"], runs),
        "launcher (python -I -S) around true, no sandbox": lambda: run_cpu(launcher, runs),
        "bwrap around the launcher around true": lambda: run_wrapped(launcher, runs),
        "python -I -S -c pass": lambda: run_cpu([python, "-I", "-S", "-c", "pass"], runs),
        "python -c pass (site: the venv, as a bot runs)": lambda: run_cpu([python, "-c", "pass"], runs),
        "python -c 'import grpc'": lambda: run_cpu([python, "-c", "import grpc"], runs),
        "python -c 'import pokerbot' (the SDK)": lambda: run_cpu([python, "-c", "import pokerbot"], runs),
    }
    rows = []
    for name, measure in commands.items():
        wall, cpu = measure()
        rows.append([name, f"{cpu:.1f}", f"{wall:.1f}", load()])
    rows.append(
        ["dealer: one instance's 3 cgroups, made and removed", f"{in_dealer_ms(cgroups_once, runs):.2f}", "", load()]
    )
    wrap_ms = in_dealer_ms(lambda: os.close(int(wrapped(["true"])[2])), runs)
    rows.append(["dealer: sandbox.wrap (bwrap's options)", f"{wrap_ms:.2f}", "", load()])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--together", default="1,4,16", help="instances started at once, comma-separated counts")
    parser.add_argument("--batches", type=int, default=3, help="times each count is started (medians)")
    parser.add_argument("--runs", type=int, default=20, help="runs of each part")
    args = parser.parse_args()
    global ACCOUNT
    ACCOUNT = TreeAccount()
    try:
        report(args)
    finally:
        ACCOUNT.close()


def report(args: argparse.Namespace) -> None:
    """Measure and print both tables."""
    sandbox.check()
    print(f"{sandbox.version()}; {sandbox.cpu_confinement()}; {os.cpu_count()} cores; {load()}")
    rows = asyncio.run(whole_starts([int(c) for c in args.together.split(",")], args.batches))
    headers = [
        "at once",
        "wall ms to last Hello",
        "dealer CPU ms/inst: start",
        "stop",
        "bot: to Hello",
        "Hello to exit",
        "bwrap+launcher",
        "total CPU ms/inst",
        "load",
    ]
    print(tabulate(rows, headers=headers, disable_numparse=True))
    print(tabulate(parts(args.runs), headers=[f"part (runs: {args.runs})", "CPU ms", "wall ms", "load"]))


if __name__ == "__main__":
    main()
