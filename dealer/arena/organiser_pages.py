"""The organiser's web pages and the public finals pages.

The organiser (logged in with an organiser token) sees every team, adds one (with a display name:
any text, which the pages show as text) or replaces its token
(the token is shown once, on the page that answers the form, never in a URL or the log), sees
the paused versions with the reason the ladder gave (the end of the bot's log: shown to the
organiser, whose arena it is), and freezes the arena for its finals; the finals themselves are
played by ``dealer arena finals`` on the arena's machine. Every form carries the session's CSRF
token. The finals pages show anyone a finals' record (``finals.json``, public by design): the
commitment to its seed before the first hand, the rankings as stages end, then the seed, checked
here against its commitment, and the published files.
"""

from __future__ import annotations

import asyncio
import html
import logging
from urllib.parse import quote

from aiohttp import web

from dealer.arena.http import ARENA
from dealer.arena.model import DISPLAY_NAME_MAX, RESERVED, RefusedError
from dealer.arena.pages import Viewer, shell, viewer
from dealer.arena.sessions import CSRF_FIELD, csrf_ok

LOGGER = logging.getLogger(__name__)


async def _organiser(request: web.Request) -> Viewer:
    """The organiser's session, or the login page (a team's session: 403)."""
    who = await viewer(request)
    if not who.organiser:
        raise web.HTTPSeeOther("/login") if who.team is None else web.HTTPForbidden(text="the organiser's page")
    return who


def _form(action: str, csrf: str, button: str, fields: str = "") -> str:
    """A POST form of ours with the session's CSRF token; ``action`` is escaped."""
    return (
        f'<form method="post" action="{html.escape(action, quote=True)}" class="inline">'
        f'<input type="hidden" name="{CSRF_FIELD}" value="{csrf}">{fields}'
        f'<button type="submit">{button}</button></form>'
    )


async def _organiser_page(request: web.Request, note: str = "", token: str = "") -> web.Response:
    who = await _organiser(request)
    csrf = who.session.csrf if who.session is not None else ""
    frozen = await request.app[ARENA].frozen_at()
    parts = []
    if note:
        parts.append(f'<p class="ok" role="status">{html.escape(note)}</p>')
    if token:  # shown this once: the server keeps its SHA-256 alone
        parts.append(
            '<p role="status">Give the team this token (it is shown this once): '
            f'<code data-testid="new-token">{html.escape(token)}</code></p>'
        )
    add = (
        '<label for="team-name">New team</label> <input id="team-name" name="name" required '
        'pattern="[A-Za-z0-9_.\\-]{1,40}" maxlength="40" spellcheck="false"> '
        '<label for="team-display">display name (optional)</label> <input id="team-display" name="display" '
        f'maxlength="{DISPLAY_NAME_MAX}"> '
    )
    parts.append(f"<section><h2>Add a team</h2>{_form('/organiser/teams', csrf, 'Add the team', add)}</section>")
    if frozen is None:
        freeze = _form("/organiser/freeze", csrf, "Freeze the arena")
        state = f"<p>Submissions are open.</p>{freeze}"
    else:
        state = f"<p>Frozen since {html.escape(frozen.isoformat())}: no submission, no activation.</p>"
    parts.append(
        f'<section><h2>Finals</h2>{state}<p class="muted">Then on the arena\'s machine: '
        "<code>dealer arena finals arena.yaml finals.yaml</code> "
        '(<a href="/finals">the finals pages</a>).</p></section>'
    )
    return shell("Organiser", "organiser", who, body="".join(parts))


async def _organiser_get(request: web.Request) -> web.Response:
    return await _organiser_page(request)


async def _checked_form(request: web.Request) -> dict[str, str]:
    """The organiser's form, its CSRF token checked (403 otherwise)."""
    who = await _organiser(request)
    form = await request.post()
    given = form.get(CSRF_FIELD)
    if who.session is None or not csrf_ok(who.session, given if isinstance(given, str) else None):
        raise web.HTTPForbidden(text="the form expired: reload the page and send it again")
    return {key: value for key, value in form.items() if isinstance(value, str)}


async def _add_team(request: web.Request) -> web.Response:
    form = await _checked_form(request)
    name, display = form.get("name", "").strip(), form.get("display", "").strip() or None
    try:
        team, token = await request.app[ARENA].add_team((await viewer(request)).caller, name, display)
    except RefusedError as error:
        raise web.HTTPUnprocessableEntity(text=str(error)) from None
    return await _organiser_page(request, f"Team {team.name} added.", token)


async def _new_token(request: web.Request) -> web.Response:
    await _checked_form(request)
    name = request.match_info["name"]
    try:
        token = await request.app[ARENA].new_token((await viewer(request)).caller, name)
    except RefusedError as error:
        raise web.HTTPNotFound(text=str(error)) from None
    return await _organiser_page(request, f"Team {name} has a new token; the old one no longer works.", token)


async def _display_name(request: web.Request) -> web.StreamResponse:
    form = await _checked_form(request)
    name, display = request.match_info["name"], form.get("display", "").strip() or None
    try:
        await request.app[ARENA].set_display_name((await viewer(request)).caller, name, display)
    except RefusedError as error:
        raise web.HTTPUnprocessableEntity(text=str(error)) from None
    raise web.HTTPSeeOther("/organiser")


async def _freeze(request: web.Request) -> web.StreamResponse:
    await _checked_form(request)
    await request.app[ARENA].freeze((await viewer(request)).caller)
    raise web.HTTPSeeOther("/organiser")


async def _organiser_data(request: web.Request) -> web.Response:
    """The teams with their active versions, and the paused versions with why (organiser only)."""
    who = await _organiser(request)
    arena = request.app[ARENA]
    teams = [
        {
            "name": t.name,
            "display": t.shown,
            "created_at": t.created_at.isoformat(),
            "active_version": t.active_version,
            "house": t.name in RESERVED,  # the arena's own bot: no token, no display name to give
        }
        for t in await arena.teams(who.caller)
    ]
    paused = [
        {"team": team, "version": version, "games": games, "faulty": faulty, "reason": reason}
        for team, version, games, faulty, reason in await arena.paused(who.caller)
    ]
    return web.json_response({"teams": teams, "paused": paused})


async def _finals_page(request: web.Request) -> web.Response:
    return shell("Finals", "finals", await viewer(request), source="/data/finals")


async def _finals_data(request: web.Request) -> web.Response:
    found = await asyncio.to_thread(request.app[ARENA].finals_list)
    return web.json_response([{**f.record, "seed_matches": f.seed_matches} for f in found])


async def _finals_file(request: web.Request) -> web.StreamResponse:
    name, relative = request.match_info["name"], request.match_info["path"]
    try:
        path = await asyncio.to_thread(request.app[ARENA].finals_file, name, relative)
    except RefusedError:
        raise web.HTTPNotFound(text="no such published file") from None
    attachment = f'attachment; filename="{quote(name)}-{quote(relative.replace("/", "-"))}"'
    return web.FileResponse(
        path, headers={"Content-Type": "text/plain; charset=utf-8", "Content-Disposition": attachment}
    )


def add_organiser_pages(app: web.Application) -> None:
    """Add the organiser's pages and the finals pages to the arena's application (after ``add_pages``)."""
    app.router.add_get("/organiser", _organiser_get)
    app.router.add_get("/data/organiser", _organiser_data)
    app.router.add_post("/organiser/teams", _add_team)
    app.router.add_post("/organiser/teams/{name}/token", _new_token)
    app.router.add_post("/organiser/teams/{name}/display", _display_name)
    app.router.add_post("/organiser/freeze", _freeze)
    app.router.add_get("/finals", _finals_page)
    app.router.add_get("/data/finals", _finals_data)
    app.router.add_get("/finals/{name}/files/{path:.+}", _finals_file)
