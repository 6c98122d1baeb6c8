"""Isolation end to end: hostile bots (tests/bots/) against a real dealer.

Each test plays short real matches and checks that the hostile bot is contained (its sandbox, its
limit, its user, the token check, the flood cut-off) while the honest bots' results stand. Every
channel a bot might use to learn or keep what it should not has a hostile bot here; where the
sandbox is what stops it, a contrast run with ``sandbox: off`` shows the channel is real. Tests
that need root (bots run as their own users, setns, memory cgroups) fail, not skip, without it: CI
runs them as root. The numeric users (61001, ...) need no passwd entry.
Matches are sealed duplicate heads-up: each bot runs ``INSTANCES`` processes, one per rotation
(``bot.k``), each in its own sandbox, and faults are counted per instance.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import grpc
import pytest
import yaml
from typer.testing import CliRunner

from conftest import processes_under
from dealer.cli.main import app
from dealer.config.league_file import Limits, game_config, parse_league
from dealer.connect.server import MAX_WAITING_PER_PEER, DealerServer, Fault
from dealer.engine.scheduler import plan_tables
from dealer.isolation import sandbox
from dealer.league.match import Match, MatchBot, MatchPlan
from dealer.league.run import sealing
from dealer.stats.records import MatchResult
from poker.v1 import dealer_pb2 as pb

ROOT = Path(__file__).resolve().parents[1]
BOTS = ROOT / "tests" / "bots"
PY = ROOT / "sample_bots" / "python"
HONEST = ("python", str(PY / "random_bot.py"))
CALLER = ("python", str(PY / "call_bot.py"))
TIME = {"per_action_ms": 200, "bank_ms": 300, "grace_ms": 50, "startup_ms": 15000}
GAME = game_config(time=TIME)
MATCH_TIMEOUT_S = 60
USERS = (61001, 61002, 61003)
OFF = Limits(sandbox="off")
DEALER = Path(sys.executable).with_name("dealer")
INSTANCES = 2  # a sealed heads-up duplicate match runs two processes of each bot, one per rotation


def bot(script: str, *args: str) -> tuple[str, ...]:
    return ("python", str(BOTS / script), *args)


def need_root(what: str) -> None:
    if os.geteuid() != 0:
        pytest.fail(f"{what} needs the dealer (the tests) to run as root; CI runs them as root")


def plan(name: str, seats: list[str], *, hands: int = 4, tables: int = 1, game=GAME) -> MatchPlan:
    return MatchPlan(name, plan_tables(seats, duplicate=True, tables=tables, prefix=name), game, hands=hands, seed=11)


async def play_async(server: DealerServer, matches: list[tuple[MatchPlan, dict[str, MatchBot], Path]]):
    """Play matches at once on a started server."""
    runs = [Match(p, server, entries, out=out, base=ROOT, records=True).run() for p, entries, out in matches]
    return await asyncio.wait_for(asyncio.gather(*runs), MATCH_TIMEOUT_S)


def run_one(
    out: Path, entries: dict[str, MatchBot], *, hands: int = 4, game=GAME, entries_for=None
) -> tuple[MatchResult, DealerServer]:
    """One match honest-vs-bad; ``entries_for(server)`` builds entries that need the server's address."""

    async def main():
        async with DealerServer() as server:
            chosen = entries_for(server) if entries_for else entries
            (result,) = await play_async(server, [(plan("iso", list(chosen), hands=hands, game=game), chosen, out)])
        return result, server

    return asyncio.run(main())


def recorded_pids(out: Path, name: str) -> list[int]:
    """The pids every instance of bot ``name`` recorded (in its own pid namespace when sandboxed: count them,
    do not signal them)."""
    return [int(x) for path in sorted((out / "scratch").glob(f"{name}.*/pids.txt")) for x in path.read_text().split()]


def assert_gone(out: Path) -> None:
    """No process of the match's bots is left: none is under ``out`` or mounts a part of it."""
    deadline = time.monotonic() + 3
    while processes_under(out) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = processes_under(out)
    for pid, _ in left:  # do not leave them to the next test
        os.kill(pid, signal.SIGKILL)
    assert not left, f"processes left running: {left}"


def with_marker(marker: str) -> list[int]:
    """Live processes (other than this one) with ``marker`` on their command line."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


def assert_stands(result: MatchResult, honest: str = "honest", hands: int = 4, tables: int = 2) -> None:
    assert result.hands == hands * tables
    assert all(sum(r.net.values()) == 0 for r in result.records), "chips not conserved"
    assert result.faults.get(honest, {}) == {}, result.log_tails


def log(out: Path, name: str = "bad", instance: int = 0) -> str:
    return (out / "logs" / f"{name}.{instance}.log").read_text(errors="replace")


# ------------------------------------------------------------------------------------ the sandbox


def test_a_sandboxed_bot_sees_a_read_only_system_its_home_and_its_own_processes_only(tmp_path: Path) -> None:
    league = ROOT / "tournaments.yaml"
    limits = Limits(tmp_mb=8, home_mb=6)
    entries = {
        "honest": MatchBot("honest", HONEST),
        "bad": MatchBot(
            "bad", bot("sandbox_view.py", f"see:{tmp_path}", f"see:{league}", f"see:{sys.prefix}"), limits=limits
        ),
    }
    result, _ = run_one(tmp_path, entries)
    assert_stands(result)
    assert result.faults["bad"] == {}, result.log_tails
    text = log(tmp_path)
    assert "caps 0000000000000000\n" in text and "no_new_privs 1\n" in text, text
    for place in ("/", "/usr", "/etc", "/dev", str(BOTS), "/home"):  # "/home" is the folder above HOME
        assert f"write {place}: Read-only file system" in text, text
    for place in ("/home/bot", "/tmp", "/dev/shm"):
        assert f"write {place}: ok" in text, text
    assert "tmp holds 7 MiB" in text and "shm holds 7 MiB" in text, text  # capped at tmp_mb = 8
    assert "home holds 5 MiB" in text, text  # capped at home_mb = 6 (and its probe file)
    assert f"mountinfo hides {tmp_path}" in text, text  # HOME is a tmpfs: no host path of the output folder
    fds = dict(re.findall(r"^fds of pid (\d+): (.*)$", text, re.M))  # bwrap's init, the launcher
    assert len(fds) == 2 and not any(str(tmp_path) in links for links in fds.values()), fds
    assert set(fds["2"].split(" | ")) == {"Permission denied"}, fds  # it holds the scratch folder open
    assert "shadow: Permission denied" in text and "hostname bot" in text, text
    assert "home /home/bot cwd /home/bot" in text, text
    assert f"hidden {tmp_path}" in text and f"hidden {league}" in text, text  # no output folder, no league file
    assert f"sees {sys.prefix}" in text, text  # the dealer's venv, which the sample bots run on
    assert re.search(r"^fds \[0, 1, 2, \d+\]$", text, re.M), text  # nothing of the dealer's inherited
    processes = re.search(r"^processes: (.*)$", text, re.M).group(1).split(" | ")
    assert len(processes) == 3, processes  # the sandbox's init, the launcher, the bot itself
    assert (
        "bwrap --args" in processes[0]
        and " -I -S " in processes[1]  # the launcher: the standard library only, no site (a shorter start)
        and "/dealer/isolation/launch.py " in processes[1]
        and "sandbox_view.py" in processes[2]
    )
    assert_gone(tmp_path)


def test_a_relative_output_folder_is_found_inside_the_sandbox(tmp_path: Path, monkeypatch) -> None:
    """As `make league` runs (out: out/thursday, from the checkout): the scratch folder is relative."""
    monkeypatch.chdir(tmp_path)
    result, _ = run_one(Path("out"), {"honest": MatchBot("honest", HONEST), "caller": MatchBot("caller", CALLER)})
    assert result.faults == {"honest": {}, "caller": {}}, result.log_tails
    assert result.hands == 4 * INSTANCES


def test_a_launcher_whose_dealer_is_gone_kills_its_bot_and_exits(tmp_path: Path) -> None:
    """The launcher's last guard against an orphaned sandbox: the dealer's end of its output pipe
    closes (as when the dealer dies before bwrap's death signal is set) and the bot goes too."""
    marker = f"orphan-{secrets.token_hex(6)}"
    launcher = subprocess.Popen(
        [
            sys.executable,
            "-I",
            "-m",
            "dealer.isolation.launch",
            "--",
            sys.executable,
            "-c",
            "import sys, time; print('up', flush=True); time.sleep(3600)",
            marker,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        assert launcher.stdout.readline() == b"up\n"
        assert len(with_marker(marker)) == 2  # the launcher and the bot
        launcher.stdout.close()  # the dealer's side of the pipe is gone; the launcher is its child still
        launcher.wait(timeout=10)
        assert with_marker(marker) == []
    finally:
        launcher.kill()
        for pid in with_marker(marker):
            os.kill(pid, signal.SIGKILL)


def test_two_instances_of_one_bot_cannot_meet(tmp_path: Path) -> None:
    """Files in /tmp, /dev/shm, $HOME and the folder above it, and an abstract Unix socket: with the
    sandbox they meet through none; without it (the contrast) through the shared ones."""
    seats = {"r1": MatchBot("r1", bot("rendezvous.py")), "r2": MatchBot("r2", bot("rendezvous.py"))}
    result, _ = run_one(tmp_path / "on", seats)
    assert result.faults == {"r1": {}, "r2": {}}, result.log_tails
    for name in seats:
        text = log(tmp_path / "on", name)
        assert "met 0 times" in text, text
        assert "cannot write above home: Read-only file system" in text, text
    seats = {name: MatchBot(name, bot("rendezvous.py"), limits=OFF) for name in seats}
    result, _ = run_one(tmp_path / "off", seats)
    for name in seats:
        text = log(tmp_path / "off", name)
        for channel in ("tmp", "shm", "above home", "abstract socket"):
            assert f"met via {channel}" in text, text
        assert "met via home" not in text  # each has its own scratch folder either way


def test_bots_see_no_other_process_no_other_token_and_no_dealer_command_line(tmp_path: Path) -> None:
    """env_reader searches /proc for other bots' tokens and for a seed on any command line, and the
    output folder for tokens; the dealer is run as ``dealer match --seed-file`` with it as a root bot."""
    need_root("this test (a root bot without its own user could read every environment unsandboxed)")
    out = tmp_path / "out"
    seed = tmp_path / "seed.txt"
    seed.write_text("a-seed-for-the-isolation-test-0123\n")
    argv = [
        str(DEALER),
        "match",
        f"python {BOTS / 'env_reader.py'} {out}",
        f"python {BOTS / 'env_reader.py'}",
        "--hands",
        "4",
        "--seed-file",
        str(seed),
        "--per-action-ms",
        "200",
        "--out",
        str(out),
    ]
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    for name in ("env_reader", "env_reader-2"):
        text = log(out, name)
        assert "found 0 other tokens" in text and "seed on a command line: 0" in text, text
        # the sandbox's init and itself: the launcher, which holds the scratch folder open, is not dumpable
        assert "readable environ: 2\n" in text, text
        assert "env keys: HOME PATH POKER_DEALER POKER_TOKEN PWD PYTHONUNBUFFERED\n" in text, text  # bwrap sets PWD
    results = json.loads((out / "results.json").read_text())
    assert results["sandbox"] == {"env_reader": "on", "env_reader-2": "on"}
    # The contrast, and what `sandbox: off` is documented to allow: a root bot reads every environment.
    done = subprocess.run(
        [*argv[:-1], str(tmp_path / "off"), "--sandbox", "off"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "UNSAFE" in done.stderr
    text = log(tmp_path / "off", "env_reader")
    assert "found 0 other tokens" not in text and "seed on a command line: 0" not in text, text
    results = json.loads((tmp_path / "off" / "results.json").read_text())
    assert results["sandbox"] == {"env_reader": "off", "env_reader-2": "off"}


def test_setns_into_the_dealers_network_namespace_is_refused(tmp_path: Path) -> None:
    need_root("setns (a root bot)")

    def entries_for(server: DealerServer) -> dict[str, MatchBot]:
        return {
            "honest": MatchBot("honest", HONEST),
            "bad": MatchBot("bad", bot("setns_bot.py", server.address, str(os.getpid()))),
        }

    result, _ = run_one(tmp_path, {}, entries_for=entries_for)
    assert_stands(result)
    assert result.faults["bad"] == {}, result.log_tails
    text = log(tmp_path)
    assert f"setns /proc/{os.getpid()}/ns/net: No such file or directory" in text, text  # no dealer in sight
    assert re.search(r"^setns /proc/\d+/ns/net: Operation not permitted$", text, re.M), text  # no capability
    assert ": ok" not in text and re.search(r"^blocked 127\.0\.0\.1:\d+: ", text, re.M), text


def test_killing_the_launcher_leaves_no_daemon_behind(tmp_path: Path, monkeypatch) -> None:
    marker = f"daemon-{secrets.token_hex(6)}"
    entries = {"honest": MatchBot("honest", HONEST), "bad": MatchBot("bad", bot("kill_launcher.py", marker))}

    def daemons_after(folder: str) -> list[int]:
        result, _ = run_one(tmp_path / folder, entries)
        assert_stands(result)
        assert "killing launcher" in log(tmp_path / folder) and result.faults["bad"], result.faults
        deadline = time.monotonic() + 3
        while with_marker(marker) and time.monotonic() < deadline:
            time.sleep(0.05)
        return with_marker(marker)

    assert daemons_after("on") == []  # the sandbox's pid namespace ended with its first process
    entries["bad"] = MatchBot("bad", bot("kill_launcher.py", marker), limits=OFF)
    if os.geteuid() == 0 and sandbox.memory_hierarchy() is not None:
        assert daemons_after("cgroup") == []  # unsandboxed, its memory cgroup still holds the daemon
    # The contrast (documented for `sandbox: off` where no cgroup can be made): the daemon escapes to init.
    monkeypatch.setattr(sandbox, "memory_hierarchy", lambda: None)
    monkeypatch.setattr(sandbox, "cpu_hierarchy", lambda: None)  # the CPU cgroup would hold it too
    monkeypatch.setattr(sandbox, "pids_hierarchy", lambda: None)  # and the pids cgroup
    run_one(tmp_path / "off", entries)
    escaped = with_marker(marker)
    for pid in escaped:
        os.kill(pid, signal.SIGKILL)
    assert len(escaped) == INSTANCES, escaped  # one per instance


def test_a_sandbox_that_cannot_start_is_a_start_failure_that_says_why(tmp_path: Path, monkeypatch) -> None:
    """As on a machine that forbids namespaces: bwrap fails, every sandboxed bot's start fails with
    one line (why, and what to change), and a bot with ``sandbox: off`` still plays."""
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create a new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setattr(sandbox, "bwrap_path", lambda: str(fake))
    sandbox.check.cache_clear()
    try:
        entries = {"honest": MatchBot("honest", HONEST, limits=OFF), "bad": MatchBot("bad", CALLER)}
        result, _ = run_one(tmp_path / "out", entries)
    finally:
        sandbox.check.cache_clear()
    assert result.faults == {"honest": {}, "bad": {Fault.START: INSTANCES}}, result.faults
    lines = result.log_tails["bad"].splitlines()  # one line under each instance's [bad.k]
    assert lines[0::2] == [f"[bad.{k}]" for k in range(INSTANCES)] and len(lines) == 2 * INSTANCES, lines
    for message in lines[1::2]:
        assert "No permissions to create a new namespace" in message and "sandbox: off` (unsafe)" in message, lines


# ------------------------------------------------------------------------------------ limits


@pytest.mark.parametrize("memory", ["cgroup", "rlimit"])
def test_memory_hog_is_stopped_by_its_limit_with_reason_memory(tmp_path: Path, memory: str, monkeypatch) -> None:
    if memory == "cgroup":
        need_root("a memory cgroup")
        if sandbox.memory_hierarchy() is None:
            pytest.fail("the dealer cannot create a memory cgroup here (cgroup v1 memory or v2 with memory)")
    else:  # a machine that allows no memory cgroup: RLIMIT_DATA
        monkeypatch.setattr(sandbox, "memory_hierarchy", lambda: None)
    entries = {
        "honest": MatchBot("honest", HONEST),
        "bad": MatchBot("bad", bot("memory_hog.py"), limits=Limits(memory_mb=300)),
    }
    started = time.monotonic()
    # 2 s an action: room for the limit to bite before three timeouts fail the bot on a loaded machine
    result, _ = run_one(tmp_path, entries, game=game_config(time={**TIME, "per_action_ms": 2000}))
    assert_stands(result)
    faults = result.faults["bad"]
    assert faults.get(Fault.MEMORY) == INSTANCES and Fault.CRASH not in faults, faults
    # At its cgroup's limit the kernel reclaims before it kills: the bot may time out meanwhile.
    allowed = {Fault.MEMORY, Fault.DISCONNECT} | ({Fault.TIMEOUT} if memory == "cgroup" else set())
    assert faults.keys() <= allowed, faults
    assert "allocating without end" in result.log_tails["bad"]  # the tail of its log is kept for the organiser
    if memory == "rlimit":
        assert "MemoryError" in result.log_tails["bad"]
    assert time.monotonic() - started < 30
    assert_gone(tmp_path)
    if memory == "cgroup":
        assert not list(sandbox.memory_hierarchy().folder.glob(f"holdem-{os.getpid()}-*"))  # removed


def test_a_burner_forking_busy_workers_is_stopped_by_cpu_seconds_over_its_cgroup(tmp_path: Path) -> None:
    """8 spinning processes, each in a session of its own: cpu_seconds counts them together (per
    process, RLIMIT_CPU would let each burn 2 s, 16 s in all) and the instance stops as cpu_time."""
    need_root("a CPU cgroup")
    if sandbox.cpu_hierarchy() is None:
        pytest.fail("the dealer cannot create a CPU cgroup here (cgroup v1 cpu and cpuacct, or v2 with cpu)")
    entries = {
        "honest": MatchBot("honest", HONEST),
        "bad": MatchBot("bad", bot("burner.py", "8", "0.2"), limits=Limits(cpu_seconds=2)),
    }
    started = time.monotonic()
    result, _ = run_one(tmp_path, entries, hands=30, game=game_config(time={**TIME, "per_action_ms": 2000}))
    assert_stands(result, hands=30)
    faults = result.faults["bad"]
    assert faults.get(Fault.CPU) == INSTANCES and Fault.CRASH not in faults, faults
    assert faults.keys() <= {Fault.CPU, Fault.DISCONNECT, Fault.TIMEOUT}, faults
    assert "burning with 8 workers" in result.log_tails["bad"]
    assert time.monotonic() - started < 40
    assert_gone(tmp_path)
    assert not any(list(f.glob(f"holdem-{os.getpid()}-*")) for f in sandbox.cpu_hierarchy().folders)  # removed


def test_without_a_cpu_cgroup_results_and_the_console_say_so(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(sandbox, "cpu_hierarchy", lambda: None)
    league = tmp_path / "league.yaml"
    league.write_text(
        yaml.safe_dump(
            {
                "name": "nocpu",
                "seed": 5,
                "out": str(tmp_path / "out"),
                "game": {"time": TIME},
                "bots": [{"name": "a", "command": list(HONEST)}, {"name": "b", "command": list(CALLER)}],
                "events": [{"name": "e", "format": "round-robin", "table_size": 2, "hands": 2}],
            }
        )
    )
    done = CliRunner().invoke(app, ["run", str(league)])
    assert done.exit_code == 0, done.output
    assert "note: CPU: none: the dealer cannot make CPU cgroups here" in done.output
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["cpu"].startswith("none: the dealer cannot make CPU cgroups here"), results["cpu"]


def test_a_dealer_removes_the_cgroups_of_dead_dealers_and_kills_their_orphans() -> None:
    need_root("a memory cgroup")
    hierarchy = sandbox.memory_hierarchy()
    if hierarchy is None:
        pytest.fail("the dealer cannot create a memory cgroup here (cgroup v1 memory or v2 with memory)")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale = hierarchy.folder / f"holdem-{int(dead.stdout)}-0"  # the pid of a process that has ended
    stale.mkdir()
    orphan = subprocess.Popen(["sleep", "3600"])
    try:
        (stale / "cgroup.procs").write_text(str(orphan.pid))
        mine = sandbox.MemoryCgroup.create(64)  # this dealer's own is not touched
        assert mine is not None
        sandbox.memory_hierarchy.cache_clear()  # as a dealer starting: the first look sweeps
        assert sandbox.memory_hierarchy() == hierarchy
        assert orphan.wait(timeout=10) == -signal.SIGKILL
        deadline = time.monotonic() + 5
        while stale.exists() and time.monotonic() < deadline:
            sandbox.memory_hierarchy.cache_clear()
            sandbox.memory_hierarchy()
            time.sleep(0.05)
        assert not stale.exists() and mine.folder.exists()
        assert mine.remove()
    finally:
        orphan.kill()
        orphan.wait()


@pytest.mark.parametrize("how", ["exit", "stay"])
def test_children_that_leave_the_process_group_are_all_gone_when_the_match_ends(tmp_path: Path, how: str) -> None:
    entries = {"honest": MatchBot("honest", HONEST), "bad": MatchBot("bad", bot("forker.py", how))}
    result, _ = run_one(tmp_path, entries)
    assert_stands(result)
    text = log(tmp_path)
    assert "setsid child" in text and "daemon" in text, text
    pids = recorded_pids(tmp_path, "bad")
    assert len(pids) == 4 * INSTANCES, pids  # each instance, its child, a setsid child, a daemon
    assert_gone(tmp_path)
    if how == "exit":
        assert "leaving my children behind" in text
        assert result.faults["bad"] == {Fault.DISCONNECT: INSTANCES}, result.faults  # exit status 0: not a crash


def test_bot_with_its_own_user_has_a_private_scratch_folder_and_a_process_limit(tmp_path: Path) -> None:
    """Bots as their own users, in a 0700 output folder under /root's Python: the sandbox makes what
    they need reachable (no o+x on the dealer's folders needed)."""
    need_root("limits.user")
    entries = {
        "honest": MatchBot("honest", HONEST, limits=Limits(user=str(USERS[0]))),
        "bad": MatchBot("bad", bot("forker.py"), limits=Limits(user=f"{USERS[1]}:{USERS[1]}")),
    }
    result, _ = run_one(tmp_path, entries)
    assert_stands(result)
    for name, uid in (("honest", USERS[0]), ("bad", USERS[1])):
        for k in range(INSTANCES):
            info = os.stat(tmp_path / "scratch" / f"{name}.{k}")
            assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (uid, uid, 0o700)
    for path in (tmp_path / "logs").glob("*.log"):
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600  # no bot reads another's log
    assert_gone(tmp_path)
    # RLIMIT_NPROC applies to a bot with its own user: a bot that cannot start a thread fails to start
    entries = {
        "honest": MatchBot("honest", HONEST),
        "bad": MatchBot("bad", bot("forker.py"), limits=Limits(user=str(USERS[2]), processes=1)),
    }
    result, _ = run_one(tmp_path / "nproc", entries)
    assert result.faults["bad"].keys() & {Fault.CRASH, Fault.DISCONNECT}, result.faults
    assert_gone(tmp_path / "nproc")


@pytest.mark.parametrize("user", [None, str(USERS[2])])
def test_a_bot_cannot_make_a_user_namespace(tmp_path: Path, user: str | None) -> None:
    """Also as its own user (bwrap's --disable-userns needs --unshare-user, which a dealer run as
    root does not use): the launcher's seccomp filter refuses it."""
    need_root("limits.user")
    entries = {
        "honest": MatchBot("honest", HONEST),
        "bad": MatchBot("bad", bot("userns_bot.py"), limits=Limits(user=user)),
    }
    result, _ = run_one(tmp_path, entries)
    assert_stands(result)
    for k in range(INSTANCES):
        assert "user namespace: refused (Operation not permitted)" in log(tmp_path, "bad", k), log(tmp_path, "bad", k)


def test_a_bot_with_its_own_user_cannot_read_the_histories_of_a_match_in_play(tmp_path: Path) -> None:
    """Histories are streamed during the match into a 0700 folder of the dealer's, outside every
    sandbox: a snooper under its own user that searches the whole output folder (the real path,
    given on its command line) finds nothing of its deal, because it cannot even see the folder."""
    need_root("limits.user")
    hands = 100  # per table: enough for the histories to be written to disk during the match
    entries = {
        "honest": MatchBot("honest", HONEST, limits=Limits(user=str(USERS[0]))),
        "bad": MatchBot(
            "bad", bot("recorder_bot.py", "--snoop-all", f"--out={tmp_path}"), limits=Limits(user=str(USERS[1]))
        ),
    }
    result, _ = run_one(tmp_path, entries, hands=hands)
    assert_stands(result, hands=hands)
    assert result.faults["bad"] == {}, result.log_tails
    for k in range(INSTANCES):
        scratch = tmp_path / "scratch" / f"bad.{k}"
        assert not (scratch / "snooped.txt").exists(), (scratch / "snooped.txt").read_text()[:500]
        denied = set((scratch / "denied.txt").read_text().splitlines())
        assert denied == {str(tmp_path)}, denied  # it looked, and the output folder is not in its sandbox
    assert len(list((tmp_path / "hands").glob("*.phhs"))) == 2 and not list(tmp_path.glob(".hands-*"))


def test_unsandboxed_a_user_that_cannot_reach_its_scratch_folder_is_a_clear_start_failure(tmp_path: Path) -> None:
    need_root("limits.user")
    os.chmod(tmp_path, 0o700)
    entries = {
        "honest": MatchBot("honest", HONEST),
        "bad": MatchBot("bad", CALLER, limits=Limits(user="61001", sandbox="off")),
    }
    result, _ = run_one(tmp_path / "out", entries)
    assert result.faults["bad"] == {Fault.START: INSTANCES}
    assert "not searchable" in result.log_tails["bad"]


# ------------------------------------------------------------------------------------ network


@pytest.mark.parametrize("user", [None, str(USERS[0])])
def test_by_default_a_bot_has_no_network_and_plays_through_the_unix_socket(tmp_path: Path, user: str | None) -> None:
    def entries_for(server: DealerServer) -> dict[str, MatchBot]:
        return {
            "honest": MatchBot("honest", HONEST),
            "bad": MatchBot("bad", bot("network_probe.py", server.address, "1.1.1.1:53"), limits=Limits(user=user)),
        }

    if user is not None:
        need_root("limits.user")
    result, server = run_one(tmp_path, {}, entries_for=entries_for)
    assert_stands(result)
    assert result.faults["bad"] == {}, result.log_tails
    text = log(tmp_path)
    assert re.search(r"^blocked 127\.0\.0\.1:\d+: ", text, re.M), text
    assert "blocked 1.1.1.1:53: " in text and "blocked dns: " in text and "reached" not in text, text
    assert f"dealer address: unix:{sandbox.SOCKET}\n" in text, text
    assert not os.path.exists(server.local_address[5:])  # the socket folder is removed on stop


def acpc_bot(name: str, client: Path, mode: str, **options: object) -> MatchBot:
    """An ACPC bot: tests/bots/acpc_hostile.py in ``mode``, which then runs the reference client."""
    command = (*bot("acpc_hostile.py", mode), "--", str(client), "{game}", "{host}", "{port}")
    return MatchBot(name, command, protocol="acpc", **options)


def test_two_instances_of_one_acpc_bot_cannot_meet_on_the_loopback(tmp_path: Path, acpc_client: Path) -> None:
    """Each ACPC instance has a network namespace of its own (its table port handed over inside its
    sandbox): one listens on a loopback port, the other finds it free in its own namespace and
    listens too, so they never meet; ``network: host`` (the contrast) shares the host's loopback.
    results.json's sealing says which bots are sealed, and how."""
    result, _ = run_one(
        tmp_path / "on", {"honest": MatchBot("honest", HONEST), "bad": acpc_bot("bad", acpc_client, "meet")}
    )
    assert_stands(result)
    assert result.faults["bad"] == {}, result.log_tails
    for k in range(INSTANCES):
        assert "met 0 times" in log(tmp_path / "on", instance=k), log(tmp_path / "on", instance=k)
    host = Limits(network="host")
    seats = {"honest": MatchBot("honest", HONEST), "bad": acpc_bot("bad", acpc_client, "meet", limits=host)}
    result, _ = run_one(tmp_path / "host", seats)
    assert result.faults["bad"] == {}, result.log_tails
    texts = [log(tmp_path / "host", instance=k) for k in range(INSTANCES)]
    assert sum("met via loopback" in text for text in texts) == INSTANCES, texts


def test_no_other_bot_reaches_an_acpc_bots_port(tmp_path: Path, acpc_client: Path) -> None:
    """A port thief looks for the loopback ports the dealer listens on and dials them as an ACPC
    client would, while its victim's client dials late: sealed, it finds none and the victim plays
    every hand without a fault (unsealed, the victim's own client was refused and charged)."""
    seats = {"victim": acpc_bot("victim", acpc_client, "late"), "thief": acpc_bot("thief", acpc_client, "steal")}
    result, _ = run_one(tmp_path, seats)
    assert_stands(result, honest="victim")
    assert result.faults["thief"] == {}, result.log_tails
    for k in range(INSTANCES):
        assert "stole 0 ports" in log(tmp_path, "thief", k), log(tmp_path, "thief", k)


def test_two_instances_of_one_stdio_bot_cannot_meet_on_the_loopback(tmp_path: Path) -> None:
    """A stdio bot needs no socket, and with ``network: none`` it has no network either: its own
    namespace's loopback, where its sibling instance is not (it had the host's)."""
    stdio = ("python", str(BOTS / "stdio_bot.py"), "meet")
    seats = {"honest": MatchBot("honest", HONEST), "bad": MatchBot("bad", stdio, protocol="stdio")}
    result, _ = run_one(tmp_path, seats, game=game_config(time={**TIME, "per_action_ms": 5000}))  # 3 s to meet
    assert_stands(result)
    assert result.faults["bad"] == {}, result.log_tails
    for k in range(INSTANCES):
        assert "met 0 times" in log(tmp_path, instance=k), log(tmp_path, instance=k)


def test_results_say_for_every_protocol_which_bots_are_sealed_and_how(tmp_path: Path) -> None:
    """results.json's sealing names, bot by bot, how its instances are kept apart."""
    league = tmp_path / "league.yaml"
    (tmp_path / "bot.py").write_text("")
    (tmp_path / "client").write_text("")
    (tmp_path / "client").chmod(0o755)
    league.write_text("""\
name: sealing
bots:
  - {name: g, command: python bot.py}
  - {name: s, command: python bot.py, protocol: stdio}
  - {name: a, command: "./client {game} {host} {port}", protocol: acpc}
  - {name: h, command: "./client {game} {host} {port}", protocol: acpc, limits: {network: host}}
  - {name: o, command: python bot.py, limits: {sandbox: "off"}}
  - {name: r, remote: true}
events:
  - {name: hu, format: round-robin, table_size: 2, hands: 4}
""")
    bots = sealing(parse_league(league.read_text(), str(league)))["bots"]
    assert bots["g"].startswith("sealed: own sandbox and network namespace") and "Unix socket" in bots["g"]
    assert bots["s"].startswith("sealed: own sandbox and network namespace") and "its pipes" in bots["s"]
    assert (
        bots["a"].startswith("sealed: own sandbox and network namespace")
        and "table port, its connection handed over" in bots["a"]
    )
    assert bots["h"].startswith("own sandbox, host network: its instances can meet") and "dial its table" in bots["h"]
    assert bots["o"].startswith("not sealed: no sandbox") and bots["r"].startswith("not sealed: a remote bot")
    unsealed = parse_league(league.read_text().replace("events:", "sealed: false\nevents:"), str(league))
    assert set(sealing(unsealed)["bots"].values()) == {
        "not sealed: a remote bot's side may play every rotation's token in one process",
        "not sealed (sealed: false): one process of the bot plays every rotation of a deal",
    }


def restart_one(out: Path, entries: dict[str, MatchBot]) -> MatchResult:
    """One heads-up match under the ``restart`` fault policy (a crashed bot is started again)."""
    seats = list(entries)
    restart = MatchPlan(
        "iso",
        plan_tables(seats, duplicate=True, tables=1, prefix="iso"),
        GAME,
        hands=4,
        seed=11,
        fault_policy="restart",
    )

    async def main() -> MatchResult:
        async with DealerServer() as server:
            (result,) = await play_async(server, [(restart, entries, out)])
        return result

    done: list[MatchResult] = []
    runner = threading.Thread(target=lambda: done.append(asyncio.run(main())), daemon=True)
    runner.start()
    runner.join(MATCH_TIMEOUT_S)
    hung = runner.is_alive()
    while runner.is_alive():  # a dealer blocked on a FIFO a bot planted: give it a reader, to end the test
        for fifo in out.glob("scratch/*/match.game"):
            if stat.S_ISFIFO(fifo.lstat().st_mode):
                os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
        runner.join(0.1)
    if hung:
        pytest.fail(f"the match did not end within {MATCH_TIMEOUT_S} s: the dealer was blocked")
    return done[0]


@pytest.mark.parametrize("plant", ["link", "fifo"])
def test_an_acpc_bot_restarted_never_makes_the_dealer_write_through_what_it_planted(
    tmp_path: Path, acpc_client: Path, plant: str
) -> None:
    """The bot replaces ``$HOME/match.game`` by a symlink to a file outside the output folder, or by
    a FIFO, then crashes: at its restart the dealer writes the game file into a folder of its own
    (bound read-only into the sandbox), never through the bot's link (the file outside is left as it
    was) and never into its FIFO (the match ends on time)."""
    outside = tmp_path / "organiser-secret.txt"
    outside.write_text("the organiser's own file\n")
    outside.chmod(0o600)
    mode = f"plant-link:{outside}" if plant == "link" else "plant-fifo"
    out = tmp_path / "out"
    started = time.monotonic()
    result = restart_one(out, {"honest": MatchBot("honest", HONEST), "bad": acpc_bot("bad", acpc_client, mode)})
    assert time.monotonic() - started < MATCH_TIMEOUT_S
    assert outside.read_text() == "the organiser's own file\n" and stat.S_IMODE(outside.stat().st_mode) == 0o600
    assert sorted(tmp_path.iterdir()) == sorted([out, outside])  # nothing created beside them either
    assert result.hands == 4 * INSTANCES and result.faults["honest"] == {}, result.log_tails
    assert result.faults["bad"] == {Fault.CRASH: INSTANCES}, result.log_tails  # each instance crashed once, then played
    for k in range(INSTANCES):
        assert "planted" in log(out, instance=k), log(out, instance=k)


def test_network_host_keeps_the_loopback(tmp_path: Path) -> None:
    def entries_for(server: DealerServer) -> dict[str, MatchBot]:
        return {
            "honest": MatchBot("honest", HONEST),
            "bad": MatchBot("bad", bot("network_probe.py", server.address), limits=Limits(network="host")),
        }

    result, server = run_one(tmp_path, {}, entries_for=entries_for)
    assert_stands(result)
    assert f"reached {server.address}" in log(tmp_path) and "dealer address: 127.0.0.1:" in log(tmp_path)


# ------------------------------------------------------------------------------------ tokens


def test_instances_with_their_own_user_find_no_token_but_their_own(tmp_path: Path) -> None:
    """Each instance is its own sandbox: even its sibling instances (same bot, same user) are out of sight."""
    need_root("limits.user")
    entries = {
        "honest": MatchBot("honest", HONEST, limits=Limits(user=str(USERS[0]))),
        "bad": MatchBot("bad", bot("env_reader.py", str(tmp_path)), limits=Limits(user=str(USERS[1]))),
    }
    result, _ = run_one(tmp_path, entries)
    assert_stands(result)
    texts = [log(tmp_path, instance=k) for k in range(INSTANCES)]
    own = {re.search(r"^own token: ([A-Za-z0-9_-]{43})$", text, re.M).group(1) for text in texts}
    assert len(own) == INSTANCES, texts  # a token per instance
    for text in texts:
        assert "env keys: HOME PATH POKER_DEALER POKER_TOKEN PWD PYTHONUNBUFFERED\n" in text, text
        # its own user reads only its own environment (not even the root launcher's in its sandbox)
        assert "readable environ: 1\n" in text and "found 0 other tokens\n" in text, text


def test_env_reader_unsandboxed_without_its_own_user_does_find_other_tokens(tmp_path: Path) -> None:
    """The contrast, and the reason SECURITY.md says never to run bots with ``sandbox: off`` and
    without their own users: a bot running as the dealer's user reads the other bots' environments."""
    need_root("this contrast (a root bot reads every environment)")
    entries = {"honest": MatchBot("honest", HONEST), "bad": MatchBot("bad", bot("env_reader.py"), limits=OFF)}
    result, _ = run_one(tmp_path, entries)
    assert_stands(result)
    text = log(tmp_path)
    assert "found 0 other tokens" not in text and "found token " in text, text


def test_replayed_tokens_are_refused(tmp_path: Path) -> None:
    victim_token = "victim-" + "x" * 40

    async def main():
        async with DealerServer() as server:
            stale = server.session("old-match-bot")  # a token from a finished match
            server.close_session(stale)
            entries = {
                "honest": MatchBot("honest", HONEST, token=victim_token),
                "bad": MatchBot("bad", bot("replay_token.py", victim_token, stale.token)),
            }
            # not duplicate: one instance per bot, so the victim's token is one fixed token
            replayed = MatchPlan("iso", plan_tables(list(entries), duplicate=False, tables=2), GAME, hands=4, seed=11)
            (result,) = await play_async(server, [(replayed, entries, tmp_path)])
            return result, dict(server.auth_failures)

    result, auth_failures = asyncio.run(main())
    text = log(tmp_path)
    assert "replay 0: ALREADY_EXISTS" in text, text  # one connection per token at a time
    assert "replay 1: UNAUTHENTICATED" in text, text
    assert "ACCEPTED" not in text
    assert auth_failures.get("unknown token") == 1
    assert result.faults["bad"] == {}, result.faults
    # The dealer cannot tell who opened the second stream: it is charged to the token's owner.
    assert result.faults["honest"] == {Fault.AUTH: 1}, result.faults
    assert result.hands == 8 and all(sum(r.net.values()) == 0 for r in result.records)


def test_tokens_are_never_written_to_results_histories_or_other_logs(tmp_path: Path) -> None:
    league = tmp_path / "league.yaml"
    out = tmp_path / "out"
    league.write_text(
        yaml.safe_dump(
            {
                "name": "tokens",
                "seed": 3,
                "jobs": 1,
                "out": str(out),
                "bots": [
                    {"name": "a", "command": ["python", str(BOTS / "env_reader.py")]},
                    {"name": "b", "command": ["python", str(BOTS / "env_reader.py")]},
                ],
                "game": {"time": TIME},
                "events": [{"name": "hu", "format": "round-robin", "table_size": 2, "hands": 4}],
            }
        )
    )
    done = subprocess.run(
        [str(Path(sys.executable).with_name("dealer")), "run", str(league)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    logs = {path: path.read_text() for path in out.rglob("*.log") if path.name != "dealer.log"}  # the bots' own
    assert (out / "dealer.log").is_file()  # searched below with every other file
    tokens = {path: re.search(r"^own token: (\S+)$", text, re.M).group(1) for path, text in logs.items()}
    assert len(set(tokens.values())) == 2 * INSTANCES, tokens
    files = [p for p in out.rglob("*") if p.is_file()]
    assert any(p.name == "results.json" for p in files) and any(p.suffix == ".phhs" for p in files)
    for path in files:
        text = path.read_text(errors="replace")
        for owner, token in tokens.items():
            if path != owner:
                assert token not in text, f"{owner.name}'s token written to {path}"
    for token in tokens.values():
        assert token not in done.stdout + done.stderr


# ------------------------------------------------------------------------------------ TLS


def _self_signed(folder: Path) -> tuple[Path, Path]:
    if shutil.which("openssl") is None:
        pytest.fail("the TLS test makes its certificate with the openssl command, which is missing")
    cert, key = folder / "server.crt", folder / "server.key"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-keyout",
            str(key),
            "-out",
            str(cert),
            "-days",
            "1",
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=DNS:localhost,IP:127.0.0.1",
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


def test_serve_with_tls_admits_remote_bots_that_trust_its_certificate(tmp_path: Path) -> None:
    cert, _ = _self_signed(tmp_path)
    tokens = {"alice": ["alice-" + "a" * 40, "alice-" + "A" * 40], "bob": ["bob-" + "b" * 40, "bob-" + "B" * 40]}
    (tmp_path / "tokens.yaml").write_text(yaml.safe_dump(tokens))  # one token per instance (rotation)
    league = tmp_path / "league.yaml"
    league.write_text(
        yaml.safe_dump(
            {
                "name": "tls",
                "seed": 5,
                "jobs": 1,
                "out": str(tmp_path / "out"),
                "listen": "127.0.0.1:0",
                "tls": {"cert": "server.crt", "key": "server.key"},
                "tokens_file": "tokens.yaml",
                "bots": [{"name": "alice", "remote": True}, {"name": "bob", "remote": True}],
                "game": {"time": TIME},
                "events": [{"name": "hu", "format": "round-robin", "table_size": 2, "hands": 4}],
            }
        )
    )
    dealer = subprocess.Popen(
        [str(Path(sys.executable).with_name("dealer")), "serve", str(league)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    bots: list[subprocess.Popen] = []
    try:
        assert dealer.stdout is not None
        line = dealer.stdout.readline()
        while "dealer listening on" not in line and line:  # after the note that remote bots cannot be sealed
            line = dealer.stdout.readline()
        address = re.search(r"dealer listening on (\S+)", line).group(1)
        base_env = {"PATH": os.environ["PATH"], "POKER_DEALER": address}
        plain = subprocess.run(
            [sys.executable, str(PY / "call_bot.py")],
            env={**base_env, "POKER_TOKEN": tokens["bob"][0]},
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        assert plain.returncode == 1, plain.stderr  # no TLS: cannot even say Hello
        for token in [t for instance_tokens in tokens.values() for t in instance_tokens]:
            env = {**base_env, "POKER_TOKEN": token, "POKER_TLS_CA": str(cert)}
            bots.append(
                subprocess.Popen(
                    [sys.executable, str(PY / "call_bot.py")],
                    env=env,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    text=True,
                )
            )
        stdout, stderr = dealer.communicate(timeout=60)
        assert dealer.returncode == 0, stderr
        for process in bots:
            output, _ = process.communicate(timeout=10)
            assert process.returncode == 0, output
        results = json.loads((tmp_path / "out" / "results.json").read_text())
        text = json.dumps(results)
        assert "alice" in text and "bob" in text
        assert not any(token in text or token in stdout for t in tokens.values() for token in t)
    finally:
        for process in (dealer, *bots):
            if process.poll() is None:
                process.kill()
                process.wait()


# ------------------------------------------------------------------------------------ flood


def test_flooders_are_cut_off_and_the_other_tables_stay_on_time(tmp_path: Path) -> None:
    async def main():
        async with DealerServer() as server:
            matches = []
            # A long clock for the flooders: on a loaded machine three timeouts could otherwise
            # disqualify a flooder (and end its stream) before the dealer has read its flood.
            slow = game_config(time={**TIME, "per_action_ms": 5000})
            for mode in ("empty", "actions"):
                entries = {"honest": MatchBot("honest", HONEST), "bad": MatchBot("bad", bot("flooder.py", mode))}
                matches.append((plan(f"flood-{mode}", list(entries), game=slow), entries, tmp_path / mode))
            fair = {"honest": MatchBot("honest", HONEST), "caller": MatchBot("caller", CALLER)}
            # The fair tables keep 200 ms an action: the flooders' messages are routed in slices that
            # let the fair tables' answers be read between them (tests/test_session.py pins the slices).
            # Their bank is 2 s, not 300 ms: beside another test process on two cores, the flooders'
            # CPU alone made the honest bot late three times; a loop stalled for seconds still shows.
            fair_game = game_config(time={**TIME, "bank_ms": 2000})
            matches.append((plan("fair", list(fair), hands=30, tables=4, game=fair_game), fair, tmp_path / "fair"))
            started = time.monotonic()
            results = await play_async(server, matches)
            return results, time.monotonic() - started

    (empty, actions, fair), seconds = asyncio.run(main())
    for result, mode in ((empty, "empty"), (actions, "actions")):
        assert_stands(result)
        assert result.faults["bad"].get(Fault.FLOOD) == INSTANCES, result.faults
        allowed = {Fault.FLOOD, Fault.TIMEOUT} | ({Fault.UNEXPECTED} if mode == "actions" else set())
        assert result.faults["bad"].keys() <= allowed, result.faults
        assert "stream ended: StatusCode.RESOURCE_EXHAUSTED" in log(tmp_path / mode)
    assert fair.hands == 30 * 4 * 2 and all(sum(r.net.values()) == 0 for r in fair.records)
    assert fair.faults == {"caller": {}, "honest": {}}, fair.faults  # no timeout
    assert seconds < MATCH_TIMEOUT_S


def test_a_flood_of_health_and_reflection_calls_finds_neither_and_delays_no_table(tmp_path: Path) -> None:
    """A sandboxed bot floods its socket (/run/dealer.sock) with Health checks and server reflection
    calls from 4 threads while it plays: its instance's socket serves Play alone, and the fair
    tables beside it are never late."""

    async def main():
        async with DealerServer() as server:
            flood = {"honest": MatchBot("honest", HONEST), "bad": MatchBot("bad", bot("health_flooder.py"))}
            fair = {"honest": MatchBot("honest", HONEST), "caller": MatchBot("caller", CALLER)}
            fair_game = game_config(time={**TIME, "bank_ms": 2000})  # 200 ms an action; why a 2 s bank: above
            # The flooded match's own clock is long, as the flooders' above: the flooder's four threads and
            # another test process on two cores once made its honest bot late (a fresh-clone CI run). What
            # is checked is that its socket serves Play alone and that the fair tables stay on time.
            slow = game_config(time={**TIME, "per_action_ms": 5000})
            matches = [
                (plan("flood", list(flood), hands=40, game=slow), flood, tmp_path / "flood"),
                (plan("fair", list(fair), hands=30, tables=4, game=fair_game), fair, tmp_path / "fair"),
            ]
            return await play_async(server, matches)

    flooded, fair = asyncio.run(main())
    assert_stands(flooded, hands=40)
    assert flooded.faults["bad"] == {}, flooded.faults
    assert fair.faults == {"caller": {}, "honest": {}}, fair.faults  # no timeout
    for text in [log(tmp_path / "flood", "bad", k) for k in range(INSTANCES)]:
        assert "reflection answered" not in text, text
        assert re.search(r"^reflection: UNIMPLEMENTED=\d+$", text, re.M), text
        assert re.search(r"^health: UNIMPLEMENTED=\d+$", text, re.M), text


def test_the_shared_socket_answers_health_20_times_a_second_and_logs_the_refusals(caplog) -> None:
    """The socket of unsandboxed, host-network and remote bots: no reflection, Health rate-limited."""

    async def main() -> collections.Counter[str]:
        codes: collections.Counter[str] = collections.Counter()
        async with DealerServer() as server, grpc.aio.insecure_channel(server.address) as channel:
            check = channel.unary_unary(
                "/grpc.health.v1.Health/Check", request_serializer=None, response_deserializer=None
            )
            reflect = channel.stream_stream(
                "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
                request_serializer=None,
                response_deserializer=None,
            )
            started = time.monotonic()
            for _ in range(100):
                try:
                    await check(b"", timeout=5)
                    codes["health OK"] += 1
                except grpc.aio.AioRpcError as error:
                    codes[f"health {error.code().name}"] += 1
            codes["seconds"] = round(time.monotonic() - started + 0.5)
            try:
                await reflect(iter([b"\x3a\x00"]), timeout=5).read()
                codes["reflection OK"] += 1
            except grpc.aio.AioRpcError as error:
                codes[f"reflection {error.code().name}"] += 1
        return codes

    caplog.set_level("WARNING", logger="dealer.connect.server")
    codes = asyncio.run(main())
    assert codes["reflection UNIMPLEMENTED"] == 1, codes
    assert 20 <= codes["health OK"] <= 20 + 20 * codes["seconds"], codes  # a burst of 20, then 20 a second
    assert codes["health RESOURCE_EXHAUSTED"] == 100 - codes["health OK"] > 0, codes
    assert any(re.match(r"refused \d+ Health checks over the limit", r.getMessage()) for r in caplog.records)


def test_an_instance_holding_idle_streams_cannot_get_its_siblings_fresh_stream_dropped() -> None:
    """Each sandboxed instance dials a socket of its own, so the cap on streams waiting for Hello
    (64 per peer) counts its streams alone: a sibling that holds 80 idle streams evicts only its own.
    The contrast: on the shared socket (every client one peer) the same flood drops the fresh stream."""

    async def until(condition: Callable[[], bool], what: str) -> None:
        deadline = asyncio.get_running_loop().time() + 30
        while not condition():
            assert asyncio.get_running_loop().time() < deadline, what
            await asyncio.sleep(0.01)

    async def main(shared: bool) -> tuple[bool, int, grpc.StatusCode | None]:
        async with DealerServer() as server:
            session = server.session("bot")
            addresses = [server.local_address if shared else await server.instance_socket(f"bot.{k}") for k in (0, 1)]
            flooder, sibling = [grpc.aio.insecure_channel(address) for address in addresses]

            def open_stream(channel: grpc.aio.Channel):
                play = channel.stream_stream(
                    "/poker.v1.Dealer/Play", request_serializer=None, response_deserializer=None
                )
                return play()

            async def idle(call) -> None:
                with contextlib.suppress(grpc.RpcError):
                    await call.read()

            def dropped() -> int:
                return server.auth_failures["dropped: too many streams waiting for Hello"]

            fresh = open_stream(sibling)  # open, its Hello not yet written
            await until(lambda: server.service._waiting_total == 1, "the fresh stream never reached the dealer")
            held = [asyncio.ensure_future(idle(open_stream(flooder))) for _ in range(MAX_WAITING_PER_PEER + 16)]
            await until(lambda: dropped() >= 16, f"{dropped()} streams dropped of the 16 over the cap")
            hello = pb.BotMessage(hello=pb.Hello(token=session.token, name="sibling", version="t"))
            with contextlib.suppress(grpc.RpcError, asyncio.InvalidStateError):  # dropped already
                await fresh.write(hello.SerializeToString())
            # It connects, or its stream has ended (dropped): nothing later can connect it.
            ended = asyncio.ensure_future(fresh.code())
            await asyncio.wait(
                {ended, asyncio.ensure_future(session.connected.wait())},
                timeout=30,
                return_when=asyncio.FIRST_COMPLETED,
            )
            connected = session.connected.is_set()
            code = ended.result() if ended.done() else None
            for task in held:
                task.cancel()
            fresh.cancel()
            await flooder.close()
            await sibling.close()
            return connected, dropped(), code

    connected, dropped, code = asyncio.run(main(shared=True))
    assert not connected and dropped >= 16  # the contrast: one peer for all, the oldest stream went
    assert code == grpc.StatusCode.RESOURCE_EXHAUSTED, code
    connected, dropped, _ = asyncio.run(main(shared=False))
    assert dropped >= 16  # the flooder's own oldest streams went
    assert connected, "the sibling's fresh stream was dropped for the flooder's streams"


def test_each_sandboxed_instance_reaches_the_dealer_as_its_own_peer(tmp_path: Path, caplog) -> None:
    caplog.set_level("INFO", logger="dealer.connect.server")
    result, _ = run_one(tmp_path, {"honest": MatchBot("honest", HONEST), "caller": MatchBot("caller", CALLER)})
    assert_stands(result)
    peers = {
        r.getMessage().split(" connected from ")[1].split()[0]
        for r in caplog.records
        if " connected from " in r.getMessage()
    }
    assert peers == {"unix:honest.0", "unix:honest.1", "unix:caller.0", "unix:caller.1"}, peers


def test_the_launcher_dies_like_a_bot_killed_by_sigkill() -> None:
    """A bot killed by SIGKILL makes its launcher die by SIGKILL too (the dealer reads the cause from
    that), with nothing on stderr: resetting SIGKILL's handler raised OSError, whose traceback went
    to the bot's log and whose exit code 1 read as a plain crash."""
    done = subprocess.run(
        [sys.executable, "-m", "dealer.isolation.launch", "--", "sh", "-c", "kill -9 $$"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert (done.returncode, done.stderr) == (-signal.SIGKILL, "")


def test_a_live_sandboxed_instance_is_found_by_the_leftover_check_and_keeps_its_home(tmp_path: Path) -> None:
    """The suite's leftover check (``processes_under``) sees a sandboxed instance that nothing of
    its own names on a command line or mounts (its HOME is a tmpfs): by the scratch folder its
    launcher holds open and its pid namespace. Stopped by the dealer (it ignores SIGTERM), it leaves
    nothing running, and what it wrote in HOME is in its scratch folder."""
    from dealer.isolation.processes import BotProcess

    script = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); open('notes.txt', 'w').write('kept'); print('up', flush=True); time.sleep(3600)"  # noqa: E501

    async def scenario() -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
        bot = await BotProcess.launch(
            "sleeper",
            [sys.executable, "-c", script],
            address="unix:/nowhere",
            token="t",
            base=tmp_path,
            workdir=tmp_path / "scratch" / "sleeper.0",
            log_path=tmp_path / "logs" / "sleeper.0.log",
            limits=Limits(network="host"),
        )
        log = tmp_path / "logs" / "sleeper.0.log"
        for _ in range(400):  # 20 s at most
            if log.exists() and "up" in log.read_text():
                break
            await asyncio.sleep(0.05)
        running = processes_under(tmp_path)
        await bot.stop()
        return running, processes_under(tmp_path)

    running, after = asyncio.run(scenario())
    commands = " | ".join(command for _, command in running)
    assert "dealer/isolation/launch.py" in commands and "time.sleep(3600)" in commands, (
        running
    )  # the launcher and the bot
    assert after == [], after
    assert (tmp_path / "scratch" / "sleeper.0" / "notes.txt").read_text() == "kept"


def test_binds_skip_only_paths_inside_a_folder_already_bound() -> None:
    """What the sandbox binds: a path below a bound folder is skipped, a sibling whose name merely
    begins like it (``app`` beside ``application``) is bound too, and the root holds every path."""
    app, lib, application = Path("/work/apps/app"), Path("/work/apps/app/lib"), Path("/work/apps/application")
    assert sandbox._within(lib, [app]) and sandbox._within(app, [app]) and sandbox._within(app, [Path("/")])
    assert not sandbox._within(application, [app])
    args = sandbox._bind_args([app, lib, application], {"/"})
    bound = [args[k + 1] for k, arg in enumerate(args) if arg == "--ro-bind"]
    assert bound == [str(app), str(application)], args
