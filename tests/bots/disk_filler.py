"""Fills its HOME (its scratch folder) until the filesystem says no, once: only while the file
named by argv[1] exists (the test removes it to let a resumed event through). Logs "filled N
MiB: <error>", then calls every request."""

import os
import sys

import botlib

import pokerbot

botlib.record_pid()
if len(sys.argv) > 1 and os.path.exists(sys.argv[1]):
    written = 0
    chunk = b"\0" * (1 << 20)
    try:
        with open("fill.bin", "wb") as f:
            while True:
                f.write(chunk)
                f.flush()
                written += 1
    except OSError as error:
        botlib.say(f"filled {written} MiB: {error.strerror}")
pokerbot.run(lambda request: pokerbot.check_call(), name="filler")
