"""An ACPC bot that connects, says its version, then dies before its first answer:
``dies_after_hello.py HOST PORT`` (a broken command, as one that never connected)."""

import socket
import sys

with socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=10) as connection:
    connection.sendall(b"VERSION:2.0.0\r\n")
    connection.recv(1)  # its first state: the dealer saw it start
sys.exit("ghost: no such model file")
