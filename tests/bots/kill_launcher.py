"""Starts a daemon (double fork + setsid) that would outlive it, then kills its own launcher.

argv[1]: a marker put on the daemon's command line, so that the test can look for it. Logs
"daemon started", then "killing launcher PID"; the bot itself goes on playing check/call if it
can. The daemon sleeps for an hour.
"""

import os
import signal
import sys

import botlib

import pokerbot

marker = sys.argv[1]
botlib.record_pid()
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(3600)", marker])
    os._exit(0)
os.wait()
botlib.say("daemon started")
launcher = os.getppid()
botlib.say(f"killing launcher {launcher}")
os.kill(launcher, signal.SIGKILL)
pokerbot.run(lambda request: pokerbot.check_call(), name="kill-launcher", argv=[])
