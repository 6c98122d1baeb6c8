"""Launching, limiting and stopping bot processes.

A launched bot runs in the bubblewrap sandbox (``dealer.isolation.sandbox``: its own namespaces, a read-only
system, a tmpfs of ``home_mb`` as ``HOME``, copied into its scratch folder when it ends;
``limits.sandbox: off`` runs it without, unsafely, with the scratch folder as ``HOME``), with a
scratch folder of its own (mode 0700, owned by the bot's user when ``limits.user`` is set), with
a minimal environment: ``PATH``, ``HOME``, ``POKER_DEALER`` (the address to dial: the dealer's Unix
socket with ``network: none``) and ``POKER_TOKEN`` (its seat token). Inside the sandbox it runs
under ``dealer.isolation.launch``, which applies the limits and the user and kills everything the bot
started when it ends (see that module); its memory is capped by a cgroup where the machine allows
one (else RLIMIT_DATA), and each instance has a CPU cgroup of its own where the machine allows one:
every instance weighs the same for the scheduler however many processes it runs, and
``cpu_seconds`` counts all its processes together (else RLIMIT_CPU, per process); and a pids cgroup
of its own caps its processes and threads at ``processes`` whatever its user (else RLIMIT_NPROC,
which holds only with ``limits.user``). Its stdout and
stderr go to one log file (mode 0600, readable by the dealer's user only), capped in size (the rest
is read and dropped so the bot never blocks on a full pipe). Stopping a bot terminates its process
group (and so its sandbox), then kills it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import pwd
import signal
import stat
import sys
from collections.abc import Coroutine, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from dealer.config.confined import BOT_FOLDER, Command, TeamCommand, confine, resolve_command
from dealer.config.league_file import Limits, program_problem
from dealer.isolation import launch, sandbox
from dealer.isolation.launch import limit_args

LOGGER = logging.getLogger(__name__)

STOP_GRACE_S = 1.0
STREAM_LIMIT = 1 << 16  # asyncio's default buffer limit of a subprocess's pipes, as create_subprocess_exec sets it
LAUNCHER = os.path.abspath(launch.__file__)  # run as a file with ``-I -S``: the standard library only, no site
LAUNCHER_STOP_S = 1.5  # time for the launcher to kill the bot's descendants and keep its HOME after SIGTERM
CGROUP_REMOVE_S = 5.0  # time for the kernel to end the last processes of a stopped bot's sandbox
CPU_POLL_S = 0.25  # how often a bot's CPU cgroup is read: it may overrun cpu_seconds by about this x cores
CGROUP_SWEEP_S = 30.0  # at a match's end, for cgroups whose last processes (freeing memory) were slow
# What runtimes print when an allocation fails (the bot's memory limit): Python, C/C++, Java,
# Node, Go, Rust, and the libc message of a failed mmap/brk.
MEMORY_MARKERS = (
    "MemoryError",
    "std::bad_alloc",
    "OutOfMemoryError",
    "JavaScript heap out of memory",
    "runtime: out of memory",
    "memory allocation of",
    "Cannot allocate memory",
    "out of memory",
)


def resolve_user(spec: str) -> tuple[int, int]:
    """``limits.user`` as (uid, gid): a user name, a numeric uid (its passwd group, else gid = uid),
    or ``UID:GID``. Raises OSError if there is no such user."""
    if ":" in spec:
        uid_text, gid_text = spec.split(":", 1)
        if uid_text.isdigit() and gid_text.isdigit():
            return int(uid_text), int(gid_text)
        raise OSError(f"user {spec!r}: expected NAME, UID or UID:GID")
    if spec.isdigit():
        try:
            return int(spec), pwd.getpwuid(int(spec)).pw_gid
        except KeyError:
            return int(spec), int(spec)
    try:
        entry = pwd.getpwnam(spec)
    except KeyError:
        raise OSError(f"no such user {spec!r}") from None
    return entry.pw_uid, entry.pw_gid


def _prepare_scratch(workdir: Path, owner: tuple[int, int] | None, *, reach: bool) -> None:
    """Create the bot's scratch folder, 0700 and owned by its user; with ``reach`` (no sandbox to
    bind it at ``HOME``), check the user can reach it."""
    workdir.mkdir(parents=True, exist_ok=True)
    if owner is not None:
        os.chown(workdir, *owner)
    if owner is not None and reach:
        for folder in workdir.resolve().parents:
            mode = os.stat(folder).st_mode
            if not mode & stat.S_IXOTH:
                raise OSError(
                    f"the bot's user cannot reach its scratch folder: {folder} is not searchable by "
                    "others (chmod o+x, or put the output folder elsewhere)"
                )
    os.chmod(workdir, 0o700)


_CHANNELS = {
    "grpc": "the dealer's Unix socket",
    "stdio": "its pipes",
    "acpc": "its table port, its connection handed over inside its sandbox on a Unix socket of the dealer's",
}


def isolation(protocol: str, limits: Limits, *, remote: bool = False, sealed: bool = True) -> str:
    """How a bot's instances are kept apart, in words for results.json (every protocol the same rule);
    ``sealed``: whether rotations get an instance each (``sealed: false`` plays them in one)."""
    if remote:
        return "not sealed: a remote bot's side may play every rotation's token in one process"
    if not sealed:
        return "not sealed (sealed: false): one process of the bot plays every rotation of a deal"
    if limits.sandbox == "off":
        return "not sealed: no sandbox (sandbox: off): its instances, and any local process, can meet"
    if limits.network == "host":
        dial = "; any local process can dial its table ports first" if protocol == "acpc" else ""
        return f"own sandbox, host network: its instances can meet on the loopback{dial}"
    return f"sealed: own sandbox and network namespace; reaches the dealer only through {_CHANNELS[protocol]}"


@dataclass(eq=False)
class BotProcess:
    """A running bot: its process, its log, its memory cgroup (if any), and how it ended."""

    name: str
    process: asyncio.subprocess.Process
    log_path: Path
    _pump: asyncio.Task[None]
    _exited: asyncio.Future[None]  # set when the bot's own process has exited (its status is known)
    cgroup: sandbox.MemoryCgroup | None = None
    cpu: sandbox.CpuCgroup | None = None
    pids: sandbox.PidsCgroup | None = None
    killed: bool = False  # the dealer had to signal it: its exit status is not the bot's doing
    cpu_exceeded: bool = False  # its CPU cgroup used more than cpu_seconds: the dealer killed it
    _bridge: asyncio.Task[None] | None = None  # the transport over its stdin/stdout (dealer.connect.stdio), if any
    _cpu_watch: asyncio.Task[None] | None = None
    sandboxed: bool = False  # its launcher runs in a sandbox, a grandchild of ``process`` (bwrap)

    @classmethod
    async def launch(
        cls,
        name: str,
        command: Command,
        *,
        address: str,
        token: str,
        base: Path,
        workdir: Path,
        log_path: Path,
        limits: Limits,
        local_address: str | None = None,
        stdio: bool = False,
        relay_port: int | None = None,
        files: Mapping[str, Path] | None = None,
        path: str | None = None,
    ) -> BotProcess:
        """Start a bot with its token and address in the environment; raises OSError if it cannot start.

        ``command``: an organiser's words (relative paths from ``base``, the files they name bound into
        the sandbox) or a team's (``TeamCommand``: its folder bound at ``BOT_FOLDER``, nothing it names).
        ``local_address`` (``unix:/path``) is the dealer's Unix socket, which a sandboxed bot with
        ``network: none`` dials (bound into its sandbox). ``stdio``: the bot talks on its stdin and
        stdout (``pipes``), only its stderr is the log, and it gets no address or token.
        ``relay_port`` (an ACPC bot, sandboxed with ``network: none``): the launcher relays
        that port of the sandbox's loopback to ``local_address``; ``files``: the dealer's files bound
        read-only into the sandbox, by their path there; ``path``: the bot's PATH (default the dealer's)."""
        owner = _owner(name, limits)
        sandboxed = limits.sandbox == "on"
        socket, address = _sealed_address(name, limits, address, local_address, stdio=stdio)
        _prepare_scratch(workdir, owner, reach=not sandboxed)
        log_path.parent.mkdir(parents=True, exist_ok=True)
        argv, inside, own = _program(name, command, base)
        if own is not None and sandboxed and own.is_dir():  # a team's folder (absent: there is nothing to name)
            files = {**(files or {}), BOT_FOLDER: own}
        env = _environment(workdir, sandboxed, None if stdio else (address, token), path)
        cgroup, cpu, pids, fds = _cgroups(limits)
        keep = _scratch_fd(workdir) if sandboxed else None
        relay = None if relay_port is None or socket is None else f"{relay_port}:{sandbox.SOCKET}"
        launcher = _launcher(inside if sandboxed else argv, limits, owner, fds, relay, keep, memory_cgroup=bool(cgroup))
        fds += [] if keep is None else [keep]
        try:
            if sandboxed:
                named = argv if own is None else []  # a team's command names no file of the host
                launcher, options = _sandboxed(
                    launcher, named, base=base, workdir=workdir, limits=limits, socket=socket, owner=owner, files=files
                )
                fds.append(options)
            process, exited = await _spawn(launcher, workdir, env, fds, stdio=stdio)
        except BaseException:
            _remove_cgroups(cgroup, cpu, pids)
            raise
        finally:
            for fd in fds:
                os.close(fd)
        pump = asyncio.create_task(_pump_log(_log_stream(process, stdio), log_path, limits.log_kb * 1024))
        bot = cls(name, process, log_path, pump, exited, cgroup, cpu, pids, sandboxed=sandboxed)
        if cpu is not None:
            bot._cpu_watch = asyncio.create_task(bot._watch_cpu(cpu, limits.cpu_seconds))
        return bot

    async def _watch_cpu(self, cpu: sandbox.CpuCgroup, limit_s: int) -> None:
        """Kill the bot once its cgroup (all its processes together) has used ``limit_s`` of CPU."""
        while self.process.returncode is None:
            await asyncio.sleep(CPU_POLL_S)
            try:
                used = cpu.usage_s()
            except (OSError, ValueError) as error:  # the dealer's side: the limit is left to RLIMIT_CPU
                LOGGER.error(
                    "bot %s: cannot read its CPU time (%s): cpu_seconds is per process from now", self.name, error
                )
                return
            if used > limit_s:
                self.cpu_exceeded = True
                LOGGER.warning(
                    "bot %s: used %.1f s of CPU over its processes, above cpu_seconds %d: killed",
                    self.name,
                    used,
                    limit_s,
                )
                cpu.kill()
                return

    @property
    def pipes(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """The bot's stdout and stdin, for a bot launched with ``stdio``."""
        stdout, stdin = self.process.stdout, self.process.stdin
        assert stdout is not None and stdin is not None, "launched without stdio"
        return stdout, stdin

    def attach(self, transport: Coroutine[None, None, None]) -> None:
        """Run the transport that talks over the bot's pipes for as long as the bot runs (``stop`` ends it)."""
        self._bridge = asyncio.create_task(transport)

    @property
    def returncode(self) -> int | None:
        """The exit code (negative: killed by that signal), or None while running."""
        return self.process.returncode

    @property
    def crashed(self) -> bool:
        """Whether the bot exited by itself with a failure status (or was killed by a signal not ours)."""
        return self.process.returncode not in (None, 0) and not self.killed

    async def wait_exit(self, timeout_s: float) -> bool:
        """Wait for the bot's own process to end; True if it did.

        Not ``process.wait()``: that also waits for the log pipe to close, which a child of the
        bot keeps open after the bot itself has exited. The exit is an event (``_ExitProtocol``)."""
        if not self._exited.done():
            await asyncio.wait([self._exited], timeout=None if math.isinf(timeout_s) else timeout_s)
        return self.process.returncode is not None

    def terminate(self) -> None:
        """Ask the bot's sandbox to end now (the dealer's doing, so not a crash); ``stop`` still follows."""
        self.killed = True
        self._ask_to_stop()

    def _ask_to_stop(self) -> None:
        """SIGTERM to the launcher, which stops the bot, kills what it started and keeps its HOME.
        A sandboxed launcher is signalled itself: bwrap, the group's leader, would die of SIGTERM
        and take the sandbox with it at once, HOME's copy unmade."""
        launcher = _grandchild(self.process.pid) if self.sandboxed else None
        if launcher is None:
            _signal_group(self.process.pid, signal.SIGTERM)
        else:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(launcher, signal.SIGTERM)

    async def stop(self, grace_s: float = STOP_GRACE_S) -> int | None:
        """Wait a little for the bot to exit, then terminate and kill its whole process group."""
        if not await self.wait_exit(grace_s):
            self.killed = True
            self._ask_to_stop()  # the launcher then kills every descendant
            await self.wait_exit(max(grace_s, LAUNCHER_STOP_S))
        _signal_group(self.process.pid, signal.SIGKILL)
        await self.wait_exit(grace_s)
        if self._cpu_watch is not None:
            self._cpu_watch.cancel()
        if self.cpu is not None:
            self.cpu.kill()
            if not await _remove_cgroup(self.cpu, CGROUP_REMOVE_S):
                _leftover_cgroups.append(self.cpu)
        for group in (self.cgroup, self.pids):
            if group is not None:
                group.kill()  # what left the group and the sandbox's pid namespace, too
                if not await _remove_cgroup(group, CGROUP_REMOVE_S):
                    _leftover_cgroups.append(group)  # a loaded machine: the match's end tries again
        if self._bridge is not None:  # its pipes are closed now: it ends, or it is cancelled
            await asyncio.wait([self._bridge], timeout=grace_s)
        try:  # the log ends when the pipe closes; a process that left the group may hold it open
            await asyncio.wait_for(self._pump, grace_s)
        except TimeoutError:
            self._pump.cancel()
            transport = getattr(self.process, "_transport", None)
            if transport is not None:
                transport.close()
        return self.process.returncode

    async def log_complete(self, timeout_s: float = 1.0) -> None:
        """Wait (a little) until the bot's output has all reached its log."""
        if not self._pump.done():
            await asyncio.wait([self._pump], timeout=timeout_s)

    def out_of_memory(self) -> bool:
        """Whether the bot hit its memory limit: the kernel killed a process of its cgroup, or its log
        ends with what a runtime prints when an allocation fails (RLIMIT_DATA)."""
        if self.cgroup is not None and self.cgroup.read_oom_kills():
            return True
        tail = self.log_tail(4000)
        return any(marker in tail for marker in MEMORY_MARKERS)

    def out_of_cpu(self) -> bool:
        """Whether the bot hit its CPU time limit: its cgroup's (the dealer killed it) or, without
        one, a process's RLIMIT_CPU (SIGXCPU, which the launcher dies by too)."""
        return self.cpu_exceeded or self.process.returncode == -signal.SIGXCPU

    def log_tail(self, max_bytes: int = 2000) -> str:
        """The end of the bot's log, for the organiser."""
        try:
            with open(self.log_path, "rb") as f:
                f.seek(0, os.SEEK_END)
                size = f.tell()
                f.seek(max(0, size - max_bytes))
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""


def _cgroups(
    limits: Limits,
) -> tuple[sandbox.MemoryCgroup | None, sandbox.CpuCgroup | None, sandbox.PidsCgroup | None, list[int]]:
    """The bot's memory, CPU and pids cgroups where the machine allows them, and their open
    ``cgroup.procs`` (the launcher moves the bot in by writing to them)."""
    cgroup = sandbox.MemoryCgroup.create(limits.memory_mb)
    cpu = sandbox.CpuCgroup.create()
    pids = sandbox.PidsCgroup.create(limits.processes)
    fds = [] if cgroup is None else [cgroup.open_procs()]
    fds += [] if cpu is None else cpu.open_procs()
    fds += [] if pids is None else [pids.open_procs()]
    return cgroup, cpu, pids, fds


def _scratch_fd(workdir: Path) -> int:
    """The scratch folder, open for the launcher: a sandbox's HOME is a tmpfs it copies in from and
    back out into this folder."""
    return os.open(workdir, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)


def _remove_cgroups(*groups: sandbox.MemoryCgroup | sandbox.CpuCgroup | sandbox.PidsCgroup | None) -> None:
    """Remove the cgroups made for a bot that did not start."""
    for group in groups:
        if group is not None:
            group.remove()


def _log_stream(process: asyncio.subprocess.Process, stdio: bool) -> asyncio.StreamReader:
    """What a bot's log is made of: its stderr for a stdio bot (its stdout is the wire), else its output."""
    logged = process.stderr if stdio else process.stdout
    assert logged is not None
    return logged


def _program(name: str, command: Command, base: Path) -> tuple[list[str], list[str], Path | None]:
    """The bot's argv on the host and in its sandbox, and the team's folder to bind there (None for an
    organiser's command: ``resolve_command``, the files it names bound); OSError when its program
    cannot be run or a team's command names a file out of its folder (``confine``)."""
    if isinstance(command, TeamCommand):
        argv, inside = confine(command)
        own: Path | None = command.folder
    else:
        argv = inside = resolve_command(command, base)
        own = None
    problem = program_problem(argv[0], own or base)
    if problem:
        raise OSError(f"bot {name!r}: program {_words(command)[0]!r} {problem}")
    return argv, inside, own


def _words(command: Command) -> tuple[str, ...]:
    return command.words if isinstance(command, TeamCommand) else command


def _owner(name: str, limits: Limits) -> tuple[int, int] | None:
    """The (uid, gid) a bot runs as (``limits.user``), or None; OSError if the dealer cannot switch."""
    if limits.user is None:
        return None
    if os.geteuid() != 0:
        raise OSError(f"bot {name!r}: limits.user needs the dealer to run as root")
    return resolve_user(limits.user)


def _sealed_address(
    name: str, limits: Limits, address: str, local_address: str | None, *, stdio: bool
) -> tuple[str | None, str]:
    """The dealer's Unix socket to bind into a sealed bot's sandbox (or None) and the address the
    bot dials; OSError when the sandbox cannot start or a sealed bot has no socket to dial."""
    if limits.sandbox != "on":
        return None, address
    try:
        sandbox.check()
    except sandbox.SandboxError as error:
        raise OSError(f"bot {name!r}: {error}") from None
    if limits.network != "none" or stdio:  # a stdio bot needs no socket
        return None, address
    if local_address is None or not local_address.startswith("unix:"):
        raise OSError(f"bot {name!r}: network: none needs the dealer's Unix socket")
    return local_address[5:], f"unix:{sandbox.SOCKET}"


def _environment(
    workdir: Path, sandboxed: bool, dial: tuple[str, str] | None, path: str | None = None
) -> dict[str, str]:
    """A bot's minimal environment: ``PATH`` (``path``, else the dealer's), ``HOME``, and with ``dial``
    (address, token: not for a stdio bot) ``POKER_DEALER`` and ``POKER_TOKEN``."""
    env = {
        "PATH": path if path is not None else os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": sandbox.HOME if sandboxed else str(workdir),
        "PYTHONUNBUFFERED": "1",
    }
    if dial is not None:
        env.update(POKER_DEALER=dial[0], POKER_TOKEN=dial[1])
    return env


def _sandboxed(
    launcher: list[str],
    argv: list[str],
    *,
    base: Path,
    workdir: Path,
    limits: Limits,
    socket: str | None,
    owner: tuple[int, int] | None,
    files: Mapping[str, Path] | None,
) -> tuple[list[str], int]:
    """The launcher's command inside the bot's bubblewrap sandbox, and the descriptor of its options."""
    return sandbox.wrap(
        launcher,
        program=argv,
        private=(base.resolve(), workdir.resolve()),
        socket=socket,
        host_network=limits.network == "host",  # stdio bots too: no network unless asked
        tmp_mb=limits.tmp_mb,
        home_mb=limits.home_mb,
        keep_setuid=owner is not None,
        files=files,
    )


def _launcher(
    argv: list[str],
    limits: Limits,
    owner: tuple[int, int] | None,
    fds: list[int],
    relay: str | None,
    keep: int | None,
    *,
    memory_cgroup: bool,
) -> list[str]:
    """The command that runs ``argv`` under ``dealer.isolation.launch`` with the bot's limits (RLIMIT_DATA for
    memory only without a memory cgroup), user, cgroup descriptors, ACPC relay and the scratch
    folder it copies a sandboxed HOME into and out of (``keep``, an open descriptor)."""
    options: dict[str, object] = {
        "memory_mb": None if memory_cgroup else limits.memory_mb,
        "cpu_seconds": limits.cpu_seconds,
        "open_files": limits.open_files,
        "file_size_mb": limits.file_size_mb,
        "processes": limits.processes,
        "user": None if owner is None else f"{owner[0]}:{owner[1]}",
        "cgroup_fd": ",".join(map(str, fds)) if fds else None,
        "relay": relay,
        "keep": keep,
        "keep_mb": None if keep is None else limits.home_mb,  # what its HOME's copy back out may take
    }
    return [sys.executable, "-I", "-S", LAUNCHER, *limit_args(options), "--", *argv]


async def _spawn(
    launcher: list[str], workdir: Path, env: dict[str, str], fds: list[int], *, stdio: bool
) -> tuple[asyncio.subprocess.Process, asyncio.Future[None]]:
    """Start the launcher in a session of its own (its process group is the bot's); the process and
    the future its exit sets (``_ExitProtocol``). Its stdout (stderr with ``stdio``) is the log."""
    loop = asyncio.get_running_loop()
    transport, protocol = await loop.subprocess_exec(
        lambda: _ExitProtocol(loop),
        *launcher,
        cwd=workdir,
        env=env,
        stdin=asyncio.subprocess.PIPE if stdio else asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE if stdio else asyncio.subprocess.STDOUT,
        start_new_session=True,
        pass_fds=fds,
    )
    return asyncio.subprocess.Process(transport, protocol, loop), protocol.exited


class _ExitProtocol(asyncio.subprocess.SubprocessStreamProtocol):
    """The protocol ``asyncio.create_subprocess_exec`` uses, with the process's exit as a future:
    set when its status is known, whether or not its pipes are still open."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(limit=STREAM_LIMIT, loop=loop)
        self.exited: asyncio.Future[None] = loop.create_future()

    def process_exited(self) -> None:
        """The process ended (asyncio has its status): wake whoever waits for it."""
        super().process_exited()
        if not self.exited.done():
            self.exited.set_result(None)


Cgroup = sandbox.MemoryCgroup | sandbox.CpuCgroup | sandbox.PidsCgroup
_leftover_cgroups: list[Cgroup] = []


async def _remove_cgroup(cgroup: Cgroup, timeout_s: float) -> bool:
    """Remove a stopped bot's memory or CPU cgroup once the kernel has ended its last processes; False
    if some were still there after ``timeout_s``."""
    deadline = asyncio.get_running_loop().time() + timeout_s
    while not cgroup.remove():
        if asyncio.get_running_loop().time() >= deadline:
            return False
        cgroup.kill()
        await asyncio.sleep(0.05)
    return True


async def sweep_cgroups(timeout_s: float = CGROUP_SWEEP_S) -> None:
    """Remove the cgroups that stopped bots left behind (their processes were slow to end); a
    cgroup still busy after ``timeout_s`` is logged, for the organiser, and left."""
    leftovers = list(_leftover_cgroups)
    _leftover_cgroups.clear()
    removed_each = await asyncio.gather(*(_remove_cgroup(c, timeout_s) for c in leftovers))
    for cgroup, removed in zip(leftovers, removed_each, strict=True):
        if not removed:
            where = cgroup.folders[0] if isinstance(cgroup, sandbox.CpuCgroup) else cgroup.folder
            LOGGER.error("cgroup %s still has processes after %.0f s: left in place", where, timeout_s)


def _grandchild(pid: int) -> int | None:
    """A child of a child of ``pid`` (bwrap's, in the sandbox: the launcher), found through the
    parents in /proc/*/stat (this kernel may not list a process's children); None if there is none."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    parent = int(f.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            parents.setdefault(parent, []).append(int(entry))
    return next((child for init in parents.get(pid, []) for child in parents.get(init, [])), None)


def _signal_group(pid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


async def _pump_log(stream: asyncio.StreamReader, path: Path, cap: int) -> None:
    """Copy the bot's output to its log up to ``cap`` bytes; drain and drop the rest. Where the log
    cannot be written (a full output filesystem), the rest is drained and dropped too, and said once
    in ``dealer.log``: the event's own writes report the full disk, this pump never fails."""
    written = 0
    try:
        out: BinaryIO | None = open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb")  # noqa: SIM115
    except OSError as error:
        LOGGER.warning("bot log %s cannot be written (%s): the bot's output is dropped", path, error.strerror)
        out = None
    try:
        while chunk := await stream.read(65536):
            if out is None or written >= cap:
                continue
            part = chunk[: cap - written]
            written += len(part)
            try:
                out.write(part)
                if written >= cap:
                    out.write(b"\n[log truncated: size limit reached]\n")
                out.flush()
            except OSError as error:
                LOGGER.error(
                    "bot log %s cannot be written (%s): the rest of the bot's output is dropped", path, error.strerror
                )
                with contextlib.suppress(OSError):
                    out.close()
                out = None
    finally:
        if out is not None:
            with contextlib.suppress(OSError):
                out.close()
