"""The arena's teams and their versions: a ``Repository`` whose methods take and return the model's
records, never rows, each one transaction (the ladder's queries are ``dealer.arena.store.ladder``'s);
``open_repository`` yields one on a database at the newest schema (``dealer.arena.store.schema``).
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

from alembic.runtime.migration import MigrationContext
from sqlalchemy import (
    func,
    select,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from dealer.arena.model import (
    RESERVED,
    WINDOW_S,
    ArenaError,
    BuildState,
    Role,
    Team,
    Version,
    display_name_problem,
    frozen_line,
    new_token,
    retry_after,
    team_name_problem,
    token_digest,
)
from dealer.arena.store.schema import (
    TEAMS,
    active_versions,
    engine_for,
    freeze,
    head_revision,
    organiser_tokens,
    submission_attempts,
    team_of,
    teams,
    utc,
    version_of,
    versions,
)


def _not_house(name: str, what: str) -> None:
    """Refuse what only a team may be given: the house bot (``model.RESERVED``) is the arena's own."""
    if name.lower() in RESERVED:
        raise ArenaError(f"{name!r} is the arena's house bot, not a team: it {what}")


class Repository:
    """The arena's records in one database; each method is one transaction."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def add_team(self, name: str, *, reserved: bool = False) -> tuple[Team, str]:
        """Register team ``name`` and return it with its token, the only time the token exists in clear
        (``reserved``: the arena's own team, the house)."""
        problem = team_name_problem(name, reserved=reserved)
        if problem is not None:
            raise ArenaError(problem)
        token = new_token(Role.TEAM)
        now = datetime.now(UTC)
        try:
            async with self.engine.begin() as connection:
                insert = teams.insert().values(name=name, token_sha256=token_digest(token), created_at=now)
                team_id = (await connection.execute(insert.returning(teams.c.id))).scalar_one()
        except IntegrityError:
            raise ArenaError(f"team {name!r} already exists") from None
        return Team(id=team_id, name=name, created_at=now), token

    async def new_team_token(self, name: str) -> str:
        """Replace team ``name``'s token with a fresh one (the old one stops working) and return it."""
        _not_house(name, "has no token")
        token = new_token(Role.TEAM)
        async with self.engine.begin() as connection:
            result = await connection.execute(
                teams.update().where(teams.c.name == name).values(token_sha256=token_digest(token))
            )
        if result.rowcount != 1:
            raise ArenaError(f"no team {name!r}")
        return token

    async def set_display_name(self, name: str, display_name: str | None) -> None:
        """Give team ``name`` the display name the pages show (None: its name again)."""
        _not_house(name, "keeps its name")
        if display_name is not None and (problem := display_name_problem(display_name)) is not None:
            raise ArenaError(problem)
        async with self.engine.begin() as connection:
            result = await connection.execute(
                teams.update().where(teams.c.name == name).values(display_name=display_name)
            )
        if result.rowcount != 1:
            raise ArenaError(f"no team {name!r}")

    async def teams(self) -> list[Team]:
        """Every team, by name."""
        async with self.engine.connect() as connection:
            rows = (await connection.execute(TEAMS.order_by(teams.c.name))).all()
        return [team_of(row) for row in rows]

    async def team_for_token(self, token: str) -> Team | None:
        """The team whose token this is, or None."""
        return await self.team_for_digest(token_digest(token))

    async def team_for_digest(self, token_sha256: str) -> Team | None:
        """The team whose token has this SHA-256 (a web session's), or None."""
        async with self.engine.connect() as connection:
            row = (await connection.execute(TEAMS.where(teams.c.token_sha256 == token_sha256))).first()
        return None if row is None else team_of(row)

    async def add_version(
        self,
        team: Team,
        *,
        digest: str,
        files: int,
        size: int,
        protocol: str,
        run: tuple[str, ...],
        build: str | None,
        house: bool = False,
    ) -> tuple[Version, bool]:
        """Record a submission of ``team`` as its next version, queued for building, and return it
        with True; the same files as one of its earlier versions return that version and False.
        A frozen arena refuses, but for the ``house`` bot's version (the organiser's, not a submission)."""
        for _ in range(10):  # two submissions of one team at once: the loser of the number takes the next
            async with self.engine.begin() as connection:
                if not house:
                    await _refuse_if_frozen(connection)
                same = (
                    await connection.execute(
                        select(versions).where(versions.c.team_id == team.id, versions.c.digest == digest)
                    )
                ).first()
                if same is not None:
                    return version_of(same), False
                last = (
                    await connection.execute(select(func.max(versions.c.number)).where(versions.c.team_id == team.id))
                ).scalar()
                values = {
                    "team_id": team.id,
                    "number": (last or 0) + 1,
                    "digest": digest,
                    "files": files,
                    "size_bytes": size,
                    "protocol": protocol,
                    "run": list(run),
                    "build": build,
                    "state": BuildState.QUEUED.value,
                    "created_at": datetime.now(UTC),
                }
                try:
                    row = (await connection.execute(versions.insert().values(**values).returning(versions))).one()
                except IntegrityError:
                    await connection.rollback()
                    continue
                await connection.execute(submission_attempts.insert().values(team_id=team.id, at=values["created_at"]))
                return version_of(row), True
        raise ArenaError(f"team {team.name!r}: too many submissions at once; try again")

    async def submission_wait(self, team: Team, per_hour: int, now: datetime) -> float:
        """The seconds until ``team`` may submit a new version (0: now): at most ``per_hour`` new
        versions in any hour. What counts is what ``add_version`` stored (a build to run), never a
        refused or resubmitted archive; the count is the database's (a restarted server counts it
        still); older attempts are dropped."""
        since = now - timedelta(seconds=WINDOW_S)
        async with self.engine.begin() as connection:
            await connection.execute(
                submission_attempts.delete().where(
                    submission_attempts.c.team_id == team.id, submission_attempts.c.at <= since
                )
            )
            query = (
                select(submission_attempts.c.at)
                .where(submission_attempts.c.team_id == team.id, submission_attempts.c.at > since)
                .order_by(submission_attempts.c.at)
            )
            recent = [utc(row.at) for row in (await connection.execute(query)).all()]
        return retry_after(recent, per_hour, now)

    async def versions(self, team: Team) -> list[Version]:
        """The team's versions, oldest first."""
        query = select(versions).where(versions.c.team_id == team.id).order_by(versions.c.number)
        async with self.engine.connect() as connection:
            return [version_of(row) for row in (await connection.execute(query)).all()]

    async def version(self, team: Team, number: int) -> Version | None:
        """The team's version ``number``, or None (another team's versions are never found)."""
        query = select(versions).where(versions.c.team_id == team.id, versions.c.number == number)
        async with self.engine.connect() as connection:
            row = (await connection.execute(query)).first()
        return None if row is None else version_of(row)

    async def set_state(self, version: Version, state: BuildState, smoke: dict[str, object] | None = None) -> Version:
        """Move a version to ``state`` (the builder's record), with its smoke test's figures if it
        played one, and return it so."""
        values: dict[str, object] = {"state": state.value}
        if smoke is not None:
            values["smoke"] = smoke
        async with self.engine.begin() as connection:
            await connection.execute(versions.update().where(versions.c.id == version.id).values(**values))
        return dataclasses.replace(version, state=state, smoke=smoke if smoke is not None else version.smoke)

    async def unfinished(self) -> list[Version]:
        """Every version still queued or cut off while building (a server that stopped), oldest first."""
        states = [BuildState.QUEUED.value, BuildState.BUILDING.value]
        query = select(versions).where(versions.c.state.in_(states)).order_by(versions.c.id)
        async with self.engine.connect() as connection:
            return [version_of(row) for row in (await connection.execute(query)).all()]

    async def activate(self, team: Team, number: int, *, house: bool = False) -> Version:
        """Make version ``number`` the team's active one; only a ready version can be, and not once
        frozen (but for the ``house`` bot's, which the organiser's arena sets up at each start)."""
        async with self.engine.begin() as connection:
            if not house:
                await _refuse_if_frozen(connection)
            row = (
                await connection.execute(
                    select(versions).where(versions.c.team_id == team.id, versions.c.number == number)
                )
            ).first()
            if row is None:
                raise ArenaError(f"team {team.name!r} has no version v{number}")
            version = version_of(row)
            if version.state is not BuildState.READY:
                raise ArenaError(f"v{number} is {version.state}: only a ready version can be active")
            updated = await connection.execute(
                active_versions.update().where(active_versions.c.team_id == team.id).values(version_id=version.id)
            )
            if updated.rowcount == 0:
                await connection.execute(active_versions.insert().values(team_id=team.id, version_id=version.id))
        return version

    async def freeze(self) -> tuple[datetime, bool]:
        """Close submissions and activations for the finals; when they closed, and whether just now
        (freezing a frozen arena changes nothing)."""
        async with self.engine.begin() as connection:
            when = await _frozen_at(connection)
            if when is not None:
                return when, False
            now = datetime.now(UTC)
            await connection.execute(freeze.insert().values(id=1, frozen_at=now))
        return now, True

    async def frozen_at(self) -> datetime | None:
        """When the arena was frozen, or None while submissions are open."""
        async with self.engine.connect() as connection:
            return await _frozen_at(connection)

    async def finalists(self) -> list[tuple[Team, Version]]:
        """Each team's active version, if it is ready, by team name: who plays the finals."""
        query = (
            select(teams.c.name.label("team_name"), teams.c.created_at.label("team_created_at"), versions)
            .select_from(
                teams.join(active_versions, active_versions.c.team_id == teams.c.id).join(
                    versions, versions.c.id == active_versions.c.version_id
                )
            )
            .where(versions.c.state == BuildState.READY.value)
            .order_by(teams.c.name)
        )
        async with self.engine.connect() as connection:
            rows = (await connection.execute(query)).all()
        found = []
        for row in rows:
            version = version_of(row)
            found.append((Team(version.team_id, row.team_name, utc(row.team_created_at), version.number), version))
        return found

    async def add_organiser_token(self) -> str:
        """A new organiser token (admin work), returned in clear this once."""
        token = new_token(Role.ORGANISER)
        async with self.engine.begin() as connection:
            await connection.execute(
                organiser_tokens.insert().values(token_sha256=token_digest(token), created_at=datetime.now(UTC))
            )
        return token

    async def organiser_tokens(self) -> list[tuple[int, datetime]]:
        """The organiser tokens' ids and creation dates, oldest first (never a token or its hash)."""
        query = select(organiser_tokens.c.id, organiser_tokens.c.created_at).order_by(organiser_tokens.c.id)
        async with self.engine.connect() as connection:
            return [(row.id, utc(row.created_at)) for row in (await connection.execute(query)).all()]

    async def revoke_organiser_token(self, which: int | str) -> int:
        """Revoke an organiser token, named by its id or given itself, and return its id: it stops
        working at once, and so do the web sessions opened with it (each request checks the token
        of its session). ArenaError if there is no such token."""
        where = (
            organiser_tokens.c.id == which
            if isinstance(which, int)
            else organiser_tokens.c.token_sha256 == token_digest(which)
        )
        async with self.engine.begin() as connection:
            gone = (
                await connection.execute(organiser_tokens.delete().where(where).returning(organiser_tokens.c.id))
            ).first()
        if gone is None:
            raise ArenaError(f"no organiser token {which}" if isinstance(which, int) else "no such organiser token")
        return int(gone.id)

    async def is_organiser(self, token: str) -> bool:
        """Whether ``token`` is an organiser token."""
        return await self.is_organiser_digest(token_digest(token))

    async def is_organiser_digest(self, token_sha256: str) -> bool:
        """Whether the token of this SHA-256 (a web session's) is an organiser token."""
        query = select(organiser_tokens.c.id).where(organiser_tokens.c.token_sha256 == token_sha256)
        async with self.engine.connect() as connection:
            return (await connection.execute(query)).first() is not None


async def _frozen_at(connection: AsyncConnection) -> datetime | None:
    """When the arena was frozen (None: it is open), read in ``connection``'s transaction."""
    when = (await connection.execute(select(freeze.c.frozen_at))).scalar()
    return None if when is None else utc(when)


async def _refuse_if_frozen(connection: AsyncConnection) -> None:
    """Raise the one line that says submissions are closed, once the arena is frozen."""
    when = await _frozen_at(connection)
    if when is not None:
        raise ArenaError(frozen_line(when))


@contextlib.asynccontextmanager
async def open_repository(url: str) -> AsyncIterator[Repository]:
    """A repository on the database at ``url``, which must be at the newest schema (else one line
    saying to migrate), its connections closed on leaving."""
    engine = engine_for(url)
    try:
        async with engine.connect() as connection:
            revision = await connection.run_sync(lambda sync: MigrationContext.configure(sync).get_current_revision())
        if revision != head_revision():
            raise ArenaError(
                f"the arena's database is at schema {revision or 'none (empty)'}, not {head_revision()}: "
                "run `dealer arena migrate` first"
            )
        yield Repository(engine)
    finally:
        await engine.dispose()
