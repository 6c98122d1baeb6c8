"""Shared helpers of the misbehaving test bots (not a bot itself).

Every bot records its pid (and its children's pids) in ``pids.txt`` in its working folder (the
scratch folder the dealer gives it), so the tests can check that no process outlives the match.
Bots talk to the dealer through the generated stubs or through a raw byte stream.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "sample_bots" / "python"))
sys.path.insert(1, str(ROOT))

import grpc  # noqa: E402

from poker.v1 import dealer_pb2, dealer_pb2_grpc  # noqa: E402,F401

PLAY = "/poker.v1.Dealer/Play"


def say(*words: object) -> None:
    """One line in the bot's log."""
    print(*words, flush=True)


def record_pid(pid: int | None = None) -> None:
    """Append a pid (default: this process) to ./pids.txt."""
    with open("pids.txt", "a") as f:
        f.write(f"{pid or os.getpid()}\n")


def spawn_child() -> subprocess.Popen:
    """A child process in the bot's process group that would outlive the bot if not killed."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"], stdin=subprocess.DEVNULL)
    record_pid(child.pid)
    say(f"child {child.pid}")
    return child


def address() -> str:
    return os.environ["POKER_DEALER"]


def token() -> str:
    return os.environ["POKER_TOKEN"]


def hello(tok: str | None = None, name: str = "test-bot") -> dealer_pb2.BotMessage:
    return dealer_pb2.BotMessage(hello=dealer_pb2.Hello(token=token() if tok is None else tok, name=name, version="t"))


def raw_play(channel: grpc.Channel, outgoing):
    """Open Dealer.Play with identity serializers: send and receive raw bytes."""
    call = channel.stream_stream(PLAY, request_serializer=None, response_deserializer=None)
    return call(outgoing)
