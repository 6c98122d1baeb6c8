"""The "memory across rotations" attack: remembers its own hole cards per (match id, hand, seat)
over every table its process plays, and at each request looks up the other seat of the same
match and hand, which, when its process also plays the mirrored rotation of this deal, holds
the opponent's hole cards. Plays check/call.

Writes ``$HOME/memory.txt`` (its scratch folder), one line per fact, for the test to judge:
``hole <table> <hand> <seat> <cards>`` for every HandStart, and
``guess <table> <hand> <source table> <cards>`` for every remembered candidate at a request.
"""

import os
from pathlib import Path

import botlib  # noqa: F401  (puts the SDK on the path)

import pokerbot

LOG = open(Path(os.environ.get("HOME", ".")) / "memory.txt", "a", encoding="utf-8")  # noqa: SIM115
match_of: dict[int, str] = {}  # table -> match id
memory: dict[tuple[str, int, int], list[tuple[int, str]]] = {}  # (match, hand, seat) -> [(table, cards)]
seat_of: dict[int, int] = {}


def on_item(item) -> None:
    kind = item.WhichOneof("kind")
    if kind == "match_start":
        match_of[item.table] = item.match_start.match_id
        seat_of[item.table] = item.match_start.seat
    elif kind == "hand_start":
        start = item.hand_start
        cards = "".join(start.hole_cards)
        memory.setdefault((match_of[item.table], start.hand, start.seat), []).append((item.table, cards))
        LOG.write(f"hole {item.table} {start.hand} {start.seat} {cards}\n")
    elif kind == "request":
        request, seat = item.request, seat_of[item.table]
        for other in range(len(request.stacks)):
            if other != seat:
                for source, cards in memory.get((match_of[item.table], request.hand, other), []):
                    LOG.write(f"guess {item.table} {request.hand} {source} {cards}\n")
    elif kind == "goodbye":
        LOG.flush()


pokerbot.run(lambda request: pokerbot.check_call(), name="rotation-memory", on_item=on_item, argv=[])
LOG.close()
