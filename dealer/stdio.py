"""Bots that speak JSON lines on stdin/stdout (``protocol: stdio``; the contract: docs/bots-stdio.md).

The dealer launched the bot with pipes; this adapter drives the bot's ``BotSession`` as
``DealerService.Play`` drives a gRPC stream: it attaches the session, writes each batch the
session releases (its requests' clocks start then) as JSON lines, routes the reply lines read
back to their requests, and detaches when either side ends. Clocks, faults, batching and the
table logic are the session's and the match's, the same for every transport: this is no second
dealer. The JSON text itself is made and read in ``dealer.wire`` (protobuf stays there).

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

from dealer import wire
from dealer.faults import Fault
from dealer.session import MAX_BACKLOG_BYTES, BotSession

LOGGER = logging.getLogger(__name__)
MAX_LINE_BYTES = 1 << 16  # a reply line is under 100 bytes; longer is garbage, not a reply
READ_CHUNK = 1 << 16


async def serve(session: BotSession, stdout: asyncio.StreamReader, stdin: asyncio.StreamWriter) -> None:
    """Drive ``session`` over a launched bot's pipes until the goodbye, the end of its output or a cut-off."""
    owner = object()  # this connection, as a gRPC stream's context stands for it
    session.open(owner)
    reader = asyncio.create_task(_read(session, stdout))
    error: BaseException | None = None
    stalled = False
    try:
        while not reader.done():
            await session.wait_batch()
            if not session.owned_by(owner):
                break
            batch, goodbye = session.take_batch()
            if batch:
                if stdin.transport.is_closing():
                    break  # the bot closed its input: its end is seen by the reader
                stdin.write(wire.json_lines(batch))
                if stdin.transport.get_write_buffer_size() > MAX_BACKLOG_BYTES:
                    session.fault(Fault.STALLED, f"more than {MAX_BACKLOG_BYTES} bytes unread: the bot does not read")
                    stalled = True
                    break
                if goodbye:
                    break
        if reader.done():
            reader.result()  # the reader's own error, if the dealer had one
    except asyncio.CancelledError:
        if session.owned_by(owner):  # not a cut-off of the session's (a bot that does not read)
            raise
    except (BrokenPipeError, ConnectionResetError):  # the bot closed its input: its end is seen below
        pass
    except Exception as failure:  # noqa: BLE001 - the dealer's own: reported, never charged to the bot
        error = failure
    finally:
        reader.cancel()
        cut = reader.done() and not reader.cancelled() and reader.exception() is None and reader.result()
        session.close(owner, cut=bool(cut) or stalled, error=error)
        stdin.close()  # the end of its input: a bot exits after the goodbye or here


async def _read(session: BotSession, stdout: asyncio.StreamReader) -> bool:
    """Read reply lines until the bot's output ends; True when the bot was cut off."""
    pending = b""
    try:
        while chunk := await stdout.read(READ_CHUNK):
            data = pending + chunk
            *lines, pending = data.split(b"\n")
            if len(data) > MAX_LINE_BYTES and max(len(line) for line in (*lines, pending)) > MAX_LINE_BYTES:
                session.malformed(f"a line longer than {MAX_LINE_BYTES} bytes")
                return True
            if lines:
                message, errors = wire.json_replies(lines)
                for error in errors:
                    LOGGER.debug("bot %s: malformed line: %s", session.name, error)
                    if not session.malformed(error):
                        return True
                if message is not None and not session.receive(message):
                    return True
        return False
    finally:
        session.wake()
