"""Leagues on Dask: each match is one Dask task that plays ``run_job`` on a worker.

``dask_executor`` starts a ``distributed.LocalCluster`` of worker processes on this machine (TLS
with a throw-away certificate, so a bot cannot submit code to its workers), or joins a running
scheduler (``dask scheduler`` / ``dask worker`` on several machines), checks that every worker
can run every bot and sees the output folder, and yields a ``DaskExecutor``. Dask does the
queueing, the placement (one thread per worker: a match's dealer gets its core) and the
recovery: a match whose worker dies is played again on another worker, and its one result
comes back once. Only the coordinator (the ``dealer run`` process) writes the journal and the
results; a match's folder (histories, logs) is written by its worker under the job's ``out``,
so that folder must be the same shared folder, at the same path, on every machine. Each worker
logs what its dealer does to ``dealer.worker-HOST-PID.log`` there, at the coordinator's level.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import secrets
import socket
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import distributed
from distributed import Client, LocalCluster, WorkerPlugin

import dealer
from dealer.config.confined import Command, TeamCommand, is_python, resolve_command
from dealer.config.league_file import program_problem
from dealer.errors import ClusterError
from dealer.league.jobs import MatchJob
from dealer.league.runner import run_job
from dealer.runtime import log_file, tune_gc
from dealer.stats.records import MatchResult

MARKER = ".dealer-workers"  # in the output folder: proves a worker sees the coordinator's folder
CONNECT_TIMEOUT_S = 20
WORKERS_TIMEOUT_S = 60  # for the workers to be up and registered


@dataclass(frozen=True)
class Needs:
    """What a worker must have to launch a bot as the coordinator would: its program (None: the
    worker's own Python) and the files its command names, by their absolute paths."""

    program: str | None
    files: tuple[str, ...]


def bot_needs(commands: Mapping[str, Command | None], base: Path) -> dict[str, Needs]:
    """The needs of each launched bot (name -> command), from what exists on this machine: a file
    its command names that is missing here too is the bot's own fault (charged at start), not a
    worker's. A team's command needs its folder (what it names is checked at its launch)."""
    needs = {}
    for name, command in commands.items():
        if command is None:
            continue
        if isinstance(command, TeamCommand):
            needs[name] = Needs(None, (str(command.folder),))
            continue
        argv = resolve_command(command, base)
        program = None if is_python(command[0]) else argv[0]
        files = tuple(a for a in argv[1:] if os.path.isabs(a) and os.path.exists(a))
        needs[name] = Needs(program, files)
    return needs


def _code_hash() -> str:
    """A hash of the dealer's own sources (its core: not the arena's or the web pages'): a worker with
    other code could deal other results."""
    digest = hashlib.sha256()
    root = Path(dealer.__file__).parent
    for path in sorted(p for p in root.rglob("*.py") if p.relative_to(root).parts[0] not in ("arena", "web")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def worker_problems(needs: Mapping[str, Needs], out: str, marker: str, code: str) -> list[str]:
    """Run on a worker: what keeps it from playing these bots' matches, one line each."""
    problems = []
    if _code_hash() != code:
        problems.append("runs another version of the dealer (its dealer sources differ from the coordinator's)")
    try:
        seen = (Path(out) / MARKER).read_text(encoding="utf-8")
    except OSError:
        seen = ""
    if seen != marker:
        problems.append(f"does not see the output folder {out} (it must be the same shared folder on every machine)")
    for name, need in sorted(needs.items()):
        problem = None if need.program is None else program_problem(need.program, Path.cwd())
        if problem:
            problems.append(f"bot {name!r}: program {need.program} {problem}")
        problems += [f"bot {name!r}: {path} not found" for path in need.files if not os.path.exists(path)]
    return problems


def _where() -> str:
    try:
        return f"worker {distributed.get_worker().address}"
    except ValueError:  # not in a worker (a test calling it directly)
        return "this process"


def play_job(job: MatchJob, needs: Mapping[str, Needs], out: str, marker: str, code: str) -> MatchResult:
    """The task: check this worker can play the match as the coordinator would, then play it."""
    problems = worker_problems(needs, out, marker, code)
    if problems:
        raise ClusterError("\n".join(f"{_where()}: {p}" for p in problems))
    return run_job(job)


class _TuneGC(WorkerPlugin):
    """Each worker process collects garbage as the local dealer does (``tune_gc``)."""

    def setup(self, worker: distributed.Worker) -> None:
        tune_gc()


class _WorkerLog(WorkerPlugin):
    """Each worker appends its dealer's log (launches, faults, restarts of the matches it plays)
    to a file of its own in the output folder, as the coordinator writes ``dealer.log``."""

    def __init__(self, out: str, level: str) -> None:
        self.out = out
        self.level = level
        self.handler: logging.Handler | None = None

    def setup(self, worker: distributed.Worker) -> None:
        path = Path(self.out) / f"dealer.worker-{socket.gethostname()}-{os.getpid()}.log"
        self.handler = log_file(path, self.level)

    def teardown(self, worker: distributed.Worker) -> None:
        if self.handler is not None:
            logging.getLogger("dealer").removeHandler(self.handler)
            self.handler.close()


class DaskExecutor:
    """Plays each match as a Dask task on the cluster of ``client``; Dask replays a lost one."""

    def __init__(self, client: Client, needs: Mapping[str, Needs], out: Path, marker: str) -> None:
        self.client = client
        self.needs = needs
        self.out = str(out)
        self.marker = marker
        self.code = _code_hash()

    async def run(self, job: MatchJob) -> MatchResult:
        """Submit the match and wait for its result, from whichever worker played it."""
        needs = {name: self.needs[name] for name in job.bots if name in self.needs}
        future = self.client.submit(play_job, job, needs, self.out, self.marker, self.code, pure=False)
        try:
            result: MatchResult = await future
        except distributed.scheduler.KilledWorker as error:
            raise ClusterError(
                f"match {job.plan.match_id} was lost with its worker too many times "
                f"(distributed.scheduler.allowed-failures): {error}"
            ) from None
        return result


async def check_workers(client: Client, needs: Mapping[str, Needs], out: Path, marker: str) -> None:
    """Raise ClusterError naming each bot (or folder) that a worker lacks, one line each."""
    found = await client.run(worker_problems, needs, str(out), marker, _code_hash())
    lines = [f"worker {address}: {problem}" for address, problems in sorted(found.items()) for problem in problems]
    if lines:
        raise ClusterError("\n".join(lines))


def _write_marker(out: Path) -> str:
    """Put a fresh random marker in the output folder (the workers must read it back); return it."""
    out.mkdir(parents=True, exist_ok=True)
    marker = secrets.token_hex(16)
    (out / MARKER).write_text(marker, encoding="utf-8")
    return marker


@contextlib.asynccontextmanager
async def dask_executor(
    commands: Mapping[str, Command | None],
    base: Path,
    out: Path,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    log_level: str = "info",
) -> AsyncIterator[DaskExecutor]:
    """A DaskExecutor for these bots (name -> command, relative paths from ``base``) on a new
    LocalCluster of ``workers`` processes (default: one per core), or on the cluster of
    ``scheduler`` (``tcp://HOST:8786``); checked first, closed at the end. The workers log at
    ``log_level``."""
    marker = _write_marker(out)
    needs = bot_needs(commands, base)
    async with contextlib.AsyncExitStack() as stack:
        stack.callback((out / MARKER).unlink, missing_ok=True)
        if scheduler is None:
            count = workers or os.cpu_count() or 1
            cluster = await stack.enter_async_context(
                LocalCluster(
                    n_workers=count,
                    threads_per_worker=1,
                    processes=True,
                    host="127.0.0.1",
                    dashboard_address=None,
                    scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},  # its status page: any free port
                    security=True,
                    asynchronous=True,
                )
            )
            address: object = cluster
        else:
            count, address = 1, scheduler
        try:
            client = await stack.enter_async_context(Client(address, asynchronous=True, timeout=CONNECT_TIMEOUT_S))
            await client.wait_for_workers(count, timeout=WORKERS_TIMEOUT_S)
        except OSError as error:
            raise ClusterError(f"cannot reach the Dask scheduler {scheduler}: {error}") from None
        except TimeoutError:
            raise ClusterError(
                f"no Dask worker joined the scheduler {client.scheduler.address} within {WORKERS_TIMEOUT_S} s"
            ) from None
        await client.register_plugin(_TuneGC(), name="dealer-tune-gc")
        await client.register_plugin(_WorkerLog(str(out), log_level), name="dealer-log")
        await check_workers(client, needs, out, marker)
        yield DaskExecutor(client, needs, out, marker)
