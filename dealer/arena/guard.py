"""What one client may take of the arena's HTTP server, and what its logs may say of a request.

``GuardedSite`` is aiohttp's TCP site with at most ``http.connections_per_client`` open connections
from one address: one more is closed as soon as it is accepted, before aiohttp reads a byte of it,
so a client that holds a thousand idle connections takes its own share of the open files and
leaves the others theirs (aiohttp's ``keepalive_timeout``, set from ``http.header_timeout_s``, closes
a connection that does not send a whole request in time). ``NoTokens`` rewrites every record of
the loggers that may reach stderr (aiohttp, asyncio), and ``NoTokensFormatter`` every line of
``arena.log``, so that no bearer token can appear in them, not even in an HTTP parser's error that
quotes the raw header (``Authorization: Bearer <token>\\x01``).
"""

from __future__ import annotations

import asyncio
import logging
import re
import traceback
from collections.abc import Callable

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError

LOGGER = logging.getLogger(__name__)
REQUESTS = logging.getLogger("dealer.arena.requests")  # aiohttp's server logs here (errors handling requests)
TOKEN_TEXT = re.compile(r"(?:team|org)_[A-Za-z0-9_-]{8,}|(?i:bearer)[\s\\]*\S*")
QUIET = ("aiohttp.access", "aiohttp.client", "aiohttp.internal", "aiohttp.server", "aiohttp.web", "asyncio")


class NoTokens(logging.Filter):
    """Rewrite a record as one text with every token-shaped word (and whatever follows "Bearer")
    replaced by ``[token]``, its traceback included; an HTTP parser's error (a malformed request:
    the client's fault, whose message quotes the raw request) becomes one info line without it."""

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, HttpProcessingError):
            text = f"{text}: a malformed request ({type(error).__name__}, {error.code})"
            record.levelno, record.levelname = logging.INFO, "INFO"
        elif record.exc_info:
            text += "\n" + "".join(traceback.format_exception(*record.exc_info)).rstrip()
        record.msg, record.args, record.exc_info, record.exc_text = TOKEN_TEXT.sub("[token]", text), (), None, None
        return True


class NoTokensFormatter(logging.Formatter):
    """A handler's formatter that replaces every token-shaped word of the formatted line, its
    traceback included, by ``[token]``; it changes nothing of the record, which the handlers after
    it (a test's log capture, another file) see as it was logged."""

    def format(self, record: logging.LogRecord) -> str:
        return TOKEN_TEXT.sub("[token]", super().format(record))


def quiet_tokens() -> None:
    """Put ``NoTokens`` on the loggers of aiohttp, asyncio and the server's requests (whose records
    may reach stderr through logging's last resort)."""
    for name in (*QUIET, REQUESTS.name):
        logger = logging.getLogger(name)
        if not any(isinstance(f, NoTokens) for f in logger.filters):
            logger.addFilter(NoTokens())


class _PerClient(asyncio.Protocol):
    """aiohttp's protocol for one connection, unless its address has ``cap`` open already: then
    the connection is aborted before aiohttp sees it."""

    def __init__(self, inner: asyncio.Protocol, counts: dict[str, int], cap: int) -> None:
        self.inner, self.counts, self.cap = inner, counts, cap
        self.address: str | None = None
        self.refused = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        peer = transport.get_extra_info("peername")
        self.address = str(peer[0]) if isinstance(peer, tuple) and peer else ""
        self.counts[self.address] = self.counts.get(self.address, 0) + 1
        if self.counts[self.address] > self.cap:
            self.refused = True
            LOGGER.debug("connection from %s refused: %d open already", self.address, self.cap)
            assert isinstance(transport, asyncio.Transport), "a TCP connection"
            transport.abort()
            return
        self.inner.connection_made(transport)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.address is not None:
            left = self.counts[self.address] - 1
            if left:
                self.counts[self.address] = left
            else:
                del self.counts[self.address]
        if not self.refused:
            self.inner.connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if not self.refused:
            self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return None if self.refused else self.inner.eof_received()

    def pause_writing(self) -> None:
        if not self.refused:
            self.inner.pause_writing()

    def resume_writing(self) -> None:
        if not self.refused:
            self.inner.resume_writing()


class GuardedSite(web.TCPSite):
    """aiohttp's TCP site, with at most ``per_client`` open connections from one address."""

    __slots__ = ("_open", "_per_client")

    def __init__(self, runner: web.BaseRunner, host: str, port: int, per_client: int) -> None:
        super().__init__(runner, host, port)
        self._per_client = per_client
        self._open: dict[str, int] = {}

    async def start(self) -> None:
        await web.BaseSite.start(self)  # registered with the runner, as TCPSite's start does
        server = self._runner.server
        assert server is not None, "the runner is set up"
        factory: Callable[[], asyncio.Protocol] = lambda: _PerClient(server(), self._open, self._per_client)  # noqa: E731
        self._server = await asyncio.get_running_loop().create_server(
            factory, self._host, self._port, backlog=self._backlog
        )
