"""A misbehaving ACPC bot: ``acpc_hostile.py MODE [ARG] -- CLIENT GAME HOST PORT``. Unless its mode
says otherwise it then runs CLIENT (the project's reference client) with the rest, to play. MODE:

* ``meet``: tries to meet its sibling instances on the loopback: it listens on MEET_PORT, or, when
  another process already does, dials it; "met via loopback" or "met 0 times" after MEET_WAIT_S;
* ``steal``: looks for listening loopback ports other than its own in /proc/net/tcp and dials each
  as an ACPC client would ("VERSION:2.0.0"); "stole PORT" for each that the dealer kept open,
  then "stole N ports";
* ``late``: waits LATE_S before its client dials (the victim of a port thief);
* ``long``: its first line is 10 KB long, then it waits for the dealer to end the connection;
* ``silent``: connects and says nothing, until the dealer ends the connection;
* ``plant-link:TARGET`` / ``plant-fifo``: on its first start it replaces ``$HOME/match.game`` by a
  symlink to TARGET (a host path) or by a FIFO, then exits with status 1 (a crash, so the dealer
  restarts it under ``restart``); started again, it plays.
"""

import os
import socket
import sys
import time
from pathlib import Path

MEET_PORT = 47311
MEET_WAIT_S = 3.0
LATE_S = 3.0


def say(*words: object) -> None:
    print(*words, flush=True)


def meet() -> None:
    server = socket.socket()
    try:
        server.bind(("127.0.0.1", MEET_PORT))
    except OSError:  # a sibling listens: dial it
        dial = socket.create_connection(("127.0.0.1", MEET_PORT), timeout=2)
        dial.sendall(b"hello sibling\n")
        say("met via loopback (dialled)")
        return
    server.listen(4)
    server.settimeout(MEET_WAIT_S)
    try:
        server.accept()
        say("met via loopback (listened)")
    except TimeoutError:
        say("met 0 times")


def listening_ports() -> set[int]:
    ports = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        local, state = line.split()[1], line.split()[3]
        address, port = local.split(":")
        if state == "0A" and address == "0100007F":  # LISTEN on 127.0.0.1
            ports.add(int(port, 16))
    return ports


def steal(own: int) -> None:
    stolen = []
    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline and not stolen:
        for port in sorted(listening_ports() - {own, MEET_PORT}):
            try:
                thief = socket.create_connection(("127.0.0.1", port), timeout=0.5)
                thief.sendall(b"VERSION:2.0.0\r\n")
                thief.settimeout(0.5)
                if thief.recv(1, socket.MSG_PEEK) != b"":
                    stolen.append((port, thief))
            except TimeoutError:
                stolen.append((port, thief))  # open, and waiting for more
            except OSError:
                pass
        time.sleep(0.01)
    for port, _ in stolen:
        say(f"stole {port}")
    say(f"stole {len(stolen)} ports")


def plant(kind: str, game: Path) -> bool:
    """Plant once; True when planted now (the bot then exits as if it crashed)."""
    marker = Path(".planted")
    if marker.exists():
        return False
    marker.touch()
    target = Path(os.environ["HOME"]) / "match.game"
    target.unlink(missing_ok=True)
    if kind == "plant-fifo":
        os.mkfifo(target)
    else:
        target.symlink_to(kind.split(":", 1)[1])
    say(f"planted {kind} at {target} (the client was given {game})")
    return True


def main() -> None:
    split = sys.argv.index("--")
    mode, client = sys.argv[1], sys.argv[split + 1 :]
    game, host, port = client[1], client[2], int(client[3])
    if mode == "meet":
        meet()
    elif mode == "steal":
        steal(port)
    elif mode == "late":
        time.sleep(LATE_S)
    elif mode in ("long", "silent"):
        connection = socket.create_connection((host, port))
        say(f"{mode}: connected")  # before the long line: the dealer may stop this bot as soon as it reads it
        if mode == "long":
            connection.sendall(b"x" * 10_000 + b"\r\n")
        while connection.recv(4096):
            pass
        say(f"{mode}: the dealer closed the connection")
        return
    elif mode.startswith("plant") and plant(mode, Path(game)):
        sys.exit(1)
    os.execv(client[0], client)


if __name__ == "__main__":
    main()
