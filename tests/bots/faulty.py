"""One misdeed per mode (argv[1]), for the fault-accounting tests; logs every item it gets
("got <kind> [<notice reason> <detail>]") and how its stream ends ("stream ended: <code> <details>").

- ``wrong-table``: answers each request twice in one message: first an all-in raise quoting
  the request's table + 1000 (a valid request id), then a check/call quoting the right table;
- ``oversized``: at its first request sends one 8 MiB message (above the dealer's 1 MiB limit);
- ``version``: says Hello with protocol version 2 (the dealer speaks 1), then exits 1 if refused;
- ``silent``: reads everything with a 64 KiB receive limit and never answers (nor leaves);
- ``marked``: answers check/call with amount 4242, which the dealer-bug test makes the dealer
  trip over while it reads the reply.
"""

import queue
import sys
import time

import botlib
from botlib import dealer_pb2

MODE = sys.argv[1]
CHECK_CALL, BET_RAISE = dealer_pb2.ACTION_TYPE_CHECK_CALL, dealer_pb2.ACTION_TYPE_BET_RAISE

botlib.record_pid()
options = [("grpc.max_receive_message_length", 64 * 1024)] if MODE == "silent" else []
channel = botlib.grpc.insecure_channel(botlib.address(), options=options)
outbox: queue.SimpleQueue = queue.SimpleQueue()
hello = botlib.hello(name=f"faulty-{MODE}")
if MODE == "version":
    hello.hello.protocol_version = 2
outbox.put(hello.SerializeToString())
responses = botlib.raw_play(channel, iter(outbox.get, None))
refused = False
try:
    for raw in responses:
        replies = []
        for item in dealer_pb2.DealerMessage.FromString(raw).items:
            kind = item.WhichOneof("kind")
            extra = f" {item.notice.reason} {item.notice.detail}" if kind == "notice" else ""
            botlib.say(f"got {kind}{extra}")
            if kind == "goodbye":
                break
            if kind != "request" or MODE == "silent":
                continue
            request = item.request
            if MODE == "wrong-table":
                replies.append(
                    dealer_pb2.ActionReply(
                        table=item.table + 1000,
                        request_id=request.request_id,
                        type=BET_RAISE,
                        amount=request.max_raise_to,
                    )
                )
                replies.append(dealer_pb2.ActionReply(table=item.table, request_id=request.request_id, type=CHECK_CALL))
            elif MODE == "oversized":
                botlib.say("sending 8 MiB")
                outbox.put(b"\x12" + b"\x80\x80\x80\x04" + b"\x00" * (8 << 20))
            elif MODE == "marked":
                replies.append(
                    dealer_pb2.ActionReply(
                        table=item.table, request_id=request.request_id, type=CHECK_CALL, amount=4242
                    )
                )
        if replies:
            outbox.put(dealer_pb2.BotMessage(actions=replies).SerializeToString())
except botlib.grpc.RpcError as error:
    botlib.say("stream ended:", error.code(), error.details())
    refused = True
if MODE == "silent":
    while True:  # never leaves by itself
        time.sleep(3600)
outbox.put(None)
botlib.say("exiting")
sys.exit(1 if refused and MODE == "version" else 0)
