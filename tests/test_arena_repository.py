"""The arena's database on SQLite and on a real PostgreSQL server (``arena_db``): the migrations
build the schema the code reads from an empty database, teams and organiser tokens are kept, and a
token exists in clear only in what the call returns."""

from __future__ import annotations

import asyncio
import logging

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import select, text

from dealer.arena.model import ArenaError, token_digest
from dealer.arena.repository import (
    current_revision,
    engine_for,
    head_revision,
    metadata,
    migrate,
    open_repository,
    organiser_tokens,
    teams,
)


async def _schema_differences(url: str) -> list[object]:
    """What autogenerate would change to make the database's schema the code's (nothing, when in step)."""
    engine = engine_for(url)
    try:
        async with engine.connect() as connection:
            return await connection.run_sync(lambda sync: compare_metadata(MigrationContext.configure(sync), metadata))
    finally:
        await engine.dispose()


def test_migrations_from_an_empty_database_build_the_codes_schema(arena_database: str) -> None:
    assert asyncio.run(current_revision(arena_database)) is None
    asyncio.run(migrate(arena_database))
    assert asyncio.run(current_revision(arena_database)) == head_revision()
    assert asyncio.run(_schema_differences(arena_database)) == []
    asyncio.run(migrate(arena_database))  # again: nothing to do, nothing broken
    assert asyncio.run(current_revision(arena_database)) == head_revision()


def test_an_unmigrated_database_is_refused_with_what_to_do(arena_database: str) -> None:
    async def use() -> None:
        async with open_repository(arena_database):
            pass

    with pytest.raises(ArenaError, match=r"^the arena's database is at schema none \(empty\), not .*: run `dealer"):
        asyncio.run(use())


def test_teams_and_their_tokens(arena_database: str, caplog: pytest.LogCaptureFixture) -> None:
    asyncio.run(migrate(arena_database))
    caplog.set_level(logging.DEBUG)  # SQLAlchemy's and Alembic's loggers too: a token must be in none of them

    async def scenario() -> tuple[list[str], list[tuple[str, ...]], list[str]]:
        async with open_repository(arena_database) as repository:
            alpha, alpha_token = await repository.add_team("alpha")
            _, beta_token = await repository.add_team("beta.2")
            assert alpha_token.startswith("team_") and len(alpha_token) > 40 and alpha_token != beta_token
            assert (await repository.team_for_token(alpha_token)) == alpha
            assert (await repository.team_for_token(beta_token) or alpha).name == "beta.2"
            assert await repository.team_for_token(alpha_token + "x") is None
            assert await repository.team_for_token("") is None
            with pytest.raises(ArenaError, match=r"^team 'alpha' already exists$"):
                await repository.add_team("alpha")
            with pytest.raises(ArenaError, match=r"^team name 'a b' must match"):
                await repository.add_team("a b")
            with pytest.raises(ArenaError, match=r"^no team 'gamma'$"):
                await repository.new_team_token("gamma")
            fresh = await repository.new_team_token("alpha")
            assert await repository.team_for_token(alpha_token) is None
            assert (await repository.team_for_token(fresh)) == alpha
            organiser = await repository.add_organiser_token()
            assert organiser.startswith("org_")
            assert await repository.is_organiser(organiser)
            assert not await repository.is_organiser(fresh)
            assert await repository.team_for_token(organiser) is None
            names = [team.name for team in await repository.teams()]
            async with repository.engine.connect() as connection:
                stored = [tuple(map(str, row)) for row in (await connection.execute(select(teams))).all()]
                stored += [tuple(map(str, row)) for row in (await connection.execute(select(organiser_tokens))).all()]
            return names, stored, [alpha_token, beta_token, fresh, organiser]

    names, stored, tokens = asyncio.run(scenario())
    assert names == ["alpha", "beta.2"]
    cells = [cell for row in stored for cell in row]
    for token in tokens:
        assert not any(token in cell for cell in cells), "a token is stored in clear"
        assert token not in caplog.text, "a token is in the log"
    assert token_digest(tokens[2]) in cells and token_digest(tokens[3]) in cells


def test_team_names_are_unique_in_the_database_itself(arena_database: str) -> None:
    """Two registrations racing past the check still cannot both land: the constraint is the database's."""
    asyncio.run(migrate(arena_database))

    async def race() -> list[object]:
        async with open_repository(arena_database) as repository:
            return await asyncio.gather(*(repository.add_team("same") for _ in range(4)), return_exceptions=True)

    outcomes = asyncio.run(race())
    assert sum(isinstance(o, tuple) for o in outcomes) == 1
    assert all(str(o) == "team 'same' already exists" for o in outcomes if not isinstance(o, tuple))


def test_the_migration_leaves_no_stray_tables(arena_database: str) -> None:
    asyncio.run(migrate(arena_database))

    async def tables() -> set[str]:
        engine = engine_for(arena_database)
        try:
            async with engine.connect() as connection:
                if arena_database.startswith("sqlite"):
                    query = text("SELECT name FROM sqlite_master WHERE type = 'table'")
                else:
                    query = text("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
                return {row[0] for row in (await connection.execute(query)).all()}
        finally:
            await engine.dispose()

    assert asyncio.run(tables()) == {*metadata.tables, "alembic_version"}
