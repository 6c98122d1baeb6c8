"""The toolchains a build may use (``build.toolchains:`` in arena.yaml) and the PATH that offers them.

A build's PATH is one folder of its own (``tools_folder``), bound read-only at ``TOOLS`` in its
sandbox, holding the shell's basic tools and the commands of the listed toolchains only: links to
the host's programs, and for Python a two-line script that runs the dealer's own interpreter
(its venv, so the SDK imports; a link would lose the venv). A toolchain whose programs live
outside the system folders the sandbox shows (rustup's, under a HOME) has that folder bound too.
What is not listed is not on PATH: a build that calls it fails with ``not found``, and
``missing_toolchain`` names which toolchain that was for the build's log. The host's /usr stays
readable (the listed tools need its libraries), so this is a rule on what builds may call by
name, not a wall against a build that names ``/usr/bin/gcc`` by its path.
"""

from __future__ import annotations

import enum
import functools
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

TOOLS = "/run/tools"  # the build's PATH inside its sandbox


class Toolchain(enum.StrEnum):
    """A toolchain an organiser may offer to builds."""

    PYTHON = "python"  # the dealer's Python, with the bot SDK (pokerbot) importable
    NODE = "node"
    GCC = "gcc"
    JAVAC = "javac"
    RUSTC = "rustc"  # with the system linker (cc, ld, as), which rustc calls to link


COMMANDS: dict[Toolchain, tuple[str, ...]] = {
    Toolchain.PYTHON: ("python3", "python"),
    Toolchain.NODE: ("node", "npm", "npx"),
    Toolchain.GCC: ("gcc", "g++", "cc", "c++", "cpp", "as", "ld", "ar", "make"),
    Toolchain.JAVAC: ("javac", "java", "jar"),
    Toolchain.RUSTC: ("rustc", "cargo", "cc", "ld", "as"),
}

# The shell's basic tools, on every build's PATH whatever the toolchains.
BASIC = (
    "sh", "bash", "cat", "cp", "mv", "rm", "mkdir", "rmdir", "ln", "ls", "chmod", "touch", "echo",
    "printf", "test", "[", "true", "false", "env", "pwd", "sed", "grep", "head", "tail", "tr", "wc",
    "cut", "sort", "uniq", "find", "xargs", "dirname", "basename", "tar", "gzip", "expr", "sleep",
    "uname", "install", "diff", "cmp", "yes", "seq", "date", "awk", "mktemp", "readlink", "realpath", "od",
    "nproc", "stat", "du",
)  # fmt: skip

# "sh: 2: gcc: not found" (dash), "bash: line 1: gcc: command not found", "make: cc: No such file or directory"
_NOT_FOUND = re.compile(
    r"^(?:\S+: (?:line )?\d+: ([\w.+-]+): (?:command )?not found"
    r"|make(?:\[\d+\])?: ([\w.+-]+): No such file or directory)$",
    re.MULTILINE,
)


@dataclass(frozen=True, slots=True)
class Offer:
    """What one toolchain gives builds on this machine: its commands found here, and whether any is."""

    toolchain: Toolchain
    commands: tuple[str, ...]

    @property
    def available(self) -> bool:
        """Whether this machine has the toolchain's main program."""
        return COMMANDS[self.toolchain][0] in self.commands


@functools.cache
def _rust_bin() -> Path | None:
    """The folder of the real rustc and cargo (a rustup toolchain's ``bin``, not rustup's proxies)."""
    rustc = shutil.which("rustc")
    if rustc is None:
        return None
    try:
        done = subprocess.run([rustc, "--print", "sysroot"], capture_output=True, text=True, timeout=30, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    folder = Path(done.stdout.strip()) / "bin"
    return folder if (folder / "rustc").is_file() else None


def _program(toolchain: Toolchain | None, command: str) -> str | None:
    """The host's program for ``command`` of ``toolchain`` (None: a basic tool), or None if missing."""
    if toolchain is Toolchain.PYTHON:
        return sys.executable
    if toolchain is Toolchain.RUSTC and command in ("rustc", "cargo"):
        folder = _rust_bin()
        return None if folder is None or not (folder / command).is_file() else str(folder / command)
    return shutil.which(command)


def offers(toolchains: Iterable[Toolchain]) -> list[Offer]:
    """What each toolchain gives on this machine, in the order given."""
    return [Offer(t, tuple(c for c in COMMANDS[t] if _program(t, c) is not None)) for t in toolchains]


def tools_folder(folder: Path, toolchains: Sequence[Toolchain]) -> list[Path]:
    """Fill ``folder`` (made afresh) with the basic tools and the commands of ``toolchains``; return
    the host folders outside the sandbox's system view the sandbox must also show (rustup's)."""
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    extra: list[Path] = []
    entries: dict[str, tuple[Toolchain | None, str]] = {}
    for command in BASIC:
        if (program := _program(None, command)) is not None:
            entries[command] = (None, program)
    for toolchain in toolchains:
        for command in COMMANDS[toolchain]:
            if command not in entries and (program := _program(toolchain, command)) is not None:
                entries[command] = (toolchain, program)
    for command, (owner, program) in sorted(entries.items()):
        target = folder / command
        if owner is Toolchain.PYTHON:
            target.write_text(f'#!/bin/sh\nexec {shlex.quote(program)} "$@"\n', encoding="utf-8")
            target.chmod(0o755)
        else:
            target.symlink_to(program)
        if owner is Toolchain.RUSTC and command == "rustc":
            extra.append(Path(program).parent.parent)  # the sysroot: bin and the libraries rustc loads
    os.chmod(folder, 0o755)
    return extra


def missing_toolchain(output: str, offered: Sequence[Toolchain]) -> tuple[str, Toolchain | None] | None:
    """The first command a build's output says was not found, with the toolchain it belongs to
    that this arena does not offer (None: it belongs to none we know); None if no such line."""
    for match in _NOT_FOUND.finditer(output):
        command = match.group(1) or match.group(2)
        owners = [t for t, commands in COMMANDS.items() if command in commands and t not in offered]
        return command, owners[0] if owners else None
    return None
