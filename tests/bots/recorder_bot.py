"""Recorder bot: plays like random_bot and records every DealerMessage it receives, as sent.

The messages are read off the stream as raw bytes (no deserializer on the call), appended to
``$HOME/received.bin`` as 4-byte big-endian length + the exact serialized DealerMessage, and only
then parsed to answer requests. Launched bots get HOME = their scratch folder, so the test reads
``<out>/scratch/<bot name>.<instance>/received.bin`` after the match.

With ``--snoop`` it also plays a cheat: before each decision it looks for the deal it is playing
in the match's hand histories (``$HOME/../../hands/*.phhs``, readable from its scratch folder),
and writes each find to ``$HOME/snooped.txt``. Only for a match of one deal set (every table
plays hand N from the same deck), so finding ``hand = N`` anywhere is finding this very deal.
``--snoop-all`` looks in every ``.phhs`` file anywhere under the output folder (hidden folders
too) and notes each folder it may not enter in ``$HOME/denied.txt``; ``--out=PATH`` names the output
folder (a sandboxed bot's ``$HOME/../..`` is not it).
"""

from __future__ import annotations

import os
import queue
import struct
import sys
from pathlib import Path

import grpc

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "sample_bots" / "python"))

import random_bot

import pokerbot
from pokerbot import dealer_pb2

HOME = Path(os.environ.get("HOME", "."))
RECORD = HOME / "received.bin"
SNOOP_ALL = "--snoop-all" in sys.argv
SNOOP = "--snoop" in sys.argv or SNOOP_ALL
OUT = next((Path(a.split("=", 1)[1]) for a in sys.argv if a.startswith("--out=")), HOME.parent.parent)


def snoop(request: dealer_pb2.ActionRequest) -> None:
    """Look for the current deal in the histories written so far; note every find."""
    key = f"\nhand = {request.hand}\n"
    for path in histories():
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if key in text:
            before = text[: text.index(key)]
            actions = before[before.rfind("actions = ") :].split("\n")[0]
            with open(HOME / "snooped.txt", "a", encoding="utf-8") as found:
                found.write(f"hand {request.hand} street {request.street}: {path.name}: {actions}\n")


def histories() -> list[Path]:
    """The history files a snooper can see: in ``hands/``, or with ``--snoop-all`` anywhere."""
    if not SNOOP_ALL:
        return sorted((OUT / "hands").glob("*.phhs"))
    found, denied = [], []
    for folder, _, files in os.walk(OUT, onerror=lambda error: denied.append(error.filename)):
        found += [Path(folder) / name for name in files if name.endswith(".phhs")]
    if denied:
        with open(HOME / "denied.txt", "a", encoding="utf-8") as note:
            note.writelines(f"{name}\n" for name in denied)
    return sorted(found)


def main() -> None:
    options = pokerbot._options(None)
    channel = grpc.insecure_channel(options.dealer)
    play = channel.stream_stream(
        "/poker.v1.Dealer/Play",
        request_serializer=dealer_pb2.BotMessage.SerializeToString,
        response_deserializer=None,  # raw bytes: record exactly what the dealer sent
    )
    outbox: queue.SimpleQueue[dealer_pb2.BotMessage | None] = queue.SimpleQueue()
    outbox.put(dealer_pb2.BotMessage(hello=dealer_pb2.Hello(token=options.token, name="recorder", version="1")))
    try:
        with open(RECORD, "ab") as record:
            for raw in play(iter(outbox.get, None)):
                record.write(struct.pack(">I", len(raw)) + raw)
                record.flush()
                message = dealer_pb2.DealerMessage.FromString(raw)
                replies, goodbye = [], False
                for item in message.items:
                    if item.HasField("request"):
                        if SNOOP:
                            snoop(item.request)
                        decision = pokerbot._legal(random_bot.decide(item.request), item.request)
                        replies.append(
                            dealer_pb2.ActionReply(
                                table=item.table,
                                request_id=item.request.request_id,
                                type=decision.type,
                                amount=decision.amount if decision.type == pokerbot.BET_RAISE else 0,
                            )
                        )
                    goodbye = goodbye or item.HasField("goodbye")
                if replies:
                    outbox.put(dealer_pb2.BotMessage(actions=replies))
                if goodbye:
                    break
    except grpc.RpcError as error:
        if error.code() != grpc.StatusCode.CANCELLED:
            print(f"recorder: stream failed: {error.code()}: {error.details()}", file=sys.stderr, flush=True)
            raise SystemExit(1) from None
    finally:
        outbox.put(None)
        channel.close()


if __name__ == "__main__":
    main()
