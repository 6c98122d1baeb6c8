"""Reports what it can see and do from inside its sandbox, then plays check/call.

argv: "see:PATH" for each path it should not see (the output folder, the league file, ...; with a
prefix, so that the dealer does not take them for the bot's own files), each logged as "sees PATH"
or "hidden PATH". Other lines: "uid N", "caps EFFECTIVE", "no_new_privs N",
"processes: CMDLINE | CMDLINE ...", "write PLACE: ok|<error>", "tmp holds N MiB", "shm holds N MiB",
"home holds N MiB", "shadow: <error or bytes>", "hostname NAME", "home HOME", "fds N",
"mountinfo names PATH" or "mountinfo hides PATH" for each see:PATH, "fds of pid N: LINK | ..."
for every other process (each open file's link, or the error reading it).
"""

import os
import socket
import sys
from pathlib import Path

import botlib

import pokerbot

botlib.record_pid()
status = dict(line.split(":\t", 1) for line in Path("/proc/self/status").read_text().splitlines() if ":\t" in line)
botlib.say(f"uid {os.getuid()}")
botlib.say(f"caps {status['CapEff'].strip()}")
botlib.say(f"no_new_privs {status.get('NoNewPrivs', '?').strip()}")
commands = []
for entry in sorted(Path("/proc").iterdir(), key=lambda p: p.name):
    if entry.name.isdigit():
        try:
            commands.append((entry / "cmdline").read_bytes().replace(b"\0", b" ").decode().strip())
        except OSError:
            pass
botlib.say("processes: " + " | ".join(commands))
here = Path(__file__).resolve().parent
for place in (
    "/",
    "/usr",
    "/etc",
    "/dev",
    str(here),
    os.environ["HOME"],
    os.path.dirname(os.environ["HOME"]),
    "/tmp",
    "/dev/shm",
):
    try:
        with open(os.path.join(place, f"probe-{os.getpid()}"), "w") as f:
            f.write("x")
        botlib.say(f"write {place}: ok")
    except OSError as error:
        botlib.say(f"write {place}: {error.strerror}")
for name, place in (("tmp", "/tmp"), ("shm", "/dev/shm"), ("home", os.environ["HOME"])):
    written = 0
    try:
        with open(f"{place}/fill", "wb") as f:
            while written < 1024:
                f.write(b"\0" * (1 << 20))
                f.flush()
                written += 1
    except OSError:
        pass
    os.unlink(f"{place}/fill")
    botlib.say(f"{name} holds {written} MiB")
try:
    botlib.say(f"shadow: {len(Path('/etc/shadow').read_bytes())} bytes")
except OSError as error:
    botlib.say(f"shadow: {error.strerror}")
botlib.say(f"hostname {socket.gethostname()}")
botlib.say(f"home {os.environ['HOME']} cwd {os.getcwd()}")
botlib.say(f"fds {sorted(int(fd) for fd in os.listdir('/proc/self/fd'))}")
mountinfo = Path("/proc/self/mountinfo").read_text()
for path in (arg.removeprefix("see:") for arg in sys.argv[1:]):
    botlib.say(f"{'sees' if os.path.exists(path) else 'hidden'} {path}")
    botlib.say(f"mountinfo {'names' if path in mountinfo else 'hides'} {path}")
for entry in sorted(Path("/proc").iterdir(), key=lambda p: p.name):
    if entry.name.isdigit() and int(entry.name) != os.getpid():
        links = []
        try:
            for fd in sorted(os.listdir(entry / "fd"), key=int):
                try:
                    links.append(os.readlink(entry / "fd" / fd))
                except OSError as error:
                    links.append(error.strerror)
        except OSError as error:
            links.append(error.strerror)
        botlib.say(f"fds of pid {entry.name}: {' | '.join(links)}")
pokerbot.run(lambda request: pokerbot.check_call(), name="sandbox-view", argv=[])
