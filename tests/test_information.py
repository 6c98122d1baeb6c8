"""Information test: what a bot is told never includes what it must not know.

A long 6-seat duplicate match is played by four recorder bots (tests/bots/recorder_bot.py: they
play like random_bot and keep every DealerMessage exactly as received), the Node bot and the
strength bot. Every rotation puts every recorder in every seat, so every seat's messages are
covered. The PHH histories hold every hole card; against them, every item a recorder received is
checked: it belongs to the hand in progress, and every card named anywhere in it (any string
field, at any depth) is the bot's own, already on the board, or - in HandEnd only - shown by a
seat that showed down (the PHH ``sm`` actions). The raw bytes never contain the seed, nor any
bot's token. The histories and logs do not contain the seed either.
"""

from __future__ import annotations

import re
import struct
from collections import Counter, defaultdict
from pathlib import Path

import pytest
from google.protobuf.message import Message

from conftest import bot_command, history_path, read_phhs, run_match
from dealer.engine.cards import cards_text, shuffled_deck
from poker.v1 import dealer_pb2 as pb

SEED = "s33d-XYZZY-1234"
RECORDERS = ("rec1", "rec2", "rec3", "rec4")
CARD = re.compile(r"[2-9TJQKA][cdhs]")
HANDS = 60  # per table; 6 rotations -> 360 hands


def read_record(path: Path) -> list[bytes]:
    data = path.read_bytes()
    messages, at = [], 0
    while at < len(data):
        (size,) = struct.unpack_from(">I", data, at)
        messages.append(data[at + 4 : at + 4 + size])
        at += 4 + size
    assert at == len(data), f"{path} ends in a partial record"
    return messages


def strings(message: Message) -> list[str]:
    """Every string in a message, at any depth (so a new field cannot hide a card)."""
    found = []
    for field, value in message.ListFields():
        values = value if field.is_repeated else [value]
        for v in values:
            if isinstance(v, Message):
                found.extend(strings(v))
            elif isinstance(v, str):
                found.append(v)
    return found


def cards_in(item: pb.Item) -> set[str]:
    return {c for s in strings(item) for c in CARD.findall(s)}


def test_no_bot_learns_hidden_information(tmp_path: Path) -> None:
    bots = {name: bot_command("recorder") for name in RECORDERS}
    bots |= {"node": bot_command("node"), "strength": bot_command("strength")}
    run = run_match(tmp_path, bots, variant="mixed", hands=HANDS, ante=10, seed=SEED, rake_percent=5, rake_cap=200)
    plan, out = run.plan, run.out
    assert run.result.hands == 6 * HANDS
    assert run.result.faults == {name: {} for name in sorted(bots)}
    tables = {spec.seats: (spec, read_phhs(history_path(out, spec.deal_set, spec.rotation))) for spec in plan.tables}
    assert len(tables) == len(plan.tables) == 6

    covered = defaultdict(set)  # table seat -> recorders that sat there
    played = Counter(label for labels in plan.instance_labels() for label in labels)  # tables by instance
    for label in [f"{name}.{k}" for name in RECORDERS for k in range(6)]:  # sealed: an instance per rotation
        name = label.rsplit(".", 1)[0]
        raws = read_record(out / "scratch" / label / "received.bin")
        assert raws, f"{label} recorded nothing"
        for raw in raws:
            assert SEED.encode() not in raw
            for owner, token in run.tokens.items():
                assert token.encode() not in raw, f"{label} received the token of {owner}"
        items = [item for raw in raws for item in pb.DealerMessage.FromString(raw).items]
        check_bot_view(name, items, tables, covered, played[label])
        # Everything the dealer sent is here: the match ends on every table, then Goodbye.
        assert [i.WhichOneof("kind") for i in items].count("match_end") == played[label] == 1
        assert items[-1].HasField("goodbye")
    assert set(covered) == set(range(6)) and all(covered[s] == set(RECORDERS) for s in covered)
    check_the_checker(items, tables)

    # Nothing written for people leaks the seed or the decks either.
    for path in [*(out / "hands").iterdir(), *(out / "logs").iterdir()]:
        text = path.read_text(encoding="utf-8", errors="replace")
        assert SEED not in text, path
        for spec in plan.tables:
            assert cards_text(shuffled_deck(f"{SEED}/{spec.deal_set}/0")) not in text


def check_the_checker(items: list[pb.Item], tables: dict) -> None:
    """The view check must catch a leak: another seat's hole card slipped into a public event."""
    name = RECORDERS[-1]
    state = {}
    for index, item in enumerate(items):
        if item.HasField("match_start"):
            state[item.table] = (tables[tuple(item.match_start.players)][1], item.match_start.seat)
        if item.HasField("event") and item.event.type == pb.EVENT_TYPE_FOLD:
            hands, seat = state[item.table]
            other = next(c for s, cards in hands[item.event.hand].hole_by_seat().items() if s != seat for c in cards)
            leaky = pb.Item()
            leaky.CopyFrom(item)
            leaky.event.cards.append(other)
            with pytest.raises(AssertionError, match="was told"):
                check_bot_view(name, [*items[:index], leaky, *items[index + 1 :]], tables, defaultdict(set), 1)
            return
    raise AssertionError("no fold event to tamper with")


def check_bot_view(name: str, items: list[pb.Item], tables: dict, covered: dict[int, set[str]], count: int) -> None:
    """Walk one bot process's items in order (``count`` tables); every one must fit the hand in
    progress on its table."""
    assert items[0].HasField("welcome") and items[0].welcome.name == name
    state: dict[int, dict] = {}  # table id -> spec, seat, histories, current hand, board so far
    for index, item in enumerate(items):
        kind = item.WhichOneof("kind")
        where = f"{name} item {index} ({kind}): {item}"
        allowed: set[str] = set()
        if kind == "match_start":
            assert item.table not in state, where
            spec, hands = tables[tuple(item.match_start.players)]
            assert spec.seats[item.match_start.seat] == name, where
            state[item.table] = {
                "spec": spec,
                "seat": item.match_start.seat,
                "hands": hands,
                "hand": None,
                "board": [],
                "ended": True,
                "seen": [],
            }
            covered[item.match_start.seat].add(name)
        elif kind in ("hand_start", "event", "request", "hand_end"):
            table = state[item.table]
            seat, hands = table["seat"], table["hands"]
            number = getattr(item, kind).hand
            if kind == "hand_start":
                assert table["ended"] and number == len(table["seen"]), where
                table.update(hand=number, board=[], ended=False)
                table["seen"].append(number)
            assert number == table["hand"] and not table["ended"], f"item of another hand: {where}"
            phh = hands[number]
            holes, board = phh.hole_by_seat(), phh.board()
            own = holes[seat]
            if kind == "hand_start":
                assert list(item.hand_start.hole_cards) == own and item.hand_start.seat == seat, where
            elif kind == "event" and item.event.type == pb.EVENT_TYPE_BOARD:
                table["board"] += list(item.event.cards)
                assert table["board"] == board[: len(table["board"])], f"board out of order: {where}"
            elif kind == "request":
                assert list(item.request.hole_cards) == own and list(item.request.board) == table["board"], where
            allowed = set(own) | set(table["board"])
            if kind == "hand_end":
                end = item.hand_end
                shown = {s.seat: list(s.cards) for s in end.shown}
                assert shown == phh.shown_by_seat(), f"shown cards differ from the PHH sm actions: {where}"
                assert all(shown[s] == holes[s] for s in shown), where
                assert list(end.board) == table["board"] == board, where
                assert sum(end.net) == -end.rake and end.rake == phh.rake, where
                by_name = phh.net_by_player()
                assert list(end.net) == [by_name[p] for p in table["spec"].seats], where
                allowed |= {c for cards in shown.values() for c in cards}
                table["ended"] = True
            leaked = cards_in(item) - allowed
            owners = {c: s for s, cards in holes.items() for c in cards}
            assert not leaked, (
                f"{name} (seat {seat}) was told {sorted(leaked)} of seats "
                f"{sorted({owners.get(c) for c in leaked}, key=str)}: {where}"
            )
            continue
        elif kind == "match_end":
            table = state[item.table]
            assert table["ended"] and table["seen"] == list(range(len(table["hands"]))), where
            assert item.match_end.hands == len(table["hands"]), where
        else:
            assert kind in ("welcome", "goodbye"), f"unexpected item for a well-behaved bot: {where}"
        leaked = cards_in(item) - allowed
        assert not leaked, f"{name} was told {sorted(leaked)} outside any hand: {where}"
    assert len(state) == count and all(t["ended"] for t in state.values())


def test_bots_cannot_read_the_deal_they_play_from_the_histories(tmp_path: Path) -> None:
    """A cheating bot looks for its current deal in the histories written so far: it must not find it."""
    snooper = (*bot_command("recorder"), "--snoop", f"--out={tmp_path}")  # the real folder, not $HOME/../..
    bots = {"snoop1": snooper, "snoop2": snooper, "call": bot_command("call")}
    run = run_match(tmp_path, bots, variant="no-limit", hands=200, seed="snoop")
    assert run.result.faults == {name: {} for name in sorted(bots)}
    finds = []
    for name in ("snoop1", "snoop2"):
        for path in (tmp_path / "scratch").glob(f"{name}.*/snooped.txt"):  # one folder per instance
            finds += path.read_text().splitlines()
    assert finds == [], f"{len(finds)} finds, e.g. {finds[:3]}"
