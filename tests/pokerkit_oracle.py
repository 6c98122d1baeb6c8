"""Replay one of our PHH hands in PokerKit, strictly, as the differential tests' oracle.

The ``pokerkit.State`` is built here from the PHH fields, and each action is applied once with
warnings turned into errors: iterating ``pokerkit.HandHistory`` would "repair" a bad history
instead of failing. Before each decision the oracle records what PokerKit allows, so a test can
compare it with our engine at the exact action where they part.
"""

from __future__ import annotations

import tomllib
import warnings
from dataclasses import dataclass

from pokerkit import (
    Automation,
    BettingStructure,
    Deck,
    Mode,
    Opening,
    StandardHighHand,
    State,
    Street,
)

# Everything but the cards and the decisions we write; burns are dealt by hand as ``??`` (an
# automated burn draws a real card that can collide with a board card dealt later).
AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.RUNOUT_COUNT_SELECTION,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)
STRUCTURES = {
    "NT": BettingStructure.NO_LIMIT,
    "PLT": BettingStructure.POT_LIMIT,
    "FT": BettingStructure.FIXED_LIMIT,
}


@dataclass(frozen=True)
class Decision:
    """What PokerKit allows before one decision: who acts (0-based position) and the ranges.

    ``min_to``/``max_to`` are 0 when no bet or raise is allowed, as in ``dealer.engine.rules.Legal``.
    """

    actor: int
    fold: bool
    call: int
    min_to: int
    max_to: int


@dataclass(frozen=True)
class Replay:
    """PokerKit's finishing stacks, its view before every decision, and its showdown order.

    ``showdown_order`` (the positions PokerKit expects to show, in turn) is kept for a showdown
    after the river betting only: for an all-in run-out RULES.md sets no order, and PokerKit
    starts from the last aggressor while our engine starts from position 0.
    """

    finishing_stacks: list[int]
    decisions: list[Decision]
    showdown_order: list[int]


def build_state(fields: dict, cap: int = 4) -> State:
    """Return the PokerKit state of a PHH hand's opening, configured to our rules.

    Fixed limit: our big blind is the first bet pre-flop, while PokerKit does not count blinds
    towards its cap, so pre-flop allows ``cap - 1`` completions/bets/raises and later streets
    ``cap`` (bet, raise, re-raise, cap by default). When no blind is posted at all (a zero small
    blind and a big blind all-in on its ante) pre-flop opens unbet and allows ``cap`` too.
    """
    state = _state(fields, (cap - 1, cap, cap, cap))
    return state if any(state.bets) else _state(fields, (cap,) * 4)


def _state(fields: dict, fixed_limit_caps: tuple[int, ...]) -> State:
    """Return the PokerKit state of a PHH hand's opening, with these fixed-limit caps by street."""
    structure = STRUCTURES[fields["variant"]]
    if structure is BettingStructure.FIXED_LIMIT:
        small, big = fields["small_bet"], fields["big_bet"]
        counts: tuple[int | None, ...] = fixed_limit_caps
    else:
        small = big = fields["min_bet"]
        counts = (None,) * 4
    streets = tuple(
        Street(index > 0, () if index else (False, False), (0, 3, 1, 1)[index], False, Opening.POSITION, size, count)
        for index, (size, count) in enumerate(zip((small, small, big, big), counts, strict=True))
    )
    return State(
        AUTOMATIONS,
        Deck.STANDARD,
        (StandardHighHand,),
        streets,
        structure,
        fields["ante_trimming_status"],
        fields["antes"],
        fields["blinds_or_straddles"],
        0,
        fields["starting_stacks"],
        len(fields["starting_stacks"]),
        mode=Mode.TOURNAMENT,
    )


def replay(text: str, cap: int = 4) -> Replay:
    """Apply every action of a PHH hand to PokerKit once; raise on the first one it refuses."""
    fields = tomllib.loads(text)
    decisions: list[Decision] = []
    showdown_order: list[int] = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        state = build_state(fields, cap)
        for number, action in enumerate(fields["actions"]):
            try:
                _apply(state, action.split(), decisions, showdown_order)
            except Exception as error:
                raise AssertionError(f"PokerKit refuses action {number} {action!r}: {error}") from error
        if state.status:
            raise AssertionError("PokerKit's hand is not over after the last action")
    return Replay(list(state.stacks), decisions, showdown_order)


def _apply(state: State, words: list[str], decisions: list[Decision], showdown_order: list[int]) -> None:
    """Apply one PHH action, recording PokerKit's view before a decision or a show."""
    match words:
        case ["d", "dh", player, cards]:
            state.deal_hole(cards, int(player[1:]) - 1)
        case ["d", "db", cards]:
            if state.can_burn_card("??"):
                state.burn_card("??")
            state.deal_board(cards)
        case [player, "sm", cards]:
            if state.street is state.streets[-1]:
                showdown_order.append(state.showdown_index)
            state.show_or_muck_hole_cards(cards, int(player[1:]) - 1)
        case [player, verb, *amount]:
            actor = state.actor_index
            if actor != int(player[1:]) - 1:
                raise AssertionError(f"PokerKit expects p{actor + 1 if actor is not None else None} to act")
            can_raise = state.can_complete_bet_or_raise_to()
            decisions.append(
                Decision(
                    actor,
                    state.can_fold(),
                    state.checking_or_calling_amount,
                    state.min_completion_betting_or_raising_to_amount if can_raise else 0,
                    state.max_completion_betting_or_raising_to_amount if can_raise else 0,
                )
            )
            if verb == "f":
                state.fold()
            elif verb == "cc":
                state.check_or_call()
            elif verb == "cbr":
                state.complete_bet_or_raise_to(int(amount[0]))
            else:
                raise AssertionError(f"unknown PHH action verb {verb!r}")
        case _:
            raise AssertionError(f"unknown PHH action {' '.join(words)!r}")
