"""The arena's database on SQLite and on a real PostgreSQL server (``arena_db``): the migrations
build the schema the code reads from an empty database, teams and organiser tokens are kept, and a
token exists in clear only in what the call returns."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import select, text

from dealer.arena.model import ArenaError, BuildState, Version, token_digest
from dealer.arena.store.schema import (
    current_revision,
    engine_for,
    head_revision,
    match_versions,
    matches,
    metadata,
    migrate,
    organiser_tokens,
    rating_history,
    teams,
)
from dealer.arena.store.teams import Repository, open_repository


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


@pytest.mark.parametrize("earlier", ["0001", "0002", "0003", "0004", "0005", "0007"])
def test_a_database_at_an_earlier_revision_migrates_with_its_data(arena_database: str, earlier: str) -> None:
    asyncio.run(migrate(arena_database, earlier))
    assert asyncio.run(current_revision(arena_database)) == earlier

    async def add_at_earlier() -> str:
        repository = Repository(engine_for(arena_database))
        try:
            _, token = await repository.add_team("old")
            return token
        finally:
            await repository.engine.dispose()

    token = asyncio.run(add_at_earlier())
    asyncio.run(migrate(arena_database))
    assert asyncio.run(current_revision(arena_database)) == head_revision() != earlier
    assert asyncio.run(_schema_differences(arena_database)) == []

    async def after() -> tuple[str | None, list[Version]]:
        async with open_repository(arena_database) as repository:
            team = await repository.team_for_token(token)
            assert team is not None
            return team.name, await repository.versions(team)

    assert asyncio.run(after()) == ("old", [])


def _files(n: int) -> dict[str, object]:
    return {"digest": f"{n:064x}", "files": 2, "size": 10 * n, "protocol": "stdio", "run": ("./bot",), "build": None}


def test_versions_are_numbered_per_team_and_only_a_ready_one_becomes_active(arena_database: str) -> None:
    asyncio.run(migrate(arena_database))

    async def scenario() -> None:
        async with open_repository(arena_database) as repository:
            alpha, _ = await repository.add_team("alpha")
            beta, _ = await repository.add_team("beta")
            v1, new1 = await repository.add_version(alpha, **_files(1))
            v2, new2 = await repository.add_version(alpha, **_files(2))
            b1, _ = await repository.add_version(beta, **_files(1))
            again, new_again = await repository.add_version(alpha, **_files(1))
            assert (v1.label, v2.label, b1.label, again) == ("v1", "v2", "v1", v1)
            assert (new1, new2, new_again) == (True, True, False)
            assert v1.state is BuildState.QUEUED and v1.run == ("./bot",) and v2.size == 20
            assert [v.number for v in await repository.versions(alpha)] == [1, 2]
            assert await repository.version(alpha, 2) == v2
            assert await repository.version(beta, 2) is None, "beta finds none of alpha's versions"
            with pytest.raises(ArenaError, match=r"^v1 is queued: only a ready version can be active$"):
                await repository.activate(alpha, 1)
            with pytest.raises(ArenaError, match=r"^team 'beta' has no version v2$"):
                await repository.activate(beta, 2)
            await repository.set_state(v1, BuildState.READY)
            await repository.set_state(v2, BuildState.READY)
            assert (await repository.activate(alpha, 1)).number == 1
            assert [t.active_version for t in await repository.teams()] == [1, None]
            await repository.activate(alpha, 2)
            alpha_now = await repository.teams()
            assert [t.active_version for t in alpha_now] == [2, None]
            racing = await asyncio.gather(*(repository.add_version(beta, **_files(10 + i)) for i in range(4)))
            assert sorted(v.number for v, _ in racing) == [2, 3, 4, 5]

    asyncio.run(scenario())


def test_a_frozen_arena_takes_no_version_and_no_activation_and_names_its_finalists(arena_database: str) -> None:
    asyncio.run(migrate(arena_database))

    async def scenario() -> None:
        async with open_repository(arena_database) as repository:
            alpha, _ = await repository.add_team("alpha")
            beta, _ = await repository.add_team("beta")
            await repository.add_team("gamma")  # no version: not a finalist
            a1, _ = await repository.add_version(alpha, **_files(1))
            b1, _ = await repository.add_version(beta, **_files(2))
            b2, _ = await repository.add_version(beta, **_files(3))
            for version in (a1, b1, b2):
                await repository.set_state(version, BuildState.READY)
            await repository.activate(alpha, 1)
            await repository.activate(beta, 2)
            assert await repository.frozen_at() is None
            when, new = await repository.freeze()
            assert new and await repository.frozen_at() == when and await repository.freeze() == (when, False)
            closed = r"^submissions are closed: the arena was frozen for its finals at \d{4}-\d\d-\d\d \d\d:\d\d UTC$"
            with pytest.raises(ArenaError, match=closed):
                await repository.add_version(alpha, **_files(4))
            with pytest.raises(ArenaError, match=closed):
                await repository.activate(beta, 1)
            finalists = await repository.finalists()
            assert [(t.name, t.active_version, v.id) for t, v in finalists] == [("alpha", 1, a1.id), ("beta", 2, b2.id)]
            assert [t.id for t, _ in finalists] == [alpha.id, beta.id]

    asyncio.run(scenario())


def test_match_ids_and_the_ladders_order_are_64_bit(arena_database: str) -> None:
    """A ladder past 2**31 matches: ids, seq and the rows that hold them take 3,000,000,000 and the
    next id after it (PostgreSQL's sequence included), on both databases."""
    asyncio.run(migrate(arena_database))
    big = 3_000_000_000

    async def scenario() -> list[tuple[int, int | None]]:
        repository = Repository(engine_for(arena_database))
        try:
            team, _ = await repository.add_team("alpha")
            version, _ = await repository.add_version(team, **_files(1))
            row = {"state": "applied", "attempt": 1, "created_at": datetime.now(UTC)}
            async with repository.engine.begin() as connection:
                await connection.execute(matches.insert().values(id=big, seq=big, **row))
                if connection.dialect.name == "postgresql":
                    await connection.execute(text(f"SELECT setval('matches_id_seq', {big})"))
                await connection.execute(matches.insert().values(seq=None, **row))
                await connection.execute(
                    match_versions.insert().values(match_id=big + 1, seat=0, version_id=version.id, team_id=team.id)
                )
                await connection.execute(rating_history.insert().values(version_id=version.id, seq=big, mu=1, sigma=1))
                found = (await connection.execute(select(matches.c.id, matches.c.seq).order_by(matches.c.id))).all()
                held = (await connection.execute(select(match_versions.c.match_id))).scalar_one()
                assert held == big + 1
            return [(r.id, r.seq) for r in found]
        finally:
            await repository.engine.dispose()

    assert asyncio.run(scenario()) == [(big, big), (big + 1, None)]
