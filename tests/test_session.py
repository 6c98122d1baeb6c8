"""A session's request clocks, without a stream: each request of a batch times out by its own
allowance, an answer settles only its request, a late answer is a timeout and not also an
unexpected reply, and a lost connection answers every open request once, with no timeout.
And the server as a context manager: it stops however its block ends."""

from __future__ import annotations

import asyncio
import os
import time

import pytest

from dealer.connect import wire
from dealer.connect.server import FLOOD_LIMIT, REPLY_SLICE, BotSession, DealerServer, Fault
from poker.v1 import dealer_pb2 as pb


def live_session() -> BotSession:
    """A session that counts as connected, whose batches are taken by the test."""
    session = BotSession("bot", "token")
    session.link._attach(object(), "test")
    return session


def reply(request_id: int) -> pb.BotMessage:
    return pb.BotMessage(actions=[pb.ActionReply(table=1, request_id=request_id, type=pb.ACTION_TYPE_CHECK_CALL)])


def test_each_request_of_a_batch_keeps_its_own_clock() -> None:
    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        session = live_session()
        answers: dict[int, list[tuple[pb.ActionReply | None, float]]] = {2: [], 3: [], 4: []}
        for request_id, allowance in ((2, 0.05), (3, 0.25), (4, 0.05)):
            session.request(
                request_id,
                bytes([request_id]),
                allowance,
                lambda r, e, k=request_id: answers[k].append((r, e)),
                table=1,
            )
        sent = loop.time()
        assert session.link._take_batch(sent) == b"\x02\x03\x04"  # one message for the three
        assert session.link._receive(reply(4))  # answered in time: settles 4 only
        assert answers[4][0][0] is not None and answers[4][0][0].request_id == 4
        await asyncio.sleep(0.12)
        assert answers[2] and answers[2][0][0] is None and 0.05 <= answers[2][0][1] < 0.12
        assert answers[3] == [] and session.faults[Fault.TIMEOUT] == 1
        await asyncio.sleep(0.2)
        assert answers[3] and answers[3][0][0] is None and answers[3][0][1] >= 0.25
        assert session.faults[Fault.TIMEOUT] == 2
        assert session.link._receive(reply(2))  # too late: already a timeout, not also unexpected
        assert session.link._receive(reply(9))  # never asked: unexpected
        assert session.faults[Fault.UNEXPECTED] == 1
        assert all(len(a) == 1 for a in answers.values())  # each request answered exactly once

    asyncio.run(scenario())


def test_a_lost_connection_answers_open_requests_once_without_a_timeout() -> None:
    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        session = live_session()
        answers: list[tuple[int, pb.ActionReply | None]] = []
        session.request(2, b"a", 0.05, lambda r, e: answers.append((2, r)), table=1)
        session.link._take_batch(loop.time())
        session.request(3, b"b", 0.05, lambda r, e: answers.append((3, r)), table=1)  # queued, never sent
        session.link._detach()
        assert sorted(answers) == [(2, None), (3, None)]
        await asyncio.sleep(0.1)  # past the allowance: no timeout is charged for a lost request
        assert len(answers) == 2 and session.faults[Fault.TIMEOUT] == 0
        session.request(4, b"c", 0.05, lambda r, e: answers.append((4, r)), table=1)  # not connected: told at once
        await asyncio.sleep(0)
        assert answers[-1] == (4, None) and session.requests == 2

    asyncio.run(scenario())


def test_a_server_in_an_async_with_block_stops_when_the_block_fails() -> None:
    async def scenario() -> None:
        with pytest.raises(RuntimeError, match="the block failed"):
            async with DealerServer("127.0.0.1:0") as server:
                host, port = server.address.rsplit(":", 1)
                assert server.local_address is not None
                folder = os.path.dirname(server.local_address.removeprefix("unix:"))
                _, writer = await asyncio.open_connection(host, int(port))  # listening
                writer.close()
                await writer.wait_closed()
                raise RuntimeError("the block failed")
        with pytest.raises(OSError):
            await asyncio.open_connection(host, int(port))
        assert not os.path.exists(folder)  # the Unix socket's folder is gone too

    asyncio.run(scenario())


def test_a_message_of_many_replies_is_routed_in_slices_with_other_work_between() -> None:
    """A flood's message (thousands of stray replies, each a fault and a notice) yields to the event
    loop every REPLY_SLICE replies, so other tables' answers are read meanwhile; a reply's clock
    still stops when its message was read, and past FLOOD_LIMIT the bot is cut off."""

    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        session = live_session()
        answers: list[tuple[object, float]] = []
        session.request(5, b"R", 5.0, lambda r, e: answers.append((r, e)), table=1)
        sent = loop.time()
        session.link._take_batch(sent)
        strays = [pb.ActionReply(table=1, request_id=1000 + k) for k in range(3 * REPLY_SLICE)]
        real = pb.ActionReply(table=1, request_id=5, type=pb.ACTION_TYPE_CHECK_CALL)
        between: list[tuple[int, float]] = []

        def other_work() -> None:  # another table's turn, between two slices
            between.append((session.faults[Fault.UNEXPECTED], loop.time()))
            time.sleep(0.05)

        loop.call_soon(other_work)
        assert await session.link._receive_sliced(wire.replies_of(pb.BotMessage(actions=[*strays, real])))
        assert [count for count, _ in between] == [REPLY_SLICE]  # after the first slice, before the rest
        assert session.faults[Fault.UNEXPECTED] == 3 * REPLY_SLICE and Fault.FLOOD not in session.faults
        ((reply, elapsed),) = answers
        assert reply is not None and reply.request_id == 5  # type: ignore[attr-defined]
        assert sent + elapsed <= between[0][1]  # read before the pause: the pause is not the bot's time

        flooder = live_session()
        flood = [wire.Reply(1, k, wire.FOLD, 0) for k in range(3 * FLOOD_LIMIT)]
        assert not await flooder.link._receive_sliced(flood)
        assert flooder.faults == {Fault.UNEXPECTED: FLOOD_LIMIT + 1, Fault.FLOOD: 1}

    asyncio.run(scenario())


def test_the_outbox_sends_a_large_backlog_in_pieces_each_request_with_the_piece_that_carries_it() -> None:
    from dealer.connect.link import MAX_MESSAGE_BYTES, Outbox

    outbox = Outbox()
    half = b"x" * (MAX_MESSAGE_BYTES // 2)
    outbox.put(b"r1", 1)
    for _ in range(3):  # 1.5 MB: two messages
        outbox.put(half)
    outbox.put(b"r2", 2)
    outbox.put(b"r3", 3)
    assert outbox.size == 3 * len(half) + 6
    first, requests = outbox.take()
    assert first == [b"r1", half] and requests == [1]  # a third half would pass the limit
    assert outbox.requests == [(2, 2), (3, 3)]  # their places in what is left
    second, requests = outbox.take()  # two halves fill a message: the requests wait for the next
    assert second == [half, half] and requests == [] and outbox.requests == [(2, 0), (3, 1)]
    assert outbox.take() == ([b"r2", b"r3"], [2, 3])
    assert outbox.items == [] and outbox.size == 0 and outbox.requests == []
    outbox.put(b"r4", 4)
    outbox.clear()
    assert outbox.take() == ([], [])


def test_a_request_wakes_the_writer_whenever_one_is_queued_however_the_last_batch_was_taken() -> None:
    """The first request of a batch wakes the writer; the next ones find it awake (only a batch that
    takes every request puts it to sleep), also after a backlog went out in pieces."""
    from dealer.connect.link import MAX_MESSAGE_BYTES

    async def scenario() -> None:
        session = live_session()
        link, now = session.link, asyncio.get_running_loop().time()
        session.request(1, b"r1", 5.0, lambda r, e: None, table=1)
        session.request(2, b"r2", 5.0, lambda r, e: None, table=1)
        assert link._wake.is_set()
        assert link._take_batch(now) == b"r1r2" and not link._wake.is_set()
        session.request(3, b"r3", 5.0, lambda r, e: None, table=1)
        assert link._wake.is_set()
        link._take_batch(now)
        for _ in range(3):  # 1.5 MB, then a request: its piece goes in the second message
            session.send_framed(b"x" * (MAX_MESSAGE_BYTES // 2))
        session.request(4, b"r4", 5.0, lambda r, e: None, table=1)
        link._take_batch(now)  # the first piece: request 4 still waits, and so does the writer not
        assert link._wake.is_set() and link._outbox.requests == [(4, 1)]
        session.request(5, b"r5", 5.0, lambda r, e: None, table=1)
        assert link._wake.is_set()
        assert link._take_batch(now).endswith(b"r4r5") and not link._wake.is_set()
        session.request(6, b"r6", 5.0, lambda r, e: None, table=1)
        assert link._wake.is_set() and sorted(link._clocks.open) == [1, 2, 3, 4, 5, 6]

    asyncio.run(scenario())


def test_the_clocks_share_a_timer_per_allowance_and_remember_only_the_last_late_requests() -> None:
    from dealer.connect.link import LATE_MEMORY, Clocks, _Deadline, _Pending

    async def scenario() -> None:
        loop = asyncio.get_running_loop()
        clocks, fired = Clocks(), []
        for request_id, allowance in ((1, 0.05), (2, 0.05), (3, 10.0)):
            clocks.open[request_id] = _Pending(lambda r, e: None, 1, allowance)
        clocks.start([1, 2, 3], loop.time(), lambda ids, deadline: fired.append(clocks.expired(ids, deadline)))
        assert clocks.open[1].deadline is clocks.open[2].deadline is not clocks.open[3].deadline
        Clocks.stop(clocks.open.pop(1))  # answered: the shared timer stays for request 2
        await asyncio.sleep(0.1)
        assert [[request_id for request_id, _ in group] for group in fired] == [[2]]
        assert list(clocks.late) == [2] and list(clocks.open) == [3]
        timer = clocks.open[3].deadline
        assert clocks.lost()[0].table == 1 and clocks.open == {}
        assert timer is not None and timer.handle is not None and timer.handle.cancelled()
        for request_id in range(100, 100 + LATE_MEMORY + 1):  # more than it remembers: the oldest go
            clocks.open[request_id] = _Pending(lambda r, e: None, 1, 1.0, deadline=(deadline := _Deadline()))
            clocks.expired([request_id], deadline)
        assert len(clocks.late) == LATE_MEMORY and 2 not in clocks.late and 100 not in clocks.late

    asyncio.run(scenario())
