"""Tries to enter another network namespace (the dealer's) with setns, then to reach the dealer's
TCP port, before playing through POKER_DEALER.

argv: the dealer's TCP address and pid. Tries /proc/<dealer pid>/ns/net and the net namespace of
every process it can see; logs "setns PATH: ok|<error>", then "reached HOST:PORT" or
"blocked HOST:PORT: <error>".
"""

import ctypes
import os
import socket
import sys
from pathlib import Path

import botlib

import pokerbot

CLONE_NEWNET = 0x40000000
libc = ctypes.CDLL(None, use_errno=True)
target, dealer_pid = sys.argv[1], sys.argv[2]
botlib.record_pid()
paths = [f"/proc/{dealer_pid}/ns/net"] + [f"/proc/{p.name}/ns/net" for p in Path("/proc").iterdir() if p.name.isdigit()]
for path in paths:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError as error:
        botlib.say(f"setns {path}: {error.strerror}")
        continue
    result = libc.setns(fd, CLONE_NEWNET)
    botlib.say(f"setns {path}: {'ok' if result == 0 else os.strerror(ctypes.get_errno())}")
    os.close(fd)
host, port = target.rsplit(":", 1)
try:
    with socket.create_connection((host, int(port)), timeout=2):
        botlib.say(f"reached {target}")
except OSError as error:
    botlib.say(f"blocked {target}: {error}")
pokerbot.run(lambda request: pokerbot.check_call(), name="setns", argv=[])
