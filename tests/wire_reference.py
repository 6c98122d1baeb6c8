"""The test oracle of ``dealer.connect.wire``: the hand's items built with the generated message classes.

These were the dealer's encoders before ``wire.HandWire`` wrote the bytes by hand; the tests and
``benchmarks/wire.py`` compare the two. Seats are laid out here independently of ``wire``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from dealer.engine.cards import CARD_NAMES
from dealer.engine.rules import (
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

T = TypeVar("T")
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
_STREETS = (pb.STREET_PREFLOP, pb.STREET_FLOP, pb.STREET_TURN, pb.STREET_RIVER)


def names(cards: Sequence[int]) -> list[str]:
    """Card names for the wire."""
    return [CARD_NAMES[c] for c in cards]


def laid_out(values: Sequence[T], seat_map: list[int], table_seats: int, absent: T) -> list[T]:
    """Engine-seat values by table seat; seats not dealt in get ``absent``."""
    by_seat = dict(zip(seat_map, values, strict=True))
    return [by_seat.get(seat, absent) for seat in range(table_seats)]


def hand_start(table: int, hand: Hand, number: int, seat: int, seat_map: list[int], table_seats: int) -> pb.Item:
    """The HandStart a bot at engine seat ``seat`` receives; ``seat_map`` maps engine to table seats."""
    config = hand.config
    return pb.Item(
        table=table,
        hand_start=pb.HandStart(
            hand=number,
            button=seat_map[config.button],
            seat=seat_map[seat],
            hole_cards=names(hand.hole[seat]),
            stacks=laid_out(config.stacks, seat_map, table_seats, 0),
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
            type=_ACTS[event.kind],
            seat=seat_map[event.seat],
            amount=event.amount,
            to=event.to,
            all_in=event.all_in,
            street=_STREETS[street],
            hand=number,
        )
    elif isinstance(event, Dealt):
        message = pb.Event(
            type=pb.EVENT_TYPE_BOARD, cards=names(event.cards), street=_STREETS[event.street], hand=number
        )
    elif isinstance(event, Posted):
        message = pb.Event(
            type=_POSTS[event.kind],
            seat=seat_map[event.seat],
            amount=event.amount,
            to=0 if event.kind == "ante" else event.amount,
            all_in=event.all_in,
            street=pb.STREET_PREFLOP,
            hand=number,
        )
    elif isinstance(event, Returned):
        message = pb.Event(
            type=pb.EVENT_TYPE_RETURNED,
            seat=seat_map[event.seat],
            amount=event.amount,
            street=_STREETS[street],
            hand=number,
        )
    else:
        return None
    return pb.Item(table=table, event=message)


def action_request(
    table: int,
    request_id: int,
    hand: Hand,
    legal: Legal,
    number: int,
    seat_map: list[int],
    table_seats: int,
    time_ms: int,
    bank_ms: int,
    decision_seed: int = 0,
) -> pb.Item:
    """Everything the actor needs to decide, without tracking state itself."""
    seat = hand.actors[0]
    return pb.Item(
        table=table,
        request=pb.ActionRequest(
            request_id=request_id,
            hand=number,
            street=_STREETS[hand.street],
            seat=seat_map[seat],
            hole_cards=names(hand.hole[seat]),
            board=names(hand.board),
            stacks=laid_out(hand.stacks, seat_map, table_seats, 0),
            bets=laid_out(hand.bets, seat_map, table_seats, 0),
            folded=laid_out(hand.folded, seat_map, table_seats, True),
            pot=hand.total_pot(),
            can_fold=legal.fold,
            call_amount=legal.call,
            min_raise_to=legal.min_to,
            max_raise_to=legal.max_to,
            time_ms=time_ms,
            bank_ms=bank_ms,
            variant=VARIANTS[hand.config.variant],
            big_blind=hand.config.big_blind,
            button=seat_map[hand.config.button],
            decision_seed=decision_seed,
        ),
    )


def hand_end(table: int, hand: Hand, number: int, seat_map: list[int], table_seats: int, net: list[int]) -> pb.Item:
    """The HandEnd every seat receives: only cards that were shown at showdown."""
    shown, pots, rake = [], [], 0
    for event in hand.events:
        if isinstance(event, Shown):
            shown.append(pb.ShownHand(seat=seat_map[event.seat], cards=names(event.cards)))
        elif isinstance(event, Awarded):
            pots.append(
                pb.Pot(
                    amount=event.amount,
                    winners=[seat_map[s] for s, _ in event.shares],
                    shares=[w for _, w in event.shares],
                )
            )
        elif isinstance(event, Raked):
            rake = event.amount
    return pb.Item(
        table=table,
        hand_end=pb.HandEnd(
            hand=number,
            shown=shown,
            pots=pots,
            stacks=laid_out(hand.stacks, seat_map, table_seats, 0),
            net=net,
            board=names(hand.board),
            rake=rake,
        ),
    )
