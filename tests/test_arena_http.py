"""The arena's HTTP API on both databases: submissions over multipart, versions and the active
version, the OpenAPI file against the routes, tokens on every route, no team seeing another's
data on any route, and the per-team rate limit."""

from __future__ import annotations

import asyncio
import io
import tarfile
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import aiohttp
import yaml
from aiohttp.test_utils import TestClient, TestServer

from dealer.arena.config import ArenaConfig, SubmissionLimits
from dealer.arena.http import API, OPENAPI, make_app
from dealer.arena.model import BuildState, Version, retry_after
from dealer.arena.store.schema import migrate
from dealer.arena.store.teams import Repository, open_repository


def bot_archive(files: dict[str, bytes]) -> bytes:
    """A tar.gz of ``files`` (path -> content)."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


BOT = {"bot.yaml": b"protocol: stdio\nrun: python3 bot.py\n", "bot.py": b"print('call')\n"}


def form(data: bytes) -> aiohttp.FormData:
    body = aiohttp.FormData()
    body.add_field("archive", data, filename="bot.tar.gz", content_type="application/gzip")
    return body


Scenario = Callable[[TestClient[Any, Any], Repository, dict[str, str], list[Version]], Awaitable[None]]


def run_api(database: str, storage: Path, scenario: Scenario, limits: SubmissionLimits | None = None) -> None:
    """Start the API on a migrated ``database`` with teams alpha and beta and an organiser, and run ``scenario``
    with a client, the repository, the tokens (alpha, beta, organiser) and the versions queued so far."""
    asyncio.run(migrate(database))
    config = ArenaConfig(storage=storage, database=database, submissions=limits or SubmissionLimits())

    async def go() -> None:
        async with open_repository(database) as repository:
            tokens = {name: (await repository.add_team(name))[1] for name in ("alpha", "beta")}
            tokens["organiser"] = await repository.add_organiser_token()
            queued: list[Version] = []
            async with TestClient(TestServer(make_app(repository, config, queued.append))) as client:
                await scenario(client, repository, tokens, queued)

    asyncio.run(go())


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_the_openapi_file_describes_every_route_and_no_other() -> None:
    document = yaml.safe_load(OPENAPI.read_text(encoding="utf-8"))
    described = {(method.upper(), API + path) for path, item in document["paths"].items() for method in item}
    app = make_app(None, ArenaConfig(storage=Path("/nonexistent"), database="sqlite+aiosqlite:///x"), print)  # type: ignore[arg-type]
    served = {(r.method, r.resource.canonical) for r in app.router.routes() if r.method != "HEAD"}
    assert described == served
    for path, item in document["paths"].items():
        for method, operation in item.items():
            assert operation.get("summary") and {"200", "201"} & set(operation["responses"]), (method, path)
            if path != "/openapi.yaml":
                assert {"401", "403"} <= set(operation["responses"]), (method, path)


def test_a_team_submits_lists_and_activates_its_versions(arena_database: str, tmp_path: Path) -> None:
    async def scenario(
        client: TestClient[Any, Any], repository: Repository, tokens: dict[str, str], queued: list[Version]
    ) -> None:
        alpha = auth(tokens["alpha"])
        first = await client.post(f"{API}/submissions", data=form(bot_archive(BOT)), headers=alpha)
        assert first.status == 201, await first.text()
        v1 = await first.json()
        assert (v1["label"], v1["state"], v1["protocol"], v1["run"], v1["new"]) == (
            "v1",
            "queued",
            "stdio",
            ["python3", "bot.py"],
            True,
        )
        assert (tmp_path / "storage" / "versions" / v1["sha256"] / "bot.py").read_bytes() == BOT["bot.py"]
        again = await client.post(f"{API}/submissions", data=form(bot_archive(BOT)), headers=alpha)
        assert again.status == 200 and (await again.json())["version"] == 1
        changed = bot_archive({**BOT, "bot.py": b"print('raise')\n"})
        second = await client.post(f"{API}/submissions", data=form(changed), headers=alpha)
        assert second.status == 201 and (await second.json())["label"] == "v2"
        assert [v.label for v in queued] == ["v1", "v2"], "each new version is handed to the builder once"
        listed = await (await client.get(f"{API}/versions", headers=alpha)).json()
        assert [v["label"] for v in listed] == ["v1", "v2"]
        assert (await (await client.get(f"{API}/versions/v2", headers=alpha)).json())["sha256"] == listed[1]["sha256"]
        build = await (await client.get(f"{API}/versions/2/build", headers=alpha)).json()
        assert build == {"version": 2, "state": "queued", "smoke": None, "log": ""}
        refused = await client.put(f"{API}/active", json={"version": 1}, headers=alpha)
        assert refused.status == 409
        assert await refused.json() == {"error": "v1 is queued: only a ready version can be active"}
        await repository.set_state(queued[0], BuildState.READY)
        chosen = await client.put(f"{API}/active", json={"version": 1}, headers=alpha)
        assert chosen.status == 200 and (await chosen.json())["state"] == "ready"
        assert await (await client.get(f"{API}/team", headers=alpha)).json() == {"name": "alpha", "active_version": 1}
        teams = await (await client.get(f"{API}/teams", headers=auth(tokens["organiser"]))).json()
        assert [(t["name"], t["active_version"]) for t in teams] == [("alpha", 1), ("beta", None)]

    run_api(arena_database, tmp_path / "storage", scenario)


def test_bad_submissions_are_one_line_each(arena_database: str, tmp_path: Path) -> None:
    async def scenario(
        client: TestClient[Any, Any], _r: Repository, tokens: dict[str, str], queued: list[Version]
    ) -> None:
        alpha = auth(tokens["alpha"])
        other_field = aiohttp.FormData()
        other_field.add_field("other", b"x", filename="x.tar.gz")
        cases = [
            (
                form(bot_archive({"bot.py": b""})),
                422,
                "no bot.yaml at the top of the archive (see dealer/arena/manifest.py)",
            ),
            (form(bot_archive({**BOT, "../x": b""})), 422, "'../x': a path with '..'"),
            (form(b"\x1f\x8b" + bytes(2 * 1024 * 1024)), 413, "the archive is larger than 1 MB"),
            (other_field, 400, "no field named 'archive' in the form"),
            (b"raw bytes", 400, "send the archive as multipart/form-data, in a field named 'archive'"),
        ]
        for body, status, message in cases:
            response = await client.post(f"{API}/submissions", data=body, headers=alpha)
            assert (response.status, await response.json()) == (status, {"error": message})
        assert queued == [] and not (tmp_path / "storage" / "versions").exists()
        bad = await client.put(f"{API}/active", data=b"{", headers=alpha)
        assert (bad.status, await bad.json()) == (400, {"error": 'send JSON: {"version": N}'})

    run_api(arena_database, tmp_path / "storage", scenario, SubmissionLimits(max_archive_mb=1, per_hour=100))


def test_submissions_are_rate_limited_per_team(arena_database: str, tmp_path: Path) -> None:
    async def scenario(client: TestClient[Any, Any], _r: Repository, tokens: dict[str, str], _q: list[Version]) -> None:
        for i in range(2):
            ok = await client.post(
                f"{API}/submissions",
                data=form(bot_archive({**BOT, "n": str(i).encode()})),
                headers=auth(tokens["alpha"]),
            )
            assert ok.status == 201
        third = await client.post(f"{API}/submissions", data=form(bot_archive(BOT)), headers=auth(tokens["alpha"]))
        assert third.status == 429 and 3500 <= int(third.headers["Retry-After"]) <= 3601
        assert (await third.json())["error"].startswith("at most 2 submissions an hour: try again in ")
        other = await client.post(f"{API}/submissions", data=form(bot_archive(BOT)), headers=auth(tokens["beta"]))
        assert other.status == 201, "beta's allowance is its own"
        # A restarted server (a new app on a new connection pool) counts the same attempts.
        config = ArenaConfig(storage=tmp_path / "storage", database=arena_database, submissions=limits)
        async with (
            open_repository(arena_database) as repository,
            TestClient(TestServer(make_app(repository, config, lambda _v: None))) as restarted,
        ):
            again = await restarted.post(
                f"{API}/submissions", data=form(bot_archive(BOT)), headers=auth(tokens["alpha"])
            )
            assert again.status == 429 and 3500 <= int(again.headers["Retry-After"]) <= 3601

    limits = SubmissionLimits(per_hour=2)
    run_api(arena_database, tmp_path / "storage", scenario, limits)


def test_the_limit_frees_one_attempt_an_hour_after_it() -> None:
    start = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)
    recent = [start, start + timedelta(minutes=10), start + timedelta(minutes=20)]
    assert retry_after(recent[:1], 2, start + timedelta(minutes=30)) == 0
    assert retry_after(recent[:2], 2, start + timedelta(minutes=30)) == 30 * 60
    assert retry_after(recent, 2, start + timedelta(minutes=30)) == 40 * 60, "a lowered limit: wait for two"
    assert retry_after(recent[:2], 2, start + timedelta(minutes=60)) == 0


def test_a_team_sees_the_toolchains_its_builds_may_use(tmp_path: Path) -> None:
    async def scenario(
        client: TestClient[Any, Any], _repository: Repository, tokens: dict[str, str], _queued: list[Version]
    ) -> None:
        response = await client.get(f"{API}/toolchains", headers=auth(tokens["alpha"]))
        listed = await response.json()
        assert response.status == 200
        assert [t["name"] for t in listed["toolchains"]] == ["python", "node", "gcc", "javac", "rustc"]
        python = listed["toolchains"][0]
        assert python["available"] and python["commands"] == ["python3", "python"]
        assert "sh" in listed["basic"]

    run_api(f"sqlite+aiosqlite:///{tmp_path / 'arena.db'}", tmp_path / "storage", scenario)


def test_every_route_needs_a_token_and_no_team_sees_anothers_data(arena_database: str, tmp_path: Path) -> None:
    """alpha has two versions, beta none: on every route beta's token gets nothing of alpha's."""
    document = yaml.safe_load(OPENAPI.read_text(encoding="utf-8"))

    async def scenario(
        client: TestClient[Any, Any], repository: Repository, tokens: dict[str, str], queued: list[Version]
    ) -> None:
        alpha = auth(tokens["alpha"])
        for content in (b"1", b"2"):
            assert (
                await client.post(f"{API}/submissions", data=form(bot_archive({**BOT, "x": content})), headers=alpha)
            ).status == 201
        for version in queued:
            await repository.set_state(version, BuildState.READY)
        assert (await client.put(f"{API}/active", json={"version": 2}, headers=alpha)).status == 200
        gamma, _ = await repository.add_team("gamma")
        gamma_v1, _ = await repository.add_version(
            gamma, digest="9" * 64, files=1, size=1, protocol="grpc", run=("bot",), build=None
        )
        await repository.set_state(gamma_v1, BuildState.READY)
        await repository.activate(gamma, 1)
        asked = await client.post(f"{API}/scrimmages", json={"opponent": "gamma"}, headers=alpha)
        assert asked.status == 201, await asked.text()
        scrimmage = (await asked.json())["id"]
        secrets = {v.digest for v in queued} | {"alpha"}
        public = {("GET", "/ladder")}  # the ranking names every team with an active version, alpha too

        requests = {  # route -> what beta sends, and the status beta must get
            ("GET", "/team"): (None, 200),
            ("GET", "/teams"): (None, 403),
            ("POST", "/submissions"): (lambda: form(bot_archive({**BOT, "x": b"beta"})), 201),
            ("GET", "/versions"): (None, 200),
            ("GET", "/versions/{number}"): (None, 404),
            ("GET", "/versions/{number}/build"): (None, 404),
            ("GET", "/versions/{number}/bot-log"): (None, 404),
            ("PUT", "/active"): ({"version": 2}, 409),
            ("GET", "/toolchains"): (None, 200),
            ("GET", "/finals"): (None, 200),
            ("GET", "/finals/{name}"): (None, 404),
            ("GET", "/finals/{name}/files/{path}"): (None, 404),
            ("GET", "/ladder"): (None, 200),
            ("GET", "/versions/{number}/ladder"): (None, 404),
            ("POST", "/scrimmages"): ({"opponent": "alpha"}, 409),  # beta has no active version
            ("GET", "/scrimmages"): (None, 200),
            ("GET", "/scrimmages/{id}"): (None, 404),
            ("GET", "/scrimmages/{id}/hands"): (None, 404),
            ("GET", "/scrimmage-policy"): (None, 200),
            ("PUT", "/scrimmage-policy"): ({"accept": False}, 200),
        }
        routes = {(m.upper(), p) for p, item in document["paths"].items() for m in item if p != "/openapi.yaml"}
        assert set(requests) == routes, "a route without a cross-team check"
        for (method, path), (body, status) in requests.items():
            url = API + path.replace("{number}", "2").replace("{name}", "final").replace("{path}", "standings.txt")
            url = url.replace("{id}", str(scrimmage))
            send = body() if callable(body) else body
            kwargs = {"json": send} if isinstance(send, dict) else {"data": send}
            for headers in ({}, auth("team_forged"), {"Authorization": tokens["beta"]}):
                response = await client.request(method, url, headers=headers, **kwargs if method != "GET" else {})
                assert response.status == 401, (method, path, headers)
            send = body() if callable(body) else body
            kwargs = {"json": send} if isinstance(send, dict) else {"data": send}
            response = await client.request(
                method, url, headers=auth(tokens["beta"]), **kwargs if method != "GET" else {}
            )
            text = await response.text()
            assert response.status == status, (method, path, text)
            hidden = {v.digest for v in queued} if (method, path) in public else secrets
            assert not any(secret in text for secret in hidden), (method, path, text)
            if (method, path) != ("GET", "/teams"):
                organiser = await client.request(method, url, headers=auth(tokens["organiser"]))
                assert organiser.status == 403, (method, path)
        assert [
            v["label"] for v in await (await client.get(f"{API}/versions", headers=auth(tokens["beta"]))).json()
        ] == ["v1"]
        assert (await (await client.get(f"{API}/team", headers=alpha)).json())["active_version"] == 2

    run_api(arena_database, tmp_path / "storage", scenario)
