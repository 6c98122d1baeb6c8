"""Plays check/call with its own token and, at its first request (every seat is connected by
then), opens new streams with the tokens in argv (another seat's, a stale one). Logs
"replay <k>: <status code>" for each (the dealer must refuse every one)."""

import sys

import botlib
from botlib import dealer_pb2_grpc

import pokerbot

tried = []


def replay(k: int, token: str) -> None:
    channel = botlib.grpc.insecure_channel(botlib.address())
    try:
        for message in dealer_pb2_grpc.DealerStub(channel).Play(iter([botlib.hello(token, name="thief")]), timeout=10):
            botlib.say(f"replay {k}: got", [i.WhichOneof("kind") for i in message.items])
            break
        botlib.say(f"replay {k}: ACCEPTED")
    except botlib.grpc.RpcError as error:
        botlib.say(f"replay {k}: {error.code().name}")
    finally:
        channel.close()


def on_item(item):
    if item.WhichOneof("kind") == "request" and not tried:
        tried.append(True)
        for k, token in enumerate(sys.argv[1:]):
            replay(k, token)


botlib.record_pid()
pokerbot.run(lambda request: pokerbot.check_call(), name="replay", on_item=on_item, argv=[])
