"""Plays check/call; at its first request it writes ``playing`` in its scratch folder and thinks
for two seconds, so that a test can look at the event while it is in progress."""

import os
import time
from pathlib import Path

import botlib  # noqa: F401  (puts the SDK on the path)

import pokerbot

asked = []


def decide(request):
    if not asked:
        asked.append(True)
        (Path(os.environ.get("HOME", ".")) / "playing").write_text("playing\n")
        time.sleep(2)
    return pokerbot.check_call()


pokerbot.run(decide, name="pauses", argv=[])
