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
from collections import deque
from dataclasses import dataclass

from aiohttp import web

from dealer.arena.model import token_digest

COOKIE = "arena_session"
LOGIN_COOKIE = "arena_login"  # the login form's CSRF token (double submit: cookie and form field)
CSRF_HEADER = "X-CSRF-Token"
CSRF_FIELD = "csrf"
SESSION_S = 12 * 3600
SESSIONS_PER_TOKEN = 20
LOGINS_PER_MINUTE = 10
PRUNE_PAST = 4096  # login counters kept before the stale ones are dropped
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


@dataclass(frozen=True, slots=True)
class Session:
    """One logged-in browser: the SHA-256 of the token it logged in with, its CSRF token, its end."""

    token_sha256: str
    csrf: str
    expires: float


class Sessions:
    """The open sessions, by the SHA-256 of their cookie, at most ``per_token`` for each token (a
    login beyond ends that token's oldest: a team's logins never end another team's or the
    organiser's sessions), and the recent logins by client address and by token, at most
    ``logins_per_minute`` each."""

    def __init__(
        self,
        per_token: int = SESSIONS_PER_TOKEN,
        logins_per_minute: int = LOGINS_PER_MINUTE,
        lifetime_s: float = SESSION_S,
    ) -> None:
        self.per_token = per_token
        self.logins_per_minute = logins_per_minute
        self.lifetime_s = lifetime_s
        self.open: dict[str, Session] = {}
        self.of_token: dict[str, list[str]] = {}  # a token's SHA-256 -> its sessions' keys, oldest first
        self.logins: dict[str, deque[float]] = {}  # "address ..." or "token ..." -> its logins' times

    def login_wait(self, key: str, now: float | None = None) -> float:
        """Count a login attempt of ``key`` (a client's address, a token's SHA-256) and return 0, or,
        past ``logins_per_minute`` in the last minute, count nothing and return the seconds to wait."""
        now = time.monotonic() if now is None else now
        if len(self.logins) > PRUNE_PAST:
            for stale in [k for k, times in self.logins.items() if times[-1] <= now - 60]:
                del self.logins[stale]
        times = self.logins.setdefault(key, deque())
        while times and times[0] <= now - 60:
            times.popleft()
        if len(times) >= self.logins_per_minute:
            return times[0] + 60 - now
        times.append(now)
        return 0.0

    def start(self, token: str, now: float | None = None) -> tuple[str, Session]:
        """A new session for ``token`` (already checked): its cookie value, shown this once, and it."""
        now = time.monotonic() if now is None else now
        self._expire(now)
        owner = token_digest(token)
        keys = self.of_token.setdefault(owner, [])
        while len(keys) >= self.per_token:  # the token's oldest goes: its own flood of logins fills its own pool
            self.open.pop(keys.pop(0), None)
        cookie = secrets.token_urlsafe(32)
        session = Session(owner, secrets.token_urlsafe(32), now + self.lifetime_s)
        self.open[token_digest(cookie)] = session
        keys.append(token_digest(cookie))
        return cookie, session

    def find(self, cookie: str | None, now: float | None = None) -> Session | None:
        """The live session of this cookie value, or None."""
        if not cookie:
            return None
        now = time.monotonic() if now is None else now
        session = self.open.get(token_digest(cookie))
        if session is not None and session.expires <= now:
            self._drop(token_digest(cookie))
            return None
        return session

    def end(self, cookie: str | None) -> None:
        """Log the session of this cookie out (nothing if there is none)."""
        if cookie:
            self._drop(token_digest(cookie))

    def end_token(self, token_sha256: str) -> None:
        """End every session opened with the token of this SHA-256 (a revoked or replaced token)."""
        for key in self.of_token.pop(token_sha256, []):
            self.open.pop(key, None)

    def _drop(self, key: str) -> None:
        session = self.open.pop(key, None)
        if session is not None:
            keys = self.of_token.get(session.token_sha256, [])
            if key in keys:
                keys.remove(key)
            if not keys:
                self.of_token.pop(session.token_sha256, None)

    def _expire(self, now: float) -> None:
        for key in [k for k, s in self.open.items() if s.expires <= now]:
            self._drop(key)


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
