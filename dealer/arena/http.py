"""The arena's HTTP API (``/api/v1``, JSON, bearer tokens): thin aiohttp routes over the repository.

Every route but ``GET /api/v1/openapi.yaml`` needs a token: a team's routes answer about that
team alone (its versions are looked up under it, so another team's are never found: 404, as for
a version that does not exist), the organiser's routes refuse team tokens (403). A request
without a valid token is 401. Errors are ``{"error": "one line"}``. ``openapi.yaml`` beside this
module describes every route (a test holds the two together).
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, NoReturn

from aiohttp import BodyPartReader, web
from aiohttp.http_exceptions import HttpProcessingError

from dealer.arena.archive import MB
from dealer.arena.config import ArenaConfig
from dealer.arena.ladder import version_bb100
from dealer.arena.model import MATCH_WORDS, Refusal, RefusedError, Version, token_digest
from dealer.arena.services import BOT_LOG_SHOWN, Arena, Caller
from dealer.arena.sessions import CSRF_HEADER, SAFE_METHODS, SESSIONS, Sessions, csrf_ok, request_session
from dealer.arena.store.ladder import Planned
from dealer.arena.store.teams import Repository
from dealer.arena.toolchains import BASIC

LOGGER = logging.getLogger(__name__)
API = "/api/v1"
OPENAPI = Path(__file__).resolve().parent / "openapi.yaml"
REPOSITORY = web.AppKey("repository", Repository)
CONFIG = web.AppKey("config", ArenaConfig)
QUEUED: web.AppKey[Callable[[Version], None]] = web.AppKey("queued")
REQUESTED: web.AppKey[Callable[[Planned], None]] = web.AppKey("requested")
ARENA = web.AppKey("arena", Arena)  # the use cases: every route below is a presenter of one of them
CALLER: web.RequestKey[Caller] = web.RequestKey("caller")  # who sent the request (services.resolve)


def _fail(status: type[web.HTTPError], message: str, **headers: str) -> NoReturn:
    """End the request with ``status`` and ``{"error": message}``."""
    raise status(text=json.dumps({"error": message}), content_type="application/json", headers=headers)


STATUSES: dict[Refusal, type[web.HTTPError]] = {
    Refusal.UNKNOWN: web.HTTPUnauthorized,
    Refusal.FORBIDDEN: web.HTTPForbidden,
    Refusal.NOT_FOUND: web.HTTPNotFound,
    Refusal.CONFLICT: web.HTTPConflict,
    Refusal.TOO_MANY: web.HTTPTooManyRequests,
    Refusal.INVALID: web.HTTPUnprocessableEntity,
}
"""The HTTP status of each refusal of the use cases: the one place a refusal becomes a status."""


def refused(error: RefusedError) -> NoReturn:
    """End the request with the status of ``error``'s refusal, its line, and when to try again."""
    headers = {"Retry-After": str(int(error.retry_after_s) + 1)} if error.retry_after_s > 0 else {}
    _fail(STATUSES[error.refusal], str(error), **headers)


@web.middleware
async def refusals(request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> Any:
    """Answer a use case's refusal (``RefusedError``) with its status, for the API and the pages alike."""
    try:
        return await handler(request)
    except RefusedError as error:
        refused(error)


def _bearer(request: web.Request) -> str:
    """The request's bearer token, or a 401."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        _fail(web.HTTPUnauthorized, "missing token: send 'Authorization: Bearer TOKEN'")
    return token.strip()


@web.middleware
async def _authenticate(request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> Any:
    """Put the caller (a team or the organiser) on the request; a bad token is a 401. A
    browser logged in to the web pages is known by its session cookie instead of a bearer token."""
    if request.path == f"{API}/openapi.yaml" or not request.path.startswith(f"{API}/"):
        return await handler(request)  # the web pages check their own sessions (dealer/arena/pages.py)
    session = request_session(request) if "Authorization" not in request.headers else None
    if session is None:
        digest = token_digest(_bearer(request))
    elif request.method in SAFE_METHODS or csrf_ok(session, request.headers.get(CSRF_HEADER)):
        digest = session.token_sha256  # the web pages' own requests: the cookie of a logged-in browser
    else:
        _fail(web.HTTPForbidden, f"a request of the web pages must send the session's {CSRF_HEADER}")
    caller = await request.app[ARENA].resolve(digest)
    if caller is None:
        _fail(web.HTTPUnauthorized, "unknown token")
    request[CALLER] = caller
    return await handler(request)


def _arena(request: web.Request) -> tuple[Arena, Caller]:
    """The use cases and the request's caller (the API's middleware put it there)."""
    return request.app[ARENA], request[CALLER]


def version_json(version: Version) -> dict[str, object]:
    """A version as the API shows it to its own team."""
    return {
        "version": version.number,
        "label": version.label,
        "sha256": version.digest,
        "files": version.files,
        "size": version.size,
        "protocol": version.protocol,
        "build": version.build,
        "run": list(version.run),
        "state": str(version.state),
        "smoke": version.smoke,
        "created_at": version.created_at.isoformat(),
    }


async def _openapi(_request: web.Request) -> web.Response:
    text = await asyncio.to_thread(OPENAPI.read_text, encoding="utf-8")
    return web.Response(text=text, content_type="application/yaml")


async def _me(request: web.Request) -> web.Response:
    arena, caller = _arena(request)
    team = arena.team(caller)
    return web.json_response({"name": team.name, "active_version": team.active_version})


async def _teams(request: web.Request) -> web.Response:
    arena, caller = _arena(request)
    teams = await arena.teams(caller)
    return web.json_response(
        [{"name": t.name, "created_at": t.created_at.isoformat(), "active_version": t.active_version} for t in teams]
    )


SUBMISSIONS = f"{API}/submissions"


@web.middleware
async def limit_body(request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> Any:
    """Refuse a body larger than its route takes before reading a byte of it (413, and the
    connection closed): ``http.max_body_kb`` on every route but a submission, whose archive
    may be ``max_archive_mb`` (and is counted again as it streams in: a chunked body has no length).
    Every other body is read here, within ``http.body_timeout_s`` (408 past it) and held to the
    same limit as it is read (the application's ``client_max_size``), before the route sees it."""
    config = request.app[CONFIG]
    submission = request.method == "POST" and request.path == SUBMISSIONS
    limit = (config.submissions.max_archive_mb + 1) * MB if submission else config.http.max_body_kb * 1024
    too_large = (
        f"the archive is larger than {config.submissions.max_archive_mb} MB"
        if submission
        else f"the body is larger than {config.http.max_body_kb} KB, the most this route takes"
    )
    if request.content_length is not None and request.content_length > limit:
        return _refusal(413, too_large)
    if not submission and request.body_exists:
        try:
            async with asyncio.timeout(config.http.body_timeout_s):
                await request.read()  # kept by aiohttp for the route's json() or post()
        except TimeoutError:
            return _refusal(408, f"the body took more than {config.http.body_timeout_s} s to arrive")
        except web.HTTPRequestEntityTooLarge:
            return _refusal(413, too_large)
    return await handler(request)


def _refusal(status: int, message: str) -> web.Response:
    """``{"error": message}`` with ``status``, closing the connection (its body is not read further)."""
    response = web.json_response({"error": message}, status=status)
    response.force_close()
    return response


MALFORMED = (ValueError, KeyError, AssertionError, HttpProcessingError)
"""What aiohttp's multipart reader raises for a malformed form: no boundary, a broken or too long part header."""


def _malformed(error: BaseException) -> NoReturn:
    """A 400 for a malformed multipart body, its reason in one short line (never the raw bytes)."""
    reason = error.message if isinstance(error, HttpProcessingError) else str(error)
    _fail(web.HTTPBadRequest, f"not a multipart/form-data body: {' '.join(str(reason).split())[:120]}")


async def _read_archive(request: web.Request, limit: int, into: Path) -> None:
    """Stream the multipart field ``archive``, which must come first, into the file ``into`` (413
    past ``limit`` bytes, 400 for a malformed form); never more than a chunk in memory."""
    if not request.content_type.startswith("multipart/"):
        _fail(web.HTTPBadRequest, "send the archive as multipart/form-data, in a field named 'archive'")
    try:
        reader = await request.multipart()
        part = await reader.next()
    except MALFORMED as error:
        _malformed(error)
    if not isinstance(part, BodyPartReader) or part.name != "archive":
        _fail(web.HTTPBadRequest, "no field named 'archive' in the form")
    size = 0
    with open(os.open(into, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600), "wb") as out:
        while True:
            try:
                chunk = await part.read_chunk(64 * 1024)
            except MALFORMED as error:
                _malformed(error)
            if not chunk:
                break
            size += len(chunk)
            if size > limit:
                raise web.HTTPRequestEntityTooLarge(
                    limit,
                    size,
                    text=json.dumps({"error": f"the archive is larger than {limit // MB} MB"}),
                    content_type="application/json",
                )
            out.write(chunk)


async def _submit(request: web.Request) -> web.Response:
    arena, caller = _arena(request)
    config = request.app[CONFIG]

    async def receive(upload: Path) -> None:
        try:
            async with asyncio.timeout(config.http.body_timeout_s):
                await _read_archive(request, config.submissions.max_archive_mb * MB, upload)
        except TimeoutError:
            _fail(web.HTTPRequestTimeout, f"the archive took more than {config.http.body_timeout_s} s to arrive")

    version, new = await arena.submit(caller, receive)
    return web.json_response({**version_json(version), "new": new}, status=201 if new else 200)


def _number(request: web.Request) -> tuple[int | None, str]:
    """The version number in the path (``3`` or ``v3``; None: not a number), and the path's text."""
    asked = request.match_info["number"]
    text = asked.removeprefix("v")
    return (int(text) if text.isdigit() and len(text) <= 9 else None), asked


async def _versions(request: web.Request) -> web.Response:
    arena, caller = _arena(request)
    return web.json_response([version_json(v) for v in await arena.versions(caller)])


async def _version(request: web.Request) -> web.Response:
    arena, caller = _arena(request)
    return web.json_response(version_json(await arena.version(caller, *_number(request))))


async def _build(request: web.Request) -> web.Response:
    arena, caller = _arena(request)
    version, text = await arena.build_log(caller, *_number(request))
    return web.json_response(
        {"version": version.number, "state": str(version.state), "smoke": version.smoke, "log": text}
    )


async def _bot_log(request: web.Request) -> web.Response:
    arena, caller = _arena(request)
    version, text = await arena.smoke_log(caller, *_number(request))
    return web.json_response(
        {"version": version.number, "log": text[:BOT_LOG_SHOWN], "truncated": len(text) > BOT_LOG_SHOWN}
    )


async def _toolchains(request: web.Request) -> web.Response:
    arena, caller = _arena(request)
    offered = await arena.toolchains(caller)
    return web.json_response(
        {
            "toolchains": [
                {"name": str(o.toolchain), "commands": list(o.commands), "available": o.available} for o in offered
            ],
            "basic": list(BASIC),
        }
    )


async def _finals_list(request: web.Request) -> web.Response:
    arena, caller = _arena(request)
    arena.team(caller)
    found = await asyncio.to_thread(arena.finals_list)
    keys = ("name", "state", "seed_sha256", "seed")
    return web.json_response([{key: f.record.get(key) for key in keys} for f in found])


async def _finals(request: web.Request) -> web.Response:
    arena, caller = _arena(request)
    arena.team(caller)
    return web.json_response((await asyncio.to_thread(arena.finals, request.match_info["name"])).record)


async def _finals_file(request: web.Request) -> web.StreamResponse:
    arena, caller = _arena(request)
    arena.team(caller)
    path = await asyncio.to_thread(arena.finals_file, request.match_info["name"], request.match_info["path"])
    return web.FileResponse(path, headers={"Content-Type": "text/plain; charset=utf-8"})


async def _activate(request: web.Request) -> web.Response:
    arena, caller = _arena(request)
    arena.team(caller)
    body = await _json_body(request, '{"version": N}')
    number = body.get("version")
    if not isinstance(number, int) or isinstance(number, bool):
        _fail(web.HTTPBadRequest, 'send JSON: {"version": N}')
    return web.json_response(version_json(await arena.activate(caller, number)))


async def _ladder(request: web.Request) -> web.Response:
    """The ladder's ranking: every team's active version by mu - k sigma (public to every team)."""
    arena, caller = _arena(request)
    arena.team(caller)
    k = request.app[CONFIG].ladder.k
    rows: list[dict[str, object]] = []
    for line in await arena.leaderboard():
        s = line.standing
        if s is None:
            continue  # no active version: not in the ladder
        rows.append(
            {
                "rank": len(rows) + 1,
                "team": line.team,
                "version": line.active_version,
                "mu": round(s.mu, 4),
                "sigma": round(s.sigma, 4),
                "score": round(s.score(k), 4),
                "games": s.games,
                "faulty": s.faulty,
                "paused": s.paused is not None,
            }
        )
    return web.json_response(rows)


async def _version_ladder(request: web.Request) -> web.Response:
    """One of the team's versions in the ladder: its standing, why it is paused (its log's last
    lines: this team's alone), its rating history, and bb/100 against each opponent version."""
    arena, caller = _arena(request)
    found = await arena.version_ladder(caller, *_number(request))
    standing, pairs = found.standing, found.pairs
    opponents = []
    overall = version_bb100(pairs)  # the leaderboard's figure: every opponent's groups together
    for name, number, groups in pairs:
        rate = groups.bb_per_100(1)  # the groups are summed in big blinds already
        low, high = rate.ci95()
        finite = all(math.isfinite(x) for x in (low, high))
        opponents.append(
            {
                "team": name,
                "version": number,
                "groups": rate.n,
                "bb_per_100": round(rate.mean, 3),
                "ci95": [round(low, 3), round(high, 3)] if finite else None,
            }
        )
    return web.json_response(
        {
            "version": found.version.number,
            "mu": standing.mu,
            "sigma": standing.sigma,
            "score": standing.score(request.app[CONFIG].ladder.k),
            "games": standing.games,
            "faulty": standing.faulty,
            "paused": standing.paused,
            "bb_per_100": None if overall is None else round(overall[0], 3),
            "ci95": None if overall is None else [round(overall[1], 3), round(overall[2], 3)],
            "groups": sum(groups.groups for _, _, groups in pairs),
            "history": [[seq, mu, sigma] for seq, mu, sigma in found.history],
            "opponents": opponents,
        }
    )


def scrimmage_json(planned: Planned) -> dict[str, object]:
    """A scrimmage as its two teams see it: who played, its state, and once over its hands, chips
    and faults by bot (never a bot's log: that is its own team's)."""
    result = planned.result
    return {
        "id": planned.id,
        "state": MATCH_WORDS[planned.state][0],
        "seats": [{"team": seat.team, "version": seat.version.number, "bot": seat.name} for seat in planned.seats],
        "hands": None if result is None else result.hands,
        "chips": None if result is None else result.net(),
        "faults": None if result is None else result.faults,
    }


async def _ask_scrimmage(request: web.Request) -> web.Response:
    arena, caller = _arena(request)
    arena.team(caller)
    body = await _json_body(request, '{"opponent": "TEAM"}')
    opponent = body.get("opponent")
    if not isinstance(opponent, str):
        _fail(web.HTTPBadRequest, 'send JSON: {"opponent": "TEAM"}')
    return web.json_response(scrimmage_json(await arena.ask_scrimmage(caller, opponent)), status=201)


async def _scrimmages(request: web.Request) -> web.Response:
    arena, caller = _arena(request)
    return web.json_response([scrimmage_json(p) for p in await arena.scrimmages(caller)])


async def _scrimmage(request: web.Request) -> web.Response:
    arena, caller = _arena(request)
    return web.json_response(scrimmage_json(await arena.scrimmage(caller, request.match_info["id"])))


async def _scrimmage_hands(request: web.Request) -> web.Response:
    arena, caller = _arena(request)
    return web.Response(text=await arena.scrimmage_hands(caller, request.match_info["id"]), content_type="text/plain")


async def _scrimmage_policy(request: web.Request) -> web.Response:
    arena, caller = _arena(request)
    accept = None
    if request.method == "PUT":
        arena.team(caller)
        body = await _json_body(request, '{"accept": true}')
        accept = body.get("accept")
        if not isinstance(accept, bool):
            _fail(web.HTTPBadRequest, 'send JSON: {"accept": true} or {"accept": false}')
    return web.json_response({"accept": await arena.scrimmage_policy(caller, accept)})


async def _json_body(request: web.Request, shape: str) -> dict[str, Any]:
    """The request's JSON object (its body bounded by ``client_max_size``), or a 400 saying what
    to send: not JSON, not an object, or nested too deep for the parser."""
    try:
        body = await request.json()
    except (ValueError, RecursionError):
        _fail(web.HTTPBadRequest, f"send JSON: {shape}")
    if not isinstance(body, dict):
        _fail(web.HTTPBadRequest, f"send JSON: {shape}")
    return body


def make_app(
    repository: Repository,
    config: ArenaConfig,
    queued: Callable[[Version], None],
    requested: Callable[[Planned], None] | None = None,
) -> web.Application:
    """The API's aiohttp application on ``repository``; ``queued`` is told of every new version,
    ``requested`` of every scrimmage asked for (the ladder plays it)."""
    app = web.Application(
        middlewares=[limit_body, _authenticate, refusals], client_max_size=config.http.max_body_kb * 1024
    )
    app[REPOSITORY] = repository
    app[CONFIG] = config
    app[ARENA] = Arena(repository, config, queued, requested or (lambda _planned: None))
    app[SESSIONS] = Sessions(config.http.sessions_per_token, config.http.logins_per_minute)
    app.router.add_get(f"{API}/openapi.yaml", _openapi)
    app.router.add_get(f"{API}/team", _me)
    app.router.add_get(f"{API}/teams", _teams)
    app.router.add_post(SUBMISSIONS, _submit)
    app.router.add_get(f"{API}/versions", _versions)
    app.router.add_get(f"{API}/versions/{{number}}", _version)
    app.router.add_get(f"{API}/versions/{{number}}/build", _build)
    app.router.add_get(f"{API}/versions/{{number}}/bot-log", _bot_log)
    app.router.add_put(f"{API}/active", _activate)
    app.router.add_get(f"{API}/toolchains", _toolchains)
    app.router.add_get(f"{API}/finals", _finals_list)
    app.router.add_get(f"{API}/finals/{{name}}", _finals)
    app.router.add_get(f"{API}/finals/{{name}}/files/{{path:.+}}", _finals_file)
    app.router.add_get(f"{API}/ladder", _ladder)
    app.router.add_get(f"{API}/versions/{{number}}/ladder", _version_ladder)
    app.router.add_post(f"{API}/scrimmages", _ask_scrimmage)
    app.router.add_get(f"{API}/scrimmages", _scrimmages)
    app.router.add_get(f"{API}/scrimmages/{{id}}", _scrimmage)
    app.router.add_get(f"{API}/scrimmages/{{id}}/hands", _scrimmage_hands)
    app.router.add_get(f"{API}/scrimmage-policy", _scrimmage_policy)
    app.router.add_put(f"{API}/scrimmage-policy", _scrimmage_policy)
    return app
