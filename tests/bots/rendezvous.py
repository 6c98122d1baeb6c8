"""Two instances of this bot try to meet, through every channel they might share.

Before playing, each writes a file named after its own random id to /tmp, /dev/shm, $HOME and the
folder above $HOME, and binds (or, when taken, connects to) the abstract Unix socket
"@holdem-rendezvous". After the match (when both have surely started) it looks for the other's
files and connection, logs "met via PLACE" for each channel that worked, then "met N times".
"""

import os
import secrets
import socket
from pathlib import Path

import botlib

import pokerbot

me = secrets.token_hex(8)
botlib.record_pid()
home = os.environ["HOME"]
places = {"tmp": "/tmp", "shm": "/dev/shm", "home": home, "above home": os.path.dirname(home)}
for name, place in places.items():
    try:
        Path(place, f"rendezvous-{me}").write_text(me)
    except OSError as error:
        botlib.say(f"cannot write {name}: {error.strerror}")
met = set()
server: socket.socket | None = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    server.bind("\0holdem-rendezvous")
    server.listen()
except OSError:  # taken: the other instance is listening
    server.close()
    server = None
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.connect("\0holdem-rendezvous")
        client.sendall(me.encode())
        met.add("abstract socket")
pokerbot.run(lambda request: pokerbot.check_call(), name="rendezvous", argv=[])
if server is not None:
    server.setblocking(False)
    try:
        connection, _ = server.accept()
        met.add("abstract socket")
    except BlockingIOError:
        pass
for name, place in places.items():
    try:
        if any(p.name.startswith("rendezvous-") and p.name != f"rendezvous-{me}" for p in Path(place).iterdir()):
            met.add(name)
    except OSError:
        pass
for name in sorted(met):
    botlib.say(f"met via {name}")
botlib.say(f"met {len(met)} times")
