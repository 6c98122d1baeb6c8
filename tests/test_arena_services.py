"""The arena's use cases (dealer.arena.services) seen through both presenters: the API (/api/v1)
and the pages' data (/data) answer from the same calls, so they agree."""

from __future__ import annotations

import asyncio
import itertools
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from alembic import command
from sqlalchemy import event, func, select

from dealer.arena.http import API, STATUSES
from dealer.arena.ladder import Applied, Standing, version_bb100
from dealer.arena.layout import HANDS, LOGS, SMOKE_BOT, build_log, match_folder, smoke_folder
from dealer.arena.model import MATCH_WORDS, BuildState, MatchState, Refusal, Version
from dealer.arena.store.ladder import LadderStore
from dealer.arena.store.reads import Public
from dealer.arena.store.schema import (
    alembic_config,
    current_revision,
    engine_for,
    match_versions,
    matches,
    migrate,
    standings,
    utc,
)
from dealer.arena.store.teams import Repository, open_repository
from dealer.stats.records import MatchResult
from dealer.stats.stats import GroupedSums
from test_arena_http import auth
from test_arena_pages import login, run_pages


def test_every_refusal_has_one_http_status() -> None:
    assert set(STATUSES) == set(Refusal)
    assert {Refusal.UNKNOWN: 401, Refusal.FORBIDDEN: 403, Refusal.TOO_MANY: 429}.items() <= {
        refusal: status.status_code for refusal, status in STATUSES.items()
    }.items()


def test_the_api_and_the_pages_rank_the_leaderboard_in_one_order(arena_database: str, tmp_path: Path) -> None:
    """The API sorted by (-score, name) and the pages put versions yet to play after the rated:
    a version yet to play (score mu - 3 sigma = 0) ranked above a rated one of negative score in
    the API alone. One ranking now: the rated by score, then the others by name."""

    async def scenario(client: TestClient[Any, Any], repository: Repository, tokens: dict[str, str], _q: Any) -> None:
        ids = {}
        for name in ("alpha", "beta"):
            team = await repository.team_for_token(tokens[name])
            assert team is not None
            version, _ = await repository.add_version(
                team, digest=f"{team.id:064x}", files=1, size=1, protocol="grpc", run=("bot",), build=None
            )
            await repository.set_state(version, BuildState.READY)
            await repository.activate(team, 1)
            ids[name] = version.id
        async with repository.engine.begin() as connection:  # beta rated below zero, alpha yet to play
            await connection.execute(
                standings.insert(),
                [
                    {"version_id": ids["beta"], "mu": 20.0, "sigma": 8.0, "games": 3, "faulty": 0, "paused": None},
                    {"version_id": ids["alpha"], "mu": 25.0, "sigma": 25 / 3, "games": 0, "faulty": 0, "paused": None},
                ],
            )
        api = await (await client.get(f"{API}/ladder", headers=auth(tokens["alpha"]))).json()
        data = await (await client.get("/data/leaderboard")).json()
        assert [row["team"] for row in api] == [row["team"] for row in data["teams"]] == ["beta", "alpha"]
        assert [row["rank"] for row in api] == [1, 2] and api[0]["score"] == -4.0

    run_pages(arena_database, tmp_path / "storage", scenario)


def test_a_scrimmage_played_is_finished_and_over_for_the_api_and_the_pages(arena_database: str, tmp_path: Path) -> None:
    """Issue 34 (2): a scrimmage ended 'done' and a ranked match 'finished', two words for one
    state, and the pages counted only the second as over: a team never saw its own scrimmage's
    hands on the pages. One MatchState now; the API's word ('done') and the pages' text come from
    one table (MATCH_WORDS), and a finished match is never started again (MATCH_MOVES)."""

    async def scenario(client: TestClient[Any, Any], repository: Repository, tokens: dict[str, str], _q: Any) -> None:
        for name in ("alpha", "beta"):
            team = await repository.team_for_token(tokens[name])
            assert team is not None
            version, _ = await repository.add_version(
                team, digest=f"{team.id:064x}", files=1, size=1, protocol="grpc", run=("bot",), build=None
            )
            await repository.set_state(version, BuildState.READY)
            await repository.activate(team, 1)
        asked = await client.post(f"{API}/scrimmages", json={"opponent": "beta"}, headers=auth(tokens["alpha"]))
        assert asked.status == 201 and (await asked.json())["state"] == "queued"
        match_id = (await asked.json())["id"]
        store = LadderStore(repository)
        await store.started(match_id, 0)
        assert (await (await client.get(f"/data/matches/{match_id}")).json())["state_text"] == "being played"
        assert await store.finished(match_id, MatchResult(f"m{match_id}", ("alpha-v1", "beta-v1")))
        await store.started(match_id, 1)  # a finished match is not started again
        assert not await store.finished(match_id, MatchResult(f"m{match_id}", ("alpha-v1", "beta-v1")))
        async with repository.engine.connect() as connection:
            stored = (await connection.execute(select(matches.c.state).where(matches.c.id == match_id))).scalar()
        assert stored == MatchState.FINISHED
        shown = await (await client.get(f"{API}/scrimmages/{match_id}", headers=auth(tokens["alpha"]))).json()
        assert shown["state"] == "done" == MATCH_WORDS[MatchState.FINISHED][0]
        await login(client, tokens["alpha"])
        page = await (await client.get(f"/data/matches/{match_id}")).json()
        assert (page["state"], page["over"], page["state_text"]) == ("finished", True, "played")
        assert page["hands_shown"] is True, "its own team sees a scrimmage's hands once it is over"
        assert [m["id"] for m in (await store.open_matches())] == [], "a played scrimmage is not played again"

    run_pages(arena_database, tmp_path / "storage", scenario)


def test_the_migration_makes_every_scrimmage_done_finished(arena_database: str) -> None:
    """A database of revision 0008 holds scrimmages 'done'; 0009 makes them 'finished', and back."""

    async def go() -> None:
        await migrate(arena_database, "0008")
        engine = engine_for(arena_database)
        async with engine.begin() as connection:
            now = datetime.now(UTC)
            rows = [
                {"state": "done", "attempt": 0, "seed": "s", "seq": None, "deal": None, "created_at": now},
                {"state": "applied", "attempt": 0, "seed": None, "seq": 0, "deal": 0, "created_at": now},
            ]
            await connection.execute(matches.insert(), rows)
        await engine.dispose()
        await migrate(arena_database)
        async with open_repository(arena_database) as repository, repository.engine.connect() as connection:
            found = (await connection.execute(select(matches.c.state).order_by(matches.c.id))).scalars().all()
        assert found == ["finished", "applied"]

    asyncio.run(go())


async def _rated_field(repository: Repository, names: tuple[str, ...]) -> dict[str, Version]:
    """Teams ``names`` with a ready active version each, every pair of them in an applied ranked match."""
    field_: dict[str, Version] = {}
    for name in names:
        team = (await repository.add_team(name))[0]
        version, _ = await repository.add_version(
            team, digest=f"{team.id:064x}", files=1, size=1, protocol="grpc", run=("bot",), build=None
        )
        await repository.set_state(version, BuildState.READY)
        field_[name] = await repository.activate(team, 1)
    store = LadderStore(repository)
    for seq, (a, b) in enumerate(itertools.combinations(names, 2)):
        va, vb = field_[a], field_[b]
        planned = await store.schedule(seq, [Standing(va.id, va.team_id), Standing(vb.id, vb.team_id)], seq)
        await store.finished(planned.id, MatchResult(f"m{planned.id}", (f"{a}-v1", f"{b}-v1")))
        mine, theirs = GroupedSums(), GroupedSums()
        for k, total in enumerate((1.5, -0.25, 3.0)):
            mine.add(total * (seq + 1), 4 + k)
            theirs.add(-total * (seq + 1), 4 + k)
        rated = [
            Standing(va.id, va.team_id, mu=26.0 + seq, sigma=5.0, games=seq + 1),
            Standing(vb.id, vb.team_id, mu=24.0 - seq, sigma=5.0, games=seq + 1),
        ]
        assert await store.apply(planned.id, seq, Applied(rated, {(va.id, vb.id): mine, (vb.id, va.id): theirs}))
    return field_


def test_the_leaderboard_is_one_query_and_keeps_its_bb100_and_last_played(arena_database: str) -> None:
    """Issue 34 (3): the board cost 3 + 2N queries (a team's pairs and its last match each), every
    5 s for each open page. Its bb/100 is kept when a match is applied and its last match's end
    when one ends: one query, whatever the number of teams, and the same figures as worked out
    from the stored pairs (ladder.version_bb100) and the matches' ends."""
    asyncio.run(migrate(arena_database))

    async def go() -> None:
        async with open_repository(arena_database) as repository:
            field_ = await _rated_field(repository, ("alpha", "beta", "gamma", "delta"))
            statements: list[str] = []
            listen = lambda *args: statements.append(args[2])  # noqa: E731 (conn, cursor, statement, ...)
            event.listen(repository.engine.sync_engine, "before_cursor_execute", listen)
            lines = await Public(repository, 3.0).leaderboard()
            event.remove(repository.engine.sync_engine, "before_cursor_execute", listen)
            assert len(statements) == 1, statements
            store = LadderStore(repository)
            for line in lines:
                version = field_[line.team]
                assert line.bb100 == version_bb100(await store.pair_groups(version.id)) and line.bb100 is not None
                async with repository.engine.connect() as connection:
                    ended = (
                        await connection.execute(
                            select(func.max(matches.c.finished_at))
                            .select_from(match_versions.join(matches))
                            .where(match_versions.c.version_id == version.id)
                        )
                    ).scalar()
                assert line.last_played is not None and ended is not None
                assert line.last_played == utc(ended)
            scores = [line.score for line in lines]
            assert None not in scores and scores == sorted(scores, key=lambda x: -(x or 0.0))

    asyncio.run(go())


def test_the_migration_fills_the_boards_figures_in_for_existing_rows(arena_database: str) -> None:
    """Revision 0010 adds the kept bb/100 and last match's end and fills them in from the pairs and
    the matches already stored: the board shows after the upgrade what it worked out before."""

    async def go() -> None:
        await migrate(arena_database)
        async with open_repository(arena_database) as repository:
            field_ = await _rated_field(repository, ("alpha", "beta", "gamma"))
            before = {line.team: (line.bb100, line.last_played) for line in await Public(repository, 3.0).leaderboard()}
        engine = engine_for(arena_database)  # back to 0009: the kept figures dropped
        async with engine.begin() as connection:
            await connection.run_sync(lambda sync: command.downgrade(alembic_config(sync), "0009"))
        await engine.dispose()
        assert await current_revision(arena_database) == "0009"
        await migrate(arena_database)
        async with open_repository(arena_database) as repository:
            after = {line.team: (line.bb100, line.last_played) for line in await Public(repository, 3.0).leaderboard()}
        assert after == before and len(after) == len(field_)
        assert all(bb100 is not None and played is not None for bb100, played in after.values())

    asyncio.run(go())


def test_the_request_handlers_read_no_file_on_the_event_loop(
    arena_database: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 34 (3): a route that answers with a file's contents (a build log, a smoke test's or a
    match's bot logs, a scrimmage's hand histories, a match's files) lists and reads them in a
    worker thread: a slow disk holds up that request alone, never the event loop that serves every
    other one. Every read or listing of the storage folder made on the loop's thread is caught."""
    storage = tmp_path / "storage"
    loop_thread = threading.get_ident()  # asyncio.run runs the loop in this thread
    on_loop: list[str] = []
    for name in ("read_bytes", "read_text", "glob", "iterdir", "open"):
        original = getattr(Path, name)

        def watched(self: Path, *args: Any, _name: str = name, _original: Any = original, **kwargs: Any) -> Any:
            if self.is_relative_to(storage) and threading.get_ident() == loop_thread:
                on_loop.append(f"{_name} {self.relative_to(storage)}")
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(Path, name, watched)

    async def scenario(client: TestClient[Any, Any], repository: Repository, tokens: dict[str, str], _q: Any) -> None:
        for name in ("alpha", "beta"):
            team = await repository.team_for_token(tokens[name])
            assert team is not None
            version, _ = await repository.add_version(
                team, digest=f"{team.id:064x}", files=1, size=1, protocol="grpc", run=("bot",), build=None
            )
            await repository.set_state(version, BuildState.READY)
            await repository.activate(team, 1)
            if name == "alpha":
                build_log(storage, version).parent.mkdir(parents=True)
                build_log(storage, version).write_bytes(b"built\n")
                (smoke_folder(storage, version) / LOGS).mkdir(parents=True)
                (smoke_folder(storage, version) / LOGS / f"{SMOKE_BOT}.0.log").write_bytes(b"smoked\n")
        asked = await client.post(f"{API}/scrimmages", json={"opponent": "beta"}, headers=auth(tokens["alpha"]))
        match_id = (await asked.json())["id"]
        store = LadderStore(repository)
        await store.started(match_id, 0)
        assert await store.finished(match_id, MatchResult(f"m{match_id}", ("alpha-v1", "beta-v1")))
        folder = match_folder(storage, match_id)
        (folder / HANDS).mkdir(parents=True)
        (folder / HANDS / "table-0-alpha-v1-r0.phhs").write_bytes(b"# the hands\n")
        (folder / LOGS).mkdir()
        (folder / LOGS / "alpha-v1.0.log").write_bytes(b"alpha's bot\n")
        on_loop.clear()  # what the scenario itself wrote and read above is not a request's

        alpha = auth(tokens["alpha"])
        assert (await (await client.get(f"{API}/versions/1/build", headers=alpha)).json())["log"] == "built\n"
        assert "smoked" in (await (await client.get(f"{API}/versions/1/bot-log", headers=alpha)).json())["log"]
        hands = await client.get(f"{API}/scrimmages/{match_id}/hands", headers=alpha)
        assert await hands.text() == "# the hands\n"
        await login(client, tokens["alpha"])
        log = await client.get(f"/data/team/matches/{match_id}/log")
        assert "alpha's bot" in (await log.json())["log"]
        shown = await client.get(f"/matches/{match_id}/hands/table-0-alpha-v1-r0.phhs")
        assert shown.status == 200 and await shown.read() == b"# the hands\n"
        assert on_loop == []

    run_pages(arena_database, storage, scenario)
