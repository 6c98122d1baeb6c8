"""Plays honestly (check/call) on one stream and, once welcomed, opens a second stream with the
same token; logs "second stream: <status code>" (the dealer must refuse it with ALREADY_EXISTS)."""

import threading

import botlib
from botlib import dealer_pb2_grpc

import pokerbot


def second_stream() -> None:
    channel = botlib.grpc.insecure_channel(botlib.address())
    try:
        for message in dealer_pb2_grpc.DealerStub(channel).Play(iter([botlib.hello(name="twice-2")])):
            botlib.say("second stream got", [i.WhichOneof("kind") for i in message.items])
        botlib.say("second stream: ended OK")
    except botlib.grpc.RpcError as error:
        botlib.say("second stream:", error.code().name, error.details())
    finally:
        channel.close()


started = []


def on_item(item):
    if item.WhichOneof("kind") == "welcome" and not started:
        thread = threading.Thread(target=second_stream)
        thread.start()
        started.append(thread)


botlib.record_pid()
pokerbot.run(lambda request: pokerbot.check_call(), name="twice", on_item=on_item, argv=[])
for thread in started:
    thread.join(10)
botlib.say("first stream done")
