"""The arena's web pages: public (leaderboard, a team's page) and private (a team's own, the organiser's).

Each page is a fixed HTML shell (``_shell``: no text of a team's is ever in its markup) that
``static/arena.js`` fills from JSON with text nodes only: the public data from ``/data/...`` here,
a logged-in team's own from the API (``/api/v1``, which knows the browser by its session cookie,
``dealer.arena.sessions``). Every response carries a Content-Security-Policy without
'unsafe-inline' (scripts and styles from this server's files alone), so even markup that slipped
through would run nothing. The league's stylesheet, DOM helpers and uPlot are served from
``dealer/web/static`` as they are, not copied.
"""

from __future__ import annotations

import asyncio
import html
import logging
import secrets
from collections.abc import Awaitable, Callable
from datetime import datetime
from pathlib import Path
from urllib.parse import quote

from aiohttp import web

from dealer.arena.http import ARENA, CONFIG
from dealer.arena.model import MATCH_WORDS, RefusedError, Team, token_digest
from dealer.arena.public import duplicate_groups
from dealer.arena.services import BOT_LOG_SHOWN, Caller, Organiser, Public
from dealer.arena.sessions import (
    COOKIE,
    CSRF_FIELD,
    LOGIN_COOKIE,
    SESSION_S,
    SESSIONS,
    Session,
    csrf_ok,
    request_session,
    set_cookie,
)
from dealer.arena.store.reads import MatchLine
from dealer.web.view import replay

LOGGER = logging.getLogger(__name__)
STATIC = Path(__file__).resolve().parent / "static"
DATA_OPENAPI = STATIC.parent / "data-openapi.yaml"  # the document of the /data routes below
WEB_STATIC = STATIC.parent.parent / "web" / "static"  # the league page's files (dealer.web), served as they are
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "X-Frame-Options": "DENY",
}
STYLES = ("/static/web/app.css", "/static/web/vendor/uPlot.min.css", "/static/arena/arena.css")
SCRIPTS = (
    "/static/web/vendor/uPlot.iife.min.js",
    "/static/web/dom.js",  # el(): every text as a text node
    "/static/web/table.js",  # a hand on the felt, stepped through
    "/static/arena/arena.js",
)


@web.middleware
async def security_headers(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    """The same protective headers on every response of the arena, its API's and errors included."""
    try:
        response = await handler(request)
    except web.HTTPException as error:
        error.headers.update(HEADERS)
        raise
    response.headers.update(HEADERS)
    return response


class Viewer:
    """Who is looking at a page: a team, the organiser, or nobody logged in (the public)."""

    def __init__(self, session: Session | None, caller: Caller) -> None:
        self.session, self.caller = session, caller
        self.team = caller if isinstance(caller, Team) else None
        self.organiser = isinstance(caller, Organiser)


async def viewer(request: web.Request) -> Viewer:
    """The viewer of ``request``, from its session cookie (a session whose token was replaced is none)."""
    session = request_session(request)
    caller = None if session is None else await request.app[ARENA].resolve(session.token_sha256)
    return Viewer(None, Public()) if session is None or caller is None else Viewer(session, caller)


def shell(title: str, page: str, who: Viewer, *, source: str = "", body: str = "", status: int = 200) -> web.Response:
    """A page: the navigation, ``body`` (fixed markup of ours) and the script that fills ``main``
    from ``source``. ``title`` and ``source`` are escaped; neither is ever a team's text unescaped."""
    csrf = who.session.csrf if who.session is not None else ""
    if who.team is not None or who.organiser:
        mine = '<a href="/team">My team</a>' if who.team is not None else '<a href="/organiser">Organiser</a>'
        account = (
            f'{mine}<form method="post" action="/logout" class="inline">'
            f'<input type="hidden" name="{CSRF_FIELD}" value="{csrf}"><button type="submit">Log out</button></form>'
        )
    else:
        account = '<a href="/login">Log in</a>'
    styles = "".join(f'<link rel="stylesheet" href="{href}">' for href in STYLES)
    scripts = "".join(f'<script src="{src}" defer></script>' for src in SCRIPTS)
    text = f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf" content="{csrf}">
<link rel="icon" href="data:,">
<title>{html.escape(title)} · arena</title>
{styles}{scripts}
</head>
<body data-page="{page}" data-source="{html.escape(source, quote=True)}">
<a class="skip" href="#main">Skip to the content</a>
<header class="arena"><nav aria-label="arena">
<a href="/leaderboard" class="brand">Hold'em arena</a>
<a href="/leaderboard">Leaderboard</a><a href="/matches">Matches</a><a href="/finals">Finals</a>
<span class="account">{account}</span>
</nav></header>
<main id="main" tabindex="-1"><h1 id="title">{html.escape(title)}</h1>{body}
<div id="content" aria-live="polite"></div></main>
</body>
</html>
"""
    return web.Response(text=text, content_type="text/html", status=status, headers={"Cache-Control": "no-store"})


LOGIN_FORM = """<form method="post" action="/login" class="login">
<input type="hidden" name="{field}" value="{csrf}">
<label for="token">Your team's token (or the organiser's)</label>
<input id="token" name="token" type="password" autocomplete="current-password" required spellcheck="false">
<button type="submit">Log in</button>
</form><p class="muted">The token is the one <code>dealer arena team add</code> printed. It is sent in the form's
body only, never in a URL, and the server keeps its SHA-256 alone.</p>"""


def _login_page(request: web.Request, who: Viewer, message: str = "", status: int = 200) -> web.Response:
    """The login form, with a fresh CSRF token in a cookie and in the form (double submit)."""
    csrf = secrets.token_urlsafe(32)
    note = f'<p class="error" role="alert">{html.escape(message)}</p>' if message else ""
    response = shell("Log in", "login", who, body=note + LOGIN_FORM.format(field=CSRF_FIELD, csrf=csrf), status=status)
    set_cookie(response, request, LOGIN_COOKIE, csrf, max_age=3600)
    return response


async def _login(request: web.Request) -> web.StreamResponse:
    who = await viewer(request)
    if request.method == "GET":
        return _login_page(request, who)
    sessions = request.app[SESSIONS]
    wait = sessions.login_wait(f"address {request.remote}")
    if wait > 0:
        return _login_page(request, who, f"Too many logins from your address: try again in {wait:.0f} s.", status=429)
    form = await request.post()
    given, token = form.get(CSRF_FIELD), form.get("token")
    expected = request.cookies.get(LOGIN_COOKIE, "")
    if not isinstance(given, str) or not expected or not secrets.compare_digest(given, expected):
        return _login_page(request, who, "The form expired: log in again.", status=403)
    token = token.strip() if isinstance(token, str) else ""
    digest = token_digest(token)  # hashed once, here where the token arrives
    caller = await request.app[ARENA].resolve(digest) if token else None
    team = caller if isinstance(caller, Team) else None
    if caller is None:
        LOGGER.info("web login refused: unknown token")  # never the token itself
        return _login_page(request, who, "Unknown token.", status=401)
    wait = sessions.login_wait(f"token {digest}")
    if wait > 0:
        return _login_page(request, who, f"Too many logins with this token: try again in {wait:.0f} s.", status=429)
    request.app[SESSIONS].end(request.cookies.get(COOKIE))
    cookie, _session = request.app[SESSIONS].start(token)
    LOGGER.info("web login: %s", f"team {team.name}" if team is not None else "the organiser")
    response = web.HTTPSeeOther("/team" if team is not None else "/organiser")
    set_cookie(response, request, COOKIE, cookie, max_age=SESSION_S)
    response.del_cookie(LOGIN_COOKIE, path="/")
    raise response


async def _logout(request: web.Request) -> web.StreamResponse:
    session = request_session(request)
    form = await request.post()
    given = form.get(CSRF_FIELD)
    if session is not None and not csrf_ok(session, given if isinstance(given, str) else None):
        raise web.HTTPForbidden(text="the form expired: reload the page and log out again")
    request.app[SESSIONS].end(request.cookies.get(COOKIE))
    response = web.HTTPSeeOther("/leaderboard")
    response.del_cookie(COOKIE, path="/")
    raise response


async def _team_page(request: web.Request) -> web.StreamResponse:
    who = await viewer(request)
    if who.team is None:
        raise web.HTTPSeeOther("/login") if not who.organiser else web.HTTPForbidden(text="a team's page")
    return shell("My team", "team", who)


async def _leaderboard_page(request: web.Request) -> web.Response:
    return shell("Leaderboard", "leaderboard", await viewer(request), source="/data/leaderboard")


async def _public_team_page(request: web.Request) -> web.Response:
    name = request.match_info["name"]
    who = await viewer(request)
    try:
        await request.app[ARENA].named(name)
    except RefusedError:
        return shell("No such team", "missing", who, status=404)
    return shell("Team", "public-team", who, source=f"/data/teams/{quote(name, safe='')}")


def _when(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


async def _leaderboard_data(request: web.Request) -> web.Response:
    lines = await request.app[ARENA].leaderboard()
    rows = []
    for rank, line in enumerate(lines, 1):
        rated = line.score is not None and line.mu is not None and line.sigma is not None
        rows.append(
            {
                "rank": rank if rated else None,
                "team": line.team,
                "display": line.display,
                "active_version": line.version,
                "rating": None if not rated else {"score": line.score, "mu": line.mu, "sigma": line.sigma},
                "bb100": None if line.bb100 is None else dict(zip(("mean", "low", "high"), line.bb100, strict=True)),
                "matches": line.matches,
                "faulty": line.faulty,
                "last_played": _when(line.last_played),
                "paused": line.paused,
            }
        )
    k = request.app[CONFIG].ladder.k
    ranking = (
        f"Ranked by the active version's rating: mu - {k:g} sigma, shown with mu + {k:g} sigma as its interval. "
        "A version that crashes or stops playing in a match forfeits it and ranks last in it; 'faulty' counts "
        "the matches in which it crashed, stopped or timed out."
    )
    return web.json_response({"rated": any(r["rank"] for r in rows), "ranking": ranking, "k": k, "teams": rows})


def _match_json(match: MatchLine) -> dict[str, object]:
    """A match as lists show it (no hand, no card)."""
    return {
        "id": match.id,
        "kind": "ranked" if match.ranked else "scrimmage",
        "state": match.state,
        "state_text": MATCH_WORDS[match.state][1],
        "over": match.over,
        "created_at": _when(match.created_at),
        "finished_at": _when(match.finished_at),
        "hands": match.hands,
        "seats": [{"team": s.team, "display": s.display, "version": s.version, "net": s.net} for s in match.seats],
    }


async def _public_team_data(request: web.Request) -> web.Response:
    found = await request.app[ARENA].team_page(request.match_info["name"])
    team = found.team
    versions = [  # what anyone may know of a version: its number and date, and which one plays
        {"version": v.label, "created_at": v.created_at.isoformat(), "active": v.number == team.active_version}
        for v in found.versions
    ]
    recent = [_match_json(m) for m in found.matches]
    body = {"team": team.name, "display": team.shown, "created_at": _when(team.created_at), "versions": versions}
    body["history"] = found.history
    return web.json_response({**body, "matches": recent})


async def _matches_page(request: web.Request) -> web.Response:
    return shell("Matches", "matches", await viewer(request), source="/data/matches")


async def _matches_data(request: web.Request) -> web.Response:
    queue, recent = await request.app[ARENA].matches()
    return web.json_response({"queue": [_match_json(m) for m in queue], "recent": [_match_json(m) for m in recent]})


async def _match_page(request: web.Request) -> web.Response:
    who = await viewer(request)
    try:
        found = await request.app[ARENA].match_view(who.caller, request.match_info["id"])
    except RefusedError:
        return shell("No such match", "missing", who, status=404)
    number = found.match.id
    return shell(f"Match {number}", "match", who, source=f"/data/matches/{number}")


async def _match_data(request: web.Request) -> web.Response:
    who = await viewer(request)
    arena = request.app[ARENA]
    found = await arena.match_view(who.caller, request.match_info["id"])
    body: dict[str, object] = {**_match_json(found.match), "hands_shown": found.hands_shown}
    if found.hands_shown:
        hands = await arena.match_hands(found)
        body["groups"] = duplicate_groups(hands)
        body["replays"] = [{**replay(hand), "file": hand["_file"]} for hand in hands]
        body["files"] = [path.name for path in await arena.match_files(found)]
    return web.json_response(body)


async def _match_file(request: web.Request) -> web.StreamResponse:
    who = await viewer(request)
    arena = request.app[ARENA]
    try:
        found = await arena.match_view(who.caller, request.match_info["id"])
        files = {path.name: path for path in await arena.match_files(found)}
    except RefusedError:
        files = {}
    path = files.get(request.match_info["file"])
    if path is None:
        raise web.HTTPNotFound(text="no such file")
    disposition = f'attachment; filename="m{found.match.id}-{path.name}"'
    headers = {"Content-Type": "text/plain; charset=utf-8", "Content-Disposition": disposition}
    return web.FileResponse(path, headers=headers)


async def _own_data(request: web.Request) -> web.Response:
    """The logged-in team's versions in the ladder, with the reason of a pause (its own eyes only)."""
    team, versions = await request.app[ARENA].own_standings((await viewer(request)).caller)
    return web.json_response({"team": team.name, "versions": versions})


async def _own_match_log(request: web.Request) -> web.Response:
    """What the logged-in team's bot wrote in one of its matches (404 for a match it did not play)."""
    who = await viewer(request)
    match, text = await request.app[ARENA].logs(who.caller, request.match_info["id"])
    return web.json_response({"match": match.id, "log": text[:BOT_LOG_SHOWN], "truncated": len(text) > BOT_LOG_SHOWN})


async def _data_openapi(_request: web.Request) -> web.Response:
    text = await asyncio.to_thread(DATA_OPENAPI.read_text, encoding="utf-8")
    return web.Response(text=text, content_type="application/yaml")


async def _home(_request: web.Request) -> web.StreamResponse:
    raise web.HTTPFound("/leaderboard")


def add_pages(app: web.Application) -> None:
    """Add the web pages to the arena's application (made by ``dealer.arena.http.make_app``)."""
    app.middlewares.insert(0, security_headers)
    app.router.add_get("/", _home)
    app.router.add_get("/login", _login)
    app.router.add_post("/login", _login)
    app.router.add_post("/logout", _logout)
    app.router.add_get("/team", _team_page)
    app.router.add_get("/leaderboard", _leaderboard_page)
    app.router.add_get("/teams/{name}", _public_team_page)
    app.router.add_get("/data/openapi.yaml", _data_openapi)
    app.router.add_get("/data/leaderboard", _leaderboard_data)
    app.router.add_get("/data/teams/{name}", _public_team_data)
    app.router.add_get("/data/team", _own_data)
    app.router.add_get("/data/team/matches/{id}/log", _own_match_log)
    app.router.add_get("/matches", _matches_page)
    app.router.add_get("/data/matches", _matches_data)
    app.router.add_get("/matches/{id}", _match_page)
    app.router.add_get("/data/matches/{id}", _match_data)
    app.router.add_get("/matches/{id}/hands/{file}", _match_file)
    app.router.add_static("/static/arena", STATIC)
    app.router.add_static("/static/web", WEB_STATIC)
