"""Connects, says Hello, then reads everything and never answers (nor exits after Goodbye)."""

import queue
import threading
import time

import botlib
from botlib import dealer_pb2_grpc

botlib.record_pid()
botlib.spawn_child()
channel = botlib.grpc.insecure_channel(botlib.address())
outbox: queue.SimpleQueue = queue.SimpleQueue()
outbox.put(botlib.hello(name="hangs"))
responses = dealer_pb2_grpc.DealerStub(channel).Play(iter(outbox.get, None))


def read() -> None:
    try:
        for message in responses:
            for item in message.items:
                botlib.say("got", item.WhichOneof("kind"))
    except botlib.grpc.RpcError as error:
        botlib.say("stream ended:", error.code())


threading.Thread(target=read, daemon=True).start()
while True:  # hung: never answers, never leaves
    time.sleep(3600)
