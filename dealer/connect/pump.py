"""The one pump between a bot's link (its session's connection side) and its connection, whatever the transport.

A ``Connection`` (a gRPC stream in ``dealer.connect.server``, a launched bot's pipes in ``dealer.connect.stdio``,
ACPC clients' sockets in ``dealer.connect.acpc``) only reads and writes bytes in its own format. The pump
owns the rest, the same for every transport: it attaches the link, writes each batch the
link releases (its requests' clocks start then), runs the reader that routes the bot's
replies, cuts the bot off (a flood of replies that answer nothing, a refused message, more than
MAX_BACKLOG_BYTES it leaves unread), counts a connection lost before the goodbye as a
``disconnect``, and draws the error boundary: what the bot can cause ends only its connection;
any other error is the dealer's own, reported (the session's ``on_dealer_error``), never charged.

Imports neither grpc nor the generated protobuf classes.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Protocol

from dealer.connect import wire
from dealer.connect.link import FLOODED, MAX_BACKLOG_BYTES, STALLED, Cut, Link
from dealer.stats.faults import Fault


class Inbox:
    """What a connection's reader hands the bot's messages to; each call says whether to read on."""

    def __init__(self, link: Link) -> None:
        self._link = link

    async def receive(self, message: wire.BotMessage) -> bool:
        """Route a message of replies; False when the bot is cut off (a flood)."""
        return await self.receive_replies(wire.replies_of(message))

    async def receive_replies(self, replies: list[wire.Reply]) -> bool:
        """``receive`` for a message's replies read already from its bytes (``wire_replies.replies``)."""
        if await self._link.receive_replies(replies):
            return True
        self._link.cut_off(FLOODED)
        return False

    def malformed(self, detail: str, *, fatal: bool = False) -> bool:
        """A message or line that is no reply (a ``protocol`` fault and a notice, counted towards the
        flood limit); False when the bot is cut off: past the flood limit, or at once if ``fatal``."""
        if self._link.malformed(detail) and not fatal:
            return True
        self._link.cut_off(FLOODED)
        return False

    def refuse(self, reason: str, cut: Cut) -> None:
        """A message the dealer will not read: ``reason`` is counted and the bot is cut off."""
        self._link.cut_off(cut, reason, cut.detail)


class Connection(Protocol):
    """A bot's transport as the pump drives it: bytes in its own format, no session logic."""

    lost: str  # the detail of a ``disconnect``: how the connection ended before the goodbye
    broken: tuple[type[BaseException], ...]  # errors that mean the bot's side ended, not the dealer's

    async def read(self, inbox: Inbox) -> None:
        """Hand the bot's messages to ``inbox`` until its side ends or ``inbox`` says to stop."""

    async def write(self, batch: bytes) -> int | None:
        """Write a batch (framed items); the bytes written but still unread by the bot (0 where the
        transport holds the write until it is read), or None when the bot's input is closed."""

    def close(self) -> None:
        """The link let go of the connection: release it (the bot's input ends)."""


@dataclass(frozen=True, slots=True)
class Ended:
    """How a connection ended: the dealer's cut-off (its fault counted), whether the dealer failed."""

    cut: Cut | None
    failed: bool


async def pump(link: Link, connection: Connection, version: str = "") -> Ended:
    """Serve ``link`` over ``connection`` (from the task that owns it) until the goodbye, the end
    of the bot's side or a cut-off; ``version`` is what the bot said it runs."""
    link.open(connection, version)
    reader = asyncio.create_task(_read(link, connection))
    dealer_error: BaseException | None = None
    try:
        await _write(link, connection, reader)
        if reader.done():
            reader.result()  # the reader's own error, if the dealer had one
    except asyncio.CancelledError:
        if link.owned_by(connection):  # not a cut-off of the link's (a bot that does not read)
            raise
    except connection.broken:  # the bot's side ended: its end is counted below
        pass
    except Exception as error:  # noqa: BLE001 - the dealer's own: reported, never charged to the bot
        dealer_error = error
    finally:
        reader.cancel()
        cut = link.cut
        link.close(connection, connection.lost, dealer_error)
        connection.close()
    return Ended(cut, dealer_error is not None)


async def _write(link: Link, connection: Connection, reader: asyncio.Task[None]) -> None:
    """Write the link's batches until the reader ends, the bot is cut off or the goodbye is out."""
    while not reader.done():
        await link.wait_batch()
        if not link.owned_by(connection):
            return
        batch, goodbye = link.take_batch()
        if batch:
            unread = await connection.write(batch)
            if unread is None:
                return  # the bot closed its input: its end is seen by the reader
            if unread > MAX_BACKLOG_BYTES:
                detail = f"more than {MAX_BACKLOG_BYTES} bytes unread: the bot does not read"
                link.cut_off(STALLED, Fault.STALLED, detail)
                return
            if goodbye and link.drained:
                return


async def _read(link: Link, connection: Connection) -> None:
    """Run the connection's reader; its side ending (``broken``) ends it quietly, and the writer is woken."""
    try:
        await connection.read(Inbox(link))
    except connection.broken:
        return
    finally:
        link.wake()
