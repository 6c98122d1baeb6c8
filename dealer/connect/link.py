"""A bot's link: the connection side of its session, what a transport's pump drives.

One ``Link`` per session (``dealer.connect.session``), across the connections that come and go on
its token, one at a time. Items queued for the bot wait in its ``Outbox`` until something needs an
answer (a request, the end of a match, goodbye), then go together in one message of at most
MAX_MESSAGE_BYTES. A request's clock (``Clocks``) starts when the message carrying it is written
and stops when the answer is read: the dealer's own work is never charged to a bot. The link routes
the bot's replies to their requests and cuts off a bot that floods it or does not read; what the
bot does wrong it reports to the session's ``MatchSide`` (which counts faults); an error of the
dealer's own is logged and handed to that side's ``on_dealer_error``.

Imports neither grpc nor the generated protobuf classes: items come framed by ``dealer.connect.wire``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Final, Protocol

from dealer.connect import wire
from dealer.connect.wire import Reply
from dealer.stats.faults import Fault

PROTOCOL_VERSION: Final = 1
MAX_MESSAGE_BYTES: Final = 1 << 20  # the largest message either way: a bot's larger one is a protocol fault
MAX_BACKLOG_BYTES: Final = 32 * MAX_MESSAGE_BYTES  # queued for a bot that does not read its stream: cut off
FLOOD_LIMIT: Final = 2000  # replies not matching any open request before a bot is cut off
REPLY_SLICE: Final = 256  # replies of one message routed between two yields to the event loop
LATE_MEMORY: Final = 256  # timed-out request ids remembered, so a late answer is not also "unexpected"

LOGGER: Final = logging.getLogger(__name__)


Answered = Callable[[Reply | None, float], None]


@dataclass(frozen=True, slots=True)
class Cut:
    """Why the dealer cut a bot off (its fault is counted already): a gRPC status name, which a
    stream ends with, and a sentence for the bot."""

    status: str
    detail: str


STALLED: Final = Cut("RESOURCE_EXHAUSTED", "the bot does not read its stream")
FLOODED: Final = Cut("RESOURCE_EXHAUSTED", "too many messages that answer no request")


class _Deadline:
    """One timer for the requests of a batch that share a time allowance.

    Plain classes, not dataclasses, here and in ``_Pending``: compiled by mypyc, a dataclass's
    ``__init__`` is still the interpreted one the dataclasses module writes (7x the cost of this
    one), and a ``_Pending`` is made for every request."""

    __slots__ = ("handle", "left")

    def __init__(self, handle: asyncio.TimerHandle | None = None, left: int = 0) -> None:
        self.handle = handle
        self.left = left  # requests still open: the timer is cancelled when none is


class _Pending:
    """An open ActionRequest: who to tell, its table, its time allowance, when it was sent, its timer."""

    __slots__ = ("allowance_s", "answered", "deadline", "sent_at", "table")

    def __init__(
        self,
        answered: Answered,
        table: int,
        allowance_s: float,
        sent_at: float = 0.0,
        deadline: _Deadline | None = None,
    ) -> None:
        self.answered = answered
        self.table = table
        self.allowance_s = allowance_s
        self.sent_at = sent_at
        self.deadline = deadline


@dataclass(slots=True)
class Clocks:
    """A session's open requests and their clocks: each starts when the message carrying it is
    written (one timer per time allowance of a batch) and stops when it is answered, lost or runs
    out; the last LATE_MEMORY that ran out are remembered, so a late answer is told apart."""

    open: dict[int, _Pending] = field(default_factory=dict)
    late: dict[int, None] = field(default_factory=dict)

    def start(self, requests: list[int], now: float, expire: Callable[[list[int], _Deadline], None]) -> None:
        """Start the clocks of ``requests`` (sent at ``now``): ``expire(ids, deadline)`` is called
        when a group's allowance runs out."""
        groups: dict[float, tuple[list[int], _Deadline]] = {}
        opened, allowance_s, deadline = self.open, -1.0, _Deadline()
        ids: list[int] = []
        for request_id in requests:
            pending = opened.get(request_id)
            if pending is not None:
                pending.sent_at = now
                if pending.allowance_s != allowance_s:  # a batch's requests mostly share one allowance
                    allowance_s = pending.allowance_s
                    ids, deadline = groups.get(allowance_s) or groups.setdefault(allowance_s, ([], _Deadline()))
                ids.append(request_id)
                deadline.left += 1
                pending.deadline = deadline
        loop = asyncio.get_running_loop()
        for allowance_s, (ids, deadline) in groups.items():
            deadline.handle = loop.call_at(now + allowance_s, expire, ids, deadline)

    @staticmethod
    def stop(pending: _Pending) -> None:
        """The request is settled: cancel its timer when no other request shares it."""
        deadline = pending.deadline
        if deadline is not None:
            deadline.left -= 1
            if deadline.left == 0 and deadline.handle is not None:
                deadline.handle.cancel()

    def expired(self, ids: list[int], deadline: _Deadline) -> list[tuple[int, _Pending]]:
        """The requests of ``ids`` still open on ``deadline``: closed, and remembered as late."""
        found = []
        for request_id in ids:
            pending = self.open.get(request_id)
            if pending is None or pending.deadline is not deadline:
                continue
            del self.open[request_id]
            self.late[request_id] = None
            if len(self.late) > LATE_MEMORY:
                del self.late[next(iter(self.late))]
            found.append((request_id, pending))
        return found

    def lost(self) -> list[_Pending]:
        """Every open request, closed (the connection ended)."""
        lost, self.open = list(self.open.values()), {}
        for pending in lost:
            self.stop(pending)
        return lost


@dataclass(slots=True)
class Outbox:
    """What waits to be sent to one bot: framed items, their size in bytes, and the requests among
    them with their places, so that a backlog above MAX_MESSAGE_BYTES goes out in pieces."""

    items: list[bytes] = field(default_factory=list)
    size: int = 0
    requests: list[tuple[int, int]] = field(default_factory=list)  # (request id, its index in items)

    def put(self, framed: bytes, request_id: int | None = None) -> None:
        """Queue an item (an ActionRequest when ``request_id`` is given)."""
        if request_id is not None:
            self.requests.append((request_id, len(self.items)))
        self.items.append(framed)
        self.size += len(framed)

    def clear(self) -> None:
        """Drop everything queued (the connection ended, or a new one starts)."""
        self.items.clear()
        self.requests.clear()
        self.size = 0

    def take(self) -> tuple[list[bytes], list[int]]:
        """The items of the next message (all, or the first up to MAX_MESSAGE_BYTES of a larger
        backlog: the rest stays queued) and the ids of the requests among them."""
        if self.size <= MAX_MESSAGE_BYTES:
            batch, self.items = self.items, []
            requests, self.requests = self.requests, []
            self.size = 0
            return batch, [request_id for request_id, _ in requests]
        size = cut = 0
        for framed in self.items:
            if cut and size + len(framed) > MAX_MESSAGE_BYTES:
                break
            size += len(framed)
            cut += 1
        batch = self.items[:cut]
        del self.items[:cut]
        self.size -= size
        taken = [request_id for request_id, at in self.requests if at < cut]
        self.requests = [(request_id, at - cut) for request_id, at in self.requests if at >= cut]
        return batch, taken


class MatchSide(Protocol):
    """The match's side of a session, as its link reports to it: the bot's name, where a fault is
    counted, and who hears of an error of the dealer's own (None: it is raised)."""

    name: str
    on_dealer_error: Callable[[BaseException], None] | None

    def fault(self, reason: str, detail: str, *, table: int = 0, request_id: int = 0) -> None:
        """Count a fault against the bot (a ``Fault`` reason), with the table and request it concerns."""


class Link:
    """A session's connection side: the connection attached (if any), the outbox, the open
    requests' clocks, and the cut-off; a transport drives it through ``dealer.connect.pump``."""

    def __init__(self, side: MatchSide) -> None:
        self._side = side
        self.connected = asyncio.Event()  # set while a connection is attached
        self.version = ""  # what the bot connected last said it runs
        self.answers = 0  # requests its bot answered in time (a bot that answered none never played)
        self._outbox = Outbox()
        self._wake = asyncio.Event()
        self._clocks = Clocks()
        self._stray = 0
        # the connection attached (dealer.connect.pump's Connection): only its end detaches
        self._owner: object | None = None
        # the task serving the connection, cancelled to cut a stalled bot off
        self._stream: asyncio.Task[object] | None = None
        self._cut: Cut | None = None  # why the dealer ends the connection (its fault is counted)
        self._goodbye = False

    @property
    def live(self) -> bool:
        """Whether a bot is connected now."""
        return self._owner is not None

    # ------------------------------------------------------------- what the match's side sends

    def send(self, framed: bytes, *, flush: bool = False) -> None:
        """Queue an item framed by ``wire`` (shared by every seat that receives it) for the next
        message to this bot (dropped if it is not connected).

        A backlog above MAX_MESSAGE_BYTES is written at once (in messages of at most that size);
        one above MAX_BACKLOG_BYTES (the bot does not read its stream) cuts the bot off."""
        if self._owner is not None:
            self._outbox.put(framed)
            if flush or self._outbox.size > MAX_MESSAGE_BYTES:
                self._wake.set()
                if self._outbox.size > MAX_BACKLOG_BYTES:
                    self._stalled()

    def request(self, request_id: int, framed: bytes, allowance_s: float, answered: Answered, *, table: int) -> bool:
        """Send a framed ActionRequest of ``table``; whether it was sent (False: no bot is connected,
        and ``answered(None, 0.0)`` is called soon). ``answered(reply, seconds)`` is called exactly
        once: with the reply (quoting this id and table) when it is read, or with None when the time
        runs out or the bot is lost."""
        if self._owner is None:
            asyncio.get_running_loop().call_soon(answered, None, 0.0)
            return False
        self._clocks.open[request_id] = _Pending(answered, table, allowance_s)
        asleep = not self._outbox.requests  # else the wake is set: only a batch that takes every request clears it
        self._outbox.put(framed, request_id)
        if asleep:
            self._wake.set()  # (an interpreted call: once per batch, not per request)
        return True

    def goodbye(self, framed: bytes) -> None:
        """Send the goodbye ``framed``: a disconnect after this is not a fault (for good: a bot that
        connects later is told goodbye at once)."""
        self._goodbye = True
        self.send(framed, flush=True)

    # ------------------------------------------------------------- the connection's side (dealer.connect.pump)

    def open(self, owner: object, version: str = "") -> None:
        """Attach a connection (from the task that serves it, which a stalled bot's cut-off cancels)
        and welcome the bot. ``owner`` stands for the connection: only the current owner's end detaches."""
        self._attach(owner, version)
        self.send(wire.welcome(self._side.name, PROTOCOL_VERSION), flush=True)
        if self._goodbye:  # it connects after its goodbye (it came too late): say it again, no fault
            self.goodbye(wire.goodbye("session over"))

    def wake(self) -> None:
        """Wake ``wait_batch`` (the connection's reader ended)."""
        self._wake.set()

    def owned_by(self, owner: object) -> bool:
        """Whether ``owner``'s connection is still the link's, and not cut off."""
        return self._owner is owner and self._cut is None

    async def wait_batch(self) -> None:
        """Wait until something is queued that must go out now (or the connection ends)."""
        await self._wake.wait()

    def take_batch(self) -> tuple[bytes, bool]:
        """What the connection writes next (at most MAX_MESSAGE_BYTES), with its requests' clocks
        started now, and whether the goodbye was said before it (see ``drained``)."""
        goodbye = self._goodbye
        return self._take_batch(asyncio.get_running_loop().time()), goodbye

    @property
    def drained(self) -> bool:
        """Whether nothing is queued: after the goodbye's batch, the session is over."""
        return not self._outbox.items

    async def receive(self, message: wire.BotMessage) -> bool:
        """Route a message of replies (sliced: see ``_receive_sliced``); False when the bot must be
        cut off (flood)."""
        return await self._receive_sliced(wire.replies_of(message))

    async def receive_replies(self, replies: list[Reply]) -> bool:
        """``receive`` for a message's replies read already (``wire_replies.replies``)."""
        return await self._receive_sliced(replies)

    def malformed(self, detail: str) -> bool:
        """A line that is no reply: a ``protocol`` fault and a notice; it also counts towards the
        flood limit, so False when the bot must be cut off."""
        self._side.fault(Fault.PROTOCOL, detail)
        self._stray += 1
        self._notice(Fault.PROTOCOL, detail)
        if self._stray > FLOOD_LIMIT:
            self._side.fault(Fault.FLOOD, f"more than {FLOOD_LIMIT} lines that answer no request")
            return False
        return True

    def cut_off(self, cut: Cut, reason: str | None = None, detail: str = "") -> None:
        """End the connection for ``cut`` (once), counting ``reason`` first when it is not counted yet."""
        if self._cut is None:
            if reason is not None:
                self._side.fault(reason, detail)
            self._cut = cut

    @property
    def cut(self) -> Cut | None:
        """Why the dealer ended the current connection, if it did."""
        return self._cut

    def close(self, owner: object, lost: str, error: BaseException | None = None) -> None:
        """``owner``'s connection ended: a ``disconnect`` (``lost`` says how) unless the dealer said
        goodbye or cut the bot off (its fault is counted already); ``error``, the dealer's own, is
        reported and charged to no bot."""
        if self._owner is owner:
            if not self._goodbye and self._cut is None and error is None:
                self._side.fault(Fault.DISCONNECT, lost)
            self._detach()
            LOGGER.info("bot %s disconnected", self._side.name)
        self._wake.set()
        if error is not None:
            self._dealer_error(error)

    # ------------------------------------------------------------- the requests' clocks and routing

    def _attach(self, owner: object, version: str) -> None:
        self._owner = owner
        self._stream = asyncio.current_task()
        self.version = version
        self._cut = None
        self._clocks.late.clear()
        self._outbox.clear()
        self.connected.set()

    def _detach(self) -> None:
        self._owner = None
        self._stream = None
        self.connected.clear()
        self._outbox.clear()
        self._wake.set()
        lost = self._clocks.lost()
        now = asyncio.get_running_loop().time()
        self._settle([(pending, None, now - pending.sent_at if pending.sent_at else 0.0) for pending in lost])

    def _notice(self, reason: str, detail: str, request_id: int = 0) -> None:
        """Tell the bot that something it did was not accepted (``reason``: a ``Fault`` a Notice can name)."""
        self.send(wire.notice(reason, detail, request_id))

    def _settle(self, answers: Sequence[tuple[_Pending, Reply | None, float]]) -> None:
        """Tell each request's owner its answer. An error there is the dealer's own: every other
        request is still answered (no table is left waiting), then the error is reported."""
        errors = []
        for pending, reply, elapsed in answers:
            try:
                pending.answered(reply, elapsed)
            except Exception as error:  # noqa: BLE001 - reported below, after the other answers
                errors.append(error)
        for failure in errors:
            self._dealer_error(failure)

    def _dealer_error(self, error: BaseException) -> None:
        """An error of the dealer's own while serving this bot: logged with its traceback, then
        handed to ``on_dealer_error`` (raised when there is none)."""
        LOGGER.error("dealer error while serving bot %s", self._side.name, exc_info=error)
        handler = self._side.on_dealer_error
        if handler is None:
            raise error
        handler(error)

    def _stalled(self) -> None:
        """The bot does not read what it is sent: count it once and end its connection."""
        if self._cut is None:
            detail = f"more than {MAX_BACKLOG_BYTES} bytes wait to be sent: the bot does not read"
            self.cut_off(STALLED, Fault.STALLED, detail)
            if self._stream is not None:
                self._stream.cancel()

    def _take_batch(self, now: float) -> bytes:
        """What is queued, as one serialized DealerMessage of at most MAX_MESSAGE_BYTES (the rest
        stays queued), with its requests' clocks started now: one timer for each time allowance."""
        if self._outbox.size <= MAX_MESSAGE_BYTES:
            self._wake.clear()  # all of it goes: nothing waits to be sent
        batch, requests = self._outbox.take()
        self._clocks.start(requests, now, self._expire)
        return b"".join(batch)

    def _expire(self, ids: list[int], deadline: _Deadline) -> None:
        """Time is up for the requests of ``ids`` still open: a timeout each."""
        now = asyncio.get_running_loop().time()
        expired = self._clocks.expired(ids, deadline)
        for request_id, pending in expired:
            self._side.fault(Fault.TIMEOUT, "no answer in time", table=pending.table, request_id=request_id)
        self._settle([(pending, None, now - pending.sent_at) for _, pending in expired])

    def _receive(self, message: wire.BotMessage) -> bool:
        """Route a bot's replies to their requests; False when the bot must be cut off (flood)."""
        return self._receive_replies(wire.replies_of(message))

    def _receive_replies(self, replies: list[Reply]) -> bool:
        """Route a message's replies to their requests; False when the bot must be cut off (flood).

        A reply settles a request only if it quotes both its id and its table; a message of no
        reply counts towards the flood limit."""
        if not replies:
            self._stray += 1
        return self._route(replies, asyncio.get_running_loop().time())

    async def _receive_sliced(self, replies: list[Reply]) -> bool:
        """Route a message's replies as ``_receive`` does, REPLY_SLICE at a time with a yield to the
        event loop between slices: a message of thousands of stray replies (a flood, each reply a
        fault and a notice) never holds the other bots' answers back. Every reply's clock stops
        at the time the message was read, so the dealer's pauses are never charged to the bot."""
        if len(replies) <= REPLY_SLICE:
            return self._receive_replies(replies)
        now = asyncio.get_running_loop().time()
        owner = self._owner
        for start in range(0, len(replies), REPLY_SLICE):
            if start:
                await asyncio.sleep(0)
                if self._owner is not owner or self._cut is not None:
                    return True  # its connection ended or was cut meanwhile: nothing more to route
            if not self._route(replies[start : start + REPLY_SLICE], now):
                return False
        return True

    def _route(self, replies: Sequence[Reply], now: float) -> bool:
        """Settle the requests ``replies`` answer (read at ``now``); each stray reply is a fault and a
        notice. False when the bot must be cut off (flood)."""
        clocks = self._clocks
        opened = clocks.open
        errors = []
        for answer in replies:
            if self._stray > FLOOD_LIMIT:
                break
            request_id = answer.request_id
            pending = opened.get(request_id)
            if pending is not None and pending.sent_at and pending.table == answer.table:
                del opened[request_id]
                clocks.stop(pending)
                self.answers += 1
                try:
                    pending.answered(answer, now - pending.sent_at)
                except Exception as error:  # noqa: BLE001 - the dealer's own: reported after the other replies
                    errors.append(error)
            elif pending is None and request_id in clocks.late:
                del clocks.late[request_id]  # answered too late: already counted as a timeout
                self._notice(Fault.TIMEOUT, "answer came after the time limit", request_id)
            else:
                if pending is not None and pending.sent_at:
                    detail = f"request {request_id} belongs to table {pending.table}, not {answer.table}"
                else:
                    detail = "no open request with this id"
                self._side.fault(Fault.UNEXPECTED, detail, table=answer.table, request_id=request_id)
                self._stray += 1
                self._notice(Fault.UNEXPECTED, detail, request_id)
        for failure in errors:
            self._dealer_error(failure)
        if self._stray > FLOOD_LIMIT:
            self._side.fault(Fault.FLOOD, f"more than {FLOOD_LIMIT} messages or replies that answer no request")
            return False
        return True
