"""Checks or calls every request after a fixed delay (argv[1] ms, default 20): a deterministic
bot whose matches last long enough for a test to act while one is being played. Logs "playing"
at its first request."""

import sys
import time

import botlib  # also puts the Python SDK on the path

import pokerbot

DELAY_S = (int(sys.argv[1]) if len(sys.argv) > 1 else 20) / 1000


playing = False


def decide(request):
    global playing
    if not playing:
        playing = True
        botlib.say("playing")
    time.sleep(DELAY_S)
    return pokerbot.check_call()


pokerbot.run(decide, name="steady", argv=[])
