"""The arena's use cases (dealer.arena.services) seen through both presenters: the API (/api/v1)
and the pages' data (/data) answer from the same calls, so they agree."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient

from dealer.arena.http import API, STATUSES
from dealer.arena.model import BuildState, Refusal
from dealer.arena.repository import Repository, standings
from test_arena_http import auth
from test_arena_pages import run_pages


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
