"""The arena's pure model: teams, tokens and submitted versions, with no I/O, clock or database.

A token is shown once and kept only as its SHA-256: tokens are 256 random bits, so a plain hash
(no salt, no slow hash) cannot be reversed by guessing, and a lookup is one indexed equality.
"""

from __future__ import annotations

import enum
import hashlib
import re
import secrets
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from dealer.errors import DealerError

TEAM_PATTERN = re.compile(r"[A-Za-z0-9_.-]{1,40}")
RESERVED = frozenset({"house"})  # the arena's own team (the house bot in the ladder)
TOKEN_PREFIXES = ("team_", "org_")  # what the token is for is readable; the rest is random


class ArenaError(DealerError):
    """A refused request or bad input of the arena: its text is one line meant for the user."""


class Refusal(enum.StrEnum):
    """Why a use case refuses a caller (the presenters map each to an HTTP status in one place)."""

    UNKNOWN = "unknown"  # no token, or one the arena does not know
    FORBIDDEN = "forbidden"  # a known caller on a route not theirs
    NOT_FOUND = "not-found"  # nothing of that name that this caller may see
    CONFLICT = "conflict"  # not now: frozen, not over, not accepted
    TOO_MANY = "too-many"  # a quota: try again after ``retry_after_s``
    INVALID = "invalid"  # the caller's input is refused (an archive that does not unpack)


class RefusedError(ArenaError):
    """A request the arena refuses: why, in a line, and when to try again (a quota)."""

    def __init__(self, refusal: Refusal, message: str, retry_after_s: float = 0.0) -> None:
        super().__init__(message)
        self.refusal = refusal
        self.retry_after_s = retry_after_s


class Role(enum.StrEnum):
    """Who a token speaks for: one team, or the organiser (admin work)."""

    TEAM = "team"
    ORGANISER = "organiser"


class BuildState(enum.StrEnum):
    """Where a version is: waiting for a builder, being built, ready to play, or failed."""

    QUEUED = "queued"
    BUILDING = "building"
    READY = "ready"
    FAILED = "failed"


class MatchState(enum.StrEnum):
    """Where a ladder match or a scrimmage is: picked and waiting, being played, played (a ranked
    one's result then waits to be applied in the ladder's order), applied to the ratings, or void
    (played but not rated: a version in it was paused first). A scrimmage ends at FINISHED."""

    SCHEDULED = "scheduled"
    RUNNING = "running"
    FINISHED = "finished"
    APPLIED = "applied"
    VOID = "void"

    @property
    def over(self) -> bool:
        """Whether every rotation of its deals has been played (its hands can be shown)."""
        return self in (MatchState.FINISHED, MatchState.APPLIED, MatchState.VOID)


MATCH_MOVES: dict[MatchState, frozenset[MatchState]] = {
    MatchState.SCHEDULED: frozenset(),  # where a match starts, and where a cut-off one goes again
    MatchState.RUNNING: frozenset({MatchState.SCHEDULED, MatchState.RUNNING}),  # restarted on a retry
    MatchState.FINISHED: frozenset({MatchState.SCHEDULED, MatchState.RUNNING}),
    MatchState.APPLIED: frozenset({MatchState.SCHEDULED, MatchState.RUNNING, MatchState.FINISHED}),
    MatchState.VOID: frozenset({MatchState.SCHEDULED, MatchState.RUNNING, MatchState.FINISHED}),
}
"""The states a match may move to each state from (the stores' transitions check it in their updates)."""

MATCH_WORDS: dict[MatchState, tuple[str, str]] = {
    MatchState.SCHEDULED: ("queued", "waiting to be played"),
    MatchState.RUNNING: ("running", "being played"),
    MatchState.FINISHED: ("done", "played"),
    MatchState.APPLIED: ("done", "applied to the ratings"),
    MatchState.VOID: ("done", "void: played, not rated"),
}
"""The one table of what each state is called: in the API's scrimmages (its word since version 1)
and on the pages (served in the pages' data as ``state_text``, never written in the script)."""


def team_name_problem(name: str, *, reserved: bool = False) -> str | None:
    """Why ``name`` cannot name a team (1..40 of letters, digits, '_', '.', '-', not one the arena
    keeps for itself unless ``reserved``), or None."""
    if not TEAM_PATTERN.fullmatch(name):
        return f"team name {name!r} must match ^[A-Za-z0-9_.-]{{1,40}}$"
    if not reserved and name.lower() in RESERVED:
        return f"team name {name!r} is the arena's own (its house bot): choose another"
    return None


DISPLAY_NAME_MAX = 60


def display_name_problem(text: str) -> str | None:
    """Why ``text`` cannot be a team's display name (1..60 characters, none a control or format
    character; markup is fine: the pages show it as text), or None."""
    if not 1 <= len(text) <= DISPLAY_NAME_MAX or text != text.strip():
        return f"a display name has 1 to {DISPLAY_NAME_MAX} characters, no space at either end"
    if any(unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp") for c in text):
        return "a display name holds no control, format or unassigned characters"
    return None


def new_token(role: Role) -> str:
    """A fresh bearer token for ``role``: a readable prefix and 256 random bits (URL-safe)."""
    return ("org_" if role is Role.ORGANISER else "team_") + secrets.token_urlsafe(32)


def token_digest(token: str) -> str:
    """The SHA-256 (hex) under which a token is stored and looked up; the token itself is never kept."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class Team:
    """A team as the arena knows it (never its token)."""

    id: int
    name: str
    created_at: datetime
    active_version: int | None = None  # the number of its active version, None before one is ready
    display_name: str | None = None  # what the pages call it (any text, shown as text); None: its name

    @property
    def shown(self) -> str:
        """The team as the pages name it: its display name, else its name."""
        return self.display_name or self.name


@dataclass(frozen=True, slots=True)
class Version:
    """One stored submission of a team: its number (v1, v2, ...), its files' SHA-256, what its
    ``bot.yaml`` says, and where its build is."""

    id: int
    team_id: int
    number: int
    digest: str
    files: int
    size: int
    protocol: str
    run: tuple[str, ...]
    build: str | None
    state: BuildState
    created_at: datetime
    smoke: dict[str, object] | None = None  # the smoke test's figures once it has played

    @property
    def label(self) -> str:
        """The version as teams name it: ``v3``."""
        return f"v{self.number}"


def frozen_line(when: datetime) -> str:
    """The one line that refuses a submission or an activation once the arena is frozen."""
    return f"submissions are closed: the arena was frozen for its finals at {when:%Y-%m-%d %H:%M} UTC"


WINDOW_S = 3600  # the rate limit's window: any hour


def retry_after(recent: Sequence[datetime], per_hour: int, now: datetime) -> float:
    """Seconds until a team that made the attempts at ``recent`` (oldest first, all within the last
    hour) may make another under a limit of ``per_hour`` an hour; 0 if it may now."""
    if len(recent) < per_hour:
        return 0.0
    freed = recent[len(recent) - per_hour]  # once this one is an hour old, one more fits
    return max(0.0, (freed - now).total_seconds() + WINDOW_S)
