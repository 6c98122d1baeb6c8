"""The arena's storage folder, one owner for its layout (pure: paths only, nothing touched).

storage/
  versions/<sha256>/   a version's files as submitted, read-only (content-addressed)
  incoming/            submissions being checked (deleted when refused)
  builds/<id>/         a version's build folder: a copy of its files, then what its build made
  tools/<id>/          its build's PATH: the basic tools and the offered toolchains' commands
  logs/<id>.log        its build and smoke-test log (its team's to read)
  smoke/<id>/          its smoke match's output (histories, the bots' logs)
  matches/<id>/        a ladder match's or scrimmage's output (histories, the bots' logs)
  arena.log            the server's log
"""

from __future__ import annotations

from pathlib import Path

from dealer.arena.model import Version


def version_files(storage: Path, digest: str) -> Path:
    """Where the files of SHA-256 ``digest`` are kept."""
    return storage / "versions" / digest


def incoming(storage: Path) -> Path:
    """Where submissions are unpacked while they are checked."""
    return storage / "incoming"


def build_folder(storage: Path, version: Version) -> Path:
    """Where ``version`` is built and run from."""
    return storage / "builds" / str(version.id)


def tools(storage: Path, version: Version) -> Path:
    """The folder that is ``version``'s build's PATH (the offered toolchains)."""
    return storage / "tools" / str(version.id)


def build_log(storage: Path, version: Version) -> Path:
    """The build and smoke-test log of ``version``."""
    return storage / "logs" / f"{version.id}.log"


def smoke_folder(storage: Path, version: Version) -> Path:
    """The output folder of ``version``'s smoke match."""
    return storage / "smoke" / str(version.id)


def match_folder(storage: Path, match_id: int) -> Path:
    """The output folder of ladder match or scrimmage ``match_id``."""
    return storage / "matches" / str(match_id)


def server_log(storage: Path) -> Path:
    """The server's own log."""
    return storage / "arena.log"
