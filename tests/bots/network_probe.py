"""Tries to reach the network before playing check/call through POKER_DEALER.

argv: host:port addresses to try (e.g. the dealer's TCP port). Logs "reached HOST:PORT" or
"blocked HOST:PORT: <error>" for each, then "dealer address: <POKER_DEALER>" and plays.
"""

import socket
import sys

import botlib

import pokerbot

botlib.record_pid()
for target in sys.argv[1:]:
    host, port = target.rsplit(":", 1)
    try:
        with socket.create_connection((host, int(port)), timeout=2):
            botlib.say(f"reached {target}")
    except OSError as error:
        botlib.say(f"blocked {target}: {error}")
try:
    socket.getaddrinfo("example.com", 443)
    botlib.say("resolved example.com")
except OSError as error:
    botlib.say(f"blocked dns: {error}")
botlib.say(f"dealer address: {botlib.address()}")
pokerbot.run(lambda request: pokerbot.check_call(), name="network-probe", argv=[])
