"""Bots that speak JSON lines on stdin/stdout (``protocol: stdio``; the contract: docs/bots-stdio.md).

The dealer launched the bot with pipes; they are a connection of ``dealer.connect.pump``, as a gRPC
stream is: the pump attaches the bot's ``BotSession`` (its ``link``), writes each batch the link releases
(its requests' clocks start then), here as JSON lines, routes the reply lines read back to their
requests, and detaches when either side ends. Clocks, faults, cut-offs, batching and the table
logic are the pump's, the link's, the session's and the match's, the same for every transport: this module
only reads and writes lines. The JSON text itself is made and read in ``dealer.connect.wire``.

Faults: a line that is not a well-formed reply is a ``protocol`` fault (with a notice; the
request it meant stays open until answered or timed out), and counts towards the flood limit;
a line longer than ``MAX_LINE_BYTES`` cuts the bot off (``protocol``); the end of its output
before the goodbye is a ``disconnect``.

Nothing here waits on the bot: batches are handed to the pipe's buffer without waiting for the
bot to read them (a request's clock starts then, as when a gRPC message is written), so a bot that
stops reading times out and is folded instead of holding back the requests queued behind it; one
that leaves more than MAX_BACKLOG_BYTES unread is cut off (``stalled``). Reads are bounded by
MAX_LINE_BYTES a line, and end with the bot's output, at the latest when the dealer stops it.
"""

from __future__ import annotations

import asyncio
import logging

from dealer.connect import wire_json
from dealer.connect.pump import Inbox, pump
from dealer.connect.session import BotSession

LOGGER = logging.getLogger(__name__)
MAX_LINE_BYTES = 1 << 16  # a reply line is under 100 bytes; longer is garbage, not a reply
READ_CHUNK = 1 << 16


async def serve(session: BotSession, stdout: asyncio.StreamReader, stdin: asyncio.StreamWriter) -> None:
    """Drive ``session`` over a launched bot's pipes until the goodbye, the end of its output or a cut-off."""
    LOGGER.info("bot %s connected over its pipes", session.name)
    await pump(session.link, _Pipes(session.name, stdout, stdin))


class _Pipes:
    """A launched bot's stdout and stdin as a connection of the pump (``dealer.connect.pump``)."""

    lost = "its output ended without Goodbye"
    broken: tuple[type[BaseException], ...] = (BrokenPipeError, ConnectionResetError)

    def __init__(self, name: str, stdout: asyncio.StreamReader, stdin: asyncio.StreamWriter) -> None:
        self._name = name
        self._stdout = stdout
        self._stdin = stdin

    async def read(self, inbox: Inbox) -> None:
        """Hand the reply lines read to ``inbox`` until the bot's output ends; a line longer than
        MAX_LINE_BYTES cuts it off."""
        pending = b""
        while chunk := await self._stdout.read(READ_CHUNK):
            data = pending + chunk
            *lines, pending = data.split(b"\n")
            if len(data) > MAX_LINE_BYTES and max(len(line) for line in (*lines, pending)) > MAX_LINE_BYTES:
                inbox.malformed(f"a line longer than {MAX_LINE_BYTES} bytes", fatal=True)
                return
            if lines:
                message, errors = wire_json.json_replies(lines)
                for error in errors:
                    LOGGER.debug("bot %s: malformed line: %s", self._name, error)
                    if not inbox.malformed(error):
                        return
                if message is not None and not await inbox.receive(message):
                    return

    async def write(self, batch: bytes) -> int | None:
        """Hand the batch, as JSON lines, to the pipe's buffer without waiting for the bot to read it;
        the bytes still in that buffer, or None when the bot closed its input."""
        transport = self._stdin.transport
        if transport.is_closing():
            return None
        self._stdin.write(wire_json.json_lines(batch))
        return transport.get_write_buffer_size()

    def close(self) -> None:
        """The end of the bot's input: a bot exits after the goodbye or here."""
        self._stdin.close()
