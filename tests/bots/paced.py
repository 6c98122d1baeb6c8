"""Checks or calls every time, after argv[1] ms (default 5): paces a league a test watches live."""

import sys
import time

import botlib  # noqa: F401  (puts the Python SDK on the path)

import pokerbot

PAUSE_S = (int(sys.argv[1]) if len(sys.argv) > 1 else 5) / 1000


def decide(request):
    time.sleep(PAUSE_S)
    return pokerbot.check_call()


pokerbot.run(decide, name="paced", argv=[])
