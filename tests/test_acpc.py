"""Bots over the ACPC dealer protocol 2.0.0 (``protocol: acpc``), with the project's C reference client.

The translation of items into MATCHSTATE lines is tests/test_acpc_view.py's; here the bridge's
batches and connections, and real matches: the reference client beside gRPC and stdio bots
(limit and no limit, heads-up and three-handed) and their histories replay in PokerKit; the states
the client received agree with ``dealer export --acpc`` of the same histories; what ACPC cannot
express is refused.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT, bot_command, history_path, read_phhs, run_match
from dealer.config.acpc_game import export_states, game_definition, unsupported
from dealer.config.league_file import Limits, game_config
from dealer.connect import wire_json
from dealer.connect.acpc import (
    GAME_PATH,
    HOST,
    MAX_LINE_BYTES,
    _Clients,
    _HandOff,
    _launch_client,
    _Line,
    _share_game_file,
)
from dealer.connect.server import REPLY_SLICE, BotSession, Fault
from dealer.connect.wire import Reply
from poker.v1 import dealer_pb2 as pb
from test_e2e import check_match

STDIO_BOT = ROOT / "tests" / "bots" / "stdio_bot.py"
HOSTILE = ROOT / "tests" / "bots" / "acpc_hostile.py"


def acpc(client: Path, *extra: str) -> tuple[str, ...]:
    return (str(client), "{game}", "{host}", "{port}", *extra)


# ------------------------------------------------------------------------- pure parts


def test_game_definitions_heads_up_reverse_blinds_and_three_handed_limit() -> None:
    assert game_definition(game_config(blinds=(50, 100), stack=20000), 2).splitlines() == [
        "GAMEDEF",
        "nolimit",
        "numPlayers = 2",
        "numRounds = 4",
        "stack = 20000 20000",
        "blind = 100 50",
        "firstPlayer = 2 1 1 1",
        "numSuits = 4",
        "numRanks = 13",
        "numHoleCards = 2",
        "numBoardCards = 0 3 1 1",
        "END GAMEDEF",
    ]
    limit = game_definition(game_config(variant="fixed-limit", blinds=(5, 10), stack=1000), 3).splitlines()
    assert limit[1] == "limit" and "blind = 5 10 0" in limit and "raiseSize = 10 10 20 20" in limit
    assert "maxRaises = 3 4 4 4" in limit and "firstPlayer = 3 1 1 1" in limit


@pytest.mark.parametrize(
    "game, seats, freezeout, reason",
    [
        (game_config(variant="pot-limit"), 2, False, "no pot limit"),
        (game_config(variant="mixed"), 2, False, "no mixed games"),
        (game_config(ante=10), 2, False, "no antes"),
        (game_config(rake_percent=5, rake_cap=100), 2, False, "no rake"),
        (game_config(), 6, True, "no freezeout"),
        (game_config(variant="fixed-limit", blinds=(50, 100), stack=2000), 2, False, "at least 2400"),
    ],
)
def test_what_acpc_cannot_express_is_refused_with_a_reason(game, seats: int, freezeout: bool, reason: str) -> None:
    text = unsupported(game, seats=seats, freezeout=freezeout)
    assert text is not None and reason in text and "\n" not in text


def test_what_acpc_can_express_is_accepted() -> None:
    assert unsupported(game_config(), seats=2) is None
    assert unsupported(game_config(variant="fixed-limit", blinds=(50, 100), stack=2400), seats=10) is None


class RecordingWriter:
    """The dealer's end of a client's connection (a ``_Line``), reduced to what it is written: one entry per write."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.blocked = False

    def write(self, data: bytes) -> None:
        self.writes.append(data)

    async def drain(self) -> None:
        pass

    def attach(self, heard: object) -> None:
        pass


def framed(*items: pb.Item) -> bytes:
    return pb.DealerMessage(items=items).SerializeToString()


def test_the_bridges_lean_items_hold_the_full_items_values_of_every_field_it_reads() -> None:
    """The ACPC bridge decodes each batch into typed items with only the fields AcpcView reads
    (``acpc_items``, from the wire bytes); each is the full item's (``item_dicts``, through
    protobuf, the stdio lines) value: kinds without a field read, a table past 32 bits, negative
    int64s, an event type left off the wire (zero)."""
    batch = framed(
        pb.Item(table=3, match_start=pb.MatchStart(match_id="m", seat=1, players=["a", "b", "c"], hands=9)),
        pb.Item(table=3, hand_start=pb.HandStart(hand=4, button=2, seat=1, hole_cards=["Ah", "Kh"], stacks=[5, 6])),
        pb.Item(table=3, event=pb.Event(type=pb.EVENT_TYPE_RAISE, seat=2, amount=300, to=400, hand=4)),
        pb.Item(table=3, event=pb.Event(type=pb.EVENT_TYPE_BOARD, cards=["2c", "3c", "4c"], street=pb.STREET_FLOP)),
        pb.Item(table=3, request=pb.ActionRequest(request_id=7, hand=4, min_raise_to=800, pot=900, bets=[1, 2])),
        pb.Item(table=3, hand_end=pb.HandEnd(hand=4, shown=[pb.ShownHand(seat=2, cards=["Qs", "Qd"])], net=[1])),
        pb.Item(table=3, match_end=pb.MatchEnd(match_id="m", hands=9)),
        pb.Item(table=1 << 40, event=pb.Event(type=pb.EVENT_TYPE_RETURNED, seat=1, amount=-2, to=-1)),  # int64s
        pb.Item(table=2, event=pb.Event(seat=1, to=5)),  # no type on the wire
        pb.Item(welcome=pb.Welcome(name="b", protocol_version=1)),
        pb.Item(notice=pb.Notice(detail="d", request_id=3)),
        pb.Item(goodbye=pb.Goodbye(reason="over")),
    )
    read: dict[str, dict[str, str]] = {  # the full item's field -> the lean item's
        "match_start": {"seat": "seat", "players": "players"},
        "hand_start": {"hand": "hand", "button": "button", "hole_cards": "cards"},
        "event": {"type": "event", "seat": "seat", "to": "to", "cards": "cards"},
        "request": {"request_id": "request_id", "min_raise_to": "min_raise_to"},
        "hand_end": {"shown": "shown"},
    }
    lean, full = wire_json.acpc_items(batch), wire_json.item_dicts(batch)
    assert [(i.kind, i.table) for i in lean] == [(i["type"], i["table"]) for i in full]
    for small, whole in zip(lean, full, strict=True):
        kind = str(whole["type"])
        whole_body = whole[kind]
        assert isinstance(whole_body, dict)
        expected = {mine: whole_body[theirs] for theirs, mine in read.get(kind, {}).items()}
        if kind == "match_start":
            expected["players"] = len(whole_body["players"])
        if kind == "hand_end":
            expected["shown"] = [(shown["seat"], shown["cards"]) for shown in whole_body["shown"]]
        assert {name: getattr(small, name) for name in expected} == expected, kind
    assert lean[-4].event == "unspecified" and lean[-4].to == 5


@pytest.mark.parametrize(
    ("batch", "reason"),
    [
        (b"\x0a\x02\x0b\x00", "protobuf wire type 3 at byte 3"),  # an Item's field of a wire type never written
        (b"\x0a\x03\x2a\x01\x0b", "protobuf wire type 3 at byte 5"),  # the same inside an event
        (b"\x0a\x02\x08\x05", "an Item holding none of its kinds"),  # a table and nothing else
        (b"\x0d\x00\x00\x00\x00\x0a\x02\x08\x01", "an Item holding none of its kinds"),  # after a fixed32
    ],
)
def test_a_batch_the_bridge_cannot_read_is_a_value_error_that_says_where(batch: bytes, reason: str) -> None:
    """The dealer writes every batch itself, so a batch the bridge cannot read is the dealer's bug:
    a ValueError that names the wire type and its byte, never a silent item."""
    with pytest.raises(ValueError, match=f"^{reason}$"):
        wire_json.acpc_items(batch)


def test_a_tables_lines_wait_for_its_request_and_go_in_one_write() -> None:
    """A bot's batch holds every table's news: a client is written only when its table has a
    request (or its match ends, or the goodbye), with every line it missed, in order, in one write.
    (Writing each touched client at each batch cost about two sends per decision instead of one.)"""
    writers = [RecordingWriter(), RecordingWriter()]
    bridge = _Clients(writers, no_limit=True)  # type: ignore[arg-type]

    def deal(table: int) -> list[pb.Item]:
        return [
            pb.Item(table=table, match_start=pb.MatchStart(seat=0, players=["me", "them"])),
            pb.Item(table=table, hand_start=pb.HandStart(hand=0, button=0, hole_cards=["Ah", "Kh"])),
            pb.Item(table=table, event=pb.Event(type=pb.EVENT_TYPE_SMALL_BLIND, seat=0, to=50)),
            pb.Item(table=table, event=pb.Event(type=pb.EVENT_TYPE_BIG_BLIND, seat=1, to=100)),
        ]

    called = pb.Item(table=1, event=pb.Event(type=pb.EVENT_TYPE_CALL, seat=0, to=100))
    checked = pb.Item(table=1, event=pb.Event(type=pb.EVENT_TYPE_CHECK, seat=1))
    board = pb.Item(table=1, event=pb.Event(type=pb.EVENT_TYPE_BOARD, cards=["2c", "3c", "4c"]))

    async def scenario() -> None:
        await bridge.write(framed(*deal(0), pb.Item(table=0, request=pb.ActionRequest(request_id=1))))
        await bridge.write(framed(*deal(1), called))  # table 1 asks nothing yet
        assert [len(w.writes) for w in writers] == [1, 0]
        await bridge.write(framed(checked, board, pb.Item(table=1, request=pb.ActionRequest(request_id=2))))
        await bridge.write(framed(pb.Item(table=0, event=pb.Event(type=pb.EVENT_TYPE_FOLD, seat=0))))
        await bridge.write(framed(pb.Item(goodbye=pb.Goodbye(reason="over"))))

    asyncio.run(scenario())
    assert writers[0].writes == [b"MATCHSTATE:1:0::|AhKh\r\n", b"MATCHSTATE:1:0:f:|AhKh\r\n"]
    assert writers[1].writes == [
        b"MATCHSTATE:1:0::|AhKh\r\nMATCHSTATE:1:0:c:|AhKh\r\nMATCHSTATE:1:0:cc/:|AhKh/2c3c4c\r\n"
    ]


def test_replies_read_as_records_are_routed_as_a_messages_are_sliced_and_not_copied() -> None:
    """The bridge hands the link its answers as ``wire.Reply`` records (no protobuf message made
    only to be read back): each settles its own request with that very record, a stray one is an
    ``unexpected_reply``, and more than REPLY_SLICE of them are routed in slices, all of them."""

    first = Reply(2, 5, "check_call", 0)

    async def scenario() -> tuple[list[Reply | None], BotSession]:
        session = BotSession("bot", "token")
        session.link._attach(object(), "test")
        answered: list[Reply | None] = []
        for request_id in (5, 6):
            session.request(request_id, bytes([request_id]), 5.0, lambda r, _: answered.append(r), table=2)
        session.link._take_batch(asyncio.get_running_loop().time())
        strays = [Reply(2, 100 + k, "fold", 0) for k in range(REPLY_SLICE)]
        assert await session.link.receive_replies([first, Reply(3, 6, "fold", 0)])
        assert await session.link.receive_replies([*strays, Reply(2, 6, "bet_raise", 400)])
        return answered, session

    answered, session = asyncio.run(scenario())
    assert answered[0] is first
    assert [(r.request_id, r.action, r.amount) for r in answered if r is not None] == [
        (5, "check_call", 0),
        (6, "bet_raise", 400),
    ]
    assert session.faults[Fault.UNEXPECTED] == 1 + REPLY_SLICE  # table 3 is not request 6's, and the strays


class RecordingTransport(asyncio.Transport):
    """A client connection's transport reduced to what the dealer writes to it."""

    def __init__(self) -> None:
        super().__init__()
        self.written = b""
        self.reading = True

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.written += bytes(data)

    def pause_reading(self) -> None:
        self.reading = False


class RecordingInbox:
    """The pump's inbox reduced to what it is handed: each message's replies, each malformed line."""

    def __init__(self) -> None:
        self.messages: list[list[tuple[int, int, str]]] = []
        self.malformed_lines: list[tuple[str, bool]] = []

    async def receive_replies(self, message: list[Reply]) -> bool:
        self.messages.append([(a.table, a.request_id, a.action) for a in message])
        return True

    def malformed(self, detail: str, *, fatal: bool = False) -> bool:
        self.malformed_lines.append((detail, fatal))
        return not fatal


async def _two_clients_asked() -> tuple[list[_Line], list[RecordingTransport], _Clients]:
    """A bot's two connected clients (tables 5 and 6, no-limit), each sent its first state, which asks
    request 15 and 16: ``MATCHSTATE:0:0::AhKh|``."""
    loop = asyncio.get_running_loop()
    lines = [_Line(loop.create_future()) for _ in range(2)]
    transports = [RecordingTransport() for _ in lines]
    for line, transport in zip(lines, transports, strict=True):
        line.connection_made(transport)
        line.data_received(b"VERSION:2.0.0\r\n")
        assert await line.first == b"VERSION:2.0.0\r\n"
    bridge = _Clients(lines, no_limit=True)
    batch = [
        pb.Item(table=table, **kind)  # type: ignore[arg-type]
        for table in (5, 6)
        for kind in (
            {"match_start": pb.MatchStart(seat=1, players=["a", "b"])},
            {"hand_start": pb.HandStart(hand=0, button=0, hole_cards=["Ah", "Kh"])},
            {"event": pb.Event(type=pb.EVENT_TYPE_SMALL_BLIND, seat=0, to=50)},
            {"event": pb.Event(type=pb.EVENT_TYPE_BIG_BLIND, seat=1, to=100)},
            {"request": pb.ActionRequest(request_id=10 + table)},
        )
    ]
    await bridge.write(framed(*batch))
    assert transports[0].written == transports[1].written == b"MATCHSTATE:0:0::AhKh|\r\n"
    return lines, transports, bridge


def test_answers_of_one_loop_turn_go_to_the_link_as_one_message_and_a_line_too_long_ends_the_bot() -> None:
    """Each client's bytes are cut into lines by its connection (a line may come in pieces; comments
    are skipped); the answers that came from any of the bot's clients before the reader runs go to
    the link as one message, in order. A line longer than MAX_LINE_BYTES is a fatal ``protocol``."""

    async def scenario() -> tuple[RecordingInbox, list[RecordingTransport]]:
        lines, transports, bridge = await _two_clients_asked()
        lines[1].data_received(b"# thinking\nMATCHSTATE:0:0::Ah")
        lines[0].data_received(b"MATCHSTATE:0:0::AhKh|:c\r\n")
        lines[1].data_received(b"Kh|:f\r\n")
        inbox = RecordingInbox()
        reader = asyncio.create_task(bridge.read(inbox))  # type: ignore[arg-type]
        await asyncio.sleep(0)
        lines[0].data_received(b"x" * (MAX_LINE_BYTES + 1))
        await asyncio.wait_for(reader, 5)
        return inbox, transports

    inbox, transports = asyncio.run(scenario())
    assert inbox.messages == [[(5, 15, "check_call"), (6, 16, "fold")]]
    assert inbox.malformed_lines == [(f"a line longer than {MAX_LINE_BYTES} bytes", True)]
    assert not transports[0].reading and transports[1].reading


def test_a_line_that_is_no_answer_parts_a_turns_answers_around_its_fault_and_a_clients_end_ends_the_bot() -> None:
    """The answers of one loop turn before a line that is no answer go to the link as one message,
    then the line is a ``protocol`` fault (not fatal), then the answers after it go as the next
    message; a client whose side ends stops the reading there (what came after it is not read)."""

    async def scenario() -> RecordingInbox:
        lines, _, bridge = await _two_clients_asked()
        lines[0].data_received(b"MATCHSTATE:0:0::AhKh|:c\r\nMATCHSTATE:0:0::AhKh|:x\r\n")
        lines[1].data_received(b"; a comment\nMATCHSTATE:0:0::AhKh|:r300\r\nhello\n")
        lines[0].data_received(b"MATCHSTATE:0:0::AhKh|:f\r\n")
        lines[1].eof_received()
        lines[0].data_received(b"MATCHSTATE:0:0::AhKh|:c\r\n")
        inbox = RecordingInbox()
        await asyncio.wait_for(bridge.read(inbox), 5)  # type: ignore[arg-type]
        return inbox

    inbox = asyncio.run(scenario())
    assert inbox.messages == [[(5, 15, "check_call")], [(6, 16, "bet_raise")], [(5, 15, "fold")]]
    assert [fatal for _, fatal in inbox.malformed_lines] == [False, False]
    assert [detail[:24] for detail, _ in inbox.malformed_lines] == ["not a MATCHSTATE answer "] * 2


# ------------------------------------------------------------------------- real matches


@pytest.mark.parametrize("variant", ["no-limit", "fixed-limit"])
def test_the_reference_client_plays_a_grpc_bot_and_the_histories_replay_in_pokerkit(
    tmp_path: Path, acpc_client: Path, variant: str
) -> None:
    run = run_match(
        tmp_path,
        {"acpc": acpc(acpc_client, "trace"), "random": bot_command("random")},
        protocols={"acpc": "acpc"},
        variant=variant,
        hands=16,
        seed=f"acpc-{variant}",
    )
    histories = check_match(run)  # duplicate: two tables, so two ACPC clients, one per table
    actions = " ".join(a for hands in histories.values() for h in hands for a in h.fields["actions"])
    assert " cbr " in actions and " f" in actions
    # What the client was told at the end of each hand agrees with `dealer export --acpc`.
    for k, spec in enumerate(run.plan.tables):
        path = history_path(run.out, spec.deal_set, spec.rotation)
        exported = {int(line.split(":")[1]): line.split(":")[2] for line in export_states(path.read_text())}
        log = tmp_path / "logs" / f"acpc.{k}.log"  # sealed rotations: an instance (one client) per table
        final: dict[int, str] = {}
        for line in log.read_text().splitlines():
            fields = line.split(":")
            final[int(fields[2])] = fields[3]
        assert final == exported, (spec, log.name)


def test_acpc_stdio_and_grpc_bots_at_one_three_handed_table(tmp_path: Path, acpc_client: Path) -> None:
    bots = {"acpc": acpc(acpc_client), "json": ("python", str(STDIO_BOT), "raise"), "grpc": bot_command("strength")}
    run = run_match(tmp_path, bots, protocols={"acpc": "acpc", "json": "stdio"}, hands=10, seed="three-protocols")
    check_match(run)


def test_a_sealed_clients_connection_is_handed_to_the_dealer(tmp_path: Path, acpc_client: Path) -> None:
    """A sealed client's launcher hands the connection it took on the sandbox's port to the dealer
    (SCM_RIGHTS): the dealer writes to the client's own TCP socket, with TCP_NODELAY (as the ACPC
    dealer sets it), and no byte is copied through the launcher. (Its relay without TCP_NODELAY
    held lines back for delayed acks: 0.03x the ACPC dealer's hands/s in benchmarks/vs_acpc.py.)"""
    game_file = tmp_path / "match.game"
    game_file.write_text(game_definition(game_config(), 2))
    argv = (str(acpc_client), GAME_PATH, HOST, "{port}")

    async def scenario() -> tuple[bytes, int, int]:
        client = await _launch_client(
            "c",
            argv,
            str(tmp_path / "0.sock"),
            ROOT,
            tmp_path / "c",
            tmp_path / "c.log",
            Limits(),
            {GAME_PATH: game_file},
        )
        try:
            connection = await asyncio.wait_for(client.connected, 20)
            line = await asyncio.wait_for(connection.first, 20)
            assert line is not None and connection.transport is not None
            own = connection.transport.get_extra_info("socket")
            return line, own.family, own.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        finally:
            client.server.close()
            await client.process.stop(0.2)

    line, family, nodelay = asyncio.run(scenario())
    assert line.startswith(b"VERSION:2."), line
    assert family == socket.AF_INET and nodelay, (family, nodelay)


def test_dealer_match_plays_an_acpc_bot_and_export_prints_its_states(tmp_path: Path, acpc_client: Path) -> None:
    dealer = Path(sys.executable).with_name("dealer")
    out = tmp_path / "cli"
    done = subprocess.run(
        [
            str(dealer),
            "match",
            f"acpc:{acpc_client} {{game}} {{host}} {{port}}",
            "python sample_bots/python/call_bot.py",
            "--hands",
            "8",
            "--variant",
            "fixed-limit",
            "--out",
            str(out),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "DEALER_SEED": "1"},
    )
    assert done.returncode == 0, done.stderr
    assert "acpc_client" in done.stdout and "8 hands" in done.stdout
    exported = subprocess.run(
        [str(dealer), "export", "--acpc", str(out / "hands")], capture_output=True, text=True, timeout=60, check=False
    )
    assert exported.returncode == 0, exported.stderr
    lines = exported.stdout.splitlines()
    assert len(lines) == 8
    hands = [h for path in sorted((out / "hands").glob("*.phhs")) for h in read_phhs(path)]
    for line, hand in zip(lines, hands, strict=True):
        number, betting, cards, net, names = line.split(":")[1:]
        assert int(number) == hand.number and names.split("|") == hand.fields["players"]
        assert [int(x) for x in net.split("|")] == list(hand.net_by_player().values())
        assert cards.split("/")[0].split("|") == hand.hole_by_position()
        assert re.fullmatch(r"[fcr]*(/[fcr]*){0,3}", betting), betting  # limit: no sizes


def test_an_acpc_bot_at_a_variant_acpc_cannot_express_is_refused(tmp_path: Path, acpc_client: Path) -> None:
    dealer = Path(sys.executable).with_name("dealer")
    done = subprocess.run(
        [
            str(dealer),
            "match",
            f"acpc:{acpc_client} {{game}} {{host}} {{port}}",
            "python sample_bots/python/call_bot.py",
            "--variant",
            "pot-limit",
            "--out",
            str(tmp_path / "cli"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "error: an ACPC bot cannot play this match: ACPC game definitions have no pot "
        "limit (use no-limit or fixed-limit)"
    )
    assert not (tmp_path / "cli").exists()  # nothing was started
    league = tmp_path / "league.yaml"
    league.write_text(f"""\
name: acpc
bots:
  - {{name: old, command: "{acpc_client} {{game}} {{host}} {{port}}", protocol: acpc}}
  - {{name: new, command: python {ROOT}/sample_bots/python/call_bot.py}}
events:
  - {{name: ok, format: round-robin, table_size: 2, hands: 10}}
  - {{name: antes, format: round-robin, table_size: 2, hands: 10, game: {{ante: 5}}}}
""")
    done = subprocess.run(
        [str(dealer), "validate", str(league)], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"error: {league}:7: events[1]: bot 'old' speaks ACPC, which cannot play this "
        "event: ACPC game definitions have no antes"
    )


# ------------------------------------------------------------------------- misbehaving clients


@pytest.mark.parametrize(
    "mode, fault",
    [("long", Fault.PROTOCOL), ("silent", Fault.NO_CONNECT)],
)
def test_a_long_or_silent_first_line_is_one_fault_and_the_match_ends_on_time(
    tmp_path: Path, acpc_client: Path, mode: str, fault: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A first line of 10 KB is a ``protocol`` fault at once (not a dealer error left in a task, not
    ``no_connect``); a client that connects and says nothing is ``no_connect`` at the start-up
    time, and nothing more when the dealer closes its connection. Each instance once."""
    caplog.set_level(logging.ERROR)
    started = time.monotonic()
    run = run_match(
        tmp_path,
        {"bad": ("python", str(HOSTILE), mode, "--", *acpc(acpc_client)), "call": bot_command("call")},
        protocols={"bad": "acpc"},
        hands=4,
        seed=f"acpc-{mode}",
        time={"per_action_ms": 200, "bank_ms": 300, "grace_ms": 50, "startup_ms": 3000},
    )
    gc.collect()  # an unretrieved task exception is reported when the task is collected
    assert run.result.faults == {"bad": {fault: 2}, "call": {}}, run.result.log_tails  # two instances (rotations)
    assert run.result.hands == 8
    assert time.monotonic() - started < 30
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
    for k in range(2):
        text = (tmp_path / "logs" / f"bad.{k}.log").read_text()
        assert f"{mode}: connected" in text, text


def test_every_instance_of_a_match_binds_the_one_game_file_never_a_replaced_one(tmp_path: Path) -> None:
    """Sealed rotations start several ACPC instances of a bot at once, each binding ``match.game``
    into its sandbox: a later instance must not replace the file (a new inode) while an earlier
    one's bwrap is binding it, which failed that start with 'Can't bind mount ... No such file'."""
    game_file = tmp_path / "match.game"
    text = game_definition(game_config(blinds=(50, 100), stack=20000), 3)
    _share_game_file(game_file, text)
    inode = game_file.stat().st_ino
    _share_game_file(game_file, text)  # the next instance, or another worker process of the match
    assert game_file.stat().st_ino == inode and game_file.read_text() == text
    game_file.write_text("GAMEDEF\nlimit\nnumPlayers = 2\nEND GAMEDEF\n")  # an older match's game, same folder
    _share_game_file(game_file, text)
    assert game_file.read_text() == text


def test_a_closed_hand_off_leaves_its_descriptor_to_the_next_connection_unwatched(tmp_path: Path) -> None:
    """A sealed client's hand-off socket closes when its connection came; the next connection may
    take the same descriptor number. It must read: a listener closed while the loop still watched
    it left the new connection unread (a client of another table then never connected)."""

    async def main() -> bytes:
        errors: list[object] = []
        asyncio.get_running_loop().set_exception_handler(lambda _, context: errors.append(context))

        hand_off = _HandOff(str(tmp_path / "hand-off"), asyncio.Protocol)
        await asyncio.sleep(0.01)  # it waits for a connection
        hand_off.close()
        mine, theirs = socket.socketpair()  # at once, as the next table's client connects
        reader, writer = await asyncio.open_connection(sock=mine)
        theirs.sendall(b"MATCHSTATE\n")
        line = await asyncio.wait_for(reader.readline(), 5)
        writer.close()
        theirs.close()
        await asyncio.sleep(0.01)
        assert errors == [] and hand_off._listener.fileno() == -1  # closed, and no callback failed
        return line

    assert asyncio.run(main()) == b"MATCHSTATE\n"
