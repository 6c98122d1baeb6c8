"""Starts children meant to outlive it, then plays check/call.

Children: one in its process group, one in a session of its own (``setsid``), and a daemon made
by a double fork + setsid whose parent exits at once (an orphan). Every pid goes to ./pids.txt.
argv[1] == "exit": the bot exits (status 0, mid-match) after its third action, leaving them behind.
"""

import os
import sys
import time

import botlib

import pokerbot

SLEEP = [sys.executable, "-c", "import time; time.sleep(3600)"]


def daemon() -> None:
    """Double fork + setsid: the grandchild is re-parented when its parent exits."""
    read, write = os.pipe()
    if os.fork() == 0:
        os.setsid()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            os.close(write)
            os.execv(sys.executable, SLEEP)
        os.write(write, f"{pid}\n".encode())
        os._exit(0)
    os.close(write)
    pid = int(os.read(read, 64))
    os.close(read)
    os.wait()
    botlib.record_pid(pid)
    botlib.say(f"daemon {pid}")


botlib.record_pid()
botlib.spawn_child()
escaped = botlib.subprocess.Popen(SLEEP, start_new_session=True, stdin=botlib.subprocess.DEVNULL)
botlib.record_pid(escaped.pid)
botlib.say(f"setsid child {escaped.pid}")
daemon()
answered = 0


def decide(request):
    global answered
    answered += 1
    if sys.argv[1:] == ["exit"] and answered > 3:
        botlib.say("leaving my children behind")
        sys.stdout.flush()
        os._exit(0)
    return pokerbot.check_call()


pokerbot.run(decide, name="forker", argv=[])
time.sleep(0.1)
