"""Connects, and at its first request drops its connection, then hangs without exiting (as a
runtime can after an allocation failure). With argv[1] "oom" it first prints what Python prints
when its memory limit is hit."""

import queue
import sys
import time

import botlib
from botlib import dealer_pb2_grpc

botlib.record_pid()
channel = botlib.grpc.insecure_channel(botlib.address())
outbox: queue.SimpleQueue = queue.SimpleQueue()
outbox.put(botlib.hello(name="drops-then-hangs"))
for message in dealer_pb2_grpc.DealerStub(channel).Play(iter(outbox.get, None)):
    if any(item.WhichOneof("kind") == "request" for item in message.items):
        break
if sys.argv[1:] == ["oom"]:
    print("Traceback (most recent call last):\nMemoryError", file=sys.stderr, flush=True)
channel.close()
botlib.say("dropped the connection; hanging")
while True:
    time.sleep(3600)
