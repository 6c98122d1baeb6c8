"""The dealer's gRPC service: authenticated bot sessions with batched, fair-clocked requests.

A bot opens one ``Dealer.Play`` stream and sends ``Hello`` with its seat token first. Each
token belongs to one ``BotSession`` and is good for one connection at a time. Items queued for a
session wait until something needs an answer (a request, the end of a match, goodbye), then go
together in one ``DealerMessage``, so many tables and events share the per-message cost. Items
are serialized once, framed as the ``items`` field of a ``DealerMessage``, and shared by every
session that receives them. A request's clock starts when the message carrying it is written
and stops when the answer is read: the dealer's own work is never charged to a bot.
"""

from __future__ import annotations

import asyncio
import collections
import gc
import hashlib
import hmac
import os
import secrets
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field

import grpc
from google.protobuf.message import DecodeError
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from dealer.wire import frame
from poker.v1 import dealer_pb2 as pb
from poker.v1 import dealer_pb2_grpc

PROTOCOL_VERSION = 1
MAX_MESSAGE_BYTES = 1 << 20
AUTH_TIMEOUT_S = 5.0
FLOOD_LIMIT = 2000  # replies not matching any open request before a bot is cut off
MAX_UNAUTHENTICATED = 256  # streams waiting for their Hello at once; more are refused at once
LATE_MEMORY = 256  # timed-out request ids remembered, so a late answer is not also "unexpected"


def tune_gc() -> None:
    """Collect cyclic garbage less often: a dealer makes many short-lived objects per decision
    and few cycles, so the default thresholds spend ~4% of its time in collections. What exists
    so far (modules, tables) is frozen out of them."""
    gc.freeze()
    gc.set_threshold(20_000, 20, 100)


class Fault:
    """Reasons a bot is charged with, as they appear in results."""

    TIMEOUT = "timeout"
    ILLEGAL = "illegal_action"
    UNEXPECTED = "unexpected_reply"
    PROTOCOL = "protocol"
    DISCONNECT = "disconnect"
    CRASH = "crash"
    NO_CONNECT = "no_connect"
    AUTH = "authentication"
    FLOOD = "flood"
    MEMORY = "memory"
    START = "start_failed"


Answered = Callable[[pb.ActionReply | None, float], None]


@dataclass(slots=True)
class _Deadline:
    """One timer for the requests of a batch that share a time allowance."""

    handle: asyncio.TimerHandle | None = None
    left: int = 0  # requests still open: the timer is cancelled when none is


@dataclass(slots=True)
class _Pending:
    """An open ActionRequest: who to tell, its time allowance, when it was sent, its timer."""

    answered: Answered
    allowance_s: float
    sent_at: float = 0.0
    deadline: _Deadline | None = None


@dataclass(eq=False)
class BotSession:
    """One bot's seat token, its connection (if any), its outbound batch and its open requests."""

    name: str
    token: str = field(repr=False)
    faults: collections.Counter[str] = field(default_factory=collections.Counter)
    connected: asyncio.Event = field(default_factory=asyncio.Event)
    disconnected: asyncio.Event = field(default_factory=asyncio.Event)
    version: str = ""
    _outbox: list[bytes] = field(default_factory=list)  # framed items
    _outbox_requests: list[int] = field(default_factory=list)  # request ids among them
    _wake: asyncio.Event = field(default_factory=asyncio.Event)
    _open: dict[int, _Pending] = field(default_factory=dict)
    _next_id: int = 1
    requests: int = 0  # ActionRequests sent over the session's life
    _stray: int = 0
    _late: dict[int, None] = field(default_factory=dict)
    _context: grpc.aio.ServicerContext | None = None
    _goodbye: bool = False

    @property
    def live(self) -> bool:
        """Whether a bot is connected on this token now."""
        return self._context is not None

    def send(self, item: pb.Item, *, flush: bool = False) -> None:
        """Queue an item for the next message to this bot (dropped if it is not connected)."""
        self.send_framed(frame(item), flush=flush)

    def send_framed(self, framed: bytes, *, flush: bool = False) -> None:
        """Queue an item already framed by ``frame`` (shared by every seat that receives it)."""
        if self._context is not None:
            self._outbox.append(framed)
            if flush:
                self._wake.set()

    def next_request_id(self) -> int:
        """A fresh request id for this session."""
        self._next_id += 1
        return self._next_id

    def request(self, request_id: int, framed: bytes, allowance_s: float, answered: Answered) -> None:
        """Send a framed ActionRequest. ``answered(reply, seconds)`` is called exactly once: with
        the reply when it is read, or with None when the time runs out or the bot is lost."""
        if self._context is None:
            asyncio.get_running_loop().call_soon(answered, None, 0.0)
            return
        self._open[request_id] = _Pending(answered, allowance_s)
        self._outbox_requests.append(request_id)
        self._outbox.append(framed)
        self.requests += 1
        self._wake.set()

    def notice(self, reason: int, detail: str, request_id: int = 0) -> None:
        """Tell the bot that something it did was not accepted."""
        self.send(pb.Item(notice=pb.Notice(reason=reason, detail=detail, request_id=request_id)))

    def goodbye(self, reason: str) -> None:
        """Say goodbye: the bot should exit; a disconnect after this is not a fault."""
        self._goodbye = True
        self.send(pb.Item(goodbye=pb.Goodbye(reason=reason)), flush=True)

    # ------------------------------------------------------------- stream side

    def _attach(self, context: grpc.aio.ServicerContext, version: str) -> None:
        self._context = context
        self.version = version
        self._goodbye = False
        self._late.clear()
        self._outbox.clear()
        self._outbox_requests.clear()
        self.disconnected.clear()
        self.connected.set()

    def _detach(self) -> None:
        self._context = None
        self.connected.clear()
        self.disconnected.set()
        self._outbox.clear()
        self._outbox_requests.clear()
        self._wake.set()
        lost, self._open = self._open, {}
        now = asyncio.get_running_loop().time()
        for pending in lost.values():
            self._close(pending)
            pending.answered(None, now - pending.sent_at if pending.sent_at else 0.0)

    def _take_batch(self, now: float) -> bytes:
        """Everything queued as one serialized DealerMessage, with its requests' clocks started
        now: one timer for each time allowance among them."""
        batch, self._outbox = self._outbox, []
        requests, self._outbox_requests = self._outbox_requests, []
        self._wake.clear()
        groups: dict[float, list[int]] = {}
        for request_id in requests:
            pending = self._open.get(request_id)
            if pending is not None:
                pending.sent_at = now
                groups.setdefault(pending.allowance_s, []).append(request_id)
        loop = asyncio.get_running_loop()
        for allowance_s, ids in groups.items():
            deadline = _Deadline(left=len(ids))
            deadline.handle = loop.call_at(now + allowance_s, self._expire, ids, deadline)
            for request_id in ids:
                self._open[request_id].deadline = deadline
        return b"".join(batch)

    @staticmethod
    def _close(pending: _Pending) -> None:
        """The request is settled: cancel its timer when no other request shares it."""
        deadline = pending.deadline
        if deadline is not None:
            deadline.left -= 1
            if deadline.left == 0 and deadline.handle is not None:
                deadline.handle.cancel()

    def _expire(self, ids: list[int], deadline: _Deadline) -> None:
        """Time is up for the requests of ``ids`` still open: a timeout each."""
        now = asyncio.get_running_loop().time()
        for request_id in ids:
            pending = self._open.get(request_id)
            if pending is None or pending.deadline is not deadline:
                continue
            del self._open[request_id]
            self.faults[Fault.TIMEOUT] += 1
            self._late[request_id] = None
            if len(self._late) > LATE_MEMORY:
                del self._late[next(iter(self._late))]
            pending.answered(None, now - pending.sent_at)

    def _receive(self, message: pb.BotMessage) -> bool:
        """Route a bot's replies to their requests; False when the bot must be cut off (flood)."""
        now = asyncio.get_running_loop().time()
        if not message.actions:
            self._stray += 1
        opened = self._open
        for reply in message.actions:
            if self._stray > FLOOD_LIMIT:
                break
            request_id = reply.request_id
            pending = opened.get(request_id)
            if pending is not None and pending.sent_at:
                del opened[request_id]
                self._close(pending)
                pending.answered(reply, now - pending.sent_at)
            elif pending is None and request_id in self._late:
                del self._late[request_id]  # answered too late: already counted as a timeout
                self.notice(pb.FAULT_REASON_TIMEOUT, "answer came after the time limit", request_id)
            else:
                self.faults[Fault.UNEXPECTED] += 1
                self._stray += 1
                self.notice(pb.FAULT_REASON_UNEXPECTED_REPLY, "no open request with this id", request_id)
        if self._stray > FLOOD_LIMIT:
            self.faults[Fault.FLOOD] += 1
            return False
        return True


class DealerService(dealer_pb2_grpc.DealerServicer):
    """Authenticates streams by token and pumps messages between them and their sessions."""

    def __init__(self, on_auth_failure: Callable[[str], None]) -> None:
        self._sessions: dict[bytes, BotSession] = {}
        self._on_auth_failure = on_auth_failure
        self._unauthenticated = 0

    def add(self, session: BotSession) -> None:
        """Accept connections with this session's token."""
        self._sessions[hashlib.sha256(session.token.encode()).digest()] = session

    def remove(self, session: BotSession) -> None:
        """Stop accepting this session's token."""
        self._sessions.pop(hashlib.sha256(session.token.encode()).digest(), None)

    def _lookup(self, token: str) -> BotSession | None:
        session = self._sessions.get(hashlib.sha256(token.encode("utf-8", "replace")).digest())
        if session is not None and hmac.compare_digest(session.token.encode(), token.encode("utf-8", "replace")):
            return session
        return None

    async def Play(self, request_iterator: object, context: grpc.aio.ServicerContext) -> None:  # noqa: N802
        """One bot's stream: authenticate, then read replies and write batches until it ends."""
        if self._unauthenticated >= MAX_UNAUTHENTICATED:
            self._on_auth_failure("too many streams waiting to authenticate")
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, "too many unauthenticated streams")
            return
        self._unauthenticated += 1
        try:
            first = await asyncio.wait_for(context.read(), AUTH_TIMEOUT_S)
        except asyncio.TimeoutError:
            self._on_auth_failure("no Hello within the authentication time limit")
            await context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, "send Hello with your token first")
            return
        except DecodeError:
            self._on_auth_failure("first message was not a BotMessage")
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "malformed message: not a poker.v1.BotMessage")
            return
        finally:
            self._unauthenticated -= 1
        if first is None or first is grpc.aio.EOF or not first.HasField("hello"):
            self._on_auth_failure("first message was not a Hello")
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "the first message must carry Hello")
            return
        session = self._lookup(first.hello.token)
        if session is None:
            self._on_auth_failure("unknown token")
            await context.abort(grpc.StatusCode.UNAUTHENTICATED, "unknown token")
            return
        if session.live:
            session.faults[Fault.AUTH] += 1
            await context.abort(grpc.StatusCode.ALREADY_EXISTS, "this token is already connected")
            return
        session._attach(context, first.hello.version[:64])
        session.send(pb.Item(welcome=pb.Welcome(name=session.name, protocol_version=PROTOCOL_VERSION)), flush=True)
        reader = asyncio.create_task(self._read(session, context))
        loop = asyncio.get_running_loop()
        try:
            while not reader.done():
                await session._wake.wait()
                if session._context is not context:
                    break
                goodbye = session._goodbye
                batch = session._take_batch(loop.time())
                if batch:
                    await context.write(batch)
                    if goodbye:
                        break
        finally:
            reader.cancel()
            cut = reader.result() if reader.done() and not reader.cancelled() else None
            if session._context is context:
                if not session._goodbye and cut is None:
                    session.faults[Fault.DISCONNECT] += 1
                session._detach()
        if cut is not None:  # tell the bot why its stream ends (its fault is counted already)
            await context.abort(*cut)

    async def _read(
        self, session: BotSession, context: grpc.aio.ServicerContext
    ) -> tuple[grpc.StatusCode, str] | None:
        """Read until the stream ends; return a status when the dealer cuts the bot off."""
        try:
            while True:
                message = await context.read()
                if message is grpc.aio.EOF:
                    return None
                if message is None:  # grpc's deserializer may log the error and return None instead
                    raise DecodeError("undecodable message")
                if not session._receive(message):
                    return grpc.StatusCode.RESOURCE_EXHAUSTED, "too many messages that answer no request"
        except DecodeError:  # not a BotMessage: the dealer ends the bot's session
            session.faults[Fault.PROTOCOL] += 1
            return grpc.StatusCode.INVALID_ARGUMENT, "malformed message: not a poker.v1.BotMessage"
        except (asyncio.CancelledError, Exception):  # the stream broke: counted as a disconnect
            return None
        finally:
            session._wake.set()


class DealerServer:
    """The gRPC server, with the health and reflection services, and its session registry."""

    def __init__(
        self, address: str = "127.0.0.1:0", *, credentials: grpc.ServerCredentials | None = None,
        local_socket: bool = True,
    ) -> None:
        """``local_socket``: also listen on a Unix socket in a fresh folder, for bots that have no
        network (``network: none``); its address is ``local_address`` once started."""
        self.auth_failures: collections.Counter[str] = collections.Counter()
        self.service = DealerService(lambda reason: self.auth_failures.update([reason]))
        self._requested = address
        self._credentials = credentials
        self._server: grpc.aio.Server | None = None
        self._local_socket = local_socket
        self._socket_folder: str | None = None
        self.address = address
        self.local_address: str | None = None

    async def start(self) -> str:
        """Start listening; return the address bots should dial (with the real port)."""
        server = grpc.aio.server(
            options=[
                ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
                ("grpc.max_send_message_length", 64 * MAX_MESSAGE_BYTES),
                ("grpc.so_reuseport", 0),
            ]
        )
        # Responses are written pre-serialized (see ``frame``), so the serializer is the identity.
        play = grpc.stream_stream_rpc_method_handler(
            self.service.Play, request_deserializer=pb.BotMessage.FromString, response_serializer=bytes
        )
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler("poker.v1.Dealer", {"Play": play}),))
        health_servicer = health.aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
        await health_servicer.set("poker.v1.Dealer", health_pb2.HealthCheckResponse.SERVING)
        await health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
        reflection.enable_server_reflection(
            (pb.DESCRIPTOR.services_by_name["Dealer"].full_name, health.SERVICE_NAME, reflection.SERVICE_NAME), server
        )
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
        if self._server is not None:
            await self._server.stop(grace_s)
            self._server = None
        if self._socket_folder is not None:
            shutil.rmtree(self._socket_folder, ignore_errors=True)
            self._socket_folder = None
