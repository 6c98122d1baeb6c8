"""A person at the table (``dealer play``): their browser is a connection of ``dealer.connect.pump``, as a
gRPC stream or a launched bot's pipes are. The pump attaches the seat's ``BotSession`` (its ``link``), writes each
batch the link releases (the request's clock starts then, whether or not the page is open: a
person who walks away times out, and three timeouts in a row fail the seat under the match's fault
policy, as for any bot), and routes the replies back. This module only hands batches, as the stdio
contract's objects (``dealer.connect.wire_json``), to a ``Desk`` (the page's side: ``dealer.web.seat``) and
the desk's reply lines, in the stdio contract's form, to the session: a reply is checked as a stdio
bot's is (a malformed one is a ``protocol`` fault, an illegal amount ``illegal_action``).
"""

from __future__ import annotations

import logging
from typing import Protocol

from dealer.connect import wire_json
from dealer.connect.pump import Ended, Inbox, pump
from dealer.connect.session import BotSession

LOGGER = logging.getLogger(__name__)


class Desk(Protocol):
    """Where the person sits: what is shown to them, and the reply lines they send."""

    def show(self, items: list[dict[str, object]]) -> None:
        """A batch's items, as the stdio contract's objects, to show."""

    async def reply(self) -> bytes | None:
        """The next reply line (stdio's form), or None once the desk is closed."""

    def release(self) -> None:
        """The session let go of the seat: no more items will come."""


async def serve(session: BotSession, desk: Desk) -> Ended:
    """Drive ``session`` over ``desk`` until the goodbye or a cut-off."""
    LOGGER.info("a person takes the seat of %s", session.name)
    return await pump(session.link, _Seat(session.name, desk), "browser")


class _Seat:
    """A desk as a connection of the pump."""

    lost = "the person's seat closed without Goodbye"
    broken: tuple[type[BaseException], ...] = ()

    def __init__(self, name: str, desk: Desk) -> None:
        self._name = name
        self._desk = desk

    async def read(self, inbox: Inbox) -> None:
        """Hand each reply line to ``inbox`` until the desk closes."""
        while (line := await self._desk.reply()) is not None:
            message, errors = wire_json.json_replies([line])
            for error in errors:
                LOGGER.debug("seat %s: malformed reply: %s", self._name, error)
                if not inbox.malformed(error):
                    return
            if message is not None and not await inbox.receive(message):
                return

    async def write(self, batch: bytes) -> int | None:
        """Show the batch's items; nothing stays unread (the desk keeps what it shows)."""
        self._desk.show(wire_json.item_dicts(batch))
        return 0

    def close(self) -> None:
        """No more items: the desk says the seat is over."""
        self._desk.release()
