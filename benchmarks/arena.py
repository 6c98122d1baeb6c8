"""The arena's costs: submissions accepted per second, and a build's start-up (sandbox, toolchain).

Submissions: ``--submissions`` distinct small archives (the Python sample bot and a numbered
file), posted over HTTP to an arena API on this machine (SQLite in a temporary folder, or
``--database URL``), ``--concurrency`` at a time, each worker for teams of its own (a team's
archives are read one at a time) among ``--teams``; the builder is not running, so this is the
API, the unpacking and the database alone. Build start-up: the wall time of a build step
(``builds.run_build``) whose command does nearly nothing, in the bots' sandbox and without it,
and with the toolchains a build calls first (medians of ``--builds`` each, the modes interleaved
so that the machine's load falls on all alike).

    python benchmarks/arena.py [--submissions 200] [--concurrency 8] [--teams 8] [--builds 7] [--database URL]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import hashlib
import io
import os
import statistics
import tarfile
import tempfile
import time
from pathlib import Path

import aiohttp
from aiohttp.test_utils import TestServer
from tabulate import tabulate

from dealer.arena.builds import run_build
from dealer.arena.config import ArenaConfig, SubmissionLimits
from dealer.arena.http import API, make_app
from dealer.arena.layout import build_folder, build_log
from dealer.arena.repository import migrate, open_repository
from dealer.choices import Switch

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


if __name__ == "__main__":
    main()
