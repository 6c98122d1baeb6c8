"""A command a stranger wrote (an arena team's ``run:`` or ``build:``), as a type of its own.

An organiser's command (a league file's, the command line's) is a plain tuple of words: the dealer
resolves its relative paths from the league file's folder and binds the folders of the files it
names into the bot's sandbox, read-only (``dealer.isolation.sandbox.program_paths``), which is right for the
person who runs the dealer. A team's command is a ``TeamCommand``, and its sandbox sees its own
folder, read-only at ``BOT_FOLDER``, and nothing else the command names: each word that names a
file of the folder (resolved, links followed) becomes that file's path under ``BOT_FOLDER``, a
word that names anything outside it is refused in one line naming the team (``owner``) and the word
(``confine``), and every other word is passed as written, to be read inside the
sandbox, where only the system, the offered toolchains, the dealer's public files, the bot's own
folder and its scratch ``HOME`` exist. A word that climbs with ``..`` is refused already when the
team submits (``climbs``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

BOT_FOLDER = "/bot"  # where a team's folder is in its bot's sandbox (read-only)


def climbs(word: str) -> bool:
    """Whether a word of a team's command climbs out of its folder with ``..`` (an option's
    words, ``-x``, are never read as paths)."""
    return not word.startswith("-") and ".." in word.split("/")


@dataclass(frozen=True, slots=True)
class TeamCommand:
    """A team's command: its ``words`` as the team wrote them, run from ``folder`` (its version's
    build folder), which alone of the host's files the command may name; ``owner`` says whose it is
    in errors (``team 'alpha'``)."""

    owner: str
    folder: Path
    words: tuple[str, ...]

    def replaced(self, change: Callable[[str], str]) -> TeamCommand:
        """The same command with ``change`` applied to every word (an ACPC bot's ``{port}``)."""
        return TeamCommand(self.owner, self.folder, tuple(change(word) for word in self.words))


Command = tuple[str, ...] | TeamCommand  # an organiser's words, or a team's confined command


def replaced(command: Command, change: Callable[[str], str]) -> Command:
    """``command`` with ``change`` applied to every word, an organiser's or a team's alike."""
    if isinstance(command, TeamCommand):
        return command.replaced(change)
    return tuple(change(word) for word in command)


_PYTHONS = {"python", "python3", f"python3.{sys.version_info.minor}"}


def is_python(program: str) -> bool:
    """Whether a command's program names Python, which the dealer runs with its own interpreter."""
    return program in _PYTHONS


def resolve_command(command: Sequence[str], base: Path) -> list[str]:
    """The argv to run: ``python`` means this interpreter; relative paths that exist under ``base``
    become absolute, so the bot can run in its own scratch folder."""
    argv = list(command)
    if argv and is_python(argv[0]):
        argv[0] = sys.executable
    for i, arg in enumerate(argv):
        if not arg.startswith("-") and not os.path.isabs(arg) and (base / arg).exists() and ("/" in arg or i > 0):
            argv[i] = str((base / arg).resolve())
    return argv


def confine(command: TeamCommand) -> tuple[list[str], list[str]]:
    """A team's command as it runs: its argv on the host and in its sandbox, where its folder is
    ``BOT_FOLDER``. Only a word that names a file of the team's folder is resolved (links followed,
    on the host), to that file's path; OSError, one line naming the team and the word, for a word
    that names a file outside it (a link out of the folder, ``..``). ``python`` is this interpreter."""
    if not command.words:
        raise OSError(f"{command.owner}: its command is empty")
    folder = Path(os.path.realpath(command.folder))
    host, inside = list(command.words), list(command.words)
    if host and is_python(host[0]):
        host[0] = inside[0] = sys.executable
    for i, word in enumerate(command.words):
        if word.startswith("-") or os.path.isabs(word) or ("/" not in word and i == 0):
            continue
        path = command.folder / word
        if not os.path.lexists(path):
            continue
        real = Path(os.path.realpath(path))
        if real != folder and folder not in real.parents:
            raise OSError(f"{command.owner}: its command names {word!r}, which is not in its own folder")
        host[i] = str(real)
        inside[i] = str(PurePosixPath(BOT_FOLDER, real.relative_to(folder)))
    return host, inside
