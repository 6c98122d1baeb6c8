"""Fills its HOME with many 256 KiB files until the filesystem says no (at most 64 MiB), then
with empty files (at most 20,000); logs "home: N files of 256 KiB (<error>), M empty files
(<error>)", then calls every request."""

import os

import botlib

import pokerbot

botlib.record_pid()
chunk = b"x" * (256 << 10)
full, why_full = 0, "no error"
try:
    while full < 256:
        with open(f"fill{full}.bin", "wb") as f:
            f.write(chunk)
        full += 1
except OSError as error:
    why_full = error.strerror or str(error)
empty, why_empty = 0, "no error"
try:
    os.mkdir("many")
    while empty < 20_000:
        open(f"many/{empty}", "wb").close()
        empty += 1
except OSError as error:
    why_empty = error.strerror or str(error)
botlib.say(f"home: {full} files of 256 KiB ({why_full}), {empty} empty files ({why_empty})")
pokerbot.run(lambda request: pokerbot.check_call(), name="home filler")
