"""The arena's storage: the module that declares the schema and speaks SQL (SQLAlchemy 2, asyncio; the
ladder's queries are dealer.arena.ladder_store's), over SQLite or
PostgreSQL, with the schema kept by Alembic migrations shipped in ``dealer/arena/migrations``.

``migrate(url)`` brings a database to the newest schema (an empty one included); ``open_repository``
yields a ``Repository`` whose methods take and return the model's records, never rows.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
    Connection,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    event,
    func,
    select,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

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

MIGRATIONS = Path(__file__).resolve().parent / "migrations"

# The schema as the code reads it; the migrations build the same (a test compares the two).
metadata = MetaData()
teams = Table(
    "teams",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("name", String(40), nullable=False, unique=True),
    Column("token_sha256", String(64), nullable=False, unique=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("display_name", String(60), nullable=True),
)
versions = Table(
    "versions",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("team_id", Integer, ForeignKey("teams.id"), nullable=False),
    Column("number", Integer, nullable=False),
    Column("digest", String(64), nullable=False),
    Column("files", Integer, nullable=False),
    Column("size_bytes", BigInteger, nullable=False),
    Column("protocol", String(8), nullable=False),
    Column("run", JSON, nullable=False),
    Column("build", Text, nullable=True),
    Column("state", String(16), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("smoke", JSON, nullable=True),
    Column("last_played", DateTime(timezone=True), nullable=True),  # its last match's end (ladder_store.finished)
    UniqueConstraint("team_id", "number", name="uq_versions_team_number"),
)
active_versions = Table(
    "active_versions",
    metadata,
    Column("team_id", Integer, ForeignKey("teams.id"), primary_key=True),
    Column("version_id", Integer, ForeignKey("versions.id"), nullable=False),
)
submission_attempts = Table(
    "submission_attempts",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("team_id", Integer, ForeignKey("teams.id"), nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
    Index("ix_submission_attempts_team_at", "team_id", "at"),
)
freeze = Table(  # one row once the organiser froze the arena for its finals
    "freeze",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("frozen_at", DateTime(timezone=True), nullable=False),
    CheckConstraint("id = 1", name="ck_freeze_one_row"),
)
organiser_tokens = Table(
    "organiser_tokens",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("token_sha256", String(64), nullable=False, unique=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
)

# A match's id and place in the ladder's order: 64-bit (a ladder playing for months passes 2**31 on
# PostgreSQL's 32-bit integer); SQLite's INTEGER is 64-bit already, and only INTEGER is its rowid.
MATCH_ID = BigInteger().with_variant(Integer, "sqlite")

# The ladder's tables (read and written by dealer.arena.ladder_store): one row per match, ranked
# (``seq``, its place in the order results are applied) or a scrimmage, its versions by seat, each
# version's standing and rating history, each heads-up pair's duplicate groups, and per team the
# next deal set and whether it accepts scrimmages.
ladder = Table(
    "ladder",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("seed", Text, nullable=False),
)
matches = Table(
    "matches",
    metadata,
    Column("id", MATCH_ID, primary_key=True),
    Column("seq", MATCH_ID, nullable=True, unique=True),  # ranked matches: 0, 1, 2, ...; scrimmages: null
    Column("state", String(16), nullable=False),  # scheduled, running, finished, applied, void, refused
    Column("deal", Integer, nullable=True),
    Column("seed", Text, nullable=True),  # a scrimmage's own fresh seed (a ranked match deals from the ladder's)
    Column("attempt", Integer, nullable=False),
    Column("requested_by", Integer, ForeignKey("teams.id"), nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("finished_at", DateTime(timezone=True), nullable=True),
    Column("result", JSON, nullable=True),
    Index("ix_matches_state", "state"),
    Index("ix_matches_requested_by", "requested_by", "created_at"),
)
match_versions = Table(
    "match_versions",
    metadata,
    Column("match_id", MATCH_ID, ForeignKey("matches.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("version_id", Integer, ForeignKey("versions.id"), nullable=False),
    Column("team_id", Integer, ForeignKey("teams.id"), nullable=False),
    Index("ix_match_versions_team", "team_id", "match_id"),
)
standings = Table(
    "standings",
    metadata,
    Column("version_id", Integer, ForeignKey("versions.id"), primary_key=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("faulty", Integer, nullable=False),
    Column("paused", Text, nullable=True),
    Column("bb100_mean", Float, nullable=True),  # ladder.version_bb100 over its pairs, kept by ladder_store.apply
    Column("bb100_low", Float, nullable=True),
    Column("bb100_high", Float, nullable=True),
)
rating_history = Table(
    "rating_history",
    metadata,
    Column("version_id", Integer, ForeignKey("versions.id"), primary_key=True),
    Column("seq", MATCH_ID, primary_key=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
)
pairs = Table(
    "pairs",
    metadata,
    Column("version_id", Integer, ForeignKey("versions.id"), primary_key=True),
    Column("opponent_id", Integer, ForeignKey("versions.id"), primary_key=True),
    Column("groups", JSON, nullable=False),  # dealer.stats.GroupedSums.as_json: the version's duplicate groups
)
team_ladder = Table(
    "team_ladder",
    metadata,
    Column("team_id", Integer, ForeignKey("teams.id"), primary_key=True),
    Column("next_deal", Integer, nullable=False),
    Column("accepts_scrimmages", Boolean, nullable=False),
)


_TEAMS = select(
    teams.c.id, teams.c.name, teams.c.created_at, teams.c.display_name, versions.c.number.label("active")
).select_from(
    teams.outerjoin(active_versions, active_versions.c.team_id == teams.c.id).outerjoin(
        versions, versions.c.id == active_versions.c.version_id
    )
)


def _team(row: Any) -> Team:
    """A team from a row of ``_TEAMS``."""
    return Team(
        id=row.id,
        name=row.name,
        created_at=_utc(row.created_at),
        active_version=row.active,
        display_name=row.display_name,
    )


def _version(row: Any) -> Version:
    """A version from a row of the versions table."""
    return Version(
        id=row.id,
        team_id=row.team_id,
        number=row.number,
        digest=row.digest,
        files=row.files,
        size=row.size_bytes,
        protocol=row.protocol,
        run=tuple(row.run),
        build=row.build,
        state=BuildState(row.state),
        created_at=_utc(row.created_at),
        smoke=row.smoke,
    )


def _utc(moment: datetime) -> datetime:
    """A timestamp read back as aware UTC (SQLite keeps it naive)."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def engine_for(url: str) -> AsyncEngine:
    """An async engine on ``url``; SQLite gets foreign keys enforced and a writer's wait of 30 s."""
    if url.startswith("sqlite"):
        engine = create_async_engine(url, connect_args={"timeout": 30})

        @event.listens_for(engine.sync_engine, "connect")
        def _pragmas(connection: Any, _record: Any) -> None:
            cursor = connection.cursor()
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.close()

        return engine
    return create_async_engine(url)


def _alembic_config(connection: Connection) -> Config:
    """Alembic's configuration for the shipped migrations, on an open connection (no alembic.ini)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


async def migrate(url: str, revision: str = "head") -> None:
    """Bring the database at ``url`` to ``revision`` (default the newest), creating SQLite's file's
    folder; an up-to-date database is left as it is."""
    if url.startswith("sqlite"):
        database = url.split("///", 1)[1]
        Path(database).parent.mkdir(parents=True, exist_ok=True)
    engine = engine_for(url)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(lambda sync: command.upgrade(_alembic_config(sync), revision))
    finally:
        await engine.dispose()


async def current_revision(url: str) -> str | None:
    """The schema revision the database at ``url`` is at (None: never migrated)."""
    engine = engine_for(url)
    try:
        async with engine.connect() as connection:
            return await connection.run_sync(lambda sync: MigrationContext.configure(sync).get_current_revision())
    finally:
        await engine.dispose()


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
            rows = (await connection.execute(_TEAMS.order_by(teams.c.name))).all()
        return [_team(row) for row in rows]

    async def team_for_token(self, token: str) -> Team | None:
        """The team whose token this is, or None."""
        return await self.team_for_digest(token_digest(token))

    async def team_for_digest(self, token_sha256: str) -> Team | None:
        """The team whose token has this SHA-256 (a web session's), or None."""
        async with self.engine.connect() as connection:
            row = (await connection.execute(_TEAMS.where(teams.c.token_sha256 == token_sha256))).first()
        return None if row is None else _team(row)

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
                    return _version(same), False
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
                return _version(row), True
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
            recent = [_utc(row.at) for row in (await connection.execute(query)).all()]
        return retry_after(recent, per_hour, now)

    async def versions(self, team: Team) -> list[Version]:
        """The team's versions, oldest first."""
        query = select(versions).where(versions.c.team_id == team.id).order_by(versions.c.number)
        async with self.engine.connect() as connection:
            return [_version(row) for row in (await connection.execute(query)).all()]

    async def version(self, team: Team, number: int) -> Version | None:
        """The team's version ``number``, or None (another team's versions are never found)."""
        query = select(versions).where(versions.c.team_id == team.id, versions.c.number == number)
        async with self.engine.connect() as connection:
            row = (await connection.execute(query)).first()
        return None if row is None else _version(row)

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
            return [_version(row) for row in (await connection.execute(query)).all()]

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
            version = _version(row)
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
            version = _version(row)
            found.append((Team(version.team_id, row.team_name, _utc(row.team_created_at), version.number), version))
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
            return [(row.id, _utc(row.created_at)) for row in (await connection.execute(query)).all()]

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
    return None if when is None else _utc(when)


async def _refuse_if_frozen(connection: AsyncConnection) -> None:
    """Raise the one line that says submissions are closed, once the arena is frozen."""
    when = await _frozen_at(connection)
    if when is not None:
        raise ArenaError(frozen_line(when))


def head_revision() -> str:
    """The newest schema revision the shipped migrations know."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    head = ScriptDirectory.from_config(config).get_current_head()
    assert head is not None, "the arena ships its migrations"
    return head


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
