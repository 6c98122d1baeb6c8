"""Differential tests: random legal play in our engine, written as PHH and replayed in PokerKit.

Both must agree on the finishing stacks and, before every decision, on who acts, whether a fold
is allowed, the call amount and the raise-to range; a mismatch names the hand and the action.
"""

from __future__ import annotations

import random

import pytest

from dealer.engine.cards import shuffled_deck
from dealer.engine.history import phh_text
from dealer.engine.rules import Hand, Legal, Shown, TableConfig, Variant
from pokerkit_oracle import Decision, replay

VARIANTS = (Variant.NO_LIMIT, Variant.POT_LIMIT, Variant.FIXED_LIMIT)
PLAYER_COUNTS = (2, 3, 6, 10)


def random_config(rng: random.Random, variant: Variant, players: int) -> TableConfig:
    """Return a table with 1..60 big-blind stacks (many short), a random button, antes sometimes."""
    big = rng.choice((2, 4, 10, 20, 25))
    small = rng.choice((big // 2, big // 2, big // 2, big // 5, big))
    ante = rng.choice((0, 0, 1, big // 10, big // 4))
    stacks = tuple(rng.randint(1, 4 * big) if rng.random() < 0.4 else rng.randint(1, 60 * big) for _ in range(players))
    return TableConfig(stacks=stacks, button=rng.randrange(players), small_blind=small, big_blind=big,
                       variant=variant, ante=ante)  # fmt: skip


def random_raise(rng: random.Random, hand: Hand, legal: Legal) -> int:
    """Return a raise-to total: the minimum, the maximum, about the pot, or anything between."""
    pot_sized = hand.max_bet + legal.call + hand.total_pot() + legal.call
    target = rng.choice(
        (legal.min_to, legal.max_to, pot_sized, pot_sized // 2, rng.randint(legal.min_to, legal.max_to))
    )
    return min(max(target, legal.min_to), legal.max_to)


def play(rng: random.Random, config: TableConfig, seed: str) -> tuple[Hand, list[Decision]]:
    """Play one hand with uniformly random choices; return it and our view before each decision."""
    hand = Hand(config, shuffled_deck(seed))
    decisions = []
    while hand.actor is not None:
        legal = hand.legal()
        decisions.append(Decision(hand.position[hand.actor], legal.fold, legal.call, legal.min_to, legal.max_to))
        choices = ["call"] + ["fold"] * legal.fold + ["raise"] * legal.can_raise
        choice = rng.choice(choices)
        if choice == "fold":
            hand.fold()
        elif choice == "call":
            hand.check_call()
        else:
            hand.raise_to(random_raise(rng, hand, legal))
    return hand, decisions


def check_hands(variant: Variant, players: int, count: int, seed: int) -> None:
    """Play ``count`` random hands and require PokerKit to agree on each one."""
    rng = random.Random(seed)
    for number in range(count):
        config = random_config(rng, variant, players)
        hand, ours = play(rng, config, f"{seed}-{number}")
        text = phh_text(hand, hand_number=number)
        context = f"hand {number} of seed {seed}:\n{config}\n{text}"
        theirs = replay(text)
        for step, (mine, pokerkit) in enumerate(zip(ours, theirs.decisions, strict=False)):  # lengths compared below
            assert mine == pokerkit, f"decision {step} differs: ours {mine}, PokerKit {pokerkit}; {context}"
        assert len(ours) == len(theirs.decisions), context
        if theirs.showdown_order:
            shown = [hand.position[e.seat] for e in hand.events if isinstance(e, Shown)]
            assert shown == theirs.showdown_order, context
        final = hand.final_stacks()
        assert [final[s] for s in hand.order] == theirs.finishing_stacks, context


@pytest.mark.parametrize("players", PLAYER_COUNTS)
@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.value)
def test_quick_differential(variant: Variant, players: int) -> None:
    check_hands(variant, players, 75, seed=1000 + players)


@pytest.mark.slow
@pytest.mark.timeout(1800)
@pytest.mark.parametrize("players", PLAYER_COUNTS)
@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: v.value)
def test_slow_differential(variant: Variant, players: int) -> None:
    check_hands(variant, players, 2500, seed=2000 + players)
