"""Waits SECONDS (argv[1]) before it starts, then plays check/call: an honest bot that starts late."""

import sys
import time

import botlib

import pokerbot

botlib.record_pid()
time.sleep(float(sys.argv[1]))
botlib.say("starting")
pokerbot.run(lambda request: pokerbot.check_call(), name="late", argv=[])
