"""The arena's use cases, one owner for each decision of who may see or do what.

The API (``dealer.arena.http``, ``/api/v1``) and the pages' data (``dealer.arena.pages``,
``/data``) are two presenters of these calls, as aiarena-web's ``core/services`` serve both its
API views and its pages: a route parses the request, calls one use case and writes its answer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dealer.arena.archive import MB
from dealer.arena.layout import FINALS_JSON, finals_folder
from dealer.arena.model import TEAM_PATTERN, Team
from dealer.arena.repository import Repository
from dealer.seeds import commitment


@dataclass(frozen=True, slots=True)
class Organiser:
    """The caller holds an organiser's token: the arena is theirs to run and to see whole."""


@dataclass(frozen=True, slots=True)
class Public:
    """Nobody logged in: the caller sees what the arena shows everyone."""


Caller = Team | Organiser | Public
ORGANISER, PUBLIC = Organiser(), Public()


async def resolve(repository: Repository, digest: str) -> Team | Organiser | None:
    """The caller a token's SHA-256 speaks for (a team or the organiser), or None for a token the
    arena does not know (or no longer: replaced or revoked). The one place a token becomes a caller."""
    team = await repository.team_for_digest(digest)
    if team is not None:
        return team
    return ORGANISER if await repository.is_organiser_digest(digest) else None


BOT_LOG_SHOWN = MB  # of a bot's log (its size is capped by limits.log_kb anyway)


def read_logs(paths: list[Path]) -> list[str]:
    """Each log's text under a line naming its process (one per table of the match, and per restart)."""
    return [f"[arena] {p.stem}:\n" + p.read_bytes()[: BOT_LOG_SHOWN + 1].decode("utf-8", "replace") for p in paths]


def finals_records(storage: Path) -> list[dict[str, Any]]:
    """Every finals' public record, by name."""
    root = finals_folder(storage, "")
    found = []
    for folder in sorted(root.iterdir()) if root.is_dir() else []:
        record = finals_record(storage, folder.name)
        if record is not None:
            found.append(record)
    return found


def finals_record(storage: Path, name: str) -> dict[str, Any] | None:
    """The finals ``name``'s record, its revealed seed checked against its commitment, or None."""
    if not TEAM_PATTERN.fullmatch(name):
        return None
    try:
        record = json.loads((finals_folder(storage, name) / FINALS_JSON).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict):
        return None
    seed = record.get("seed")
    record["seed_matches"] = None if not isinstance(seed, str) else commitment(seed) == record.get("seed_sha256")
    return record
