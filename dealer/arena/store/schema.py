"""The arena's schema: its tables (SQLAlchemy 2 Core) and the engine, migrations and row-to-record helpers
the rest of ``dealer.arena.store`` shares, over SQLite or PostgreSQL, the schema kept by the Alembic
migrations shipped in ``dealer/arena/migrations``.

``migrate(url)`` brings a database to the newest schema (an empty one included).
"""

from __future__ import annotations

from datetime import UTC, datetime
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
    select,
)
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from dealer.arena.model import (
    BuildState,
    Team,
    Version,
)

MIGRATIONS = Path(__file__).resolve().parent.parent / "migrations"

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
    Column("last_played", DateTime(timezone=True), nullable=True),  # its last match's end (store.ladder.finished)
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

# The ladder's tables (read and written by dealer.arena.store.ladder): one row per match, ranked
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
    Column("bb100_mean", Float, nullable=True),  # ladder.version_bb100 over its pairs, kept by store.ladder.apply
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
    Column("groups", JSON, nullable=False),  # dealer.stats.stats.GroupedSums.as_json: the version's duplicate groups
)
team_ladder = Table(
    "team_ladder",
    metadata,
    Column("team_id", Integer, ForeignKey("teams.id"), primary_key=True),
    Column("next_deal", Integer, nullable=False),
    Column("accepts_scrimmages", Boolean, nullable=False),
)


TEAMS = select(
    teams.c.id, teams.c.name, teams.c.created_at, teams.c.display_name, versions.c.number.label("active")
).select_from(
    teams.outerjoin(active_versions, active_versions.c.team_id == teams.c.id).outerjoin(
        versions, versions.c.id == active_versions.c.version_id
    )
)


def team_of(row: Any) -> Team:
    """A team from a row of ``TEAMS``."""
    return Team(
        id=row.id,
        name=row.name,
        created_at=utc(row.created_at),
        active_version=row.active,
        display_name=row.display_name,
    )


def version_of(row: Any) -> Version:
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
        created_at=utc(row.created_at),
        smoke=row.smoke,
    )


def utc(moment: datetime) -> datetime:
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


def alembic_config(connection: Connection) -> Config:
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
            await connection.run_sync(lambda sync: command.upgrade(alembic_config(sync), revision))
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


def head_revision() -> str:
    """The newest schema revision the shipped migrations know."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    head = ScriptDirectory.from_config(config).get_current_head()
    assert head is not None, "the arena ships its migrations"
    return head
