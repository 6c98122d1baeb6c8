"""The dealer's gRPC service: bots' ``Play`` streams, authenticated, pumped to their sessions.

A bot opens one ``Dealer.Play`` stream and sends ``Hello`` with its seat token first. Each
token belongs to one ``BotSession`` (``dealer.connect.session``) and is good for one connection at a
time. The batches of its link (``dealer.connect.link``) are written as ``DealerMessage``s: items are
serialized once, framed as the ``items`` field of a ``DealerMessage``, and shared by every session
that receives them.

Error boundary: what a bot can cause on its stream (a broken or cancelled stream, a malformed
or oversized message, a flood) is counted against that bot by one reason (``Fault``) and ends
only its session. Anything else raised while serving a stream is the dealer's own error: it is
logged with its traceback and handed to ``DealerServer.failed``, which stops the matches loudly.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import hashlib
import hmac
import itertools
import logging
import os
import secrets
import shutil
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import grpc
from google.protobuf.message import DecodeError
from grpc_health.v1 import health_pb2

from dealer.connect import wire, wire_replies
from dealer.connect.link import (
    FLOOD_LIMIT,
    MAX_BACKLOG_BYTES,
    MAX_MESSAGE_BYTES,
    PROTOCOL_VERSION,
    REPLY_SLICE,
    Answered,
    Cut,
)
from dealer.connect.pump import Inbox, pump
from dealer.connect.session import BotSession
from dealer.stats.faults import Fault
from poker.v1 import dealer_pb2 as pb
from poker.v1 import dealer_pb2_grpc

SUPPORTED_VERSIONS = frozenset({0, PROTOCOL_VERSION})  # Hello.protocol_version; 0 means 1
MAX_SEND_BYTES = 4 << 20  # no message to a bot above gRPC clients' default limit (batches split at 1 MiB)
GRPC_RECEIVE_LIMIT = 16 * MAX_MESSAGE_BYTES  # above this gRPC itself ends the stream (seen as a disconnect)
AUTH_TIMEOUT_S = 5.0
MAX_WAITING = 256  # streams waiting for their Hello at once, over every peer
MAX_WAITING_PER_PEER = 64  # ... from one peer (IP address; every Unix socket client is one peer)
HEALTH_CHECKS_PER_S = 20  # Health checks answered a second (a burst of as many); the rest are refused
_BROKEN = (asyncio.CancelledError, grpc.RpcError, grpc.aio.BaseError)  # a stream that broke: the bot's doing

LOGGER = logging.getLogger(__name__)

__all__ = [  # the session's and link's names, as they were imported from here before dealer.connect.session
    "FLOOD_LIMIT",
    "MAX_BACKLOG_BYTES",
    "MAX_MESSAGE_BYTES",
    "REPLY_SLICE",
    "Answered",
    "BotSession",
    "DealerServer",
    "DealerService",
    "Fault",
    "decode",
    "peer_key",
]


@dataclass(frozen=True, slots=True)
class _Refused:
    """A message the dealer will not read: the fault it is, and the status that ends the stream."""

    fault: str
    status: grpc.StatusCode
    detail: str


_OVERSIZED = _Refused(Fault.PROTOCOL, grpc.StatusCode.RESOURCE_EXHAUSTED, f"message above {MAX_MESSAGE_BYTES} bytes")
_MALFORMED = _Refused(Fault.PROTOCOL, grpc.StatusCode.INVALID_ARGUMENT, "malformed message: not a poker.v1.BotMessage")


def decode(data: bytes) -> list[wire.Reply] | pb.BotMessage | _Refused:
    """A bot's message: its replies when it holds nothing else (``wire_replies``, most messages),
    else the decoded message, or why it is refused (gRPC's own limit is higher, so the dealer sees
    and counts a message above MAX_MESSAGE_BYTES instead of a stream cut short)."""
    if len(data) > MAX_MESSAGE_BYTES:
        return _OVERSIZED
    replies = wire_replies.replies(data)
    if replies is not None:
        return replies
    try:
        return pb.BotMessage.FromString(data)
    except DecodeError:
        return _MALFORMED


def peer_key(peer: str) -> str:
    """Who opened a stream, for the per-peer cap: the IP address (no port) of a TCP peer; every
    client of a Unix socket is one peer."""
    kind = peer.split(":", 1)[0]
    return peer.rsplit(":", 1)[0] if kind in ("ipv4", "ipv6") else kind


class DealerService(dealer_pb2_grpc.DealerServicer):
    """Authenticates streams by token and pumps messages between them and their sessions."""

    def __init__(
        self, on_auth_failure: Callable[[str], None], on_dealer_error: Callable[[BaseException], None]
    ) -> None:
        self._sessions: dict[bytes, BotSession] = {}
        self._on_auth_failure = on_auth_failure
        self._on_dealer_error = on_dealer_error
        self._waiting: dict[
            str, dict[int, asyncio.Future[None]]
        ] = {}  # peer -> streams waiting for Hello, oldest first
        self._waiting_total = 0
        self._stream_ids = itertools.count()

    def add(self, session: BotSession) -> None:
        """Accept connections with this session's token."""
        session.on_dealer_error = self._on_dealer_error
        self._sessions[hashlib.sha256(session.token.encode()).digest()] = session

    def remove(self, session: BotSession) -> None:
        """Stop accepting this session's token."""
        self._sessions.pop(hashlib.sha256(session.token.encode()).digest(), None)

    def _lookup(self, token: str) -> BotSession | None:
        session = self._sessions.get(hashlib.sha256(token.encode("utf-8", "replace")).digest())
        if session is not None and hmac.compare_digest(session.token.encode(), token.encode("utf-8", "replace")):
            return session
        return None

    def _refuse(self, peer: str, reason: str) -> None:
        """A stream refused before it named a seat: counted for the server, charged to no bot."""
        LOGGER.warning("refused a stream from %s: %s", peer, reason)
        self._on_auth_failure(reason)

    def _admit(self, peer: str) -> tuple[int, asyncio.Future[None]]:
        """Register a stream waiting for its Hello. A new stream is never refused: when its peer
        (or the server) has too many waiting, the peer's (or the busiest peer's) oldest waiting
        stream is dropped instead. An honest bot says Hello at once, so only idle streams go."""
        streams = self._waiting.setdefault(peer, {})
        if len(streams) >= MAX_WAITING_PER_PEER:
            self._evict(peer)
        elif self._waiting_total >= MAX_WAITING:
            self._evict(max(self._waiting, key=lambda p: len(self._waiting[p])))
        key = next(self._stream_ids)
        evicted: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        streams[key] = evicted
        self._waiting_total += 1
        return key, evicted

    def _evict(self, peer: str) -> None:
        evicted = self._release(peer, next(iter(self._waiting[peer])))
        if evicted is not None and not evicted.done():
            evicted.set_result(None)

    def _release(self, peer: str, key: int) -> asyncio.Future[None] | None:
        streams = self._waiting.get(peer)
        if streams is None or key not in streams:
            return None
        evicted = streams.pop(key)
        self._waiting_total -= 1
        if not streams:
            del self._waiting[peer]
        return evicted

    async def _hello(self, context: grpc.aio.ServicerContext, peer: str) -> pb.BotMessage | None:
        """Wait for the stream's first message (its Hello) within the time limit; None (the stream
        refused) when it does not come, is not a BotMessage or the stream was dropped to make room."""
        key, evicted = self._admit(peer)
        read = asyncio.ensure_future(context.read())
        try:
            await asyncio.wait((read, evicted), timeout=AUTH_TIMEOUT_S, return_when=asyncio.FIRST_COMPLETED)
        finally:
            self._release(peer, key)
            if not read.done():
                read.cancel()
        if read.done() and not read.cancelled() and read.exception() is not None:
            error = read.exception()
            if isinstance(error, _BROKEN):
                return None  # the stream broke before its Hello: nothing to refuse
            self._on_dealer_error(error)
            await context.abort(grpc.StatusCode.INTERNAL, "the dealer failed; the organiser has its log")
            return None
        if not read.done() or read.cancelled():
            if evicted.done():
                self._refuse(peer, "dropped: too many streams waiting for Hello")
                await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "too many streams waiting for Hello")
            else:
                self._refuse(peer, "no Hello within the authentication time limit")
                await context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, "send Hello with your token first")
            return None
        first: pb.BotMessage | _Refused | object = read.result()
        if isinstance(first, _Refused):
            self._refuse(peer, "first message was not a BotMessage")
            await context.abort(first.status, first.detail)
            return None
        if not isinstance(first, pb.BotMessage) or not first.HasField("hello"):
            self._refuse(peer, "first message was not a Hello")
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "the first message must carry Hello")
            return None
        return first

    async def Play(  # noqa: N802
        self, request_iterator: object, context: grpc.aio.ServicerContext, peer: str | None = None
    ) -> None:
        """One bot's stream: authenticate, then read replies and write batches until it ends.
        ``peer``: who opened it, when the socket says (a bot instance's own), else from the address."""
        peer = peer or peer_key(context.peer())
        first = await self._hello(context, peer)
        if first is None:
            return
        session = self._lookup(first.hello.token)
        if session is None:
            self._refuse(peer, "unknown token")
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "unknown token")
            return
        if session.live:
            session.fault(Fault.AUTH, f"a second stream from {peer} with this token, already connected")
            await context.abort(grpc.StatusCode.ALREADY_EXISTS, "this token is already connected")
            return
        version = first.hello.protocol_version
        if version not in SUPPORTED_VERSIONS:
            session.fault(Fault.PROTOCOL, f"Hello asks for protocol version {version}")
            await context.abort(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"protocol version {version} is not supported: this dealer speaks version {PROTOCOL_VERSION}",
            )
            return
        LOGGER.info("bot %s connected from %s (version %r)", session.name, peer, first.hello.version[:64])
        ended = await pump(session.link, _Stream(context), first.hello.version[:64])
        if ended.failed:
            await context.abort(grpc.StatusCode.INTERNAL, "the dealer failed; the organiser has its log")
        if ended.cut is not None:  # tell the bot why its stream ends (its fault is counted already)
            await context.abort(grpc.StatusCode[ended.cut.status], ended.cut.detail)


class _Stream:
    """A bot's ``Play`` stream as a connection of the pump (``dealer.connect.pump``)."""

    lost = "the stream ended without Goodbye"
    broken: tuple[type[BaseException], ...] = _BROKEN

    def __init__(self, context: grpc.aio.ServicerContext) -> None:
        self._context = context

    async def read(self, inbox: Inbox) -> None:
        """Hand each message read to ``inbox`` until the stream ends; a refused one cuts the bot off."""
        while True:
            message = await self._context.read()
            if message is grpc.aio.EOF:
                return
            if type(message) is list:
                if not await inbox.receive_replies(message):
                    return
                continue
            if type(message) is _Refused:
                inbox.refuse(message.fault, Cut(message.status.name, message.detail))
                return
            if not await inbox.receive(message):
                return

    async def write(self, batch: bytes) -> int:
        """Write one DealerMessage; gRPC's flow control holds the write until the bot reads."""
        await self._context.write(batch)
        return 0

    def close(self) -> None:
        """Nothing to release: the stream ends with ``Play``."""


class _Health:
    """The gRPC Health service's ``Check`` alone (no ``Watch``, whose streams a bot could hold
    open), answered at most ``HEALTH_CHECKS_PER_S`` times a second: a flood of checks from a bot
    costs the tables beside it little. Refused checks are counted in ``dealer.log``, a line a second."""

    SERVING = frozenset({"", "poker.v1.Dealer"})

    def __init__(self) -> None:
        self._tokens = float(HEALTH_CHECKS_PER_S)
        self._filled_at = 0.0
        self._unreported = 0
        self._report: asyncio.TimerHandle | None = None

    def handlers(self) -> grpc.GenericRpcHandler:
        """The service's handler, to add to a server."""
        check = grpc.unary_unary_rpc_method_handler(
            self.check,
            request_deserializer=health_pb2.HealthCheckRequest.FromString,
            response_serializer=health_pb2.HealthCheckResponse.SerializeToString,
        )
        return grpc.method_handlers_generic_handler("grpc.health.v1.Health", {"Check": check})

    def _admit(self) -> bool:
        """Take a token from the bucket (refilled at ``HEALTH_CHECKS_PER_S``); False when it is empty."""
        loop = asyncio.get_running_loop()
        now = loop.time()
        self._tokens = min(float(HEALTH_CHECKS_PER_S), self._tokens + (now - self._filled_at) * HEALTH_CHECKS_PER_S)
        self._filled_at = now
        if self._tokens >= 1:
            self._tokens -= 1
            return True
        self._unreported += 1
        if self._report is None:
            self._report = loop.call_later(1.0, self._log_refused)
        return False

    def _log_refused(self) -> None:
        self._report = None
        LOGGER.warning("refused %d Health checks over the limit of %d a second", self._unreported, HEALTH_CHECKS_PER_S)
        self._unreported = 0

    async def check(
        self, request: health_pb2.HealthCheckRequest, context: grpc.aio.ServicerContext
    ) -> health_pb2.HealthCheckResponse:
        """SERVING for the dealer's service (or the server, ""), NOT_FOUND for any other name."""
        if not self._admit():
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "too many Health checks: rate-limited")
        if request.service not in self.SERVING:
            await context.abort(grpc.StatusCode.NOT_FOUND, "unknown service")
        return health_pb2.HealthCheckResponse(status=health_pb2.HealthCheckResponse.SERVING)

    def close(self) -> None:
        """Log what is still unreported (the server stops)."""
        if self._report is not None:
            self._report.cancel()
            self._log_refused()


async def _stop_started(server: grpc.aio.Server, starting: asyncio.Future[None]) -> None:
    """Stop a server once its start is over (however it ended)."""
    await asyncio.wait([starting])
    await server.stop(0.2)


class DealerServer:
    """The gRPC server (the bots' ``Play``, a rate-limited Health ``Check``; no reflection: a bot
    has ``proto/``) and its session registry.

    ``async with DealerServer(...) as server:`` starts it and stops it when the block ends."""

    def __init__(
        self,
        address: str = "127.0.0.1:0",
        *,
        credentials: grpc.ServerCredentials | None = None,
        local_socket: bool = True,
    ) -> None:
        """``local_socket``: also listen on a Unix socket in a fresh folder, for bots that have no
        network (``network: none``); its address is ``local_address`` once started."""
        self.auth_failures: collections.Counter[str] = collections.Counter()
        self.failed: asyncio.Future[BaseException] | None = None  # set (to the error) when the dealer fails
        self.service = DealerService(lambda reason: self.auth_failures.update([reason]), self._dealer_error)
        self._requested = address
        self._credentials = credentials
        self._server: grpc.aio.Server | None = None
        self._local_socket = local_socket
        self._socket_folder: str | None = None
        self.address = address
        self.local_address: str | None = None
        self.health = _Health()
        self._instance_servers: dict[str, tuple[grpc.aio.Server, asyncio.Future[None]]] = {}  # and its start
        self._stopping: set[asyncio.Future[None]] = set()  # instance servers being stopped

    def _dealer_error(self, error: BaseException) -> None:
        """The dealer failed while serving a stream: every match on this server stops (``failed``)."""
        if self.failed is not None and not self.failed.done():
            self.failed.set_result(error)

    async def start(self) -> str:
        """Start listening; return the address bots should dial (with the real port)."""
        self.failed = asyncio.get_running_loop().create_future()
        server = self._new_server([self._play_handler(None), self.health.handlers()])
        if self._credentials is None:
            port = server.add_insecure_port(self._requested)
        else:
            port = server.add_secure_port(self._requested, self._credentials)
        if not self._requested.startswith("unix:") and port == 0:
            raise OSError(f"cannot listen on {self._requested}")
        if self._local_socket:
            # A short path (sun_path is 108 bytes) in a folder others may enter but not list; the
            # socket itself is open to every local user: the seat token is what admits a bot.
            self._socket_folder = tempfile.mkdtemp(prefix="dealer-")
            os.chmod(self._socket_folder, 0o711)
            path = os.path.join(self._socket_folder, f"{secrets.token_hex(8)}.sock")
            server.add_insecure_port(f"unix:{path}")
            self.local_address = f"unix:{path}"
        await server.start()
        if self.local_address is not None:
            os.chmod(self.local_address[5:], 0o666)
        self._server = server
        if self._requested.startswith("unix:"):
            self.address = self._requested
        else:
            host = self._requested.rsplit(":", 1)[0]
            self.address = f"{host}:{port}"
        return self.address

    def _new_server(self, handlers: Sequence[grpc.GenericRpcHandler]) -> grpc.aio.Server:
        """A gRPC server with the bots' message limits, serving ``handlers``."""
        server = grpc.aio.server(
            options=[
                ("grpc.max_receive_message_length", GRPC_RECEIVE_LIMIT),
                ("grpc.max_send_message_length", MAX_SEND_BYTES),
                ("grpc.so_reuseport", 0),
            ]
        )
        server.add_generic_rpc_handlers(tuple(handlers))
        return server

    def _play_handler(self, peer: str | None) -> grpc.GenericRpcHandler:
        """``Dealer.Play``, its streams counted for ``peer`` (None: the peer's address)."""

        async def play(request_iterator: object, context: grpc.aio.ServicerContext) -> None:
            await self.service.Play(request_iterator, context, peer)

        # Responses are written pre-serialized (see ``frame``), so the serializer is the identity;
        # requests are decoded by ``decode``, which sees (and refuses) a message above the limit.
        handler = grpc.stream_stream_rpc_method_handler(play, request_deserializer=decode, response_serializer=bytes)
        return grpc.method_handlers_generic_handler("poker.v1.Dealer", {"Play": handler})

    async def instance_socket(self, label: str) -> str | None:
        """A Unix socket of its own for one bot instance (``unix:/path``, bound as /run/dealer.sock
        in its sandbox), serving ``Play`` alone: its streams are counted for that instance, so one
        that holds many idle streams cannot get a sibling's fresh one dropped (every client of the
        shared socket is one peer). None without local sockets. ``close_instance_socket`` ends it."""
        if self._socket_folder is None:
            return None
        path = os.path.join(self._socket_folder, f"{secrets.token_hex(8)}.sock")
        server = self._new_server([self._play_handler(f"unix:{label}")])
        server.add_insecure_port(f"unix:{path}")
        # A gRPC server whose start is cancelled cannot be stopped cleanly: the start always runs to
        # its end (a match cancelled meanwhile leaves the server to ``stop``).
        starting = asyncio.ensure_future(server.start())
        self._instance_servers[f"unix:{path}"] = server, starting
        await asyncio.shield(starting)
        os.chmod(path, 0o666)
        return f"unix:{path}"

    async def close_instance_socket(self, address: str) -> None:
        """Stop serving an instance's socket (its bot has stopped) and remove it. The server's stop
        goes on if the caller is cancelled (a match stopped half-way); ``stop`` waits for it."""
        entry = self._instance_servers.pop(address, None)
        if entry is not None:
            server, starting = entry
            stopping = asyncio.ensure_future(_stop_started(server, starting))
            self._stopping.add(stopping)
            stopping.add_done_callback(self._stopping.discard)
            await asyncio.shield(stopping)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(address.removeprefix("unix:"))

    async def __aenter__(self) -> DealerServer:
        """Start listening (see ``start``); a start that fails half-way is stopped again."""
        try:
            await self.start()
        except BaseException:
            await self.stop()
            raise
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        """Stop the server, however the block ended."""
        await self.stop()

    def session(self, name: str, token: str | None = None) -> BotSession:
        """Register a new session for a bot; its token is random unless one is given."""
        session = BotSession(name=name, token=token or secrets.token_urlsafe(32))
        self.service.add(session)
        return session

    def close_session(self, session: BotSession) -> None:
        """Stop accepting the session's token."""
        self.service.remove(session)

    async def stop(self, grace_s: float = 1.0) -> None:
        """Stop the server, closing every stream."""
        for address in list(self._instance_servers):
            await self.close_instance_socket(address)
        await asyncio.gather(*self._stopping)
        if self._server is not None:
            await self._server.stop(grace_s)
            self._server = None
            self.health.close()
        if self._socket_folder is not None:
            shutil.rmtree(self._socket_folder, ignore_errors=True)
            self._socket_folder = None
