"""Building and smoke-testing a version, one at a time (each team in turn), in the bots' own sandbox.

A version's files (read-only in ``storage/versions/<sha256>``) are copied to a build folder of
its own (``storage/builds/<id>``), where its ``build:`` command runs as a sandboxed bot would:
``dealer.isolation.processes.BotProcess`` under bubblewrap, with no network, the host's system folders
read-only (/usr, /bin, /lib, /opt, /etc without its secrets, the dealer's Python), a PATH of the
shell's basic tools and the toolchains the organiser offers alone (``dealer.arena.toolchains``), the
build folder as its writable HOME, and caps on wall-clock and CPU time, memory, processes and
output (the log keeps the first ``log_kb``). Then the smoke test: a short sealed duplicate match
against the house bot (the dealer's call bot) in which the version must not fault. Its log (build
output, then one line per step) is ``storage/logs/<id>.log``, shown to its team alone.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import os
import shutil
import sys
import time
from collections.abc import Awaitable, Callable
from importlib.util import find_spec
from pathlib import Path
from typing import NamedTuple

from dealer.arena.config import ArenaConfig
from dealer.arena.layout import SMOKE_BOT, build_folder, build_log, drop_scratch, smoke_folder, tools, version_files
from dealer.arena.model import BuildState, Version
from dealer.arena.store.teams import Repository
from dealer.arena.toolchains import TOOLS, missing_toolchain, offers, tools_folder
from dealer.config.choices import BotProtocol, FaultPolicy, Network
from dealer.config.confined import TeamCommand, confine
from dealer.config.league_file import Limits
from dealer.engine.scheduler import plan_tables
from dealer.errors import ClusterError
from dealer.isolation.processes import BotProcess, resolve_user
from dealer.league.match import MatchBot, MatchPlan
from dealer.league.runner import play_match

LOGGER = logging.getLogger(__name__)
_HOUSE_PROGRAM_SPEC = find_spec("sample_bots.python.call_bot")  # shipped with the package (a namespace package)
assert _HOUSE_PROGRAM_SPEC is not None and _HOUSE_PROGRAM_SPEC.origin is not None, "the house bot ships with the dealer"
HOUSE_PROGRAM = Path(_HOUSE_PROGRAM_SPEC.origin)  # the house bot's program; store.ladder.HOUSE is its team
CANDIDATE = SMOKE_BOT


def _note(log: Path, line: str) -> None:
    """Append one line of the arena's own to a build log."""
    with open(log, "a", encoding="utf-8") as out:
        out.write(f"[arena] {line}\n")


def _copy_files(source: Path, folder: Path, owner: tuple[int, int] | None) -> None:
    """A writable copy of a version's files (its stored tree stays read-only), links kept as links,
    owned by the bots' user when they run as one."""
    if folder.exists():  # a build cut off by a stopped server: start it again from the files
        _remove(folder)
    shutil.copytree(source, folder, symlinks=True)
    for path, _dirs, files in os.walk(folder):
        os.chmod(path, 0o700)
        for name in files:
            target = os.path.join(path, name)
            if not os.path.islink(target):
                os.chmod(target, os.stat(target).st_mode | 0o600)
            if owner is not None:
                os.chown(target, *owner, follow_symlinks=False)
        if owner is not None:
            os.chown(path, *owner)


class BuildOutcome(NamedTuple):
    """What building a version gave: ready to play or not, and its smoke test's figures if it played one."""

    ready: bool
    smoke: dict[str, object] | None


BuildExecutor = Callable[[Version], Awaitable[BuildOutcome]]  # where builds run: here, or on Dask workers


async def build_version(version: Version, config: ArenaConfig) -> BuildOutcome:
    """Build ``version`` in its folder and smoke-test it, writing its log; needs no database, so that
    it runs where matches run (this process, or a Dask worker that sees the storage folder)."""
    storage = config.storage
    folder, log = build_folder(storage, version), build_log(storage, version)
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_bytes(b"")
    LOGGER.info("version %d (%s): building", version.id, version.label)
    user = config.limits_for(version.team_id).user
    owner = None if user is None else resolve_user(user)
    await asyncio.to_thread(_copy_files, version_files(storage, version.digest), folder, owner)
    built = version.build is None or await run_build(config, version, folder, log)
    await asyncio.to_thread(_remove, tools(storage, version))  # the build's PATH, needed no more
    if not built:
        await asyncio.to_thread(_remove, folder)
        return BuildOutcome(False, None)
    command = _own(version, folder, version.run)
    try:
        confine(command)  # what the build made may not name a file out of the folder (a link)
    except OSError as error:
        _note(log, f"refused: {error}")
        await asyncio.to_thread(_remove, folder)
        return BuildOutcome(False, None)
    smoke = await _smoke(config, version, command, log)
    if not smoke["ok"]:  # a failed version never plays again: its build is not kept (its log is)
        await asyncio.to_thread(_remove, folder)
    return BuildOutcome(bool(smoke["ok"]), smoke)


def _remove(folder: Path) -> None:
    """Delete a build folder (or a build's PATH), its read-only folders too."""
    for path, dirs, _ in os.walk(folder):
        for name in dirs:
            if not os.path.islink(os.path.join(path, name)):  # a link to a folder is removed, never followed
                os.chmod(os.path.join(path, name), 0o700)
    shutil.rmtree(folder, ignore_errors=True)


class FairQueue:
    """The versions waiting for a build, a queue per team served in turn: the next build is the
    oldest waiting version of the team whose last build started longest ago (a team that never
    built first, the oldest submission breaking ties), so a team waits behind its own builds, never
    behind another team's. ``join`` and ``task_done`` as ``asyncio.Queue``'s."""

    def __init__(self) -> None:
        self._waiting: dict[int, collections.deque[Version]] = {}  # by team, oldest first
        self._started: dict[int, int] = {}  # team -> the number of its last build started
        self._starts = 0
        self._unfinished = 0
        self._wake = asyncio.Event()
        self._done = asyncio.Event()
        self._done.set()

    def put(self, version: Version) -> None:
        """Add a version at the end of its team's queue."""
        self._waiting.setdefault(version.team_id, collections.deque()).append(version)
        self._unfinished += 1
        self._done.clear()
        self._wake.set()

    async def get(self) -> Version:
        """The next version to build (waiting for one): its team's turn has come."""
        while not self._waiting:
            self._wake.clear()
            await self._wake.wait()
        team = min(self._waiting, key=lambda t: (self._started.get(t, -1), self._waiting[t][0].id))
        waiting = self._waiting[team]
        version = waiting.popleft()
        if not waiting:
            del self._waiting[team]
        self._starts += 1
        self._started[team] = self._starts
        return version

    def task_done(self) -> None:
        """A version got from ``get`` is built."""
        self._unfinished -= 1
        if self._unfinished == 0:
            self._done.set()

    async def join(self) -> None:
        """Wait until every version put has been built."""
        await self._done.wait()


class Builder:
    """Builds queued versions one after another (``queued`` hands one over), each team in turn
    (``FairQueue``), on ``executor`` (default this process) and records each outcome."""

    def __init__(self, repository: Repository, config: ArenaConfig, executor: BuildExecutor | None = None) -> None:
        self.repository = repository
        self.config = config
        self.executor: BuildExecutor = executor or (lambda version: build_version(version, config))
        self.queue = FairQueue()

    def queued(self, version: Version) -> None:
        """Take a new version for building."""
        self.queue.put(version)

    async def run(self) -> None:
        """Build the versions a stopped server left unfinished, then every version handed over, forever."""
        await self.recover()
        await self.work()

    async def recover(self) -> int:
        """Queue every version still queued or building in the database (a stopped server's); how many."""
        unfinished = await self.repository.unfinished()
        for version in unfinished:
            self.queued(version)
        return len(unfinished)

    async def work(self) -> None:
        """Build the queued versions one after another, forever."""
        while True:
            version = await self.queue.get()
            try:
                await self.build(version)
            finally:
                self.queue.task_done()

    async def build(self, version: Version) -> Version:
        """Build ``version`` and smoke-test it; return it ready or failed (the reason in its log)."""
        version = await self.repository.set_state(version, BuildState.BUILDING)
        try:
            outcome = await self.executor(version)
        except ClusterError as error:  # the arena's cluster, not the bot: built again at the next start
            LOGGER.error("version %d (%s): its build could not run: %s", version.id, version.label, error)
            return await self.repository.set_state(version, BuildState.QUEUED)
        what = "build failed" if outcome.smoke is None else f"smoke test {'passed' if outcome.ready else 'failed'}"
        LOGGER.info("version %d (%s): %s", version.id, version.label, what)
        state = BuildState.READY if outcome.ready else BuildState.FAILED
        return await self.repository.set_state(version, state, outcome.smoke)


def _own(version: Version, folder: Path, words: tuple[str, ...]) -> TeamCommand:
    """A command of ``version``'s team: confined to its build folder (``dealer.config.confined``)."""
    return TeamCommand(f"version {version.label}", folder, words)


def _limits(config: ArenaConfig, version: Version) -> Limits:
    """The sandbox's limits for a build: the build caps, no network, the team's user, the bots' sandbox."""
    caps = config.build
    return Limits(
        memory_mb=caps.memory_mb,
        cpu_seconds=caps.timeout_s,
        processes=caps.processes,
        open_files=1024,
        file_size_mb=max(1, config.submissions.max_unpacked_mb),
        log_kb=caps.log_kb,
        tmp_mb=256,
        network=Network.NONE,
        user=config.limits_for(version.team_id).user,
        sandbox=config.limits.sandbox,
    )


async def run_build(config: ArenaConfig, version: Version, folder: Path, log: Path) -> bool:
    """Run the version's build command in the sandbox, with only the offered toolchains on its
    PATH; True if it exited 0 within its caps."""
    limits = _limits(config, version)
    offered = config.build.toolchains
    path = tools(config.storage, version)
    extra = await asyncio.to_thread(tools_folder, path, offered)
    sandboxed = limits.sandbox == "on"
    started = time.monotonic()
    _note(log, f"build: {version.build}")
    _note(log, "toolchains: " + (", ".join(offered) or "none") + " (and the shell's basic tools)")
    absent = [str(o.toolchain) for o in await asyncio.to_thread(offers, offered) if not o.available]
    if absent:
        _note(log, f"not installed on this machine, though listed: {', '.join(absent)}")
    output = log.with_suffix(".build")
    try:
        process = await BotProcess.launch(
            f"build-{version.id}",
            _own(version, folder, ("sh", "-c", f"exec 1>&2\n{version.build}")),  # one log: stdout joins stderr
            address="",
            token="",
            base=folder,
            workdir=folder,
            log_path=output,
            limits=limits,
            stdio=True,
            files={TOOLS: path, **{str(p): p for p in extra}} if sandboxed else None,
            path=TOOLS if sandboxed else str(path),
        )
    except OSError as error:
        _note(log, f"build could not start: {error}")
        return False
    assert process.process.stdin is not None
    process.process.stdin.close()
    finished = await process.wait_exit(config.build.timeout_s)
    code = await process.stop()
    text = output.read_bytes().decode("utf-8", "replace")
    with open(log, "ab") as out, open(output, "rb") as built:
        shutil.copyfileobj(built, out)
    output.unlink()
    seconds = time.monotonic() - started
    verdict = _verdict(config, process, finished, code, seconds, text)
    _note(log, verdict or f"build done in {seconds:.1f} s")
    return verdict is None


def _verdict(
    config: ArenaConfig, process: BotProcess, finished: bool, code: int | None, seconds: float, text: str
) -> str | None:
    """Why a finished build failed (one line for its log), or None if it succeeded."""
    caps = config.build
    if not finished:
        return f"build killed: it ran past its {caps.timeout_s} s"
    if process.out_of_memory():
        return f"build failed: out of memory ({caps.memory_mb} MB)"
    if process.out_of_cpu():
        return f"build killed: it used more than {caps.timeout_s} s of CPU"
    if code == 0:
        return None
    missing = missing_toolchain(text, caps.toolchains)
    if missing is not None:
        command, toolchain = missing
        offered = ", ".join(caps.toolchains) or "none"
        whose = f"of the toolchain {toolchain}, which" if toolchain is not None else "which"
        return (
            f"build failed: it calls {command}, {whose} this arena does not offer "
            f"(build.toolchains: {offered}; exit code {code})"
        )
    return f"build failed: exit code {code} after {seconds:.1f} s"


async def _smoke(config: ArenaConfig, version: Version, command: TeamCommand, log: Path) -> dict[str, object]:
    """Play the smoke test: a sealed duplicate heads-up match against the house bot; its figures."""
    hands = config.build.smoke_hands
    plan = MatchPlan(
        match_id=f"smoke-{version.id}",
        tables=plan_tables([CANDIDATE, "house"], duplicate=True, tables=1),
        game=config.game,
        hands=hands,
        fault_policy=FaultPolicy.FORFEIT,
        sealed=True,
    )
    entries = {
        CANDIDATE: MatchBot(
            CANDIDATE,
            command,
            limits=config.limits_for(version.team_id),
            protocol=BotProtocol(version.protocol),
        ),
        "house": MatchBot("house", (sys.executable, str(HOUSE_PROGRAM)), limits=config.limits),
    }
    out = smoke_folder(config.storage, version)
    if out.exists():
        shutil.rmtree(out)
    _note(log, f"smoke test: {2 * hands} hands, sealed duplicate, against the house bot (it always calls)")
    started = time.monotonic()
    result = await play_match(plan, entries, "127.0.0.1:0", out, stop_unstarted=True)
    await asyncio.to_thread(drop_scratch, out)
    faults = result.faults.get(CANDIDATE, {})
    unstarted = CANDIDATE in result.unstarted
    chips = result.net().get(CANDIDATE, 0)
    ok = not faults and not unstarted and result.hands == 2 * hands
    smoke: dict[str, object] = {
        "ok": ok,
        "hands": result.hands,
        "faults": dict(faults),
        "started": not unstarted,
        "chips": chips,
        "seconds": round(time.monotonic() - started, 2),
    }
    if unstarted:
        _note(log, "smoke test failed: the bot never connected")
    elif faults:
        _note(log, "smoke test failed: faults " + ", ".join(f"{k} x{v}" for k, v in sorted(faults.items())))
    elif not ok:
        _note(log, f"smoke test failed: {result.hands} of {2 * hands} hands played")
    else:
        _note(log, f"smoke test passed: {result.hands} hands, no fault, {chips:+d} chips against the house bot")
    tail = result.log_tails.get(CANDIDATE)
    if not ok and tail:
        _note(log, "the end of the bot's log:\n" + tail)
    return smoke
