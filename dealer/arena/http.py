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
import secrets
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NoReturn

from aiohttp import BodyPartReader, web
from aiohttp.http_exceptions import HttpProcessingError

from dealer.arena.archive import MB, Unpacked, unpack
from dealer.arena.config import ArenaConfig
from dealer.arena.ladder_store import LadderStore, Planned
from dealer.arena.layout import FINALS_JSON, build_log, finals_folder, incoming, is_public, match_folder, smoke_bot_logs
from dealer.arena.model import TEAM_PATTERN as NAME
from dealer.arena.model import ArenaError, Refusal, RefusedError, Team, Version, frozen_line, token_digest
from dealer.arena.public import version_bb100
from dealer.arena.repository import Repository
from dealer.arena.services import BOT_LOG_SHOWN, Organiser, read_logs, resolve
from dealer.arena.sessions import CSRF_HEADER, SAFE_METHODS, SESSIONS, Sessions, csrf_ok, request_session
from dealer.arena.toolchains import BASIC, offers
from dealer.seeds import draw_seed

LOGGER = logging.getLogger(__name__)
API = "/api/v1"
OPENAPI = Path(__file__).resolve().parent / "openapi.yaml"
REPOSITORY = web.AppKey("repository", Repository)
CONFIG = web.AppKey("config", ArenaConfig)
QUEUED: web.AppKey[Callable[[Version], None]] = web.AppKey("queued")
REQUESTED: web.AppKey[Callable[[Planned], None]] = web.AppKey("requested")
TEAM: web.RequestKey[Team | None] = web.RequestKey("team")  # the caller's team (None: the organiser)
SUBMITTING: web.AppKey[set[int]] = web.AppKey("submitting")  # the teams whose archive is being read


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
    """Put the caller's team (or None for the organiser) on the request; a bad token is a 401. A
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
    caller = await resolve(request.app[REPOSITORY], digest)
    if caller is None:
        _fail(web.HTTPUnauthorized, "unknown token")
    request[TEAM] = None if isinstance(caller, Organiser) else caller
    return await handler(request)


def _team(request: web.Request) -> Team:
    """The calling team (a route for teams: the organiser's token is refused with a 403)."""
    team: Team | None = request[TEAM]
    if team is None:
        _fail(web.HTTPForbidden, "a team's route: use the team's token")
    return team


def _organiser(request: web.Request) -> None:
    """Refuse a team's token on an organiser's route (403)."""
    if request[TEAM] is not None:
        _fail(web.HTTPForbidden, "an organiser's route: a team's token cannot use it")


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
    return web.Response(text=OPENAPI.read_text(encoding="utf-8"), content_type="application/yaml")


async def _me(request: web.Request) -> web.Response:
    team = _team(request)
    return web.json_response({"name": team.name, "active_version": team.active_version})


async def _teams(request: web.Request) -> web.Response:
    _organiser(request)
    teams = await request.app[REPOSITORY].teams()
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
    team = _team(request)
    config = request.app[CONFIG]
    frozen = await request.app[REPOSITORY].frozen_at()
    if frozen is not None:
        _fail(web.HTTPConflict, frozen_line(frozen))
    wait = await request.app[REPOSITORY].submission_wait(team, config.submissions.per_hour, datetime.now(UTC))
    if wait > 0:
        _fail(
            web.HTTPTooManyRequests,
            f"at most {config.submissions.per_hour} submissions an hour: try again in {wait:.0f} s",
            **{"Retry-After": str(int(wait) + 1)},
        )
    busy = request.app[SUBMITTING]
    if team.id in busy:
        _fail(web.HTTPConflict, "another submission of your team is being read: one at a time", **{"Retry-After": "5"})
    busy.add(team.id)
    upload = incoming(config.storage) / f"upload-{secrets.token_hex(8)}"
    try:
        upload.parent.mkdir(parents=True, exist_ok=True)
        try:
            async with asyncio.timeout(config.http.body_timeout_s):
                await _read_archive(request, config.submissions.max_archive_mb * MB, upload)
        except TimeoutError:
            _fail(web.HTTPRequestTimeout, f"the archive took more than {config.http.body_timeout_s} s to arrive")
        try:
            stored = await asyncio.to_thread(unpack, upload, config.storage, config.submissions)
        except ArenaError as error:
            LOGGER.info("team %s: submission refused: %s", team.name, error)
            _fail(web.HTTPUnprocessableEntity, str(error))
        return await _record(request, team, stored)
    finally:
        busy.discard(team.id)
        upload.unlink(missing_ok=True)


async def _record(request: web.Request, team: Team, stored: Unpacked) -> web.Response:
    """Record an unpacked submission as the team's next version (or the earlier one of the same files)."""
    manifest = stored.manifest
    try:
        version, new = await request.app[REPOSITORY].add_version(
            team,
            digest=stored.digest,
            files=stored.files,
            size=stored.size,
            protocol=str(manifest.protocol),
            run=manifest.run,
            build=manifest.build,
        )
    except ArenaError as error:  # frozen while this one was read
        _fail(web.HTTPConflict, str(error))
    LOGGER.info("team %s: %s %s (%s)", team.name, version.label, "stored" if new else "resubmitted", version.digest)
    if new:
        request.app[QUEUED](version)
    return web.json_response({**version_json(version), "new": new}, status=201 if new else 200)


def _number(request: web.Request) -> int:
    """The version number in the path (``3`` or ``v3``), or a 404."""
    text = request.match_info["number"].removeprefix("v")
    if not text.isdigit() or len(text) > 9:
        _fail(web.HTTPNotFound, f"no version {request.match_info['number']!r}")
    return int(text)


async def _versions(request: web.Request) -> web.Response:
    team = _team(request)
    return web.json_response([version_json(v) for v in await request.app[REPOSITORY].versions(team)])


async def _version(request: web.Request) -> web.Response:
    team = _team(request)
    version = await request.app[REPOSITORY].version(team, _number(request))
    if version is None:
        _fail(web.HTTPNotFound, f"no version {request.match_info['number']!r}")
    return web.json_response(version_json(version))


async def _build(request: web.Request) -> web.Response:
    team = _team(request)
    version = await request.app[REPOSITORY].version(team, _number(request))
    if version is None:
        _fail(web.HTTPNotFound, f"no version {request.match_info['number']!r}")
    log = build_log(request.app[CONFIG].storage, version)
    try:
        text = log.read_bytes().decode("utf-8", "replace")
    except FileNotFoundError:  # queued: not started yet
        text = ""
    return web.json_response(
        {"version": version.number, "state": str(version.state), "smoke": version.smoke, "log": text}
    )


async def _bot_log(request: web.Request) -> web.Response:
    team = _team(request)
    version = await request.app[REPOSITORY].version(team, _number(request))
    if version is None:
        _fail(web.HTTPNotFound, f"no version {request.match_info['number']!r}")
    parts = await asyncio.to_thread(read_logs, smoke_bot_logs(request.app[CONFIG].storage, version))
    text = "".join(parts)
    return web.json_response(
        {"version": version.number, "log": text[:BOT_LOG_SHOWN], "truncated": len(text) > BOT_LOG_SHOWN}
    )


async def _toolchains(request: web.Request) -> web.Response:
    _team(request)
    offered = await asyncio.to_thread(offers, request.app[CONFIG].build.toolchains)
    return web.json_response(
        {
            "toolchains": [
                {"name": str(o.toolchain), "commands": list(o.commands), "available": o.available} for o in offered
            ],
            "basic": list(BASIC),
        }
    )


def _finals_record(request: web.Request, name: str) -> tuple[Path, dict[str, Any]]:
    """The folder and public record of the finals ``name``, or a 404."""
    folder = finals_folder(request.app[CONFIG].storage, name)
    try:
        record = json.loads((folder / FINALS_JSON).read_text(encoding="utf-8")) if NAME.fullmatch(name) else None
    except (OSError, ValueError):
        record = None
    if not isinstance(record, dict):
        _fail(web.HTTPNotFound, f"no finals {name!r}")
    return folder, record


async def _finals_list(request: web.Request) -> web.Response:
    _team(request)
    root = finals_folder(request.app[CONFIG].storage, "")
    names = sorted(p.name for p in root.iterdir() if (p / FINALS_JSON).is_file()) if root.is_dir() else []
    found = [_finals_record(request, name)[1] for name in names]
    keys = ("name", "state", "seed_sha256", "seed")
    return web.json_response([{key: record.get(key) for key in keys} for record in found])


async def _finals(request: web.Request) -> web.Response:
    _team(request)
    return web.json_response(_finals_record(request, request.match_info["name"])[1])


async def _finals_file(request: web.Request) -> web.StreamResponse:
    _team(request)
    name, relative = request.match_info["name"], request.match_info["path"]
    folder, record = _finals_record(request, name)
    if record.get("state") != "done":
        _fail(web.HTTPConflict, f"the finals {name!r} are still playing: their files are published when they end")
    path = folder / relative
    if not is_public(relative) or path.is_symlink() or not path.is_file():
        _fail(web.HTTPNotFound, f"no published file {relative!r} in the finals {name!r}")
    return web.FileResponse(path, headers={"Content-Type": "text/plain; charset=utf-8"})


MATCH_DIGITS = 18  # a match id in a path: 64-bit (repository.MATCH_ID), so 18 digits always fit
VERSION_MAX = 999_999_999  # the largest version number a path or a body may name (nine digits)


async def _activate(request: web.Request) -> web.Response:
    team = _team(request)
    body = await _json_body(request, '{"version": N}')
    number = body.get("version")
    if not isinstance(number, int) or isinstance(number, bool):
        _fail(web.HTTPBadRequest, 'send JSON: {"version": N}')
    if not 1 <= number <= VERSION_MAX:
        _fail(web.HTTPNotFound, f"no version {number if abs(number) < 10**12 else 'of that size'}")
    try:
        version = await request.app[REPOSITORY].activate(team, number)
    except ArenaError as error:
        _fail(web.HTTPConflict, str(error))
    return web.json_response(version_json(version))


def _store(request: web.Request) -> LadderStore:
    return LadderStore(request.app[REPOSITORY])


async def _ladder(request: web.Request) -> web.Response:
    """The ladder's ranking: every team's active version by mu - k sigma (public to every team)."""
    _team(request)
    k = request.app[CONFIG].ladder.k
    board = sorted(await _store(request).leaderboard(), key=lambda e: (-e[1].score(k), e[0].name))
    return web.json_response(
        [
            {
                "rank": place,
                "team": team.name,
                "version": team.active_version,
                "mu": round(s.mu, 4),
                "sigma": round(s.sigma, 4),
                "score": round(s.score(k), 4),
                "games": s.games,
                "faulty": s.faulty,
                "paused": s.paused is not None,
            }
            for place, (team, s) in enumerate(board, 1)
        ]
    )


async def _version_ladder(request: web.Request) -> web.Response:
    """One of the team's versions in the ladder: its standing, why it is paused (its log's last
    lines: this team's alone), its rating history, and bb/100 against each opponent version."""
    team = _team(request)
    version = await request.app[REPOSITORY].version(team, _number(request))
    if version is None:
        _fail(web.HTTPNotFound, f"no version {request.match_info['number']!r}")
    store, config = _store(request), request.app[CONFIG]
    standing = (await store.standings_of([version.id]))[version.id]
    opponents = []
    pairs = await store.pair_groups(version.id)
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
            "version": version.number,
            "mu": standing.mu,
            "sigma": standing.sigma,
            "score": standing.score(config.ladder.k),
            "games": standing.games,
            "faulty": standing.faulty,
            "paused": standing.paused,
            "bb_per_100": None if overall is None else round(overall[0], 3),
            "ci95": None if overall is None else [round(overall[1], 3), round(overall[2], 3)],
            "groups": sum(groups.groups for _, _, groups in pairs),
            "history": [[seq, mu, sigma] for seq, mu, sigma in await store.history(version.id)],
            "opponents": opponents,
        }
    )


def scrimmage_json(planned: Planned) -> dict[str, object]:
    """A scrimmage as its two teams see it: who played, its state, and once over its hands, chips
    and faults by bot (never a bot's log: that is its own team's)."""
    result = planned.result
    return {
        "id": planned.id,
        "state": "done" if planned.state == "done" else "running" if planned.state == "running" else "queued",
        "seats": [{"team": seat.team, "version": seat.version.number, "bot": seat.name} for seat in planned.seats],
        "hands": None if result is None else result.hands,
        "chips": None if result is None else result.net(),
        "faults": None if result is None else result.faults,
    }


async def _ask_scrimmage(request: web.Request) -> web.Response:
    team = _team(request)
    body = await _json_body(request, '{"opponent": "TEAM"}')
    opponent = body.get("opponent")
    if not isinstance(opponent, str):
        _fail(web.HTTPBadRequest, 'send JSON: {"opponent": "TEAM"}')
    per_hour = request.app[CONFIG].ladder.scrimmages_per_hour
    try:
        planned = await _store(request).request_scrimmage(team, opponent, per_hour, draw_seed())
    except RefusedError as error:
        refused(error)
    LOGGER.info("team %s: scrimmage %d against %s asked for", team.name, planned.id, opponent)
    request.app[REQUESTED](planned)
    return web.json_response(scrimmage_json(planned), status=201)


async def _scrimmages(request: web.Request) -> web.Response:
    team = _team(request)
    return web.json_response([scrimmage_json(p) for p in await _store(request).scrimmages(team)])


async def _one_scrimmage(request: web.Request) -> Planned:
    """The scrimmage of the path, if the calling team played in it (else a 404, as for none)."""
    team = _team(request)
    text = request.match_info["id"]
    found = await _store(request).scrimmages(team, int(text)) if text.isdigit() and len(text) <= MATCH_DIGITS else []
    if not found:
        _fail(web.HTTPNotFound, f"no scrimmage {text!r} of your team")
    return found[0]


async def _scrimmage(request: web.Request) -> web.Response:
    return web.json_response(scrimmage_json(await _one_scrimmage(request)))


async def _scrimmage_hands(request: web.Request) -> web.Response:
    planned = await _one_scrimmage(request)
    if planned.state != "done":
        _fail(web.HTTPConflict, f"scrimmage {planned.id} is not over: its hands are shown once it is")
    folder = match_folder(request.app[CONFIG].storage, planned.id) / "hands"
    files = sorted(folder.glob("*.phhs")) if folder.is_dir() else []
    text = "".join(path.read_text(encoding="utf-8") for path in files)
    return web.Response(text=text, content_type="text/plain")


async def _scrimmage_policy(request: web.Request) -> web.Response:
    team = _team(request)
    if request.method == "PUT":
        body = await _json_body(request, '{"accept": true}')
        accept = body.get("accept")
        if not isinstance(accept, bool):
            _fail(web.HTTPBadRequest, 'send JSON: {"accept": true} or {"accept": false}')
        await _store(request).set_scrimmages(team, accept)
    return web.json_response({"accept": await _store(request).accepts_scrimmages(team)})


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
    app[QUEUED] = queued
    app[SESSIONS] = Sessions(config.http.sessions_per_token, config.http.logins_per_minute)
    app[SUBMITTING] = set()
    app[REQUESTED] = requested or (lambda _planned: None)
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
