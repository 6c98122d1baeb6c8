"""Bots over stdin/stdout JSON lines (``protocol: stdio``, docs/bots-stdio.md).

The JSON form of every item is checked field by field against the protobuf message it comes
from (a generic walk of the message descriptors is the oracle); reply lines are parsed or
refused with a reason; real matches put stdio bots (Python, and the C, Java and Rust samples
built for this run) beside gRPC bots, and misbehaving stdio bots get exactly their faults.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

import wire_reference as reference
from conftest import ROOT, bot_command, history_path, read_phhs, run_match
from dealer.config.league_file import LeagueConfigError, parse_league, split_protocol
from dealer.connect import wire, wire_json
from dealer.connect.server import Fault
from dealer.engine.rules import Dealt, Hand, TableConfig, Variant
from dealer.web.view import replay
from poker.v1 import dealer_pb2 as pb
from test_e2e import check_match

STDIO_BOT = ROOT / "tests" / "bots" / "stdio_bot.py"
FAST = {"per_action_ms": 200, "bank_ms": 300, "grace_ms": 50, "startup_ms": 20000}


def stdio_bot(mode: str, *args: str) -> tuple[str, ...]:
    return ("python", str(STDIO_BOT), mode, *args)


# ------------------------------------------------------------------------- the JSON form


# The enum forms of MatchStart's mode and variant_name: the lines keep the strings alone (docs/bots-stdio.md).
NOT_IN_JSON = {"poker.v1.MatchStart.match_mode", "poker.v1.MatchStart.variant"}


def oracle(message: Message) -> dict[str, object]:
    """Every field of ``message`` under its proto name: enums lower case without their prefix."""
    out: dict[str, object] = {}
    for descriptor in message.DESCRIPTOR.fields:
        if descriptor.full_name in NOT_IN_JSON:
            continue
        value = getattr(message, descriptor.name)

        def convert(v: object, d: FieldDescriptor = descriptor) -> object:
            if d.type == FieldDescriptor.TYPE_MESSAGE:
                return oracle(v)  # type: ignore[arg-type]
            if d.type == FieldDescriptor.TYPE_ENUM:
                enum = d.enum_type
                prefix = re.sub(r"(?<!^)(?=[A-Z])", "_", enum.name).upper() + "_"
                return enum.values_by_number[v].name.removeprefix(prefix).lower()  # type: ignore[index]
            return v

        is_repeated = descriptor.is_repeated
        out[descriptor.name] = [convert(v) for v in value] if is_repeated else convert(value)
    return out


def expected_line(item: pb.Item) -> dict[str, object]:
    kind = item.WhichOneof("kind")
    assert kind is not None
    return {"type": kind, "table": item.table, kind: oracle(getattr(item, kind))}


def random_hand_items(rng: random.Random) -> list[pb.Item]:
    """The items of a random hand (reference encoders) with every connection-level item around them."""
    seats = rng.randint(2, 6)
    config = TableConfig(
        stacks=tuple(rng.randint(50, 3000) for _ in range(seats)),
        button=rng.randint(0, seats - 1),
        small_blind=5,
        big_blind=10,
        variant=rng.choice(list(Variant)),
        ante=rng.choice((0, 2)),
        rake_bps=rng.choice((0, 500)),
    )
    deck = list(range(52))
    rng.shuffle(deck)
    hand = Hand(config, deck)
    seat_map, table = list(range(seats)), rng.randint(1, 2**40)
    items = [
        pb.Item(welcome=pb.Welcome(name="bot", protocol_version=1)),
        pb.Item(
            table=table,
            match_start=pb.MatchStart(
                match_id="m",
                seat=1,
                players=["a", "b"],
                hands=9,
                mode="reset",
                variant_name="mixed",
                starting_stack=3000,
                per_action_ms=1000,
                bank_ms=30000,
            ),
        ),
    ]
    items += [reference.hand_start(table, hand, 4, s, seat_map, seats) for s in range(seats)]
    done, street = 0, 0
    while True:
        for event in hand.events[done:]:
            street = event.street if isinstance(event, Dealt) else street
            public = reference.public_item(table, event, street, 4, seat_map)
            if public is not None:
                items.append(public)
        done = len(hand.events)
        if hand.actor is None:
            break
        legal = hand.legal()
        items.append(
            reference.action_request(table, rng.randint(1, 2**53 - 1), hand, legal, 4, seat_map, seats, 1000, 5000)
        )
        choice = rng.choice(["call", "call", "raise"] + ["fold"] * legal.fold)
        if choice == "raise" and legal.can_raise:
            hand.raise_to(rng.randint(legal.min_to, legal.max_to))
        elif choice == "fold":
            hand.fold()
        else:
            hand.check_call()
    net = [hand.stacks[s] - config.stacks[s] for s in range(seats)]
    items.append(reference.hand_end(table, hand, 4, seat_map, seats, net))
    items += [
        pb.Item(table=table, match_end=pb.MatchEnd(match_id="m", net=[-5, 5], hands=9)),
        pb.Item(notice=pb.Notice(reason=pb.FAULT_REASON_ILLEGAL_ACTION, detail="no", request_id=3)),
        pb.Item(goodbye=pb.Goodbye(reason="over")),
    ]
    return items


def test_every_item_becomes_one_line_with_every_field_under_its_proto_name() -> None:
    rng = random.Random(13)
    kinds = set()
    for _ in range(150):
        items = random_hand_items(rng)
        text = wire_json.json_lines(b"".join(wire.frame(item) for item in items))
        assert text.endswith(b"\n")
        lines = text.decode().split("\n")[:-1]
        assert len(lines) == len(items)
        for line, item in zip(lines, items, strict=True):
            assert json.loads(line) == expected_line(item), line
            assert line == json.dumps(expected_line(item), separators=(",", ":"))  # compact, keys in proto order
            kinds.add(item.WhichOneof("kind"))
    assert kinds == {field.name for field in pb.Item.DESCRIPTOR.oneofs_by_name["kind"].fields}
    shown = json.loads(
        wire_json.json_lines(wire.frame(pb.Item(event=pb.Event(type=pb.EVENT_TYPE_RAISE, street=pb.STREET_FLOP))))
    )
    assert shown["event"]["type"] == "raise" and shown["event"]["street"] == "flop"


def test_reply_lines_become_one_message_and_malformed_lines_get_a_reason() -> None:
    message, errors = wire_json.json_replies(
        [
            b'{"table": 3, "request_id": 9, "action": "bet_raise", "amount": 400}',
            b'{"table":3,"request_id":10,"action":"fold"}\r',
            b"   ",
            b'{"table": 3, "request_id": 11, "action": "check_call", "amount": 0, "comment": "extra keys are ignored"}',
        ]
    )
    assert errors == []
    assert message is not None
    assert [(a.table, a.request_id, a.type, a.amount) for a in message.actions] == [
        (3, 9, pb.ACTION_TYPE_BET_RAISE, 400),
        (3, 10, pb.ACTION_TYPE_FOLD, 0),
        (3, 11, pb.ACTION_TYPE_CHECK_CALL, 0),
    ]
    bad = {
        b"fold": "not a JSON line",
        b"[1]": "not a JSON object",
        b'{"table": 1, "request_id": 2, "action": "allin"}': '"action" must be',
        b'{"table": 1, "request_id": 2}': '"action" must be',
        b'{"table": 1, "request_id": "2", "action": "fold"}': '"request_id" must be an integer',
        b'{"table": 1, "request_id": true, "action": "fold"}': '"request_id" must be an integer',
        b'{"table": 1.5, "request_id": 2, "action": "fold"}': '"table" must be an integer',
        b'{"request_id": 2, "action": "fold"}': '"table" must be an integer',
        b'{"table": -1, "request_id": 2, "action": "fold"}': '"table" -1 is out of range',
        b'{"table": 1, "request_id": 2, "action": "bet_raise", "amount": 9223372036854775808}': '"amount"',
        b'{"table": 1, "request_id": 2, "action": "bet_raise", "amount": "400"}': '"amount" must be an integer',
    }
    for line, reason in bad.items():
        message, errors = wire_json.json_replies([line])
        assert message is None and len(errors) == 1 and errors[0].startswith(reason), (line, errors)
        assert "\n" not in errors[0]


# ------------------------------------------------------------------------- real matches


@pytest.mark.parametrize("variant", ["no-limit", "fixed-limit"])
def test_stdio_bots_play_grpc_bots_and_their_histories_replay_in_pokerkit(tmp_path: Path, variant: str) -> None:
    run = run_match(
        tmp_path,
        {"jsonbot": stdio_bot("raise"), "random": bot_command("random")},
        protocols={"jsonbot": "stdio"},
        variant=variant,
        hands=20,
        seed=f"stdio-{variant}",
    )
    check_match(run)  # no faults, every hand, chips conserved, PokerKit replays, no process left


def test_mixed_protocols_at_one_table_with_the_c_java_and_rust_samples(
    tmp_path: Path, stdio_samples: dict[str, tuple[str, ...]]
) -> None:
    bots = {
        "c": stdio_samples["c"],
        "java": stdio_samples["java"],
        "rust": stdio_samples["rust"],
        "grpc": bot_command("strength"),
        "py": stdio_bot("call"),
    }
    run = run_match(
        tmp_path,
        bots,
        protocols={"c": "stdio", "java": "stdio", "rust": "stdio", "py": "stdio"},
        hands=12,
        duplicate=False,
        tables=2,
        seed="mixed-protocols",
    )
    check_match(run)
    actions = " ".join(
        a
        for spec in run.plan.tables
        for h in read_phhs(history_path(run.out, spec.deal_set, spec.rotation))
        for a in h.fields["actions"]
    )
    assert " cbr " in actions and " f" in actions  # the samples raise (C, Java) and fold (Rust) as written


def test_a_stdio_bot_receives_its_own_cards_only_and_the_documented_lines(tmp_path: Path) -> None:
    record = tmp_path / "out" / "scratch" / "rec.0" / "lines.jsonl"  # its HOME (a sandboxed bot writes nowhere else)
    run = run_match(
        tmp_path / "out",
        {"rec": stdio_bot("record", "lines.jsonl"), "call": bot_command("call")},
        protocols={"rec": "stdio"},
        hands=6,
        duplicate=False,
        seed="stdio-record",
    )
    check_match(run)
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    assert lines[0] == {"type": "welcome", "table": 0, "welcome": {"name": "rec", "protocol_version": 1}}
    assert lines[-1]["type"] == "goodbye"
    assert {line["type"] for line in lines} == {
        "welcome",
        "match_start",
        "hand_start",
        "event",
        "request",
        "hand_end",
        "match_end",
        "goodbye",
    }
    seat = lines[1]["match_start"]["seat"]
    hands = read_phhs(history_path(run.out, run.plan.tables[0].deal_set, 0))
    for line in lines:
        if line["type"] in ("hand_start", "request"):
            body = line[line["type"]]
            hand = hands[body["hand"]]
            assert body["hole_cards"] == hand.hole_by_seat()[seat]
        if line["type"] == "hand_end":  # the other seat's cards only when shown
            hand = hands[line["hand_end"]["hand"]]
            assert {s["seat"]: s["cards"] for s in line["hand_end"]["shown"]} == hand.shown_by_seat()


def test_a_table_has_one_number_for_the_bot_the_histories_and_the_web_view(tmp_path: Path) -> None:
    # Issue 22.8: stdio bots saw tables from a process-wide counter (1 and 2 in a fresh dealer match)
    # where the histories said table-000 and table-001 and the web view "table 0" (the rotation).
    # Now the bot's table T is history table-00T, whose hands carry _table_id T and its cards, and
    # which the web view shows as table T.
    record = tmp_path / "out" / "scratch" / "rec.0" / "lines.jsonl"
    run = run_match(
        tmp_path / "out",
        {"rec": stdio_bot("record", "lines.jsonl"), "call": bot_command("call")},
        protocols={"rec": "stdio"},
        hands=3,
        duplicate=False,
        tables=2,
        seed="stdio-numbers",
    )
    check_match(run)
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    starts = {line["table"]: line["match_start"]["seat"] for line in lines if line["type"] == "match_start"}
    assert sorted(starts) == [1, 2]
    for table, seat in starts.items():
        (path,) = (run.out / "hands").glob(f"table-{table:03d}-*.phhs")
        hands = read_phhs(path)
        assert [h.fields["_table_id"] for h in hands] == [table] * 3
        assert {replay(h.text)["table"] for h in hands} == {table}
        seen = [line["hand_start"] for line in lines if line["type"] == "hand_start" and line["table"] == table]
        assert [s["hole_cards"] for s in seen] == [hands[s["hand"]].hole_by_seat()[seat] for s in seen]


# ------------------------------------------------------------------------- faults


def faulty(tmp_path: Path, bad: tuple[str, ...], hands: int = 6, duplicate: bool = False) -> dict[str, int]:
    """Play a stdio bot against the gRPC call bot on fast clocks; the stdio bot's faults (the other has none)."""
    run = run_match(
        tmp_path,
        {"honest": bot_command("call"), "bad": bad},
        protocols={"bad": "stdio"},
        hands=hands,
        duplicate=duplicate,
        time=FAST,
        seed="stdio-faults",
    )
    records = run.result.records
    assert len(records) == hands * len(run.plan.tables)
    assert all(sum(r.net.values()) == 0 for r in records)
    assert run.result.faults["honest"] == {}
    return run.result.faults["bad"]


def test_malformed_lines_are_protocol_faults_and_their_requests_time_out(tmp_path: Path) -> None:
    faults = faulty(tmp_path, stdio_bot("malformed"), hands=8)
    assert faults == {Fault.PROTOCOL: 4, Fault.TIMEOUT: 4, Fault.ILLEGAL: 1}
    log = (tmp_path / "logs" / "bad.0.log").read_text()  # one table: instance 0
    assert log.count("notice protocol") == 4 and "notice illegal_action" in log and "stdio bot done" in log


def test_a_silent_stdio_bot_times_out_three_times_then_is_folded(tmp_path: Path) -> None:
    assert faulty(tmp_path, stdio_bot("silent")) == {Fault.TIMEOUT: 3}


def test_a_slow_stdio_bot_eats_its_bank_then_times_out(tmp_path: Path) -> None:
    assert faulty(tmp_path, stdio_bot("slow", "250")) == {Fault.TIMEOUT: 3}


def test_a_line_too_long_cuts_the_bot_off_as_a_protocol_fault(tmp_path: Path) -> None:
    assert faulty(tmp_path, stdio_bot("long")) == {Fault.PROTOCOL: 1}


@pytest.mark.parametrize(
    "mode, faults",
    [("junk", {Fault.PROTOCOL: 2001, Fault.FLOOD: 1}), ("idle", {Fault.TIMEOUT: 3})],
)
def test_a_stdio_bot_that_floods_or_idles_with_its_output_open_is_charged_once_and_the_match_ends(
    tmp_path: Path, mode: str, faults: dict[str, int]
) -> None:
    """2,100 junk lines then idling is cut off as a flood (each line up to the cut a protocol fault);
    idling from the start times out three times, then the bot is folded. Neither reads its input
    or closes its output again: the match still ends on time (its pipes have deadlines)."""
    done: list[dict[str, int]] = []
    match = threading.Thread(target=lambda: done.append(faulty(tmp_path, stdio_bot(mode))), daemon=True)
    match.start()
    match.join(30)  # the match needs about 5 s
    assert done, "the match did not end within 30 s"
    assert done[0] == faults


# ------------------------------------------------------------------------- syntax


LEAGUE = """\
name: protocols
bots:
  - {name: grpc, command: python sample_bots/python/call_bot.py}
  - {name: json, command: python sample_bots/python/stdio_bot.py, protocol: stdio}
  - {name: plain, command: python sample_bots/python/call_bot.py, protocol: grpc}
events:
  - {name: hu, format: round-robin, table_size: 2, hands: 4}
"""


def test_a_league_names_each_bots_protocol_and_reports_a_bad_one_with_its_line() -> None:
    league = parse_league(LEAGUE, "league.yaml")
    assert [b.protocol for b in league.bots] == ["grpc", "stdio", "grpc"]
    bad = LEAGUE.replace("protocol: stdio", "protocol: stdin").replace(
        "  - {name: plain, command: python sample_bots/python/call_bot.py, protocol: grpc}",
        "  - {name: far, remote: true, protocol: stdio}",
    )
    with pytest.raises(LeagueConfigError) as caught:
        parse_league(bad, "league.yaml")
    assert caught.value.errors == [
        "league.yaml:4: bots[1].protocol: 'stdin' is not one of grpc, stdio, acpc (did you mean 'stdio'?)",
        "league.yaml:5: bots[2].protocol: bot 'far': remote bots speak grpc, not stdio",
    ]


def test_match_commands_name_their_protocol_by_prefix() -> None:
    assert split_protocol("stdio:./bot --fast") == ("stdio", "./bot --fast")
    assert split_protocol("acpc: ./client {game} {host} {port}") == ("acpc", "./client {game} {host} {port}")
    assert split_protocol("grpc:python bot.py") == ("grpc", "python bot.py")
    assert split_protocol("python bot.py") == ("grpc", "python bot.py")
    assert split_protocol("env A=b:c ./bot") == ("grpc", "env A=b:c ./bot")


def test_dealer_match_plays_a_stdio_bot_named_by_its_prefix(tmp_path: Path) -> None:
    dealer = Path(sys.executable).with_name("dealer")
    done = subprocess.run(
        [
            str(dealer),
            "match",
            "stdio:python sample_bots/python/stdio_bot.py",
            "python sample_bots/python/call_bot.py",
            "--hands",
            "6",
            "--out",
            str(tmp_path / "cli"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "DEALER_SEED": "1"},
    )
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if "stdio_bot" in line or "call_bot" in line]
    assert len(rows) == 2 and all(row.rstrip().endswith("-") for row in rows), done.stdout  # no failures
    results = json.loads((tmp_path / "cli" / "results.json").read_text())
    assert results["hands"] == 6
