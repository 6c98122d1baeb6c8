"""The arena's use cases, one owner for each decision of who may see or do what.

The API (``dealer.arena.http``, ``/api/v1``) and the pages' data (``dealer.arena.pages``,
``/data``) are two presenters of these calls, as aiarena-web's ``core/services`` serve both its
API views and its pages: a route parses the request, calls one use case and writes its answer.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property
from pathlib import Path
from typing import Any

from dealer.arena.archive import MB, Unpacked, unpack
from dealer.arena.config import ArenaConfig
from dealer.arena.ladder import Standing
from dealer.arena.layout import (
    FINALS_JSON,
    bot_logs,
    build_log,
    finals_folder,
    history_files,
    is_public,
    smoke_bot_logs,
    upload_folder,
)
from dealer.arena.model import (
    TEAM_PATTERN,
    ArenaError,
    Refusal,
    RefusedError,
    Team,
    Version,
    display_name_problem,
    frozen_line,
)
from dealer.arena.public import match_hands
from dealer.arena.store.ladder import LadderStore, Planned
from dealer.arena.store.reads import Line, MatchLine
from dealer.arena.store.reads import Public as Reads
from dealer.arena.store.teams import Repository
from dealer.arena.toolchains import Offer, offers
from dealer.league.seeds import commitment, draw_seed
from dealer.stats.stats import GroupedSums

LOGGER = logging.getLogger(__name__)
MATCH_DIGITS = 18  # a match id in a path: 64-bit (repository.MATCH_ID), so 18 digits always fit
VERSION_MAX = 999_999_999  # the largest version number a path or a body may name (nine digits)


@dataclass(frozen=True, slots=True)
class Organiser:
    """The caller holds an organiser's token: the arena is theirs to run and to see whole."""


@dataclass(frozen=True, slots=True)
class Public:
    """Nobody logged in: the caller sees what the arena shows everyone."""


Caller = Team | Organiser | Public


async def resolve(repository: Repository, digest: str) -> Team | Organiser | None:
    """The caller a token's SHA-256 speaks for (a team or the organiser), or None for a token the
    arena does not know (or no longer: replaced or revoked). The one place a token becomes a caller."""
    team = await repository.team_for_digest(digest)
    if team is not None:
        return team
    return Organiser() if await repository.is_organiser_digest(digest) else None


BOT_LOG_SHOWN = MB  # of a bot's log (its size is capped by limits.log_kb anyway)


def read_logs(paths: list[Path]) -> list[str]:
    """Each log's text under a line naming its process (one per table of the match, and per restart)."""
    return [f"[arena] {p.stem}:\n" + p.read_bytes()[: BOT_LOG_SHOWN + 1].decode("utf-8", "replace") for p in paths]


def read_bot_logs(storage: Path, match_id: int, bots: list[str]) -> list[str]:
    """What the bots ``bots`` (``team-v3``) wrote in a match, each process's log under its name."""
    return read_logs([path for bot in bots for path in bot_logs(storage, match_id, bot)])


def read_histories(storage: Path, match_id: int) -> str:
    """A match's hand histories as written, one table's file after another."""
    return "".join(path.read_text(encoding="utf-8") for path in history_files(storage, match_id))


def read_build_log(path: Path) -> str:
    """A version's build log ('' while it is queued: not started yet)."""
    try:
        return path.read_bytes().decode("utf-8", "replace")
    except FileNotFoundError:
        return ""


@dataclass(frozen=True, slots=True)
class Finals:
    """A finals' public record (``finals.json`` as written) and whether its revealed seed matches the
    commitment published before its first hand (None: not revealed yet)."""

    record: dict[str, Any]
    seed_matches: bool | None


def finals_records(storage: Path) -> list[Finals]:
    """Every finals' public record, by name."""
    root = finals_folder(storage, "")
    found = []
    for folder in sorted(root.iterdir()) if root.is_dir() else []:
        record = finals_record(storage, folder.name)
        if record is not None:
            found.append(record)
    return found


def finals_record(storage: Path, name: str) -> Finals | None:
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
    return Finals(record, None if not isinstance(seed, str) else commitment(seed) == record.get("seed_sha256"))


class Arena:
    """The arena's use cases on one repository: each decides once who may see or do what, and
    raises ``RefusedError`` (a ``Refusal`` and a line) when the caller may not."""

    def __init__(
        self,
        repository: Repository,
        config: ArenaConfig,
        queued: Callable[[Version], None],
        requested: Callable[[Planned], None],
    ) -> None:
        self.repository, self.config, self.queued, self.requested = repository, config, queued, requested
        self.submitting: set[int] = set()  # the teams whose archive is being read

    @cached_property
    def store(self) -> LadderStore:
        """The ladder's queries (made on first use: an application is built before its database opens)."""
        return LadderStore(self.repository)

    @cached_property
    def reads(self) -> Reads:
        """The pages' read queries."""
        return Reads(self.repository, self.config.ladder.k)

    # Who the caller is, for the routes of one kind of caller.

    def team(self, caller: Caller) -> Team:
        """The calling team (a team's use case: the organiser and the public are refused)."""
        if not isinstance(caller, Team):
            raise RefusedError(Refusal.FORBIDDEN, "a team's route: use the team's token")
        return caller

    def organiser(self, caller: Caller) -> Organiser:
        """The organiser (an organiser's use case: a team is refused)."""
        if not isinstance(caller, Organiser):
            raise RefusedError(Refusal.FORBIDDEN, "an organiser's route: a team's token cannot use it")
        return caller

    async def resolve(self, digest: str) -> Team | Organiser | None:
        """Who the token of SHA-256 ``digest`` speaks for (``resolve``), or None."""
        return await resolve(self.repository, digest)

    # A team's versions.

    async def teams(self, caller: Caller) -> list[Team]:
        """Every team (the organiser's)."""
        self.organiser(caller)
        return await self.repository.teams()

    async def versions(self, caller: Caller) -> list[Version]:
        """The calling team's versions."""
        return await self.repository.versions(self.team(caller))

    async def version(self, caller: Caller, number: int | None, asked: str) -> Version:
        """The calling team's version ``number`` (None: not a number; ``asked``: as the caller wrote it)."""
        team = self.team(caller)
        version = None if number is None else await self.repository.version(team, number)
        if version is None:
            raise RefusedError(Refusal.NOT_FOUND, f"no version {asked!r}")
        return version

    async def build_log(self, caller: Caller, number: int | None, asked: str) -> tuple[Version, str]:
        """The team's version and its build log ('' while it is queued)."""
        version = await self.version(caller, number, asked)
        return version, await asyncio.to_thread(read_build_log, build_log(self.config.storage, version))

    async def smoke_log(self, caller: Caller, number: int | None, asked: str) -> tuple[Version, str]:
        """The team's version and what its bot wrote in its smoke match (its own team's alone)."""
        version = await self.version(caller, number, asked)
        parts = await asyncio.to_thread(lambda: read_logs(smoke_bot_logs(self.config.storage, version)))
        return version, "".join(parts)

    async def toolchains(self, caller: Caller) -> list[Offer]:
        """What each offered toolchain gives on this machine (for teams)."""
        self.team(caller)
        return await asyncio.to_thread(offers, self.config.build.toolchains)

    async def may_submit(self, caller: Caller) -> Team:
        """The calling team, if it may submit now: not frozen, within its quota, none of its own being read."""
        team, limits = self.team(caller), self.config.submissions
        frozen = await self.repository.frozen_at()
        if frozen is not None:
            raise RefusedError(Refusal.CONFLICT, frozen_line(frozen))
        wait = await self.repository.submission_wait(team, limits.per_hour, datetime.now(UTC))
        if wait > 0:
            line = f"at most {limits.per_hour} submissions an hour: try again in {wait:.0f} s"
            raise RefusedError(Refusal.TOO_MANY, line, wait)
        if team.id in self.submitting:
            raise RefusedError(Refusal.CONFLICT, "another submission of your team is being read: one at a time", 4)
        return team

    async def submit(self, caller: Caller, receive: Callable[[Path], Awaitable[None]]) -> tuple[Version, bool]:
        """Store the archive ``receive`` writes (the presenter streams it) as the team's next version,
        or find the earlier one of the same files (False); a new one is queued for its build."""
        team = await self.may_submit(caller)
        self.submitting.add(team.id)
        upload = upload_folder(self.config.storage)
        try:
            upload.parent.mkdir(parents=True, exist_ok=True)
            await receive(upload)
            try:
                stored = await asyncio.to_thread(unpack, upload, self.config.storage, self.config.submissions)
            except ArenaError as error:
                LOGGER.info("team %s: submission refused: %s", team.name, error)
                raise RefusedError(Refusal.INVALID, str(error)) from error
            return await self._record(team, stored)
        finally:
            self.submitting.discard(team.id)
            upload.unlink(missing_ok=True)

    async def _record(self, team: Team, stored: Unpacked) -> tuple[Version, bool]:
        """Record an unpacked submission as the team's next version (or the earlier one of the same files)."""
        manifest = stored.manifest
        try:
            version, new = await self.repository.add_version(
                team,
                digest=stored.digest,
                files=stored.files,
                size=stored.size,
                protocol=str(manifest.protocol),
                run=manifest.run,
                build=manifest.build,
            )
        except ArenaError as error:  # frozen while this one was read
            raise RefusedError(Refusal.CONFLICT, str(error)) from error
        LOGGER.info("team %s: %s %s (%s)", team.name, version.label, "stored" if new else "resubmitted", version.digest)
        if new:
            self.queued(version)
        return version, new

    async def activate(self, caller: Caller, number: int) -> Version:
        """Make the team's version ``number`` the one that plays."""
        team = self.team(caller)
        if not 1 <= number <= VERSION_MAX:
            raise RefusedError(Refusal.NOT_FOUND, f"no version {number if abs(number) < 10**12 else 'of that size'}")
        try:
            return await self.repository.activate(team, number)
        except ArenaError as error:
            raise RefusedError(Refusal.CONFLICT, str(error)) from error

    # The ladder.

    async def leaderboard(self) -> list[Line]:
        """Every team, ranked once (``store.reads.rank``): the rated by mu - k sigma, then the others by name."""
        return await self.reads.leaderboard()

    async def version_ladder(self, caller: Caller, number: int | None, asked: str) -> VersionLadder:
        """One of the team's versions in the ladder: its standing, pairs and rating history."""
        version = await self.version(caller, number, asked)
        standing = (await self.store.standings_of([version.id]))[version.id]
        pairs = await self.store.pair_groups(version.id)
        return VersionLadder(version, standing, pairs, await self.store.history(version.id))

    async def ask_scrimmage(self, caller: Caller, opponent: str) -> Planned:
        """Record a scrimmage the team asks for against ``opponent`` (the ladder is told: it plays it)."""
        team = self.team(caller)
        per_hour = self.config.ladder.scrimmages_per_hour
        planned = await self.store.request_scrimmage(team, opponent, per_hour, draw_seed())
        LOGGER.info("team %s: scrimmage %d against %s asked for", team.name, planned.id, opponent)
        self.requested(planned)
        return planned

    async def scrimmages(self, caller: Caller) -> list[Planned]:
        """The newest scrimmages the team played in or asked for."""
        return await self.store.scrimmages(self.team(caller))

    async def scrimmage(self, caller: Caller, asked: str) -> Planned:
        """The scrimmage ``asked`` (its id as written), if the calling team played in it (else none is found)."""
        team = self.team(caller)
        found = await self.store.scrimmages(team, int(asked)) if _is_match_id(asked) else []
        if not found:
            raise RefusedError(Refusal.NOT_FOUND, f"no scrimmage {asked!r} of your team")
        return found[0]

    async def scrimmage_hands(self, caller: Caller, asked: str) -> str:
        """The hand histories of a scrimmage of the team's, once it is over."""
        planned = await self.scrimmage(caller, asked)
        if not planned.state.over:
            raise RefusedError(Refusal.CONFLICT, f"scrimmage {planned.id} is not over: its hands are shown once it is")
        return await asyncio.to_thread(read_histories, self.config.storage, planned.id)

    async def scrimmage_policy(self, caller: Caller, accept: bool | None = None) -> bool:
        """Whether the team accepts scrimmages (``accept``: say so first)."""
        team = self.team(caller)
        if accept is not None:
            await self.store.set_scrimmages(team, accept)
        return await self.store.accepts_scrimmages(team)

    # What anyone may see: finals, teams, matches; and what a team may see of its own.

    def finals_list(self) -> list[Finals]:
        """Every finals' public record, by name."""
        return finals_records(self.config.storage)

    def finals(self, name: str) -> Finals:
        """The finals ``name``'s public record (its seed checked against its commitment)."""
        found = finals_record(self.config.storage, name)
        if found is None:
            raise RefusedError(Refusal.NOT_FOUND, f"no finals {name!r}")
        return found

    def finals_file(self, name: str, relative: str) -> Path:
        """A published file of ended finals (their record names it; never a bot's log or the seed)."""
        found = self.finals(name)
        if found.record.get("state") != "done":
            line = f"the finals {name!r} are still playing: their files are published when they end"
            raise RefusedError(Refusal.CONFLICT, line)
        path = finals_folder(self.config.storage, name) / relative
        if not is_public(relative) or path.is_symlink() or not path.is_file():
            raise RefusedError(Refusal.NOT_FOUND, f"no published file {relative!r} in the finals {name!r}")
        return path

    async def named(self, name: str) -> Team:
        """The team called ``name`` (its public page)."""
        found = next((t for t in await self.repository.teams() if t.name == name), None)
        if found is None:
            raise RefusedError(Refusal.NOT_FOUND, "no such team")
        return found

    async def team_page(self, name: str) -> TeamPage:
        """What anyone may know of team ``name``: its versions' numbers and dates, its recent matches
        and its ratings over time (never its code, logs or why a version is paused)."""
        team = await self.named(name)
        return TeamPage(
            team,
            await self.repository.versions(team),
            await self.reads.matches(team_id=team.id, limit=20),
            await self.reads.history(team),
        )

    async def matches(self) -> tuple[list[MatchLine], list[MatchLine]]:
        """The queue (every match still to play, oldest first) and the newest matches over."""
        queue = await self.reads.matches(open_only=True, limit=100)
        return queue, [m for m in await self.reads.matches(limit=30) if m.over]

    async def frozen_at(self) -> datetime | None:
        """When the arena was frozen for its finals (None: it is not)."""
        return await self.repository.frozen_at()

    async def add_team(self, caller: Caller, name: str, display: str | None) -> tuple[Team, str]:
        """Add team ``name`` (with its display name) and its token, shown this once (the organiser's)."""
        self.organiser(caller)
        try:
            if display is not None and (problem := display_name_problem(display)) is not None:
                raise ArenaError(problem)
            team, token = await self.repository.add_team(name)
            await self.repository.set_display_name(team.name, display)
        except ArenaError as error:
            raise RefusedError(Refusal.INVALID, str(error)) from error
        LOGGER.info("organiser (web): team %s added", team.name)
        return team, token

    async def new_token(self, caller: Caller, name: str) -> str:
        """Replace team ``name``'s token (the old one stops working); the new one is shown this once."""
        self.organiser(caller)
        try:
            token = await self.repository.new_team_token(name)
        except ArenaError as error:
            raise RefusedError(Refusal.NOT_FOUND, str(error)) from error
        LOGGER.info("organiser (web): team %s has a new token", name)
        return token

    async def set_display_name(self, caller: Caller, name: str, display: str | None) -> None:
        """Give team ``name`` a display name (None: its name)."""
        self.organiser(caller)
        try:
            await self.repository.set_display_name(name, display)
        except ArenaError as error:
            raise RefusedError(Refusal.INVALID, str(error)) from error
        LOGGER.info("organiser (web): team %s has a new display name", name)

    async def freeze(self, caller: Caller) -> None:
        """Freeze the arena for its finals: no submission or activation from now on."""
        self.organiser(caller)
        when, now = await self.repository.freeze()
        LOGGER.info("organiser (web): arena frozen at %s%s", when.isoformat(), "" if now else " (already)")

    async def paused(self, caller: Caller) -> list[tuple[str, str, int, int, str]]:
        """Every paused version with why (the organiser's: the reason holds the end of a bot's log)."""
        self.organiser(caller)
        return await self.reads.paused()

    async def match_view(self, caller: Caller, asked: str) -> MatchView:
        """A match (its id as written) and whether this caller may see its hands: once it is over, its own
        teams and the organiser (a ranked match's deals are dealt again to other pairs: see ``public``)."""
        match = await self.reads.match(int(asked)) if _is_match_id(asked) else None
        if match is None:
            raise RefusedError(Refusal.NOT_FOUND, "no such match")
        played = isinstance(caller, Team) and any(s.team_id == caller.id for s in match.seats)
        return MatchView(match, match.over and (played or isinstance(caller, Organiser)))

    async def match_hands(self, view: MatchView) -> list[dict[str, Any]]:
        """Every hand of a match this caller may see the hands of (parsed PHH, tagged with its file)."""
        if not view.hands_shown:
            raise RefusedError(Refusal.NOT_FOUND, "no such match")
        return await asyncio.to_thread(match_hands, self.config.storage, view.match.id)

    async def match_files(self, view: MatchView) -> list[Path]:
        """The hand histories of a match whose hands this caller may see (listed off the event loop)."""
        if not view.hands_shown:
            raise RefusedError(Refusal.NOT_FOUND, "no such file")
        return await asyncio.to_thread(history_files, self.config.storage, view.match.id)

    async def logs(self, caller: Caller, asked: str) -> tuple[MatchLine, str]:
        """What the calling team's bot wrote in one of its matches, once over (never another team's)."""
        found = await self.reads.match(int(asked)) if _is_match_id(asked) else None
        seats = (
            [] if found is None or not isinstance(caller, Team) else [s for s in found.seats if s.team_id == caller.id]
        )
        if found is None or not seats or not found.over:
            raise RefusedError(Refusal.NOT_FOUND, "no such match of yours")
        bots = [f"{seat.team}-{seat.version}" for seat in seats]
        return found, "".join(await asyncio.to_thread(read_bot_logs, self.config.storage, found.id, bots))

    async def own_standings(self, caller: Caller) -> tuple[Team, list[dict[str, Any]]]:
        """The calling team's versions in the ladder, with why one is paused (its own eyes only)."""
        if not isinstance(caller, Team):
            raise RefusedError(Refusal.FORBIDDEN, "log in as a team")
        return caller, await self.reads.own_standings(caller)


@dataclass(frozen=True, slots=True)
class VersionLadder:
    """One of a team's versions in the ladder: its standing, its duplicate groups by opponent, its ratings."""

    version: Version
    standing: Standing
    pairs: list[tuple[str, int, GroupedSums]]
    history: list[tuple[int, float, float]]


@dataclass(frozen=True, slots=True)
class TeamPage:
    """A team's public page: the team, its versions, its recent matches, its ratings over time."""

    team: Team
    versions: list[Version]
    matches: list[MatchLine]
    history: list[dict[str, Any]]


@dataclass(frozen=True, slots=True)
class MatchView:
    """A match as one caller sees it: whether its hands are shown to them is decided once, here."""

    match: MatchLine
    hands_shown: bool


def _is_match_id(text: str) -> bool:
    """Whether ``text`` can name a match (64-bit ids: 18 digits always fit)."""
    return text.isdigit() and len(text) <= MATCH_DIGITS
