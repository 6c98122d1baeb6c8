"""The web pages' sessions: a team or the organiser logs in once with a token and gets a cookie.

The cookie holds 256 random bits; the server keeps only their SHA-256, with whose token the session
was opened (its SHA-256, as the database keeps it: a replaced token ends every session opened with
it) and the session's CSRF token, which every form and every cookie-authenticated request that
changes something must send back. The cookie is HttpOnly, SameSite=Strict, and Secure when the
request came over TLS. Sessions live in the server's memory: a restarted server asks everyone to
log in again (nothing is lost but the login).
"""

from __future__ import annotations

import hmac
import secrets
import time
from dataclasses import dataclass

from aiohttp import web

from dealer.arena.model import token_digest

COOKIE = "arena_session"
LOGIN_COOKIE = "arena_login"  # the login form's CSRF token (double submit: cookie and form field)
CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf"
SESSION_S = 12 * 3600
MAX_SESSIONS = 10_000
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


@dataclass(frozen=True, slots=True)
class Session:
    """One logged-in browser: the SHA-256 of the token it logged in with, its CSRF token, its end."""

    token_sha256: str
    csrf: str
    expires: float


class Sessions:
    """The open sessions, by the SHA-256 of their cookie."""

    def __init__(self, lifetime_s: float = SESSION_S) -> None:
        self.lifetime_s = lifetime_s
        self.open: dict[str, Session] = {}

    def start(self, token: str, now: float | None = None) -> tuple[str, Session]:
        """A new session for ``token`` (already checked): its cookie value, shown this once, and it."""
        now = time.monotonic() if now is None else now
        self._expire(now)
        if len(self.open) >= MAX_SESSIONS:  # the oldest goes: a flood of logins cannot fill memory
            del self.open[min(self.open, key=lambda k: self.open[k].expires)]
        cookie = secrets.token_urlsafe(32)
        session = Session(token_digest(token), secrets.token_urlsafe(32), now + self.lifetime_s)
        self.open[token_digest(cookie)] = session
        return cookie, session

    def find(self, cookie: str | None, now: float | None = None) -> Session | None:
        """The live session of this cookie value, or None."""
        if not cookie:
            return None
        now = time.monotonic() if now is None else now
        session = self.open.get(token_digest(cookie))
        if session is not None and session.expires <= now:
            del self.open[token_digest(cookie)]
            return None
        return session

    def end(self, cookie: str | None) -> None:
        """Log the session of this cookie out (nothing if there is none)."""
        if cookie:
            self.open.pop(token_digest(cookie), None)

    def _expire(self, now: float) -> None:
        for key in [k for k, s in self.open.items() if s.expires <= now]:
            del self.open[key]


SESSIONS = web.AppKey("sessions", Sessions)


def request_session(request: web.Request) -> Session | None:
    """The session the request's cookie belongs to, or None."""
    return request.app[SESSIONS].find(request.cookies.get(COOKIE))


def csrf_ok(session: Session, given: str | None) -> bool:
    """Whether ``given`` is the session's CSRF token (compared in constant time)."""
    return given is not None and hmac.compare_digest(given.encode(), session.csrf.encode())


def set_cookie(response: web.StreamResponse, request: web.Request, name: str, value: str, max_age: int) -> None:
    """Set one of the arena's cookies: HttpOnly, SameSite=Strict, Secure under TLS, for the whole site."""
    response.set_cookie(
        name, value, max_age=max_age, path="/", httponly=True, samesite="Strict", secure=request.secure or None
    )
