"""Run a bot under its limits and reap everything it starts: ``python -I -S .../launch.py OPTIONS -- ARGV``.

The dealer starts bots through this tiny program instead of a ``preexec_fn``: forking the
dealer (a process with gRPC threads) and running Python in the child is unsafe, while a plain
spawn of this launcher is not. The launcher (run as a file with ``-I -S``, so nothing in the bot's
folder or environment is imported, and no ``site``: it needs the standard library only, and
each bot instance's start is the shorter by the site-packages' path hooks) stays as the bot's parent:

* it becomes a *child subreaper*: every process the bot starts, even one that calls ``setsid``
  or double-forks to leave the bot's process group, is re-parented to the launcher when its own
  parent dies; when the bot exits, or the dealer sends SIGTERM, the launcher kills every
  descendant it has (found through the ``/proc/*/stat`` parent chains) and exits with the bot's
  status (a bot killed by signal N makes the launcher die by signal N too);
* in the forked child, before ``exec``: ``cgroup_fd=N,M,...`` moves the bot into its memory and CPU
  cgroups (by writing "0" to each open ``cgroup.procs``, then closing it); the rlimits are set;
  ``user=UID:GID`` drops to that user (groups cleared) and enters its ``HOME``; then the bot is
  asked to be killed if the launcher dies (``PR_SET_PDEATHSIG``, set after the user change, which clears it)
  and a seccomp filter refuses it new user namespaces (x86_64 and aarch64; the kernel's attack surface
  that a bot has no use for, and bwrap's ``--disable-userns`` is not there for a dealer run as root);
* when the dealer is gone (its end of the launcher's output pipe closed), it kills everything and
  exits, also where its own death signal came too late to fire;
* ``keep=FD`` (a sandboxed bot, whose ``HOME`` is a tmpfs of its own): FD is the instance's scratch
  folder on the host, open. The launcher makes itself non-dumpable (so the bot cannot reach the
  descriptor through ``/proc/<launcher>/fd``; the bot never inherits it); it copies that folder into
  ``HOME`` before the bot starts (a restarted instance finds its files) and, once the bot and every
  process it started are dead, ``HOME`` back into it, as the bot's user (folders and regular files
  only, never following a link, never opening a FIFO, at most ``keep_mb`` MiB counted by the files'
  apparent sizes, so a sparse file counts what it would take written out, and at most
  ``KEEP_ENTRIES`` files and folders; leaving a tenth of the output filesystem, at most 64 MiB, and
  a tenth of its inodes, at most ``INODES_LEFT``, free), so a bot's files stay readable after it ends;
* ``relay=PORT:PATH`` (an ACPC bot in a network namespace of its own): before the bot starts, it
  listens on 127.0.0.1:PORT of the sandbox's loopback; it takes the bot's first connection, closes
  the port (every later connection is refused) and hands that connection to the dealer over the
  dealer's Unix socket at PATH (SCM_RIGHTS), keeping no end of it: the dealer talks to the bot's
  socket directly, no byte crosses the launcher.

Options are ``name=value`` pairs: ``memory_mb``, ``cpu_seconds``, ``open_files``, ``file_size_mb``,
``processes`` (rlimits), ``user=UID:GID``, ``cgroup_fd=N,M,...``, ``relay=PORT:PATH``, ``keep=FD``,
``keep_mb`` (what the copy of ``HOME`` back out may take; default unlimited).

The dealer normally runs the launcher inside the bot's sandbox (``dealer.isolation.sandbox``), whose pid
namespace ends with it. Without the sandbox, a descendant that may signal the launcher (same user:
no ``user``) can kill it; then PDEATHSIG still kills the bot, but its orphans escape to init.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import select
import signal
import socket
import stat
import sys
import threading
import time
from collections.abc import Callable

_PR_SET_PDEATHSIG = 1
_PR_SET_DUMPABLE = 4
_PR_SET_CHILD_SUBREAPER = 36
_DEALER_PID = os.getppid()
STOP_WAIT_S = 0.3  # on SIGTERM, how long the bot may take to exit before everything is killed

# Memory is capped with RLIMIT_DATA (memory written), not RLIMIT_AS: runtimes such as V8
# reserve gigabytes of address space they never touch. RLIMIT_NPROC counts every process and
# thread of the bot's *real user*, so it is only applied when the bot runs as its own user.
_LIMITS = {
    "memory_mb": (resource.RLIMIT_DATA, 1024 * 1024),
    "cpu_seconds": (resource.RLIMIT_CPU, 1),
    "open_files": (resource.RLIMIT_NOFILE, 1),
    "file_size_mb": (resource.RLIMIT_FSIZE, 1024 * 1024),
    "processes": (resource.RLIMIT_NPROC, 1),
}
_OTHER = ("user", "cgroup_fd", "relay", "keep", "keep_mb")
KEEP_ENTRIES = 10_000  # files and folders of a sandboxed HOME copied back out, at most, per copy
INODES_LEFT = 10_000  # the output filesystem's inodes the copy leaves free, at most (else a tenth)


def limit_args(limits: dict[str, object]) -> list[str]:
    """The launcher's arguments for the given options (``name=value`` pairs; None values dropped)."""
    return [f"{name}={value}" for name, value in limits.items() if name in (*_LIMITS, *_OTHER) and value is not None]


_libc = ctypes.CDLL(None, use_errno=True)


def _prctl(option: int, value: int) -> bool:
    try:
        return bool(_libc.prctl(option, value, 0, 0, 0) == 0)
    except AttributeError:  # not Linux
        return False


def _fail(message: str) -> None:
    print(f"[dealer launcher] {message}", file=sys.stderr, flush=True)
    os._exit(126)


def _initial_environment() -> dict[str, str]:
    """The environment the dealer gave the launcher, without what Python and the ``dealer``
    package added to ``os.environ`` since (``LC_CTYPE`` coercion, ``GRPC_ENABLE_FORK_SUPPORT``)."""
    try:
        with open("/proc/self/environ", "rb") as f:
            pairs = [entry.split(b"=", 1) for entry in f.read().split(b"\0") if b"=" in entry]
        return {os.fsdecode(key): os.fsdecode(value) for key, value in pairs}
    except OSError:
        return dict(os.environ)


# A seccomp filter that refuses new user namespaces: unshare and clone with CLONE_NEWUSER fail with
# EPERM, clone3 (whose flags a filter cannot read) with ENOSYS, so libc falls back to clone. Per
# architecture: its audit number, then the syscall numbers of unshare, clone and clone3.
_CLONE_NEWUSER = 0x10000000
_ARCHES = {
    "x86_64": (0xC000003E, 272, 56, 435),
    "aarch64": (0xC00000B7, 97, 220, 435),
}
_X32_BIT = 0x40000000  # x86_64's x32 syscalls: refused as a whole (ENOSYS), nothing uses them
_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2
_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


def _no_user_namespaces_filter(machine: str) -> list[tuple[int, int, int, int]] | None:
    """The BPF program (code, jt, jf, k) for this machine's architecture, or None for one not known."""
    if machine not in _ARCHES:
        return None
    arch, unshare, clone, clone3 = _ARCHES[machine]
    load, jeq, jge, jset, ret = 0x20, 0x15, 0x35, 0x45, 0x06
    return [
        (load, 0, 0, 4),  # seccomp_data.arch
        (jeq, 1, 0, arch),
        (ret, 0, 0, _ERRNO | 38),  # another ABI on this kernel (i386 on x86_64): ENOSYS
        (load, 0, 0, 0),  # seccomp_data.nr
        (jge, 4, 0, _X32_BIT),
        (jeq, 4, 0, unshare),
        (jeq, 3, 0, clone),
        (jeq, 1, 0, clone3),
        (ret, 0, 0, _ALLOW),
        (ret, 0, 0, _ERRNO | 38),  # clone3 and x32: ENOSYS
        (load, 0, 0, 16),  # the low half of args[0]: the flags of unshare and clone
        (jset, 0, 1, _CLONE_NEWUSER),
        (ret, 0, 0, _ERRNO | 1),  # EPERM
        (ret, 0, 0, _ALLOW),
    ]


def _refuse_user_namespaces() -> None:
    """Install the filter (with ``no_new_privs``, which an unprivileged process needs for it)."""
    program = _no_user_namespaces_filter(os.uname().machine)
    if program is None:
        return
    filters = (_SockFilter * len(program))(*(_SockFilter(*f) for f in program))
    fprog = _SockFprog(len(program), filters)
    if (
        not _prctl(_PR_SET_NO_NEW_PRIVS, 1)
        or _libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0
    ):
        _fail(f"cannot refuse user namespaces to the bot: {os.strerror(ctypes.get_errno())}")


def _cgroup_fds(options: dict[str, str]) -> list[int]:
    """The open ``cgroup.procs`` descriptors of ``cgroup_fd=N,M,...``: the bot's memory and CPU cgroups."""
    return [int(fd) for fd in options.get("cgroup_fd", "").split(",") if fd]


def _child(options: dict[str, str], command: list[str]) -> None:
    """In the forked child: isolate, limit, drop privileges, exec the bot. Never returns."""
    try:
        environment = _initial_environment()  # read before the user change makes /proc/self root's
        signal.pthread_sigmask(signal.SIG_SETMASK, set())
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGCHLD):
            signal.signal(sig, signal.SIG_DFL)
        for fd in _cgroup_fds(options):
            try:
                os.write(fd, b"0")
            except OSError as error:
                _fail(f"cannot join the bot's cgroup: {error.strerror}")
            os.close(fd)
        user = options.get("user")
        for name, (which, unit) in _LIMITS.items():
            if name in options and (name != "processes" or user is not None):
                value = int(options[name]) * unit
                resource.setrlimit(which, (value, value))
        if user is not None:
            uid, gid = (int(x) for x in user.split(":"))
            os.setgroups([])
            os.setgid(gid)
            os.setuid(uid)
            if os.getuid() != uid or os.geteuid() != uid:
                _fail("could not drop privileges")
        os.chdir(environment.get("HOME", "."))  # after the user change: HOME may be the bot user's alone
        launcher = os.getppid()
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != launcher:
            os._exit(1)
        _refuse_user_namespaces()
        os.execvpe(command[0], command, environment)
    except OSError as error:
        print(f"cannot start {command[0]!r}: {error.strerror or error}", file=sys.stderr, flush=True)
        os._exit(127)
    except BaseException as error:  # noqa: BLE001 - never return into the launcher's code
        print(f"cannot start {command[0]!r}: {error!r}", file=sys.stderr, flush=True)
        os._exit(127)


def _listen(port: int) -> socket.socket:
    """The relay's port on the sandbox's loopback, listening before the bot starts (so it never
    dials too early); not inherited by the bot (Python's sockets are close-on-exec)."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", port))
    server.listen(1)
    return server


def _hand_over(server: socket.socket, path: str) -> None:
    """Take the bot's first connection, refuse the rest (the port is closed), and hand it to the
    dealer over its Unix socket at ``path`` (SCM_RIGHTS): the dealer reads and writes the bot's
    connection itself, with no copy through the launcher, and the launcher keeps no end of it."""
    try:
        bot, _ = server.accept()
    except OSError:
        return
    server.close()
    with bot, socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as dealer:
        try:
            dealer.connect(path)
            socket.send_fds(dealer, [b"\0"], [bot.fileno()])
        except OSError as error:
            print(f"[dealer launcher] cannot reach the dealer: {error.strerror}", file=sys.stderr, flush=True)


def _descendants(root: int) -> list[int]:
    """Every live process whose parent chain leads to ``root`` (not ``root`` itself)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if fields[0] != b"Z":
            parents[int(entry)] = int(fields[1])
    found: list[int] = []
    frontier = {root}
    while frontier:
        children = [pid for pid, ppid in parents.items() if ppid in frontier]
        found += children
        frontier = set(children)
    return found


def _reap() -> list[tuple[int, int]]:
    """Collect every exited child: (pid, wait status)."""
    done: list[tuple[int, int]] = []
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return done
        if pid == 0:
            return done
        done.append((pid, status))


def _kill_all(wait_s: float = 5.0) -> None:
    """Kill every descendant until none is left and all are reaped (a fork loop is outrun: each
    round kills every process found, and orphans come back to this subreaper)."""
    me = os.getpid()
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        pids = _descendants(me)
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        _reap()
        if not pids:
            try:
                os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return  # no child left, not even a zombie
        time.sleep(0.005)


def _room(target: int, size: int) -> bool:
    """Whether ``size`` more bytes and one more inode leave a tenth of ``target``'s filesystem (at
    most 64 MiB) and of its inodes (at most INODES_LEFT) free: a bot's files never take the space or
    the inodes the dealer needs for the results (a filesystem that counts no inodes has no limit)."""
    fs = os.fstatvfs(target)
    space = fs.f_bavail * fs.f_frsize - size >= min(fs.f_blocks * fs.f_frsize // 10, 64 << 20)
    return space and (fs.f_files == 0 or fs.f_favail - 1 >= min(fs.f_files // 10, INODES_LEFT))


class _Budget:
    """What one copy may still take: bytes (files counted by their apparent size, so a sparse file
    counts as what it would be written out) and entries (files and folders)."""

    def __init__(self, size: int, entries: int) -> None:
        self.size = size
        self.entries = entries

    def take(self, size: int) -> bool:
        """Take ``size`` bytes and one entry if they are left; whether they were."""
        if self.entries < 1 or size > self.size:
            return False
        self.entries -= 1
        self.size -= size
        return True


def _copy_file(name: str, source: int, target: int, budget: _Budget) -> None:
    """Copy the regular file ``name`` of folder ``source`` into folder ``target`` (a fresh file),
    if the budget and the target's filesystem have room for it."""
    src = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=source)
    try:
        info = os.fstat(src)
        if not stat.S_ISREG(info.st_mode) or not _room(target, info.st_size) or not budget.take(info.st_size):
            return  # a FIFO, socket or device is not copied (and never blocked on)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name, dir_fd=target)  # an earlier copy of this instance's HOME (a restart)
        mode = 0o700 if info.st_mode & stat.S_IXUSR else 0o600  # a built program stays runnable, nothing more
        dst = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode, dir_fd=target)
        try:
            while os.sendfile(dst, src, None, 1 << 20) > 0:
                pass
        finally:
            os.close(dst)
    finally:
        os.close(src)


def _copy_tree(source_root: int, target_root: int, budget: _Budget) -> None:
    """Copy the folders and regular files under the open folder ``source_root`` into the open
    folder ``target_root``, folder by folder (one folder's descriptors open at a time), never
    following a link, within ``budget``; an entry that cannot be copied (the target is full, the
    budget spent) is skipped."""
    pending = [""]
    while pending:
        folder = pending.pop()
        flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
        try:
            source = os.open(folder or ".", flags, dir_fd=source_root)
        except OSError:
            continue
        try:
            target = os.open(folder or ".", flags, dir_fd=target_root)
        except OSError:
            os.close(source)
            continue
        try:
            for entry in os.scandir(source):
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if not _room(target, 0) or not budget.take(0):
                            continue
                        with contextlib.suppress(FileExistsError):
                            os.mkdir(entry.name, 0o700, dir_fd=target)
                        pending.append(os.path.join(folder, entry.name))
                    elif entry.is_file(follow_symlinks=False):
                        _copy_file(entry.name, source, target, budget)
                except OSError:
                    continue
        finally:
            os.close(source)
            os.close(target)


def _copy_home(keep: int, user: str | None, *, out: bool, keep_mb: int | None = None) -> None:
    """Copy the scratch folder ``keep`` into the sandbox's ``HOME`` (before the bot starts: what an
    earlier process of this instance left, so a restarted bot finds its files) or ``HOME`` into it
    (``out``: once the bot and its processes are gone: at most ``keep_mb`` MiB and KEEP_ENTRIES
    entries), in a child that runs as the bot's user, whose folders they are; wait for it."""
    child = os.fork()
    if child == 0:
        try:
            _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
            if user is not None:
                uid, gid = (int(x) for x in user.split(":"))
                os.setgroups([])
                os.setgid(gid)
                os.setuid(uid)
            home = os.open(os.environ.get("HOME", "/home/bot"), os.O_RDONLY | os.O_DIRECTORY)
            source, target = (home, keep) if out else (keep, home)
            unlimited = _Budget(sys.maxsize, sys.maxsize)  # into HOME: its tmpfs is the cap
            budget = _Budget((keep_mb or sys.maxsize >> 20) << 20, KEEP_ENTRIES) if out else unlimited
            _copy_tree(source, target, budget)
        except BaseException:  # noqa: BLE001 - a copy that fails loses the bot's files, nothing else
            os._exit(1)
        os._exit(0)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(child, 0)


def _exit_like(status: int) -> None:
    """Exit with the bot's exit status, or die by the signal that killed it."""
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if sig not in (signal.SIGKILL, signal.SIGSTOP):  # these two have no handler to reset (EINVAL)
            signal.signal(sig, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {sig})
        os.kill(os.getpid(), sig)
        time.sleep(1)
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)


def _dealer_watch() -> Callable[[], bool]:
    """A check, made about once a second, that the dealer still reads the launcher's output pipe:
    the kernel reports an error on a pipe's write end once no process has it open for reading.
    It catches what the death signal misses, such as a dealer killed as it started the sandbox."""
    if not stat.S_ISFIFO(os.fstat(1).st_mode):
        return lambda: False  # run by hand, with a terminal or a file as its output
    poller = select.poll()
    poller.register(1, 0)  # no events asked: POLLERR and POLLHUP are always reported
    return lambda: bool(poller.poll(0))


def main(argv: list[str]) -> None:
    """Parse ``name=value`` options up to ``--``, run the rest as the bot, reap, exit like the bot."""
    _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != _DEALER_PID:
        sys.exit(1)  # the dealer died before the request took effect
    split = argv.index("--")
    options = dict(pair.split("=", 1) for pair in argv[:split])
    unknown = set(options) - set(_LIMITS) - set(_OTHER)
    if unknown:
        _fail(f"unknown options {sorted(unknown)}")
    command = argv[split + 1 :]
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)
    keep = int(options["keep"]) if "keep" in options else None
    if keep is not None:
        os.set_inheritable(keep, False)  # closed as the bot's program starts
        _prctl(_PR_SET_DUMPABLE, 0)  # the bot cannot open /proc/<launcher>/fd/<keep>
    relay: tuple[socket.socket, str] | None = None
    if "relay" in options:
        port, path = options["relay"].split(":", 1)
        try:
            relay = _listen(int(port)), path
        except OSError as error:
            _fail(f"cannot listen on 127.0.0.1:{port}: {error.strerror}")
    if keep is not None:
        _copy_home(keep, options.get("user"), out=False)
    watched = {signal.SIGCHLD, signal.SIGTERM, signal.SIGINT}
    signal.pthread_sigmask(signal.SIG_BLOCK, watched)
    bot = os.fork()
    if bot == 0:
        _child(options, command)
    if relay is not None:  # after the fork: the bot's process starts with one thread
        threading.Thread(target=_hand_over, args=relay, daemon=True).start()
    for fd in _cgroup_fds(options):
        os.close(fd)  # the launcher itself stays out of the bot's cgroups
    status: int | None = None
    deadline: float | None = None
    dealer_gone = _dealer_watch()
    while status is None:
        if dealer_gone():  # a sandbox orphaned when the dealer died before its death signal was set
            _kill_all()
            status = signal.SIGKILL
            break
        timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
        info = signal.sigtimedwait(watched, 1.0 if timeout is None else timeout)
        if info is not None and info.si_signo in (signal.SIGTERM, signal.SIGINT) and deadline is None:
            deadline = time.monotonic() + STOP_WAIT_S
            with contextlib.suppress(ProcessLookupError):
                os.kill(bot, info.si_signo)  # a sandboxed launcher alone is signalled, not its group
        for pid, code in _reap():
            if pid == bot:
                status = code
        if status is None and deadline is not None and time.monotonic() >= deadline:
            _kill_all()
            status = signal.SIGKILL  # a wait status: killed by SIGKILL
            break
    _kill_all()
    if keep is not None and not dealer_gone():
        kept_mb = int(options["keep_mb"]) if "keep_mb" in options else None
        _copy_home(keep, options.get("user"), out=True, keep_mb=kept_mb)
    _exit_like(status)


if __name__ == "__main__":
    main(sys.argv[1:])
