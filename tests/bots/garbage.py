"""Speaks the protocol badly over a raw byte stream, one misdeed per request:

1. a raise outside the legal range;  2. an unknown action type;
3. a reply to a request id never asked (plus a real answer);
4. the same reply twice in one message;  5. a real answer, then request 4's reply again;
6. raw bytes that are not a BotMessage. Then it waits for the dealer to end the stream, exits 0.

With argv[1] == "flood" it instead floods the dealer with empty messages once welcomed (and
answers nothing).
"""

import queue
import sys

import botlib
from botlib import dealer_pb2

CHECK_CALL, BET_RAISE = dealer_pb2.ACTION_TYPE_CHECK_CALL, dealer_pb2.ACTION_TYPE_BET_RAISE


def reply(item, kind=CHECK_CALL, amount=0, request_id=None):
    return dealer_pb2.ActionReply(
        table=item.table,
        request_id=item.request.request_id if request_id is None else request_id,
        type=kind,
        amount=amount,
    )


def send(*replies):
    outbox.put(dealer_pb2.BotMessage(actions=list(replies)).SerializeToString())


botlib.record_pid()
channel = botlib.grpc.insecure_channel(botlib.address())
outbox: queue.SimpleQueue = queue.SimpleQueue()
outbox.put(botlib.hello(name="garbage").SerializeToString())
responses = botlib.raw_play(channel, iter(outbox.get, None))
asked = 0
previous = None
try:
    for raw in responses:
        for item in dealer_pb2.DealerMessage.FromString(raw).items:
            kind = item.WhichOneof("kind")
            botlib.say("got", kind, *((item.notice.reason, item.notice.detail) if kind == "notice" else ()))
            if kind == "welcome" and sys.argv[1:] == ["flood"]:
                botlib.say("flooding")
                for _ in range(2100):
                    outbox.put(b"")
            if kind != "request" or sys.argv[1:] == ["flood"]:
                continue
            asked += 1
            request = item.request
            if asked == 1:
                send(reply(item, BET_RAISE, max(request.max_raise_to, 0) + 1000))
            elif asked == 2:
                send(reply(item, 7))
            elif asked == 3:
                send(reply(item, request_id=10**9), reply(item))
            elif asked == 4:
                send(reply(item), reply(item))
            elif asked == 5:
                send(reply(item))
                send(previous)
            elif asked == 6:
                botlib.say("sending garbage bytes")
                outbox.put(b"\xff\xff\xff\xff\x0f garbage \x00\x01")
            previous = reply(item)
except botlib.grpc.RpcError as error:
    botlib.say("stream ended:", error.code(), error.details())
botlib.say("exiting")
outbox.put(None)
