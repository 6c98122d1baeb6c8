"""Builds in the bots' sandbox and the smoke test, on both databases: a Python bot with nothing to
build, a C bot compiled by its build command, a build that fails, a build that tries the network,
and a bot that builds but crashes in its smoke match; each outcome and its log as its team sees it."""

from __future__ import annotations

import asyncio
import io
import os
import re
import tarfile
from pathlib import Path

import pytest

from conftest import ROOT
from dealer.arena import toolchains
from dealer.arena.archive import unpack
from dealer.arena.builds import Builder, BuildOutcome
from dealer.arena.cluster import DaskBuilds
from dealer.arena.config import ArenaConfig, BuildLimits
from dealer.arena.layout import build_log, smoke_bot_logs
from dealer.arena.model import BuildState, Version
from dealer.arena.store.schema import migrate
from dealer.arena.store.teams import open_repository
from dealer.arena.toolchains import Toolchain, missing_toolchain, offers
from dealer.config.league_file import game_config
from dealer.isolation import sandbox
from dealer.league.cluster import dask_executor

FAST = {"per_action_ms": 2000, "bank_ms": 20000, "grace_ms": 200, "startup_ms": 20000}


def archive(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


PYTHON_BOT = {
    "bot.yaml": b"protocol: stdio\nrun: python3 bot.py\n",
    "bot.py": (ROOT / "sample_bots" / "python" / "stdio_bot.py").read_bytes(),
}
C_BOT = {
    "bot.yaml": b"protocol: stdio\nbuild: cc -O2 -o bot bot.c\nrun: ./bot\n",
    "bot.c": (ROOT / "sample_bots" / "c" / "bot.c").read_bytes(),
}
BROKEN = {"bot.yaml": b"protocol: stdio\nbuild: cc -o bot bot.c\nrun: ./bot\n", "bot.c": b"int main( {\n"}
NETWORK = {
    "bot.yaml": b"protocol: stdio\nbuild: python3 fetch.py\nrun: python3 fetch.py\n",
    "fetch.py": b"import socket\nsocket.create_connection(('1.1.1.1', 53), timeout=5)\n",
}
CRASHER = {"bot.yaml": b"protocol: stdio\nrun: python3 bot.py\n", "bot.py": b"raise SystemExit('no poker today')\n"}


def test_versions_are_built_and_smoke_tested_in_the_sandbox(arena_database: str, tmp_path: Path) -> None:
    config = ArenaConfig(
        storage=tmp_path / "storage",
        database=arena_database,
        build=BuildLimits(timeout_s=120, smoke_hands=5),
        game=game_config(time=FAST),
    )
    asyncio.run(migrate(arena_database))

    async def scenario() -> list[Version]:
        async with open_repository(arena_database) as repository:
            team, _ = await repository.add_team("alpha")
            builder = Builder(repository, config)
            built = []
            for files in (PYTHON_BOT, C_BOT, BROKEN, NETWORK, CRASHER):
                stored = unpack(archive(files), config.storage, config.submissions)
                version, _ = await repository.add_version(
                    team,
                    digest=stored.digest,
                    files=stored.files,
                    size=stored.size,
                    protocol=stored.manifest.protocol,
                    run=stored.manifest.run,
                    build=stored.manifest.build,
                )
                builder.queued(version)
            task = asyncio.create_task(builder.run())
            await asyncio.wait_for(builder.queue.join(), 300)
            task.cancel()
            built = await repository.versions(team)
            return built

    python, c, broken, network, crasher = asyncio.run(scenario())
    logs = {
        v.label: build_log(config.storage, v).read_text(encoding="utf-8") for v in (python, c, broken, network, crasher)
    }
    assert python.state is BuildState.READY, logs["v1"]
    assert (
        python.smoke is not None and python.smoke["ok"] and python.smoke["hands"] == 10 and python.smoke["faults"] == {}
    )
    assert "[arena] smoke test passed: 10 hands, no fault" in logs["v1"] and "build:" not in logs["v1"]
    assert c.state is BuildState.READY, logs["v2"]
    assert "[arena] build: cc -O2 -o bot bot.c\n" in logs["v2"] and "[arena] build done in " in logs["v2"]
    assert (config.storage / "builds" / str(c.id) / "bot").is_file()
    assert not (config.storage / "versions" / c.digest / "bot").exists(), "the stored files stay as submitted"
    kept = sorted(int(p.name) for p in (config.storage / "builds").iterdir())
    assert kept == [python.id, c.id], "a failed version's build folder is not kept (its log is)"
    assert not any((config.storage / "tools").iterdir()), "a build's PATH goes with its build"
    smokes = sorted((config.storage / "smoke").iterdir())
    assert smokes and not any((s / "scratch").exists() for s in smokes), "the smoke bots' files are not kept"
    assert all(list((s / "logs").glob("candidate*.log")) for s in smokes), "their logs are"
    assert broken.state is BuildState.FAILED and broken.smoke is None
    assert "error" in logs["v3"] and "[arena] build failed: exit code 1 after " in logs["v3"], logs["v3"]
    assert network.state is BuildState.FAILED and "Network is unreachable" in logs["v4"], logs["v4"]
    assert crasher.state is BuildState.FAILED, logs["v5"]
    assert crasher.smoke is not None and not crasher.smoke["ok"]
    assert "[arena] smoke test failed" in logs["v5"] and "no poker today" in logs["v5"], logs["v5"]


@pytest.mark.parametrize(
    ("cap", "command", "expected"),
    [
        ("time", "sleep 60", "[arena] build killed: it ran past its 3 s"),
        ("output", "yes arena", "[log truncated: size limit reached]"),
        ("memory", "python3 -c 'b = bytearray(512 * 2**20)'", "[arena] build failed: out of memory (64 MB)"),
        ("read-only system", "touch /usr/arena-was-here", "Read-only file system"),
    ],
)
def test_a_build_is_capped(tmp_path: Path, cap: str, command: str, expected: str) -> None:
    database = f"sqlite+aiosqlite:///{tmp_path / 'arena.db'}"
    caps = BuildLimits(timeout_s=3, log_kb=4, memory_mb=64)
    config = ArenaConfig(storage=tmp_path / "storage", database=database, build=caps)
    files = {"bot.yaml": f"protocol: stdio\nbuild: {command}\nrun: ./bot\n".encode()}
    asyncio.run(migrate(database))

    async def scenario() -> Version:
        async with open_repository(database) as repository:
            team, _ = await repository.add_team("alpha")
            stored = unpack(archive(files), config.storage, config.submissions)
            version, _ = await repository.add_version(
                team, digest=stored.digest, files=1, size=1, protocol="stdio", run=("./bot",), build=command
            )
            return await Builder(repository, config).build(version)

    version = asyncio.run(asyncio.wait_for(scenario(), 60))
    log = build_log(config.storage, version).read_text(encoding="utf-8")
    assert version.state is BuildState.FAILED and version.smoke is None, log
    assert expected in log, log
    if cap == "output":
        assert len(log.encode()) < 4 * 1024 + 500 and log.count("\narena\n") > 100
    assert not Path("/usr/arena-was-here").exists()


def test_a_build_cut_off_by_a_stopped_server_is_built_at_the_next_start(tmp_path: Path) -> None:
    database = f"sqlite+aiosqlite:///{tmp_path / 'arena.db'}"
    config = ArenaConfig(
        storage=tmp_path / "storage", database=database, build=BuildLimits(smoke_hands=3), game=game_config(time=FAST)
    )
    asyncio.run(migrate(database))

    async def scenario() -> list[Version]:
        async with open_repository(database) as repository:
            team, _ = await repository.add_team("alpha")
            added = []
            for files in (PYTHON_BOT, {**PYTHON_BOT, "notes": b"2"}):
                stored = unpack(archive(files), config.storage, config.submissions)
                version, _ = await repository.add_version(
                    team, digest=stored.digest, files=2, size=1, protocol="stdio", run=("python3", "bot.py"), build=None
                )
                added.append(version)
            await repository.set_state(added[0], BuildState.BUILDING)  # the server stopped mid-build
            assert [v.number for v in await repository.unfinished()] == [1, 2]
            builder = Builder(repository, config)  # a fresh server: nothing handed over yet
            assert await builder.recover() == 2
            task = asyncio.create_task(builder.work())
            await builder.queue.join()
            task.cancel()
            assert await repository.unfinished() == []
            return await repository.versions(team)

    versions = asyncio.run(asyncio.wait_for(scenario(), 240))
    assert [v.state for v in versions] == [BuildState.READY, BuildState.READY]


def test_a_build_has_only_the_offered_toolchains_on_its_path(tmp_path: Path) -> None:
    """Offered python alone: the build runs the dealer's Python with the SDK, finds neither node nor
    cc on its PATH, and fails on cc with a line naming the toolchain it is not offered."""
    database = f"sqlite+aiosqlite:///{tmp_path / 'arena.db'}"
    caps = BuildLimits(timeout_s=30, toolchains=(Toolchain.PYTHON,))
    config = ArenaConfig(storage=tmp_path / "storage", database=database, build=caps)
    command = "echo TOOLS: $(ls /run/tools); python3 -c 'import pokerbot; print(\"sdk ok\")'; cc -o bot bot.c"
    asyncio.run(migrate(database))

    async def scenario() -> Version:
        async with open_repository(database) as repository:
            team, _ = await repository.add_team("alpha")
            stored = unpack(
                archive({**C_BOT, "bot.yaml": b"protocol: stdio\nrun: ./bot\n"}), config.storage, config.submissions
            )
            version, _ = await repository.add_version(
                team, digest=stored.digest, files=2, size=1, protocol="stdio", run=("./bot",), build=command
            )
            return await Builder(repository, config).build(version)

    version = asyncio.run(asyncio.wait_for(scenario(), 60))
    log = build_log(config.storage, version).read_text(encoding="utf-8")
    assert version.state is BuildState.FAILED, log
    assert "[arena] toolchains: python (and the shell's basic tools)\n" in log and "sdk ok\n" in log, log
    assert (
        "[arena] build failed: it calls cc, of the toolchain gcc, which this arena does not offer "
        "(build.toolchains: python; exit code 127)"
    ) in log, log
    on_path = re.findall(r"^TOOLS: (.*)$", log, re.MULTILINE)[0].split()
    assert {"python3", "sh", "cat"} <= set(on_path) and not {"cc", "gcc", "node", "javac", "rustc"} & set(on_path)


def test_a_missing_command_is_named_with_its_toolchain() -> None:
    offered = (Toolchain.PYTHON,)
    assert missing_toolchain("sh: 2: javac: not found\n", offered) == ("javac", Toolchain.JAVAC)
    assert missing_toolchain("bash: line 1: cargo: command not found\n", offered) == ("cargo", Toolchain.RUSTC)
    assert missing_toolchain("make: g++: No such file or directory\n", offered) == ("g++", Toolchain.GCC)
    assert missing_toolchain("sh: 1: frobnicate: not found\n", offered) == ("frobnicate", None)
    assert missing_toolchain("error: bot.c:1: expected ')'\n", offered) is None


def test_builds_run_on_dask_workers_as_matches_do(tmp_path: Path) -> None:
    """A LocalCluster of one worker process builds and smoke-tests a C bot: the server records the
    outcome, the worker's own log (in the storage folder) shows it did the work."""
    database = f"sqlite+aiosqlite:///{tmp_path / 'arena.db'}"
    config = ArenaConfig(
        storage=tmp_path / "storage", database=database, build=BuildLimits(smoke_hands=3), game=game_config(time=FAST)
    )
    asyncio.run(migrate(database))

    async def scenario() -> Version:
        async with open_repository(database) as repository:
            team, _ = await repository.add_team("alpha")
            stored = unpack(archive(C_BOT), config.storage, config.submissions)
            version, _ = await repository.add_version(
                team, digest=stored.digest, files=2, size=1, protocol="stdio", run=("./bot",), build="cc -o bot bot.c"
            )
            async with dask_executor({}, config.storage, config.storage, workers=1) as cluster:
                return await Builder(repository, config, DaskBuilds(cluster, config)).build(version)

    version = asyncio.run(asyncio.wait_for(scenario(), 180))
    log = build_log(config.storage, version).read_text(encoding="utf-8")
    assert version.state is BuildState.READY and version.smoke is not None and version.smoke["hands"] == 6, log
    assert "[arena] build done in " in log and "[arena] smoke test passed: 6 hands" in log
    (worker_log,) = config.storage.glob("dealer.worker-*.log")
    assert f"version {version.id} (v1): building" in worker_log.read_text(encoding="utf-8")
    assert int(worker_log.stem.rsplit("-", 1)[1]) != os.getpid(), "built by the worker's process, not this one"


def test_a_toolchain_this_machine_lacks_is_offered_as_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    real = toolchains.shutil.which
    monkeypatch.setattr(toolchains.shutil, "which", lambda name: None if name in ("javac", "jar") else real(name))
    python, javac = offers((Toolchain.PYTHON, Toolchain.JAVAC))
    assert python.available and python.commands == ("python3", "python")
    assert not javac.available and "javac" not in javac.commands and "jar" not in javac.commands


FORKER = b"""import os, sys, time
forked = 0
try:
    for _ in range(300):
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
        forked += 1
except OSError as error:
    print(f"forked {forked}, then: {error.strerror}", flush=True)
else:
    print(f"forked {forked}, never stopped", flush=True)
"""


def test_a_build_that_forks_past_its_processes_cap_is_stopped_at_the_cap(tmp_path: Path) -> None:
    """build.processes holds without limits.user (a pids cgroup, issue 31 item 6): a build that forks
    300 sleepers gets no more than its cap of 16 tasks (its shell and Python count)."""
    database = f"sqlite+aiosqlite:///{tmp_path / 'arena.db'}"
    config = ArenaConfig(storage=tmp_path / "storage", database=database, build=BuildLimits(timeout_s=30, processes=16))
    assert config.limits.user is None
    assert sandbox.pids_hierarchy() is not None, (
        "the dealer cannot make pids cgroups here (root, with cgroup v1's pids controller or v2's pids "
        "enabled for its cgroup): processes is then RLIMIT_NPROC, with limits.user alone"
    )
    asyncio.run(migrate(database))

    async def scenario() -> Version:
        async with open_repository(database) as repository:
            team, _ = await repository.add_team("alpha")
            files = {"bot.yaml": b"protocol: stdio\nbuild: python3 fork.py\nrun: ./bot\n", "fork.py": FORKER}
            stored = unpack(archive(files), config.storage, config.submissions)
            version, _ = await repository.add_version(
                team, digest=stored.digest, files=2, size=1, protocol="stdio", run=("./bot",), build="python3 fork.py"
            )
            return await Builder(repository, config).build(version)

    version = asyncio.run(asyncio.wait_for(scenario(), 60))
    log = build_log(config.storage, version).read_text(encoding="utf-8")
    found = re.search(r"forked (\d+), then: Resource temporarily unavailable", log)
    assert found is not None, log
    assert 10 <= int(found[1]) <= 14, log  # 16 tasks: the shell, Python and its children
    assert "[arena] build done in " in log, log


def test_a_team_waits_behind_its_own_builds_not_another_teams(tmp_path: Path) -> None:
    """Builds get a fair share per team (issue 31, item 5): team A queues five slow builds, team B
    one while A's first is building; B's starts next, then A's others, in their order."""
    database = f"sqlite+aiosqlite:///{tmp_path / 'arena.db'}"
    config = ArenaConfig(storage=tmp_path / "storage", database=database)
    asyncio.run(migrate(database))
    order: list[str] = []

    async def scenario() -> None:
        async with open_repository(database) as repository:
            building = asyncio.Event()

            async def slow(version: Version) -> BuildOutcome:
                order.append(f"{names[version.team_id]}{version.label}")
                building.set()
                await asyncio.sleep(0.05)  # a slow build, standing for one that runs to its timeout
                return BuildOutcome(True, {"ok": True})

            builder = Builder(repository, config, slow)
            teams = {name: (await repository.add_team(name))[0] for name in ("a", "b")}
            names = {team.id: name for name, team in teams.items()}

            async def submit(name: str, k: int) -> None:
                digest = f"{name}{k}".ljust(64, "0")
                version, _ = await repository.add_version(
                    teams[name], digest=digest, files=1, size=1, protocol="stdio", run=("x",), build=None
                )
                builder.queued(version)

            for k in range(5):
                await submit("a", k)
            worker = asyncio.create_task(builder.work())
            await building.wait()  # a's v1 is building
            await submit("b", 0)
            await asyncio.wait_for(builder.queue.join(), 30)
            worker.cancel()

    asyncio.run(scenario())
    assert order == ["av1", "bv1", "av2", "av3", "av4", "av5"]


UID_BOT = {
    "bot.yaml": b"protocol: stdio\nbuild: python3 uid.py build\nrun: python3 uid.py bot\n",
    "uid.py": (
        b"import os, runpy, sys\n"
        b"print(f'{sys.argv[1]} runs as {os.getuid()}:{os.getgid()}', file=sys.stderr, flush=True)\n"
        b"if sys.argv[1] == 'bot':\n"
        b"    runpy.run_path(os.path.join(os.path.dirname(__file__), 'bot.py'), run_name='__main__')\n"
    ),
    "bot.py": PYTHON_BOT["bot.py"],
}


def test_each_team_builds_and_plays_as_a_uid_of_its_own(tmp_path: Path) -> None:
    """team_uids (issue 31, item 12): every team's build and bot run as team_uids + its id, so no two
    teams share a user (its files, its RLIMIT_NPROC); the build folder is that user's alone."""
    if os.geteuid() != 0:
        pytest.fail("running bots as other users needs root; CI runs the tests as root")
    database = f"sqlite+aiosqlite:///{tmp_path / 'arena.db'}"
    config = ArenaConfig(
        storage=tmp_path / "storage",
        database=database,
        build=BuildLimits(timeout_s=60, smoke_hands=2),
        game=game_config(time=FAST),
        team_uids=300_000,
    )
    asyncio.run(migrate(database))

    async def scenario() -> list[Version]:
        async with open_repository(database) as repository:
            builder = Builder(repository, config)
            built = []
            for name in ("alpha", "beta"):
                team, _ = await repository.add_team(name)
                files = {**UID_BOT, "team": name.encode()}
                stored = unpack(archive(files), config.storage, config.submissions)
                version, _ = await repository.add_version(
                    team,
                    digest=stored.digest,
                    files=4,
                    size=1,
                    protocol="stdio",
                    run=stored.manifest.run,
                    build=stored.manifest.build,
                )
                built.append(await builder.build(version))
            return built

    for version in asyncio.run(asyncio.wait_for(scenario(), 120)):
        uid = 300_000 + version.team_id
        log = build_log(config.storage, version).read_text(encoding="utf-8")
        assert version.state is BuildState.READY, log
        assert f"build runs as {uid}:{uid}\n" in log, log
        bot_logs = "".join(p.read_text() for p in smoke_bot_logs(config.storage, version))
        assert bot_logs.count(f"bot runs as {uid}:{uid}") == 2, bot_logs  # both instances of the smoke test
        folder = config.storage / "builds" / str(version.id)
        assert (folder.stat().st_uid, folder.stat().st_mode & 0o777) == (uid, 0o700)
