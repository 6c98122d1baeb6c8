"""The bots of benchmarks/cpu_fairness.py.

``work N``: an honest bot that does N iterations of arithmetic for each decision (a fixed amount
of CPU, ~50 ms alone for the default) and then checks or calls. ``burn N``: forks N processes
that spin for ever, each in a session of its own, and checks or calls at once.
"""

import os
import sys

import pokerbot

MODE = sys.argv[1] if len(sys.argv) > 1 else "work"
COUNT = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000


def work(request):
    total = 0
    for k in range(COUNT):
        total += k * k
    return pokerbot.check_call()


if MODE == "burn":
    for _ in range(COUNT):
        if os.fork() == 0:
            os.setsid()
            while True:
                pass
    pokerbot.run(lambda request: pokerbot.check_call(), name="burner", argv=[])
else:
    pokerbot.run(work, name="worker", argv=[])
