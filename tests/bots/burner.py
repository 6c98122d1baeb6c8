"""Keeps every core busy: forks WORKERS spinning processes, each in a session of its own, then
plays (calls) with its answers paced by PACE_S so the match lasts while they burn.

argv[1]: the number of workers (default 8); argv[2]: seconds to wait before each answer (0.2).
Logs "burning with N workers".
"""

import os
import sys
import time

import botlib

import pokerbot

WORKERS = int(sys.argv[1]) if len(sys.argv) > 1 else 8
PACE_S = float(sys.argv[2]) if len(sys.argv) > 2 else 0.2

botlib.record_pid()
for _ in range(WORKERS):
    pid = os.fork()
    if pid == 0:
        os.setsid()
        while True:
            pass
    botlib.record_pid(pid)
botlib.say(f"burning with {WORKERS} workers")


def decide(request):
    time.sleep(PACE_S)
    return pokerbot.check_call()


pokerbot.run(decide, name="burner")
