"""Hands per second of our rules engine against PokerKit, under the same random no-limit play.

Both sides play seeded uniformly random legal actions (fold, check/call, or raise to the
minimum, the maximum or anything between) from 100-big-blind stacks, heads-up and six-max.
Ours includes a fresh seeded deck per hand and the showdown evaluation; PokerKit deals and
shows by its automations. Each figure is the median of several short runs. The last line is
``engine speed vs pokerkit: <ratio>x``, the smaller of the two ratios.

Run: ``python benchmarks/engine.py [--runs 5] [--seconds 1.0]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from pokerkit import Automation, NoLimitTexasHoldem

from dealer.engine.cards import shuffled_deck
from dealer.engine.rules import Hand, TableConfig

STACK = 200
BLINDS = (1, 2)
POKERKIT_AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.CARD_BURNING,
    Automation.HOLE_DEALING,
    Automation.BOARD_DEALING,
    Automation.RUNOUT_COUNT_SELECTION,
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)


def engine_hand(rng: random.Random, players: int, number: int) -> None:
    """Play one random hand in our engine, from a fresh seeded deck to the settled pots."""
    config = TableConfig(stacks=(STACK,) * players, button=number % players, small_blind=BLINDS[0], big_blind=BLINDS[1])
    hand = Hand(config, shuffled_deck(number, 2 * players + 8))
    while hand.actor is not None:
        legal = hand.legal()
        choice = rng.randrange(2 + legal.fold)
        if choice == 2:
            hand.fold()
        elif choice == 0 or not legal.can_raise:
            hand.check_call()
        else:
            hand.raise_to(rng.choice((legal.min_to, legal.max_to, rng.randint(legal.min_to, legal.max_to))))


def pokerkit_hand(rng: random.Random, players: int, number: int) -> None:
    """Play one random hand in PokerKit's no-limit hold'em, dealt and settled by its automations."""
    state = NoLimitTexasHoldem.create_state(
        POKERKIT_AUTOMATIONS, True, 0, BLINDS, BLINDS[1], (STACK,) * players, players
    )
    while state.status:
        can_fold = state.can_fold()
        choice = rng.randrange(2 + can_fold)
        if choice == 2:
            state.fold()
        elif choice == 0 or not state.can_complete_bet_or_raise_to():
            state.check_or_call()
        else:
            low = state.min_completion_betting_or_raising_to_amount
            high = state.max_completion_betting_or_raising_to_amount
            state.complete_bet_or_raise_to(rng.choice((low, high, rng.randint(low, high))))


def rate(play: Callable[[random.Random, int, int], None], players: int, seconds: float, seed: int) -> float:
    """Return the hands per second of ``play`` over about ``seconds``."""
    rng = random.Random(seed)
    hands = 0
    begin = time.perf_counter()
    deadline = begin + seconds
    while True:
        for _ in range(20):
            play(rng, players, hands)
            hands += 1
        now = time.perf_counter()
        if now >= deadline:
            return hands / (now - begin)


def main() -> None:
    """Measure both sides heads-up and six-max and print the table and the ratio line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="short runs per figure (the median is shown)")
    parser.add_argument("--seconds", type=float, default=1.0, help="length of one run")
    args = parser.parse_args()
    ratios = []
    print(f"{'table':<10} {'engine hands/s':>15} {'pokerkit hands/s':>17} {'ratio':>8}")
    for name, players in (("heads-up", 2), ("6-max", 6)):
        ours = statistics.median(rate(engine_hand, players, args.seconds, run) for run in range(args.runs))
        theirs = statistics.median(rate(pokerkit_hand, players, args.seconds, run) for run in range(args.runs))
        ratios.append(ours / theirs)
        print(f"{name:<10} {ours:>15,.0f} {theirs:>17,.0f} {ours / theirs:>7.1f}x")
    print(f"engine speed vs pokerkit: {min(ratios):.1f}x")


if __name__ == "__main__":
    main()
