"""Kills the process that deals to it (SIGKILL to the parent of its launcher) once in a whole run:
the first instance to create the marker file named on its command line does it at its first
request; every later instance checks or calls. Stands for a worker process that the kernel's
out-of-memory killer, or an operator, ends without a word. Run it with ``sandbox: off``."""

import os
import signal
import sys
from pathlib import Path

import botlib  # noqa: F401  (puts the SDK on the path)

import pokerbot

marker = Path(sys.argv[1])
try:
    marker.open("x").close()
    first = True
except FileExistsError:
    first = False
dealer = int(Path(f"/proc/{os.getppid()}/stat").read_text().rsplit(")", 1)[1].split()[1])


def decide(request: object) -> pokerbot.Decision:
    """Kill the dealer at the first request if this instance made the marker; else check or call."""
    if first:
        os.kill(dealer, signal.SIGKILL)
    return pokerbot.check_call()


pokerbot.run(decide, name="kills_its_dealer", argv=[])
