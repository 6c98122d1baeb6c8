"""``bot.yaml``, the file at the top of every submission: how the arena builds and runs the bot.

Format (one line per problem, ``bot.yaml:line: key: problem``, as for a league)::

    protocol: stdio              # required: grpc | stdio | acpc (see "Writing a bot" in the README)
    build: cc -O2 -o bot bot.c   # optional: a shell command run once in the sandbox, in the bot's folder
    run: ./bot                   # required: the bot's command (a string, shlex-split, or a list of
                                 #   words), run from the bot's folder; an acpc bot's words
                                 #   {game} {host} {port} are replaced; a word names a file of
                                 #   the bot's folder alone (no '..'): dealer.config.confined
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from dealer.arena.config import read_document
from dealer.arena.model import ArenaError
from dealer.config.choices import BotProtocol
from dealer.config.confined import climbs
from dealer.config.league_file import read_command
from dealer.config.read import LeagueConfigError, choice, mapping, read_key, string

MANIFEST = "bot.yaml"
MAX_MANIFEST_BYTES = 64 * 1024
MAX_COMMAND_CHARS = 4096
_KEYS = ("protocol", "build", "run")


@dataclass(frozen=True, slots=True)
class BotManifest:
    """What a version's ``bot.yaml`` says: its protocol, its build command (None: nothing to build), its run command."""

    protocol: BotProtocol
    run: tuple[str, ...]
    build: str | None = None


def parse_manifest(data: bytes) -> BotManifest:
    """Read a submission's ``bot.yaml``; every problem in one ArenaError line (problems joined by '; ')."""
    if len(data) > MAX_MANIFEST_BYTES:
        raise ArenaError(f"{MANIFEST}: larger than {MAX_MANIFEST_BYTES // 1024} KiB")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ArenaError(f"{MANIFEST}: not UTF-8 (byte offset {exc.start})") from None
    try:
        ctx, root = read_document(text, MANIFEST, folder=Path.cwd())
        fields = mapping(ctx, root, "", _KEYS)
        manifest = None
        if fields is not None:
            layer = [(fields, "")]
            for key in ("protocol", "run"):
                if key not in fields:
                    ctx.error(root, key, "missing (required)")
            protocol = read_key(ctx, layer, "protocol", choice(BotProtocol), None)
            run = read_key(ctx, layer, "run", read_command, None)
            build = read_key(ctx, layer, "build", string, None)
            for key, value in (("run", " ".join(run or ())), ("build", build or "")):
                if len(value) > MAX_COMMAND_CHARS:
                    ctx.error(fields[key], key, f"longer than {MAX_COMMAND_CHARS} characters")
            for word in [w for w in run or () if climbs(w)][:1]:
                why = "climbs out of the bot's folder: a bot names only its own files"
                ctx.error(fields["run"], "run", f"{word!r} {why}")
            if protocol is not None and run is not None:
                manifest = BotManifest(protocol=protocol, run=run, build=build)
        if ctx.errors or manifest is None:
            raise ctx.fail()
    except yaml.constructor.ConstructorError as exc:  # an unsafe tag such as !!python/object
        mark = exc.problem_mark
        raise ArenaError(f"{MANIFEST}:{mark.line + 1 if mark else 1}: YAML error: {exc.problem}") from None
    except LeagueConfigError as error:
        raise ArenaError("; ".join(error.errors)) from None
    return manifest
