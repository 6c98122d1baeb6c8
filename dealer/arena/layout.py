"""The arena's storage folder, one owner for its layout (paths only; ``public_files`` lists a folder).

storage/
  versions/<sha256>/   a version's files as submitted, read-only (content-addressed)
  incoming/            submissions being checked (deleted when refused)
  builds/<id>/         a version's build folder: a copy of its files, then what its build made
  tools/<id>/          its build's PATH: the basic tools and the offered toolchains' commands
  logs/<id>.log        its build and smoke-test log (its team's to read)
  smoke/<id>/          its smoke match's output (histories, the bots' logs: logs/candidate*.log its own)
  matches/<id>/        a ladder match's or scrimmage's output (histories, the bots' logs)
  finals/<name>/       a finals' output: finals.json, standings.txt, its seed (private), a folder per stage
  arena.log            the server's log
  arena.db             the database, unless arena.yaml names another
"""

from __future__ import annotations

import re
import secrets
import shutil
from pathlib import Path

from dealer.arena.model import Version
from dealer.config.confined import TeamCommand

FINALS_JSON = "finals.json"  # a finals' public record
RESULTS_JSON = "results.json"  # an event's results as dealer.league.run writes them (each finals stage's)
STANDINGS_TXT = "standings.txt"  # the standings as text (the finals' and each stage's)
SEED_FILE = "seed"  # a finals' seed, private until its last stage has ended
HANDS = "hands"  # a match's hand histories, as dealer.league.match names the folder
HISTORIES = "*.phhs"  # the hand histories in it (PHH, one file per table)
LOGS = "logs"  # a match's bots' logs (each its team's own)
SCRATCH = "scratch"  # the bots' scratch folders
_HISTORY = re.compile(r"table-\d+-[A-Za-z0-9_.-]+-r\d+\.phhs")  # dealer.league.table's hand histories
SMOKE_BOT = "candidate"  # the version's name in its smoke match (the other seat is the house bot)


def version_files(storage: Path, digest: str) -> Path:
    """Where the files of SHA-256 ``digest`` are kept."""
    return storage / "versions" / digest


def incoming(storage: Path) -> Path:
    """Where submissions are unpacked while they are checked."""
    return storage / "incoming"


def build_folder(storage: Path, version: Version) -> Path:
    """Where ``version`` is built and run from."""
    return storage / "builds" / str(version.id)


def run_command(storage: Path, version: Version, team: str) -> TeamCommand:
    """``version``'s ``run:`` as it is launched: a team's command, confined to its build folder."""
    return TeamCommand(f"team {team!r}", build_folder(storage, version), version.run)


def tools(storage: Path, version: Version) -> Path:
    """The folder that is ``version``'s build's PATH (the offered toolchains)."""
    return storage / "tools" / str(version.id)


def build_log(storage: Path, version: Version) -> Path:
    """The build and smoke-test log of ``version``."""
    return storage / "logs" / f"{version.id}.log"


def smoke_folder(storage: Path, version: Version) -> Path:
    """The output folder of ``version``'s smoke match."""
    return storage / "smoke" / str(version.id)


def matches_folder(storage: Path) -> Path:
    """Where the output folders of the ladder's matches and scrimmages are."""
    return storage / "matches"


def match_folder(storage: Path, match_id: int) -> Path:
    """The output folder of ladder match or scrimmage ``match_id``."""
    return matches_folder(storage) / str(match_id)


def history_files(storage: Path, match_id: int) -> list[Path]:
    """The match's hand histories (PHH, one file per table), by name."""
    return sorted((match_folder(storage, match_id) / HANDS).glob(HISTORIES))


def bot_logs(storage: Path, match_id: int, bot: str) -> list[Path]:
    """The logs bot ``bot`` (``team-v3``) wrote in a match, one per table and restart, in order."""
    logs = match_folder(storage, match_id) / LOGS
    return sorted(logs.glob(f"{bot}.*.log"), key=lambda p: (len(p.name), p.name))


def upload_folder(storage: Path) -> Path:
    """A new folder, not yet made, to unpack one submission in while it is checked."""
    return incoming(storage) / f"upload-{secrets.token_hex(8)}"


def drop_scratch(out: Path) -> None:
    """Delete what the bots of a finished match or smoke test left in their scratch folders: a
    team's files are kept while its bot plays, never after (no page or route shows them), so what a
    team keeps on the arena's disk is at most what its instances in play hold (``home_mb`` each)."""
    shutil.rmtree(out / SCRATCH, ignore_errors=True)


def smoke_bot_logs(storage: Path, version: Version) -> list[Path]:
    """The logs ``version`` wrote in its smoke match, one per process (one a table, and a restart's), in order."""
    logs = smoke_folder(storage, version) / LOGS
    return sorted(logs.glob(f"{SMOKE_BOT}*.log"), key=lambda p: (len(p.name), p.name))


def database_file(storage: Path) -> Path:
    """The SQLite database an ``arena.yaml`` that names none keeps in its storage folder."""
    return storage / "arena.db"


def server_log(storage: Path) -> Path:
    """The server's own log."""
    return storage / "arena.log"


def finals_folder(storage: Path, name: str) -> Path:
    """The output folder of the finals called ``name``."""
    return storage / "finals" / name


def public_files(folder: Path) -> list[str]:
    """What of a finals folder is published: each stage's results, standings and hand histories
    (never the bots' logs, which are their teams' own), as paths inside the folder."""
    found = [
        path.relative_to(folder).as_posix()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and not path.is_symlink() and is_public(path.relative_to(folder).as_posix())
    ]
    return found


def is_public(relative: str) -> bool:
    """Whether a path inside a finals folder may be shown to every team (the one owner of that rule):
    the finals' record and standings, each stage's results and standings, and the dealer's hand
    histories (in a match's ``hands/``, named as ``dealer.league.table`` names them; never under a bot's
    scratch folder, where a bot's own files are copied, nor a log)."""
    parts = relative.split("/")
    if any(part in ("", ".", "..", SCRATCH, LOGS) for part in parts):
        return False
    name = parts[-1]
    if len(parts) == 1:
        return name in (FINALS_JSON, STANDINGS_TXT)
    history = parts[-2] == HANDS and _HISTORY.fullmatch(name) is not None  # a match's hands/ folder
    return history or (len(parts) == 2 and name in (RESULTS_JSON, STANDINGS_TXT))
