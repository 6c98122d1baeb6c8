"""Answers every request late: after per_action_ms + EXTRA ms (argv[1], default 250).

With argv[2] = N only the first N requests are slow (then it answers at once). Logs the
bank_ms of every request it sees ("bank <ms>"), so a test can watch the bank shrink.
"""

import sys
import time

import botlib

import pokerbot

EXTRA_MS = int(sys.argv[1]) if len(sys.argv) > 1 else 250
SLOW_COUNT = int(sys.argv[2]) if len(sys.argv) > 2 else None
seen = 0


def decide(request):
    global seen
    seen += 1
    botlib.say("bank", request.bank_ms)
    if SLOW_COUNT is None or seen <= SLOW_COUNT:
        time.sleep((request.time_ms + EXTRA_MS) / 1000)
    return pokerbot.check_call()


botlib.record_pid()
pokerbot.run(decide, name="slow", argv=[])
