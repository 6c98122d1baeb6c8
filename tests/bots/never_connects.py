"""Never connects: records its pid, starts a child, and sleeps forever (ignoring SIGTERM)."""

import signal
import time

import botlib

botlib.record_pid()
botlib.spawn_child()
signal.signal(signal.SIGTERM, signal.SIG_IGN)  # only SIGKILL of the group gets rid of it
botlib.say("sleeping without connecting")
while True:
    time.sleep(3600)
