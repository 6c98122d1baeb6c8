"""Exec a bot under its resource limits: ``python -m dealer.launch LIMITS -- ARGV``.

The dealer starts bots through this tiny program instead of a ``preexec_fn``: forking the
dealer (a process with gRPC threads) and running Python in the child is unsafe, while a plain
spawn of this launcher is not. The launcher sets the limits, then replaces itself with the bot.
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import sys

_PR_SET_PDEATHSIG = 1
_DEALER_PID = os.getppid()

# Memory is capped with RLIMIT_DATA (memory written), not RLIMIT_AS: runtimes such as V8
# reserve gigabytes of address space they never touch.
_LIMITS = {
    "memory_mb": (resource.RLIMIT_DATA, 1024 * 1024),
    "cpu_seconds": (resource.RLIMIT_CPU, 1),
    "open_files": (resource.RLIMIT_NOFILE, 1),
    "file_size_mb": (resource.RLIMIT_FSIZE, 1024 * 1024),
    "processes": (resource.RLIMIT_NPROC, 1),
}


def limit_args(limits: dict[str, int]) -> list[str]:
    """The launcher's arguments for the given limits (``name=value`` pairs)."""
    return [f"{name}={value}" for name, value in limits.items() if name in _LIMITS]


def _die_with_parent() -> None:
    """Ask Linux to kill this process (and so the bot it becomes) if the dealer dies first."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: the dealer's own shutdown still stops the bot
        return
    if os.getppid() != _DEALER_PID:
        sys.exit(1)  # the dealer died before the request took effect


def main(argv: list[str]) -> None:
    """Apply ``name=value`` limits up to ``--``, then exec the rest."""
    _die_with_parent()
    split = argv.index("--")
    for pair in argv[:split]:
        name, value = pair.split("=", 1)
        which, unit = _LIMITS[name]
        resource.setrlimit(which, (int(value) * unit, int(value) * unit))
    command = argv[split + 1 :]
    try:
        os.execvp(command[0], command)
    except OSError as error:
        print(f"cannot start {command[0]!r}: {error.strerror}", file=sys.stderr)
        sys.exit(127)


if __name__ == "__main__":
    main(sys.argv[1:])
