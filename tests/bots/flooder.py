"""Floods the dealer once welcomed, answering no request.

argv[1]: "empty" sends empty BotMessages as fast as it can; "actions" sends messages of ~1 MB of
replies to request ids never asked. Logs "stream ended: <code>" when the dealer cuts it off.
"""

import queue
import sys

import botlib
from botlib import dealer_pb2

MODE = sys.argv[1] if len(sys.argv) > 1 else "empty"
bogus = dealer_pb2.BotMessage(
    actions=[dealer_pb2.ActionReply(table=k, request_id=10**6 + k, type=2, amount=k) for k in range(60000)]
).SerializeToString()
botlib.say(f"bogus message: {len(bogus)} bytes")

botlib.record_pid()
channel = botlib.grpc.insecure_channel(botlib.address())
outbox: queue.SimpleQueue = queue.SimpleQueue()
outbox.put(botlib.hello(name="flooder").SerializeToString())
responses = botlib.raw_play(channel, iter(outbox.get, None))
try:
    for raw in responses:
        for item in dealer_pb2.DealerMessage.FromString(raw).items:
            if item.WhichOneof("kind") == "welcome":
                botlib.say(f"flooding ({MODE})")
                for _ in range(5000 if MODE == "empty" else 200):
                    outbox.put(b"" if MODE == "empty" else bogus)
except botlib.grpc.RpcError as error:
    botlib.say("stream ended:", error.code(), error.details())
outbox.put(None)
botlib.say("exiting")
