"""Microseconds per item of the dealer's hand encoder, ``wire.HandWire``, against the generated messages.

The reference is the encoder it replaced (``tests/wire_reference.py``: build the ``pb.Item``,
then ``wire.frame``). Both encode the same recorded hands (no-limit, 200-big-blind stacks,
mostly calls with some raises and few folds): every HandStart, public Event, ActionRequest (from
the hand as it was when asked, replayed) and HandEnd, each kind on fresh encoders. The last row
is one whole hand, the encoder's construction included. Each figure is the median CPU time of
``--runs`` runs, the two sides taking turns.

Run: ``python benchmarks/wire.py [--hands 500] [--players 2] [--runs 7]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tabulate import tabulate

from dealer.connect.wire import HandWire, frame
from dealer.engine.cards import shuffled_deck
from dealer.engine.rules import Dealt, Event, Hand, Legal, TableConfig

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import wire_reference as reference  # the test oracle, which lives with the tests

TABLE, TIME_MS, BANK_MS = 3, 1000, 30000


@dataclass
class Recorded:
    """One played hand: the hand at its end, its events with their streets, and the hand at each request."""

    final: Hand
    number: int
    events: list[tuple[Event, int]]
    asked: list[tuple[Hand, Legal]]
    net: list[int]


def play(hand: Hand, action: int) -> None:
    """Fold (0), check or call (-1), or raise to ``action``."""
    if action == 0:
        hand.fold()
    elif action < 0:
        hand.check_call()
    else:
        hand.raise_to(action)


def replayed(config: TableConfig, deck: list[int], actions: list[int]) -> Hand:
    """A new hand after ``actions``: the hand as it was when asked (hands cannot be deep-copied
    once the engine is compiled)."""
    hand = Hand(config, deck)
    for action in actions:
        play(hand, action)
    return hand


def record(hands: int, players: int, seed: int) -> list[Recorded]:
    """Play ``hands`` hands (calls, raises to a random legal total one time in five, folds one in
    twenty) and keep what the encoders are given."""
    rng = random.Random(seed)
    recorded = []
    for number in range(hands):
        config = TableConfig(stacks=(20000,) * players, button=number % players, small_blind=50, big_blind=100)
        deck = shuffled_deck(number, 2 * players + 8)
        hand = Hand(config, deck)
        asked, played = [], []
        while hand.actor is not None:
            legal = hand.legal()
            asked.append((replayed(config, deck, played), legal))
            choice = rng.random()
            if choice < 0.05 and legal.fold:
                played.append(0)
            elif choice < 0.8 or not legal.can_raise:
                played.append(-1)
            else:
                played.append(rng.choice((legal.min_to, legal.max_to, rng.randint(legal.min_to, legal.max_to))))
            play(hand, played[-1])
        street, events = 0, []
        for event in hand.events:
            street = event.street if isinstance(event, Dealt) else street
            events.append((event, street))
        net = [final - start for final, start in zip(hand.stacks, config.stacks, strict=True)]
        recorded.append(Recorded(hand, number, events, asked, net))
    return recorded


def reference_side(hands: list[Recorded], seats: list[int]) -> dict[str, Callable[[], None]]:
    """The timed loops of the reference encoder, by item kind."""
    n = len(seats)

    def starts() -> None:
        for h in hands:
            for seat in seats:
                frame(reference.hand_start(TABLE, h.final, h.number, seat, seats, n))

    def events() -> None:
        for h in hands:
            for event, street in h.events:
                item = reference.public_item(TABLE, event, street, h.number, seats)
                if item is not None:
                    frame(item)

    def requests() -> None:
        for h in hands:
            for request_id, (hand, legal) in enumerate(h.asked):
                frame(reference.action_request(TABLE, request_id, hand, legal, h.number, seats, n, TIME_MS, BANK_MS))

    def ends() -> None:
        for h in hands:
            frame(reference.hand_end(TABLE, h.final, h.number, seats, n, h.net))

    def whole() -> None:
        starts()
        events()
        requests()
        ends()

    return {"HandStart": starts, "Event": events, "ActionRequest": requests, "HandEnd": ends, "hand (all items)": whole}


def encoder_side(hands: list[Recorded], seats: list[int]) -> tuple[dict[str, Callable[[], None]], Callable[[], None]]:
    """The timed loops of ``HandWire``, by item kind, and what gives them fresh encoders before a run.

    The kinds' loops use encoders made outside the timing (one per hand, as the match makes);
    the whole hand's loop makes its own.
    """
    n = len(seats)
    encoders: list[HandWire] = []

    def renew() -> None:  # nothing the previous run encoded is remembered by an encoder
        encoders[:] = [HandWire(TABLE, h.final, h.number, seats, n) for h in hands]

    def starts() -> None:
        for encoder in encoders:
            for seat in seats:
                encoder.hand_start(seat)

    def events() -> None:
        for h, encoder in zip(hands, encoders, strict=True):
            for event, street in h.events:
                encoder.event(event, street)

    def requests() -> None:  # the replayed hands are the encoder's hand at the moments it was asked
        for h, encoder in zip(hands, encoders, strict=True):
            for request_id, (hand, legal) in enumerate(h.asked):
                encoder.hand = hand
                encoder.request(request_id, legal, TIME_MS, BANK_MS)
            encoder.hand = h.final

    def ends() -> None:
        for h, encoder in zip(hands, encoders, strict=True):
            encoder.hand_end(h.net)

    def whole() -> None:
        for h in hands:
            encoder = HandWire(TABLE, h.final, h.number, seats, n)
            for seat in seats:
                encoder.hand_start(seat)
            for event, street in h.events:
                encoder.event(event, street)
            for request_id, (hand, legal) in enumerate(h.asked):
                encoder.hand = hand
                encoder.request(request_id, legal, TIME_MS, BANK_MS)
            encoder.hand = h.final
            encoder.hand_end(h.net)

    loops = {
        "HandStart": starts,
        "Event": events,
        "ActionRequest": requests,
        "HandEnd": ends,
        "hand (all items)": whole,
    }
    return loops, renew


def seconds(loop: Callable[[], None]) -> float:
    """The CPU time of one run of ``loop`` (this process's: less disturbed by others than wall time)."""
    begin = time.process_time()
    loop()
    return time.process_time() - begin


def main() -> None:
    """Record the hands, time both sides kind by kind, and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=500, help="recorded hands encoded per run")
    parser.add_argument("--players", type=int, default=2, help="seats at the table")
    parser.add_argument("--runs", type=int, default=7, help="runs per figure (the median is shown)")
    args = parser.parse_args()
    hands = record(args.hands, args.players, seed=1)
    seats = list(range(args.players))
    counts = {
        "HandStart": args.players * len(hands),
        "Event": sum(
            1 for h in hands for event, street in h.events if reference.public_item(0, event, street, 0, seats)
        ),
        "ActionRequest": sum(len(h.asked) for h in hands),
        "HandEnd": len(hands),
        "hand (all items)": len(hands),
    }
    (ours, renew), theirs = encoder_side(hands, seats), reference_side(hands, seats)
    rows = []
    for kind, count in counts.items():
        old, new = [], []
        for _ in range(args.runs):
            old.append(seconds(theirs[kind]))
            renew()
            new.append(seconds(ours[kind]))
        before, after = statistics.median(old) / count * 1e6, statistics.median(new) / count * 1e6
        rows.append((kind, f"{count / len(hands):.1f}", f"{before:.2f}", f"{after:.2f}", f"{before / after:.1f}x"))
    print(
        tabulate(
            rows,
            headers=[f"{args.players} seats, median of {args.runs}", "per hand", "pb µs", "HandWire µs", "speed-up"],
            disable_numparse=True,
        )
    )


if __name__ == "__main__":
    main()
