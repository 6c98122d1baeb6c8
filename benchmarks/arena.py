"""The arena's costs: submissions accepted per second, and a build's start-up (sandbox, toolchain).

Submissions: ``--submissions`` distinct small archives (the Python sample bot and a numbered
file), posted over HTTP to an arena API on this machine (SQLite in a temporary folder, or
``--database URL``), ``--concurrency`` at a time, each worker for teams of its own (a team's
archives are read one at a time) among ``--teams``; the builder is not running, so this is the
API, the unpacking and the database alone. Build start-up: the wall time of a build step
(``builds.run_build``) whose command does nearly nothing, in the bots' sandbox and without it,
and with the toolchains a build calls first (medians of ``--builds`` each, the modes interleaved
so that the machine's load falls on all alike).

What issue 31's confinement costs: the build queue served each team in turn (``builds.FairQueue``)
against one FIFO (``asyncio.Queue``), microseconds per version put and picked with 2,000 waiting
over 200 teams; and the copy of a sandboxed HOME back out (``dealer.isolation.launch``) within its caps
(home_mb by apparent size, 10,000 entries, a tenth of the bytes and inodes left free) against the
same copy with no byte or entry budget, for 5,000 files of 4 KiB and one file of 64 MiB.

    python benchmarks/arena.py [--submissions 200] [--concurrency 8] [--teams 8] [--builds 7] [--database URL]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import hashlib
import io
import os
import shutil
import statistics
import tarfile
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import aiohttp
from aiohttp.test_utils import TestServer
from tabulate import tabulate

from dealer.arena.builds import FairQueue, run_build
from dealer.arena.config import ArenaConfig, SubmissionLimits
from dealer.arena.http import API, make_app
from dealer.arena.layout import build_folder, build_log
from dealer.arena.model import BuildState, Version
from dealer.arena.store.schema import migrate
from dealer.arena.store.teams import open_repository
from dealer.config.choices import Switch
from dealer.isolation import launch

ROOT = Path(__file__).resolve().parent.parent
BOT = (ROOT / "sample_bots" / "python" / "strength_bot.py").read_bytes()
COMMANDS = {
    "true": "true",
    "python3 -c pass": "python3 -c pass",
    "cc --version": "cc --version",
    "cc hello.c": "printf 'int main(void){return 0;}' > hello.c && cc -o hello hello.c",
}


def archive(n: int) -> bytes:
    """A small distinct submission."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name, data in (("bot.yaml", b"protocol: grpc\nrun: python3 bot.py\n"), ("bot.py", BOT), ("n", b"%d" % n)):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


async def submissions(database: str, storage: Path, total: int, concurrency: int, teams: int) -> float:
    """Accepted submissions per second over HTTP."""
    await migrate(database)
    config = ArenaConfig(storage=storage, database=database, submissions=SubmissionLimits(per_hour=10_000))
    async with open_repository(database) as repository:
        tokens = [(await repository.add_team(f"bench{i}"))[1] for i in range(teams)]
        server = TestServer(make_app(repository, config, lambda _version: None))
        await server.start_server()
        bodies = [archive(n) for n in range(total)]
        queue: asyncio.Queue[int] = asyncio.Queue()
        for n in range(total):
            queue.put_nowait(n)

        async def worker(session: aiohttp.ClientSession, k: int) -> None:
            sent = 0
            while not queue.empty():
                n = queue.get_nowait()
                form = aiohttp.FormData()
                form.add_field("archive", bodies[n], filename="bot.tar.gz")
                headers = {"Authorization": f"Bearer {tokens[(k + sent * concurrency) % teams]}"}
                sent += 1
                async with session.post(server.make_url(f"{API}/submissions"), data=form, headers=headers) as answer:
                    assert answer.status == 201, await answer.text()

        started = time.perf_counter()
        async with aiohttp.ClientSession() as session:
            await asyncio.gather(*(worker(session, k) for k in range(concurrency)))
        seconds = time.perf_counter() - started
        await server.close()
    return total / seconds


async def build_times(storage: Path, database: str, builds: int) -> dict[tuple[str, str], list[float]]:
    """Wall ms of a build step per (command, sandbox on/off), ``builds`` each, interleaved."""
    await migrate(database)
    times: dict[tuple[str, str], list[float]] = {}
    async with open_repository(database) as repository:
        team, _ = await repository.add_team("builds")
        for round_ in range(builds):
            for label, command in COMMANDS.items():
                for switch in (Switch.ON, Switch.OFF):
                    config = ArenaConfig(storage=storage, database=database)
                    config = dataclasses.replace(config, limits=dataclasses.replace(config.limits, sandbox=switch))
                    version, _ = await repository.add_version(
                        team,
                        digest=hashlib.sha256(f"{label}-{switch}-{round_}".encode()).hexdigest(),
                        files=0,
                        size=0,
                        protocol="stdio",
                        run=("./bot",),
                        build=command,
                    )
                    folder, log = build_folder(storage, version), build_log(storage, version)
                    folder.mkdir(parents=True)
                    log.parent.mkdir(parents=True, exist_ok=True)
                    started = time.perf_counter()
                    ok = await run_build(config, version, folder, log)
                    times.setdefault((label, str(switch)), []).append((time.perf_counter() - started) * 1000)
                    assert ok, log.read_text()
    return times


async def queue_us(waiting: int, teams: int, fair: bool) -> float:
    """Microseconds per version put and then picked, ``waiting`` versions over ``teams`` teams."""
    when = datetime.now(UTC)
    versions = [
        Version(n, n % teams, n // teams + 1, "0" * 64, 1, 1, "stdio", ("x",), None, BuildState.QUEUED, when)
        for n in range(waiting)
    ]
    queue: FairQueue | asyncio.Queue[Version] = FairQueue() if fair else asyncio.Queue()
    started = time.perf_counter()
    put = queue.put if isinstance(queue, FairQueue) else queue.put_nowait
    for version in versions:
        put(version)
    for _ in versions:
        await queue.get()
        queue.task_done()
    return (time.perf_counter() - started) * 1e6 / waiting


def copy_ms(home: Path, out: Path, capped: bool) -> float:
    """Milliseconds of one copy of ``home`` into a fresh ``out`` as the launcher copies a HOME back
    out: within its caps (home_mb 256), or with no byte or entry budget."""
    out.mkdir()
    budget = launch._Budget(256 << 20, launch.KEEP_ENTRIES) if capped else launch._Budget(1 << 62, 1 << 62)
    source, target = os.open(home, os.O_RDONLY | os.O_DIRECTORY), os.open(out, os.O_RDONLY | os.O_DIRECTORY)
    try:
        started = time.perf_counter()
        launch._copy_tree(source, target, budget)
        return (time.perf_counter() - started) * 1000
    finally:
        os.close(source)
        os.close(target)


def copies(base: Path, rounds: int) -> dict[tuple[str, bool], list[float]]:
    """Copy-out milliseconds per (HOME, capped), ``rounds`` each, interleaved."""
    homes = {"5,000 files of 4 KiB": base / "small", "one file of 64 MiB": base / "large"}
    homes["5,000 files of 4 KiB"].mkdir()
    for k in range(5000):
        (homes["5,000 files of 4 KiB"] / f"f{k}").write_bytes(b"x" * 4096)
    homes["one file of 64 MiB"].mkdir()
    (homes["one file of 64 MiB"] / "big").write_bytes(os.urandom(64 << 20))
    times: dict[tuple[str, bool], list[float]] = {}
    for round_ in range(rounds):
        for label, home in homes.items():
            for capped in (True, False):
                out = base / f"out-{round_}-{capped}-{len(label)}"
                times.setdefault((label, capped), []).append(copy_ms(home, out, capped))
                shutil.rmtree(out)
    return times


def main() -> None:
    """Run both measurements and print them with the machine's load."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--submissions", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--teams", type=int, default=8, help="at least --concurrency")
    parser.add_argument("--builds", type=int, default=7)
    parser.add_argument("--database", default=None, help="default: SQLite in a temporary folder")
    args = parser.parse_args()
    if args.teams < args.concurrency or args.teams % args.concurrency:
        parser.error("--teams must be a multiple of --concurrency (a team's archives are read one at a time)")
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        url = args.database or f"sqlite+aiosqlite:///{base / 'arena.db'}"
        rate = asyncio.run(submissions(url, base / "storage", args.submissions, args.concurrency, args.teams))
        print(
            f"submissions: {rate:.1f} accepted per second ({args.submissions} over HTTP, {args.concurrency} at once, "
            f"{args.teams} teams, {url.split(':')[0]}); load average {load:.1f} at the start"
        )
        builds_url = f"sqlite+aiosqlite:///{base / 'builds.db'}"
        times = asyncio.run(build_times(base / "build-storage", builds_url, args.builds))
    rows = [
        [label, f"{statistics.median(times[label, 'on']):.0f}", f"{statistics.median(times[label, 'off']):.0f}"]
        for label in COMMANDS
    ]
    print(tabulate(rows, headers=["build command", "sandboxed ms", "unsandboxed ms"]))
    print(f"medians of {args.builds}; load average {os.getloadavg()[0]:.1f} at the end")
    fair = [asyncio.run(queue_us(2000, 200, True)) for _ in range(args.builds)]
    fifo = [asyncio.run(queue_us(2000, 200, False)) for _ in range(args.builds)]
    print(
        f"build queue, 2,000 versions over 200 teams: each team in turn {statistics.median(fair):.1f} us "
        f"per version, one FIFO {statistics.median(fifo):.1f} us (medians of {args.builds})"
    )
    with tempfile.TemporaryDirectory() as folder:
        times = copies(Path(folder), args.builds)
    labels = dict.fromkeys(label for label, _ in times)
    rows = [[label, *(f"{statistics.median(times[label, on]):.0f}" for on in (True, False))] for label in labels]
    print(tabulate(rows, headers=["HOME copied back out", "within its caps ms", "no budget ms"]))
    print(f"medians of {args.builds}; load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
