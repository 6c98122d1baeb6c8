"""The arena's web pages over HTTP, on both databases: logging in with a token (a session cookie,
HttpOnly and SameSite=Strict, Secure under TLS), CSRF tokens on every form and on every request of
the pages that changes something, logging out, a replaced token ending its sessions, the security
headers on every response, and no page route giving one team anything private of another's.
The pages in a real browser: test_arena_browser.py."""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer, make_mocked_request

from dealer.arena.config import ArenaConfig
from dealer.arena.http import API, make_app
from dealer.arena.ladder import Applied, Standing
from dealer.arena.layout import FINALS_JSON, build_log, finals_folder, match_folder
from dealer.arena.model import BuildState, Version
from dealer.arena.organiser_pages import add_organiser_pages
from dealer.arena.pages import CSP, DATA_OPENAPI, add_pages
from dealer.arena.sessions import COOKIE, CSRF_FIELD, LOGIN_COOKIE, set_cookie
from dealer.arena.store.ladder import LadderStore
from dealer.arena.store.schema import migrate, standings
from dealer.arena.store.teams import Repository, open_repository
from dealer.league.seeds import commitment
from dealer.stats.records import MatchResult
from test_arena_http import BOT, auth, bot_archive, form

Scenario = Callable[[TestClient[Any, Any], Repository, dict[str, str], list[Version]], Awaitable[None]]


def run_pages(database: str, storage: Path, scenario: Scenario, **settings: Any) -> None:
    """The API and the pages on a migrated ``database`` with teams alpha and beta and an organiser;
    ``settings`` are ArenaConfig's fields (``submissions``, ``http``)."""
    asyncio.run(migrate(database))
    config = ArenaConfig(storage=storage, database=database, **settings)

    async def go() -> None:
        async with open_repository(database) as repository:
            tokens = {name: (await repository.add_team(name))[1] for name in ("alpha", "beta")}
            tokens["organiser"] = await repository.add_organiser_token()
            queued: list[Version] = []
            app = make_app(repository, config, queued.append)
            add_pages(app)
            add_organiser_pages(app)
            async with TestClient(TestServer(app)) as client:
                await scenario(client, repository, tokens, queued)

    asyncio.run(go())


async def login(client: TestClient[Any, Any], token: str) -> tuple[str, str]:
    """Log ``client`` in with ``token`` as a browser would; its session cookie and CSRF token."""
    page = await client.get("/login")
    csrf = re.search(rf'action="/login".*?name="{CSRF_FIELD}" value="([^"]+)"', await page.text(), re.S)
    assert page.status == 200 and csrf is not None
    done = await client.post("/login", data={CSRF_FIELD: csrf[1], "token": token}, allow_redirects=False)
    assert done.status == 303, await done.text()
    session = client.session.cookie_jar.filter_cookies(client.make_url("/"))[COOKIE].value
    shell = await (await client.get(done.headers["Location"])).text()
    token_in_page = re.search(r'<meta name="csrf" content="([^"]+)">', shell)
    assert token_in_page is not None
    return session, token_in_page[1]


def test_a_team_logs_in_with_its_token_uses_the_api_by_its_session_and_logs_out(
    arena_database: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async def scenario(
        client: TestClient[Any, Any], repository: Repository, tokens: dict[str, str], queued: Any
    ) -> None:
        assert (await client.get("/team", allow_redirects=False)).headers["Location"] == "/login"
        page = await client.get("/login")
        login_cookie = page.cookies[LOGIN_COOKIE]
        assert login_cookie["httponly"] and login_cookie["samesite"] == "Strict" and not login_cookie["secure"]
        refused = await client.post("/login", data={"token": tokens["alpha"]})
        assert refused.status == 403 and "The form expired" in await refused.text(), "a login without its CSRF token"
        csrf = re.search(rf'name="{CSRF_FIELD}" value="([^"]+)"', await (await client.get("/login")).text())
        assert csrf is not None
        wrong = await client.post("/login", data={CSRF_FIELD: csrf[1], "token": "team_forged"})
        assert wrong.status == 401 and "Unknown token." in await wrong.text()
        csrf = re.search(rf'name="{CSRF_FIELD}" value="([^"]+)"', await wrong.text())  # each form its own token
        assert csrf is not None
        done = await client.post("/login", data={CSRF_FIELD: csrf[1], "token": tokens["alpha"]}, allow_redirects=False)
        assert (done.status, done.headers["Location"]) == (303, "/team")
        cookie = done.cookies[COOKIE]
        assert cookie["httponly"] and cookie["samesite"] == "Strict" and cookie["path"] == "/"
        assert tokens["alpha"] not in done.headers["Location"] and tokens["alpha"] not in cookie.value
        shell = await (await client.get("/team")).text()
        session_csrf = re.search(r'<meta name="csrf" content="([^"]+)">', shell)
        assert session_csrf is not None and "My team" in shell and "Log out" in shell
        # The API knows the browser by its cookie; a change needs the session's CSRF token.
        assert await (await client.get(f"{API}/team")).json() == {"name": "alpha", "active_version": None}
        sent = await client.post(f"{API}/submissions", data=form(bot_archive(BOT)))
        assert (sent.status, (await sent.json())["error"]) == (
            403,
            "a request of the web pages must send the session's X-CSRF-Token",
        )
        headers = {"X-CSRF-Token": session_csrf[1]}
        assert (await client.post(f"{API}/submissions", data=form(bot_archive(BOT)), headers=headers)).status == 201
        await repository.set_state(queued[0], BuildState.READY)
        assert (await client.put(f"{API}/active", json={"version": 1})).status == 403
        assert (await client.put(f"{API}/active", json={"version": 1}, headers=headers)).status == 200
        out = await client.post("/logout", data={CSRF_FIELD: "wrong"}, allow_redirects=False)
        assert out.status == 403 and (await client.get(f"{API}/team")).status == 200, "logout needs its CSRF token"
        out = await client.post("/logout", data={CSRF_FIELD: session_csrf[1]}, allow_redirects=False)
        assert (out.status, out.headers["Location"]) == (303, "/leaderboard")
        assert (await client.get(f"{API}/team")).status == 401
        assert (await client.get("/team", allow_redirects=False)).status == 303

    with caplog.at_level(logging.DEBUG):
        run_pages(arena_database, tmp_path / "storage", scenario)
    assert "web login: team alpha" in caplog.text and "web login refused: unknown token" in caplog.text
    assert not re.search(r"(team|org)_[A-Za-z0-9_-]{20,}", caplog.text), "a token in the log"


def test_a_replaced_token_ends_its_sessions_and_the_organiser_has_a_page_of_its_own(tmp_path: Path) -> None:
    async def scenario(client: TestClient[Any, Any], repository: Repository, tokens: dict[str, str], _q: Any) -> None:
        await login(client, tokens["alpha"])
        assert (await client.get("/organiser")).status == 403
        assert (await client.get("/data/organiser")).status == 403
        await repository.new_team_token("alpha")
        assert (await client.get(f"{API}/team")).status == 401
        assert (await client.get("/team", allow_redirects=False)).headers["Location"] == "/login"
        await login(client, tokens["organiser"])
        assert (await client.get("/organiser")).status == 200 and (await client.get("/team")).status == 403
        assert [t["name"] for t in await (await client.get(f"{API}/teams")).json()] == ["alpha", "beta"]

    run_pages(f"sqlite+aiosqlite:///{tmp_path / 'arena.db'}", tmp_path / "storage", scenario)


def test_the_session_cookie_is_secure_under_tls() -> None:
    request = make_mocked_request("GET", "/login").clone(scheme="https")
    response = web.Response()
    set_cookie(response, request, COOKIE, "x", max_age=60)
    cookie = response.cookies[COOKIE]
    assert cookie["secure"] and cookie["httponly"] and cookie["samesite"] == "Strict"


def test_no_page_route_shows_one_team_what_is_anothers(arena_database: str, tmp_path: Path) -> None:
    """alpha has a built version with a log; on every route of the pages, beta (logged in), the
    public and the organiser see nothing of alpha's files or logs, and every response carries the CSP."""

    async def scenario(
        client: TestClient[Any, Any], repository: Repository, tokens: dict[str, str], queued: Any
    ) -> None:
        sent = await client.post(f"{API}/submissions", data=form(bot_archive(BOT)), headers=auth(tokens["alpha"]))
        assert sent.status == 201
        version: Version = queued[0]
        log = build_log(tmp_path / "storage", version)
        log.parent.mkdir(parents=True)
        log.write_text("alpha's secret build output\n")
        await repository.set_state(version, BuildState.READY)
        await repository.activate((await repository.teams())[0], 1)
        match_id = await _played_match(repository, tmp_path / "storage", version)
        secrets = (version.digest, "secret build output", "bot.py", tokens["alpha"], "3cAd", "p1 cbr", "thinks")
        requests = {  # route -> (status for the public, for beta logged in)
            ("GET", "/"): (302, 302),
            ("GET", "/login"): (200, 200),
            ("POST", "/login"): (403, 403),
            ("POST", "/logout"): (303, 403),  # beta's form without its CSRF token: refused
            ("GET", "/team"): (303, 200),  # the public is sent to /login; beta gets its own page
            ("GET", "/organiser"): (303, 403),
            ("GET", "/leaderboard"): (200, 200),
            ("GET", "/teams/{name}"): (200, 200),
            ("GET", "/data/openapi.yaml"): (200, 200),
            ("GET", "/data/leaderboard"): (200, 200),
            ("GET", "/data/teams/{name}"): (200, 200),
            ("GET", "/data/team"): (403, 200),
            ("GET", "/data/team/matches/{id}/log"): (404, 404),  # beta did not play it
            ("GET", "/matches"): (200, 200),
            ("GET", "/data/matches"): (200, 200),
            ("GET", "/matches/{id}"): (200, 200),  # the match's result, never its hands (beta did not play it)
            ("GET", "/data/matches/{id}"): (200, 200),
            ("GET", "/matches/{id}/hands/{file}"): (404, 404),
            ("GET", "/data/organiser"): (303, 403),
            ("POST", "/organiser/teams"): (303, 403),
            ("POST", "/organiser/teams/{name}/token"): (303, 403),
            ("POST", "/organiser/teams/{name}/display"): (303, 403),
            ("POST", "/organiser/freeze"): (303, 403),
            ("GET", "/finals"): (200, 200),
            ("GET", "/data/finals"): (200, 200),
            ("GET", "/finals/{name}/files/{path}"): (404, 404),
            ("GET", "/static/arena"): (200, 200),
            ("GET", "/static/web"): (200, 200),
        }
        served = {
            (r.method, r.resource.canonical)
            for r in client.app.router.routes()
            if r.method != "HEAD" and not r.resource.canonical.startswith(API)
        }
        assert set(requests) == served, "a page route without a cross-team check"
        paths = {
            "{name}": "alpha",
            "{id}": str(match_id),
            "{file}": HISTORY,
            "{path}": "logs/alpha-v1.0.log",
            "/static/arena": "/static/arena/arena.js",
            "/static/web": "/static/web/dom.js",
        }
        for who in ("public", "beta"):
            if who == "beta":
                await login(client, tokens["beta"])
            for (method, route), statuses in requests.items():
                url = route
                for key, value in paths.items():
                    url = url.replace(key, value)
                response = await client.request(
                    method, url, data={} if method == "POST" else None, allow_redirects=False
                )
                text = await response.text()
                assert response.status == statuses[who == "beta"], (who, method, route, response.status, text[:200])
                assert response.headers["Content-Security-Policy"] == CSP, (who, route)
                leaked = [secret for secret in secrets if secret in text]
                assert not leaked, (who, route, leaked)
        shown = await (await client.get(f"/data/matches/{match_id}")).json()
        assert shown["hands_shown"] is False and "replays" not in shown and shown["state"] == "applied"
        for path in ("/versions/1", "/versions/1/build", "/versions/1/bot-log"):
            assert (await client.get(API + path)).status == 404, path  # beta's session: alpha's versions are not found
        await login(client, tokens["alpha"])  # alpha played the match: its hands and its histories
        mine = await (await client.get(f"/data/matches/{match_id}")).json()
        assert mine["hands_shown"] and mine["files"] == [HISTORY]
        assert mine["groups"] == [{"hand": 0, "won": {"alpha-v1": 300, "house-v1": -300}}]
        assert mine["replays"][0]["cards"] == ["3cAd", "3hAh"] and mine["replays"][0]["steps"][-1]["stacks"] == [
            20300,
            19700,
        ]
        log = await (await client.get(f"/data/team/matches/{match_id}/log")).json()
        assert log["log"] == "[arena] alpha-v1.0:\nalpha's bot thinks\n", "its own bot's log, not the house's"
        own = await (await client.get("/data/team")).json()
        assert [(v["version"], v["games"], v["paused"]) for v in own["versions"]] == [("v1", 0, None)]
        download = await client.get(f"/matches/{match_id}/hands/{HISTORY}")
        assert download.status == 200 and "p1 cbr 300" in await download.text()
        assert "attachment" in download.headers["Content-Disposition"]
        assert (await client.get(f"/matches/{match_id}/hands/..%2Farena.db")).status == 404
        missing = await client.get("/teams/nobody")
        assert missing.status == 404 and missing.headers["Content-Security-Policy"] == CSP
        assert "'unsafe-inline'" not in CSP and "script-src 'self'" in CSP

    run_pages(arena_database, tmp_path / "storage", scenario)


HISTORY = "table-001-ladder-0-r0.phhs"
HAND = """[1]
variant = "NT"
antes = [0, 0]
blinds_or_straddles = [50, 100]
min_bet = 100
starting_stacks = [20000, 20000]
actions = ["d dh p1 3cAd", "d dh p2 3hAh", "p1 cbr 300", "p2 cc", "d db 7hKh8c", "p2 cc", "p1 cbr 500", "p2 f"]
finishing_stacks = [20300, 19700]
players = ["alpha-v1", "house-v1"]
hand = 0
"""


async def _played_match(repository: Repository, storage: Path, version: Version) -> int:
    """A ranked match of alpha's v1 against the house, over and rated, with one hand in its history."""
    store = LadderStore(repository)
    await store.ensure_house(("python3", "house.py"))
    house = next(t for t in await repository.teams() if t.name == "house")
    house_version = (await repository.versions(house))[0]
    planned = await store.schedule(0, [Standing(version.id, version.team_id), Standing(house_version.id, house.id)], 0)
    hands = match_folder(storage, planned.id) / "hands"
    hands.mkdir(parents=True)
    (hands / HISTORY).write_text(HAND, encoding="utf-8")
    (hands.parent / "logs").mkdir()
    (hands.parent / "logs" / "alpha-v1.0.log").write_text("alpha's bot thinks\n")
    (hands.parent / "logs" / "house-v1.0.log").write_text("the house thinks\n")
    await store.finished(planned.id, MatchResult(f"m{planned.id}", ("alpha-v1", "house-v1")))
    await store.apply(planned.id, 0, Applied())
    return planned.id


def test_the_organiser_adds_a_team_replaces_a_token_sees_paused_versions_and_freezes(tmp_path: Path) -> None:
    async def scenario(
        client: TestClient[Any, Any], repository: Repository, tokens: dict[str, str], queued: Any
    ) -> None:
        _, csrf = await login(client, tokens["organiser"])
        assert (await client.post("/organiser/teams", data={"name": "gamma"})).status == 403, "a form without its CSRF"
        added = await client.post("/organiser/teams", data={CSRF_FIELD: csrf, "name": "gamma"})
        token = re.search(r'data-testid="new-token">([^<]+)<', await added.text())
        assert added.status == 200 and token is not None and (await repository.team_for_token(token[1])) is not None
        bad = await client.post("/organiser/teams", data={CSRF_FIELD: csrf, "name": "<b>"})
        assert bad.status == 422 and "must match" in await bad.text()
        markup = "<img src=x onerror=alert(1)>"  # a display name is any text: the pages show it as text
        added = await client.post("/organiser/teams", data={CSRF_FIELD: csrf, "name": "delta", "display": markup})
        assert added.status == 200 and markup not in await added.text()  # the answering page escapes it
        renamed = await client.post(
            "/organiser/teams/gamma/display", data={CSRF_FIELD: csrf, "display": "Gamma \u03b3"}
        )
        assert renamed.status == 200  # after the redirect to /organiser
        control = await client.post("/organiser/teams/gamma/display", data={CSRF_FIELD: csrf, "display": "a\u0007b"})
        assert control.status == 422 and "no control" in await control.text()
        renewed = await client.post("/organiser/teams/alpha/token", data={CSRF_FIELD: csrf})
        fresh = re.search(r'data-testid="new-token">([^<]+)<', await renewed.text())
        assert fresh is not None and await repository.team_for_token(tokens["alpha"]) is None
        assert (await repository.team_for_token(fresh[1])) is not None
        sent = await client.post(f"{API}/submissions", data=form(bot_archive(BOT)), headers=auth(tokens["beta"]))
        assert sent.status == 201
        version: Version = queued[0]
        reason = "paused: it crashed or timed out in 3 of its 3 matches; the end of its log:\nTraceback"
        async with repository.engine.begin() as connection:  # as the ladder records a pause
            await connection.execute(
                standings.insert().values(version_id=version.id, mu=25.0, sigma=8.0, games=0, faulty=0, paused=reason)
            )
        data = await (await client.get("/data/organiser")).json()
        assert [(t["name"], t["display"]) for t in data["teams"]] == [
            ("alpha", "alpha"),
            ("beta", "beta"),
            ("delta", markup),
            ("gamma", "Gamma \u03b3"),
        ]
        board = await (await client.get("/data/leaderboard")).json()
        assert [row["display"] for row in board["teams"] if row["team"] == "delta"] == [markup]
        assert (await (await client.get("/data/teams/delta")).json())["display"] == markup
        assert data["paused"] == [{"team": "beta", "version": "v1", "games": 0, "faulty": 0, "reason": reason}]
        frozen = await client.post("/organiser/freeze", data={CSRF_FIELD: csrf}, allow_redirects=False)
        assert frozen.status == 303 and await repository.frozen_at() is not None
        assert "Frozen since" in await (await client.get("/organiser")).text()

    run_pages(f"sqlite+aiosqlite:///{tmp_path / 'arena.db'}", tmp_path / "storage", scenario)


def test_the_finals_page_shows_the_commitment_first_then_the_seed_checked_against_it(tmp_path: Path) -> None:
    storage = tmp_path / "storage"
    folder = finals_folder(storage, "final")
    (folder / "logs").mkdir(parents=True)
    (folder / "logs" / "alpha-v1.0.log").write_text("a bot's log\n")
    (folder / "standings.txt").write_text("1. alpha\n")
    seed = "kept secret until the end"
    record = {"name": "final", "state": "playing", "entrants": {"alpha": "v1"}, "ranking": {}, "standings": []}
    record |= {"seed_sha256": commitment(seed), "seed": None, "files": []}
    (folder / FINALS_JSON).write_text(json.dumps(record))

    async def scenario(client: TestClient[Any, Any], _r: Repository, _t: dict[str, str], _q: Any) -> None:
        [playing] = await (await client.get("/data/finals")).json()
        assert playing["seed"] is None and playing["seed_sha256"] == commitment(seed)
        assert playing["seed_matches"] is None
        assert (await client.get("/finals/final/files/standings.txt")).status == 404, "nothing published while playing"
        (folder / FINALS_JSON).write_text(
            json.dumps(record | {"state": "done", "seed": seed, "files": ["standings.txt"]})
        )
        [done] = await (await client.get("/data/finals")).json()
        assert done["seed"] == seed and done["seed_matches"] is True
        assert await (await client.get("/finals/final/files/standings.txt")).text() == "1. alpha\n"
        for path in ("logs/alpha-v1.0.log", "../../arena.db", "nothing.txt"):
            assert (await client.get(f"/finals/final/files/{path}")).status == 404, path
        (folder / FINALS_JSON).write_text(json.dumps(record | {"state": "done", "seed": "another"}))
        assert (await (await client.get("/data/finals")).json())[0]["seed_matches"] is False

    run_pages(f"sqlite+aiosqlite:///{tmp_path / 'arena.db'}", storage, scenario)


def test_the_house_bot_gets_no_token_and_no_display_name(tmp_path: Path) -> None:
    """Issue 33 (11): the organiser's page offered "new token" and "rename" for the house bot."""

    async def scenario(
        client: TestClient[Any, Any], repository: Repository, tokens: dict[str, str], queued: Any
    ) -> None:
        await LadderStore(repository).ensure_house(("python3", "house.py"))
        _, csrf = await login(client, tokens["organiser"])
        data = await (await client.get("/data/organiser")).json()
        assert {t["name"]: t["house"] for t in data["teams"]} == {"alpha": False, "beta": False, "house": True}
        token = await client.post("/organiser/teams/house/token", data={CSRF_FIELD: csrf})
        assert (
            token.status == 404
            and "'house' is the arena's house bot, not a team: it has no token" in await token.text()
        )
        renamed = await client.post("/organiser/teams/house/display", data={CSRF_FIELD: csrf, "display": "Casa"})
        assert renamed.status == 422 and "it keeps its name" in await renamed.text()
        assert [t.shown for t in await repository.teams() if t.name == "house"] == ["house"]

    run_pages(f"sqlite+aiosqlite:///{tmp_path / 'arena.db'}", tmp_path / "storage", scenario)


def _conforms(value: Any, schema: dict[str, Any], document: dict[str, Any], where: str = "") -> list[str]:
    """What in ``value`` the schema's required keys, types and items miss (a small subset of JSON Schema)."""
    if "$ref" in schema:
        schema = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    problems = [p for part in schema.get("allOf", []) for p in _conforms(value, part, document, where)]
    kinds = schema.get("type")
    kinds = [kinds] if isinstance(kinds, str) else kinds or []
    names = {"object": dict, "array": list, "string": str, "integer": int, "number": (int, float), "boolean": bool}
    if value is None:
        return problems if "null" in kinds or not kinds else [*problems, f"{where}: null"]
    if kinds and not any(isinstance(value, names[k]) for k in kinds if k != "null"):
        return [*problems, f"{where}: {type(value).__name__} is not {kinds}"]
    if isinstance(value, dict):
        problems += [f"{where}.{key}: missing" for key in schema.get("required", []) if key not in value]
        for key, sub in schema.get("properties", {}).items():
            if key in value:
                problems += _conforms(value[key], sub, document, f"{where}.{key}")
    if isinstance(value, list) and "items" in schema:
        for k, item in enumerate(value):
            problems += _conforms(item, schema["items"], document, f"{where}[{k}]")
    return problems


def test_the_pages_data_routes_are_described_in_their_own_openapi_document(tmp_path: Path) -> None:
    """Issue 33 (12): the matches list the pages read (/data/matches) was in no OpenAPI document."""
    document = yaml.safe_load(DATA_OPENAPI.read_text(encoding="utf-8"))

    async def scenario(
        client: TestClient[Any, Any], repository: Repository, tokens: dict[str, str], queued: Any
    ) -> None:
        routes = client.server.app.router.routes()  # type: ignore[attr-defined]
        served = {r.resource.canonical for r in routes if r.method == "GET" and r.resource is not None}
        assert {"/data" + path for path in document["paths"]} == {p for p in served if p.startswith("/data/")}
        served_document = await client.get("/data/openapi.yaml")  # public, as the pages' data is
        assert served_document.status == 200 and yaml.safe_load(await served_document.text()) == document
        alpha = next(t for t in await repository.teams() if t.name == "alpha")
        version, _ = await repository.add_version(
            alpha, digest="a" * 64, files=1, size=1, protocol="grpc", run=("bot",), build=None
        )
        await repository.set_state(version, BuildState.READY)
        await repository.activate(alpha, version.number)
        match_id = await _played_match(repository, tmp_path / "storage", version)
        await login(client, tokens["organiser"])  # who sees the match's hands too
        for path in ("/leaderboard", "/matches", f"/matches/{match_id}", "/teams/alpha", "/finals", "/organiser"):
            body = await (await client.get("/data" + path)).json()
            template = re.sub(r"^/matches/\d+$", "/matches/{id}", path).replace("/teams/alpha", "/teams/{name}")
            shape = document["paths"][template]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
            assert _conforms(body, shape, document, path) == [], body
        assert body["teams"] and (await (await client.get(f"/data/matches/{match_id}")).json())["hands_shown"]

    run_pages(f"sqlite+aiosqlite:///{tmp_path / 'arena.db'}", tmp_path / "storage", scenario)
