"""Calls every request, while threads flood the dealer's socket with gRPC Health checks and
server reflection calls (what a bot would use to look for other services).

Logs, once the match is over: "health: CODE=N ..." and "reflection: CODE=N ..." (the status codes
the dealer answered with), and "reflection answered: ..." for any reflection reply it got.
"""

import collections
import threading

import botlib
from botlib import grpc

import pokerbot

THREADS = 4
HEALTH = "/grpc.health.v1.Health/Check"
REFLECTION = (
    "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
    "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
)
LIST_SERVICES = b"\x3a\x00"  # ServerReflectionRequest{list_services: ""}
HEALTH_REQUEST = b""  # HealthCheckRequest{service: ""}

stop = threading.Event()
codes: dict[str, collections.Counter] = {"health": collections.Counter(), "reflection": collections.Counter()}
answered: list[bytes] = []


def flood() -> None:
    channel = grpc.insecure_channel(botlib.address())
    check = channel.unary_unary(HEALTH, request_serializer=None, response_deserializer=None)
    reflect = [channel.stream_stream(m, request_serializer=None, response_deserializer=None) for m in REFLECTION]
    while not stop.is_set():
        try:
            check(HEALTH_REQUEST, timeout=5)
            codes["health"]["OK"] += 1
        except grpc.RpcError as error:
            codes["health"][error.code().name] += 1
        for call in reflect:
            try:
                answered.extend(call(iter([LIST_SERVICES]), timeout=5))
                codes["reflection"]["OK"] += 1
            except grpc.RpcError as error:
                codes["reflection"][error.code().name] += 1


threads = [threading.Thread(target=flood, daemon=True) for _ in range(THREADS)]
for thread in threads:
    thread.start()
pokerbot.run(lambda request: pokerbot.check_call(), name="health-flooder")
stop.set()
for thread in threads:
    thread.join(10)
for kind, counted in codes.items():
    botlib.say(f"{kind}:", " ".join(f"{code}={n}" for code, n in sorted(counted.items())))
if answered:
    botlib.say("reflection answered:", answered[0][:200])
