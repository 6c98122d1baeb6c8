"""The one edge where a hand's engine records become the protobuf bytes bots receive, and
bots' answers become the plain ``Reply`` the match reads (with ``wire_json.py``, the stdio bots'
JSON lines, and ``server.py``, the only modules that import the generated classes: the match
builds no protobuf message and reads none).

A hand's items (HandStart, Event, ActionRequest, HandEnd) are encoded nowhere else. What a bot
may see is decided here: hole cards go only into the owner's HandStart and ActionRequest; other
seats' cards appear only in HandEnd, and only for seats that showed down.

The items are written by hand rather than through the generated message classes, several
times cheaper on the dealer's hot path: each field is its key then a varint or a
length-prefixed value, in field-number order as protobuf writes them, proto3 zero values left
out, repeated numbers packed. ``tests/test_wire.py`` checks every item against the generated
classes byte for byte.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from dealer.connect.wire_codec import (
    _FIELDS,
    _ITEM_TABLE,
    _ITEMS_TAG,
    _VARINT,
    HEADS,
    _card_field,
    _Encodings,
    _message,
    _tag,
    _varint,
    _varints,
    by_table_seat,
    frame_head,
    long_varint,
)
from dealer.engine.memo import remember
from dealer.engine.rules import (
    MAX_SEATS,
    Acted,
    Awarded,
    Dealt,
    Event,
    Hand,
    Legal,
    Posted,
    Raked,
    Returned,
    Shown,
    Variant,
)
from poker.v1 import dealer_pb2 as pb

# Enum values, the wire's numbers of the engine's names.
_VARIANTS: Final = {
    Variant.NO_LIMIT: pb.VARIANT_NO_LIMIT,
    Variant.POT_LIMIT: pb.VARIANT_POT_LIMIT,
    Variant.FIXED_LIMIT: pb.VARIANT_FIXED_LIMIT,
}
_STREETS: Final = (pb.STREET_PREFLOP, pb.STREET_FLOP, pb.STREET_TURN, pb.STREET_RIVER)
_POSTS: Final = {
    "ante": pb.EVENT_TYPE_ANTE,
    "small_blind": pb.EVENT_TYPE_SMALL_BLIND,
    "big_blind": pb.EVENT_TYPE_BIG_BLIND,
}
_ACTS: Final = {
    "fold": pb.EVENT_TYPE_FOLD,
    "check": pb.EVENT_TYPE_CHECK,
    "call": pb.EVENT_TYPE_CALL,
    "bet": pb.EVENT_TYPE_BET,
    "raise": pb.EVENT_TYPE_RAISE,
}

# The message fields of Item (its oneof ``kind``), then the fields of those messages, by number.
# Table seats are below MAX_SEATS, so a seat's varint is the one byte of its value.
_ITEM_HAND_START: Final = _tag(4, 2)
_ITEM_EVENT: Final = _tag(5, 2)
_ITEM_REQUEST: Final = _tag(6, 2)
_ITEM_HAND_END: Final = _tag(7, 2)
# HandStart: hand 1, button 2, seat 3, hole_cards 4, stacks 5, variant 6, small_blind 7,
# big_blind 8, ante 9, small_bet 10, big_bet 11, cap 12.
_START_HOLE: Final = _card_field(4)
_START_STACKS: Final = _tag(5, 2)
# Event: type 1, seat 2, amount 3, to 4, all_in 5, cards 6, street 7, hand 8.
_EVENT_HEADS: Final = {  # type then seat, by Acted or Posted kind and table seat
    kind: tuple(_FIELDS[1][kind_type] + _FIELDS[2][seat] for seat in range(MAX_SEATS))
    for kind, kind_type in (*_ACTS.items(), *_POSTS.items())
}
_RETURNED_HEADS: Final = tuple(_FIELDS[1][pb.EVENT_TYPE_RETURNED] + _FIELDS[2][seat] for seat in range(MAX_SEATS))
_AMOUNT: Final = _FIELDS[3]
_TO: Final = _FIELDS[4]
_ALL_IN: Final = (b"", _tag(5, 0) + b"\x01")  # by the bool
_EVENT_BOARD: Final = _FIELDS[1][pb.EVENT_TYPE_BOARD]
_EVENT_CARD: Final = _card_field(6)
_EVENT_STREETS: Final = tuple(_FIELDS[7][street] for street in _STREETS)
# ActionRequest: request_id 1, hand 2, street 3, seat 4, hole_cards 5, board 6, stacks 7, bets 8,
# folded 9, pot 10, can_fold 11, call_amount 12, min_raise_to 13, max_raise_to 14, time_ms 15,
# bank_ms 16, variant 17, big_blind 18, button 19, decision_seed 20.
_REQUEST_ID: Final = _tag(1, 0)  # then the id's varint, not remembered: ids only grow over a session
_ID_SHORT: Final = tuple(_REQUEST_ID + _varint(low) if low else b"" for low in range(0x80))  # the field of an id < 128
_ID_LOW: Final = tuple(_REQUEST_ID + bytes((low | 0x80,)) for low in range(0x80))  # key and first byte of a longer id
# the decision seed's key, then the seed's varint (dealer.league.seeds.decision_seed): the request's last field
_DECISION_SEED: Final = _tag(20, 0)
_REQUEST_STREETS: Final = tuple(_FIELDS[3][street] for street in _STREETS)
_REQUEST_HOLE: Final = _card_field(5)
_REQUEST_BOARD: Final = _card_field(6)
_REQUEST_STACKS: Final = _tag(7, 2)
_REQUEST_BETS: Final = _tag(8, 2)
_REQUEST_FOLDED: Final = _tag(9, 2)
_POT: Final = _FIELDS[10]
_CALL: Final = _FIELDS[12]
_FOLD_CALL: Final = _Encodings(12, _tag(11, 0) + b"\x01")  # can_fold (true) then call_amount
_MIN_TO: Final = _FIELDS[13]
_MAX_TO: Final = _FIELDS[14]
_TIME: Final = _FIELDS[15]
_BANK: Final = _FIELDS[16]
_SHORT: Final = tuple(_varint(size) for size in range(0x80))  # one-byte varints: sizes within an item, unhashed
_STACKS_HEADS: Final = tuple(_REQUEST_STACKS + _varint(size) for size in range(0x80))  # key and size, by size
_BETS_HEADS: Final = tuple(_REQUEST_BETS + _varint(size) for size in range(0x80))
_NO_FOLDS: Final = tuple(_REQUEST_FOLDED + _varint(seats) + bytes(seats) for seats in range(MAX_SEATS + 1))  # by seats
_HEADS_UP_POT: Final = _Encodings(10, _NO_FOLDS[2])  # heads-up: folded (nobody: a fold ends the hand), then pot
# HandEnd: hand 1, shown 2 (ShownHand: seat 1, cards 2), pots 3 (Pot: amount 1, winners 2,
# shares 3), stacks 4, net 5, board 6, rake 7.
_SETTLED: Final = frozenset((Shown, Raked, Awarded))  # the records HandEnd reports
# The engine's records' classes as the compiled module's constants, for ``type(event) is``: compiled, a
# class's name there is a module lookup at each use, and every record published is checked against several.
# (``isinstance`` with a class's name is compiled to a type check already: with a constant it is a call.)
_ACTED: Final = Acted
_DEALT: Final = Dealt
_SHOWN: Final = Shown
_AWARDED: Final = Awarded
_RAKED: Final = Raked
_END_SHOWN: Final = _tag(2, 2)
_END_POT: Final = _tag(3, 2)
_END_STACKS: Final = _tag(4, 2)
_END_NET: Final = _tag(5, 2)
_END_BOARD: Final = _card_field(6)
_SHOWN_CARD: Final = _card_field(2)
_POT_WINNERS: Final = _tag(2, 2)
_POT_SHARES: Final = _tag(3, 2)


def frame(item: pb.Item) -> bytes:
    """An item serialized as one ``items`` entry of a DealerMessage: joined frames are a message."""
    payload = item.SerializeToString()
    return b"".join((_ITEMS_TAG, _VARINT[len(payload)], payload))


class Kept:
    """What the hands of one table with the same rules and seating encode alike, kept from hand to hand
    (``HandWire``'s ``kept``): HandStart's fields from ``stacks`` on, ActionRequest's clocks to button
    with the clocks they were made for, and the Event fields of the actions and forced bets published
    (all but the hand's number: the same records come back hand after hand), by street then record, at
    most KEPT_EVENTS a street; and, for the table of ``item_table`` (Item.table's field), the heads of its
    HandStart, ActionRequest and Event frames by their message's size (``frame_head``). Empty until a hand
    makes them."""

    __slots__ = (
        "clock_bank", "clock_time", "event_heads", "events", "item_table", "request_heads", "request_tail",
        "seeded_tail", "start_heads", "start_tail",
    )  # fmt: skip

    def __init__(self) -> None:
        self.start_tail = self.request_tail = self.seeded_tail = b""
        self.clock_time = self.clock_bank = -1
        self.events: list[dict[Acted | Posted, bytes]] = [{}, {}, {}, {}]
        self.item_table: bytes | None = None
        self.start_heads: list[bytes | None] = []
        self.request_heads: list[bytes | None] = []
        self.event_heads: list[bytes | None] = []

    def for_table(self, item_table: bytes) -> None:
        """Keep the frames' heads of the table of ``item_table`` from now on (those of another are dropped)."""
        if item_table != self.item_table:
            self.item_table = item_table
            self.start_heads, self.request_heads, self.event_heads = [None] * HEADS, [None] * HEADS, [None] * HEADS


KEPT_EVENTS: Final = 256  # the actions' Event fields a Kept holds at most a street (cleared when full)


class HandWire:
    """One hand's items for one table, framed for ``BotSession.send_framed``.

    Made once per hand so that what is constant over the hand (table, hand number, seat layout,
    each seat's hole cards, the variant and blinds) is encoded once, not at every item; what is
    constant over a table's hands of the same rules and seating is in ``kept`` (``Kept``), which a table
    passes to each such hand.
    """

    __slots__ = (
        "_boards",
        "_event_item",
        "_event_tail",
        "_everyone",
        "_kept",
        "_number",
        "_own",
        "_published",
        "_request_hand",
        "_request_item",
        "_street",
        "_streets",
        "_table",
        "acted",
        "hand",
        "seat_map",
        "table_seats",
    )

    def __init__(
        self, table: int, hand: Hand, number: int, seat_map: list[int], table_seats: int, kept: Kept | None = None
    ) -> None:
        """``seat_map`` maps the hand's engine seats to table seats; ``table_seats`` is the table's size;
        ``kept``: what an earlier hand of the table with the same rules and seating made (None: a new one)."""
        self.hand = hand
        self.seat_map = seat_map
        self.table_seats = table_seats
        self._table = item_table = _ITEM_TABLE[table]
        self._number = number
        self._kept = kept = Kept() if kept is None else kept
        kept.for_table(item_table)
        self._event_item = item_table + _ITEM_EVENT
        self._event_tail = _FIELDS[8][number]  # Event.hand
        self._request_item = item_table + _ITEM_REQUEST
        self._request_hand = _FIELDS[2][number]  # ActionRequest.hand
        self._own = [b""] * len(seat_map)  # ActionRequest's seat and hole_cards by engine seat (b"": not made yet)
        self._streets, self._boards = [b""] * 4, [b""] * 4  # ActionRequest's hand and street, and board, by street
        self._published = 0  # engine records already published
        self._everyone = len(seat_map) == table_seats  # every table seat is dealt in (not a freezeout's late hand)
        self._street = 0  # the street of the last record published
        self.acted = [0] * len(seat_map)  # by engine seat, its actions (Acted records) published so far

    def hand_start(self, seat: int) -> bytes:
        """The HandStart for the bot at engine seat ``seat``."""
        config, seat_map, kept = self.hand.config, self.seat_map, self._kept
        first, second = self.hand.hole[seat]
        number, button, own = _FIELDS[1][self._number], _FIELDS[2][seat_map[config.button]], _FIELDS[3][seat_map[seat]]
        hole, other, tail = _START_HOLE[first], _START_HOLE[second], kept.start_tail or self._make_start_tail()
        body = len(number) + len(button) + len(own) + len(hole) + len(other) + len(tail)
        head = frame_head(kept.start_heads, self._table + _ITEM_HAND_START, body)
        return b"".join((head, number, button, own, hole, other, tail))

    def _make_start_tail(self) -> bytes:
        """HandStart's fields from ``stacks`` on, the same for every seat."""
        config = self.hand.config
        self._kept.start_tail = tail = b"".join((
            _message(_START_STACKS, _varints(by_table_seat(config.stacks, self.seat_map, self.table_seats, 0))),
            _FIELDS[6][_VARIANTS[config.variant]], _FIELDS[7][config.small_blind], _FIELDS[8][config.big_blind],
            _FIELDS[9][config.ante], _FIELDS[10][config.bet_size(0)], _FIELDS[11][config.bet_size(2)],
            _FIELDS[12][config.cap],
        ))  # fmt: skip
        return tail

    def publish(self) -> bytes:
        """The public Event items of every engine record since the last call, as one chunk of
        frames for every seat (empty when there is none). A single record, as after most actions, is
        its item itself: no list, slice or join."""
        events = self.hand.events
        published, count = self._published, len(events)
        if published == count:
            return b""
        self._published = count
        if count == published + 1:
            return self._published_item(events[published]) or b""
        frames = []
        for index in range(published, count):
            framed = self._published_item(events[index])
            if framed is not None:
                frames.append(framed)
        return b"".join(frames)

    def _published_item(self, event: Event) -> bytes | None:
        """The public Event item of the next record published (``event``), or None; follows the street and
        counts each seat's actions."""
        if type(event) is _DEALT:
            self._street = event.street
        elif type(event) is _ACTED:
            self.acted[event.seat] = self.acted[event.seat] + 1  # (not +=: compiled, that is generic arithmetic)
        return self.event(event, self._street)

    def event(self, event: Event, street: int) -> bytes | None:
        """The public Event item for an engine record, or None for records sent in HandEnd."""
        if isinstance(event, Acted):  # (isinstance of one class: compiled, a type check; of a tuple, a call)
            return self._action(event, street)
        if isinstance(event, Posted):
            return self._action(event, street)
        if isinstance(event, Returned):
            return self._event(
                _RETURNED_HEADS[self.seat_map[event.seat]], _AMOUNT[event.amount], b"", b"", _EVENT_STREETS[street]
            )
        if isinstance(event, Dealt):
            dealt = event.cards
            cards = _EVENT_CARD[dealt[0]] if len(dealt) == 1 else b"".join([_EVENT_CARD[card] for card in dealt])
            dealt_street, tail = _EVENT_STREETS[event.street], self._event_tail
            head = frame_head(
                self._kept.event_heads, self._event_item, len(_EVENT_BOARD) + len(cards) + len(dealt_street) + len(tail)
            )
            return b"".join((head, _EVENT_BOARD, cards, dealt_street, tail))
        return None

    def _action(self, event: Acted | Posted, street: int) -> bytes:
        """The Event item of an action or a forced bet: its fields as kept (``Kept.events``: the same actions
        come back hand after hand), then the hand's number."""
        kept = self._kept
        fields = kept.events[street].get(event) or self._action_fields(event, street)
        tail = self._event_tail
        return b"".join((frame_head(kept.event_heads, self._event_item, len(fields) + len(tail)), fields, tail))

    def _action_fields(self, event: Acted | Posted, street: int) -> bytes:
        """An action's or a forced bet's Event fields but the hand's number, kept (``Kept.events``)."""
        if isinstance(event, Acted):
            seat, act, amount, to, all_in = event
            fields = b"".join((
                _EVENT_HEADS[act][self.seat_map[seat]], _AMOUNT[amount], _TO[to], _ALL_IN[all_in],
                _EVENT_STREETS[street],
            ))  # fmt: skip
        else:
            seat, post, amount, all_in = event
            fields = b"".join((
                _EVENT_HEADS[post][self.seat_map[seat]], _AMOUNT[amount], b"" if post == "ante" else _TO[amount],
                _ALL_IN[all_in], _EVENT_STREETS[0],
            ))  # fmt: skip
        return remember(self._kept.events[street], event, fields, KEPT_EVENTS)

    def _event(self, first: bytes, second: bytes, third: bytes, fourth: bytes, fifth: bytes) -> bytes:
        """The framed Event item of these fields and the hand's number, in one join: its body's size is
        summed from theirs, not joined first (one bytes object and one join less per event)."""
        tail, head = self._event_tail, self._event_item
        body = len(first) + len(second) + len(third) + len(fourth) + len(fifth) + len(tail)
        size = _VARINT[body]
        return b"".join((
            _ITEMS_TAG, _VARINT[len(head) + len(size) + body], head, size, first, second, third, fourth, fifth, tail,
        ))  # fmt: skip

    def request(self, request_id: int, legal: Legal, time_ms: int, bank_ms: int, decision_seed: int = 0) -> bytes:
        """The ActionRequest for the current actor, from the hand's state now (``decision_seed``: its
        draws' seed, ``dealer.league.seeds.decision_seed``; 0 sends none). One join, sized from its parts':
        a seat's (seat, hole cards), a street's (hand, street, board) and the hand's (clocks, variant, big
        blind, button) parts are kept whole, and the frame's head by size; a heads-up table's stacks and bets
        go in as their elements. Fields a request always has side by side are one part (a join's part costs
        about a hundred instructions, and the join is a tenth of a request's cost)."""
        hand = self.hand
        seat, street = hand.actors[0], hand.street
        street_head = self._streets[street] or self._make_street(street)
        own, board = self._own[seat] or self._make_own(seat), self._boards[street]
        kept = self._kept
        if time_ms != kept.clock_time or bank_ms != kept.clock_bank:
            self._make_request_tail(time_ms, bank_ms)
        stacks, bets = hand.stacks, hand.bets
        if self._everyone and len(stacks) == 2:  # heads-up, the common table: packed fields in parts
            s0, s1, b0, b1 = _VARINT[stacks[0]], _VARINT[stacks[1]], _VARINT[bets[0]], _VARINT[bets[1]]
            stacks_head, bets_head = _STACKS_HEADS[len(s0) + len(s1)], _BETS_HEADS[len(b0) + len(b1)]
            folded_pot = _HEADS_UP_POT[hand.total_pot()]  # nobody folded: a fold ends a heads-up hand
        else:
            stacks_head, bets_head, s0, s1, b0, b1 = self._stacks_and_bets(stacks, bets), b"", b"", b"", b"", b""
            folded_pot = self._folded_field(hand.folded) + _POT[hand.total_pot()]
        if request_id >= 0x80:  # its varint: the low seven bits, then the rest's (remembered: ids grow slowly)
            id_low, id_high = _ID_LOW[request_id & 0x7F], _VARINT[request_id >> 7]
        else:
            id_low, id_high = _ID_SHORT[request_id], b""
        fold, call, min_to, max_to, _ = legal
        call_field = _FOLD_CALL[call] if fold else _CALL[call]  # can_fold, then call_amount
        min_field, max_field = _MIN_TO[min_to], _MAX_TO[max_to]
        tail = kept.seeded_tail if decision_seed else kept.request_tail  # the seed's key last when it has one
        d0, d1, d2, d3 = long_varint(decision_seed) if decision_seed else (b"", b"", b"", b"")
        body = (
            len(id_low) + len(id_high) + len(street_head) + len(own) + len(board) + len(stacks_head) + len(s0)
            + len(s1) + len(bets_head) + len(b0) + len(b1) + len(folded_pot) + len(call_field) + len(min_field)
            + len(max_field) + len(tail) + len(d0) + len(d1) + len(d2) + len(d3)
        )  # fmt: skip
        return b"".join((
            frame_head(kept.request_heads, self._request_item, body), id_low, id_high, street_head, own, board,
            stacks_head, s0, s1, bets_head, b0, b1, folded_pot, call_field, min_field, max_field, tail, d0, d1, d2, d3,
        ))  # fmt: skip

    def _folded_field(self, folded: list[bool]) -> bytes:
        """ActionRequest's folded (laid out by table seat: seats not dealt in count as folded), on any table."""
        if self._everyone and True not in folded:
            return _NO_FOLDS[len(folded)]
        return _message(_REQUEST_FOLDED, bytes(by_table_seat(folded, self.seat_map, self.table_seats, True)))

    def _stacks_and_bets(self, stacks: list[int], bets: list[int]) -> bytes:
        """ActionRequest's stacks and bets (laid out by table seat) as whole fields, on any table."""
        seat_map, table_seats = self.seat_map, self.table_seats
        stacks_field = _message(_REQUEST_STACKS, _varints(by_table_seat(stacks, seat_map, table_seats, 0)))
        return stacks_field + _message(_REQUEST_BETS, _varints(by_table_seat(bets, seat_map, table_seats, 0)))

    def _make_own(self, seat: int) -> bytes:
        """ActionRequest's seat and hole_cards for engine seat ``seat``, kept for the hand."""
        first, second = self.hand.hole[seat]
        self._own[seat] = own = b"".join((_FIELDS[4][self.seat_map[seat]], _REQUEST_HOLE[first], _REQUEST_HOLE[second]))
        return own

    def _make_street(self, street: int) -> bytes:
        """ActionRequest's hand and street, kept for the hand with the street's board (dealt by its first request)."""
        self._boards[street] = b"".join([_REQUEST_BOARD[card] for card in self.hand.board])
        self._streets[street] = head = self._request_hand + _REQUEST_STREETS[street]
        return head

    def _make_request_tail(self, time_ms: int, bank_ms: int) -> None:
        """ActionRequest's clocks, variant, big_blind and button: kept for the hand until a clock changes."""
        config = self.hand.config
        kept = self._kept
        kept.clock_time, kept.clock_bank = time_ms, bank_ms
        kept.request_tail = tail = b"".join((
            _TIME[time_ms], _BANK[bank_ms], _FIELDS[17][_VARIANTS[config.variant]], _FIELDS[18][config.big_blind],
            _FIELDS[19][self.seat_map[config.button]],
        ))  # fmt: skip
        kept.seeded_tail = tail + _DECISION_SEED

    def hand_end(self, net: list[int]) -> bytes:
        """The HandEnd every seat receives: only cards that were shown at showdown. One join of all its
        parts, each message's size summed from its parts' (not a join per shown hand, pot and field)."""
        hand, seat_map, events = self.hand, self.seat_map, self.hand.events
        settled = len(events)
        while settled and type(events[settled - 1]) in _SETTLED:  # the settlement's records end the hand's
            settled -= 1
        parts = [_ITEMS_TAG, b"", b"", b"", _FIELDS[1][self._number]]  # the frame's sizes and head: filled in last
        rake = 0
        for event in events[settled:]:  # the shown hands (field 2) before the pots (3)
            if type(event) is _SHOWN:
                first, second = event.cards
                seat, card, other = _FIELDS[1][seat_map[event.seat]], _SHOWN_CARD[first], _SHOWN_CARD[second]
                parts += (_END_SHOWN, _SHORT[len(seat) + len(card) + len(other)], seat, card, other)
        for event in events[settled:]:
            if type(event) is _AWARDED:
                shares = event.shares
                if len(shares) == 1:  # one winner, the common case, without the comprehensions
                    winners, won = bytes((seat_map[shares[0][0]],)), _VARINT[shares[0][1]]
                else:
                    winners = bytes([seat_map[s] for s, _ in shares])  # seats' varints are one byte
                    won = b"".join([_VARINT[w] for _, w in shares])
                amount, winners_size, won_size = _FIELDS[1][event.amount], _SHORT[len(winners)], _SHORT[len(won)]
                pot = len(amount) + len(_POT_WINNERS) + len(winners_size) + len(winners) + len(_POT_SHARES)
                pot += len(won_size) + len(won)
                parts += (
                    _END_POT, _SHORT[pot], amount, _POT_WINNERS, winners_size, winners, _POT_SHARES, won_size, won,
                )  # fmt: skip
            elif type(event) is _RAKED:
                rake = event.amount
        stacks, nets = _varints(by_table_seat(hand.stacks, seat_map, self.table_seats, 0)), _varints(net)
        parts += (_END_STACKS, _SHORT[len(stacks)], stacks, _END_NET, _SHORT[len(nets)], nets)  # (2 seats or more)
        parts += [_END_BOARD[card] for card in hand.board]
        parts.append(_FIELDS[7][rake])
        head, body = self._table + _ITEM_HAND_END, -len(_ITEMS_TAG)
        for part in parts:
            body += len(part)
        size = _VARINT[body]
        parts[1], parts[2], parts[3] = _VARINT[len(head) + len(size) + body], head, size
        return b"".join(parts)


# ---------------------------------------------------------------------------------------------
# The stdio contract's names of a reply's actions (dealer.connect.wire_json writes and reads its JSON lines).

ACTION_TYPES: Final = {  # a reply's action type by its name in the stdio contract
    "fold": pb.ACTION_TYPE_FOLD,
    "check_call": pb.ACTION_TYPE_CHECK_CALL,
    "bet_raise": pb.ACTION_TYPE_BET_RAISE,
}
_REPLY_ACTIONS: Final[dict[int, str]] = {number: name for name, number in ACTION_TYPES.items()}


def action_name(kind: int) -> str:
    """A reply's action type as the match names it: its stdio name, or the number of one it does not know."""
    return _REPLY_ACTIONS.get(kind) or str(kind)


# ---------------------------------------------------------------------------------------------
# The match's side of the wire: what a bot answered, the notices it is sent, each table's
# MatchStart and MatchEnd. The match speaks these plain values; protobuf stays here and in server.py.

# a reply's actions, as the stdio contract names them
FOLD: Final = "fold"
CHECK_CALL: Final = "check_call"
BET_RAISE: Final = "bet_raise"
DISQUALIFIED: Final = "disqualified"  # the notice that a bot no longer decides in a match (no fault of its own)
_NOTICE_REASONS: Final = {  # a Notice's reason by its name in the stdio contract
    "timeout": pb.FAULT_REASON_TIMEOUT,
    "illegal_action": pb.FAULT_REASON_ILLEGAL_ACTION,
    "unexpected_reply": pb.FAULT_REASON_UNEXPECTED_REPLY,
    "protocol": pb.FAULT_REASON_PROTOCOL,
    DISQUALIFIED: pb.FAULT_REASON_DISQUALIFIED,
}

_MATCH_MODES: Final = {"reset": pb.MATCH_MODE_RESET, "freezeout": pb.MATCH_MODE_FREEZEOUT}
_MATCH_VARIANTS: Final = {
    "no-limit": pb.MATCH_VARIANT_NO_LIMIT,
    "pot-limit": pb.MATCH_VARIANT_POT_LIMIT,
    "fixed-limit": pb.MATCH_VARIANT_FIXED_LIMIT,
    "mixed": pb.MATCH_VARIANT_MIXED,
}


class Reply:
    """A bot's answer to one ActionRequest: its table and request, its action (FOLD, CHECK_CALL,
    BET_RAISE, or an unknown action type's number as a string), its "raise to" total, and the
    strategy it reported as (action, amount, probability) per option (empty: a black box).

    A plain class, not a frozen dataclass: compiled, one is made in a fraction of the time, on
    the path of every decision."""

    __slots__ = ("action", "amount", "request_id", "strategy", "table")

    def __init__(
        self, table: int, request_id: int, action: str, amount: int, strategy: tuple[tuple[str, int, float], ...] = ()
    ) -> None:
        self.table = table
        self.request_id = request_id
        self.action = action
        self.amount = amount
        self.strategy = strategy


BotMessage = pb.BotMessage  # a bot's decoded message of replies, as a session routes it (dealer.connect.session)
ActionReply = pb.ActionReply  # one reply of it


def reply(message: pb.ActionReply) -> Reply:
    """An ActionReply off the wire as the match reads it."""
    action = action_name(message.type)
    options = message.strategy
    if not options:
        return Reply(message.table, message.request_id, action, message.amount)
    strategy = tuple([(action_name(o.type), o.amount, o.probability) for o in options])
    return Reply(message.table, message.request_id, action, message.amount, strategy)


def replies_of(message: pb.BotMessage) -> list[Reply]:
    """A decoded BotMessage's replies as the match reads them."""
    return [reply(answer) for answer in message.actions]


def welcome(name: str, protocol_version: int) -> bytes:
    """A framed Welcome, the first item a connected bot is sent (over any transport)."""
    return frame(pb.Item(welcome=pb.Welcome(name=name, protocol_version=protocol_version)))


def goodbye(reason: str) -> bytes:
    """A framed Goodbye: the bot should exit."""
    return frame(pb.Item(goodbye=pb.Goodbye(reason=reason)))


def notice(reason: str, detail: str, request_id: int = 0) -> bytes:
    """A framed Notice; ``reason`` is the stdio contract's name of a FaultReason ("timeout",
    "illegal_action", "unexpected_reply", "protocol" as in ``server.Fault``, or DISQUALIFIED)."""
    return frame(pb.Item(notice=pb.Notice(reason=_NOTICE_REASONS[reason], detail=detail, request_id=request_id)))


def match_start(
    table: int,
    match_id: str,
    seat: int,
    players: Sequence[str],
    hands: int,
    mode: str,
    variant: str,
    starting_stack: int,
    per_action_ms: int,
    bank_ms: int,
) -> bytes:
    """A table's framed MatchStart for the bot at ``seat`` (``mode`` "reset" or "freezeout",
    ``variant`` the match's variant as configured: "no-limit", ..., "mixed"), each both as its
    enum field and as the deprecated string that bots written before the enums read."""
    return frame(
        pb.Item(
            table=table,
            match_start=pb.MatchStart(
                match_id=match_id,
                seat=seat,
                players=players,
                hands=hands,
                mode=mode,
                variant_name=variant,
                starting_stack=starting_stack,
                per_action_ms=per_action_ms,
                bank_ms=bank_ms,
                match_mode=_MATCH_MODES[mode],
                variant=_MATCH_VARIANTS[variant],
            ),
        )
    )


def match_end(table: int, match_id: str, net: Sequence[int], hands: int) -> bytes:
    """A table's framed MatchEnd: net chips by seat over the match and the hands played."""
    return frame(pb.Item(table=table, match_end=pb.MatchEnd(match_id=match_id, net=net, hands=hands)))
