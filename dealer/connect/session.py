"""A bot's session: its seat token and the match's side of it (faults, requests, notices, goodbye).

One ``BotSession`` per seat token, whatever the transport (gRPC, stdio, ACPC) that connects it. The
match talks to the session: it sends requests, notices and the goodbye, and reads the faults
counted against the bot by one reason (``Fault``). The connection side is the session's ``link``
(``dealer.connect.link``), which a transport drives: it queues and batches what is sent, keeps the
requests' clocks and routes the bot's replies, and reports the bot's misbehaviour to the session
(its ``MatchSide``).

Imports neither grpc nor the generated protobuf classes: items come framed by ``dealer.connect.wire``.
"""

from __future__ import annotations

import asyncio
import collections
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from dealer.connect import wire
from dealer.connect.link import Answered, Link

FAULTS_LOGGED: Final = 20  # faults of one reason logged per session; the rest are only counted

LOGGER: Final = logging.getLogger(__name__)


@dataclass(eq=False)
class BotSession:
    """One bot's seat token, its faults and what the match sends it; ``link`` is its connection side."""

    name: str
    token: str = field(repr=False)
    faults: collections.Counter[str] = field(default_factory=collections.Counter)
    on_dealer_error: Callable[[BaseException], None] | None = field(default=None, repr=False)
    requests: int = 0  # ActionRequests sent over the session's life
    _next_id: int = 1
    link: Link = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.link = Link(self)

    @property
    def live(self) -> bool:
        """Whether a bot is connected on this token now."""
        return self.link.live

    @property
    def connected(self) -> asyncio.Event:
        """Set while a bot is connected on this token."""
        return self.link.connected

    @property
    def version(self) -> str:
        """What the bot connected last said it runs."""
        return self.link.version

    @property
    def answers(self) -> int:
        """Of the requests sent, those its bot answered in time (a bot that answered none never played)."""
        return self.link.answers

    def fault(self, reason: str, detail: str, *, table: int = 0, request_id: int = 0) -> None:
        """Count a fault against this bot, and log it with its table and request (the first
        FAULTS_LOGGED of each reason: a flood is not also a flood of the log)."""
        count = self.faults[reason] = self.faults[reason] + 1
        if count <= FAULTS_LOGGED:
            LOGGER.warning(
                "fault %s: bot %s, table %d, request %d: %s%s",
                reason,
                self.name,
                table,
                request_id,
                detail,
                " (further faults of this reason are counted, not logged)" if count == FAULTS_LOGGED else "",
            )

    def uncount(self, reason: str) -> None:
        """Take back one fault of ``reason``: the event it belonged to is counted by another reason."""
        if self.faults[reason] > 1:
            self.faults[reason] -= 1
        else:
            del self.faults[reason]

    def send_framed(self, framed: bytes, *, flush: bool = False) -> None:
        """Queue an item framed by ``wire`` for the next message to this bot (see ``Link.send``)."""
        self.link.send(framed, flush=flush)

    def next_request_id(self) -> int:
        """A fresh request id for this session."""
        self._next_id += 1
        return self._next_id

    def request(self, request_id: int, framed: bytes, allowance_s: float, answered: Answered, *, table: int) -> None:
        """Send a framed ActionRequest of ``table``. ``answered(reply, seconds)`` is called exactly
        once: with the reply (quoting this id and table) when it is read, or with None when the
        time runs out or the bot is lost."""
        if self.link.request(request_id, framed, allowance_s, answered, table=table):
            self.requests += 1

    def notice(self, reason: str, detail: str, request_id: int = 0) -> None:
        """Tell the bot that something it did was not accepted (``reason``: a ``Fault`` a Notice
        can name, or ``wire.DISQUALIFIED``)."""
        self.send_framed(wire.notice(reason, detail, request_id))

    def goodbye(self, reason: str) -> None:
        """Say goodbye: the bot should exit; a disconnect after this is not a fault (for good:
        a bot that connects later is told goodbye at once)."""
        self.link.goodbye(wire.goodbye(reason))
