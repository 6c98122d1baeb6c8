"""Checks or calls, but the instance named in argv[1] (its scratch folder, ``$HOME`` without the
sandbox, e.g. ``crashes_in_one_part.2``) dies at its fourth decision: a crash in one part of a match
spread over worker processes (``dealer.league.workers``), none in the others."""

import os
import sys
from pathlib import Path

import botlib

import pokerbot

DOOMED = Path(os.environ.get("HOME", "")).name == f"crashes_in_one_part.{sys.argv[1]}"
answered = 0


def decide(request):
    global answered
    if DOOMED and answered >= 3:
        botlib.say(f"dying at hand {request.hand}")
        os._exit(3)
    answered += 1
    return pokerbot.check_call()


botlib.record_pid()
pokerbot.run(decide, name="crashes_in_one_part", argv=[])
