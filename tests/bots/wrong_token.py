"""Connects with a wrong token; the SDK exits 1 when the dealer refuses it.

With argv[1] == "stay" it catches the refusal and keeps running without connecting.
"""

import sys
import time

import botlib

import pokerbot

botlib.record_pid()
try:
    pokerbot.run(lambda request: pokerbot.check_call(), name="wrong-token", argv=["--token", "not-" + botlib.token()])
except SystemExit as leaving:
    botlib.say("refused, exit status", leaving.code)
    if sys.argv[1:] == ["stay"]:
        while True:
            time.sleep(3600)
    raise
