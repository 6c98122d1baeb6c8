"""A session's connection side on its own: a ``Link`` reports to any ``MatchSide`` (here a recording
stand-in, no ``BotSession``), and a scripted connection drives it through the pump, as a gRPC stream,
a bot's pipes or an ACPC client's sockets do. The session keeps the match's side and only delegates."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

from dealer.connect import wire
from dealer.connect.link import FLOOD_LIMIT, FLOODED, Link
from dealer.connect.pump import Ended, Inbox, pump
from dealer.connect.session import BotSession
from dealer.connect.wire import Reply
from dealer.stats.faults import Fault
from poker.v1 import dealer_pb2 as pb


class RecordingSide:
    """The match's side, reduced to what a link reports to it: faults and the dealer's own errors."""

    def __init__(self) -> None:
        self.name = "scripted"
        self.faults: list[tuple[str, int, int]] = []  # (reason, table, request id)
        self.errors: asyncio.Queue[BaseException] = asyncio.Queue()
        self.on_dealer_error: Callable[[BaseException], None] | None = self.errors.put_nowait

    def fault(self, reason: str, detail: str, *, table: int = 0, request_id: int = 0) -> None:
        self.faults.append((reason, table, request_id))


class ScriptedConnection:
    """A transport with no process or socket: it decodes what it is written, and hands the link the
    messages (a BotMessage, or a str for a malformed line) a test puts in ``script``; None ends the
    bot's side."""

    lost = "the scripted bot went away"
    broken: tuple[type[BaseException], ...] = (ConnectionResetError,)

    def __init__(self) -> None:
        self.written: list[list[str]] = []  # each batch's item kinds
        self.batches: asyncio.Queue[list[str]] = asyncio.Queue()  # the same, as they are written
        self.script: asyncio.Queue[pb.BotMessage | str | None] = asyncio.Queue()
        self.closed = False

    async def read(self, inbox: Inbox) -> None:
        while (message := await self.script.get()) is not None:
            if isinstance(message, str):
                if not inbox.malformed(message):
                    return
            elif not await inbox.receive(message):
                return

    async def write(self, batch: bytes) -> int | None:
        items = pb.DealerMessage.FromString(batch).items
        kinds = [str(item.WhichOneof("kind")) for item in items]
        self.written.append(kinds)
        self.batches.put_nowait(kinds)
        return 0

    def close(self) -> None:
        self.closed = True


def request(request_id: int, table: int) -> bytes:
    return wire.frame(pb.Item(table=table, request=pb.ActionRequest(request_id=request_id)))


def answer(request_id: int, table: int) -> pb.BotMessage:
    return pb.BotMessage(actions=[pb.ActionReply(table=table, request_id=request_id, type=pb.ACTION_TYPE_CHECK_CALL)])


def run(scenario: Callable[[], Coroutine[Any, Any, None]]) -> None:
    asyncio.run(asyncio.wait_for(scenario(), 10))


def test_a_link_serves_a_scripted_connection_for_a_match_side_that_is_no_session() -> None:
    """Welcome, a request and its answer, the goodbye: the whole life of a connection, with the
    match's side a recorder. The goodbye's batch ends the pump, and its end is no fault."""

    async def scenario() -> None:
        side, connection = RecordingSide(), ScriptedConnection()
        link = Link(side)
        served = asyncio.create_task(pump(link, connection, "v9"))
        await link.connected.wait()
        assert link.live and link.version == "v9"
        answered: asyncio.Future[tuple[Reply | None, float]] = asyncio.get_running_loop().create_future()
        assert link.request(
            7, request(7, 3), 5.0, lambda reply, elapsed: answered.set_result((reply, elapsed)), table=3
        )
        assert await connection.batches.get() == ["welcome"]
        assert await connection.batches.get() == ["request"]  # its clock starts now
        connection.script.put_nowait(answer(7, 3))
        reply, elapsed = await answered
        assert reply is not None and (reply.table, reply.request_id, reply.action) == (3, 7, "check_call")
        assert 0 <= elapsed < 5.0 and link.answers == 1
        link.goodbye(wire.goodbye("match over"))
        ended = await served
        assert ended == Ended(None, False)
        assert connection.written == [["welcome"], ["request"], ["goodbye"]]
        assert side.faults == [] and side.errors.empty() and connection.closed and not link.live

    run(scenario)


def test_a_link_charges_its_match_side_for_a_lost_connection_and_answers_what_was_open() -> None:
    async def scenario() -> None:
        side, connection = RecordingSide(), ScriptedConnection()
        link = Link(side)
        served = asyncio.create_task(pump(link, connection))
        await link.connected.wait()
        answers: list[Reply | None] = []
        link.request(4, request(4, 1), 5.0, lambda reply, elapsed: answers.append(reply), table=1)
        assert [await connection.batches.get() for _ in range(2)] == [["welcome"], ["request"]]
        connection.script.put_nowait(None)  # the bot's side ends before the goodbye
        assert await served == Ended(None, False)
        assert answers == [None]  # the open request is answered once, with no timeout charged
        assert side.faults == [(Fault.DISCONNECT, 0, 0)] and not link.live
        assert not link.request(5, request(5, 1), 5.0, lambda reply, elapsed: answers.append(reply), table=1)
        await asyncio.sleep(0)
        assert answers == [None, None]  # not connected: told at once

    run(scenario)


def test_a_link_cuts_off_a_flood_of_malformed_lines_and_reports_each_to_its_match_side() -> None:
    async def scenario() -> None:
        side, connection = RecordingSide(), ScriptedConnection()
        link = Link(side)
        for k in range(FLOOD_LIMIT + 5):
            connection.script.put_nowait(f"garbage line {k}")
        ended = await pump(link, connection)
        assert ended == Ended(FLOODED, False)
        reasons = [reason for reason, _, _ in side.faults]
        assert reasons == [Fault.PROTOCOL] * (FLOOD_LIMIT + 1) + [Fault.FLOOD]  # no disconnect besides
        assert connection.script.qsize() == 4  # it stopped reading at the flood limit

    run(scenario)


def test_a_dealer_error_on_a_link_goes_to_its_match_side_and_is_charged_to_no_bot() -> None:
    async def scenario() -> None:
        side, connection = RecordingSide(), ScriptedConnection()
        link = Link(side)
        served = asyncio.create_task(pump(link, connection))
        await link.connected.wait()

        def buggy(reply: Reply | None, elapsed: float) -> None:
            raise ZeroDivisionError("a bug of the dealer's own")

        link.request(2, request(2, 1), 5.0, buggy, table=1)
        assert [await connection.batches.get() for _ in range(2)] == [["welcome"], ["request"]]
        connection.script.put_nowait(answer(2, 1))
        assert isinstance(await side.errors.get(), ZeroDivisionError) and side.faults == []
        connection.script.put_nowait(None)
        await served

    run(scenario)


def test_a_session_is_the_match_side_of_its_link_and_reads_its_connection_state_from_it() -> None:
    """What the link reports lands in the session's fault count; what the session sends goes
    through its link; the session's ``live``, ``connected``, ``version`` and ``answers`` are the link's."""

    async def scenario() -> None:
        session, connection = BotSession("bot", "token"), ScriptedConnection()
        served = asyncio.create_task(pump(session.link, connection, "v2"))
        await session.connected.wait()
        assert session.live and session.version == "v2" and session.link.connected is session.connected
        session.request(3, request(3, 1), 5.0, lambda reply, elapsed: None, table=1)
        session.notice(Fault.ILLEGAL, "not a legal amount", 3)
        assert [await connection.batches.get() for _ in range(2)] == [["welcome"], ["request", "notice"]]
        connection.script.put_nowait(answer(3, 1))
        connection.script.put_nowait(answer(99, 1))  # answers nothing: the link reports it to the session
        connection.script.put_nowait(None)
        await served
        assert session.requests == 1 and session.answers == 1
        assert dict(session.faults) == {Fault.UNEXPECTED: 1, Fault.DISCONNECT: 1} and not session.live

    run(scenario)
