"""A command a stranger wrote (an arena team's ``run:`` or ``build:``), as a type of its own.

An organiser's command (a league file's, the command line's) is a plain tuple of words: the dealer
resolves its relative paths from the league file's folder and binds the folders of the files it
names into the bot's sandbox, read-only (``dealer.sandbox.program_paths``), which is right for the
person who runs the dealer. A team's command is a ``TeamCommand``, and its sandbox sees its own
folder, read-only at ``BOT_FOLDER``, and nothing else the command names: each word that names a
file of the folder (resolved, links followed) becomes that file's path under ``BOT_FOLDER``, a
word that names anything outside it is refused in one line naming the team (``owner``) and the word
(``dealer.processes.confine``), and every other word is passed as written, to be read inside the
sandbox, where only the system, the offered toolchains, the dealer's public files, the bot's own
folder and its scratch ``HOME`` exist. A word that climbs with ``..`` is refused already when the
team submits (``climbs``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

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
