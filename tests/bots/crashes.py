"""Plays ACTIONS (argv[1], default 3) actions, then dies mid-hand when asked the next one.

argv[2]: "exit" (default) exits with code 3; "signal" kills itself with SIGKILL; "early" exits
with code 3 before it even connects. Further options: "child" first starts a child process in
its process group (which must be killed with the group); "escape" starts a child in a session of
its own that keeps the bot's stdout open (the dealer must not wait for it; its pid goes to
./escaped.txt; the sandbox ends it with the bot); "late" waits a second before it connects.
"""

import os
import signal
import subprocess
import sys
import time

import botlib

import pokerbot

ACTIONS = int(sys.argv[1]) if len(sys.argv) > 1 else 3
HOW = sys.argv[2] if len(sys.argv) > 2 else "exit"
answered = 0


def decide(request):
    global answered
    if answered >= ACTIONS:
        botlib.say(f"dying ({HOW}) at hand {request.hand} request {request.request_id}")
        if HOW == "signal":
            os.kill(os.getpid(), signal.SIGKILL)
        os._exit(3)
    answered += 1
    botlib.say(f"decide hand {request.hand} request {request.request_id}")
    return pokerbot.check_call()


botlib.record_pid()
if "child" in sys.argv[3:]:
    botlib.spawn_child()
if "escape" in sys.argv[3:]:
    escaped = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"], start_new_session=True)
    with open("escaped.txt", "w") as f:
        f.write(f"{escaped.pid}\n")
if HOW == "early":
    botlib.say("dying before connecting")
    sys.stdout.flush()
    os._exit(3)
if "late" in sys.argv[3:]:
    time.sleep(1)
pokerbot.run(decide, name="crashes", argv=[])
