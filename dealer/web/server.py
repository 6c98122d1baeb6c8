"""The live web view: an aiohttp server on the dealer's own asyncio loop, pushing deltas by SSE.

``GET /`` is the page, ``/static/...`` its scripts (app.js and the vendored uPlot), ``/state`` the
current snapshot as JSON and ``/events`` a Server-Sent Events stream: the whole snapshot once
(``event: state``), then what changed as a JSON Merge Patch (``event: patch``, ``dealer.web.delta``)
at most every ``PUSH_S`` seconds (hands finish thousands of times a second; a snapshot and its
patch are built once per push and shared by every browser). A page that reconnects (EventSource
does so by itself) is sent the whole state again, then patches.

Every route needs the view's key: a bot with ``network: host`` can reach a port on loopback, so
the port alone proves nothing. The key (256 random bits) is in the URL printed once to the
organiser's console (``/?key=...``); the first request that carries it gets it back as a cookie
(HttpOnly, SameSite=Strict) that the page's later requests send. Without it: 403 and nothing else.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import secrets
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol

from aiohttp import web

from dealer.web.delta import diff
from dealer.web.seat import SeatDesk, seat_routes

STATIC = Path(__file__).parent / "static"
PUSH_S = 0.5
VENDOR = ("vendor/uPlot.min.css", "vendor/uPlot.iife.min.js")
OWN = ("app.css", "dom.js", "table.js", "app.js")  # dom.js, table.js: shared with the arena's pages
COOKIE = "dealer_view_key"  # and the port: cookies ignore ports, two dealers on one host keep their own keys


class Snapshots(Protocol):
    """What a page shows: a league in play (``view.LeagueView``), a finished folder (``final.FinalView``)."""

    def snapshot(self) -> dict[str, Any]:
        """The page's data now, JSON-ready; a new object whenever anything in it changed."""
        ...


def page(data: object | None = None, *, tv: bool = False) -> str:
    """The page: live (scripts linked from /static, data from /events) or, with ``data``, the
    self-contained report (every script, style and the data inlined); ``tv``: the projector's
    layout (large type, the leaderboard and a table that replays finished hands by itself)."""
    template = (STATIC / "page.html").read_text(encoding="utf-8")
    missing = [name for name in VENDOR if not (STATIC / name).is_file()]
    if missing:
        raise FileNotFoundError(
            f"{STATIC / missing[0]} is missing: reinstall the package (`pip install .` or `make setup`: "
            "setup.py vendors uPlot from npm)"
        )
    if data is None:
        styles = "".join(f'<link rel="stylesheet" href="static/{n}">' for n in (*VENDOR, *OWN) if n.endswith(".css"))
        scripts = "".join(f'<script src="static/{n}"></script>' for n in (*VENDOR, *OWN) if n.endswith(".js"))
        embedded = ""
    else:
        styles = "".join(
            f"<style>{(STATIC / n).read_text(encoding='utf-8')}</style>" for n in (*VENDOR, *OWN) if n.endswith(".css")
        )
        scripts = "".join(f"<script>{_script(STATIC / n)}</script>" for n in (*VENDOR, *OWN) if n.endswith(".js"))
        embedded = f'<script id="report-data" type="application/json">{_json_in_html(data)}</script>'
    if tv:
        template = template.replace("<body>", '<body class="tv">', 1)
    return template.replace("<!--STYLES-->", styles).replace("<!--DATA-->", embedded).replace("<!--SCRIPTS-->", scripts)


def _script(path: Path) -> str:
    return path.read_text(encoding="utf-8").replace("</script", "<\\/script")


def _event(kind: str, data: object) -> bytes:
    """One Server-Sent Event: its kind and its data on one line."""
    return f"event: {kind}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


def _json_in_html(data: object) -> str:
    """JSON that cannot end the script element it sits in."""
    return json.dumps(data, separators=(",", ":")).replace("<", "\\u003c")


class WebView:
    """Serves a view's snapshots at ``host:port`` on the running loop: ``await start()``, ``await stop()``.
    ``/`` is the page, ``/tv`` the same page laid out for a projector; with a ``seat``, ``/seat`` is a
    person's seat at the table (``dealer.web.seat``; without a view, ``/`` leads there)."""

    def __init__(self, view: Snapshots | None, address: str, seat: SeatDesk | None = None) -> None:
        host, _, port = address.rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"--web must look like HOST:PORT (e.g. 127.0.0.1:8080), not {address!r}")
        self.view, self.host, self.port = view, host.strip("[]"), int(port)
        self.subscribers: set[asyncio.Queue[bytes | None]] = set()
        self.runner: web.AppRunner | None = None
        self.pusher: asyncio.Task[None] | None = None
        self.state: dict[str, Any] | None = None  # the snapshot last sent (or built for /state)
        self.sent: dict[str, list[int]] = {"state": [0, 0], "patch": [0, 0]}  # messages and bytes, by kind
        self.key = secrets.token_urlsafe(32)
        self.cookie = COOKIE
        self.seat = seat

    async def start(self) -> str:
        """Start serving; return the page's URL, key included (print it to the organiser only)."""
        app = web.Application(middlewares=[self._guard])
        if self.view is not None:
            app.router.add_get("/", self._page)
            app.router.add_get("/tv", self._tv)
            app.router.add_get("/state", self._state)
            app.router.add_get("/events", self._events)
        else:
            app.router.add_get("/", lambda request: web.HTTPFound("seat"))  # type: ignore[arg-type,return-value]
        if self.seat is not None:
            app.add_routes(seat_routes(self.seat))
        app.router.add_static("/static", STATIC)
        page()  # fail now, not in the browser, when the vendored scripts are missing
        self.runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self.runner.setup()
        site = web.TCPSite(self.runner, self.host, self.port)
        await site.start()
        port = self.runner.addresses[0][1]
        self.cookie = f"{COOKIE}_{port}"
        self.pusher = asyncio.create_task(self._push())
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{port}/{'' if self.view is not None else 'seat'}?key={self.key}"

    async def stop(self) -> None:
        """Push the last snapshot, end every stream and stop the server (once: a second call does nothing)."""
        if self.runner is None:
            return
        if self.pusher is not None:
            self.pusher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.pusher
        self._refresh()
        for queue in self.subscribers:
            queue.put_nowait(None)
        self.subscribers.clear()
        await self.runner.cleanup()
        self.runner = None

    @web.middleware
    async def _guard(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        """Serve only a request that carries the key, in the URL or the cookie; set the cookie."""
        given = request.query.get("key") or request.cookies.get(self.cookie) or ""
        if not hmac.compare_digest(given.encode(), self.key.encode()):
            return web.Response(status=403, text="forbidden: open the URL with the key the dealer printed\n")
        response = await handler(request)
        if request.query.get("key") and not response.prepared:
            response.set_cookie(self.cookie, self.key, httponly=True, samesite="Strict", path="/")
        return response

    def _refresh(self) -> None:
        """Take a new snapshot; send every subscriber what changed since the last one (if anything)."""
        if self.view is None:
            return
        snapshot = self.view.snapshot()
        if self.state is not None:
            patch = diff(self.state, snapshot)
            if patch and self.subscribers:
                message = _event("patch", patch)
                self._count("patch", len(message) * len(self.subscribers))
                for queue in self.subscribers:
                    queue.put_nowait(message)
        self.state = snapshot

    def _count(self, kind: str, size: int) -> None:
        self.sent[kind][0] += 1
        self.sent[kind][1] += size

    async def _push(self) -> None:
        while True:
            if self.subscribers:
                self._refresh()
            await asyncio.sleep(PUSH_S)

    async def _page(self, request: web.Request) -> web.Response:
        return web.Response(text=page(), content_type="text/html")

    async def _tv(self, request: web.Request) -> web.Response:
        return web.Response(text=page(tv=True), content_type="text/html")

    async def _state(self, request: web.Request) -> web.Response:
        self._refresh()
        return web.Response(text=json.dumps(self.state, separators=(",", ":")), content_type="application/json")

    async def _events(self, request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        await response.prepare(request)
        queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._refresh()  # the others get what changed; this page the whole state, then the same patches
        whole = _event("state", self.state)
        self._count("state", len(whole))
        queue.put_nowait(whole)
        self.subscribers.add(queue)
        try:
            while (message := await queue.get()) is not None:
                await response.write(message)
        except (ConnectionResetError, asyncio.CancelledError):
            pass
        finally:
            self.subscribers.discard(queue)
        return response
