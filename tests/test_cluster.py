"""Leagues on Dask (``dealer run --executor dask``): the same results as the local executor.

One small league (three Python bots, heads-up duplicate, a 3-max duplicate event) is played
with the local executor for reference, then on a ``LocalCluster`` started by ``dealer run``,
then on a ``dask scheduler`` with two ``dask worker`` processes on 127.0.0.1: results.json and
standings.txt must be byte-identical each time. A worker SIGKILLed in the middle of a match
must not change a byte either (Dask plays the match again; it is counted once). A worker that
cannot run a bot stops the league before it starts, naming the bot and the worker.

Every process a test starts runs in a session of its own, and everything left in that session
is killed when the test ends, pass or fail.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil  # a dependency of distributed
import pytest
from distributed import Client

from conftest import ROOT, processes_under
from dealer.config.league_file import load_league
from dealer.league.cluster import dask_executor
from dealer.league.run import run_league

BIN = Path(sys.executable).parent
PY_BOTS = ROOT / "sample_bots" / "python"
STEADY = ROOT / "tests" / "bots" / "steady.py"
CLOCK = "{per_action_ms: 3000, bank_ms: 30000, grace_ms: 200, startup_ms: 30000}"
TIMEOUT_S = 120


def league_yaml(folder: Path, out: Path, *, steady: str | None = None) -> Path:
    """Three deterministic bots (one slow enough to be caught mid-match) in two duplicate events."""
    steady = steady or f"{sys.executable} {STEADY} 15"
    path = folder / "league.yaml"
    path.write_text(
        f"""\
name: cluster league
seed: 77
jobs: 2
out: {out}
bots:
  - {{name: steady, command: {steady}}}
  - {{name: random, command: {sys.executable} {PY_BOTS / "random_bot.py"}}}
  - {{name: strength, command: python {PY_BOTS / "strength_bot.py"}}}
game: {{variant: no-limit, blinds: [50, 100], stack: 10000, time: {CLOCK}}}
events:
  - {{name: heads-up, format: round-robin, table_size: 2, hands: 16, duplicate: true}}
  - {{name: three-max, format: round-robin, table_size: 3, hands: 6, duplicate: true}}
""",
        encoding="utf-8",
    )
    return path


def _session(sid: int) -> list[int]:
    """Live processes of session ``sid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z" and int(fields[3]) == sid:
                found.append(int(entry.name))
    return found


def _kill_session(sid: int) -> list[int]:
    """SIGKILL whatever is left of session ``sid``; return what was left."""
    left = _session(sid)
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return left


def dealer_run(*args: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``dealer run ARGS`` in a session of its own; nothing of that session may outlive it."""
    proc = subprocess.Popen(
        [str(BIN / "dealer"), "run", *map(str, args)],
        cwd=ROOT,
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        stdout, stderr = proc.communicate(timeout=TIMEOUT_S)
    finally:
        proc.kill()
        proc.wait()
        time.sleep(0.2)  # the cluster's processes end with their nanny
        left = _kill_session(proc.pid)
    assert left == [], f"processes of `dealer run` outlived it: {left}"
    return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)


def outputs(out: Path) -> tuple[bytes, bytes]:
    return (out / "results.json").read_bytes(), (out / "standings.txt").read_bytes()


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[bytes, bytes]:
    """The league's results.json and standings.txt from the local executor."""
    folder = tmp_path_factory.mktemp("local")
    proc = dealer_run(league_yaml(folder, folder / "out"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = json.loads((folder / "out" / "results.json").read_text(encoding="utf-8"))
    assert data["matches"]["finished"] == data["matches"]["total"] == 4
    assert all(line["faults"] == {} and line["hands"] > 0 for line in data["standings"]), data["log_tails"]
    return outputs(folder / "out")


def test_local_cluster_gives_the_local_results(reference: tuple[bytes, bytes], tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = dealer_run(league_yaml(tmp_path, out), "--executor", "dask", "--workers", "2")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert outputs(out) == reference
    assert processes_under(out) == []
    # Each worker logs the matches it played beside the coordinator's dealer.log.
    logs = sorted(out.glob("dealer.worker-*.log"))
    assert len(logs) == 2 and all(path.stat().st_mode & 0o777 == 0o600 for path in logs), logs
    text = "".join(path.read_text() for path in logs)
    assert len(re.findall(r" INFO dealer\.league\.match: match \S+ over: ", text)) == 4, text[-3000:]  # each match once
    assert not (out / ".dealer-workers").exists()


@pytest.fixture(scope="module")
def scheduler(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`dask scheduler` and two `dask worker` processes (one thread each) on 127.0.0.1."""
    folder = tmp_path_factory.mktemp("cluster")
    address_file = folder / "scheduler.json"
    procs = [
        subprocess.Popen(
            [
                str(BIN / "dask"),
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--no-dashboard",
                "--scheduler-file",
                str(address_file),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    ]
    try:
        deadline = time.monotonic() + 30
        while not address_file.exists() or not address_file.read_text():
            assert procs[0].poll() is None and time.monotonic() < deadline, "the scheduler did not start"
            time.sleep(0.1)
        address = json.loads(address_file.read_text())["address"]
        worker = [str(BIN / "dask"), "worker", address, "--nthreads", "1", "--host", "127.0.0.1", "--no-dashboard"]
        procs += [
            subprocess.Popen(worker, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
            for _ in range(2)
        ]
        with Client(address, timeout=30) as client:  # both joined before a test counts them (a loaded machine)
            client.wait_for_workers(2, timeout=60)
        yield address
    finally:
        for group in (procs[1:], procs[:1]):  # the workers first: left without a scheduler, they wait for it
            for proc in group:
                proc.terminate()
            for proc in group:
                try:
                    proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    pass
        for proc in procs:  # what did not stop in time (a loaded machine) is killed
            _kill_session(proc.pid)
        time.sleep(0.2)
        left = [pid for proc in procs for pid in _session(proc.pid)]
        assert left == [], f"dask processes survived SIGKILL: {left}"


@pytest.mark.slow  # fast: test_local_cluster_gives_the_local_results (Dask = local, byte for byte) and
# test_a_bot_missing_on_the_workers_stops_the_league_first (a league on this scheduler and its two workers)
def test_scheduler_and_two_workers_give_the_local_results(
    reference: tuple[bytes, bytes], scheduler: str, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    proc = dealer_run(league_yaml(tmp_path, out), "--executor", "dask", "--scheduler", scheduler)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert outputs(out) == reference
    assert processes_under(out) == []


def test_a_bot_missing_on_the_workers_stops_the_league_first(scheduler: str, tmp_path: Path) -> None:
    """`steadybot` is on the coordinator's PATH only: one line per worker names the bot, nothing is played."""
    programs = tmp_path / "bin"
    programs.mkdir()
    (programs / "steadybot").write_text(f"#!/bin/sh\nexec {sys.executable} {STEADY} 15\n", encoding="utf-8")
    (programs / "steadybot").chmod(0o755)
    out = tmp_path / "out"
    env = {**os.environ, "PATH": f"{programs}:{os.environ.get('PATH', '/usr/bin:/bin')}"}
    proc = dealer_run(
        league_yaml(tmp_path, out, steady="steadybot"), "--executor", "dask", "--scheduler", scheduler, env=env
    )
    assert proc.returncode == 2, proc.stderr[-3000:]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 2, proc.stderr
    assert all(
        line.startswith("error: worker tcp://127.0.0.1:") and line.endswith("bot 'steady': program steadybot not found")
        for line in lines
    )
    assert len({line.split()[2] for line in lines}) == 2  # both workers
    assert not (out / "results.json").exists() and not (out / "matches").exists()


def _worker_of(pids: dict[str, int]) -> int | None:
    """A worker process that has the steady bot among its descendants (it is playing one of its
    matches), found by the bot's command line: inside a sandbox its folders are not the host's."""
    for worker in pids.values():
        try:
            descendants = psutil.Process(worker).children(recursive=True)
        except psutil.Error:
            continue
        for process in descendants:
            try:
                if str(STEADY) in process.cmdline():
                    return worker
            except psutil.Error:
                continue
    return None


def _steady_playing(out: Path) -> bool:
    """Whether an instance of the steady bot has logged its first request in some match."""
    return any(log.stat().st_size > 0 for log in out.glob("matches/*/*/logs/steady.*.log"))


def test_a_worker_killed_mid_match(reference: tuple[bytes, bytes], tmp_path: Path) -> None:
    """SIGKILL the worker playing a match once its bots play: Dask plays it again elsewhere, and
    the league's results are byte for byte those of the local executor."""
    out = tmp_path / "out"
    config = load_league(league_yaml(tmp_path, out))
    commands = {bot.name: bot.command for bot in config.bots}
    before = {p.pid for p in _children()}
    killed: list[tuple[int, int]] = []  # (pid, matches finished at the kill)
    finished: list[str] = []

    async def league() -> None:
        async with dask_executor(commands, config.folder, out, workers=2) as executor:
            assert executor.client.scheduler.address.startswith("tls://127.0.0.1:")  # no bot can submit code
            pids = await executor.client.run(os.getpid)
            play = asyncio.ensure_future(run_league(config, executor, on_progress=lambda p: finished.append(p.done)))
            deadline = time.monotonic() + TIMEOUT_S
            while not killed and not play.done() and time.monotonic() < deadline:
                worker = _worker_of(pids)
                if worker is not None and _steady_playing(out):
                    os.kill(worker, signal.SIGKILL)
                    killed.append((worker, len(finished)))
                await asyncio.sleep(0.02)
            await play

    try:
        asyncio.run(league())
    finally:
        left = [p for p in _children() if p.pid not in before]
        for process in left:
            process.kill()
    assert killed, "no match of the steady bot was caught in play"
    assert left == [], f"processes of the cluster outlived it: {left}"
    _, done_then = killed[0]
    assert done_then < len(finished) == 4  # the league went on after the kill, to the end
    assert outputs(out) == reference
    assert processes_under(out) == []


def _children() -> list[psutil.Process]:
    """This process's live descendants, but multiprocessing's resource tracker (it ends with us)."""
    found = []
    for process in psutil.Process().children(recursive=True):
        try:
            if process.status() != psutil.STATUS_ZOMBIE and "resource_tracker" not in " ".join(process.cmdline()):
                found.append(process)
        except psutil.NoSuchProcess:
            pass
    return found


def test_validation_launch_and_workers_check_a_program_alike(tmp_path: Path) -> None:
    """A program that exists but is not executable, or a name not on PATH: the league file's
    validation, the launch and a Dask worker's check say the same (the launch and the workers said
    "not found" of a file that is there)."""
    from dealer.config.league_file import Limits, parse_league
    from dealer.errors import ConfigError
    from dealer.isolation.processes import BotProcess
    from dealer.league.cluster import MARKER, Needs, _code_hash, worker_problems

    script = tmp_path / "bot.sh"
    script.write_text("#!/bin/sh\n", encoding="utf-8")
    script.chmod(0o644)
    (tmp_path / MARKER).write_text("m", encoding="utf-8")
    for program, problem in ((str(script), "is not executable"), ("no-such-program-xyz", "not found")):
        league = f"name: p\nbots:\n  - {{name: a, command: [{program}]}}\n  - {{name: b, command: [{program}]}}\n"
        league += "events:\n  - {name: e, format: round-robin, table_size: 2, hands: 2}\n"
        with pytest.raises(ConfigError) as error:
            parse_league(league, str(tmp_path / "league.yaml"))
        assert f"bot 'a': program {program!r} {problem}" in str(error.value)
        with pytest.raises(OSError) as failure:
            asyncio.run(
                BotProcess.launch(
                    "a",
                    [program],
                    address="unix:/nowhere",
                    token="t",
                    base=tmp_path,
                    workdir=tmp_path / "scratch",
                    log_path=tmp_path / "a.log",
                    limits=Limits(sandbox="off", network="host"),
                )
            )
        assert str(failure.value) == f"bot 'a': program {program!r} {problem}"
        problems = worker_problems({"a": Needs(program, ())}, str(tmp_path), "m", _code_hash())
        assert problems == [f"bot 'a': program {program} {problem}"]
