"""The one edge where engine records become protobuf messages and bot replies become actions.

Nothing else in the dealer imports the generated stubs' message classes for game content.
What a bot may see is decided here: hole cards go only into the owner's HandStart and
ActionRequest; other seats' cards appear only in HandEnd, and only for seats that showed down.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from dealer.cards import CARD_NAMES
from dealer.rules import (
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

_ITEMS_TAG = b"\x0a"  # DealerMessage.items is field 1, length-delimited

VARIANTS = {
    Variant.NO_LIMIT: pb.VARIANT_NO_LIMIT,
    Variant.POT_LIMIT: pb.VARIANT_POT_LIMIT,
    Variant.FIXED_LIMIT: pb.VARIANT_FIXED_LIMIT,
}
_POSTS = {"ante": pb.EVENT_TYPE_ANTE, "small_blind": pb.EVENT_TYPE_SMALL_BLIND, "big_blind": pb.EVENT_TYPE_BIG_BLIND}
_ACTS = {
    "fold": pb.EVENT_TYPE_FOLD,
    "check": pb.EVENT_TYPE_CHECK,
    "call": pb.EVENT_TYPE_CALL,
    "bet": pb.EVENT_TYPE_BET,
    "raise": pb.EVENT_TYPE_RAISE,
}
T = TypeVar("T")
_STREETS = (pb.STREET_PREFLOP, pb.STREET_FLOP, pb.STREET_TURN, pb.STREET_RIVER)


def frame(item: pb.Item) -> bytes:
    """An item serialized as one ``items`` entry of a DealerMessage: joined frames are a message."""
    payload = item.SerializeToString()
    size = len(payload)
    prefix = bytearray(_ITEMS_TAG)
    while size > 0x7F:
        prefix.append((size & 0x7F) | 0x80)
        size >>= 7
    prefix.append(size)
    return bytes(prefix) + payload


def names(cards: tuple[int, ...] | list[int]) -> list[str]:
    """Card names for the wire."""
    return [CARD_NAMES[c] for c in cards]


def by_table_seat(values: Sequence[T], seat_map: list[int], table_seats: int, absent: T) -> Sequence[T]:
    """Engine-seat values laid out by table seat; seats not dealt in (freezeout) get ``absent``."""
    if len(seat_map) == table_seats:  # every seat is dealt in: engine seats are table seats
        return values
    laid_out = [absent] * table_seats
    for engine_seat, table_seat in enumerate(seat_map):
        laid_out[table_seat] = values[engine_seat]
    return laid_out


def hand_start(
    table: int, hand: Hand, number: int, seat: int, seat_map: list[int], table_stacks: list[int]
) -> pb.Item:
    """The HandStart a bot at engine seat ``seat`` receives; ``seat_map`` maps engine to table seats."""
    config = hand.config
    return pb.Item(
        table=table,
        hand_start=pb.HandStart(
            hand=number,
            button=seat_map[config.button],
            seat=seat_map[seat],
            hole_cards=names(hand.hole[seat]),
            stacks=table_stacks,
            variant=VARIANTS[config.variant],
            small_blind=config.small_blind,
            big_blind=config.big_blind,
            ante=config.ante,
            small_bet=config.bet_size(0),
            big_bet=config.bet_size(2),
            cap=config.cap,
        ),
    )


def public_item(table: int, event: Event, street: int, number: int, seat_map: list[int]) -> pb.Item | None:
    """The public Event item for an engine record, or None for records sent in HandEnd."""
    if isinstance(event, Acted):
        message = pb.Event(
            type=_ACTS[event.kind], seat=seat_map[event.seat], amount=event.amount, to=event.to,
            all_in=event.all_in, street=_STREETS[street], hand=number,
        )
    elif isinstance(event, Dealt):
        message = pb.Event(type=pb.EVENT_TYPE_BOARD, cards=names(event.cards), street=_STREETS[event.street], hand=number)
    elif isinstance(event, Posted):
        message = pb.Event(
            type=_POSTS[event.kind], seat=seat_map[event.seat], amount=event.amount,
            to=0 if event.kind == "ante" else event.amount, all_in=event.all_in, street=pb.STREET_PREFLOP, hand=number,
        )
    elif isinstance(event, Returned):
        message = pb.Event(type=pb.EVENT_TYPE_RETURNED, seat=seat_map[event.seat], amount=event.amount,
                           street=_STREETS[street], hand=number)
    else:
        return None
    return pb.Item(table=table, event=message)


def action_request(
    table: int, request_id: int, hand: Hand, legal: Legal, number: int, seat_map: list[int], table_seats: int,
    time_ms: int, bank_ms: int,
) -> pb.Item:
    """Everything the actor needs to decide, without tracking state itself."""
    seat = hand.actors[0]
    stacks = by_table_seat(hand.stacks, seat_map, table_seats, 0)
    bets = by_table_seat(hand.bets, seat_map, table_seats, 0)
    folded = by_table_seat(hand.folded, seat_map, table_seats, True)
    return pb.Item(
        table=table,
        request=pb.ActionRequest(
            request_id=request_id, hand=number, street=_STREETS[hand.street], seat=seat_map[seat],
            hole_cards=names(hand.hole[seat]), board=names(hand.board), stacks=stacks, bets=bets, folded=folded,
            pot=hand.total_pot(), can_fold=legal.fold, call_amount=legal.call, min_raise_to=legal.min_to,
            max_raise_to=legal.max_to, time_ms=time_ms, bank_ms=bank_ms, variant=VARIANTS[hand.config.variant],
            big_blind=hand.config.big_blind, button=seat_map[hand.config.button],
        ),
    )


def hand_end(table: int, hand: Hand, number: int, seat_map: list[int], table_seats: int, net: list[int]) -> pb.Item:
    """The HandEnd every seat receives: only cards that were shown at showdown."""
    shown, pots, rake = [], [], 0
    for event in hand.events:
        if isinstance(event, Shown):
            shown.append(pb.ShownHand(seat=seat_map[event.seat], cards=names(event.cards)))
        elif isinstance(event, Awarded):
            pots.append(pb.Pot(amount=event.amount, winners=[seat_map[s] for s, _ in event.shares],
                               shares=[w for _, w in event.shares]))
        elif isinstance(event, Raked):
            rake = event.amount
    stacks = by_table_seat(hand.stacks, seat_map, table_seats, 0)
    return pb.Item(
        table=table,
        hand_end=pb.HandEnd(hand=number, shown=shown, pots=pots, stacks=stacks, net=net, board=names(hand.board), rake=rake),
    )


class HandWire:
    """One hand's items for one table, framed for ``BotSession.send_framed``.

    Made once per hand so that what is constant over the hand (table, hand number, seat layout,
    each seat's hole cards, the variant and blinds) is worked out once, not at every item.
    """

    def __init__(self, table: int, hand: Hand, number: int, seat_map: list[int], table_seats: int) -> None:
        """``seat_map`` maps the hand's engine seats to table seats; ``table_seats`` is the table's size."""
        self.table = table
        self.hand = hand
        self.number = number
        self.seat_map = seat_map
        self.table_seats = table_seats

    def hand_start(self, seat: int) -> bytes:
        """The HandStart for the bot at engine seat ``seat``."""
        stacks = list(by_table_seat(self.hand.config.stacks, self.seat_map, self.table_seats, 0))
        return frame(hand_start(self.table, self.hand, self.number, seat, self.seat_map, stacks))

    def event(self, event: Event, street: int) -> bytes | None:
        """The public Event item for an engine record, or None for records sent in HandEnd."""
        item = public_item(self.table, event, street, self.number, self.seat_map)
        return None if item is None else frame(item)

    def request(self, request_id: int, legal: Legal, time_ms: int, bank_ms: int) -> bytes:
        """The ActionRequest for the current actor."""
        return frame(action_request(self.table, request_id, self.hand, legal, self.number, self.seat_map,
                                    self.table_seats, time_ms, bank_ms))

    def hand_end(self, net: list[int]) -> bytes:
        """The HandEnd every seat receives."""
        return frame(hand_end(self.table, self.hand, self.number, self.seat_map, self.table_seats, net))
