"""Plays check/call with its own token while keeping COUNT (argv[1], default 300) other streams
open that never say Hello, opening a new one whenever the dealer drops one: the attack that once
filled the dealer's cap on streams waiting for Hello and locked out a bot that started late.
Logs "junk streams open" once they are all open."""

import asyncio
import sys
import threading

import botlib

import pokerbot

COUNT = int(sys.argv[1]) if len(sys.argv) > 1 else 300


async def hold(channel, k: int) -> None:
    while True:
        call = channel.stream_stream(botlib.PLAY, request_serializer=None, response_deserializer=None)()
        try:
            await call.read()  # never says Hello: waits until the dealer drops the stream
        except botlib.grpc.RpcError:
            pass
        await asyncio.sleep(0.01)


async def junk() -> None:
    channels = [botlib.grpc.aio.insecure_channel(botlib.address()) for _ in range(4)]
    tasks = [asyncio.create_task(hold(channels[k % 4], k)) for k in range(COUNT)]
    await asyncio.sleep(0.5)
    botlib.say("junk streams open")
    await asyncio.gather(*tasks)


def open_junk(item) -> None:
    """Open the junk streams once this bot's own session is welcomed: opened before its Hello is read, they
    could crowd that stream out of the per-peer cap too (the dealer drops the oldest waiting), and the
    bot would never play."""
    if item.WhichOneof("kind") == "welcome":
        threading.Thread(target=lambda: asyncio.run(junk()), daemon=True).start()


botlib.record_pid()
pokerbot.run(lambda request: pokerbot.check_call(), name="junk", argv=[], on_item=open_junk)
