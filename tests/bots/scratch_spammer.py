"""Leaves in its HOME what the copy back out must not take whole: ``sparse`` (argv[1]), three
sparse files of 20 MiB (no byte written), or ``files``, 30,000 empty files; logs what it made,
then calls every request."""

import os
import sys

import botlib

import pokerbot

botlib.record_pid()
if sys.argv[1] == "sparse":
    for k in range(3):
        with open(f"sparse{k}.bin", "wb") as f:
            f.truncate(20 << 20)
    botlib.say("made 3 sparse files of 20 MiB")
else:
    for k in range(30_000):
        os.close(os.open(f"f{k}", os.O_WRONLY | os.O_CREAT, 0o600))
    botlib.say("made 30000 files")
pokerbot.run(lambda request: pokerbot.check_call(), name="spammer")
