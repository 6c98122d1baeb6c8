"""``wire.HandWire`` writes protobuf by hand: every item must be what the generated classes write.

Random hands (every variant, 2..10 seats, short stacks for all-ins, side pots and returned bets,
antes, rake, freezeout tables where only some seats are dealt in, chip counts beyond 32 bits)
are played with random legal actions; at every step each frame must parse as the item
``tests/wire_reference.py`` builds from the same state, and equal its serialization byte for byte
(the encoder writes fields in field-number order, as protobuf does).
"""

from __future__ import annotations

import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TypeVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wire_reference as reference
from dealer.connect import wire, wire_codec, wire_replies
from dealer.connect.wire import KEPT_EVENTS, HandWire, Kept, frame
from dealer.engine.rules import MAX_SEATS, Acted, Dealt, Hand, TableConfig, Variant
from poker.v1 import dealer_pb2 as pb

T = TypeVar("T")
BIG = 3 * 2**32  # a big blind whose amounts need more than 32 bits


class Drawn:
    """Hypothesis draws behind the two methods of ``random.Random`` the player uses."""

    def __init__(self, data: st.DataObject) -> None:
        self.data = data

    def choice(self, options: Sequence[T]) -> T:
        return self.data.draw(st.sampled_from(options))

    def randint(self, low: int, high: int) -> int:
        return self.data.draw(st.integers(low, high))


Chooser = random.Random | Drawn


def check(framed: bytes | None, item: pb.Item | None) -> None:
    """The encoder's frame parses as the reference item and is byte for byte its serialization."""
    if item is None:
        assert framed is None
        return
    assert framed is not None
    assert list(pb.DealerMessage.FromString(framed).items) == [item]
    assert framed == frame(item)


def play_checked(
    config: TableConfig,
    deck: Sequence[int],
    seat_map: list[int],
    table_seats: int,
    table: int,
    number: int,
    rng: Chooser,
    kept: Kept | None = None,
) -> None:
    """Play a hand with random legal actions, checking every item as the match sends it (``kept``:
    what earlier hands of the same rules and seating encoded alike)."""
    hand = Hand(config, deck)
    encoder = HandWire(table, hand, number, seat_map, table_seats, kept)
    frames: list[bytes] = []
    items: list[pb.Item] = []

    def sent(framed: bytes | None, item: pb.Item | None) -> None:
        check(framed, item)
        if framed is not None and item is not None:
            frames.append(framed)
            items.append(item)

    for seat in range(config.seats):
        sent(encoder.hand_start(seat), reference.hand_start(table, hand, number, seat, seat_map, table_seats))
    done, street = 0, 0
    while True:
        for event in hand.events[done:]:
            street = event.street if isinstance(event, Dealt) else street
            sent(encoder.event(event, street), reference.public_item(table, event, street, number, seat_map))
        done = len(hand.events)
        if hand.actor is None:
            break
        legal = hand.legal()
        request_id = rng.choice((0, 1, rng.randint(2, 2**16), 2**40 + 1, 2**53 - 1))
        time_ms, bank_ms = rng.choice((0, 1000, 2**32 - 1)), rng.choice((0, rng.randint(1, 2**32 - 1)))
        seed = rng.choice((0, 1, rng.randint(2, 2**53 - 1), 2**53 - 1))  # dealer.league.seeds.decision_seed's range
        sent(
            encoder.request(request_id, legal, time_ms, bank_ms, seed),
            reference.action_request(
                table, request_id, hand, legal, number, seat_map, table_seats, time_ms, bank_ms, seed
            ),
        )
        action = rng.choice(["call"] * 3 + ["fold"] * legal.fold + ["raise"] * 2 * legal.can_raise)
        if action == "fold":
            hand.fold()
        elif action == "call":
            hand.check_call()
        else:
            hand.raise_to(rng.choice((legal.min_to, legal.max_to, rng.randint(legal.min_to, legal.max_to))))
    net = [0] * table_seats
    for engine_seat, table_seat in enumerate(seat_map):
        net[table_seat] = hand.stacks[engine_seat] - config.stacks[engine_seat]
    sent(encoder.hand_end(net), reference.hand_end(table, hand, number, seat_map, table_seats, net))
    assert list(pb.DealerMessage.FromString(b"".join(frames)).items) == items


def random_deal(rng: Chooser) -> tuple[TableConfig, list[int], int]:
    """A table config (short stacks often), the seats dealt in (a subset in freezeout) and the table's size."""
    table_seats = rng.randint(2, MAX_SEATS)
    players = rng.choice((table_seats, rng.randint(2, table_seats)))
    seats = list(range(table_seats))
    for k in range(players):  # the first steps of a shuffle pick the seats dealt in
        other = rng.randint(k, table_seats - 1)
        seats[k], seats[other] = seats[other], seats[k]
    seat_map = sorted(seats[:players])
    big = rng.choice((1, 2, 100, BIG))
    stacks = tuple(rng.choice((rng.randint(1, 4 * big), rng.randint(1, 60 * big))) for _ in range(players))
    config = TableConfig(
        stacks=stacks, button=rng.randint(0, players - 1), small_blind=rng.choice((0, big // 2, big)), big_blind=big,
        variant=rng.choice(list(Variant)), ante=rng.choice((0, 0, 1, big // 4)),
        small_bet=rng.choice((0, 2 * big)), big_bet=rng.choice((0, 3 * big)), cap=rng.choice((1, 4)),
        rake_bps=rng.choice((0, 500)), rake_cap=rng.choice((None, 3)),
    )  # fmt: skip
    return config, seat_map, table_seats


@settings(max_examples=400, deadline=None)
@given(st.permutations(range(52)), st.data())
def test_every_item_is_what_protobuf_writes(deck: list[int], data: st.DataObject) -> None:
    rng = Drawn(data)
    config, seat_map, table_seats = random_deal(rng)
    table = rng.choice((0, 1, 7, 2**53 - 1))
    number = rng.choice((0, 1, 299, 2**32 - 1))
    play_checked(config, deck, seat_map, table_seats, table, number, rng)


@pytest.mark.parametrize("seats, live", [(2, [0, 1]), (6, [1, 4, 5])])
def test_a_tables_hands_of_the_same_rules_and_seating_share_what_they_encode_alike(seats: int, live: list[int]) -> None:
    """Hands sharing a ``Kept`` (HandStart's fields from stacks on, ActionRequest's clocks to button, as a
    table keeps them by rules and seating) are each item what protobuf writes, the clocks changing within
    and between hands, and the first hand of each rules making what it keeps."""
    rng = random.Random(seats)
    kept: dict[TableConfig, Kept] = {}
    for number in range(60):
        config = TableConfig(
            stacks=tuple(rng.choice((500, 900)) for _ in live), button=number % len(live), small_blind=50,
            big_blind=100, variant=rng.choice((Variant.NO_LIMIT, Variant.FIXED_LIMIT)),
        )  # fmt: skip
        play_checked(config, rng.sample(range(52), 52), live, seats, 3, number, rng, kept.setdefault(config, Kept()))
    assert len(kept) < 60 and all(k.start_tail and k.request_tail and k.events for k in kept.values())
    full = next(iter(kept.values()))  # full: its actions are forgotten, then kept again as they come
    for street in range(4):
        full.events[street].update({Acted(0, "check", 0, to, False): b"" for to in range(10**6, 10**6 + KEPT_EVENTS)})
    config = next(config for config, k in kept.items() if k is full)
    play_checked(config, rng.sample(range(52), 52), live, seats, 3, 99, rng, full)
    assert 0 < len(full.events[0]) < KEPT_EVENTS and all(act.to < 10**6 for act in full.events[0])


@pytest.mark.parametrize("seats, live", [(2, [0, 1]), (5, [0, 2, 3]), (10, [1, 9]), (10, list(range(10)))])
def test_seeded_hands_on_full_and_freezeout_tables(seats: int, live: list[int]) -> None:
    rng = random.Random(seats * 100 + len(live))
    for number in range(60):
        big = rng.choice((2, 100, BIG))
        config = TableConfig(
            stacks=tuple(rng.randint(1, 30 * big) for _ in live), button=number % len(live), small_blind=big // 2,
            big_blind=big, variant=list(Variant)[number % 3], ante=rng.choice((0, big // 4)), rake_bps=250,
        )  # fmt: skip
        deck = rng.sample(range(52), 52)
        play_checked(config, deck, live, seats, 1 + number % 3, number, rng)


def test_values_beyond_the_memo_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    """With nothing more remembered, values are encoded at each use, the same way."""
    monkeypatch.setattr(wire_codec, "_MEMO_LIMIT", 0)
    rng = random.Random(5)
    for number in range(20):
        big = 10**12 + 7 * number  # values no earlier test has remembered
        config = TableConfig(
            stacks=tuple(rng.randint(1, 40 * big) for _ in range(3)),
            button=number % 3,
            small_blind=big // 2,
            big_blind=big,
            rake_bps=100,
        )
        play_checked(config, rng.sample(range(52), 52), [0, 1, 2], 3, 2**40, number, rng)


def test_encodings_remembered_by_value_and_beyond_are_protobufs_and_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Integers' encodings (``wire_codec._Encodings``) are protobuf's whether remembered in the list by value
    (0 to _BY_VALUE - 1, the list grown on demand), in the dict beyond it (negatives, large values) or not at
    all (past _MEMO_LIMIT values), and the same when asked again."""
    monkeypatch.setattr(wire_codec, "_MEMO_LIMIT", 12)
    top = wire_codec._BY_VALUE
    values = [0, 1, 127, 128, 300, -1, 2**14 + 3, 5, top - 1, top, top + 1, 2**63 - 1, 2**53 - 1, -(2**63), 9000, 77]
    field, bare = wire_codec._Encodings(10), wire_codec._Encodings()  # ActionRequest.pot (int64), a bare varint
    for value in values + values[::-1]:
        assert field[value] == pb.ActionRequest(pot=value).SerializeToString()
        assert bare[value] == pb.HandEnd(net=[value]).SerializeToString()[2:]  # the packed field's key and size
    assert field.kept == bare.kept == 12  # the first 12 values remembered; others encoded at each use
    assert set(field.beyond) == {-1, top, top + 1, 2**63 - 1}
    remembered = {value for value, encoded in enumerate(field.by_value) if encoded is not None}
    assert remembered == {0, 1, 127, 128, 300, 2**14 + 3, 5, top - 1} and len(field.by_value) == top
    assert field.by_value[0] == b"" and field.by_value[300] == b"\x50" + bare[300]  # the key of field 10, varint


def test_hand_end_net_extremes() -> None:
    """Net is int64: negatives are 10-byte two's complement varints; zeros are still packed elements."""
    config = TableConfig(stacks=(100, 200, 300), button=0, small_blind=1, big_blind=2)
    hand = Hand(config, list(range(52)))
    while hand.actor is not None:
        hand.check_call()
    net = [-1, 0, 2**63 - 1, -(2**63), 2**32, -(2**32) - 1, 127, 128, -128]
    check(HandWire(9, hand, 3, [0, 1, 2], 3).hand_end(net), reference.hand_end(9, hand, 3, [0, 1, 2], 3, net))


def test_frame_prefixes_a_long_item() -> None:
    """``frame`` (kept for the rare items) writes multi-byte lengths for items over 127 bytes."""
    item = pb.Item(table=1, notice=pb.Notice(reason=pb.FAULT_REASON_PROTOCOL, detail="x" * 300))
    framed = frame(item)
    assert framed[:3] == b"\x0a" + bytes(((len(framed) - 3) & 0x7F | 0x80, (len(framed) - 3) >> 7))
    assert list(pb.DealerMessage.FromString(framed + framed).items) == [item, item]


def test_the_match_side_reads_replies_and_writes_its_items_as_protobuf_does() -> None:
    """The match's plain values in and out: replies with and without a strategy (an unknown action
    type kept as its number), notices by the stdio names of their reasons, MatchStart and MatchEnd."""
    message = pb.ActionReply(
        table=3,
        request_id=2**40,
        type=pb.ACTION_TYPE_BET_RAISE,
        amount=-5,
        strategy=[pb.ActionProbability(type=pb.ACTION_TYPE_FOLD, probability=0.5), pb.ActionProbability(type=9)],
    )

    def fields(reply: wire.Reply) -> tuple[object, ...]:
        return reply.table, reply.request_id, reply.action, reply.amount, reply.strategy

    assert fields(wire.reply(message)) == (3, 2**40, wire.BET_RAISE, -5, (("fold", 0, 0.5), ("9", 0, 0.0)))
    assert fields(wire.reply(pb.ActionReply(type=7))) == (0, 0, "7", 0, ())
    assert wire.reply(pb.ActionReply(type=pb.ACTION_TYPE_CHECK_CALL)).action == wire.CHECK_CALL
    for reason, number in [
        ("timeout", pb.FAULT_REASON_TIMEOUT),
        ("illegal_action", pb.FAULT_REASON_ILLEGAL_ACTION),
        ("unexpected_reply", pb.FAULT_REASON_UNEXPECTED_REPLY),
        ("protocol", pb.FAULT_REASON_PROTOCOL),
        (wire.DISQUALIFIED, pb.FAULT_REASON_DISQUALIFIED),
    ]:
        expected = pb.Item(notice=pb.Notice(reason=number, detail="why", request_id=4))
        assert wire.notice(reason, "why", 4) == frame(expected)
    with pytest.raises(KeyError):
        wire.notice("unspecified", "a dealer bug: no such reason")
    start = pb.MatchStart(
        match_id="m/1",
        seat=1,
        players=["a", "b"],
        hands=10,
        mode="freezeout",
        variant_name="no-limit",
        starting_stack=2**40,
        per_action_ms=200,
        bank_ms=3000,
        match_mode=pb.MATCH_MODE_FREEZEOUT,
        variant=pb.MATCH_VARIANT_NO_LIMIT,
    )
    framed = wire.match_start(5, "m/1", 1, ("a", "b"), 10, "freezeout", "no-limit", 2**40, 200, 3000)
    assert framed == frame(pb.Item(table=5, match_start=start))
    end = pb.MatchEnd(match_id="m/1", net=[-3, 3], hands=10)
    assert wire.match_end(5, "m/1", [-3, 3], 10) == frame(pb.Item(table=5, match_end=end))


def test_match_start_sends_the_enums_and_the_deprecated_strings_and_the_sdk_reads_either() -> None:
    """MatchStart carries the mode and variant twice: the enum fields (new) and the deprecated
    strings (for bots written before them); the Python SDK reads the enums, and the strings of a
    dealer older than the enums the same."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sample_bots" / "python"))
    import pokerbot

    modes = {"reset": pb.MATCH_MODE_RESET, "freezeout": pb.MATCH_MODE_FREEZEOUT}
    variants = {
        "no-limit": pb.MATCH_VARIANT_NO_LIMIT,
        "pot-limit": pb.MATCH_VARIANT_POT_LIMIT,
        "fixed-limit": pb.MATCH_VARIANT_FIXED_LIMIT,
        "mixed": pb.MATCH_VARIANT_MIXED,
    }
    for mode, mode_enum in modes.items():
        for variant, variant_enum in variants.items():
            framed = wire.match_start(1, "m", 0, ("a", "b"), 4, mode, variant, 100, 200, 300)
            (item,) = pb.DealerMessage.FromString(framed).items
            start = item.match_start
            assert (start.mode, start.variant_name) == (mode, variant)
            assert (start.match_mode, start.variant) == (mode_enum, variant_enum)
            assert (pokerbot.match_mode(start), pokerbot.match_variant(start)) == (mode_enum, variant_enum)
            older = pb.MatchStart(mode=mode, variant_name=variant)  # what a dealer before the enums sent
            assert (pokerbot.match_mode(older), pokerbot.match_variant(older)) == (mode_enum, variant_enum)
    assert pokerbot.match_mode(pb.MatchStart()) == pb.MATCH_MODE_UNSPECIFIED
    assert pokerbot.match_variant(pb.MatchStart(variant_name="omaha")) == pb.MATCH_VARIANT_UNSPECIFIED
    with pytest.raises(KeyError):
        wire.match_start(1, "m", 0, ("a", "b"), 4, "sit-and-go", "no-limit", 100, 200, 300)  # a dealer bug: loud


def _reply_fields(replies: Sequence[wire.Reply]) -> list[tuple[object, ...]]:
    return [(r.table, r.request_id, r.action, r.amount, r.strategy) for r in replies]


_ACTION_REPLIES = st.builds(
    pb.ActionReply,
    table=st.integers(0, 2**64 - 1),
    request_id=st.integers(0, 2**64 - 1),
    type=st.integers(-(2**31), 2**31 - 1),
    amount=st.integers(-(2**63), 2**63 - 1),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_ACTION_REPLIES, max_size=5), st.data())
def test_replies_read_from_the_bytes_are_what_protobuf_reads(
    answers: list[pb.ActionReply], data: st.DataObject
) -> None:
    """wire_replies.replies reads a message of replies (the gRPC server's usual message) straight from its
    bytes: the same replies as the generated class reads, or None (then the generated class reads
    it): a Hello, a strategy, an unknown field; bytes cut short or mangled are never read otherwise."""
    encoded = pb.BotMessage(actions=answers).SerializeToString()
    expected = wire.replies_of(pb.BotMessage.FromString(encoded))
    read = wire_replies.replies(encoded)
    if all(0 <= a.type < 2**31 for a in answers):
        assert read is not None and _reply_fields(read) == _reply_fields(expected)
    else:  # a negative enum number is ten bytes: left to the generated class
        assert read is None
    # Anything else in the message: left to the generated class.
    extra = data.draw(st.sampled_from(["hello", "strategy", "unknown", "none"]))
    if extra != "none" and answers:
        message = pb.BotMessage(actions=answers)
        if extra == "hello":
            message.hello.token = "t"
        elif extra == "strategy":
            message.actions[-1].strategy.add(type=pb.ACTION_TYPE_FOLD, probability=1.0)
        encoded = message.SerializeToString() + (b"\x30\x01" if extra == "unknown" else b"")
        assert wire_replies.replies(encoded) is None
    # Mangled bytes: read alike whenever wire_replies reads them at all.
    if encoded:
        mangled = bytearray(encoded)
        at = data.draw(st.integers(0, len(mangled) - 1))
        if data.draw(st.booleans()):
            del mangled[at:]
        else:
            mangled[at] = data.draw(st.integers(0, 255))
        read = wire_replies.replies(bytes(mangled))
        if read is not None:
            assert _reply_fields(read) == _reply_fields(wire.replies_of(pb.BotMessage.FromString(bytes(mangled))))


def test_varints_are_protobufs_at_every_length() -> None:
    """The one varint writer, at each byte length's edges, a decision seed's range and int64's negatives."""
    values = {
        0,
        2**53 - 1,
        2**64 - 1,
        *(2 ** (7 * k) + d for k in range(10) for d in (-1, 0, 1) if 2 ** (7 * k) + d >= 0),
    }
    for value in sorted(v for v in values if v < 2**64):
        assert wire._varint(value) == pb.ActionReply(table=value).SerializeToString()[1:] or value == 0
    for value in (-1, -(2**31), -(2**63)):
        assert wire._varint(value) == pb.ActionReply(amount=value).SerializeToString()[1:]


# decision seeds across the lengths of their varints, the eight-byte ones of 50 to 53 bits from tables of
# their 14-bit groups (``wire_codec.long_varint``; each group's bounds), the others whole
SEEDS = (
    0, 1, 2**49 - 1, 2**49, 2**53 - 1, 2**53, 2**56 - 1, 2**56, 2**64 - 1, 0x1F_F0F0_F0F0_F0F0, 0x0123_4567_89AB_CDEF,
    2**49 + 0x3FFF, 2**49 + (0x3FFF << 14), 2**49 + (0x3FFF << 28), 2**53 - 2**42, 0x0015_5555_5555_5555,
)  # fmt: skip


@pytest.mark.parametrize("seat_map, table_seats", [([0, 1], 2), ([0, 1, 2], 3), ([1, 3], 5)])
def test_requests_asked_again_on_one_street_with_other_ids_and_clocks(seat_map: list[int], table_seats: int) -> None:
    """What a request keeps for a seat's street and for the hand (``HandWire._make_prefix``,
    ``_make_request_tail``) never goes stale: the same decision asked again with request ids
    across every varint length and clocks that change mid-hand is each time what protobuf writes."""
    big = 100
    config = TableConfig(stacks=tuple([40 * big] * len(seat_map)), button=0, small_blind=big // 2, big_blind=big)
    hand = Hand(config, random.Random(len(seat_map)).sample(range(52), 52))
    encoder = HandWire(4, hand, 17, seat_map, table_seats)
    ids = (0, 1, 127, 128, 129, 2**14 - 1, 2**14, 2**21 + 5, 2**53 - 1)
    clocks = ((5000, 0), (5000, 300), (0, 300), (2**32 - 1, 0), (5000, 0))
    while hand.actor is not None:
        legal = hand.legal()
        for k in range(len(SEEDS) + 2):  # every seed, with the ids in turn
            request_id, (time_ms, bank_ms) = ids[k % len(ids)], clocks[k % len(clocks)]
            seed = SEEDS[k % len(SEEDS)]
            check(
                encoder.request(request_id, legal, time_ms, bank_ms, seed),
                reference.action_request(4, request_id, hand, legal, 17, seat_map, table_seats, time_ms, bank_ms, seed),
            )
        if hand.street == 1 and legal.can_raise:
            hand.raise_to(legal.min_to)  # bets and stacks change within the street
        else:
            hand.check_call()


def test_a_kept_used_by_other_tables_and_requests_past_the_remembered_heads() -> None:
    """A ``Kept`` handed to hands of other tables (Item.table differs) keeps the frames' heads of the table it
    is used for (``Kept.for_table``), and a request whose message is past the heads remembered by size
    (``wire_codec.HEADS`` bytes) is written whole: each is what protobuf writes."""
    rng = random.Random(11)
    kept = Kept()
    config = TableConfig(stacks=(900, 500), button=0, small_blind=50, big_blind=100)
    for number, table in enumerate((3, 2**40, 3, 0, 3, 2**40)):
        play_checked(config, rng.sample(range(52), 52), [0, 1], 2, table, number, rng, kept)
        assert kept.item_table == pb.Item(table=table).SerializeToString()
    chips = 2**60
    config = TableConfig(
        stacks=tuple(chips - k for k in range(10)), button=0, small_blind=chips // 4, big_blind=chips // 2
    )
    hand = Hand(config, rng.sample(range(52), 52))
    encoder = HandWire(2**40, hand, 2**31, list(range(10)), 10, kept)
    lengths = []
    while hand.actor is not None:
        legal = hand.legal()
        framed = encoder.request(2**53 - 1, legal, 2**32 - 1, 2**32 - 1, 2**53 - 1)
        check(
            framed,
            reference.action_request(
                2**40, 2**53 - 1, hand, legal, 2**31, list(range(10)), 10, 2**32 - 1, 2**32 - 1, 2**53 - 1
            ),
        )
        lengths.append(len(framed))
        hand.check_call()
    assert max(lengths) > wire_codec.HEADS + 10


@pytest.mark.parametrize("seats", [2, 3, 6])
def test_the_encoder_counts_each_seats_actions_as_it_publishes_them(seats: int) -> None:
    """``HandWire.acted`` (the index of a seat's next decision seed, ``Table._decision_seed``) is,
    after each publish, the seat's Acted records in the hand so far; the chunks are every public item."""
    rng = random.Random(seats)
    for number in range(40):
        stacks = tuple(rng.randint(50, 400) for _ in range(seats))
        hand = Hand(TableConfig(stacks=stacks, button=0, small_blind=5, big_blind=10), rng.sample(range(52), 52))
        encoder = HandWire(1, hand, number, list(range(seats)), seats)
        chunks, items, street = [encoder.publish()], [], 0
        while hand.actor is not None:
            legal = hand.legal()
            action = rng.choice(["call", "call", "fold"] + ["raise"] * legal.can_raise)
            if action == "raise":
                hand.raise_to(rng.choice((legal.min_to, legal.max_to)))
            elif action == "fold" and legal.fold:
                hand.fold()
            else:
                hand.check_call()
            chunks.append(encoder.publish())
            counts = [sum(1 for e in hand.events if isinstance(e, Acted) and e.seat == s) for s in range(seats)]
            assert encoder.acted == counts
            assert encoder.publish() == b""  # nothing new since
        for event in hand.events:
            street = event.street if isinstance(event, Dealt) else street
            item = reference.public_item(1, event, street, number, [*range(seats)])
            items += [item] if item is not None else []
        assert b"".join(chunks) == b"".join(frame(item) for item in items)
