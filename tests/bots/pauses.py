"""Plays check/call; at its first request it writes ``MARKER`` to its standard error (its log,
which the dealer writes as it comes) and thinks for two seconds, so that a test can look at the
event while it is in progress. Not a file in HOME: a sandboxed bot's HOME is copied out only when
it ends."""

import sys
import time

import botlib  # noqa: F401  (puts the SDK on the path)

import pokerbot

MARKER = "pauses.py: thinking at the first request"
asked = []


def decide(request):
    if not asked:
        asked.append(True)
        print(MARKER, file=sys.stderr, flush=True)
        time.sleep(2)
    return pokerbot.check_call()


pokerbot.run(decide, name="pauses", argv=[])
